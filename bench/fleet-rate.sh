#!/usr/bin/env bash
# What the fleet's rate limits (rate-permit.lua, docs/downloads.md "Fleet
# rate limits") cost a job, in `make bench-queue` terms: jobs/s of one
# worker and CPU per job of the worker and of redis-server, with and
# without a permit per download, in interleaved pairs.
#
#   bench/fleet-rate.sh                         (or: make bench-fleet-rate)
#   BENCH_FLEET_JOBS=10000 bench/fleet-rate.sh  (jobs per batch, default 10000)
#   BENCH_FLEET_CONCURRENCY=64                  (the worker's --concurrency, default 64)
#
# Each run: one `warmer worker` with an empty cache folder on a fresh queue,
# one batch of BENCH_FLEET_JOBS distinct URLs of the corpus's smallest file
# (ORIGIN/<file>?n=1..N: each job a download from the local nginx, the
# cheapest job that asks for a permit). The reference worker has no rate
# limit; the fleet worker runs with --host-rate-limit 1000000, a limit that
# never binds, so what differs is the permit itself: one EVALSHA of
# rate-permit.lua per download (pipelined with the worker's other calls)
# and its wait, none. Figures: jobs/s over the batch's span in Redis
# (createdAt to finishedAt), CPU per job of the worker and of redis-server,
# EVALSHA calls per job (INFO commandstats), and fleet/reference ratios,
# the median of the pairs' ratios. A failed job fails the bench.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

JOBS=${BENCH_FLEET_JOBS:-10000}
# warmer_start runs the worker with --concurrency $PARALLEL (bench/lib.sh).
PARALLEL=${BENCH_FLEET_CONCURRENCY:-64}
RUNS=3

bench_setup
SMALLEST=$(corpus_file_by_size 1)
JOB_URLS="$WORK/urls-fleet.txt"
url_list "$JOB_URLS" "$JOBS"
log "$(basename "$SMALLEST"): $(stat -c %s "$SMALLEST") bytes, $JOBS jobs a batch"

# evalsha_calls: EVALSHA calls redis-server has answered so far.
evalsha_calls() {
  rcli info commandstats | tr -d '\r' | awk -F'[:=,]' '$1 == "cmdstat_evalsha" { print $3; found = 1 } END { if (!found) print 0 }'
}

# fleet_run LABEL N [WORKER_ARGS...]: one batch through a fresh worker; sets
# run_jobs_per_s, run_worker_us, run_redis_us, run_evalsha.
fleet_run() {
  local label=$1 n=$2 cache="$WORK/cache-fleet"
  shift 2
  rm -rf "$cache"
  warmer_start "$label-$n" "$cache" "$@"
  sleep 0.5
  wait_quiet "$worker_pid"
  local worker0 redis0 calls0 worker1 redis1 calls1
  worker0=$(process_cpu "$worker_pid") redis0=$(redis_cpu) calls0=$(evalsha_calls)
  warmer_timed_batch "$JOB_URLS"
  worker1=$(process_cpu "$worker_pid") redis1=$(redis_cpu) calls1=$(evalsha_calls)
  warmer_stop
  delete_queue "$worker_queue"
  run_jobs_per_s=$(awk -v n="$JOBS" -v t="$batch_seconds" 'BEGIN { printf "%.0f", n / t }')
  run_worker_us=$(awk -v a="$worker0" -v b="$worker1" -v n="$JOBS" 'BEGIN { printf "%.0f", (b - a) * 1e6 / n }')
  run_redis_us=$(awk -v a="$redis0" -v b="$redis1" -v n="$JOBS" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }')
  run_evalsha=$(awk -v a="$calls0" -v b="$calls1" -v n="$JOBS" 'BEGIN { printf "%.2f", (b - a) / n }')
  log "$label run $n: $run_jobs_per_s jobs/s; CPU per job: worker $run_worker_us us, redis $run_redis_us us;" \
    "EVALSHA per job $run_evalsha"
}

REF_RATE="" REF_WORKER="" REF_REDIS="" REF_CALLS=""
FLEET_RATE="" FLEET_WORKER="" FLEET_REDIS="" FLEET_CALLS=""
RATE_RATIO="" WORKER_RATIO="" REDIS_RATIO=""
for n in $(seq 1 "$RUNS"); do
  fleet_run reference "$n"
  REF_RATE+="$run_jobs_per_s " REF_WORKER+="$run_worker_us " REF_REDIS+="$run_redis_us " REF_CALLS+="$run_evalsha "
  ref_rate=$run_jobs_per_s ref_worker=$run_worker_us ref_redis=$run_redis_us
  fleet_run fleet "$n" --host-rate-limit 1000000
  FLEET_RATE+="$run_jobs_per_s " FLEET_WORKER+="$run_worker_us " FLEET_REDIS+="$run_redis_us " FLEET_CALLS+="$run_evalsha "
  RATE_RATIO+="$(awk -v a="$run_jobs_per_s" -v b="$ref_rate" 'BEGIN { printf "%.3f", a / b }') "
  WORKER_RATIO+="$(awk -v a="$run_worker_us" -v b="$ref_worker" 'BEGIN { printf "%.3f", a / b }') "
  REDIS_RATIO+="$(awk -v a="$run_redis_us" -v b="$ref_redis" 'BEGIN { printf "%.3f", a / b }') "
done
stop_services

printf '\nfleet rate limits: %d download jobs a batch (one small file from local nginx); 1 worker, --concurrency %d; %d interleaved pairs\n' \
  "$JOBS" "$PARALLEL" "$RUNS"
printf '%-44s %12s %12s %16s\n' "median of $RUNS" reference fleet "fleet/reference"
printf '%-44s %12s %12s %16s\n' "jobs/s (createdAt to finishedAt)" "$(median "$REF_RATE")" "$(median "$FLEET_RATE")" "$(median "$RATE_RATIO")"
printf '%-44s %12s %12s %16s\n' "worker CPU per job, us" "$(median "$REF_WORKER")" "$(median "$FLEET_WORKER")" "$(median "$WORKER_RATIO")"
printf '%-44s %12s %12s %16s\n' "redis-server CPU per job, us" "$(median "$REF_REDIS")" "$(median "$FLEET_REDIS")" "$(median "$REDIS_RATIO")"
printf '%-44s %12s %12s\n' "EVALSHA calls per job" "$(median "$REF_CALLS")" "$(median "$FLEET_CALLS")"
