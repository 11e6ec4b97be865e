#!/usr/bin/env bash
# Warmer throughput against a plain `curl --parallel` reference.
#
#   bench/run.sh                    (or: make bench)
#   BENCH_COUNT=1000 bench/run.sh   (default 300 images)
#   BENCH_TIMEOUT=600                (seconds a warmer batch may take)
#
# See bench/README.md for what is measured and how to read the output.
# Generated images are cached in bench/.corpus; everything else of a run
# (services, downloads, caches, logs) goes to bench/.work, wiped each run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
COUNT=${BENCH_COUNT:-300}
CORPUS="$PWD/bench/.corpus"
WORK="$PWD/bench/.work"
RUNS=5          # each side runs this many times; the fastest run counts (runs are short and noisy)
PARALLEL=16     # curl --parallel-max and warmer --concurrency
WATCH_TIMEOUT=${BENCH_TIMEOUT:-600} # seconds; a stuck batch fails the bench

log() { echo "bench: $*" >&2; }

# now: wall-clock seconds with nanoseconds, e.g. 1732270000.123456789
now() { date +%s.%N; }
# elapsed START END: END - START in seconds, 3 decimals
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# min A B: the smaller of two decimal numbers
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }

# --- Setup -------------------------------------------------------------------
scripts/bootstrap.sh
log "swift build -c release"
swift build -c release
warmer="$(swift build -c release --show-bin-path)/warmer"

scripts/make-corpus.sh "$CORPUS" "$COUNT"

rm -rf "$WORK"
mkdir -p "$WORK"

# shellcheck source=scripts/services.sh
source scripts/services.sh
trap stop_services EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_origin "$CORPUS" "$WORK/nginx"
start_redis "$WORK/redis"
export WARMER_REDIS_URL=$REDIS_URL

urls="$WORK/urls.txt"
for file in "$CORPUS"/img-*; do
  echo "$ORIGIN_URL/$(basename "$file")"
done >"$urls"

# --- (a) Reference: curl --parallel ------------------------------------------
# curl_run N: download every URL into a fresh folder, 16 at a time over
# keep-alive connections; sets run_seconds.
curl_run() {
  local n=$1 dir config start end got
  dir=$(mktemp -d "$WORK/curl-$n.XXXX")
  config="$WORK/curl-$n.config"
  # A curl config file: one url/output pair per image.
  while read -r url; do
    printf 'url = "%s"\noutput = "%s/%s"\n' "$url" "$dir" "${url##*/}"
  done <"$urls" >"$config"

  # -s alone does not hide the --parallel progress meter in curl 7.88,
  # hence --no-progress-meter; -S still shows errors.
  start=$(now)
  curl --parallel --parallel-max "$PARALLEL" --fail -sS --no-progress-meter --config "$config"
  end=$(now)

  got=$(find "$dir" -type f | wc -l)
  if ((got != COUNT)); then
    log "curl run $n: expected $COUNT files, got $got"
    exit 1
  fi
  run_seconds=$(elapsed "$start" "$end")
}

