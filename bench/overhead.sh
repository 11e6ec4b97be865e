#!/usr/bin/env bash
# What operability costs: the same worker with and without logging at info,
# metrics on and the HTTP server up (scraped every 5 s, as a Prometheus would).
#
#   bench/overhead.sh                   (or: make bench-overhead)
#   OVERHEAD_ROUNDS=3                   (bench/queue.sh invocations each side, default 3)
#   OVERHEAD_PAIRS=7 BENCH_COUNT=1000   (disk-warming pairs and images)
#
# bench/.overhead/ keeps each bench/queue.sh run's output.
#
# Both parts run the same release build, alternating off and on so that a
# machine that drifts (thermal, page cache) drifts for both:
#
# 1. Queue: bench/queue.sh's throughput part (20,000 disk-hit jobs, one
#    worker; 3 runs per invocation), OVERHEAD_ROUNDS invocations off and on.
#    Compares the median of all runs' jobs/s.
# 2. Downloads: bench/run.sh's disk warming of the corpus (1,000 images
#    here), as interleaved pairs of `warmer` off and `warmer` on (7 pairs):
#    the ratio printed is on/off files/s, so 0.97 means 3% slower with it on.
#
# Both parts also report the worker's CPU (per job; per batch), the steadier
# measure of what it costs on a shared 2-core machine where jobs/s moves by
# tens of percent from run to run.
#
# "Off" is `--log-level critical` (nothing logged) and no HTTP server, so
# no metrics backend either (swift-metrics' no-op handlers). "On" is
# `--http-port PORT --log-level info` (the default text format, to standard
# error, which the bench writes to a file) plus a loop fetching /metrics
# every 5 s. The target (issue 11) is at most 3% on each.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROUNDS=${OVERHEAD_ROUNDS:-3}
HTTP_PORT=${OVERHEAD_HTTP_PORT:-19464}
OFF_FLAGS="--log-level critical"
ON_FLAGS="--http-port $HTTP_PORT --log-level info"
log() { echo "overhead.sh: $*" >&2; }
# Each bench/queue.sh run's whole output is kept here (bench/.work is wiped by the next bench).
OUTPUT=bench/.overhead
rm -rf "$OUTPUT"
mkdir -p "$OUTPUT"

# scrape_loop: fetch /metrics every 5 s while this script runs (nothing
# answers between workers; curl's failure is ignored).
scrape_loop() {
  while sleep 5; do curl -s -o /dev/null "http://127.0.0.1:$HTTP_PORT/metrics" || true; done
}
scrape_loop &
scraper=$!
trap 'kill $scraper 2>/dev/null || true' EXIT

# --- 1. Queue ------------------------------------------------------------------
declare -a OFF_RATES=() ON_RATES=() OFF_CPU=() ON_CPU=()
queue_rates() { grep -o '[0-9]* jobs/s (whole batch' | awk '{ print $1 }'; }
for round in $(seq 1 "$ROUNDS"); do
  for mode in off on; do
    flags=$OFF_FLAGS
    [[ $mode == on ]] && flags=$ON_FLAGS
    log "queue round $round, $mode: bench/queue.sh ${flags:+with $flags}"
    output_file="$OUTPUT/queue-$round-$mode.log"
    if ! BENCH_WORKER_FLAGS=$flags BENCH_ENQUEUE_URLS=1000 bench/queue.sh >"$output_file" 2>&1; then
      tail -30 "$output_file" >&2
      exit 1
    fi
    # The per-run lines: "... then N jobs in Ss: R jobs/s (whole batch ...".
    mapfile -t rates < <(grep -o 'jobs in [0-9.]*s: [0-9]* jobs/s' "$output_file" | awk '{ print $4 }')
    mapfile -t cpus < <(grep -o 'CPU per job: worker [0-9]* us' "$output_file" | awk '{ print $5 }')
    ((${#rates[@]} > 0)) || { log "no jobs/s in $output_file"; exit 1; }
    log "queue round $round, $mode: ${rates[*]} jobs/s; worker CPU per job ${cpus[*]} us"
    if [[ $mode == off ]]; then
      OFF_RATES+=("${rates[@]}") OFF_CPU+=("${cpus[@]}")
    else
      ON_RATES+=("${rates[@]}") ON_CPU+=("${cpus[@]}")
    fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# --- 2. Downloads ---------------------------------------------------------------
# BENCH_COUNT images (default 1000 here: a 300-image batch lasts a third of
# a second, too short to see a 5 s scrape), OVERHEAD_PAIRS interleaved
# pairs (default 7), each side on an empty cache.
export BENCH_COUNT=${BENCH_COUNT:-1000}
# shellcheck source=bench/lib.sh
source bench/lib.sh
bench_setup
PAIRS=${OVERHEAD_PAIRS:-7}
declare -a OFF_SECONDS=() ON_SECONDS=() OFF_DISK_CPU=() ON_DISK_CPU=() PAIR_RATIOS=()
for n in $(seq 1 "$PAIRS"); do
  BENCH_WORKER_FLAGS=$OFF_FLAGS warmer_batch "off-$n" "$WORK/cache-off-$n" -- --destination disk
  off_seconds=$run_seconds off_cpu=$run_cpu_seconds
  BENCH_WORKER_FLAGS=$ON_FLAGS warmer_batch "on-$n" "$WORK/cache-on-$n" -- --destination disk
  log "pair $n: off ${off_seconds}s (worker CPU ${off_cpu}s), on ${run_seconds}s (worker CPU ${run_cpu_seconds}s)"
  OFF_SECONDS+=("$off_seconds") ON_SECONDS+=("$run_seconds")
  OFF_DISK_CPU+=("$off_cpu") ON_DISK_CPU+=("$run_cpu_seconds")
  PAIR_RATIOS+=("$(awk -v a="$off_seconds" -v b="$run_seconds" 'BEGIN { printf "%.3f", a / b }')")
done
stop_services

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
printf '\n1. queue throughput, disk hits, 20,000 jobs: %d runs each\n' "${#OFF_RATES[@]}"
printf '%-48s %9s %9s %9s\n' "" off on on/off
printf '%-48s %9s %9s %9s\n' "jobs/s, median" "$(median "${OFF_RATES[@]}")" "$(median "${ON_RATES[@]}")" \
  "$(ratio "$(median "${ON_RATES[@]}")" "$(median "${OFF_RATES[@]}")")"
printf '%-48s %9s %9s %9s\n' "worker CPU per job, us, median" "$(median "${OFF_CPU[@]}")" "$(median "${ON_CPU[@]}")" \
  "$(ratio "$(median "${ON_CPU[@]}")" "$(median "${OFF_CPU[@]}")")"
printf '\n2. disk warming of %d images, %d interleaved pairs\n' "$COUNT" "$PAIRS"
printf '%-48s %9s %9s %9s\n' "" off on on/off
printf '%-48s %9s %9s %9s\n' "seconds, median" "$(median "${OFF_SECONDS[@]}")" "$(median "${ON_SECONDS[@]}")" \
  "$(ratio "$(median "${ON_SECONDS[@]}")" "$(median "${OFF_SECONDS[@]}")")"
printf '%-48s %9s %9s %9s\n' "worker CPU seconds, median" "$(median "${OFF_DISK_CPU[@]}")" "$(median "${ON_DISK_CPU[@]}")" \
  "$(ratio "$(median "${ON_DISK_CPU[@]}")" "$(median "${OFF_DISK_CPU[@]}")")"
printf '%-48s %9s\n' "files/s ratio on/off, median of the pairs" "$(median "${PAIR_RATIOS[@]}")"
