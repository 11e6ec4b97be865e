#!/usr/bin/env bash
# Does the queue's cost grow with its size? Per-job CPU at two batch sizes,
# Redis memory per queued job at two queue depths, claim/finish cost behind a
# deep queue, and a finished batch's keys gone after the retention.
#
#   bench/scale.sh                           (or: make bench-scale)
#   BENCH_SCALE_SMALL=10000                  (jobs in the small batch, default 10,000)
#   BENCH_SCALE_LARGE=100000                 (jobs in the large batch, default 100,000)
#   BENCH_SCALE_QUEUED=1000000               (URLs queued in part 2, default 1,000,000)
#   BENCH_SCALE_RETENTION=5                  (the part 3 worker's --retention, seconds)
#   BENCH_SCALE_RETENTION_JOBS=1000          (jobs in the part 3 batch)
#   BENCH_SCALE_CONCURRENCY=64               (the worker's --concurrency)
#   BENCH_SCALE_RUNS=1                       (runs of each part 1 size; the median counts)
#   BENCH_TIMEOUT=600                        (seconds a batch may take)
#
# 1. Per-job cost. BENCH_SCALE_LARGE distinct URLs, ORIGIN/<smallest corpus
#    file>?n=1..N, are warmed once into one cache with `warmer warm` (no
#    Redis); the small batch is the first BENCH_SCALE_SMALL of them. For each
#    size one `warmer worker --cache-dir THAT_CACHE` on a fresh queue gets
#    the list as one batch, enqueued while the queue is paused; the clock
#    runs from the resume to the batch's `finishedAt` in Redis. Every job is
#    a disk hit, so what is measured is the queue: claim, events, finish.
#    Reported: jobs/s, worker and redis-server CPU per job (the ratio large /
#    small is about 1.0 when nothing grows with the batch).
# 2. Deep queue. BENCH_SCALE_QUEUED URLs of another corpus file (?q=1..N) go
#    into a queue with no worker, in ten `warmer enqueue` batches (normal
#    priority, --aging 0: strict priorities). Redis `used_memory` over its
#    value before the first, per queued job, after the first tenth and after
#    all; enqueue seconds per 100,000 URLs for the first and the last tenth.
#    Then, the queue paused, a worker starts on it and the large batch of
#    part 1 is enqueued with --priority high and run as in part 1 (the
#    resume starts the clock), to be compared with part 1's large run on a
#    shallow queue. The queue is paused again the moment the batch finished
#    (a keyspace event), then the worker stopped; the deep jobs it claimed
#    as the high batch's last jobs freed its slots (downloads: they are not
#    disk hits) are reported.
# 3. Retention. A worker with --retention BENCH_SCALE_RETENTION runs a batch
#    of BENCH_SCALE_RETENTION_JOBS disk hits. After the retention plus 2 s,
#    one more 1-job batch runs: the `batches` index drops ids created longer
#    ago than the retention when a batch finishes (docs/wire-format.md), so
#    it takes a later batch's end to trim it. Then a server-side Lua SCAN
#    counts the keys `warmer:{Q}:batch:ID*` and the job hashes with a field
#    `b:ID` left, and whether `batches` still lists ID.
#
# Correctness fails the bench (counters other than completed = N, any origin
# request for a disk-hit URL, a queue depth other than the URLs enqueued, any
# key of the retention batch left); the figures are only reported.
# See bench/scale.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

SMALL=${BENCH_SCALE_SMALL:-10000}
LARGE=${BENCH_SCALE_LARGE:-100000}
QUEUED=${BENCH_SCALE_QUEUED:-1000000}
RETENTION=${BENCH_SCALE_RETENTION:-5}
RETENTION_JOBS=${BENCH_SCALE_RETENTION_JOBS:-1000}
RUNS=${BENCH_SCALE_RUNS:-1}
# warmer_start runs the worker with --concurrency $PARALLEL (bench/lib.sh).
PARALLEL=${BENCH_SCALE_CONCURRENCY:-64}
STEPS=10 # part 2 enqueues QUEUED URLs in this many batches

if ((SMALL > LARGE || RETENTION_JOBS > LARGE || QUEUED % STEPS != 0 || QUEUED < STEPS)); then
  log "need BENCH_SCALE_SMALL and BENCH_SCALE_RETENTION_JOBS <= BENCH_SCALE_LARGE, and BENCH_SCALE_QUEUED a multiple of $STEPS"
  exit 2
fi
STEP=$((QUEUED / STEPS))

bench_setup