# --- (b) Warmer: one worker, one batch ---------------------------------------
# warmer_run N: start a worker with an empty cache on a queue of its own,
# enqueue every URL (disk destination: download and store, no decoding),
# wait for `warmer watch` to report the batch finished, stop the worker.
# Sets run_seconds and run_rss_kib (the worker's peak resident memory).
# (It sets variables rather than printing, because a function run inside
# "$( )" is a subshell, and the EXIT trap could not stop its worker.)
warmer_run() {
  local n=$1
  local cache="$WORK/cache-$n" queue="bench-$$-$n" pid
  local start end batch watch_status=0 rss files url
  mkdir -p "$cache"

  "$warmer" worker --queue "$queue" --concurrency "$PARALLEL" --cache-dir "$cache" \
    >"$WORK/worker-$n.log" 2>&1 &
  pid=$!
  track_process "$pid" "warmer worker"
  sleep 1 # let it connect to Redis and start claiming
  if ! kill -0 "$pid" 2>/dev/null; then
    log "warmer run $n: the worker exited at startup; see $WORK/worker-$n.log"
    tail -n 20 "$WORK/worker-$n.log" >&2
    exit 1
  fi

  start=$(now)
  batch=$("$warmer" enqueue --queue "$queue" --destination disk "$urls")
  timeout "$WATCH_TIMEOUT" \
    "$warmer" watch --queue "$queue" --batch "$batch" --json >/dev/null || watch_status=$?
  end=$(now)

  # Peak resident memory of the worker so far (the kernel's high-water mark).
  rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
  stop_process "$pid"

  if ((watch_status == 124)); then
    log "warmer run $n: batch $batch not finished after ${WATCH_TIMEOUT}s; see $WORK/worker-$n.log"
    "$warmer" status --queue "$queue" "$batch" >&2 || true
    exit 1
  elif ((watch_status != 0)); then
    log "warmer run $n: batch $batch had failures (watch exited $watch_status); see $WORK/worker-$n.log"
    "$warmer" status --queue "$queue" "$batch" >&2 || true
    exit 1
  fi
  # The cache must now hold one file per URL (docs/cache-layout.md: one file
  # per entry; .tmp-* files are writes in progress). Spot-check the first and
  # last URL through `warmer cache path`, which exits 1 when it is not cached.
  files=$(find "$cache" -type f ! -name '.tmp-*' | wc -l)
  if ((files != COUNT)); then
    log "warmer run $n: expected $COUNT files in $cache, found $files"
    exit 1
  fi
  for url in "$(head -n 1 "$urls")" "$(tail -n 1 "$urls")"; do
    if ! WARMER_CACHE_DIR=$cache "$warmer" cache path "$url" >/dev/null; then
      log "warmer run $n: $url is not in the cache $cache"
      exit 1
    fi
  done
  run_seconds=$(elapsed "$start" "$end")
  run_rss_kib=${rss:-0}
}

# --- Run both, interleaved ----------------------------------------------------
# This machine's speed drifts from minute to minute (shared CPU), so each
# curl run is immediately followed by a warmer run: a pair sees the same
# conditions, and the median of the pairs' ratios is the robust figure.
curl_best=""
warmer_best=""
peak_kib=0
pair_ratios=()
for n in $(seq 1 "$RUNS"); do
  curl_run "$n"
  curl_seconds=$run_seconds
  warmer_run "$n"
  log "pair $n: curl ${curl_seconds}s, warmer ${run_seconds}s ($COUNT files cached, peak RSS $((run_rss_kib / 1024)) MiB)"
  curl_best=$(min "${curl_best:-$curl_seconds}" "$curl_seconds")
  warmer_best=$(min "${warmer_best:-$run_seconds}" "$run_seconds")
  pair_ratios+=("$(awk -v c="$curl_seconds" -v w="$run_seconds" 'BEGIN { printf "%.3f", c / w }')")
  if ((run_rss_kib > peak_kib)); then
    peak_kib=$run_rss_kib
  fi
done
median_ratio=$(printf '%s\n' "${pair_ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')

stop_services

# --- Report ------------------------------------------------------------------
awk -v count="$COUNT" -v c="$curl_best" -v w="$warmer_best" -v rss="$peak_kib" -v median="$median_ratio" \
  -v runs="$RUNS" -v par="$PARALLEL" 'BEGIN {
  printf "\n%-34s %6s %9s %9s\n", "", "files", "seconds", "files/s"
  printf "%-34s %6d %9.3f %9.1f\n", "curl --parallel-max " par " (best of " runs ")", count, c, count / c
  printf "%-34s %6d %9.3f %9.1f\n", "warmer, concurrency " par " (best of " runs ")", count, w, count / w
  printf "\nratio (warmer/curl files/s), best against best: %.2f\n", (count / w) / (count / c)
  printf "ratio (warmer/curl files/s), median of interleaved pairs: %.2f\n", median
  printf "warmer worker peak RSS: %.1f MiB\n", rss / 1024
}'
