#!/usr/bin/env bash
# Soak: one worker through many alternating rounds, watching that it never
# dies and that its memory stays flat.
#
#   bench/soak.sh                      (or: make bench-soak)
#   SOAK_JOBS=45000 bench/soak.sh      (default 20000 jobs)
#   BENCH_WARMER=.build-asan/debug/warmer bench/soak.sh  (any warmer binary,
#                                       e.g. an AddressSanitizer build;
#                                       SOAK_WARMER is the older name)
#
# The worker (--concurrency 8, --retention 30) runs rounds of 500 jobs, odd
# rounds `disk` (the corpus' raw bytes: downloads the first time, disk-cache
# hits after), even rounds `processed` JPEG thumbnails whose size changes
# every round (so every thumbnail round decodes, shrinks and encodes anew).
# This is the soak that once crashed in 2 of 5 runs around job 10,000 (heap
# corruption in libvips, issue 10) and whose RSS kept rising.
#
#   SOAK_MODE=kernels SOAK_JOBS=500000 bench/soak.sh
#   SOAK_MODE=kernels SOAK_MINUTES=40 bench/soak.sh   (rounds until 40 minutes
#                                       have passed, SOAK_JOBS ignored: the
#                                       slope is then taken over the last 30)
#
# The kernel mode (issue 23's soak): every round enqueues the same 500 photos
# twice at once, as `disk` jobs and as `processed` jobs with `thumbnail=N`,
# N = 100 + round, so every round builds resampling kernels of a new size
# while downloads and disk hits run beside them (1,000 jobs a round). With
# libvips' ORC vector paths on, this soak crashed a worker in liborc about
# once per 100,000 jobs. It also prints the RSS slope per minute after the
# warm-up, over wall-clock time.
#
# It prints, and fails on, what a long-running worker must keep:
#   - jobs: every job completed (none failed, dead or lost),
#   - worker exit: the status of its SIGTERM stop (must be 0; a crash or a
#     sanitizer report fails the soak at once),
#   - RSS after each round, the slope of a least-squares line through the
#     rounds after the warm-up (first quarter), in MiB per 1,000 jobs, and
#     the peak RSS (VmHWM),
#   - Redis' used memory and key count before the first round and after the
#     retention has expired everything (they return to the baseline).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

MODE=${SOAK_MODE:-alternating}
case $MODE in
  alternating) ROUND=500 ;;
  kernels) ROUND=1000 ;;
  *) echo "soak.sh: SOAK_MODE must be alternating or kernels, not $MODE" >&2; exit 2 ;;
esac
PHOTOS=500
JOBS=${SOAK_JOBS:-20000}
MINUTES=${SOAK_MINUTES:-}
ROUNDS=$(((JOBS + ROUND - 1) / ROUND))
if [[ -n $MINUTES ]]; then ROUNDS=1000000; fi # ended by the clock below
RETENTION=30
export BENCH_COUNT=$PHOTOS
COUNT=$PHOTOS

bench_setup
if [[ -n ${SOAK_WARMER:-} ]]; then warmer=$(realpath "$SOAK_WARMER"); fi # BENCH_WARMER is read by bench_setup
if [[ -n $MINUTES ]]; then
  log "soak ($MODE): rounds of $ROUND jobs for $MINUTES minutes through $warmer"
else
  log "soak ($MODE): $ROUNDS rounds of $ROUND jobs through $warmer"
fi

redis() { redis-cli -u "$REDIS_URL" "$@"; }
redis_memory() { redis INFO memory | awk -F: '/^used_memory:/ { gsub(/\r/, "", $2); print $2 }'; }
baseline_memory=$(redis_memory)
baseline_keys=$(redis DBSIZE)

queue="soak-$$"
cache="$WORK/cache"
mkdir -p "$cache"
"$warmer" worker --queue "$queue" --concurrency 8 --cache-dir "$cache" --retention "$RETENTION" \
  >"$WORK/worker.log" 2>&1 &
worker_pid=$!
track_process "$worker_pid" "warmer worker"
sleep 1

rss_file="$WORK/rss.txt" # round, jobs so far, RSS KiB, seconds since the start
: >"$rss_file"
started=$SECONDS

# run_batch ARGS...: enqueues the corpus with ARGS and prints the batch id.
run_batch() { "$warmer" enqueue --queue "$queue" "$@" "$URLS"; }

