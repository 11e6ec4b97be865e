#!/usr/bin/env bash
# Hostile images: the worker's peak memory against its memory budget.
#
#   bench/hostile.sh              (or: make bench-hostile)
#   HOSTILE_BUDGET=512 bench/hostile.sh   (--memory-budget in MiB; default 1024)
#
# One `warmer worker --concurrency 16` takes, each as its own batch:
#   1. baseline: 16 ordinary corpus images as disk jobs (its base RSS);
#   2. thumbnails: 16 distinct 100-megapixel JPEGs (10000×10000) as
#      `thumbnail=320` jobs: shrink-on-load, little memory each;
#   3. full decodes: the same 16 as `resize=320x0` jobs: every one decodes
#      all 100 MP (300 MB of pixels) before resizing, so the budget admits
#      only a few at a time and the rest wait for room;
#   4. liars: 16 JPEGs whose header claims 10000×10000 over 800×534 pixels
#      of data (about 100 KB each): each must fail (decoding_failed), not
#      complete padded with grey.
# It prints the worker's RSS after each phase, its peak (VmHWM), and the
# peak against what the memory model (docs/pipeline.md, "Memory") allows,
# which it must stay under: the worker's base + the memory budget (decoded
# pixels) + the compressed bodies in flight (16 downloads of the 100 MP file,
# which the budget does not count) + the memory cache (16 MiB by default).
#
#   HOSTILE_MODE=corpus bench/hostile.sh   (or: make bench-hostile-corpus)
#
# The corpus mode (issue 23): about 200 jobs over the 14 kinds of hostile
# file of bench/make-hostile-corpus.sh (progressive and CMYK 100-MP JPEGs,
# lying headers, PNG/GIF/WebP/AVIF bombs, an interlaced PNG, 16-bit and
# grey+alpha PNGs, a 300-frame GIF, a header claiming 60000x60000), 7 URLs
# each, every URL both as a `thumbnail=320` job and as a `resize=320x0` job
# (a full decode), the two batches enqueued at once, URLs shuffled, through
# one `warmer worker --concurrency 16` with the default memory cache. Every
# job must complete or fail with one of the image errors (decoding_failed,
# too_many_pixels, over_memory_budget, unsupported_format) or, having waited
# for memory past its --job-timeout, deadline_exceeded; the worker must
# still run at the end. It prints each kind's outcomes, and the peak RSS
# (VmHWM) against budget + 256 MiB, which it must stay under.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

BUDGET=${HOSTILE_BUDGET:-1024}
MEMORY_CACHE=16 # MiB, the worker's --memory-cache-size
if [[ ${HOSTILE_MODE:-phases} == corpus ]]; then
  # The corpus mode does not use the ordinary corpus: keep the one there is.
  COUNT=${BENCH_COUNT:-16}
else
  export BENCH_COUNT=16
  COUNT=16
fi
bench_setup

if [[ ${HOSTILE_MODE:-phases} == corpus ]]; then
  # shellcheck source=bench/hostile-corpus.sh
  source bench/hostile-corpus.sh
  exit 0
fi

# --- The hostile files, next to the corpus (make-corpus.sh leaves them alone)
big="$CORPUS/hostile-100mp.jpg"
if [[ ! -s $big ]]; then
  log "making a 10000x10000 JPEG"
  vips gaussnoise "$WORK/noise.v" 10000 10000 --sigma 30 --mean 128
  vips copy "$WORK/noise.v" "$big[Q=30,strip]"
  rm -f "$WORK/noise.v"
fi
liar="$CORPUS/hostile-liar.jpg"
if [[ ! -s $liar ]]; then
  vips gaussnoise "$WORK/small.v" 800 534 --sigma 40 --mean 128
  vips colourspace "$WORK/small.v" "$WORK/small-srgb.v" srgb
  vips cast "$WORK/small-srgb.v" "$WORK/small.jpg[Q=85]" uchar
  # Patch the frame header (SOF0) to claim 10000x10000.
  python3 - "$WORK/small.jpg" "$liar" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
