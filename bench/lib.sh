# shellcheck shell=bash
# Shared by the benchmarks in bench/: setup, a timed warmer batch (with a
# fresh worker, or several through one long-lived worker), and interleaved
# reference/warmer pairs with a report. Source it; it expects the repository
# root as the working directory.
#
# Settings (environment): BENCH_COUNT (images, default 300), BENCH_TIMEOUT
# (seconds a warmer batch may take, default 600), BENCH_WARMER (a warmer
# binary to run instead of this tree's release build, which is then not
# built: an A/B of two builds),
# BENCH_WORK (the scratch folder, default bench/.work: give two benchmarks
# run at once folders of their own).

COUNT=${BENCH_COUNT:-300}
CORPUS="$PWD/bench/.corpus"
WORK=${BENCH_WORK:-$PWD/bench/.work}
RUNS=5          # each side runs this many times, interleaved in pairs
PARALLEL=16     # concurrent downloads: curl --parallel-max, warmer --concurrency
WATCH_TIMEOUT=${BENCH_TIMEOUT:-600}

log() { echo "bench: $*" >&2; }
# now: wall-clock seconds with nanoseconds
now() { date +%s.%N; }
# elapsed START END: END - START in seconds, 3 decimals
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# is_running PID: whether PID is alive (a child that died stays a zombie
# until waited for, and `kill -0` still reaches it).
is_running() { [[ -e /proc/$1/stat ]] && [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) != Z ]]; }
# min A B: the smaller of two decimal numbers
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }

# bench_setup: build warmer (release), make the corpus, start nginx and Redis,
# write $URLS. Sets warmer, URLS, and an EXIT trap that stops the services.
bench_setup() {
  scripts/bootstrap.sh
  if [[ -n ${BENCH_WARMER:-} ]]; then
    warmer=$(realpath "$BENCH_WARMER") # given: nothing to build
  else
    log "swift build -c release"
    scripts/swift-build.sh -c release # (every script builds through it: see its header)
    warmer="$(scripts/swift-build.sh -c release --show-bin-path)/warmer"
  fi
  scripts/make-corpus.sh "$CORPUS" "$COUNT"
  rm -rf "$WORK"
  mkdir -p "$WORK"
  # shellcheck source=scripts/services.sh
  source scripts/services.sh
  trap stop_services EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  start_origin "$CORPUS" "$WORK/nginx"
  # The SSRF guard refuses loopback by default: allow the local origin's host.
  export WARMER_ALLOW_HOSTS=127.0.0.1
  start_redis "$WORK/redis"
  export WARMER_REDIS_URL=$REDIS_URL
  URLS="$WORK/urls.txt"
  for file in "$CORPUS"/img-*; do
    echo "$ORIGIN_URL/$(basename "$file")"
  done >"$URLS"
}