# used_memory: Redis' used_memory, bytes (INFO memory), once the lazy frees
# of deleted queues are done.
used_memory() {
  local deadline=$((SECONDS + 30))
  while (($(rcli info memory | tr -d '\r' | awk -F: '/^lazyfree_pending_objects:/ { print $2 }') > 0)); do
    ((SECONDS < deadline)) || break
    sleep 0.1
  done
  rcli info memory | tr -d '\r' | awk -F: '/^used_memory:/ { print $2 }'
}
# per NUMBER DIVISOR [DECIMALS]: NUMBER / DIVISOR.
per() { awk -v a="$1" -v b="$2" -v d="${3:-0}" 'BEGIN { printf "%.*f", d, a / b }'; }

# --- 1. Per-job cost at two batch sizes ---------------------------------------
SMALLEST=$(corpus_file_by_size 1)
CACHE="$WORK/cache-scale"
LARGE_URLS="$WORK/urls-large.txt"
SMALL_URLS="$WORK/urls-small.txt"
url_list "$LARGE_URLS" "$LARGE"
head -n "$SMALL" "$LARGE_URLS" >"$SMALL_URLS"
log "disk-hit jobs: $(basename "$SMALLEST") ($(stat -c %s "$SMALLEST") bytes)"
warm_cache "$LARGE_URLS" "$CACHE"

declare -A RATE=() WORKER_US=() REDIS_US=() OTHER_PCT=() FINISHED_BYTES=()
# report_run LABEL JOBS KEY: log disk_hit_batch's figures and keep them under KEY.
report_run() {
  log "$1: $2 jobs in ${run_seconds}s: $run_jobs_per_s jobs/s (enqueue ${run_enqueue_seconds}s, paused);" \
    "CPU per job: worker $run_worker_us us, redis $run_redis_us us;" \
    "of the machine's $CORES cores: worker $run_worker_pct%, redis $run_redis_pct%, other processes $run_other_pct%"
  RATE[$3]+="$run_jobs_per_s " WORKER_US[$3]+="$run_worker_us " REDIS_US[$3]+="$run_redis_us "
  OTHER_PCT[$3]+="$run_other_pct "
}

for n in $(seq 1 "$RUNS"); do
  for size in small large; do
    if [[ $size == small ]]; then jobs=$SMALL urls=$SMALL_URLS; else jobs=$LARGE urls=$LARGE_URLS; fi
    memory_before=$(used_memory)
    warmer_start "$size-$n" "$CACHE"
    disk_hit_batch "$urls" "$jobs" paused
    FINISHED_BYTES[$size]+="$(per "$(($(used_memory) - memory_before))" "$jobs") "
    warmer_stop
    delete_queue "$worker_queue"
    report_run "part 1, run $n, $size batch" "$jobs" "$size"
  done
done

# --- 2. Deep queue: memory per queued job, claim/finish behind it -------------
DEEP_NAME=deep
DEEP_QUEUE="bench-$$-$DEEP_NAME" # the queue warmer_start "$DEEP_NAME" works on
DEEP_SOURCE=$(corpus_file_by_size 2)
DEEP_URLS="$WORK/urls-deep.txt"
url_list "$DEEP_URLS" "$QUEUED" "$DEEP_SOURCE" q
split -l "$STEP" -d -a 2 "$DEEP_URLS" "$WORK/urls-deep-part-"
rm -f "$DEEP_URLS"

memory0=$(used_memory)
log "part 2: enqueueing $QUEUED URLs of $(basename "$DEEP_SOURCE") in $STEPS batches of $STEP; used_memory before: $memory0 bytes"
ENQUEUE_SECONDS=() ENQUEUE_REDIS_US=() MEMORY=()
for part in "$WORK"/urls-deep-part-*; do
  redis0=$(redis_cpu)
  start=$(now)
  "$warmer" enqueue --queue "$DEEP_QUEUE" --aging 0 "$part" >/dev/null
  end=$(now)
  ENQUEUE_SECONDS+=("$(elapsed "$start" "$end")")
  ENQUEUE_REDIS_US+=("$(awk -v a="$redis0" -v b="$(redis_cpu)" -v n="$STEP" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }')")
  MEMORY+=("$(used_memory)")
  log "  ${#MEMORY[@]} x $STEP URLs: enqueue ${ENQUEUE_SECONDS[-1]}s (redis ${ENQUEUE_REDIS_US[-1]} us/URL)," \
    "used_memory $(((MEMORY[-1] - memory0) / (${#MEMORY[@]} * STEP))) bytes/job"
done
depth=$(rcli zcard "warmer:{$DEEP_QUEUE}:queue")
if ((depth != QUEUED)); then
  log "part 2: the queue holds $depth jobs, expected $QUEUED"
  exit 1
