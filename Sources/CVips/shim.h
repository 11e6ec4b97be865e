// libvips for Swift, loaded at run time.
//
// libvips pulls in about a hundred shared libraries (ImageMagick, poppler,
// librsvg, OpenEXR...). Linked into the `warmer` executable they cost every
// command ~40 ms of start-up, though only a worker decoding images needs
// them. So, as pyvips does in its ABI mode, Warmer declares the slice of the
// libvips 8 C API it calls, and resolves it with dlopen/dlsym the first time
// an image is touched. libvips keeps this API stable across 8.x, and
// scripts/check-vips-signatures.sh compiles this header against libvips'
// own headers (libvips-dev), so that a declaration here that drifts from
// libvips' is a compile error (VipsSignatureTests runs it).
//
// The wrappers below also give the variadic calls fixed option lists, since
// Swift does not import C variadic functions. Only Sources/VipsKit
// uses this module.
#ifndef WARMER_CVIPS_SHIM_H
#define WARMER_CVIPS_SHIM_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#ifndef WARMER_VIPS_SIGNATURE_CHECK
/// An image (libvips' VipsImage, a GObject); opaque here.
typedef struct _VipsImage VipsImage;
/// A reference-counted array of doubles (libvips' VipsArrayDouble, a VipsArea); opaque here.
typedef struct _VipsArrayDouble VipsArrayDouble;
/// The base of VipsArrayDouble and the other libvips boxed arrays; opaque here.
typedef struct _VipsArea VipsArea;
#endif
/// glib's GType.
typedef size_t warmer_gtype;
/// glib's gboolean (a gint).
typedef int warmer_gboolean;

// The two libvips enums Swift reads, as lists of (name, value) copied from
// libvips 8.14's image.h: normally declared from the lists; checked against
// the real headers by scripts/check-vips-signatures.sh.
#define WARMER_VIPS_BAND_FORMATS(X) \
    X(VIPS_FORMAT_NOTSET, -1) \
    X(VIPS_FORMAT_UCHAR, 0) \
    X(VIPS_FORMAT_CHAR, 1) \
    X(VIPS_FORMAT_USHORT, 2) \
    X(VIPS_FORMAT_SHORT, 3) \
    X(VIPS_FORMAT_UINT, 4) \
    X(VIPS_FORMAT_INT, 5) \
    X(VIPS_FORMAT_FLOAT, 6) \
    X(VIPS_FORMAT_COMPLEX, 7) \
    X(VIPS_FORMAT_DOUBLE, 8) \
    X(VIPS_FORMAT_DPCOMPLEX, 9) \
    X(VIPS_FORMAT_LAST, 10)

#define WARMER_VIPS_INTERPRETATIONS(X) \
    X(VIPS_INTERPRETATION_ERROR, -1) \
    X(VIPS_INTERPRETATION_MULTIBAND, 0) \
    X(VIPS_INTERPRETATION_B_W, 1) \
    X(VIPS_INTERPRETATION_HISTOGRAM, 10) \
    X(VIPS_INTERPRETATION_XYZ, 12) \
    X(VIPS_INTERPRETATION_LAB, 13) \
    X(VIPS_INTERPRETATION_CMYK, 15) \
    X(VIPS_INTERPRETATION_LABQ, 16) \
    X(VIPS_INTERPRETATION_RGB, 17) \
    X(VIPS_INTERPRETATION_CMC, 18) \
    X(VIPS_INTERPRETATION_LCH, 19) \
    X(VIPS_INTERPRETATION_LABS, 21) \
    X(VIPS_INTERPRETATION_sRGB, 22) \
    X(VIPS_INTERPRETATION_YXY, 23) \
    X(VIPS_INTERPRETATION_FOURIER, 24) \
    X(VIPS_INTERPRETATION_RGB16, 25) \
    X(VIPS_INTERPRETATION_GREY16, 26) \
    X(VIPS_INTERPRETATION_MATRIX, 27) \
    X(VIPS_INTERPRETATION_scRGB, 28) \
    X(VIPS_INTERPRETATION_HSV, 29) \
    X(VIPS_INTERPRETATION_LAST, 30)

#ifndef WARMER_VIPS_SIGNATURE_CHECK
#define WARMER_ENUMERATOR(name, value) name = value,
/// The pixel format of one band; libvips' VipsBandFormat.
typedef enum { WARMER_VIPS_BAND_FORMATS(WARMER_ENUMERATOR) } VipsBandFormat;
/// How pixel values are to be read; libvips' VipsInterpretation.
typedef enum { WARMER_VIPS_INTERPRETATIONS(WARMER_ENUMERATOR) } VipsInterpretation;
#undef WARMER_ENUMERATOR
#endif