# warmer_batch N CACHE [WORKER_ARGS...] -- [ENQUEUE_ARGS...]: start a worker
# with an empty CACHE on a queue of its own, enqueue every URL, wait until
# `warmer watch` reports the batch finished, stop the worker. Sets
# run_seconds and run_rss_kib (the worker's peak resident memory, VmHWM).
# A batch with failures, or not finished in BENCH_TIMEOUT, fails the bench.
# (It sets variables rather than printing: a function run inside "$( )" is a
# subshell, and the EXIT trap could not stop its worker.)
warmer_batch() {
  local n=$1 cache=$2
  shift 2
  local worker_args=() enqueue_args=()
  while (($#)) && [[ $1 != -- ]]; do worker_args+=("$1"); shift; done
  (($#)) && shift
  enqueue_args=("$@")
  warmer_start "$n" "$cache" "${worker_args[@]}"
  warmer_timed_batch "$URLS" "${enqueue_args[@]}"
  warmer_stop
}

# The three steps of warmer_batch, for benchmarks that run several batches
# through one long-lived worker and one cache (bench/http-cache.sh):
#
#   warmer_start NAME CACHE [WORKER_ARGS...]
#   warmer_timed_batch URLS [ENQUEUE_ARGS...]    (as many times as needed)
#   warmer_stop
#
# One worker at a time. Like warmer_batch, they set variables: call them
# directly, not inside "$( )".

# warmer_start NAME CACHE [WORKER_ARGS...]: start `warmer worker
# --concurrency $PARALLEL --cache-dir CACHE $BENCH_WORKER_FLAGS WORKER_ARGS...`
# (BENCH_WORKER_FLAGS: more flags for every worker of a bench, split on
# spaces; bench/overhead.sh sets it) on the queue
# bench-PID-NAME, logging to $WORK/worker-NAME.log. CACHE is created if
# missing and used as it is. Returns once the worker has had a second to
# connect to Redis; a worker that exited by then fails the bench. Sets
# worker_pid, worker_queue and worker_name.
warmer_start() {
  local name=$1 cache=$2
  shift 2
  worker_name=$name
  worker_queue="bench-$$-$name"
  mkdir -p "$cache"
  local extra=()
  read -r -a extra <<<"${BENCH_WORKER_FLAGS:-}"
  "$warmer" worker --queue "$worker_queue" --concurrency "$PARALLEL" --cache-dir "$cache" "${extra[@]}" "$@" \
    >"$WORK/worker-$name.log" 2>&1 &
  worker_pid=$!
  track_process "$worker_pid" "warmer worker"
  sleep 1 # let it connect to Redis and start claiming
  if ! kill -0 "$worker_pid" 2>/dev/null; then
    log "warmer run $name: the worker exited at startup; see $WORK/worker-$name.log"
    tail -n 20 "$WORK/worker-$name.log" >&2
    exit 1
  fi
}

# warmer_timed_batch URLS [ENQUEUE_ARGS...]: enqueue every URL of the file
# URLS on the worker's queue and wait until `warmer watch` reports the batch
# finished. Sets:
#   run_seconds    from just before `warmer enqueue` to the exit of `warmer
#                  watch` (so it includes both commands' start-up)
#   batch_seconds  the batch's own span, from its creation to its last job's
#                  end, as Redis recorded them (`warmer status`: createdAt,
#                  finishedAt; millisecond resolution, Redis' clock)
#   batch_id, batch_events (a file: the batch's events, one JSON line each)
# A batch with failures, or not finished in BENCH_TIMEOUT, fails the bench.
warmer_timed_batch() {
  local urls=$1
  shift
  local start end watch_status=0 status_json
  batch_events=$(mktemp "$WORK/events-$worker_name.XXXX")

  start=$(now)
  batch_id=$("$warmer" enqueue --queue "$worker_queue" "$@" "$urls")
  timeout "$WATCH_TIMEOUT" \
    "$warmer" watch --queue "$worker_queue" --batch "$batch_id" --json >"$batch_events" &
  local watch_pid=$!
  # A worker that dies (a crash) never finishes the batch: stop watching at
  # once rather than wait out BENCH_TIMEOUT.
  (while is_running "$worker_pid"; do sleep 1; done; kill "$watch_pid" 2>/dev/null) &
  local watchdog_pid=$!
  wait "$watch_pid" || watch_status=$?
  end=$(now)
  kill "$watchdog_pid" 2>/dev/null || true
  wait "$watchdog_pid" 2>/dev/null || true

  if ! is_running "$worker_pid"; then
    log "warmer run $worker_name: the worker died during batch $batch_id; its log ends:"
    tail -n 30 "$WORK/worker-$worker_name.log" >&2
    exit 1
  elif ((watch_status == 124)); then
    log "warmer run $worker_name: batch $batch_id not finished after ${WATCH_TIMEOUT}s; see $WORK/worker-$worker_name.log"
    "$warmer" status --queue "$worker_queue" "$batch_id" >&2 || true
    exit 1
  elif ((watch_status != 0)); then
    log "warmer run $worker_name: batch $batch_id had failures (watch exited $watch_status); see $WORK/worker-$worker_name.log"
    "$warmer" status --queue "$worker_queue" "$batch_id" >&2 || true
    exit 1
  fi
  run_seconds=$(elapsed "$start" "$end")
  # `warmer status` prints pretty JSON, one key per line: "createdAt" : 1763...,
  status_json=$("$warmer" status --queue "$worker_queue" "$batch_id")
  # shellcheck disable=SC2034 # read by the caller
  batch_seconds=$(awk '
    /"createdAt"/ { gsub(/[^0-9]/, "", $NF); created = $NF }
    /"finishedAt"/ { gsub(/[^0-9]/, "", $NF); finished = $NF }
    END { if (created == "" || finished == "") exit 1; printf "%.3f", (finished - created) / 1000 }' <<<"$status_json") || {
    log "warmer run $worker_name: no createdAt/finishedAt in the status of batch $batch_id:"
    echo "$status_json" >&2
    exit 1
  }
}

# warmer_stop: read the worker's peak resident memory (VmHWM) into
# run_rss_kib, then stop it (SIGTERM; it finishes or releases its jobs).
warmer_stop() {
  local rss cpu
  rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$worker_pid/status" 2>/dev/null || echo 0)
  # CPU seconds the worker used from its start (utime + stime).
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$worker_pid/stat" 2>/dev/null || echo 0)
  stop_process "$worker_pid"
  run_rss_kib=${rss:-0}
  # shellcheck disable=SC2034 # read by the caller
  run_cpu_seconds=${cpu:-0}
}

# bench_pairs REF_LABEL REF_FUNCTION WARMER_LABEL WARMER_FUNCTION: run RUNS
# interleaved pairs (reference, then warmer: a pair sees the same machine
# conditions, which drift on a shared CPU) and print the report: best
# against best, and the median of the pairs' ratios (the robust figure).
bench_pairs() {
  local ref_label=$1 ref_run=$2 warmer_label=$3 warmer_run=$4
  local ref_best="" warmer_best="" peak_kib=0 ratios=() n ref_seconds median
  for n in $(seq 1 "$RUNS"); do
    "$ref_run" "$n"
    ref_seconds=$run_seconds
    "$warmer_run" "$n"
    log "pair $n: $ref_label ${ref_seconds}s, warmer ${run_seconds}s (peak RSS $((run_rss_kib / 1024)) MiB)"
    ref_best=$(min "${ref_best:-$ref_seconds}" "$ref_seconds")
    warmer_best=$(min "${warmer_best:-$run_seconds}" "$run_seconds")
    ratios+=("$(awk -v r="$ref_seconds" -v w="$run_seconds" 'BEGIN { printf "%.3f", r / w }')")
    if ((run_rss_kib > peak_kib)); then peak_kib=$run_rss_kib; fi
  done
  median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  stop_services
  awk -v count="$COUNT" -v r="$ref_best" -v w="$warmer_best" -v rss="$peak_kib" -v median="$median" \
    -v runs="$RUNS" -v rl="$ref_label" -v wl="$warmer_label" 'BEGIN {
    printf "\n%-40s %6s %9s %9s\n", "", "files", "seconds", "files/s"
    printf "%-40s %6d %9.3f %9.1f\n", rl " (best of " runs ")", count, r, count / r
    printf "%-40s %6d %9.3f %9.1f\n", wl " (best of " runs ")", count, w, count / w
    printf "\nratio (warmer/reference files/s), best against best: %.2f\n", (count / w) / (count / r)
    printf "ratio (warmer/reference files/s), median of interleaved pairs: %.2f\n", median
    printf "warmer worker peak RSS: %.1f MiB\n", rss / 1024
  }'
}

# --- Redis, CPU and disk-hit batches (bench/queue.sh, bench/scale.sh) --------
# These need bench_setup's services (REDIS_PORT, ORIGIN_URL, ORIGIN_LOG).

# rcli ARGS...: redis-cli against the bench's Redis.
rcli() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"; }

# delete_queue NAME: delete every key of queue NAME (docs/wire-format.md:
# they all start with warmer:{NAME}:), so that finished runs do not grow
# Redis for the next ones. One Lua script SCANs and UNLINKs server-side
# (redis-cli 7.0's --scan has no --count, and 10 keys a round trip is slow).
delete_queue() {
  rcli eval "local cursor = '0'
    repeat
      local reply = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000)
      cursor = reply[1]
      for _, key in ipairs(reply[2]) do redis.call('UNLINK', key) end
    until cursor == '0'" 0 "warmer:{$1}:*" >/dev/null
}

# status_field JSON NAME: a number from `warmer status` (pretty JSON, one key
# per line: "completed" : 20000,).
status_field() {
  awk -v key="\"$2\"" '$1 == key { gsub(/[^0-9]/, "", $NF); print $NF; found = 1 } END { exit !found }' <<<"$1"
}

# redis_cpu: seconds of CPU redis-server has used (user + sys, INFO cpu).
redis_cpu() {
  rcli info cpu | tr -d '\r' | awk -F: '/^used_cpu_(user|sys):/ { s += $2 } END { printf "%.3f", s }'
}

# process_cpu PID: seconds of CPU process PID has used (utime + stime).
process_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"
}

# machine_cpu: seconds of CPU the whole machine has been busy, all cores
# (/proc/stat: user, nice, system, irq, softirq, steal).
machine_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.3f", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat
}
CORES=$(nproc)

