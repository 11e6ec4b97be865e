#!/usr/bin/env bash
# Proof test: a network partition loses nothing.
#
#   scripts/partition-test.sh        # as root; `make test` runs it too
#                                    # (Tests/EndToEndTests/NetworkPartitionTests.swift)
#
# Builds a small private network out of Linux network namespaces, all created
# here and named warmer-<pid>-*:
#
#   warmer-<pid>-net     the "switch": a bridge br0 with one port per host
#   warmer-<pid>-redis   redis-server on 10.213.0.2:6379
#   warmer-<pid>-origin  nginx on 10.213.0.3:80 serving a generated image
#                        corpus at LIMIT_RATE bytes/s per connection, so
#                        downloads last a few seconds
#   warmer-<pid>-w1      `warmer worker` (the one that gets cut off), 10.213.0.11
#   warmer-<pid>-w2      `warmer worker`, 10.213.0.12
#
# Each host has one veth link (eth0) to its port on the switch. The
# addresses exist only inside these namespaces: nothing is routed to or from
# the machine's own network. Both workers run with --lease-duration LEASE and
# separate cache folders, as separate hosts would.
#
# The scenario:
#   1. Enqueue batch 1: COUNT1 processed jobs (upscaled, blurred, PNG: a few
#      seconds of CPU each, after a download of a few seconds). When w1
#      holds two jobs or more, one at least downloaded and being processed,
#      and w2 holds jobs too, cut w1's link: its switch port leaves the
#      bridge, so its packets are silently dropped both ways (a partition:
#      no reset, no error, both ends keep their carrier).
#   2. Wait until every job w1 held has stalled (its lease expired) and been
#      claimed again by w2, and w1 has written the results of the jobs it
#      was processing (so it tried to finish them during the cut); then
#      restore the link.
#   3. Check: batch 1's counters are exact (completed == total; failed,
#      dead, cancelled 0); every URL completed exactly once; each job w1
#      held stalled once, under w1, and completed once, on w2, after w2
#      claimed it, with no event from w1 after the stall; Redis refused
#      w1's late finishes (at least one, counted in the jobs' `refusedEnds`,
#      not counting any w2 logged); w1 let go of every job it held (its
#      log: lease lost, lease lost before finishing, or gave up finishing).
#   4. Enqueue batch 2 (COUNT2 disk jobs) and check that it completes
#      exactly and that both workers complete some of it: w1 claims again
#      after the partition.
#   5. Every completed job's file is in the cache of the worker that
#      completed it, and batch 2's are byte-for-byte the origin's files;
#      both workers stop with status 0 on SIGTERM.
#
# Output: `ok - ...` / `not ok - ...` lines, then `PASS` or `FAIL`.
# Exit status: 0 passed, 1 failed, 77 skipped. When network namespaces are
# unavailable (not root, no kernel support, no iproute2) it prints
#   SKIPPED: network namespaces unavailable: <reason>
# and exits 77.
#
# Environment: WARMER_BIN (default .build/debug/warmer, built when missing),
# PARTITION_KEEP=1 keeps the run's folder (logs, caches) even when it passed.
# State: .services/partition/ (the corpus is kept between runs; each run has
# its own run-<pid>/ folder, removed when the run passes). Namespaces and
# processes are removed however the script exits.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD
BASE="$REPO/.services/partition"
CORPUS="$BASE/corpus"
RUN="$BASE/run-$$"
WARMER=${WARMER_BIN:-$REPO/.build/debug/warmer}

LEASE=4            # seconds: short, so the whole test takes about a minute
CONCURRENCY=3      # jobs per worker
COUNT1=8           # URLs of batch 1 (processed: CPU-heavy): both workers' slots and two more
COUNT2=24          # URLs of batch 2 (disk)
LIMIT_RATE=48k     # origin bytes/s per connection: downloads of 0.3-7 s
PROCESSING='resize=3200x0,upscale&blur=8&format=png' # batch 1: a few seconds of CPU per job
WAIT=90            # seconds: ceiling of every wait (only a broken build waits that long)

PREFIX="warmer-$$"
NS_NET="$PREFIX-net" NS_REDIS="$PREFIX-redis" NS_ORIGIN="$PREFIX-origin" NS_W1="$PREFIX-w1" NS_W2="$PREFIX-w2"
REDIS_IP=10.213.0.2 ORIGIN_IP=10.213.0.3 W1_IP=10.213.0.11 W2_IP=10.213.0.12
REDIS_URL="redis://$REDIS_IP:6379"
ORIGIN="http://$ORIGIN_IP"

