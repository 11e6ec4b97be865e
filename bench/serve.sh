#!/usr/bin/env bash
# `warmer serve` against its references, each part a ratio measured in the
# same run (release build, bench/lib.sh's corpus, nginx and Redis):
#
#   bench/serve.sh                        (or: make bench-serve)
#   BENCH_SERVE_PARTS="a b" bench/serve.sh   (the parts to run, default "a b c")
#   BENCH_SERVE_URLS=10000                (URLs in part a's batch; the API takes at most 10,000 a document)
#   BENCH_SERVE_JOBS=10000                (disk-hit jobs in part b's batch)
#   BENCH_SERVE_WATCHERS=200              (part b's concurrent watchers)
#   BENCH_SERVE_SECONDS=10                (part c: seconds of each wrk run)
#   BENCH_SERVE_RUNS=3                    (interleaved pairs in each part)
#   BENCH_SERVE_PIN=1                     (part b: worker and Redis on CPU 0, serve and watchers on
#                                          CPU 1, in both runs of a pair; 0: no pinning)
#
# a. POST of a batch. `POST /v1/queues/Q/batches` of an intake document of
#    BENCH_SERVE_URLS URLs, timed by curl (`time_total`: connection to the
#    end of the 201; curl's own start-up excluded), against `warmer enqueue`
#    of the same list, timed around the whole command (process start-up and
#    reading the file included). Each on a fresh queue, RUNS interleaved
#    pairs; the median of the pairs' ratios. Both batches' totals are checked.
# b. Watchers. One `warmer worker --concurrency 64` with a warm cache (every
#    job a disk hit, as in bench/queue.sh) runs a batch of BENCH_SERVE_JOBS
#    jobs with BENCH_SERVE_WATCHERS clients following the batch's event
#    stream through `warmer serve` (bench/sse-watchers.py: asyncio, raw
#    HTTP/1.1, reconnecting with Last-Event-ID as EventSource does), and
#    without any. The queue is paused while the batch is enqueued and the
#    watchers connect, then resumed; jobs/s = jobs / (batch's finishedAt -
#    its first event, both Redis' clock). Interleaved pairs; the median of
#    the pairs' ratios (target: within 5%). Every watcher must have received
#    the batch's whole stream: as many events as XLEN, ids only growing,
#    first and last ids the stream's, the same id sequence (SHA-256) as every
#    other watcher, and batchCompleted. With BENCH_SERVE_PIN=1 (the default
#    on a machine of 2 CPUs or more) the worker and Redis share CPU 0 and
#    serve and the 200 watchers CPU 1, in both runs: on 2 cores a worker at
#    full speed and Redis take the whole machine, so unpinned every CPU
#    second the watchers' own client (Python) or serve spends is taken from
#    the worker; pinned, the ratio shows what the watchers cost the worker
#    through Redis and the server, as on a deployment where serve and its
#    clients run elsewhere. BENCH_SERVE_PIN=0 measures the co-located case.
# c. Cache reads. `wrk` (installed here if missing: Debian package wrk)
#    cycling through the corpus: `GET /v1/cache?url=…` of `warmer serve
#    --cache-dir` holding the warmed corpus, against nginx serving the same
#    files from disk. Requests/s, interleaved pairs; the median ratio.
#
# Correctness fails the bench; the ratios are only reported. See
# bench/README.md, "warmer serve".
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

PARTS=${BENCH_SERVE_PARTS:-a b c}
POST_URLS=${BENCH_SERVE_URLS:-10000}
JOBS=${BENCH_SERVE_JOBS:-10000}
WATCHERS=${BENCH_SERVE_WATCHERS:-200}
WRK_SECONDS=${BENCH_SERVE_SECONDS:-10}
PARALLEL=64 # the worker's --concurrency (warmer_start)
RUNS=${BENCH_SERVE_RUNS:-3}

if [[ $PARTS == *c* ]] && ! command -v wrk >/dev/null 2>&1; then
  log "installing wrk (part c)"
  SUDO=()
  ((EUID == 0)) || SUDO=(sudo)
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends wrk >/dev/null ||
    { "${SUDO[@]}" apt-get update -qq && "${SUDO[@]}" apt-get install -y -qq --no-install-recommends wrk >/dev/null; }
fi

bench_setup