# wait_quiet PID: wait (at most 10 s) until process PID has used no CPU for
# 0.3 s. A worker's disk cache sweeps 1 s after it opens (and every 30 s),
# stat()ing every file: for 20,000 entries about 0.2 s of CPU, which must not
# fall into the timed window or the enqueue.
wait_quiet() {
  local pid=$1 before after deadline=$((SECONDS + 10))
  after=$(process_cpu "$pid")
  while ((SECONDS < deadline)); do
    sleep 0.3
    before=$after
    after=$(process_cpu "$pid")
    if [[ $before == "$after" ]]; then return 0; fi
  done
}

# best_max LIST / best_min LIST / median LIST: of a space-separated list.
best_max() { tr ' ' '\n' <<<"$1" | grep . | sort -g | tail -n 1; }
best_min() { tr ' ' '\n' <<<"$1" | grep . | sort -g | head -n 1; }
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# corpus_file_by_size N: the corpus file that is Nth smallest (1: the
# smallest). (sed reads all of sort's output: with `head`, sort could die of
# SIGPIPE, which pipefail turns into a silent exit.)
corpus_file_by_size() {
  find "$CORPUS" -maxdepth 1 -name 'img-*' -type f -printf '%s %p\n' | sort -n | sed -n "$1s/^[0-9]* //p"
}