fi
MEM_FIRST=$(per "$((MEMORY[0] - memory0))" "$STEP")
MEM_LAST=$(per "$((MEMORY[-1] - memory0))" "$QUEUED")
ENQ_FIRST=$(per "${ENQUEUE_SECONDS[0]}" "$(per "$STEP" 100000 6)" 3)
ENQ_LAST=$(per "${ENQUEUE_SECONDS[-1]}" "$(per "$STEP" 100000 6)" 3)

pause_queue "$DEEP_QUEUE" # the worker must not start on the deep jobs
warmer_start "$DEEP_NAME" "$CACHE"
# The queue is paused again the moment the batch finished (DISK_HIT_FINISHED,
# before the CPU counters are read), then the worker stopped: it releases
# the deep jobs it holds.
DISK_HIT_FINISHED="pause_queue $DEEP_QUEUE" disk_hit_batch "$LARGE_URLS" "$LARGE" paused --priority high --aging 0
warmer_stop
deep_ran=$((QUEUED - $(rcli zcard "warmer:{$DEEP_QUEUE}:queue")))
report_run "part 2, $LARGE high-priority jobs behind $QUEUED queued" "$LARGE" deep
log "part 2: $deep_ran deep jobs ran as the high batch ended (the worker claims them as its slots free up; not disk hits)"
delete_queue "$DEEP_QUEUE"

# --- 3. Retention -----------------------------------------------------------
RETENTION_URLS="$WORK/urls-retention.txt"
TRIGGER_URLS="$WORK/urls-trigger.txt"
head -n "$RETENTION_JOBS" "$LARGE_URLS" >"$RETENTION_URLS"
sed -n "$((RETENTION_JOBS + 1))p" "$LARGE_URLS" >"$TRIGGER_URLS"
[[ -s $TRIGGER_URLS ]] || head -n 1 "$LARGE_URLS" >"$TRIGGER_URLS"

