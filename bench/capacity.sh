#!/usr/bin/env bash
# Capacity figures for docs/capacity.md: how the queue scales with worker
# processes against one Redis, and what one job costs a worker and Redis per
# destination and image size class.
#
#   bench/capacity.sh                           (or: make bench-capacity)
#   BENCH_CAPACITY_JOBS=40000        disk-hit jobs in the scaling batch (default 40000)
#   BENCH_CAPACITY_WORKERS="1 2 4"   worker process counts to run (default "1 2 4")
#   BENCH_CAPACITY_RUNS=3            runs per worker count (default 3)
#   BENCH_CAPACITY_CONCURRENCY=64    --concurrency of each scaling worker (default 64)
#   BENCH_CLASS_IMAGES=100           images in the small and medium corpora (large: half)
#   BENCH_CLASS_JOBS=1000            jobs per small and medium batch (default 1000)
#   BENCH_CLASS_LARGE_JOBS=200       jobs per large batch (default BENCH_CLASS_JOBS / 5)
#   BENCH_CLASS_CONCURRENCY=4        --concurrency of the size-class worker (default 4)
#   BENCH_CLASS_RUNS=3               runs per class and destination (default 3; median)
#   BENCH_CAPACITY_PARTS="queue classes"   the parts to run (default both)
#   BENCH_TIMEOUT=600                seconds a batch may take
#
# 1. Queue scaling. N distinct URLs, ORIGIN/<smallest corpus file>?n=1..N,
#    are warmed once into one cache with `warmer warm` (no Redis), as
#    bench/queue.sh does. Then for each W, RUNS times: W `warmer worker`
#    processes on one fresh queue, all with that cache, get the list as one
#    batch. Every job is a disk hit, so what is measured is the queue. jobs/s
#    counts the jobs that ended between `warmer enqueue`'s return and the
#    batch's finishedAt. CPU per job (Redis, all workers) is taken from just
#    before `warmer enqueue` to the end, over all N jobs (so Redis' share of
#    enqueueing is in it). The shares of the CPU (Redis of one core; workers,
#    Redis, everything else, of the whole machine) are over the window after
#    enqueue's return: Redis runs commands on one thread, so near 100% of one
#    core it is the limit; near 100% of the machine the cores are.
# 2. Size classes. Three corpora of JPEGs cropped from one fractal-noise
#    colour image (photo-like, as scripts/make-corpus.sh makes them), kept in
#    bench/.corpus-classes: small 320x240, medium 1600x1200, large 4000x3000
#    (12 MP). For each class and destination (disk; processed: a 320-px JPEG
#    thumbnail, as bench/processed.sh) one worker with --concurrency 4 and an
#    empty cache gets one batch of BENCH_CLASS_JOBS distinct URLs, the class'
#    images in turn with ?r=1..N (nginx ignores the query; each URL is a
#    download and, processed, a decode and encode of its own: a batch long
#    against the 10 ms ticks of /proc/PID/stat). Reported per job (median of
#    BENCH_CLASS_RUNS): worker CPU (utime + stime from /proc/PID/stat, from
#    before enqueue to the end), Redis CPU, bytes from the origin and bytes
#    in the cache; and jobs/s (createdAt to finishedAt).
#
# Correctness fails the bench: counters other than completed = N, any origin
# request during part 1, fewer origin requests than jobs in part 2, a
# processed result that is not a JPEG of at most 320 px.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

JOBS=${BENCH_CAPACITY_JOBS:-40000}
WORKER_COUNTS=${BENCH_CAPACITY_WORKERS:-1 2 4}
RUNS=${BENCH_CAPACITY_RUNS:-3}
SCALE_CONCURRENCY=${BENCH_CAPACITY_CONCURRENCY:-64}
CLASS_COUNT=${BENCH_CLASS_IMAGES:-100}
LARGE_COUNT=$(((CLASS_COUNT + 1) / 2))
CLASS_JOBS=${BENCH_CLASS_JOBS:-1000}
LARGE_JOBS=${BENCH_CLASS_LARGE_JOBS:-$(((CLASS_JOBS + 4) / 5))}
CLASS_CONCURRENCY=${BENCH_CLASS_CONCURRENCY:-4}
CLASS_RUNS=${BENCH_CLASS_RUNS:-3}
PARTS=${BENCH_CAPACITY_PARTS:-queue classes}
CLASS_ROOT="$PWD/bench/.corpus-classes"
CORES=$(nproc)
SATURATED=85 # percent: at or above it, Redis (of one core) or the machine is the limit