# url_list FILE COUNT [SOURCE [PARAM]]: COUNT distinct URLs of one corpus
# file, ORIGIN/<SOURCE's name>?PARAM=1..COUNT (nginx ignores the query; the
# cache key is the whole URL). SOURCE defaults to $SMALLEST, PARAM to n.
url_list() {
  awk -v base="$ORIGIN_URL/$(basename "${3:-$SMALLEST}")" -v param="${4:-n}" -v n="$2" \
    'BEGIN { for (i = 1; i <= n; i++) print base "?" param "=" i }' >"$1"
}

# warm_cache URLS CACHE: `warmer warm` every URL of the file URLS into the
# disk cache CACHE (no Redis), so that a worker on CACHE finds each one a
# disk hit. A failure fails the bench.
warm_cache() {
  local urls=$1 cache=$2 start
  log "warming $(wc -l <"$urls") URLs into $cache"
  start=$(now)
  if ! "$warmer" warm --cache-dir "$cache" --concurrency 32 "$urls" >"$WORK/warm.log" 2>&1; then
    log "warmer warm failed; see $WORK/warm.log"
    tail -n 5 "$WORK/warm.log" >&2
    exit 1
  fi
  log "$(tail -n 1 "$WORK/warm.log") (wall $(elapsed "$start" "$(now)")s)"
}

# pause_queue NAME / resume_queue NAME: what `warmer pause` and `warmer
# resume` write (docs/wire-format.md, `config`), straight from redis-cli, so
# that no process start-up falls into a timed window.
pause_queue() { rcli hset "warmer:{$1}:config" paused 1 >/dev/null; }
resume_queue() {
  rcli eval "redis.call('HDEL', KEYS[1], 'paused') redis.call('RPUSH', KEYS[2], 'wake')" 2 \
    "warmer:{$1}:config" "warmer:{$1}:intake" >/dev/null
}

# check_counters QUEUE BATCH N: `warmer status` of the batch must read total =
# completed = N, no failed, cancelled or dead; prints the status JSON.
check_counters() {
  local queue=$1 batch=$2 n=$3 status_json field value expected
  status_json=$("$warmer" status --queue "$queue" "$batch")
  for field in total completed failed cancelled dead; do
    case $field in
      total | completed) expected=$n ;;
      *) expected=0 ;;
    esac
    value=$(status_field "$status_json" "$field") || value=missing
    if [[ $value != "$expected" ]]; then
      log "batch $batch on $queue: $field is $value (expected total = completed = $n, no failed, cancelled or dead):"
      echo "$status_json" >&2
      exit 1
    fi
  done
  echo "$status_json"
}

