#!/usr/bin/env bash
# Start-up of a `warmer` command with libvips loaded on demand (dlopen, as
# Sources/CVips/shim.h does) against libvips loaded at start, as linking it
# would: the same binary with LD_PRELOAD=libvips.so.42, which makes the
# dynamic loader map libvips and its ~100 dependencies before main, exactly
# what a DT_NEEDED entry does. Paired runs with farm-bench (A: as shipped,
# B: loaded at start); the ratio A/B is the figure (bench/README.md).
#
#   make bench-startup     (or bench/startup.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/bootstrap.sh
scripts/swift-build.sh -c release --product warmer >&2
warmer=$PWD/.build/release/warmer
exec farm-bench -n "${BENCH_RUNS:-20}" --warmup 2 \
  --vs "env LD_PRELOAD=libvips.so.42 $warmer --version" -- "$warmer" --version