has_part() { [[ " $PARTS " == *" $1 "* ]]; }

bench_setup

# --- Helpers ------------------------------------------------------------------
# start_workers COUNT QUEUE CACHE NAME [WORKER_ARGS...]: COUNT `warmer worker`
# processes on QUEUE, all with the cache folder CACHE, logging to
# $WORK/worker-NAME-I.log. Sets WORKER_PIDS and WORKER_LOGS. Returns once
# they have had a second to connect; one that exited by then fails the bench.
start_workers() {
  local count=$1 queue=$2 cache=$3 name=$4 i pid
  shift 4
  WORKER_PIDS=() WORKER_LOGS=()
  mkdir -p "$cache"
  for ((i = 1; i <= count; i++)); do
    "$warmer" worker --queue "$queue" --cache-dir "$cache" "$@" >"$WORK/worker-$name-$i.log" 2>&1 &
    pid=$!
    track_process "$pid" "warmer worker"
    WORKER_PIDS+=("$pid") WORKER_LOGS+=("$WORK/worker-$name-$i.log")
  done
  sleep 1
  workers_alive "at startup"
}

# workers_alive WHEN: fail the bench, with the log's end, if a worker of
# WORKER_PIDS has exited (WHEN: "at startup", "during batch ID").
workers_alive() {
  local i
  for i in "${!WORKER_PIDS[@]}"; do
    if ! is_running "${WORKER_PIDS[i]}"; then
      log "a worker exited $1; its log ends (${WORKER_LOGS[i]}):"
      tail -n 20 "${WORKER_LOGS[i]}" >&2
      exit 1
    fi
  done
}

# stop_workers: SIGTERM every worker of start_workers and wait for it.
stop_workers() {
  local pid
  for pid in "${WORKER_PIDS[@]}"; do stop_process "$pid"; done
  WORKER_PIDS=()
}

# workers_cpu: CPU seconds all workers of start_workers have used.
workers_cpu() {
  local pid total=0
  for pid in "${WORKER_PIDS[@]}"; do
    total=$(awk -v a="$total" -v b="$(process_cpu "$pid")" 'BEGIN { print a + b }')
  done
  echo "$total"
}

# workers_quiet: wait_quiet for every worker (their first cache sweep).
workers_quiet() {
  local pid
  sleep 0.5 # the first sweep starts about 1 s after a worker
  for pid in "${WORKER_PIDS[@]}"; do wait_quiet "$pid"; done
}

# wait_finished QUEUE BATCH: wait until the batch has finishedAt (a redis-cli
# HGET every 0.1 s costs next to nothing) and print it (ms, Redis' clock).
# A worker that dies, or BENCH_TIMEOUT, fails the bench.
wait_finished() {
  local queue=$1 batch=$2 finished i deadline=$((SECONDS + WATCH_TIMEOUT))
  until finished=$(rcli hget "warmer:{$queue}:batch:$batch" finishedAt) && [[ -n $finished ]]; do
    if ((SECONDS >= deadline)); then
      log "batch $batch on $queue not finished after ${WATCH_TIMEOUT}s"
      "$warmer" status --queue "$queue" "$batch" >&2 || true
      exit 1
    fi
    workers_alive "during batch $batch"
    sleep 0.1
  done
  echo "$finished"
}


# calc EXPRESSION VAR=VALUE...: print an awk expression's value (10
# significant digits; a comparison prints 1 or 0).
calc() {
  local expr=$1 args=() kv
  shift
  for kv in "$@"; do args+=(-v "$kv"); done
  awk -v OFMT=%.10g "${args[@]}" "BEGIN { print ($expr) }"
}

# --- 1. Queue scaling: W workers, one Redis, disk hits ------------------------
declare -A Q_RATE=() Q_REDIS_US=() Q_WORKER_US=() Q_REDIS_CORE=() Q_MACHINE=() Q_WORKERS_PCT=() Q_REDIS_PCT=() Q_OTHER_PCT=()

