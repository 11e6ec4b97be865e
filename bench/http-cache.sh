#!/usr/bin/env bash
# HTTP cache mode: re-warming an already-warm corpus against warming it the
# first time, through one long-lived worker (`--cache-mode http`).
#
#   bench/http-cache.sh                    (or: make bench-http-cache)
#   BENCH_COUNT=1000 bench/http-cache.sh   (default 300 images)
#   BENCH_PROCESSED=0 bench/http-cache.sh  (skip the processed variant)
#   BENCH_ORIGIN_RATE=100k bench/http-cache.sh  (a slow origin: nginx sends
#                                          the first 100 KB of a body at once,
#                                          then 100 KB/s per connection;
#                                          default: loopback at full speed)
#   BENCH_TIMEOUT=600                      (seconds a warmer batch may take)
#
# The origin (nginx, scripts/services.sh) serves the corpus under two
# prefixes: /fresh/NAME with `Cache-Control: max-age=86400`, and
# /revalidate/NAME with `Cache-Control: no-cache`, so that every use of a
# stored entry asks the origin, which answers 304 (nginx's ETag).
#
# Each run, for each scenario, starts a worker with an empty cache
# (`--cache-mode http` unless said otherwise) and times two batches of the
# whole corpus through it: the first warming, then the re-warm on the cache
# the first filled (the worker stays up between them: its start-up is not
# timed). The scenarios, each run five times (RUNS in bench/lib.sh):
#
#   fresh        first warming of /fresh/ URLs (200s), then a re-warm: every
#                entry is fresh, so there must be no request at all
#   revalidate   first warming of /revalidate/ URLs (200s), then a re-warm:
#                every job must be one 304 with an empty body
#   aggressive   the reference: plain URLs, `--cache-mode aggressive`; the
#                re-warm only stats each file, so it is the cost of the queue
#                alone (claim, events, finish), the floor for any re-warm
#   processed    (BENCH_PROCESSED=1, the default) the same as revalidate with
#                `--destination processed --thumbnail 320 --format jpeg`: the
#                re-warm's 304s keep the thumbnails without decoding. The
#                worker runs with --memory-cache-size 0, so no job is served
#                from memory (the memory cache does not revalidate).
#
# The origin's access log and the jobs' events (their `source`) are checked
# after every batch; a batch that asked the origin anything else fails the
# bench. The targets: a fresh re-warm at least 20x faster than the first
# warming, a 304 re-warm at least 3x, judged on the median of the runs' own
# ratios of batch times (Redis' createdAt to finishedAt; the report also
# gives wall-clock times, enqueue to watch exit). See bench/http-cache.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

PROCESSED=${BENCH_PROCESSED:-1}
# The origin's per-connection body rate for /fresh/ and /revalidate/, read by
# start_origin (scripts/services.sh). On loopback a download costs little more
# than the 304 that replaces it, so the ratios mostly measure per-job overhead;
# a WAN-like rate shows what re-warming saves against a real origin.
export ORIGIN_LIMIT_RATE=${BENCH_ORIGIN_RATE:-}
FRESH_TARGET=20
REVALIDATE_TARGET=3

bench_setup

# URL lists of the corpus under the two caching prefixes.
FRESH_URLS="$WORK/urls-fresh.txt"
REVALIDATE_URLS="$WORK/urls-revalidate.txt"
sed "s|^$ORIGIN_URL/|$ORIGIN_URL/fresh/|" "$URLS" >"$FRESH_URLS"
sed "s|^$ORIGIN_URL/|$ORIGIN_URL/revalidate/|" "$URLS" >"$REVALIDATE_URLS"

# --- Checks -------------------------------------------------------------------
# origin_mark: remember how many requests the origin has logged so far.
origin_mark() { mark=$(wc -l <"$ORIGIN_LOG"); }

# check_origin WHAT EXPECTED_COUNT PATTERN: the requests logged since
# origin_mark must be EXPECTED_COUNT lines, each matching the extended regex
# PATTERN (log format in scripts/services.sh: METHOD URI STATUS BYTES ...).
check_origin() {
  local what=$1 expected=$2 pattern=$3 lines got bad
  lines=$(tail -n "+$((mark + 1))" "$ORIGIN_LOG")
  got=$(grep -c . <<<"$lines" || true)
  bad=$(grep -cEv "$pattern" <<<"$lines" || true)
  if [[ -z $lines ]]; then bad=0; fi
  if ((got != expected || bad != 0)); then
    log "$what: expected $expected origin requests matching '$pattern', got $got ($bad not matching), e.g.:"
    if ((bad > 0)); then grep -Ev "$pattern" <<<"$lines" | head -n 5 >&2; else head -n 5 <<<"$lines" >&2; fi
    exit 1
  fi
}

