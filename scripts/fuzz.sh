#!/usr/bin/env bash
# Fuzz the parsers of producer input with libFuzzer, for a bounded time.
#
#   scripts/fuzz.sh                      # every target, side by side, for 60 s
#   scripts/fuzz.sh 300                  # every target for 300 s (`make fuzz`)
#   scripts/fuzz.sh 30 intake-document   # one target (processing-spec, url-list, intake-document)
#
# Targets (docs/testing.md, "Fuzzing"; the properties are Fuzz/Properties):
#   processing-spec  ProcessingSpec(parsing:): never crashes; description round trip
#   url-list         URLList.isValid, URLList(bytes:): quick and URLComponents verdicts agree
#   intake-document  IntakeDocument(parsing:), CJSONDecoder: bounds; agreement with Foundation
#
# Builds the fuzzers with WARMER_FUZZ=1 (see Package.swift: only WarmerInput
# and what it needs), instrumented for libFuzzer and AddressSanitizer, linked
# with lld, in .build-fuzz. Each target starts from its committed seeds
# (Fuzz/Corpus/<target>/) and regression inputs (Fuzz/Crashers/<target>/),
# with the tokens of Fuzz/Dictionaries/<target>.dict, and keeps what it
# learns in .build-fuzz/corpus/<target>/ for the next run.
#
# An input that crashes a target or breaks its property is saved as
# Fuzz/Crashers/<target>/crash-<sha1> (printed in hex too, for CI logs) and
# the script exits 1 after the other targets ran. Fix the bug, keep the file
# (rename it after what it shows): FuzzCorpusReplayTests replays it in every
# `swift test` from then on.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { echo "fuzz.sh: $*" >&2; }

SECONDS_PER_TARGET=${1:-60}
if ! [[ $SECONDS_PER_TARGET =~ ^[0-9]+$ ]] || ((SECONDS_PER_TARGET == 0)); then
  log "usage: scripts/fuzz.sh [SECONDS] [TARGET...] (SECONDS a whole number above 0)"
  exit 2
fi
shift || true
TARGETS=("$@")
if ((${#TARGETS[@]} == 0)); then TARGETS=(processing-spec url-list intake-document); fi
SCRATCH=.build-fuzz

# The product of a target: processing-spec -> FuzzProcessingSpec.
product() {
  case $1 in
    processing-spec) echo FuzzProcessingSpec ;;
    url-list) echo FuzzURLList ;;
    intake-document) echo FuzzIntakeDocument ;;
    *) log "unknown target '$1' (processing-spec, url-list, intake-document)"; exit 2 ;;
  esac
}
for target in "${TARGETS[@]}"; do product "$target" >/dev/null; done

log "building the fuzzers (WARMER_FUZZ=1, -sanitize=fuzzer,address) in $SCRATCH"
# `--sanitize fuzzer` makes SwiftPM link libFuzzer's main; the sanitizers
# themselves go in one -sanitize= flag, because swiftc keeps only the last
# one (`--sanitize fuzzer --sanitize address` instruments for one of the two,
# whichever SwiftPM happens to list last). lld: with gold, libFuzzer finds no
# coverage counters. (The filter drops a harmless warning for ASan helpers.)
BUILD=(scripts/swift-build.sh --scratch-path "$SCRATCH" --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
build_log=$(mktemp)
if ! WARMER_FUZZ=1 "${BUILD[@]}" >"$build_log" 2>&1; then
  grep -v "Cannot export local symbol" "$build_log" >&2
  rm -f "$build_log"
  exit 1
fi
rm -f "$build_log"
BIN=$(WARMER_FUZZ=1 "${BUILD[@]}" --show-bin-path)
# A fuzzer without coverage counters only replays its corpus, and without
# ASan checks misses memory errors: refuse to pretend.
undefined=$(nm -u "$BIN"/WarmerInput.build/*.swift.o)
if ! grep -q __sanitizer_cov <<<"$undefined" || ! grep -q __asan_report_ <<<"$undefined"; then
  log "WarmerInput is not instrumented for libFuzzer and ASan; remove $SCRATCH and retry"
  exit 1
fi

# fuzz TARGET: one libFuzzer run of TARGET, its output in $SCRATCH/TARGET.log
# and its exit status in $SCRATCH/TARGET.status.
fuzz() {
  local target=$1 seeds=Fuzz/Corpus/$1 crashers=Fuzz/Crashers/$1 work=$SCRATCH/corpus/$1 status=0
  local dictionary=()
  mkdir -p "$seeds" "$crashers" "$work"
  if [[ -f Fuzz/Dictionaries/$target.dict ]]; then dictionary=(-dict="Fuzz/Dictionaries/$target.dict"); fi
  # New inputs go to the first folder (the work corpus); the others are read only.
  SWIFT_BACKTRACE=enable=no "$BIN/$(product "$target")" "$work" "$seeds" "$crashers" "${dictionary[@]}" \
    -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -artifact_prefix="$crashers/" -print_final_stats=1 >"$SCRATCH/$target.log" 2>&1 || status=$?
  echo "$status" >"$SCRATCH/$target.status"
}

# The targets run side by side (each libFuzzer process is one thread): the
# bound is SECONDS_PER_TARGET of wall time for them all, not per target.
declare -A before
for target in "${TARGETS[@]}"; do
  mkdir -p "Fuzz/Crashers/$target"
  before[$target]=$(find "Fuzz/Crashers/$target" -maxdepth 1 -type f | sort)
  rm -f "$SCRATCH/$target.status"
done
log "${TARGETS[*]}: ${SECONDS_PER_TARGET}s, side by side"
for target in "${TARGETS[@]}"; do fuzz "$target" & done
wait

failed=()
summary=()
for target in "${TARGETS[@]}"; do
  output=$SCRATCH/$target.log crashers=Fuzz/Crashers/$target work=$SCRATCH/corpus/$target
  status=$(cat "$SCRATCH/$target.status" 2>/dev/null || echo "?")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$output" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$output" | tail -n 1)
  coverage=$(grep -oE 'cov: [0-9]+' "$output" | tail -n 1 || true)
  summary+=("$target: ${runs:-?} runs, ${speed:-?} exec/s, ${coverage:-cov: ?}, corpus $(find "$work" -type f | wc -l) inputs")
  if [[ $status != 0 ]]; then
    failed+=("$target")
    log "$target FAILED (libFuzzer exit $status); its output:"
    grep -v "Cannot export local symbol" "$output" | tail -n 60 >&2
    for file in $(comm -13 <(echo "${before[$target]}") <(find "$crashers" -maxdepth 1 -type f | sort)); do
      log "saved $file; its bytes:"
      od -A d -t x1 -v "$file" | head -n 40 >&2
    done
  fi
done

for line in "${summary[@]}"; do log "$line"; done
if ((${#failed[@]} > 0)); then
  log "found crashing inputs in: ${failed[*]} (saved under Fuzz/Crashers/; see docs/testing.md)"
  exit 1
fi
log "no crash, no property broken"