# scale_run W N: one run of part 1 with W workers; appends its figures to the
# Q_* lists of W.
scale_run() {
  local w=$1 n=$2 queue="bench-$$-w$1-$2" batch_id start seen finished early requests_before requests
  local w0 r0 m0 w1 r1 m1 w2 r2 m2 window rate redis_us worker_us redis_core machine workers_pct redis_pct other_pct
  start_workers "$w" "$queue" "$SCALE_CACHE" "w$w-$n" --concurrency "$SCALE_CONCURRENCY"
  workers_quiet
  requests_before=$(wc -l <"$ORIGIN_LOG")

  w0=$(workers_cpu) r0=$(redis_cpu) m0=$(machine_cpu)
  batch_id=$("$warmer" enqueue --queue "$queue" "$SCALE_URLS")
  start=$(now)
  w1=$(workers_cpu) r1=$(redis_cpu) m1=$(machine_cpu)
  early=$(rcli hget "warmer:{$queue}:batch:$batch_id" completed)
  finished=$(wait_finished "$queue" "$batch_id")
  seen=$(now)
  w2=$(workers_cpu) r2=$(redis_cpu) m2=$(machine_cpu)

  check_counters "$queue" "$batch_id" "$JOBS" >/dev/null
  requests=$(($(wc -l <"$ORIGIN_LOG") - requests_before))
  if ((requests != 0)); then
    log "scaling run W=$w #$n: $requests requests reached the origin; the jobs were not all cache hits, e.g.:"
    tail -n "$requests" "$ORIGIN_LOG" | head -n 5 >&2
    exit 1
  fi
  stop_workers
  delete_queue "$queue"

  rate=$(calc 'n / (f / 1000 - s)' n="$((JOBS - early))" f="$finished" s="$start")
  redis_us=$(calc 'c * 1e6 / n' c="$(calc 'b - a' a="$r0" b="$r2")" n="$JOBS")
  worker_us=$(calc 'c * 1e6 / n' c="$(calc 'b - a' a="$w0" b="$w2")" n="$JOBS")
  window=$(elapsed "$start" "$seen")
  redis_core=$(calc '(b - a) * 100 / t' a="$r1" b="$r2" t="$window")
  machine=$(calc '(b - a) * 100 / (t * c)' a="$m1" b="$m2" t="$window" c="$CORES")
  workers_pct=$(calc '(b - a) * 100 / (t * c)' a="$w1" b="$w2" t="$window" c="$CORES")
  redis_pct=$(calc '(b - a) * 100 / (t * c)' a="$r1" b="$r2" t="$window" c="$CORES")
  other_pct=$(calc '(m > w + r) ? m - w - r : 0' m="$machine" w="$workers_pct" r="$redis_pct")
  log "W=$w run $n: $((JOBS - early)) jobs after enqueue ($early before) at $(printf %.0f "$rate") jobs/s;" \
    "per job: redis $(printf %.1f "$redis_us") us, workers $(printf %.1f "$worker_us") us;" \
    "redis $(printf %.0f "$redis_core")% of one core; machine $(printf %.0f "$machine")% busy" \
    "(workers $(printf %.0f "$workers_pct")%, redis $(printf %.0f "$redis_pct")%, other $(printf %.0f "$other_pct")%)"
  Q_RATE[$w]+="$rate " Q_REDIS_US[$w]+="$redis_us " Q_WORKER_US[$w]+="$worker_us "
  Q_REDIS_CORE[$w]+="$redis_core " Q_MACHINE[$w]+="$machine "
  Q_WORKERS_PCT[$w]+="$workers_pct " Q_REDIS_PCT[$w]+="$redis_pct " Q_OTHER_PCT[$w]+="$other_pct "
}

if has_part queue; then
  # (sed reads all of sort's output: with `head`, sort could die of SIGPIPE.)
  SMALLEST=$(find "$CORPUS" -maxdepth 1 -name 'img-*' -type f -printf '%s %p\n' | sort -n | sed -n '1s/^[0-9]* //p')
  SCALE_URLS="$WORK/urls-scale.txt"
  SCALE_CACHE="$WORK/cache-scale"
  awk -v base="$ORIGIN_URL/$(basename "$SMALLEST")" -v n="$JOBS" \
    'BEGIN { for (i = 1; i <= n; i++) print base "?n=" i }' >"$SCALE_URLS"
  log "warming $JOBS URLs of $(basename "$SMALLEST") into $SCALE_CACHE"
  if ! "$warmer" warm --cache-dir "$SCALE_CACHE" --concurrency 32 "$SCALE_URLS" >"$WORK/warm.log" 2>&1; then
    log "warmer warm failed; see $WORK/warm.log"
    tail -n 5 "$WORK/warm.log" >&2
    exit 1
  fi
  for w in $WORKER_COUNTS; do
    for n in $(seq 1 "$RUNS"); do scale_run "$w" "$n"; done
  done
