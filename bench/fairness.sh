#!/usr/bin/env bash
# Fair queueing across groups (docs/wire-format.md, "The order jobs are
# handed out"): what a big batch does to a small one of the same priority,
# and what many groups cost a claim.
#
#   bench/fairness.sh                       (or: make bench-fairness)
#   BENCH_FAIR_BIG=200000                   (URLs of the big batch, default 200000)
#   BENCH_FAIR_SMALL=50                     (URLs of the small batch, default 50)
#   BENCH_FAIR_DELAY=10                     (seconds between the two, default 10)
#   BENCH_FAIR_CONCURRENCY=32               (the worker's slots, default 32)
#   BENCH_FAIR_GROUPS=10000                 (groups of part 2, default 10000)
#   BENCH_FAIR_JOBS=20000                   (jobs of part 2, default 20000)
#   BENCH_FAIR_RUNS=5                       (runs of part 2, each one group then many, default 5)
#   BENCH_WARMER=.build/debug/warmer        (a built binary: skips the release build)
#
# 1. Starvation. A slow origin (nginx's /slow/: 100 KB/s a connection, so
#    a job of the corpus' median file takes about 1.5 s, like a far
#    origin). The small batch alone: one worker, BENCH_FAIR_SMALL URLs,
#    its span createdAt -> finishedAt (Redis clock). Then behind a big one:
#    BENCH_FAIR_BIG URLs enqueued first (same priority, distinct URLs), the
#    worker started, and BENCH_FAIR_DELAY s later the small batch; its span,
#    and how many of the big batch's jobs had ended when it finished. The
#    big batch is not waited for.
# 2. Claim cost with many groups. BENCH_FAIR_JOBS disk-hit jobs (bench/queue.sh
#    part 1: every job a stat of a cached file, so what is left is the queue)
#    as one batch, and then spread over BENCH_FAIR_GROUPS batches (groups),
#    each pushed as an intake document and expanded while the queue is
#    paused. Resumed, the worker drains the queue; reported: jobs/s and
#    redis-server CPU per job (claim, events, finish), one group against many.
# See bench/README.md ("Fair queueing") and docs/capacity.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

BIG=${BENCH_FAIR_BIG:-200000}
SMALL=${BENCH_FAIR_SMALL:-50}
DELAY=${BENCH_FAIR_DELAY:-10}
GROUPS_N=${BENCH_FAIR_GROUPS:-10000}
JOBS=${BENCH_FAIR_JOBS:-20000}
RUNS_N=${BENCH_FAIR_RUNS:-5}
PARALLEL=${BENCH_FAIR_CONCURRENCY:-32}

bench_setup
SMALLEST=$(corpus_file_by_size 1)
# A file of the corpus' median size: at 100 KB/s about a second and a half a job.
MEDIAN=$(corpus_file_by_size $((COUNT / 2)))
SLOW_BASE="$ORIGIN_URL/slow/$(basename "$MEDIAN")"

# slow_urls FILE COUNT LABEL: COUNT distinct slow URLs.
slow_urls() {
  awk -v base="$SLOW_BASE" -v label="$3" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) print base "?" label "=" i }' >"$1"
}

# span QUEUE BATCH: the batch's createdAt -> finishedAt in seconds.
span() {
  "$warmer" status --queue "$1" "$2" | awk '
    /"createdAt"/ { gsub(/[^0-9]/, "", $NF); c = $NF }
    /"finishedAt"/ { gsub(/[^0-9]/, "", $NF); f = $NF }
    END { if (c == "" || f == "") exit 1; printf "%.3f", (f - c) / 1000 }'
}

# wait_finished QUEUE BATCH: wait (at most BENCH_TIMEOUT) for the batch's finishedAt.
wait_finished() {
  local deadline=$((SECONDS + WATCH_TIMEOUT))
  until rcli hexists "warmer:{$1}:batch:$2" finishedAt | grep -q 1; do
    if ((SECONDS > deadline)); then log "batch $2 on $1 not finished after ${WATCH_TIMEOUT}s"; exit 1; fi
    sleep 0.2
  done
}

# --- 1. A small batch behind a big one, against a slow origin ------------------
slow_urls "$WORK/small-alone.txt" "$SMALL" alone
slow_urls "$WORK/small-shared.txt" "$SMALL" shared
slow_urls "$WORK/big.txt" "$BIG" big

warmer_start alone "$WORK/cache-alone"
"$warmer" enqueue --queue "$worker_queue" --batch small "$WORK/small-alone.txt" >/dev/null
wait_finished "$worker_queue" small
alone=$(span "$worker_queue" small)
warmer_stop
delete_queue "$worker_queue"
log "small batch alone: ${alone}s"