log() { echo "partition: $*" >&2; }

# --- Results ------------------------------------------------------------------
FAILED=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; FAILED=1; }
# expect CONDITION-COMMAND... -- MESSAGE: ok when the command succeeds.
expect() {
  local args=() message
  while [[ $1 != -- ]]; do args+=("$1"); shift; done
  shift
  message=$*
  if "${args[@]}"; then ok "$message"; else not_ok "$message"; fi
}
# fail MESSAGE: a check that cannot go on (the scenario did not happen).
fail() {
  not_ok "$*"
  exit 1
}

# --- Cleanup --------------------------------------------------------------------
NAMESPACES=()
PIDS=()
cleanup() {
  local status=$? pid ns i
  set +e
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  # Anything still inside our namespaces was started by this script.
  for ns in "${NAMESPACES[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
  for ns in "${NAMESPACES[@]}"; do ip netns delete "$ns" 2>/dev/null; done
  if ((status == 0)) && [[ ${PARTITION_KEEP:-} != 1 ]]; then
    rm -rf "$RUN"
  elif [[ -d $RUN ]]; then
    log "logs and caches kept in $RUN"
  fi
  exit "$status"
}
trap cleanup EXIT
# forget PID...: cleanup no longer stops these (they were waited for).
forget() {
  local pid gone kept=()
  for pid in "${PIDS[@]}"; do
    for gone in "$@"; do [[ $pid == "$gone" ]] && continue 2; done
    kept+=("$pid")
  done
  PIDS=("${kept[@]}")
}
trap 'exit 130' INT
trap 'exit 143' TERM

# The namespaces, services and queue helpers (split out to keep each file readable).
# shellcheck source=scripts/partition-hosts.sh
source "$REPO/scripts/partition-hosts.sh"

# --- Run ----------------------------------------------------------------------------
setup_network
mkdir -p "$RUN"
if [[ ! -x $WARMER ]]; then
  log "building warmer"
  "$REPO/scripts/swift-build.sh" --product warmer
fi
scripts/make-corpus.sh "$CORPUS" "$COUNT2"
mapfile -t FILES < <(cd "$CORPUS" && ls img-*)
for f in "${FILES[@]:0:COUNT1}"; do echo "$ORIGIN/$f?batch=1"; done >"$RUN/urls-1.txt"
for f in "${FILES[@]:0:COUNT2}"; do echo "$ORIGIN/$f?batch=2"; done >"$RUN/urls-2.txt"

start_redis
start_origin
start_worker w1 "$NS_W1"
W1_PID=$WORKER_PID W1=$WORKER_ID
start_worker w2 "$NS_W2"
W2_PID=$WORKER_PID W2=$WORKER_ID
log "run folder $RUN; w1 = $W1, w2 = $W2, lease ${LEASE}s"