# check_sources WHAT SOURCE: every job of the last batch completed with this
# `source` (network, disk, revalidated); see docs/operations.md.
check_sources() {
  local what=$1 source=$2 completed matching
  completed=$(grep -c '"type":"completed"' "$batch_events" || true)
  matching=$(grep '"type":"completed"' "$batch_events" | grep -c "\"source\":\"$source\"" || true)
  if ((completed != COUNT || matching != COUNT)); then
    log "$what: expected $COUNT jobs completed with source=$source, got $matching of $completed completed; sources:"
    grep -o '"source":"[a-z]*"' "$batch_events" | sort | uniq -c >&2 || true
    exit 1
  fi
}

# check_cached WHAT CACHE URLS [CACHE_PATH_ARGS...]: the first and last URL
# are in CACHE, as `warmer cache path` sees it.
check_cached() {
  local what=$1 cache=$2 urls=$3 url
  shift 3
  for url in "$(head -n 1 "$urls")" "$(tail -n 1 "$urls")"; do
    if ! WARMER_CACHE_DIR=$cache "$warmer" cache path "$@" "$url" >/dev/null; then
      log "$what: $url is not in the cache $cache"
      exit 1
    fi
  done
}

# --- One run of a scenario ----------------------------------------------------
# Every scenario sets first_seconds/first_batch (the first warming) and
# again_seconds/again_batch (the re-warm), each the run_seconds/batch_seconds
# of warmer_timed_batch, and run_rss_kib.

# warm_twice WHAT CACHE LIST PATH REWARM SOURCE DESTINATION [PROCESSING...]:
# with a worker running on CACHE, warm the URLs of the file LIST (served
# under /PATH) twice as
# DESTINATION with the PROCESSING flags. The first warming must fetch every
# file (200s) and leave it in the cache; the re-warm must send the origin
# nothing (REWARM `none`) or one 304 per file (REWARM `304`), and report
# SOURCE for every job.
warm_twice() {
  local what=$1 cache=$2 list=$3 path=$4 rewarm=$5 source=$6 destination=$7
  shift 7
  origin_mark
  warmer_timed_batch "$list" --destination "$destination" "$@"
  first_seconds=$run_seconds first_batch=$batch_seconds
  check_origin "$what, first warming" "$COUNT" "^GET /${path}img-[^ ]+ 200 [1-9][0-9]* "
  check_sources "$what, first warming" network
  check_cached "$what" "$cache" "$list" "$@"

  origin_mark
  warmer_timed_batch "$list" --destination "$destination" "$@"
  again_seconds=$run_seconds again_batch=$batch_seconds
  case $rewarm in
    none) check_origin "$what, re-warm" 0 '^$' ;;
    304) check_origin "$what, re-warm" "$COUNT" "^GET /${path}img-[^ ]+ 304 0 " ;;
  esac
  check_sources "$what, re-warm" "$source"
}

# fresh_run N: /fresh/ URLs, disk destination; the re-warm asks nothing.
fresh_run() {
  local cache="$WORK/cache-fresh-$1"
  warmer_start "fresh-$1" "$cache" --cache-mode http
  warm_twice "fresh run $1" "$cache" "$FRESH_URLS" fresh/ none disk disk
  warmer_stop
}

# revalidate_run N: /revalidate/ URLs, disk destination; the re-warm is 304s.
revalidate_run() {
  local cache="$WORK/cache-revalidate-$1"
  warmer_start "revalidate-$1" "$cache" --cache-mode http
  warm_twice "revalidate run $1" "$cache" "$REVALIDATE_URLS" revalidate/ 304 revalidated disk
  warmer_stop
}

# aggressive_run N: the reference, plain URLs with `--cache-mode aggressive`:
# the re-warm only finds each file on disk (one stat), so it measures what a
# job costs without any HTTP caching work: claiming it, its events, finishing
# it in Redis. No re-warm in HTTP cache mode can be faster.
aggressive_run() {
  local cache="$WORK/cache-aggressive-$1"
  warmer_start "aggressive-$1" "$cache" --cache-mode aggressive
  warm_twice "aggressive run $1" "$cache" "$URLS" "" none disk disk
  warmer_stop
}

# processed_run N: /revalidate/ URLs, 320-px JPEG thumbnails; the re-warm is
# 304s and keeps the thumbnails without decoding.
processed_run() {
  local cache="$WORK/cache-processed-$1"
  warmer_start "processed-$1" "$cache" --cache-mode http --memory-cache-size 0
  warm_twice "processed run $1" "$cache" "$REVALIDATE_URLS" revalidate/ 304 revalidated processed \
    --thumbnail 320 --format jpeg
  warmer_stop
}

# --- Runs and report ----------------------------------------------------------
SCENARIOS=(fresh revalidate aggressive)
if [[ $PROCESSED == 1 ]]; then SCENARIOS+=(processed); fi
declare -A LABEL=(
  [fresh]="fresh (max-age)"
  [revalidate]="revalidate (no-cache: 304s)"
  [aggressive]="aggressive mode (reference)"
  [processed]="processed 320-px JPEG (304s)"
)
declare -A TARGET=([fresh]=$FRESH_TARGET [revalidate]=$REVALIDATE_TARGET [aggressive]="" [processed]="")