i = 2
while i + 9 < len(data) and data[i] == 0xFF:
    marker, length = data[i + 1], data[i + 2] << 8 | data[i + 3]
    if marker in (0xC0, 0xC1, 0xC2):
        data[i + 5:i + 9] = (10000).to_bytes(2, "big") * 2
        break
    i += 2 + length
open(sys.argv[2], "wb").write(data)
EOF
fi
big_urls="$WORK/big.txt" liar_urls="$WORK/liar.txt"
for n in $(seq 1 16); do echo "$ORIGIN_URL/hostile-100mp.jpg?copy=$n"; done >"$big_urls"
for n in $(seq 1 16); do echo "$ORIGIN_URL/hostile-liar.jpg?copy=$n"; done >"$liar_urls"

queue="hostile-$$"
"$warmer" worker --queue "$queue" --concurrency 16 --cache-dir "$WORK/cache" --memory-budget "$BUDGET" \
  --memory-cache-size "$MEMORY_CACHE" \
  >"$WORK/worker.log" 2>&1 &
worker_pid=$!
track_process "$worker_pid" "warmer worker"
sleep 1

rss() { awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$worker_pid/status"; }
hwm() { awk '/^VmHWM:/ { print int($2 / 1024) }' "/proc/$worker_pid/status"; }
counter() { "$warmer" status --queue "$queue" "$1" | awk -v k="\"$2\"" '$1 == k { gsub(/[^0-9]/, "", $NF); print $NF }'; }

# phase NAME URLS EXPECT ENQUEUE_ARGS...: one batch; EXPECT is "completed" or "failed":
# every job must end that way.
phase() {
  local name=$1 urls=$2 expect=$3 batch start end got
  shift 3
  start=$(now)
  batch=$("$warmer" enqueue --queue "$queue" "$@" "$urls")
  timeout "$WATCH_TIMEOUT" "$warmer" watch --queue "$queue" --batch "$batch" --json >"$WORK/events-$name.jsonl" || true
  end=$(now)
  got=$(counter "$batch" "$expect")
  if [[ $got != 16 ]]; then
    log "$name: expected 16 jobs $expect, got ${got:-0}"
    "$warmer" status --queue "$queue" "$batch" >&2
    tail -n 30 "$WORK/worker.log" >&2
    exit 1
  fi
  printf '%-12s 16 jobs %-9s in %6.1f s; RSS after %5d MiB, peak so far %5d MiB\n' \
    "$name" "$expect" "$(elapsed "$start" "$end")" "$(rss)" "$(hwm)"
}

echo
phase baseline "$URLS" completed --destination disk
base=$(hwm)
phase thumbnails "$big_urls" completed --destination processed --thumbnail 320 --format jpeg
phase full "$big_urls" completed --destination processed --resize 320x0 --format jpeg
phase liars "$liar_urls" failed --destination processed --resize 320x0 --format jpeg
if ! grep -q '"error":"decoding_failed"' "$WORK/events-liars.jsonl"; then
  log "liars: no decoding_failed event"
  exit 1
fi

peak=$(hwm)
stop_process "$worker_pid"
bodies=$((16 * $(stat -c %s "$big") / 1048576))
limit=$((base + BUDGET + bodies + MEMORY_CACHE))
echo
echo "worker base (after the disk batch): $base MiB; memory budget: $BUDGET MiB; 16 bodies in flight: $bodies MiB; memory cache: $MEMORY_CACHE MiB"
echo "peak RSS: $peak MiB = $((peak * 100 / limit))% of base + budget + bodies + memory cache ($limit MiB)"
echo "peak RSS over base + bodies (what decoding added): $((peak - base - bodies)) MiB against the $BUDGET MiB budget"
if ((peak > limit)); then
  log "the peak RSS exceeds base + budget + bodies + memory cache"
  exit 1
fi