# 1. Batch 1 (processed); cut w1 while it holds jobs, one at least
#    downloaded and being processed (its finish will come during the cut),
#    and w2 holds jobs too.
enqueue partition-1 "$RUN/urls-1.txt" --destination processed --processing "$PROCESSING"
# downloaded URI [AT]: the origin had finished serving all of URI's bytes to
# w1 more than a second before AT (default now). nginx logs a response when
# its last bytes are in the socket buffer, not when they arrived: give them
# time to arrive.
downloaded() {
  local name=${1%%\?*} size at=${2:-$(date +%s.%N)}
  size=$(stat -c %s "$CORPUS/${name#/}")
  awk -v ip="$W1_IP" -v uri="$1" -v size="$size" -v at="$at" \
    '$2 == ip && $3 == uri && $4 == 200 && $5 == size && at - $1 > 1 { found = 1 } END { exit !found }' \
    "$RUN/origin/access.log"
}
# downloaded_jobs EVENTS AT JOB...: those of the jobs w1 had downloaded at AT.
downloaded_jobs() {
  local file=$1 at=$2 job url
  shift 2
  while read -r job url; do
    if downloaded "${url#"$ORIGIN"}" "$at"; then echo "$job"; fi
  done < <(py urls "$file" "$@")
}
w1_processing() {
  events partition-1 "$RUN/events-1.json"
  local held
  mapfile -t held < <(py held "$W1" "$RUN/events-1.json")
  ((${#held[@]} >= 2)) && (($(py held "$W2" "$RUN/events-1.json" | wc -l) >= 1)) \
    && [[ -n $(downloaded_jobs "$RUN/events-1.json" "$(date +%s.%N)" "${held[@]}") ]]
}
# The job seen downloaded may finish in the instant before the cut; then
# the cut proves nothing about late finishes: restore the link at once
# (well within the lease, so nothing stalls) and cut again, up to 5 times.
for cut_attempt in 1 2 3 4 5; do
  wait_for "$WAIT" w1_processing || fail "w1 should hold jobs of batch 1, one of them downloaded, while w2 holds some"
  CUT_TIME=$(date +%s.%N)
  cut_w1
  CUT_AT=$SECONDS
  log "cut w1's link"
  # What w1 holds now: anything it reported before the cut is in Redis already.
  events partition-1 "$RUN/events-at-cut.json"
  mapfile -t HELD < <(py held "$W1" "$RUN/events-at-cut.json")
  mapfile -t FINISHING < <(downloaded_jobs "$RUN/events-at-cut.json" "$CUT_TIME" "${HELD[@]}")
  ((${#FINISHING[@]} > 0)) && break
  log "w1 held no downloaded job at the cut (attempt $cut_attempt); restoring its link and cutting again"
  restore_w1
done
((${#FINISHING[@]} > 0)) || fail "w1 never held a downloaded job at the moment of the cut (5 attempts)"
ok "w1 held ${#HELD[@]} jobs when its link was cut (jobs ${HELD[*]}; ${FINISHING[*]} downloaded, in processing)"

# 2. Restore once w1's leases expired, w2 took its jobs over, and w1 has
#    written the results of the jobs it was processing (so their finishes
#    were sent during the cut, and arrive late: w1 sends an end again
#    until Redis answers, however long the takeover took).
taken_over() {
  events partition-1 "$RUN/events-1.json"
  [[ -z $(py unrecovered "$W1" "$W2" "$RUN/events-1.json" "${HELD[@]}") ]]
}
processed_by_w1() {
  local job url
  while read -r job url; do
    "$WARMER" cache path --cache-dir "$RUN/w1-cache" --processing "$PROCESSING" "$url" >/dev/null || return 1
  done < <(py urls "$RUN/events-at-cut.json" "${FINISHING[@]}")
}
wait_for "$WAIT" taken_over || fail "w1's jobs should stall and be claimed again by w2 (see $RUN/events-1.json)"
wait_for "$WAIT" processed_by_w1 || fail "w1 should finish processing jobs ${FINISHING[*]} while cut off"
expect kill -0 "$W1_PID" -- "w1 is still running, cut off"
restore_w1
log "restored w1's link after $((SECONDS - CUT_AT)) s"

# 3. Batch 1 ends exactly; w1's late work is refused by the lease token.
wait_for "$WAIT" finished partition-1 || fail "batch 1 should finish (counters: $(rcli HGETALL 'warmer:{default}:batch:partition-1' | tr '\n' ' '))"
for field in total completed failed dead cancelled; do declare "B1_$field=$(counter partition-1 "$field")"; done
expect test "$B1_total" == "$COUNT1" -a "$B1_completed" == "$COUNT1" -- \
  "batch 1: completed $B1_completed of total $B1_total (want $COUNT1)"
expect test "$B1_failed" == 0 -a "$B1_dead" == 0 -a "$B1_cancelled" == 0 -- \
  "batch 1: failed $B1_failed, dead $B1_dead, cancelled $B1_cancelled (want 0)"
events partition-1 "$RUN/events-1.json"
py check-batch "$RUN/urls-1.txt" "$RUN/events-1.json" --completions "$RUN/completions-1.txt" || FAILED=1
py check-recovery "$W1" "$W2" "$RUN/events-1.json" "${HELD[@]}" || FAILED=1

# w1's late finishes reach Redis after the restore (some when TCP
# retransmits them, even from a connection w1 has given up on) and are
# refused: the finish script changes nothing for an end whose lease token is
# stale but the job's `refusedEnds` count. Any w2 got (its own lease
# expiring on a starved machine) are in w2's log and do not count for w1.
refused_to_w1() {
  local job total=0 w2_refused
  for job in "${HELD[@]}"; do
    total=$((total + $(rcli HGET "warmer:{default}:job:$job" refusedEnds | tr -cd '0-9') + 0))
  done
  w2_refused=$(grep -c 'lease lost before finishing' "$RUN/w2.log" || true)
  echo $((total - w2_refused))
}
late_finish_refused() { (($(refused_to_w1) >= 1)); }
wait_for "$WAIT" late_finish_refused || true
expect late_finish_refused -- "Redis refused w1's late finishes (lease token stale)" \
  "($(refused_to_w1) refused; w1 was processing ${#FINISHING[@]} jobs at the cut)"
# w1 lets go of every job it held: its renewal is told the lease is lost,
# its finish is refused, or it gives up finishing (and the job is not its own).
let_go() {
  grep -qE "(lease lost; abandoning job job=$1( |\$))|(lease lost before finishing.* job=$1( |\$))|(gave up finishing job.* job=$1( |\$))" \
    "$RUN/w1.log"
}
all_let_go() {
  local job
  for job in "${HELD[@]}"; do let_go "$job" || return 1; done
}
wait_for "$WAIT" all_let_go || true
for job in "${HELD[@]}"; do
  expect let_go "$job" -- "w1 let go of job $job without counting it (lease refused, or finish given up)"
done
expect grep -qE 'lease lost; abandoning job|lease lost before finishing' "$RUN/w1.log" -- \
  "w1 was told by Redis that its leases were lost"
log "w1's log:"
grep -E 'lease|finish|unavailable|renew' "$RUN/w1.log" | sed 's/^/    /' >&2 || true

# 4. After the partition w1 claims again: both workers complete batch 2.
enqueue partition-2 "$RUN/urls-2.txt"
wait_for "$WAIT" finished partition-2 || fail "batch 2 should finish"
expect test "$(counter partition-2 completed)" == "$COUNT2" -a "$(counter partition-2 total)" == "$COUNT2" -- \
  "batch 2: completed $(counter partition-2 completed) of total $(counter partition-2 total) (want $COUNT2)"
events partition-2 "$RUN/events-2.json"
py check-batch "$RUN/urls-2.txt" "$RUN/events-2.json" --completions "$RUN/completions-2.txt" || FAILED=1
by_w1=$(grep -c " $W1\$" "$RUN/completions-2.txt" || true)
by_w2=$(grep -c " $W2\$" "$RUN/completions-2.txt" || true)
expect test "$by_w1" -gt 0 -a "$by_w2" -gt 0 -- "both workers completed jobs of batch 2 (w1 $by_w1, w2 $by_w2)"

# 5. Every completed job's file is in the cache of the worker that
#    completed it: batch 1's processed variants, and batch 2's downloads
#    byte for byte the origin's files.
cache_of() { if [[ $1 == "$W1" ]]; then echo "$RUN/w1-cache"; else echo "$RUN/w2-cache"; fi; }
missing=0
while read -r url worker; do
  if ! "$WARMER" cache path --cache-dir "$(cache_of "$worker")" --processing "$PROCESSING" "$url" >/dev/null; then
    not_ok "the processed variant of $url is not in the cache of $worker, which completed it"
    missing=$((missing + 1))
  fi
done <"$RUN/completions-1.txt"
expect test "$missing" == 0 -- "every processed variant of batch 1 is in its worker's cache"
mismatches=0
while read -r url worker; do
  name=${url#"$ORIGIN/"}
  name=${name%%\?*}
  path=$("$WARMER" cache path --cache-dir "$(cache_of "$worker")" "$url" || true)
  if ! cmp -s "$path" "$CORPUS/$name"; then
    not_ok "the cached $url (in the cache of $worker, which completed it) is not the origin's file"
    mismatches=$((mismatches + 1))
  fi
done <"$RUN/completions-2.txt"
expect test "$mismatches" == 0 -- "every file of batch 2 is cached byte-identical to the origin's"

# Both workers stop cleanly.
kill -TERM "$W1_PID" "$W2_PID"
for name in w1 w2; do
  if [[ $name == w1 ]]; then pid=$W1_PID; else pid=$W2_PID; fi
  status=0
  wait "$pid" || status=$?
  expect test "$status" == 0 -- "$name stopped with status $status on SIGTERM"
done
forget "$W1_PID" "$W2_PID" # reaped: cleanup must not signal these numbers again

if ((FAILED)); then
  echo FAIL
  exit 1
fi
echo PASS