fi

# --- 2. Size classes: CPU per job, disk and processed -------------------------
# The classes: name, width, height.
CLASSES=("small 320 240" "medium 1600 1200" "large 4000 3000")
BASE_SIZE=4096

# make_class_corpora: bench/.corpus-classes/CLASS/img-NNNN.jpg for each class
# (kept while a class holds at least the wanted count; a batch takes the
# first ones). Each image is a crop at its
# own offset of one 4096x4096 fractal-noise colour image with grain (made
# once, about 10 s), saved as JPEG Q=85; two crops at a time.
make_class_corpora() {
  local spec name width height count dir base="" i
  for spec in "${CLASSES[@]}"; do
    read -r name width height <<<"$spec"
    count=$CLASS_COUNT
    [[ $name == large ]] && count=$LARGE_COUNT
    dir="$CLASS_ROOT/$name"
    mkdir -p "$dir"
    if (($(find "$dir" -maxdepth 1 -name 'img-*.jpg' | wc -l) >= count)); then continue; fi
    find "$dir" -maxdepth 1 -name '*img-*.jpg' -delete
    if [[ -z $base ]]; then
      base="$WORK/class-base.v"
      log "rendering the ${BASE_SIZE}x$BASE_SIZE base image of the size classes"
      vips fractsurf "$WORK/cb-surface.v" "$BASE_SIZE" "$BASE_SIZE" 2.4
      vips scale "$WORK/cb-surface.v" "$WORK/cb-grey.v"
      vips falsecolour "$WORK/cb-grey.v" "$WORK/cb-colour.v"
      vips gaussnoise "$WORK/cb-noise.v" "$BASE_SIZE" "$BASE_SIZE" --sigma 6 --mean 0
      vips add "$WORK/cb-colour.v" "$WORK/cb-noise.v" "$WORK/cb-sum.v"
      vips cast "$WORK/cb-sum.v" "$base" uchar
      rm -f "$WORK"/cb-*.v
    fi
    log "making $count ${width}x$height JPEGs in $dir"
    for ((i = 1; i <= count; i++)); do
      printf '%s %s %d %d %d %d\n' "$dir/.tmp-img-$i.jpg" "$(printf '%s/img-%04d.jpg' "$dir" "$i")" \
        $(((i * 37) % (BASE_SIZE - width))) $(((i * 53) % (BASE_SIZE - height))) "$width" "$height"
    done | xargs -P 2 -L 1 sh -c 'vips crop "$0" "$1[Q=85,strip]" "$3" "$4" "$5" "$6" && mv -f "$1" "$2"' "$base"
  done
  rm -f "$WORK/class-base.v"
}

declare -A C_CPU_MS=() C_RATE=() C_REDIS_US=() C_ORIGIN_BYTES=() C_CACHE_BYTES=()

