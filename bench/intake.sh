#!/usr/bin/env bash
# How long expanding large batches holds Redis: the longest single command
# (Redis's SLOWLOG, every command of 1 ms or more, and its latency monitor)
# while one worker turns intake documents and `warmer enqueue` files into
# jobs. Issue 24, item 5: no call may hold Redis for more than 10 ms.
#
#   bench/intake.sh                        (or: make bench-intake)
#   BENCH_INTAKE_URLS="100000 1000000"     (batch sizes, default both)
#   BENCH_INTAKE_PIN=1                     (redis-server alone on CPU 1, everything else
#                                           on CPU 0: a command's time without the OS
#                                           handing Redis's core to a worker thread midway)
#
# For each size N, on a fresh paused queue (so that the worker only expands:
# a claim expands intake before it finds the queue paused), with one
# `warmer worker` running:
#   a. documents: N URLs pushed as intake documents of 10,000 URLs each
#      (`RPUSH warmer:{Q}:intake`, the wire format's limit), as any
#      producer would, then waited for until the queue holds N jobs;
#   b. enqueue: `warmer enqueue` of an N-line file on another fresh queue;
#   c. POST: the documents of part a POSTed to `warmer serve`'s
#      /v1/queues/{queue}/batches, on a third.
# Before each part the SLOWLOG is reset; after it the bench prints its
# longest entry, how many entries took over 10 ms and the latency
# monitor's maximum, with the part's wall time. The URLs are never fetched.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

SIZES=${BENCH_INTAKE_URLS:-"100000 1000000"}
DOCUMENT_URLS=10000

bench_setup
cli() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"; }
if [[ ${BENCH_INTAKE_PIN:-0} == 1 ]]; then
  taskset -a -pc 1 "$(cli INFO server | tr -d '\r' | awk -F: '/^process_id:/ { print $2 }')" >/dev/null
  taskset -pc 0 $$ >/dev/null # the worker, serve and the bench's clients inherit it
fi
cli CONFIG SET slowlog-log-slower-than 1000 >/dev/null
cli CONFIG SET slowlog-max-len 100000 >/dev/null
cli CONFIG SET latency-monitor-threshold 1 >/dev/null

# reset_measures: empty the slow log and the latency monitor.
reset_measures() { cli SLOWLOG RESET >/dev/null; cli LATENCY RESET >/dev/null; }

# report LABEL SECONDS: the longest command since reset_measures, in ms
# (bench/slowlog.py; BENCH_INTAKE_TOP=N also lists the N longest).
report() {
  local longest over entries latency
  # First the latency monitor (reading the slow log is a long command of its own).
  # LATENCY LATEST: event, time, latest ms, max ms — each event's max, by name.
  latency=$(cli LATENCY LATEST | awk 'NR % 4 == 1 { e = $1 } NR % 4 == 0 { printf "%s%s=%s", sep, e, $1; sep = "," }')
  read -r longest over entries < <(bench/slowlog.py "$REDIS_PORT" --top "${BENCH_INTAKE_TOP:-0}")
  printf '%-34s %8s s   longest command %7.1f ms   over 10 ms: %4d of %5d logged (>= 1 ms)   latency monitor max (ms) %s\n' \
    "$1" "$2" "$longest" "$over" "$entries" "$latency"
}

# wait_for_jobs QUEUE N: until QUEUE holds N queued jobs.
wait_for_jobs() {
  local deadline=$((SECONDS + WATCH_TIMEOUT))
  until [[ $(cli ZCARD "warmer:{$1}:queue") -ge $2 ]]; do
    ((SECONDS < deadline)) || { log "queue $1 holds $(cli ZCARD "warmer:{$1}:queue") of $2 jobs after ${WATCH_TIMEOUT}s"; exit 1; }
    sleep 0.2
  done
}

# `warmer serve`, for part c: no tokens (loopback only).
_launch_serve() {
  echo "$BASHPID" >"$WORK/serve.pid" # exec keeps the pid
  exec "$warmer" serve --http-port "$1" --cache-dir "$WORK/cache" >"$WORK/serve.log" 2>&1
}
_serve_answers() { curl -fsS -o /dev/null "http://127.0.0.1:$1/healthz" 2>/dev/null; }
mkdir -p "$WORK/cache"
_start_on_free_port "warmer serve" "$WORK/serve.log" _launch_serve _serve_answers || { log "warmer serve did not start"; exit 1; }
SERVE_URL="http://127.0.0.1:$STARTED_PORT"

# start_worker QUEUE: a worker on a paused QUEUE, in the background.
start_worker() {
  "$warmer" pause --queue "$1" >/dev/null
  "$warmer" worker --queue "$1" --cache-dir "$WORK/cache" >"$WORK/worker-$1.log" 2>&1 &
  worker_pid=$!
}
stop_worker() { kill "$worker_pid" 2>/dev/null || true; wait "$worker_pid" 2>/dev/null || true; }

for n in $SIZES; do
  # a. intake documents of 10,000 URLs
  queue="docs$n"
  start_worker "$queue"
  python3 - "$n" "$DOCUMENT_URLS" "$ORIGIN_URL" "$WORK/documents" <<'EOF'
import json, os, sys
n, size, origin, folder = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.makedirs(folder, exist_ok=True)
for start in range(0, n, size):
    urls = [f"{origin}/intake/{i:08d}.jpg" for i in range(start, min(n, start + size))]
    document = {"v": 1, "batch": "intake-bench", "total": n, "urls": urls}
    with open(f"{folder}/{start // size:05d}.json", "w") as f:
        json.dump(document, f)
EOF
  reset_measures
  start=$(now)
  for document in "$WORK"/documents/*.json; do cli -x RPUSH "warmer:{$queue}:intake" <"$document" >/dev/null; done
  wait_for_jobs "$queue" "$n"
  report "documents: $n URLs" "$(elapsed "$start" "$(now)")"
  stop_worker

  # c. the same documents POSTed to `warmer serve` (it parses bodies over 32 KiB itself)
  queue="post$n"
  start_worker "$queue"
  reset_measures
  start=$(now)
  for document in "$WORK"/documents/*.json; do
    curl -fsS -o /dev/null -H 'Content-Type: application/json' --data-binary "@$document" "$SERVE_URL/v1/queues/$queue/batches"
  done
  wait_for_jobs "$queue" "$n"
  report "POST bodies: $n URLs" "$(elapsed "$start" "$(now)")"
  stop_worker
  rm -rf "$WORK/documents"

  # b. warmer enqueue of an n-line file
  queue="enqueue$n"
  start_worker "$queue"
  awk -v n="$n" -v o="$ORIGIN_URL" 'BEGIN { for (i = 0; i < n; i++) printf "%s/enqueue/%08d.jpg\n", o, i }' >"$WORK/enqueue.txt"
  reset_measures
  start=$(now)
  "$warmer" enqueue --queue "$queue" "$WORK/enqueue.txt" >/dev/null
  wait_for_jobs "$queue" "$n"
  report "warmer enqueue: $n URLs" "$(elapsed "$start" "$(now)")"
  stop_worker
  cli FLUSHALL >/dev/null
done
