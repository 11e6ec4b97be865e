#!/usr/bin/env bash
# What operability costs: the same worker with and without logging at info,
# metrics on and the HTTP server up (scraped every 5 s, as a Prometheus would).
#
#   bench/overhead.sh                   (or: make bench-overhead)
#   OVERHEAD_ROUNDS=2                   (rounds of each part, default 2)
#
# bench/.overhead/ keeps each bench/queue.sh run's output.
#
# Both parts run the same release build, alternating off and on so that a
# machine that drifts (thermal, page cache) drifts for both:
#
# 1. Queue: bench/queue.sh's throughput part (20,000 disk-hit jobs, one
#    worker; 3 runs per invocation), OVERHEAD_ROUNDS invocations off and on.
#    Compares the median of all runs' jobs/s.
# 2. Downloads: bench/run.sh's disk warming of the corpus (300 images), as
#    interleaved pairs of `warmer` off and `warmer` on (bench_pairs from
#    bench/lib.sh, 5 pairs): the ratio printed is on/off files/s, so 0.97
#    means 3% slower with it on.
#
# "Off" is `--log-level critical` (nothing logged) and no HTTP server, so
# no metrics backend either (swift-metrics' no-op handlers). "On" is
# `--http-port PORT --log-level info` (the default text format, to standard
# error, which the bench writes to a file) plus a loop fetching /metrics
# every 5 s. The target (issue 11) is at most 3% on each.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROUNDS=${OVERHEAD_ROUNDS:-2}
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
declare -a OFF_RATES=() ON_RATES=()
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
    ((${#rates[@]} > 0)) || { log "no jobs/s in $output_file"; exit 1; }
    log "queue round $round, $mode: ${rates[*]} jobs/s"
    if [[ $mode == off ]]; then OFF_RATES+=("${rates[@]}"); else ON_RATES+=("${rates[@]}"); fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
off_median=$(median "${OFF_RATES[@]}")
on_median=$(median "${ON_RATES[@]}")

# --- 2. Downloads ---------------------------------------------------------------
# shellcheck source=bench/lib.sh
source bench/lib.sh
bench_setup
warmer_off() { BENCH_WORKER_FLAGS=$OFF_FLAGS warmer_batch "$1" "$WORK/cache-off-$1" -- --destination disk; }
warmer_on() { BENCH_WORKER_FLAGS=$ON_FLAGS warmer_batch "$1" "$WORK/cache-on-$1" -- --destination disk; }

printf '\n1. queue throughput, disk hits: %d runs each\n' "${#OFF_RATES[@]}"
printf '%-44s %9s\n' "off: jobs/s, median" "$off_median"
printf '%-44s %9s\n' "on:  jobs/s, median" "$on_median"
printf '%-44s %9.3f   target >= 0.97\n' "ratio on/off" "$(awk -v a="$on_median" -v b="$off_median" 'BEGIN { print a / b }')"
printf '\n2. disk warming of %d images (bench/run.sh corpus); "reference" is off, "warmer" is on\n' "$COUNT"
bench_pairs "warmer, observability off" warmer_off "warmer, observability on" warmer_on
