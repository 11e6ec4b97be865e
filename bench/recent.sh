#!/usr/bin/env bash
# Recently warmed URLs (docs/wire-format.md, "Recently warmed URLs"): what
# remembering completions costs Redis, in memory and CPU, and what a batch
# with `freshFor` saves.
#
#   bench/recent.sh                         (or: make bench-recent)
#   BENCH_RECENT_JOBS=20000                 (jobs of a run, default 20000)
#   BENCH_RECENT_CONCURRENCY=32             (the worker's slots, default 32)
#   BENCH_WARMER=.build/debug/warmer        (a built binary: skips the release build)
#
# BENCH_RECENT_JOBS disk-hit jobs (bench/queue.sh part 1: every job a stat of
# a cached file, so what is left is the queue), as one batch on a paused
# queue, drained by one worker once resumed; three times each, interleaved:
#   reference  `--recent-capacity 0`: nothing remembered
#   remember   the default: every completion remembered in `recent`
# 1. Memory: after a `remember` run, MEMORY USAGE of `warmer:{Q}:recent`
#    (SAMPLES 0: every entry) over its ZCARD, and the growth of Redis's
#    used_memory over the run's entries (the whole cost, the key's overhead
#    in Redis' dictionaries included).
# 2. Cost: redis-server CPU per job, remember against reference.
# 3. Saving: the same URLs enqueued again with `--fresh-for 3600` on the
#    `remember` queue: the enqueue's Redis CPU per URL, and jobs made (0).
# See bench/README.md ("Recently warmed URLs") and docs/capacity.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

JOBS=${BENCH_RECENT_JOBS:-20000}
PARALLEL=${BENCH_RECENT_CONCURRENCY:-32}

bench_setup
SMALLEST=$(corpus_file_by_size 1)
JOB_URLS="$WORK/urls-recent.txt"
url_list "$JOB_URLS" "$JOBS"
CACHE="$WORK/cache-recent"
warm_cache "$JOB_URLS" "$CACHE"

used_memory() { rcli info memory | tr -d '\r' | awk -F: '$1 == "used_memory" { print $2 }'; }

ref_us="" rem_us="" usage_bytes="" used_bytes="" fresh_us=""
for run in 1 2 3; do
  warmer_start "reference-$run" "$CACHE" --recent-capacity 0
  pause_queue "$worker_queue"
  "$warmer" enqueue --queue "$worker_queue" --batch one "$JOB_URLS" >/dev/null
  drain_queue "$worker_queue" "$JOBS"
  check_counters "$worker_queue" one "$JOBS" >/dev/null
  ref_us+=" $drain_redis_us"
  warmer_stop
  delete_queue "$worker_queue"

  warmer_start "remember-$run" "$CACHE"
  pause_queue "$worker_queue"
  "$warmer" enqueue --queue "$worker_queue" --batch one "$JOB_URLS" >/dev/null
  memory0=$(used_memory)
  drain_queue "$worker_queue" "$JOBS"
  check_counters "$worker_queue" one "$JOBS" >/dev/null
  rem_us+=" $drain_redis_us"
  key="warmer:{$worker_queue}:recent"
  entries=$(rcli zcard "$key")
  ((entries == JOBS)) || { log "recent holds $entries entries, not $JOBS"; exit 1; }
  usage_bytes+=" $(awk -v u="$(rcli memory usage "$key" samples 0)" -v n="$entries" 'BEGIN { printf "%.1f", u / n }')"
  # used_memory also grew by the finished jobs' own keys: measured against a
  # copy of the set, made and dropped with nothing else changing.
  before=$(used_memory)
  rcli copy "$key" "$key:copy" >/dev/null
  after=$(used_memory)
  rcli del "$key:copy" >/dev/null
  used_bytes+=" $(awk -v a="$before" -v b="$after" -v n="$entries" 'BEGIN { printf "%.1f", (b - a) / n }')"

  # The same URLs again with --fresh-for: every one counted from `recent`.
  cpu0=$(redis_cpu)
  "$warmer" enqueue --queue "$worker_queue" --batch again --fresh-for 3600 "$JOB_URLS" >/dev/null
  fresh_us+=" $(awk -v a="$cpu0" -v b="$(redis_cpu)" -v n="$JOBS" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }')"
  recent=$(rcli hget "warmer:{$worker_queue}:batch:again" recent)
  queued=$(rcli zcard "warmer:{$worker_queue}:queue")
  ((recent == JOBS && queued == 0)) || { log "fresh batch: recent $recent, queued $queued"; exit 1; }
  warmer_stop
  delete_queue "$worker_queue"
  log "run $run: reference $(echo "$ref_us" | awk '{ print $NF }') us/job, remember $drain_redis_us us/job"
done
stop_services

awk -v jobs="$JOBS" -v usage="$(median "$usage_bytes")" -v used="$(median "$used_bytes")" 'BEGIN {
  printf "\n1. memory per remembered completion (%d entries): MEMORY USAGE %.1f bytes, used_memory %.1f bytes\n", jobs, usage, used
}'
awk -v r="$(median "$ref_us")" -v m="$(median "$rem_us")" -v f="$(median "$fresh_us")" -v jobs="$JOBS" 'BEGIN {
  printf "2. %d disk-hit jobs, median of 3: Redis CPU a job %.1f us remembering, %.1f us not (reference): %.2fx\n", jobs, m, r, m / r
  printf "3. the same URLs again with --fresh-for: %.1f us of Redis CPU a URL, no job made\n", f
}'