# await_batch ID LABEL: waits for the batch and prints how many jobs completed.
await_batch() {
  local batch=$1 label=$2 status=0
  timeout "$WATCH_TIMEOUT" "$warmer" watch --queue "$queue" --batch "$batch" --json >/dev/null || status=$?
  if ((status != 0)); then
    log "round $round ($label): watch exited $status; see $WORK/worker.log"
    "$warmer" status --queue "$queue" "$batch" >&2 || true
    tail -n 40 "$WORK/worker.log" >&2
    exit 1
  fi
  "$warmer" status --queue "$queue" "$batch" | awk '/"completed"/ { gsub(/[^0-9]/, "", $NF); print $NF }'
}

done_jobs=0
for round in $(seq 1 "$ROUNDS"); do
  if ! kill -0 "$worker_pid" 2>/dev/null; then
    log "the worker died in round $round; see $WORK/worker.log"
    tail -n 40 "$WORK/worker.log" >&2
    exit 1
  fi
  completed=0
  if [[ $MODE == kernels ]]; then
    disk=$(run_batch --destination disk)
    processed=$(run_batch --destination processed --thumbnail $((100 + round)) --format jpeg)
    completed=$(($(await_batch "$disk" disk) + $(await_batch "$processed" "thumbnail $((100 + round))")))
  elif ((round % 2 == 1)); then
    completed=$(await_batch "$(run_batch --destination disk)" disk)
  else
    size=$((120 + (round * 24) % 400))
    completed=$(await_batch "$(run_batch --destination processed --thumbnail "$size" --format jpeg)" "thumbnail $size")
  fi
  if ((completed != ROUND)); then
    log "round $round: $completed of $ROUND jobs completed"
    exit 1
  fi
  done_jobs=$((done_jobs + completed))
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$worker_pid/status")
  echo "$round $done_jobs $rss $((SECONDS - started))" >>"$rss_file"
  log "round $round: $done_jobs jobs, RSS $((rss / 1024)) MiB, $((SECONDS - started)) s"
  if [[ -n $MINUTES ]] && ((SECONDS - started >= MINUTES * 60)); then break; fi
done

peak=$(awk '/^VmHWM:/ { print $2 }' "/proc/$worker_pid/status")
kill -TERM "$worker_pid"
exit_status=0
wait "$worker_pid" || exit_status=$?
if grep -qE 'AddressSanitizer|ThreadSanitizer|Fatal error|malloc|free\(\)' "$WORK/worker.log"; then
  log "the worker log reports a crash or a sanitizer finding:"
  grep -nE -A 30 'AddressSanitizer|ThreadSanitizer|Fatal error|malloc|free\(\)' "$WORK/worker.log" | head -n 80 >&2
  exit_status=${exit_status/#0/1}
fi

log "waiting $((RETENTION + 5)) s for the retention to expire the soak's keys"
sleep $((RETENTION + 5))
end_memory=$(redis_memory)
end_keys=$(redis DBSIZE)

awk -v jobs="$done_jobs" -v exit_status="$exit_status" -v peak="$peak" \
  -v bm="$baseline_memory" -v bk="$baseline_keys" -v em="$end_memory" -v ek="$end_keys" '
  # slope(x): least-squares MiB of RSS per unit of x[] over the rounds after the warm-up.
  function slope(x,   i, n, sx, sy, sxx, sxy) {
    for (i = first; i <= NR; i++) { n++; sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i] }
    return (n > 1 && n * sxx != sx * sx) ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0
  }
  { round[NR] = $1; jobs_at[NR] = $2; y[NR] = $3 / 1024; minutes[NR] = $4 / 60 }
  END {
    first = int(NR / 4) + 1
    printf "\nsoak: %d jobs in %d rounds (%.1f min), worker exit %d\n", jobs, NR, minutes[NR], exit_status
    printf "RSS after warm-up (round %d): %.1f MiB; at the end: %.1f MiB; peak %.1f MiB\n", first, y[first], y[NR], peak / 1024
    printf "RSS slope after warm-up: %+.3f MiB per 1,000 jobs, %+.3f MiB per minute over %.1f min\n", \
      slope(jobs_at) * 1000, slope(minutes), minutes[NR] - minutes[first]
    printf "Redis: %.1f MB, %d keys before; %.1f MB, %d keys after the retention\n", bm / 1e6, bk, em / 1e6, ek
  }' "$rss_file"
exit "$exit_status"
