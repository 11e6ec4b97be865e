// The fixed-argument wrappers Sources/VipsKit calls: header fields, decoding,
// processing, encoding. Included by shim.h (after the `warmer_vips` function
// table they call through); not a header of its own.
#ifndef WARMER_CVIPS_SHIM_OPERATIONS_H
#define WARMER_CVIPS_SHIM_OPERATIONS_H

// ---- Header fields ----

static inline int warmer_vips_bands(const warmer_vips *vips, const VipsImage *image) { return vips->image_get_bands(image); }
static inline VipsBandFormat warmer_vips_format(const warmer_vips *vips, const VipsImage *image) { return vips->image_get_format(image); }
static inline VipsInterpretation warmer_vips_interpretation(const warmer_vips *vips, const VipsImage *image) {
    return vips->image_get_interpretation(image);
}
/// The EXIF orientation (1 to 8; 1 = upright) libvips read from the header.
static inline int warmer_vips_orientation(const warmer_vips *vips, VipsImage *image) { return vips->image_get_orientation(image); }
/// Non-zero when the last band is alpha.
static inline int warmer_vips_has_alpha(const warmer_vips *vips, VipsImage *image) { return vips->image_hasalpha(image); }
/// Non-zero when the image carries an embedded ICC profile.
static inline int warmer_vips_has_icc_profile(const warmer_vips *vips, const VipsImage *image) {
    return vips->image_get_typeof(image, "icc-profile-data") != 0;
}

/// Computes every pixel of `image` into one memory buffer and returns it as a
/// new image (a new reference; `image` itself when it already is one). After
/// this the result depends on nothing borrowed, and can be read any number of
/// times from any thread. Returns NULL and sets the vips error buffer on failure.
static inline VipsImage *warmer_vips_copy_memory(const warmer_vips *vips, VipsImage *image) {
    return vips->image_copy_memory(image);
}

/// The pixels of a memory image (one made by warmer_vips_copy_memory), or
/// NULL and the vips error buffer set.
static inline const void *warmer_vips_image_data(const warmer_vips *vips, VipsImage *image) {
    return vips->image_get_data(image);
}

/// A new image over `data`, which it borrows (no copy): `data` must outlive
/// it. Each caller gets an image of its own, so libvips' per-image state
/// (reorder data, regions) is never built by two threads at once.
static inline VipsImage *warmer_vips_image_over_memory(const warmer_vips *vips, const void *data, size_t size,
                                                        int width, int height, int bands, VipsBandFormat format) {
    return vips->image_new_from_memory(data, size, width, height, bands, format);
}

// ---- Decoding ----

/// Opens an image from memory for one top-to-bottom decode that fails, at
/// `fail_on` (a WARMER_VIPS_FAIL_ON_* level), on truncated or corrupt data
/// instead of padding it with grey. Reads the header only; pixels are
/// decoded when the image is computed. The image borrows `buf`.
static inline VipsImage *warmer_vips_open_buffer_strict(const warmer_vips *vips, const void *buf, size_t len, int fail_on) {
    return vips->image_new_from_buffer(buf, len, "",
        "access", WARMER_VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL);
}

/// Decodes a thumbnail whose width and height are at most `max_size`, using
/// the loader's shrink-on-load; never upscales; rotates upright by EXIF
/// orientation; fails at `fail_on` (given as the loader option string, e.g.
/// "fail_on=truncated"). The result borrows `buf` until computed.
static inline int warmer_vips_thumbnail_buffer(const warmer_vips *vips, const void *buf, size_t len, VipsImage **out,
                                               int max_size, const char *fail_on) {
    // libvips declares `void *buf` but only reads it. vips_thumbnail_buffer in
    // 8.14 ignores its own "fail_on" argument (vips_thumbnail, the file
    // variant, honours it), so fail_on goes to the loader through
    // "option_string", which does work.
    return vips->thumbnail_buffer((void *)buf, len, out, max_size,
        "height", max_size, "size", WARMER_VIPS_SIZE_DOWN, "option_string", fail_on, NULL);
}

/// Rotates (and flips) upright by the EXIF orientation, and clears the tag.
static inline int warmer_vips_autorot(const warmer_vips *vips, VipsImage *in, VipsImage **out) { return vips->autorot(in, out, NULL); }
static inline int warmer_vips_colourspace(const warmer_vips *vips, VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips->colourspace(in, out, space, NULL);
}
/// Converts to 8-bit sRGB through the embedded ICC profile.
static inline int warmer_vips_icc_to_srgb(const warmer_vips *vips, VipsImage *in, VipsImage **out) {
    return vips->icc_transform(in, out, "srgb", "embedded", 1, NULL);
}
static inline int warmer_vips_cast(const warmer_vips *vips, VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips->cast(in, out, format, NULL);
}

/// `in` labelled with `interpretation` (a lazy copy: no pixel is copied).
static inline int warmer_vips_relabel(const warmer_vips *vips, VipsImage *in, VipsImage **out, VipsInterpretation interpretation) {
    return vips->copy(in, out, "interpretation", interpretation, NULL);
}

// ---- Processing ----