# disk_hit_batch URLS COUNT running|paused [ENQUEUE_ARGS...]: with the
# worker of warmer_start running on a cache that holds every URL of the file
# URLS (COUNT lines; see warm_cache), enqueue URLS as one batch and wait for
# its finishedAt (set in Redis by the finish script of its last job).
#   running: the worker starts on the first 2,000-URL chunk while the rest
#            is still being enqueued; the clock runs from the moment `warmer
#            enqueue` returns, and the jobs that ended before (run_early) are
#            reported, not counted (bench/queue.sh).
#   paused:  the queue is paused for the enqueue and resumed when the clock
#            starts, so every job counts (run_early is 0) and the worker
#            never sees the batch half-enqueued (bench/scale.sh).
# Fails the bench on counters other than total = completed = COUNT, or on
# any request for the URLS' path reaching the origin (every job must be a
# disk hit). Sets batch_id; run_seconds (clock start to finishedAt),
# run_jobs_per_s (the counted jobs over it), run_batch_jobs_per_s (COUNT
# over createdAt to finishedAt), run_early, run_enqueue_seconds; the CPU the
# worker and Redis used per counted job in the window (run_worker_us,
# run_redis_us); and the share of all cores that the worker, Redis and
# everything else on the machine used in it (run_worker_pct, run_redis_pct,
# run_other_pct: another job on a shared machine shows up in the last).
# shellcheck disable=SC2034 # the run_* figures are read by the caller
disk_hit_batch() {
  local urls=$1 jobs=$2 mode=$3
  shift 3
  local start finished created enqueue_start enqueue_end batch_key early status_json field value expected counted
  local worker_cpu0 redis_cpu0 machine_cpu0 worker_cpu redis_cpu machine_cpu seen requests_before requests deadline path
  local label="run $worker_name"
  sleep 0.5 # the cache's first sweep starts about 1 s after the worker
  wait_quiet "$worker_pid"
  requests_before=$(wc -l <"$ORIGIN_LOG")

  if [[ $mode == paused ]]; then pause_queue "$worker_queue"; fi
  enqueue_start=$(now)
  batch_id=$("$warmer" enqueue --queue "$worker_queue" "$@" "$urls")
  enqueue_end=$(now)
  batch_key="warmer:{$worker_queue}:batch:$batch_id"
  if [[ $mode == paused ]]; then
    wait_quiet "$worker_pid" # woken by the enqueue, it found the queue paused
    # The finish script of the batch's last job EXPIREs the batch hash: with
    # keyspace events of class g on, that is the one message on the hash's
    # channel from here on (job ends write it with HINCRBY, class h).
    rcli config set notify-keyspace-events Kg >/dev/null
    coproc FINISH_WATCH { rcli subscribe "__keyspace@0__:$batch_key"; }
    local line n
    for n in 1 2 3; do read -r -t 10 line <&"${FINISH_WATCH[0]}"; done # subscribe, channel, 1
    # The CPU counters are read before the resume: the jobs start at once.
    start=$(now)
    early=0
    worker_cpu0=$(process_cpu "$worker_pid")
    redis_cpu0=$(redis_cpu)
    machine_cpu0=$(machine_cpu)
    resume_queue "$worker_queue"
  else
    start=$(now)
    early=$(rcli hget "$batch_key" completed)
    worker_cpu0=$(process_cpu "$worker_pid")
    redis_cpu0=$(redis_cpu)
    machine_cpu0=$(machine_cpu)
  fi

  # Wait for the batch's finishedAt. paused: the keyspace message wakes us
  # at once (the notification costs Redis next to nothing). running (as
  # bench/queue.sh always did): a redis-cli HGET every 0.1 s; `warmer
  # watch` would replay and print every event, and `warmer status` would
  # start a Swift process each time, both on the cores the worker and Redis
  # need. The end of the window is finishedAt itself, not when we notice it.
  deadline=$((SECONDS + WATCH_TIMEOUT))
  until finished=$(rcli hget "$batch_key" finishedAt) && [[ -n $finished ]]; do
    if ((SECONDS >= deadline)); then
      log "$label: batch $batch_id not finished after ${WATCH_TIMEOUT}s; see $WORK/worker-$worker_name.log"
      "$warmer" status --queue "$worker_queue" "$batch_id" >&2 || true
      exit 1
    fi
    if ! kill -0 "$worker_pid" 2>/dev/null; then
      log "$label: the worker exited; see $WORK/worker-$worker_name.log"
      tail -n 20 "$WORK/worker-$worker_name.log" >&2
      exit 1
    fi
    if [[ $mode == paused ]]; then
      read -r -t 1 line <&"${FINISH_WATCH[0]}" || true
    else
      sleep 0.1
    fi
  done
  # DISK_HIT_FINISHED (a command, optional) runs at once, before the CPU
  # counters are read: bench/scale.sh pauses a queue that holds other work.
  if [[ -n ${DISK_HIT_FINISHED:-} ]]; then $DISK_HIT_FINISHED; fi
  seen=$(now)
  worker_cpu=$(awk -v a="$worker_cpu0" -v b="$(process_cpu "$worker_pid")" 'BEGIN { print b - a }')
  redis_cpu=$(awk -v a="$redis_cpu0" -v b="$(redis_cpu)" 'BEGIN { print b - a }')
  machine_cpu=$(awk -v a="$machine_cpu0" -v b="$(machine_cpu)" 'BEGIN { print b - a }')
  if [[ $mode == paused ]]; then
    kill "$FINISH_WATCH_PID" 2>/dev/null || true
    wait "$FINISH_WATCH_PID" 2>/dev/null || true
  fi
  counted=$((jobs - early))
  run_worker_us=$(awk -v c="$worker_cpu" -v n="$counted" 'BEGIN { printf "%.0f", c * 1e6 / n }')
  run_redis_us=$(awk -v c="$redis_cpu" -v n="$counted" 'BEGIN { printf "%.0f", c * 1e6 / n }')
  # Shares of the machine (all cores) from the clock's start to when the
  # loop above saw the batch finished.
  read -r run_worker_pct run_redis_pct run_other_pct < <(awk -v w="$worker_cpu" -v r="$redis_cpu" -v m="$machine_cpu" \
    -v t="$(elapsed "$start" "$seen")" -v cores="$CORES" 'BEGIN {
      all = t * cores / 100
      o = (m - w - r) / all
      printf "%.0f %.0f %.0f\n", w / all, r / all, (o > 0) ? o : 0 }')

  # The counters, as `warmer status` reports them.
  status_json=$(check_counters "$worker_queue" "$batch_id" "$jobs")
  # Every job must have been a cache hit: no request for the URLs' path
  # reached the origin (the access log has the path without the query).
  path=$(head -n 1 "$urls" | sed -E 's#^[a-z]+://[^/]+##; s#\?.*##')
  requests=$(tail -n +"$((requests_before + 1))" "$ORIGIN_LOG" | awk -v p="$path" '$2 == p' | wc -l)
  if ((requests != 0)); then
    log "$label: $requests requests for $path reached the origin; the jobs were not all cache hits"
    exit 1
  fi

  created=$(status_field "$status_json" createdAt)
  run_early=$early
  run_enqueue_seconds=$(elapsed "$enqueue_start" "$enqueue_end")
  run_seconds=$(awk -v s="$start" -v f="$finished" 'BEGIN { printf "%.3f", f / 1000 - s }')
  run_jobs_per_s=$(awk -v n="$counted" -v t="$run_seconds" 'BEGIN { printf "%.0f", n / t }')
  run_batch_jobs_per_s=$(awk -v n="$jobs" -v c="$created" -v f="$finished" 'BEGIN { printf "%.0f", n * 1000 / (f - c) }')
}

# drain_queue QUEUE JOBS: resume the paused QUEUE and wait until nothing is
# queued, running or delayed; sets drain_seconds and drain_redis_us
# (redis-server CPU per job, over JOBS). Needs a running worker (worker_pid).
drain_queue() {
  local queue=$1 jobs=$2 start cpu0 end left deadline=$((SECONDS + WATCH_TIMEOUT))
  wait_quiet "$worker_pid"
  cpu0=$(redis_cpu)
  start=$(now)
  resume_queue "$queue"
  while :; do
    left=$(rcli eval "return redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])" \
      3 "warmer:{$queue}:queue" "warmer:{$queue}:leases" "warmer:{$queue}:delayed")
    ((left == 0)) && break
    if ((SECONDS > deadline)); then log "queue $queue not drained after ${WATCH_TIMEOUT}s"; exit 1; fi
    sleep 0.05
  done
  end=$(now)
  drain_seconds=$(elapsed "$start" "$end")
  drain_redis_us=$(awk -v a="$cpu0" -v b="$(redis_cpu)" -v n="$jobs" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }')
}