# rcli, median, status_field, delete_queue, redis_cpu, process_cpu and
# wait_quiet come from bench/lib.sh.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# The server, for every part: no tokens (loopback only), the warm cache of part c.
SMALLEST=$(find "$CORPUS" -maxdepth 1 -name 'img-*' -type f -printf '%s %p\n' | sort -n | sed -n '1s/^[0-9]* //p')
CACHE="$WORK/cache"
SERVE_LOG="$WORK/serve.log"
_launch_serve() {
  echo "$BASHPID" >"$WORK/serve.pid" # exec keeps the pid
  exec "$warmer" serve --http-port "$1" --cache-dir "$CACHE" --max-event-streams 10000 >"$SERVE_LOG" 2>&1
}
_serve_answers() { curl -fsS -o /dev/null "http://127.0.0.1:$1/healthz" 2>/dev/null; }
mkdir -p "$CACHE"
_start_on_free_port "warmer serve" "$SERVE_LOG" _launch_serve _serve_answers || { log "warmer serve did not start"; exit 1; }
SERVE_PORT=$STARTED_PORT
SERVE_PID=$(<"$WORK/serve.pid")
SERVE_URL="http://127.0.0.1:$SERVE_PORT"
log "warmer serve: $SERVE_URL (log: $SERVE_LOG)"

REPORT=()

