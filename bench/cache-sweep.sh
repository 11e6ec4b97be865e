#!/usr/bin/env bash
# bench/cache-sweep.sh: what one sweep of a cache folder costs at 1,000,000
# entries (bench/README.md, "Cache sweep"; docs/capacity.md, "A shared
# cache folder").
#
# Creates BENCH_SWEEP_FILES (default 1,000,000) small entry files in a
# temporary folder under bench/ (flat, as earlier releases wrote them), then
# times the sweeps of a real `warmer worker` (the one elected sweeper of the
# folder; a local redis-server holds its lease), as its `cache swept` log
# line reports them:
#   1. the first sweep of the flat folder: it moves every file into its
#      shard (ab/cd/<hash>);
#   2. a sweep of the sharded folder under its size limit (every sweep but
#      those that evict): one stat a file;
#   3. a sweep over the limit that evicts about 40% of the entries (it
#      lists and sorts every entry by access date);
# with each sweep's peak RSS growth read from /proc. Deletes the folder at
# the end. Settings: BENCH_SWEEP_FILES, BENCH_SWEEP_BYTES (bytes per file,
# default 100), BENCH_WARMER (a warmer binary instead of this tree's release
# build). The page cache is warm (the files were just written): on NFS or
# EFS every stat is a round trip unless attributes are cached, so expect
# the network's latency times the file count divided by the client's
# parallelism (one, here: the sweep stats one file at a time).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

FILES=${BENCH_SWEEP_FILES:-1000000}
BYTES=${BENCH_SWEEP_BYTES:-100}

if [[ -n ${BENCH_WARMER:-} ]]; then
  warmer=$(realpath "$BENCH_WARMER")
else
  log "swift build -c release"
  scripts/swift-build.sh -c release
  warmer="$(scripts/swift-build.sh -c release --show-bin-path)/warmer"
fi

FOLDER=$(mktemp -d "$PWD/bench/.sweep-XXXXXX")
WORKER_PID=
cleanup() {
  if [[ -n $WORKER_PID ]] && is_running "$WORKER_PID"; then kill "$WORKER_PID"; wait "$WORKER_PID" || true; fi
  stop_services
  log "removing $FILES files"
  rm -rf "$FOLDER"
}
# shellcheck source=scripts/services.sh
source scripts/services.sh
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
start_redis "$FOLDER/.redis"

log "creating $FILES flat files of $BYTES bytes in $FOLDER"
start=$(now)
python3 - "$FOLDER" "$FILES" "$BYTES" <<'PY'
import hashlib, os, sys, time
folder, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
body = b"x" * size
now = time.time()
for i in range(count):
    path = os.path.join(folder, hashlib.sha256(f"https://cdn.example/{i}.jpg".encode()).hexdigest())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, body)
    os.close(fd)
    os.utime(path, (now - i, now - i))  # distinct access dates: entry i was read i seconds ago
PY
log "created in $(elapsed "$start" "$(now)") s"

# sweep NAME LIMIT_MIB: one worker, its first sweep (a second after start), its figures.
sweep() {
  local name=$1 limit=$2 log_file
  log_file="$FOLDER/.worker-$(tr -c 'a-z' '-' <<<"$1").log"
  : >"$log_file"
  "$warmer" worker --redis "$REDIS_URL" --queue bench-sweep --concurrency 1 --cache-dir "$FOLDER" \
    --cache-size-limit "$limit" --cache-sweep-interval 3600 2>"$log_file" &
  WORKER_PID=$!
  local rss_start=
  while ! grep -q "cache swept" "$log_file"; do
    is_running "$WORKER_PID" || { cat "$log_file" >&2; exit 1; }
    [[ -n $rss_start ]] || rss_start=$(awk '/VmRSS/ { print $2 }' "/proc/$WORKER_PID/status" 2>/dev/null || true)
    sleep 0.2
  done
  local peak
  peak=$(awk '/VmHWM/ { print $2 }' "/proc/$WORKER_PID/status")
  kill "$WORKER_PID"; wait "$WORKER_PID" || true; WORKER_PID=
  local line
  line=$(grep "cache swept" "$log_file" | head -n 1)
  field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
  printf '| %s | %s | %s | %s | %s | %s s | %s MiB |\n' "$name" "$(field files)" "$(field migrated)" \
    "$(field evicted)" "$(field bytes)" "$(field seconds)" "$(( peak / 1024 ))"
}

total_mib=$(( FILES * BYTES / 1048576 + 1 ))
echo "| sweep | files | moved into shards | evicted | bytes | time | worker peak RSS |"
echo "|---|---|---|---|---|---|---|"
sweep "flat folder, first sweep (migration)" $(( total_mib * 4 ))
sweep "sharded, under the limit" $(( total_mib * 4 ))
sweep "sharded, over the limit (keeps 70% of 60%)" $(( total_mib * 6 / 10 ))