# Per scenario, space-separated lists over the runs.
declare -A FIRST_WALL=() AGAIN_WALL=() FIRST_BATCH=() AGAIN_BATCH=() PEAK_KIB=()

# ratio A B: A / B, 2 decimals ("inf" when B is 0, as a batch timed in whole
# milliseconds could be).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }

for n in $(seq 1 "$RUNS"); do
  for scenario in "${SCENARIOS[@]}"; do
    "${scenario}_run" "$n"
    log "run $n, $scenario: first warming ${first_seconds}s (batch ${first_batch}s)," \
      "re-warm ${again_seconds}s (batch ${again_batch}s): $(ratio "$first_batch" "$again_batch")x," \
      "peak RSS $((run_rss_kib / 1024)) MiB"
    FIRST_WALL[$scenario]+="$first_seconds "
    AGAIN_WALL[$scenario]+="$again_seconds "
    FIRST_BATCH[$scenario]+="$first_batch "
    AGAIN_BATCH[$scenario]+="$again_batch "
    if ((run_rss_kib > ${PEAK_KIB[$scenario]:-0})); then PEAK_KIB[$scenario]=$run_rss_kib; fi
  done
done
stop_services

# best LIST: the smallest of a space-separated list of numbers. median LIST:
# the middle one (the upper middle for an even count).
best() { tr ' ' '\n' <<<"$1" | grep . | sort -g | head -n 1; }
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# run_ratios FIRSTS AGAINS: each run's first warming over its re-warm, as a list.
run_ratios() {
  local firsts agains i
  read -ra firsts <<<"$1"
  read -ra agains <<<"$2"
  for i in "${!firsts[@]}"; do printf '%s ' "$(ratio "${firsts[i]}" "${agains[i]}")"; done
}

if [[ -n $ORIGIN_LIMIT_RATE ]]; then origin_speed="nginx limit_rate $ORIGIN_LIMIT_RATE per connection"; else origin_speed="loopback, full speed"; fi
printf '\norigin bodies for /fresh/ and /revalidate/: %s\n' "$origin_speed"
printf '\n%-44s %5s %15s %15s %7s %8s\n' "" "files" "wall s" "batch s" "batch" "peak RSS"
printf '%-44s %5s %7s %7s %7s %7s %7s %8s\n' "" "" "best" "median" "best" "median" "us/job" "MiB"
for scenario in "${SCENARIOS[@]}"; do
  for phase in first again; do
    if [[ $phase == first ]]; then
      label="${LABEL[$scenario]}: first warming" wall=${FIRST_WALL[$scenario]} batch=${FIRST_BATCH[$scenario]}
    else
      label="${LABEL[$scenario]}: re-warm" wall=${AGAIN_WALL[$scenario]} batch=${AGAIN_BATCH[$scenario]}
    fi
    printf '%-44s %5d %7.3f %7.3f %7.3f %7.3f %7.0f %8.1f\n' "$label" "$COUNT" \
      "$(best "$wall")" "$(median "$wall")" "$(best "$batch")" "$(median "$batch")" \
      "$(awk -v s="$(median "$batch")" -v n="$COUNT" 'BEGIN { print s * 1e6 / n }')" \
      "$(awk -v k="${PEAK_KIB[$scenario]}" 'BEGIN { print k / 1024 }')"
  done
done

printf '\n%-44s %15s %15s   %s\n' "speed-up, first warming / re-warm" "wall" "batch" "target (batch, median)"
printf '%-44s %7s %7s %7s %7s\n' "" "best" "median" "best" "median"
for scenario in "${SCENARIOS[@]}"; do
  wall_best=$(ratio "$(best "${FIRST_WALL[$scenario]}")" "$(best "${AGAIN_WALL[$scenario]}")")
  batch_best=$(ratio "$(best "${FIRST_BATCH[$scenario]}")" "$(best "${AGAIN_BATCH[$scenario]}")")
  wall_median=$(median "$(run_ratios "${FIRST_WALL[$scenario]}" "${AGAIN_WALL[$scenario]}")")
  batch_median=$(median "$(run_ratios "${FIRST_BATCH[$scenario]}" "${AGAIN_BATCH[$scenario]}")")
  verdict=""
  if [[ -n ${TARGET[$scenario]} ]]; then
    verdict=$(awk -v r="$batch_median" -v t="${TARGET[$scenario]}" \
      'BEGIN { printf ">= %dx: %s", t, (r == "inf" || r + 0 >= t) ? "met" : "NOT met" }')
  fi
  printf '%-44s %6sx %6sx %6sx %6sx   %s\n' "${LABEL[$scenario]}" "$wall_best" "$wall_median" "$batch_best" "$batch_median" "$verdict"
done
cat <<EOF

wall: from \`warmer enqueue\` to the exit of \`warmer watch\` (includes both commands' start-up)
batch: from the batch's creation to its last job's end, as Redis timed them (ms clock)
us/job: median batch time / files; median: of the $RUNS runs' own ratios (back-to-back batches)
EOF