warmer_start shared "$WORK/cache-shared"
pause_queue "$worker_queue"
log "enqueueing the big batch ($BIG URLs)"
"$warmer" enqueue --queue "$worker_queue" --batch big "$WORK/big.txt" >/dev/null
resume_queue "$worker_queue"
sleep "$DELAY"
"$warmer" enqueue --queue "$worker_queue" --batch small "$WORK/small-shared.txt" >/dev/null
wait_finished "$worker_queue" small
shared=$(span "$worker_queue" small)
big_done=$(rcli hget "warmer:{$worker_queue}:batch:big" completed)
warmer_stop
delete_queue "$worker_queue"
log "small batch behind the big one: ${shared}s (big batch: $big_done of $BIG completed by then)"

# --- 2. Claim cost: one group against many --------------------------------------
JOB_URLS="$WORK/urls-fair.txt"
url_list "$JOB_URLS" "$JOBS"
CACHE="$WORK/cache-fair"
warm_cache "$JOB_URLS" "$CACHE"

one_us="" many_us="" one_rate="" many_rate="" pair_ratios=""
for run in $(seq 1 "$RUNS_N"); do
  warmer_start "one-$run" "$CACHE"
  pause_queue "$worker_queue"
  "$warmer" enqueue --queue "$worker_queue" --batch one "$JOB_URLS" >/dev/null
  drain_queue "$worker_queue" "$JOBS"
  check_counters "$worker_queue" one "$JOBS" >/dev/null
  one_us+=" $drain_redis_us"; one_rate+=" $(awk -v s="$drain_seconds" -v n="$JOBS" 'BEGIN { printf "%.0f", n / s }')"
  warmer_stop
  delete_queue "$worker_queue"

  warmer_start "many-$run" "$CACHE"
  pause_queue "$worker_queue"
  # One intake document per group, its share of the URLs, pushed in one pipe.
  # (RESP, which redis-cli --pipe sends as it is: the JSON's quotes need no escaping.)
  LC_ALL=C awk -v groups="$GROUPS_N" -v q="warmer:{$worker_queue}:intake" '
    { g = (NR - 1) % groups; urls[g] = urls[g] (urls[g] == "" ? "" : ",") "\"" $0 "\"" }
    END {
      for (g = 0; g < groups; g++) {
        doc = sprintf("{\"v\":1,\"batch\":\"g-%d\",\"urls\":[%s]}", g, urls[g])
        printf "*3\r\n$5\r\nRPUSH\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(q), q, length(doc), doc
      }
    }' "$JOB_URLS" | rcli --pipe >/dev/null
  rcli rpush "warmer:{$worker_queue}:intake" wake >/dev/null
  deadline=$((SECONDS + WATCH_TIMEOUT))
  until (($(rcli zcard "warmer:{$worker_queue}:queue") == JOBS)); do
    if ((SECONDS > deadline)); then log "intake not expanded after ${WATCH_TIMEOUT}s"; exit 1; fi
    sleep 0.2
  done
  in_line=$(rcli zcard "warmer:{$worker_queue}:groups")
  drain_queue "$worker_queue" "$JOBS"
  pair_ratios+=" $(awk -v a="$(echo "$one_us" | awk '{ print $NF }')" -v b="$drain_redis_us" 'BEGIN { printf "%.3f", b / a }')"
  many_us+=" $drain_redis_us"; many_rate+=" $(awk -v s="$drain_seconds" -v n="$JOBS" 'BEGIN { printf "%.0f", n / s }')"
  warmer_stop
  delete_queue "$worker_queue"
  log "run $run: one group $(echo "$one_us" | awk '{ print $NF }') us/job, $in_line groups $drain_redis_us us/job"
done
stop_services

awk -v alone="$alone" -v shared="$shared" -v big="$BIG" -v small="$SMALL" -v done="$big_done" -v delay="$DELAY" \
  -v slots="$PARALLEL" 'BEGIN {
  printf "\n1. %d-URL batch, same priority, %d s after a %d-URL batch; slow origin, %d slots\n", small, delay, big, slots
  printf "   alone %.1f s, behind the big batch %.1f s: %.2fx (big batch: %d completed by then)\n", alone, shared, shared / alone, done
}'
one=$(median "$one_us") many=$(median "$many_us")
awk -v one="$one" -v many="$many" -v g="$GROUPS_N" -v jobs="$JOBS" -v r1="$(median "$one_rate")" -v r2="$(median "$many_rate")" \
  -v runs="$RUNS_N" -v pairs="$(median "$pair_ratios")" -v each="$pair_ratios" 'BEGIN {
  printf "2. %d disk-hit jobs, median of %d: one group %.1f us of Redis CPU a job (%d jobs/s), %d groups %.1f us (%d jobs/s): %.2fx\n",
    jobs, runs, one, r1, g, many, r2, many / one
  printf "   median of the %d per-run ratios (many groups over one group, run by run):%s -> %.2fx\n", runs, each, pairs
}'