# --- a. POST of a batch against warmer enqueue ---------------------------------
if [[ $PARTS == *a* ]]; then
  POST_LIST="$WORK/urls-post.txt"
  POST_DOC="$WORK/post.json"
  awk -v base="$ORIGIN_URL/$(basename "$SMALLEST")" -v n="$POST_URLS" \
    'BEGIN { for (i = 1; i <= n; i++) print base "?n=" i }' >"$POST_LIST"
  python3 -c 'import json, sys; print(json.dumps({"v": 1, "urls": open(sys.argv[1]).read().split()}))' "$POST_LIST" >"$POST_DOC"

  check_total() { # QUEUE BATCH
    local total
    total=$(status_field "$("$warmer" status --queue "$1" "$2")" total) || total=missing
    [[ $total == "$POST_URLS" ]] || { log "part a: batch $2 of $1 has total $total, expected $POST_URLS"; exit 1; }
  }
  POST_RATIOS="" POST_TIMES="" ENQUEUE_TIMES=""
  for n in $(seq 1 "$RUNS"); do
    queue="bench-$$-enqueue-$n"
    start=$(now)
    batch=$("$warmer" enqueue --queue "$queue" "$POST_LIST")
    enqueue_seconds=$(elapsed "$start" "$(now)")
    check_total "$queue" "$batch"
    delete_queue "$queue"

    queue="bench-$$-post-$n"
    read -r code post_seconds < <(curl -sS -o "$WORK/post-answer.json" -w '%{http_code} %{time_total}\n' \
      -H 'Content-Type: application/json' --data-binary "@$POST_DOC" "$SERVE_URL/v1/queues/$queue/batches")
    [[ $code == 201 ]] || { log "part a: POST answered $code: $(head -c 500 "$WORK/post-answer.json")"; exit 1; }
    batch=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["batch"])' "$WORK/post-answer.json")
    check_total "$queue" "$batch"
    delete_queue "$queue"

    log "part a, pair $n: warmer enqueue ${enqueue_seconds}s, POST ${post_seconds}s"
    POST_TIMES+="$post_seconds " ENQUEUE_TIMES+="$enqueue_seconds "
    POST_RATIOS+="$(ratio "$enqueue_seconds" "$post_seconds") "
  done
  REPORT+=("$(printf 'a. %d-URL batch: POST to 201 %.3f s (median), warmer enqueue %.3f s (median, process start included);
   ratio enqueue/POST time, median of %d pairs: %s (above 1: the POST is faster)' \
    "$POST_URLS" "$(median "$POST_TIMES")" "$(median "$ENQUEUE_TIMES")" "$RUNS" "$(median "$POST_RATIOS")")")
fi

# --- b. 200 watchers of one batch: the worker's jobs/s -------------------------
if [[ $PARTS == *b* ]]; then
  JOB_URLS="$WORK/urls-jobs.txt"
  CACHE_B="$WORK/cache-jobs"
  awk -v base="$ORIGIN_URL/$(basename "$SMALLEST")" -v n="$JOBS" \
    'BEGIN { for (i = 1; i <= n; i++) print base "?n=" i }' >"$JOB_URLS"
  log "part b: warming $JOBS URLs into $CACHE_B"
  "$warmer" warm --cache-dir "$CACHE_B" --concurrency 32 "$JOB_URLS" >"$WORK/warm-jobs.log" 2>&1 ||
    { log "warmer warm failed; see $WORK/warm-jobs.log"; exit 1; }

  # Pinning (BENCH_SERVE_PIN): the worker and Redis on CPU 0, serve and the watchers on CPU 1.
  PIN=${BENCH_SERVE_PIN:-$(( $(nproc) >= 2 ? 1 : 0 ))}
  WATCHER_PREFIX=()
  if ((PIN)); then
    taskset -a -pc 0 "$(rcli info server | tr -d '\r' | awk -F: '/^process_id:/ { print $2 }')" >/dev/null
    taskset -a -pc 1 "$SERVE_PID" >/dev/null
    WATCHER_PREFIX=(taskset -c 1)
    log "part b: pinned: the worker and Redis on CPU 0, serve and the watchers on CPU 1"
  fi

  # watch_run N WATCHERS: one batch through a fresh worker; sets run_jobs_per_s.
  watch_run() {
    local n=$1 watchers=$2 batch key first finished deadline watchers_pid="" ready="$WORK/ready-$n-$2" results="$WORK/watchers-$n-$2.json"
    warmer_start "watch-$n-$watchers" "$CACHE_B"
    ((PIN)) && taskset -a -pc 0 "$worker_pid" >/dev/null
    sleep 0.5
    wait_quiet "$worker_pid"
    "$warmer" pause --queue "$worker_queue" >/dev/null
    batch=$("$warmer" enqueue --queue "$worker_queue" "$JOB_URLS")
    key="warmer:{$worker_queue}:batch:$batch"
    if ((watchers > 0)); then
      rm -f "$ready"
      "${WATCHER_PREFIX[@]}" python3 bench/sse-watchers.py --port "$SERVE_PORT" --count "$watchers" --ready "$ready" \
        --path "/v1/queues/$worker_queue/batches/$batch/events" >"$results" &
      watchers_pid=$!
      deadline=$((SECONDS + 60))
      until [[ -s $ready ]]; do
        ((SECONDS < deadline)) || { log "part b: the watchers did not connect in 60 s"; exit 1; }
        sleep 0.1
      done
      [[ $(<"$ready") == "$watchers" ]] || { log "part b: only $(<"$ready") of $watchers watchers got a 200"; exit 1; }
    fi
    local serve_cpu0 watchers_cpu0=0 redis_cpu0
    serve_cpu0=$(process_cpu "$SERVE_PID")
    [[ -n $watchers_pid ]] && watchers_cpu0=$(process_cpu "$watchers_pid")
    redis_cpu0=$(redis_cpu)
    "$warmer" resume --queue "$worker_queue" >/dev/null
    deadline=$((SECONDS + WATCH_TIMEOUT))
    until finished=$(rcli hget "$key" finishedAt) && [[ -n $finished ]]; do
      ((SECONDS < deadline)) || { log "part b: batch $batch not finished in ${WATCH_TIMEOUT}s"; exit 1; }
      kill -0 "$worker_pid" 2>/dev/null || { log "part b: the worker exited; see $WORK/worker-$worker_name.log"; exit 1; }
      sleep 0.1
    done
    # CPU seconds from the resume to the batch's end: serve, the watchers, Redis.
    run_serve_cpu=$(awk -v a="$serve_cpu0" -v b="$(process_cpu "$SERVE_PID")" 'BEGIN { printf "%.2f", b - a }')
    run_watchers_cpu=0
    [[ -n $watchers_pid ]] && run_watchers_cpu=$(awk -v a="$watchers_cpu0" -v b="$(process_cpu "$watchers_pid")" 'BEGIN { printf "%.2f", b - a }')
    run_redis_cpu=$(awk -v a="$redis_cpu0" -v b="$(redis_cpu)" 'BEGIN { printf "%.2f", b - a }')
    first=$(rcli xrange "$key:events" - + COUNT 1 | head -n 1)
    local status_json value
    status_json=$("$warmer" status --queue "$worker_queue" "$batch")
    value=$(status_field "$status_json" completed) || value=missing
    [[ $value == "$JOBS" ]] || { log "part b: batch $batch completed $value of $JOBS"; echo "$status_json" >&2; exit 1; }
    run_jobs_per_s=$(awk -v n="$JOBS" -v a="${first%%-*}" -v b="$finished" 'BEGIN { printf "%.0f", n * 1000 / (b - a) }')
    warmer_stop
    if [[ -n $watchers_pid ]]; then
      wait "$watchers_pid" || { log "part b: the watchers failed"; exit 1; }
      local length last
      length=$(rcli xlen "$key:events")
      last=$(rcli xrevrange "$key:events" + - COUNT 1 | head -n 1)
      python3 - "$results" "$length" "$first" "$last" "$watchers" <<'EOF' || exit 1
import json, sys
results = json.load(open(sys.argv[1]))
length, first, last, expected = int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
bad = [r for r in results if not (r["count"] == length and r["increasing"] and r["first"] == first
                                  and r["last"] == last and r["completed"])]
hashes = {r["hash"] for r in results}
reconnects = sum(r["reconnects"] for r in results)
if len(results) != expected or bad or len(hashes) != 1:
    print(f"bench: part b: {len(bad)} of {len(results)} watchers without the whole stream ({length} events,"
          f" {first}..{last}); {len(hashes)} different sequences; e.g. {bad[:2]}", file=sys.stderr)
    sys.exit(1)
print(f"bench: part b: {len(results)} watchers each got all {length} events, identical; {reconnects} reconnections",
      file=sys.stderr)
EOF
    fi
    delete_queue "$worker_queue"
  }

  WATCH_RATIOS="" WITH_RATES="" WITHOUT_RATES=""
  for n in $(seq 1 "$RUNS"); do
    watch_run "$n" 0
    without=$run_jobs_per_s without_cpu="serve ${run_serve_cpu}s, redis ${run_redis_cpu}s"
    watch_run "$n" "$WATCHERS"
    with=$run_jobs_per_s
    log "part b, pair $n: $without jobs/s without watchers ($without_cpu of CPU)," \
      "$with jobs/s with $WATCHERS (serve ${run_serve_cpu}s, watchers ${run_watchers_cpu}s, redis ${run_redis_cpu}s)"
    WITHOUT_RATES+="$without " WITH_RATES+="$with " WATCH_RATIOS+="$(ratio "$with" "$without") "
  done
  REPORT+=("$(printf 'b. %d disk-hit jobs, 1 worker: %d jobs/s without watchers, %d jobs/s with %d (medians);
   ratio with/without, median of %d pairs: %s (target: at least 0.95)%s' \
    "$JOBS" "$(median "$WITHOUT_RATES")" "$(median "$WITH_RATES")" "$WATCHERS" "$RUNS" "$(median "$WATCH_RATIOS")" \
    "$( ((PIN)) && echo '; pinned: worker and Redis on CPU 0, serve and watchers on CPU 1' || echo '; not pinned')")")
fi

# --- c. GET /v1/cache against nginx, with wrk ----------------------------------
if [[ $PARTS == *c* ]]; then
  log "part c: warming the corpus into $CACHE"
  "$warmer" warm --cache-dir "$CACHE" --concurrency 16 "$URLS" >"$WORK/warm-corpus.log" 2>&1 ||
    { log "warmer warm failed; see $WORK/warm-corpus.log"; exit 1; }
  first_url=$(head -n 1 "$URLS")
  encode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
  code=$(curl -s -o "$WORK/cache-answer" -w '%{http_code}' "$SERVE_URL/v1/cache?url=$(encode "$first_url")")
  if [[ $code != 200 ]] || ! cmp -s "$WORK/cache-answer" "$CORPUS/$(basename "$first_url")"; then
    log "part c: GET /v1/cache of $first_url answered $code, not its bytes (is the route built?)"
    exit 1
  fi
  # One path per line for the wrk script: the cache route's, and nginx's.
  python3 -c '
import sys, urllib.parse
for line in open(sys.argv[1]):
    print("/v1/cache?url=" + urllib.parse.quote(line.strip(), safe=""))' "$URLS" >"$WORK/paths-serve.txt"
  sed "s|^$ORIGIN_URL||" "$URLS" >"$WORK/paths-nginx.txt"
  cat >"$WORK/paths.lua" <<'EOF'
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local i = math.random(#paths)
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
EOF
  # wrk_rate BASE PATHS: requests/s of one wrk run (2 threads, 32 connections); non-2xx fail the bench.
  wrk_rate() {
    local out
    out=$(WRK_PATHS=$2 wrk -t 2 -c 32 -d "${WRK_SECONDS}s" -s "$WORK/paths.lua" "$1")
    if grep -q "Non-2xx" <<<"$out"; then log "part c: $1 answered errors:"; echo "$out" >&2; exit 1; fi
    awk '/^Requests\/sec:/ { print $2 }' <<<"$out"
  }
  CACHE_RATIOS="" SERVE_RATES="" NGINX_RATES=""
  for n in $(seq 1 "$RUNS"); do
    nginx_rate=$(wrk_rate "$ORIGIN_URL" "$WORK/paths-nginx.txt")
    serve_rate=$(wrk_rate "$SERVE_URL" "$WORK/paths-serve.txt")
    log "part c, pair $n: nginx $nginx_rate requests/s, warmer serve $serve_rate requests/s"
    NGINX_RATES+="$nginx_rate " SERVE_RATES+="$serve_rate " CACHE_RATIOS+="$(ratio "$serve_rate" "$nginx_rate") "
  done
  REPORT+=("$(printf 'c. GET of %d cached images (wrk, 2 threads, 32 connections, %d s): warmer serve %.0f/s, nginx %.0f/s (medians);
   ratio serve/nginx, median of %d pairs: %s' \
    "$COUNT" "$WRK_SECONDS" "$(median "$SERVE_RATES")" "$(median "$NGINX_RATES")" "$RUNS" "$(median "$CACHE_RATIOS")")")
fi

stop_services
printf '\nwarmer serve (%d runs each, interleaved pairs)\n' "$RUNS"
printf '%s\n' "${REPORT[@]}"
