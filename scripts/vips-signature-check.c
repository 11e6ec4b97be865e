// Compiled, never run, by scripts/check-vips-signatures.sh: Sources/CVips/shim.h
// against libvips' own headers. The shim declares the slice of the libvips
// API it resolves with dlsym (so that `warmer` does not link libvips); here
// every function-pointer field must have exactly the type of the function it
// holds, the copied enum values must equal libvips', and the shim's inline
// wrappers must compile against the real declarations. A drift in libvips'
// API is a compile error, not a crash at run time.
#include <vips/vips.h>
#include <vips/vector.h>

#define WARMER_VIPS_SIGNATURE_CHECK 1
#include "shim.h"

#define WARMER_ASSERT_SIGNATURE(field, symbol) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((warmer_vips *)0)->field), __typeof__(&symbol)), \
                   "warmer_vips." #field " is not declared as " #symbol " is in libvips' headers");
WARMER_VIPS_FUNCTIONS(WARMER_ASSERT_SIGNATURE)

#define WARMER_ASSERT_VALUE(name, value) _Static_assert(name == (value), #name " is not " #value " in libvips' headers");
WARMER_VIPS_BAND_FORMATS(WARMER_ASSERT_VALUE)
WARMER_VIPS_INTERPRETATIONS(WARMER_ASSERT_VALUE)

_Static_assert(WARMER_VIPS_ACCESS_SEQUENTIAL == VIPS_ACCESS_SEQUENTIAL, "VIPS_ACCESS_SEQUENTIAL");
_Static_assert(WARMER_VIPS_FAIL_ON_TRUNCATED == VIPS_FAIL_ON_TRUNCATED, "VIPS_FAIL_ON_TRUNCATED");
_Static_assert(WARMER_VIPS_FAIL_ON_WARNING == VIPS_FAIL_ON_WARNING, "VIPS_FAIL_ON_WARNING");
_Static_assert(WARMER_VIPS_SIZE_DOWN == VIPS_SIZE_DOWN, "VIPS_SIZE_DOWN");
_Static_assert(WARMER_VIPS_HEIF_COMPRESSION_AV1 == VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "VIPS_FOREIGN_HEIF_COMPRESSION_AV1");
_Static_assert(__builtin_types_compatible_p(warmer_gtype, GType), "warmer_gtype is not GType");
_Static_assert(__builtin_types_compatible_p(warmer_gboolean, gboolean), "warmer_gboolean is not gboolean");

#ifdef WARMER_VIPS_SIGNATURE_SELF_TEST
// Proves the check can fail: resize's scale is a double, not an int.
_Static_assert(__builtin_types_compatible_p(__typeof__(((warmer_vips *)0)->resize),
                                            int (*)(VipsImage *, VipsImage **, int, ...)), "self-test");
#endif
