#!/usr/bin/env bash
# The Redis queue's own overhead: how many jobs a second one worker gets
# through when every job is a disk-cache hit, what enqueueing a large batch
# costs, and what the same Redis server does on `redis-benchmark`, for scale.
#
#   bench/queue.sh                          (or: make bench-queue)
#   BENCH_QUEUE_JOBS=20000 bench/queue.sh   (jobs in the throughput batch, default 20000)
#   BENCH_QUEUE_CONCURRENCY=64              (the worker's --concurrency, default 64)
#   BENCH_ENQUEUE_URLS=100000               (URLs in the enqueue-cost batch, default 100000)
#   BENCH_TIMEOUT=600                       (seconds a batch may take)
#
# 1. Throughput. BENCH_QUEUE_JOBS distinct URLs, ORIGIN/<smallest corpus
#    file>?n=1..N (nginx ignores the query; the cache key is the whole URL),
#    are warmed once into one cache with `warmer warm` (no Redis). Then, three
#    times, one `warmer worker --cache-dir THAT_CACHE` on a fresh queue gets
#    the whole list as one batch (`warmer enqueue`); the clock runs from the
#    moment `warmer enqueue` returns to the batch's `finishedAt` in Redis.
#    Every job is a disk hit (a stat and a touch of the file), so what is
#    left is the queue: claim, `started` event, finish script. jobs/s counts
#    the jobs that ended in that window (the worker starts on the first
#    2,000-URL chunk while the rest is still being enqueued; those jobs are
#    reported, not counted).
# 2. Enqueue cost. `warmer enqueue` of BENCH_ENQUEUE_URLS URLs as one batch
#    into a queue with no worker, three times, each on a fresh queue, timed
#    around the whole command (process start-up and reading the file
#    included).
# 3. For scale: `redis-benchmark -q -n 200000 -t set,lpush,zadd`, and SET
#    pipelined 16 deep (-P 16), against the same redis-server.
#
# Correctness fails the bench (a batch's counters other than completed = N,
# failed = 0; an enqueued total other than N; any origin request while the
# queue runs); the targets (12,000 jobs/s at most 60 us of Redis CPU a job,
# enqueue in 1.5 s) are only reported.
# See bench/queue.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

JOBS=${BENCH_QUEUE_JOBS:-20000}
ENQUEUE_URLS=${BENCH_ENQUEUE_URLS:-100000}
# warmer_start runs the worker with --concurrency $PARALLEL (bench/lib.sh).
PARALLEL=${BENCH_QUEUE_CONCURRENCY:-64}
RUNS=3
JOBS_TARGET=12000     # jobs/s, one worker, disk hits
REDIS_US_TARGET=60    # redis-server CPU per job, us
ENQUEUE_TARGET=1.5    # seconds for BENCH_ENQUEUE_URLS URLs
REDIS_BENCHMARK_REQUESTS=200000

if ! command -v redis-benchmark >/dev/null 2>&1; then
  log "redis-benchmark not found (Debian: redis-tools, which redis-server depends on); part 3 is skipped"
fi

bench_setup

# --- 1. Queue throughput, every job a disk hit --------------------------------
SMALLEST=$(corpus_file_by_size 1)
JOB_URLS="$WORK/urls-queue.txt"
CACHE="$WORK/cache-queue"
url_list "$JOB_URLS" "$JOBS"
log "$(basename "$SMALLEST"): $(stat -c %s "$SMALLEST") bytes"
warm_cache "$JOB_URLS" "$CACHE"

# queue_run N: one worker with the warm cache, one batch of every URL
# (disk_hit_batch in bench/lib.sh, which sets the run_* figures).
queue_run() {
  warmer_start "queue-$1" "$CACHE"
  disk_hit_batch "$JOB_URLS" "$JOBS" running
  warmer_stop
  delete_queue "$worker_queue"
}

