// Non-variadic entry points into libvips for Swift.
//
// Most libvips operations take NULL-terminated variadic option lists, which
// Swift does not import. Each wrapper below fixes the options it passes.
// Only Sources/PipelineEngine/Vips uses this module.
#ifndef WARMER_CVIPS_SHIM_H
#define WARMER_CVIPS_SHIM_H

#include <vips/vips.h>

/// Opens an image from memory for sequential access: reads the header only;
/// pixels are decoded on demand. Returns NULL and sets the vips error buffer on failure.
static inline VipsImage *warmer_vips_open_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// Encodes an image to memory in the format named by suffix (".jpg", ".png", ".webp"...).
static inline int warmer_vips_write_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len) {
    return vips_image_write_to_buffer(in, suffix, buf, len, NULL);
}

/// Releases a GObject reference (VipsImage and friends).
static inline void warmer_vips_unref(void *object) { g_object_unref(object); }

/// Frees a buffer returned by libvips.
static inline void warmer_vips_free(void *buf) { g_free(buf); }

#endif
