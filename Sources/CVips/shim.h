// libvips for Swift, loaded at run time.
//
// libvips pulls in about a hundred shared libraries (ImageMagick, poppler,
// librsvg, OpenEXR...). Linked into the `warmer` executable they cost every
// command ~40 ms of start-up, though only a worker decoding images needs
// them. So, as pyvips does in its ABI mode, Warmer declares the slice of the
// libvips 8 C API it calls, and resolves it with dlopen/dlsym the first time
// an image is touched. libvips keeps this API stable across 8.x.
//
// The wrappers below also give the variadic calls fixed option lists, since
// Swift does not import C variadic functions. Only Sources/PipelineEngine/Vips
// uses this module.
#ifndef WARMER_CVIPS_SHIM_H
#define WARMER_CVIPS_SHIM_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

/// An image (libvips' VipsImage, a GObject); opaque here.
typedef struct _VipsImage VipsImage;
/// glib's GType.
typedef size_t warmer_gtype;

/// VIPS_ACCESS_SEQUENTIAL from VipsAccess: decode top to bottom, once.
#define WARMER_VIPS_ACCESS_SEQUENTIAL 1

/// The libvips (and glib) functions Warmer calls.
typedef struct warmer_vips {
    int (*init)(const char *argv0);
    void (*cache_set_max)(int max);
    const char *(*error_buffer)(void);
    void (*error_clear)(void);
    const char *(*foreign_find_load_buffer)(const void *data, size_t size);
    const char *(*nickname_find)(warmer_gtype type);
    VipsImage *(*image_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
    int (*image_get_width)(const VipsImage *image);
    int (*image_get_height)(const VipsImage *image);
    warmer_gtype (*type_from_name)(const char *name);
    void (*object_unref)(void *object);
} warmer_vips;

/// Loads libvips and resolves every function above. Returns NULL when the
/// library or a symbol is missing; `dlerror()` then says why.
static inline const warmer_vips *warmer_vips_load(void) {
    void *library = dlopen("libvips.so.42", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return NULL;
    warmer_vips *vips = calloc(1, sizeof *vips);
    if (vips == NULL) return NULL;
    // dlsym on the handle also searches libvips' dependencies (glib, gobject).
#define WARMER_RESOLVE(field, symbol) \
    if ((*(void **)&vips->field = dlsym(library, symbol)) == NULL) { free(vips); return NULL; }
    WARMER_RESOLVE(init, "vips_init")
    WARMER_RESOLVE(cache_set_max, "vips_cache_set_max")
    WARMER_RESOLVE(error_buffer, "vips_error_buffer")
    WARMER_RESOLVE(error_clear, "vips_error_clear")
    WARMER_RESOLVE(foreign_find_load_buffer, "vips_foreign_find_load_buffer")
    WARMER_RESOLVE(nickname_find, "vips_nickname_find")
    WARMER_RESOLVE(image_new_from_buffer, "vips_image_new_from_buffer")
    WARMER_RESOLVE(image_get_width, "vips_image_get_width")
    WARMER_RESOLVE(image_get_height, "vips_image_get_height")
    WARMER_RESOLVE(type_from_name, "g_type_from_name")
    WARMER_RESOLVE(object_unref, "g_object_unref")
#undef WARMER_RESOLVE
    return vips;
}

/// Why the last dlopen/dlsym failed.
static inline const char *warmer_vips_load_error(void) { return dlerror(); }

static inline int warmer_vips_init(const warmer_vips *vips, const char *argv0) { return vips->init(argv0); }
static inline void warmer_vips_cache_set_max(const warmer_vips *vips, int max) { vips->cache_set_max(max); }
static inline const char *warmer_vips_error_buffer(const warmer_vips *vips) { return vips->error_buffer(); }
static inline void warmer_vips_error_clear(const warmer_vips *vips) { vips->error_clear(); }
static inline const char *warmer_vips_find_loader(const warmer_vips *vips, const void *data, size_t size) {
    return vips->foreign_find_load_buffer(data, size);
}
/// The operation nickname ("jpegload_buffer") of a class name ("VipsForeignLoadJpegBuffer").
static inline const char *warmer_vips_nickname(const warmer_vips *vips, const char *type_name) {
    return vips->nickname_find(vips->type_from_name(type_name));
}

/// Opens an image from memory for sequential access: reads the header only;
/// pixels are decoded on demand. The image borrows `buf`. Returns NULL and
/// sets the vips error buffer on failure.
static inline VipsImage *warmer_vips_open_buffer(const warmer_vips *vips, const void *buf, size_t len) {
    return vips->image_new_from_buffer(buf, len, "", "access", WARMER_VIPS_ACCESS_SEQUENTIAL, NULL);
}

static inline int warmer_vips_width(const warmer_vips *vips, const VipsImage *image) { return vips->image_get_width(image); }
static inline int warmer_vips_height(const warmer_vips *vips, const VipsImage *image) { return vips->image_get_height(image); }

/// Releases a GObject reference (VipsImage and friends).
static inline void warmer_vips_unref(const warmer_vips *vips, void *object) { vips->object_unref(object); }

#endif
