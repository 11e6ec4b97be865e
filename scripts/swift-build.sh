#!/usr/bin/env bash
# `swift build` as every script runs it: scripts/swift-build.sh [swift build arguments...]
#
# - SWIFT_DETERMINISTIC_HASHING=1: SwiftPM writes a package's trait defines
#   (swift-configuration's -DJSON -DYAML) in the order of a Set, which a new
#   seed per process shuffles; every other build then recompiled
#   swift-configuration and all that depends on it (10-60 s of a warm run).
#   Only the build gets it: the tests and the processes they start hash as usual.
# - A debug build indexes only the test modules (Package.swift, "Indexing only
#   the tests"): `--disable-index-store`, and WARMER_TEST_INDEX_STORE set to the
#   store SwiftPM's test discovery reads. Indexing every module, the
#   dependencies included, was a third of a cold build. A release build
#   indexes nothing anyway.
#
# Every build of a checkout must go through here (or pass the same flags):
# a build with other flags recompiles every module, and the next one through
# here recompiles them again.
set -euo pipefail

scratch=.build
configuration=debug
previous=
for argument in "$@"; do
  case $previous in
    --scratch-path) scratch=$argument ;;
    -c | --configuration) configuration=$argument ;;
  esac
  previous=$argument
done

if [[ $configuration != debug ]]; then
  exec env SWIFT_DETERMINISTIC_HASHING=1 swift build "$@"
fi
case $scratch in /*) ;; *) scratch="$PWD/$scratch" ;; esac
# SwiftPM's bin path for the host: <scratch>/<arch>-unknown-linux-gnu/debug
# (`swift build --show-bin-path` says the same, after evaluating the manifest).
store="$scratch/$(uname -m)-unknown-linux-gnu/debug/index/store"
exec env SWIFT_DETERMINISTIC_HASHING=1 WARMER_TEST_INDEX_STORE="$store" swift build --disable-index-store "$@"