/// Resizes by `hscale` horizontally and `vscale` vertically (lanczos3).
static inline int warmer_vips_resize(const warmer_vips *vips, VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips->resize(in, out, hscale, "vscale", vscale, NULL);
}
static inline int warmer_vips_extract_area(const warmer_vips *vips, VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips->extract_area(in, out, left, top, width, height, NULL);
}
/// Bands `band` to `band + count - 1`.
static inline int warmer_vips_extract_bands(const warmer_vips *vips, VipsImage *in, VipsImage **out, int band, int count) {
    return vips->extract_band(in, out, band, "n", count, NULL);
}
static inline int warmer_vips_bandjoin2(const warmer_vips *vips, VipsImage *in1, VipsImage *in2, VipsImage **out) {
    return vips->bandjoin2(in1, in2, out, NULL);
}
static inline int warmer_vips_premultiply(const warmer_vips *vips, VipsImage *in, VipsImage **out) { return vips->premultiply(in, out, NULL); }
static inline int warmer_vips_unpremultiply(const warmer_vips *vips, VipsImage *in, VipsImage **out) { return vips->unpremultiply(in, out, NULL); }
/// Removes the alpha band by compositing onto white.
static inline int warmer_vips_flatten_white(const warmer_vips *vips, VipsImage *in, VipsImage **out) {
    double white[1] = { 255.0 };
    VipsArrayDouble *background = vips->array_double_new(white, 1);
    if (background == NULL) return -1;
    int result = vips->flatten(in, out, "background", background, NULL);
    vips->area_unref((VipsArea *)background);
    return result;
}
static inline int warmer_vips_gaussblur(const warmer_vips *vips, VipsImage *in, VipsImage **out, double sigma) {
    return vips->gaussblur(in, out, sigma, NULL);
}
/// Bitwise AND of two images, pixel by pixel.
static inline int warmer_vips_and(const warmer_vips *vips, VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips->andimage(left, right, out, NULL);
}
/// A one-band 8-bit image of zeros.
static inline int warmer_vips_black(const warmer_vips *vips, VipsImage **out, int width, int height) {
    return vips->black(out, width, height, NULL);
}
/// A one-band float image of Gaussian noise around `mean`, from `seed`
/// (the same seed, the same pixels).
static inline int warmer_vips_gaussnoise(const warmer_vips *vips, VipsImage **out, int width, int height, double sigma, double mean, int seed) {
    return vips->gaussnoise(out, width, height, "sigma", sigma, "mean", mean, "seed", seed, NULL);
}
/// Fills a rectangle of a one-band memory image with `value`, in place.
static inline int warmer_vips_fill_rect(const warmer_vips *vips, VipsImage *image, double value, int left, int top, int width, int height) {
    double ink[1] = { value };
    return vips->draw_rect(image, ink, 1, left, top, width, height, "fill", 1, NULL);
}
/// Fills a disc of a one-band memory image with `value`, in place.
static inline int warmer_vips_fill_circle(const warmer_vips *vips, VipsImage *image, double value, int cx, int cy, int radius) {
    double ink[1] = { value };
    return vips->draw_circle(image, ink, 1, cx, cy, radius, "fill", 1, NULL);
}
/// Reads the pixel at (x, y) into `values` (at most `capacity` bands).
/// Returns the number of bands, or -1 and sets the vips error buffer.
static inline int warmer_vips_getpoint(const warmer_vips *vips, VipsImage *in, int x, int y, double *values, int capacity) {
    double *vector = NULL;
    int n = 0;
    if (vips->getpoint(in, &vector, &n, x, y, NULL) != 0) return -1;
    for (int i = 0; i < n && i < capacity; i++) values[i] = vector[i];
    vips->g_free(vector);
    return n;
}

// ---- Encoding ----
// `quality` 0 keeps libvips' default. Each saver strips metadata (EXIF, ICC,
// XMP): decoding already converted the pixels to sRGB. The output buffer is
// allocated by glib: release it with warmer_vips_free.

static inline int warmer_vips_jpegsave(const warmer_vips *vips, VipsImage *in, void **buf, size_t *len, int quality) {
    if (quality > 0) return vips->jpegsave_buffer(in, buf, len, "Q", quality, "strip", 1, "optimize_coding", 1, NULL);
    return vips->jpegsave_buffer(in, buf, len, "strip", 1, "optimize_coding", 1, NULL);
}
static inline int warmer_vips_pngsave(const warmer_vips *vips, VipsImage *in, void **buf, size_t *len) {
    return vips->pngsave_buffer(in, buf, len, "strip", 1, NULL);
}
static inline int warmer_vips_webpsave(const warmer_vips *vips, VipsImage *in, void **buf, size_t *len, int quality) {
    if (quality > 0) return vips->webpsave_buffer(in, buf, len, "Q", quality, "strip", 1, NULL);
    return vips->webpsave_buffer(in, buf, len, "strip", 1, NULL);
}
/// AVIF: HEIF with AV1 compression (libheif's AV1 encoder, aom on Debian).
static inline int warmer_vips_avifsave(const warmer_vips *vips, VipsImage *in, void **buf, size_t *len, int quality) {
    if (quality > 0) {
        return vips->heifsave_buffer(in, buf, len, "compression", WARMER_VIPS_HEIF_COMPRESSION_AV1, "Q", quality, "strip", 1, NULL);
    }
    return vips->heifsave_buffer(in, buf, len, "compression", WARMER_VIPS_HEIF_COMPRESSION_AV1, "strip", 1, NULL);
}
/// Writes the image to the file `name`, with the saver its extension picks
/// and the options in brackets after it, as the `vips` command does:
/// `photo.jpg[Q=90,interlace]`. Keeps metadata unless the options strip it.
static inline int warmer_vips_write_to_file(const warmer_vips *vips, VipsImage *in, const char *name) {
    return vips->image_write_to_file(in, name, NULL);
}
/// Releases memory glib allocated (a saver's output buffer).
static inline void warmer_vips_free(const warmer_vips *vips, void *mem) { vips->g_free(mem); }

#endif