QUEUE_RATES="" BATCH_RATES="" WORKER_US="" REDIS_US="" OTHER_PCT=""
for n in $(seq 1 "$RUNS"); do
  queue_run "$n"
  log "queue run $n: enqueue ${run_enqueue_seconds}s ($run_early jobs ended meanwhile)," \
    "then $((JOBS - run_early)) jobs in ${run_seconds}s: $run_jobs_per_s jobs/s" \
    "(whole batch, created to finished: $run_batch_jobs_per_s jobs/s);" \
    "CPU per job: worker $run_worker_us us, redis $run_redis_us us;" \
    "of the machine's $CORES cores: worker $run_worker_pct%, redis $run_redis_pct%, other processes $run_other_pct%;" \
    "peak RSS $((run_rss_kib / 1024)) MiB"
  QUEUE_RATES+="$run_jobs_per_s " BATCH_RATES+="$run_batch_jobs_per_s "
  WORKER_US+="$run_worker_us " REDIS_US+="$run_redis_us " OTHER_PCT+="$run_other_pct "
done

# --- 2. Enqueue cost, no worker -----------------------------------------------
ENQUEUE_LIST="$WORK/urls-enqueue.txt"
url_list "$ENQUEUE_LIST" "$ENQUEUE_URLS"

# enqueue_run N: `warmer enqueue` of the whole list on a fresh queue; sets
# run_seconds and run_redis_seconds (Redis' CPU in that time).
enqueue_run() {
  local n=$1 queue="bench-$$-enqueue-$1" start end id status_json total redis_cpu0
  redis_cpu0=$(redis_cpu)
  start=$(now)
  id=$("$warmer" enqueue --queue "$queue" "$ENQUEUE_LIST")
  end=$(now)
  run_redis_seconds=$(awk -v a="$redis_cpu0" -v b="$(redis_cpu)" 'BEGIN { printf "%.3f", b - a }')
  status_json=$("$warmer" status --queue "$queue" "$id")
  total=$(status_field "$status_json" total) || total=missing
  if [[ $total != "$ENQUEUE_URLS" ]]; then
    log "enqueue run $n: batch $id has total $total, expected $ENQUEUE_URLS:"
    echo "$status_json" >&2
    exit 1
  fi
  delete_queue "$queue"
  run_seconds=$(elapsed "$start" "$end")
}

ENQUEUE_SECONDS="" ENQUEUE_REDIS=""
for n in $(seq 1 "$RUNS"); do
  enqueue_run "$n"
  log "enqueue run $n: $ENQUEUE_URLS URLs in ${run_seconds}s" \
    "($(awk -v n="$ENQUEUE_URLS" -v t="$run_seconds" 'BEGIN { printf "%.0f", n / t }') URLs/s; Redis CPU ${run_redis_seconds}s)"
  ENQUEUE_SECONDS+="$run_seconds " ENQUEUE_REDIS+="$run_redis_seconds "
done

# --- 3. redis-benchmark on the same server, for scale -------------------------
# redis_benchmark ARGS...: the "NAME: RATE" pairs of `redis-benchmark -q`
# (which redraws its progress with carriage returns; the final lines read
# "SET: 104821.80 requests per second, p50=0.247 msec").
redis_benchmark() {
  redis-benchmark -h 127.0.0.1 -p "$REDIS_PORT" -q -n "$REDIS_BENCHMARK_REQUESTS" "$@" |
    tr '\r' '\n' | awk '/requests per second/ { sub(/:$/, "", $1); print $1, $2 }'
}
declare -A RB_RATE=()
if command -v redis-benchmark >/dev/null 2>&1; then
  log "redis-benchmark -n $REDIS_BENCHMARK_REQUESTS -t set,lpush,zadd, then SET -P 16"
  while read -r name rate; do RB_RATE[$name]=$rate; done < <(redis_benchmark -t set,lpush,zadd)
  while read -r name rate; do RB_RATE["$name -P 16"]=$rate; done < <(redis_benchmark -t set -P 16)
fi
stop_services