# class_run CLASS DESTINATION N: one worker, --concurrency CLASS_CONCURRENCY,
# empty cache, one batch of every image of CLASS; appends to the C_* lists.
class_run() {
  local class=$1 dest=$2 n=$3 queue="bench-$$-$1-$2-$3" cache="$WORK/cache-$1-$2-$3"
  local urls="$WORK/urls-$1.txt" count batch_id finished status_json created requests_before requests
  local w0 r0 w1 r1 origin_bytes cache_bytes enqueue_args=(--destination "$dest") path url width
  [[ $dest == processed ]] && enqueue_args+=(--thumbnail 320 --format jpeg)
  count=$(wc -l <"$urls")
  rm -rf "$cache"
  start_workers 1 "$queue" "$cache" "$class-$dest-$n" --concurrency "$CLASS_CONCURRENCY"
  workers_quiet
  requests_before=$(wc -l <"$ORIGIN_LOG")
  w0=$(workers_cpu) r0=$(redis_cpu)
  batch_id=$("$warmer" enqueue --queue "$queue" "${enqueue_args[@]}" "$urls")
  finished=$(wait_finished "$queue" "$batch_id")
  w1=$(workers_cpu) r1=$(redis_cpu)
  status_json=$(check_counters "$queue" "$batch_id" "$count")
  created=$(status_field "$status_json" createdAt)

  requests=$(($(wc -l <"$ORIGIN_LOG") - requests_before))
  if ((requests < count)); then
    log "$class $dest run $n: $requests origin requests for $count jobs on an empty cache"
    exit 1
  fi
  origin_bytes=$(tail -n "$requests" "$ORIGIN_LOG" | awk '{ s += $4 } END { printf "%.0f", s }')
  if [[ $dest == processed ]]; then
    # The last URL's result must be a JPEG at most 320 px wide.
    url=$(tail -n 1 "$urls")
    if ! path=$(WARMER_CACHE_DIR=$cache "$warmer" cache path --thumbnail 320 --format jpeg "$url"); then
      log "$class processed run $n: no thumbnail of $url in $cache"
      exit 1
    fi
    width=$(vipsheader -f width "$path")
    if ((width > 320)) || [[ $(vipsheader -f vips-loader "$path") != jpegload ]]; then
      log "$class processed run $n: $path is not a JPEG thumbnail ($(vipsheader "$path"))"
      exit 1
    fi
  fi
  stop_workers
  cache_bytes=$(du -sb "$cache" | awk '{ print $1 }')
  delete_queue "$queue"
  rm -rf "$cache"

  C_CPU_MS["$class $dest"]+="$(calc '(b - a) * 1000 / n' a="$w0" b="$w1" n="$count") "
  C_REDIS_US["$class $dest"]+="$(calc '(b - a) * 1e6 / n' a="$r0" b="$r1" n="$count") "
  C_RATE["$class $dest"]+="$(calc 'n * 1000 / (f - c)' n="$count" f="$finished" c="$created") "
  C_ORIGIN_BYTES["$class $dest"]+="$(calc 'b / n' b="$origin_bytes" n="$count") "
  C_CACHE_BYTES["$class $dest"]+="$(calc 'b / n' b="$cache_bytes" n="$count") "
  log "$class $dest run $n: $count jobs; worker CPU $(printf %.1f "$(calc '(b - a) * 1000 / n' a="$w0" b="$w1" n="$count")") ms/job," \
    "$(printf %.0f "$(calc 'n * 1000 / (f - c)' n="$count" f="$finished" c="$created")") jobs/s"
}

if has_part classes; then
  make_class_corpora
  start_origin "$CLASS_ROOT" "$WORK/nginx-classes"
  for spec in "${CLASSES[@]}"; do
    read -r name _ _ <<<"$spec"
    count=$CLASS_COUNT jobs=$CLASS_JOBS
    [[ $name == large ]] && count=$LARGE_COUNT jobs=$LARGE_JOBS
    # The first COUNT images in turn, JOBS distinct URLs. (awk reads all of
    # sort's output, so sort cannot die of SIGPIPE.)
    find "$CLASS_ROOT/$name" -maxdepth 1 -name 'img-*.jpg' -printf '%f\n' | sort |
      awk -v base="$ORIGIN_URL/$name" -v n="$count" -v jobs="$jobs" '
        NR <= n { image[NR] = $0 }
        END { m = (NR < n) ? NR : n; for (j = 1; j <= jobs; j++) print base "/" image[(j - 1) % m + 1] "?r=" j }' >"$WORK/urls-$name.txt"
    for dest in disk processed; do
      for n in $(seq 1 "$CLASS_RUNS"); do class_run "$name" "$dest" "$n"; done
    done
  done
fi
stop_services