# batch_leftovers QUEUE BATCH: "BATCH_KEYS JOB_HASHES INDEXED ALL_JOB_HASHES
# WORK_FIELDS": keys warmer:{QUEUE}:batch:BATCH*, job hashes with a field
# b:BATCH, 1 when `batches` lists BATCH, every job hash of the queue, and the
# `work` index's fields (live jobs). One server-side SCAN.
batch_leftovers() {
  rcli eval "local prefix, batch = ARGV[1], ARGV[2]
    local batchPrefix, jobPrefix = prefix .. 'batch:' .. batch, prefix .. 'job:'
    local batchKeys, jobKeys, allJobs, cursor = 0, 0, 0, '0'
    repeat
      local reply = redis.call('SCAN', cursor, 'MATCH', prefix .. '*', 'COUNT', 1000)
      cursor = reply[1]
      for _, key in ipairs(reply[2]) do
        if string.sub(key, 1, #batchPrefix) == batchPrefix then
          batchKeys = batchKeys + 1
        elseif string.sub(key, 1, #jobPrefix) == jobPrefix then
          allJobs = allJobs + 1
          if redis.call('HEXISTS', key, 'b:' .. batch) == 1 then jobKeys = jobKeys + 1 end
        end
      end
    until cursor == '0'
    local indexed = redis.call('ZSCORE', prefix .. 'batches', batch) and 1 or 0
    return batchKeys .. ' ' .. jobKeys .. ' ' .. indexed .. ' ' .. allJobs .. ' ' .. redis.call('HLEN', prefix .. 'work')" \
    0 "warmer:{$1}:" "$2"
}

warmer_start retention "$CACHE" --retention "$RETENTION"
disk_hit_batch "$RETENTION_URLS" "$RETENTION_JOBS" running
retention_batch=$batch_id
read -r BEFORE_BATCH_KEYS BEFORE_JOB_KEYS BEFORE_INDEXED _ _ < <(batch_leftovers "$worker_queue" "$retention_batch")
log "part 3: batch $retention_batch finished: $BEFORE_BATCH_KEYS batch keys, $BEFORE_JOB_KEYS job hashes," \
  "indexed $BEFORE_INDEXED; waiting $((RETENTION + 2)) s"
if ((BEFORE_BATCH_KEYS == 0 || BEFORE_JOB_KEYS != RETENTION_JOBS || BEFORE_INDEXED != 1)); then
  log "part 3: expected the finished batch's hash and stream, $RETENTION_JOBS job hashes and its index entry before the retention"
  exit 1
fi
sleep "$((RETENTION + 2))"
# A later batch's end trims the `batches` index (ids created longer ago than the retention).
disk_hit_batch "$TRIGGER_URLS" 1 running
read -r LEFT_BATCH_KEYS LEFT_JOB_KEYS LEFT_INDEXED LEFT_ALL_JOBS LEFT_WORK < <(batch_leftovers "$worker_queue" "$retention_batch")
warmer_stop
LEFT=$((LEFT_BATCH_KEYS + LEFT_JOB_KEYS + LEFT_INDEXED))
log "part 3: after the retention: $LEFT_BATCH_KEYS batch keys, $LEFT_JOB_KEYS job hashes of the batch," \
  "indexed $LEFT_INDEXED; the queue holds $LEFT_ALL_JOBS job hashes (the trigger batch's) and $LEFT_WORK work fields"
stop_services

# --- Report -------------------------------------------------------------------
m() { median "$1"; }
# cost_rows A B: the rows jobs/s, worker and redis-server CPU per job of
# runs A and B (keys of RATE, WORKER_US, REDIS_US), and B / A.
cost_rows() {
  local row
  for row in "jobs/s:RATE" "worker CPU per job, us:WORKER_US" "redis-server CPU per job, us:REDIS_US"; do
    local -n figures=${row#*:}
    printf '%-44s %10d %10d %10.2f\n' "${row%%:*}" "$(m "${figures[$1]}")" "$(m "${figures[$2]}")" \
      "$(per "$(m "${figures[$2]}")" "$(m "${figures[$1]}")" 2)"
    unset -n figures
  done
}

printf '\n1. per-job cost: one batch of disk hits, 1 worker, --concurrency %d, shallow queue (median of %d)\n' "$PARALLEL" "$RUNS"
printf '%-44s %10s %10s %10s\n' "" "$SMALL" "$LARGE" "ratio"
cost_rows small large
printf '%-44s %10d %10d\n' "other processes, % of the $CORES cores" "$(m "${OTHER_PCT[small]}")" "$(m "${OTHER_PCT[large]}")"
printf '%-44s %10d %10d %10.2f\n' "Redis used_memory per finished job, bytes" "$(m "${FINISHED_BYTES[small]}")" \
  "$(m "${FINISHED_BYTES[large]}")" "$(per "$(m "${FINISHED_BYTES[large]}")" "$(m "${FINISHED_BYTES[small]}")" 2)"
printf '   (finished jobs keep their hash for the retention; the capped event streams count in it too)\n'

printf '\n2. deep queue: %d URLs queued (normal priority), no worker\n' "$QUEUED"
printf '%-44s %10s %10s %10s\n' "" "$STEP" "$QUEUED" "ratio"
printf '%-44s %10.0f %10.0f %10.2f\n' "Redis used_memory per queued job, bytes" "$MEM_FIRST" "$MEM_LAST" "$(per "$MEM_LAST" "$MEM_FIRST" 2)"
printf '%-44s %10.3f %10.3f %10.2f\n' "enqueue seconds per 100,000 URLs (tenth)" "$ENQ_FIRST" "$ENQ_LAST" "$(per "$ENQ_LAST" "$ENQ_FIRST" 2)"
printf '%-44s %10.1f %10.1f %10.2f\n' "redis-server CPU per enqueued URL, us" "${ENQUEUE_REDIS_US[0]}" "${ENQUEUE_REDIS_US[-1]}" \
  "$(per "${ENQUEUE_REDIS_US[-1]}" "${ENQUEUE_REDIS_US[0]}" 2)"
printf '   (first column: the first tenth, on an empty queue; second: all of it, and the last tenth)\n'
printf '\n   %d high-priority disk hits, 1 worker: on a shallow queue (part 1) and on top of %d queued\n' "$LARGE" "$QUEUED"
printf '%-44s %10s %10s %10s\n' "" shallow deep ratio
cost_rows large deep
printf '   (%d deep jobs ran as the high batch ended: downloads, not disk hits, mostly in the window)\n' "$deep_ran"

printf '\n3. retention: a batch of %d jobs, worker --retention %d s, checked %d s after it finished\n' \
  "$RETENTION_JOBS" "$RETENTION" "$((RETENTION + 2))"
printf '%-44s %10s %10s\n' "" finished "+ret.+2 s"
printf '%-44s %10d %10d\n' "keys warmer:{Q}:batch:ID*" "$BEFORE_BATCH_KEYS" "$LEFT_BATCH_KEYS"
printf '%-44s %10d %10d\n' "job hashes of the batch (field b:ID)" "$BEFORE_JOB_KEYS" "$LEFT_JOB_KEYS"
printf '%-44s %10d %10d\n' "listed in warmer:{Q}:batches" "$BEFORE_INDEXED" "$LEFT_INDEXED"
printf '%-44s %10s %10d\n' "keys of the batch left" "" "$LEFT"
if ((LEFT != 0)); then
  log "part 3: $LEFT keys of batch $retention_batch outlived the retention"
  exit 1
fi
