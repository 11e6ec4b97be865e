#!/usr/bin/env bash
# `swift build` as every script runs it: scripts/swift-build.sh [swift build arguments...]
#
# - A fixed environment. SwiftPM keeps one cache of the manifests and the
#   plugins it compiled, keyed on the whole environment: a build run with
#   another environment than the last one (make sets MAKELEVEL, `make
#   test-fast` its WARMER_* variables, each shell its own SHLVL) evaluates
#   every manifest again and recompiles swift-argument-parser's two plugins,
#   9-14 s before anything is built, and the next build back pays it again.
#   So the build sees only PATH (the toolchain), HOME (SwiftPM's caches,
#   git), and TMPDIR, XDG_CACHE_HOME, the proxy variables and WARMER_FUZZ
#   (read by Package.swift) when they are set.
# - SWIFT_DETERMINISTIC_HASHING=1: SwiftPM writes a package's trait defines
#   (swift-configuration's -DJSON -DYAML) in the order of a Set, which a new
#   seed per process shuffles; every other build then recompiled
#   swift-configuration and all that depends on it (10-60 s of a warm run).
#   Only the build gets it: the tests and the processes they start hash as usual.
#
# - -index-ignore-system-modules: SwiftPM's debug builds index each module
#   while compiling it (its test discovery reads that index), and by default
#   the system modules it imports too (Foundation, Glibc...), which nothing
#   here reads: 10% of a compile (PipelineEngineTests' first batch, cold
#   index: 35.7 CPU-s with them, 32.5 without).
#
# Every build of a checkout goes through here, `--show-bin-path` included
# (it evaluates the manifests too).
set -euo pipefail

kept=()
for name in PATH HOME TMPDIR XDG_CACHE_HOME WARMER_FUZZ http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  if [[ -n ${!name+set} ]]; then kept+=("$name=${!name}"); fi
done
exec env -i "${kept[@]}" SWIFT_DETERMINISTIC_HASHING=1 swift build -Xswiftc -index-ignore-system-modules "$@"
