#!/usr/bin/env bash
# Checks Sources/CVips/shim.h against libvips' headers (libvips-dev): every
# function the shim resolves at run time with dlsym is declared with the
# type libvips declares, the enum values it copies are libvips', and its
# inline wrappers compile against the real API (scripts/vips-signature-check.c).
# Compiles only; exits non-zero with the compiler's message on a mismatch.
#
#   scripts/check-vips-signatures.sh            # the check
#   scripts/check-vips-signatures.sh --self-test # must fail: proves it can
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
extra=()
if [[ ${1:-} == --self-test ]]; then extra=(-DWARMER_VIPS_SIGNATURE_SELF_TEST); fi
# The Swift toolchain's clang is always there; any C11 compiler will do.
compiler=${CC:-$(command -v clang || command -v cc)}
# shellcheck disable=SC2046 # pkg-config's flags are words
exec "$compiler" -std=c11 -fsyntax-only -Werror=incompatible-pointer-types -Werror=implicit-function-declaration \
  "${extra[@]}" $(pkg-config --cflags vips) -I Sources/CVips scripts/vips-signature-check.c