# --- Report -------------------------------------------------------------------
jobs_best=$(best_max "$QUEUE_RATES") jobs_median=$(median "$QUEUE_RATES")
enqueue_best=$(best_min "$ENQUEUE_SECONDS") enqueue_median=$(median "$ENQUEUE_SECONDS")
# met VALUE TARGET higher|lower: "met" or "NOT met".
met() { awk -v v="$1" -v t="$2" -v w="$3" 'BEGIN { print ((w == "higher") ? v >= t : v <= t) ? "met" : "NOT met" }'; }

printf '\n1. queue throughput: %d jobs, every one a disk hit; 1 worker, --concurrency %d; %d runs\n' "$JOBS" "$PARALLEL" "$RUNS"
printf '%-52s %9s %9s\n' "" best median
printf '%-52s %9d %9d\n' "jobs/s (from enqueue's return to finishedAt)" "$jobs_best" "$jobs_median"
printf '%-52s %9d %9d\n' "jobs/s (whole batch, createdAt to finishedAt)" "$(best_max "$BATCH_RATES")" "$(median "$BATCH_RATES")"
printf '%-52s %9d %9d\n' "worker CPU per job, us" "$(best_min "$WORKER_US")" "$(median "$WORKER_US")"
printf '%-52s %9d %9d\n' "redis-server CPU per job, us" "$(best_min "$REDIS_US")" "$(median "$REDIS_US")"
printf '%-52s %9d %9d\n' "other processes' CPU, % of the machine's $CORES cores" "$(best_min "$OTHER_PCT")" "$(median "$OTHER_PCT")"

printf '\n2. enqueue: %d URLs in one batch, no worker; %d runs\n' "$ENQUEUE_URLS" "$RUNS"
printf '%-52s %9s %9s\n' "" best median
printf '%-52s %9.3f %9.3f\n' "seconds (warmer enqueue, start-up included)" "$enqueue_best" "$enqueue_median"
printf '%-52s %9.0f %9.0f\n' "URLs/s" \
  "$(awk -v n="$ENQUEUE_URLS" -v t="$enqueue_best" 'BEGIN { print n / t }')" \
  "$(awk -v n="$ENQUEUE_URLS" -v t="$enqueue_median" 'BEGIN { print n / t }')"
printf '%-52s %9.3f %9.3f\n' "redis-server CPU, seconds" "$(best_min "$ENQUEUE_REDIS")" "$(median "$ENQUEUE_REDIS")"

printf '\n3. redis-benchmark -n %d (50 clients), same redis-server\n' "$REDIS_BENCHMARK_REQUESTS"
if ((${#RB_RATE[@]} == 0)); then
  echo "   (skipped: no redis-benchmark)"
else
  for name in SET LPUSH ZADD "SET -P 16"; do
    printf '%-52s %9.0f requests/s\n' "$name" "${RB_RATE[$name]:-0}"
  done
fi

printf '\nsummary\n'
printf '%-52s %9d   target %d: %s\n' "jobs/s, median of $RUNS" "$jobs_median" "$JOBS_TARGET" "$(met "$jobs_median" "$JOBS_TARGET" higher)"
printf '%-52s %9d   target %d: %s\n' "redis-server CPU per job, us, median of $RUNS" "$(median "$REDIS_US")" "$REDIS_US_TARGET" "$(met "$(median "$REDIS_US")" "$REDIS_US_TARGET" lower)"
printf '%-52s %9.3f   target %s s: %s\n' "enqueue of $ENQUEUE_URLS URLs, seconds, median of $RUNS" "$enqueue_median" "$ENQUEUE_TARGET" "$(met "$enqueue_median" "$ENQUEUE_TARGET" lower)"
if [[ -n ${RB_RATE[SET]:-} ]]; then
  printf '%-52s %9.3f   (best %.3f)\n' "jobs/s / redis-benchmark SET requests/s (median)" \
    "$(awk -v j="$jobs_median" -v s="${RB_RATE[SET]}" 'BEGIN { print j / s }')" \
    "$(awk -v j="$jobs_best" -v s="${RB_RATE[SET]}" 'BEGIN { print j / s }')"
fi