// Values of enum-typed optional arguments, which travel through the variadic
// option lists as ints.
/// VIPS_ACCESS_SEQUENTIAL from VipsAccess: decode top to bottom, once.
#define WARMER_VIPS_ACCESS_SEQUENTIAL 1
/// VIPS_FAIL_ON_TRUNCATED from VipsFailOn: stop on truncated data (and worse), not on warnings.
#define WARMER_VIPS_FAIL_ON_TRUNCATED 1
/// VIPS_FAIL_ON_WARNING from VipsFailOn: stop on any warning of the decoder.
#define WARMER_VIPS_FAIL_ON_WARNING 3
/// VIPS_SIZE_DOWN from VipsSize: a thumbnail only ever shrinks.
#define WARMER_VIPS_SIZE_DOWN 2
/// VIPS_FOREIGN_HEIF_COMPRESSION_AV1 from VipsForeignHeifCompression: AVIF.
#define WARMER_VIPS_HEIF_COMPRESSION_AV1 4

/// The libvips (and glib) functions Warmer calls.
///
/// The static inline functions below are compiled into every Swift file that
/// calls them, and SwiftPM's incremental build does not recompile a Swift
/// file when only this header changes: after changing this struct's layout,
/// delete .build/*/debug/VipsKit.build (CI builds from scratch).
typedef struct warmer_vips {
    int (*init)(const char *argv0);
    void (*cache_set_max)(int max);
    void (*concurrency_set)(int concurrency);
    void (*vector_set_enabled)(warmer_gboolean enabled);
    warmer_gboolean (*vector_isenabled)(void);
    char *(*error_buffer_copy)(void);
    const char *(*foreign_find_load_buffer)(const void *data, size_t size);
    const char *(*nickname_find)(warmer_gtype type);
    VipsImage *(*image_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
    int (*image_get_width)(const VipsImage *image);
    int (*image_get_height)(const VipsImage *image);
    warmer_gtype (*type_from_name)(const char *name);
    void (*object_unref)(void *object);

    // Header fields (header.h, image.h).
    int (*image_get_bands)(const VipsImage *image);
    VipsBandFormat (*image_get_format)(const VipsImage *image);
    VipsInterpretation (*image_get_interpretation)(const VipsImage *image);
    int (*image_get_orientation)(VipsImage *image);
    warmer_gboolean (*image_hasalpha)(VipsImage *image);
    warmer_gtype (*image_get_typeof)(const VipsImage *image, const char *name);
    VipsImage *(*image_copy_memory)(VipsImage *image);
    const void *(*image_get_data)(VipsImage *image);
    VipsImage *(*image_new_from_memory)(const void *data, size_t size, int width, int height, int bands, VipsBandFormat format);

    // Loading and colour (resample.h, conversion.h, colour.h).
    int (*thumbnail_buffer)(void *buf, size_t len, VipsImage **out, int width, ...);
    int (*autorot)(VipsImage *in, VipsImage **out, ...);
    int (*colourspace)(VipsImage *in, VipsImage **out, VipsInterpretation space, ...);
    int (*icc_transform)(VipsImage *in, VipsImage **out, const char *output_profile, ...);
    int (*cast)(VipsImage *in, VipsImage **out, VipsBandFormat format, ...);
    int (*copy)(VipsImage *in, VipsImage **out, ...);

    // Processing (resample.h, conversion.h, convolution.h, arithmetic.h, create.h, draw.h).
    int (*resize)(VipsImage *in, VipsImage **out, double scale, ...);
    int (*extract_area)(VipsImage *in, VipsImage **out, int left, int top, int width, int height, ...);
    int (*extract_band)(VipsImage *in, VipsImage **out, int band, ...);
    int (*bandjoin2)(VipsImage *in1, VipsImage *in2, VipsImage **out, ...);
    int (*premultiply)(VipsImage *in, VipsImage **out, ...);
    int (*unpremultiply)(VipsImage *in, VipsImage **out, ...);
    int (*flatten)(VipsImage *in, VipsImage **out, ...);
    int (*gaussblur)(VipsImage *in, VipsImage **out, double sigma, ...);
    int (*andimage)(VipsImage *left, VipsImage *right, VipsImage **out, ...);
    int (*black)(VipsImage **out, int width, int height, ...);
    int (*gaussnoise)(VipsImage **out, int width, int height, ...);
    int (*draw_rect)(VipsImage *image, double *ink, int n, int left, int top, int width, int height, ...);
    int (*draw_circle)(VipsImage *image, double *ink, int n, int cx, int cy, int radius, ...);
    int (*getpoint)(VipsImage *in, double **vector, int *n, int x, int y, ...);
    VipsArrayDouble *(*array_double_new)(const double *array, int n);
    void (*area_unref)(VipsArea *area);

    // Saving (foreign.h) and glib's allocator.
    int (*jpegsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*pngsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*webpsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*heifsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*image_write_to_file)(VipsImage *image, const char *name, ...);
    void (*g_free)(void *mem);
} warmer_vips;

/// Every field of `warmer_vips` with the function it holds, for
/// warmer_vips_load and scripts/check-vips-signatures.sh.
#define WARMER_VIPS_FUNCTIONS(X) \
    X(init, vips_init) \
    X(cache_set_max, vips_cache_set_max) \
    X(concurrency_set, vips_concurrency_set) \
    X(vector_set_enabled, vips_vector_set_enabled) \
    X(vector_isenabled, vips_vector_isenabled) \
    X(error_buffer_copy, vips_error_buffer_copy) \
    X(foreign_find_load_buffer, vips_foreign_find_load_buffer) \
    X(nickname_find, vips_nickname_find) \
    X(image_new_from_buffer, vips_image_new_from_buffer) \
    X(image_get_width, vips_image_get_width) \
    X(image_get_height, vips_image_get_height) \
    X(type_from_name, g_type_from_name) \
    X(object_unref, g_object_unref) \
    X(image_get_bands, vips_image_get_bands) \
    X(image_get_format, vips_image_get_format) \
    X(image_get_interpretation, vips_image_get_interpretation) \
    X(image_get_orientation, vips_image_get_orientation) \
    X(image_hasalpha, vips_image_hasalpha) \
    X(image_get_typeof, vips_image_get_typeof) \
    X(image_copy_memory, vips_image_copy_memory) \
    X(image_get_data, vips_image_get_data) \
    X(image_new_from_memory, vips_image_new_from_memory) \
    X(thumbnail_buffer, vips_thumbnail_buffer) \
    X(autorot, vips_autorot) \
    X(colourspace, vips_colourspace) \
    X(icc_transform, vips_icc_transform) \
    X(cast, vips_cast) \
    X(copy, vips_copy) \
    X(resize, vips_resize) \
    X(extract_area, vips_extract_area) \
    X(extract_band, vips_extract_band) \
    X(bandjoin2, vips_bandjoin2) \
    X(premultiply, vips_premultiply) \
    X(unpremultiply, vips_unpremultiply) \
    X(flatten, vips_flatten) \
    X(gaussblur, vips_gaussblur) \
    X(andimage, vips_andimage) \
    X(black, vips_black) \
    X(gaussnoise, vips_gaussnoise) \
    X(draw_rect, vips_draw_rect) \
    X(draw_circle, vips_draw_circle) \
    X(getpoint, vips_getpoint) \
    X(array_double_new, vips_array_double_new) \
    X(area_unref, vips_area_unref) \
    X(jpegsave_buffer, vips_jpegsave_buffer) \
    X(pngsave_buffer, vips_pngsave_buffer) \
    X(webpsave_buffer, vips_webpsave_buffer) \
    X(heifsave_buffer, vips_heifsave_buffer) \
    X(image_write_to_file, vips_image_write_to_file) \
    X(g_free, g_free)

/// Loads libvips and resolves every function above. Returns NULL when the
/// library or a symbol is missing; `dlerror()` then says why.
static inline const warmer_vips *warmer_vips_load(void) {
    void *library = dlopen("libvips.so.42", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return NULL;
    warmer_vips *vips = calloc(1, sizeof *vips);
    if (vips == NULL) return NULL;
    // dlsym on the handle also searches libvips' dependencies (glib, gobject).
#define WARMER_RESOLVE(field, symbol) \
    if ((*(void **)&vips->field = dlsym(library, #symbol)) == NULL) { free(vips); return NULL; }
    WARMER_VIPS_FUNCTIONS(WARMER_RESOLVE)
#undef WARMER_RESOLVE
    return vips;
}

/// Why the last dlopen/dlsym failed.
static inline const char *warmer_vips_load_error(void) { return dlerror(); }

static inline int warmer_vips_init(const warmer_vips *vips, const char *argv0) { return vips->init(argv0); }
static inline void warmer_vips_cache_set_max(const warmer_vips *vips, int max) { vips->cache_set_max(max); }
/// Threads libvips uses to compute one image (its threadpool size).
static inline void warmer_vips_concurrency_set(const warmer_vips *vips, int concurrency) { vips->concurrency_set(concurrency); }
/// Turns libvips' ORC vector paths on or off, for every operation built
/// after the call (see `Vips.shared` for why Warmer turns them off).
static inline void warmer_vips_vector_set_enabled(const warmer_vips *vips, int enabled) { vips->vector_set_enabled(enabled); }
/// Whether operations built now would compile ORC vector programs.
static inline int warmer_vips_vector_isenabled(const warmer_vips *vips) { return vips->vector_isenabled(); }
/// libvips' accumulated error text, copied and cleared in one step under
/// libvips' lock (the buffer is one per process: reading it and clearing it
/// in two calls races with other threads' errors). Free it with warmer_vips_free.
static inline char *warmer_vips_take_error(const warmer_vips *vips) { return vips->error_buffer_copy(); }
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

// The fixed-argument wrappers of header fields, decoding, processing and
// encoding (split out to keep each file readable).
#include "shim_operations.h"

#endif