# --- Report -------------------------------------------------------------------
if has_part queue; then
  printf '\n1. queue scaling: %d disk-hit jobs, W workers x --concurrency %d, one Redis, %d cores; %d runs each (median; jobs/s also best)\n' \
    "$JOBS" "$SCALE_CONCURRENCY" "$CORES" "$RUNS"
  printf '%3s %9s %9s %10s %11s %12s %9s %9s %9s %9s\n' W "jobs/s" "best" "redis" "redis %" "workers" "machine" "workers" "redis" "other"
  printf '%3s %9s %9s %10s %11s %12s %9s %9s %9s %9s\n' "" median "" "us/job" "one core" "us/job" "busy %" "% mach." "% mach." "% mach."
  for w in $WORKER_COUNTS; do
    printf '%3d %9.0f %9.0f %10.1f %11.0f %12.1f %9.0f %9.0f %9.0f %9.0f\n' "$w" \
      "$(median "${Q_RATE[$w]}")" "$(best_max "${Q_RATE[$w]}")" "$(median "${Q_REDIS_US[$w]}")" \
      "$(median "${Q_REDIS_CORE[$w]}")" "$(median "${Q_WORKER_US[$w]}")" "$(median "${Q_MACHINE[$w]}")" \
      "$(median "${Q_WORKERS_PCT[$w]}")" "$(median "${Q_REDIS_PCT[$w]}")" "$(median "${Q_OTHER_PCT[$w]}")"
  done
  printf '\nwhat limits each run (medians; saturated at %d%%):\n' "$SATURATED"
  for w in $WORKER_COUNTS; do
    redis_core=$(median "${Q_REDIS_CORE[$w]}") machine=$(median "${Q_MACHINE[$w]}")
    if (($(calc 'r >= s' r="$redis_core" s="$SATURATED"))); then
      limit=$(printf 'redis at %.0f%% of one core: the single-threaded Redis is the limit' "$redis_core")
    elif (($(calc 'm >= s' m="$machine" s="$SATURATED"))); then
      limit=$(printf 'all %d cores busy (%.0f%%): workers %.0f%%, redis %.0f%%, other %.0f%% of the machine; CPU, not the queue, is the limit (redis at %.0f%% of one core)' \
        "$CORES" "$machine" "$(median "${Q_WORKERS_PCT[$w]}")" "$(median "${Q_REDIS_PCT[$w]}")" "$(median "${Q_OTHER_PCT[$w]}")" "$redis_core")
    else
      limit=$(printf 'neither redis (%.0f%% of one core) nor the cores (%.0f%%) saturated: round trips and concurrency are the limit' "$redis_core" "$machine")
    fi
    other=$(median "${Q_OTHER_PCT[$w]}")
    if (($(calc 'o >= 10' o="$other"))); then
      limit+=$(printf '; other processes took %.0f%% of the machine: rerun on a quiet one' "$other")
    fi
    printf '  W=%d: %s\n' "$w" "$limit"
  done
fi

if has_part classes; then
  printf '\n2. CPU per job by size class: one worker, --concurrency %d, empty cache; %d run(s) each (median)\n' "$CLASS_CONCURRENCY" "$CLASS_RUNS"
  printf '%-28s %10s %10s %12s %12s %10s\n' "" "worker CPU" "jobs/s" "redis" "origin" "cache"
  printf '%-28s %10s %10s %12s %12s %10s\n' "class, destination" "ms/job" "" "us/job" "KiB/job" "KiB/job"
  if has_part queue; then
    first_w=${WORKER_COUNTS%% *}
    printf '%-28s %10.3f %10.0f %12.1f %12s %10s\n' "disk hit (part 1, W=$first_w)" \
      "$(calc 'u / 1000' u="$(median "${Q_WORKER_US[$first_w]}")")" "$(median "${Q_RATE[$first_w]}")" \
      "$(median "${Q_REDIS_US[$first_w]}")" 0 -
  fi
  for spec in "${CLASSES[@]}"; do
    read -r name width height <<<"$spec"
    for dest in disk processed; do
      key="$name $dest"
      printf '%-28s %10.1f %10.0f %12.1f %12.0f %10.0f\n' "$name ${width}x$height, $dest" \
        "$(median "${C_CPU_MS[$key]}")" "$(median "${C_RATE[$key]}")" "$(median "${C_REDIS_US[$key]}")" \
        "$(calc 'b / 1024' b="$(median "${C_ORIGIN_BYTES[$key]}")")" "$(calc 'b / 1024' b="$(median "${C_CACHE_BYTES[$key]}")")"
    done
  done
  printf '(processed: a 320-px JPEG thumbnail, --thumbnail 320 --format jpeg; cache KiB/job: du of the cache folder)\n'
fi
