#!/usr/bin/env bash
# Warmer end to end on one machine: the first command to run.
#
#   scripts/demo.sh        (or: make demo)
#
# What happens:
#   1. installs what is missing (scripts/bootstrap.sh) and builds `warmer`;
#   2. starts a local Redis (unless WARMER_REDIS_URL points at one) and a
#      local nginx "origin" serving 60 generated images;
#   3. enqueues one batch with the 60 image URLs;
#   4. starts two workers that download them into a disk cache;
#   5. follows the batch live with `warmer watch` until it is done;
#   6. prints the batch counters and where the cached files are, then stops
#      the workers and the services.
# Everything lives in .services/demo/ (git-ignored): the images in origin/,
# the cache in cache/, worker logs in worker-1.log and worker-2.log.
# The exit status is that of `warmer watch`: 0 when no image failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
DEMO="$PWD/.services/demo"
IMAGE_COUNT=60
WORKERS=2
# A queue of its own, so the demo never mixes with real work when
# WARMER_REDIS_URL points at a shared Redis.
QUEUE=${WARMER_DEMO_QUEUE:-demo}

step() { printf '\n==> %s\n' "$*" >&2; }

# --- 1. Build ----------------------------------------------------------------
step "Checking system packages"
scripts/bootstrap.sh
step "Building warmer (swift build)"
swift build
warmer="$(swift build --show-bin-path)/warmer"

# --- 2. Services -------------------------------------------------------------
# shellcheck source=scripts/services.sh
source scripts/services.sh
trap stop_services EXIT # also stops the workers, which are tracked below
trap 'exit 130' INT
trap 'exit 143' TERM

step "Starting local services"
mkdir -p "$DEMO"
if [[ -z ${WARMER_REDIS_URL:-} ]]; then
  start_redis "$DEMO/redis"
  export WARMER_REDIS_URL=$REDIS_URL
else
  echo "redis: $WARMER_REDIS_URL (from WARMER_REDIS_URL)" >&2
fi
scripts/make-corpus.sh "$DEMO/origin" "$IMAGE_COUNT"
start_origin "$DEMO/origin" "$DEMO/nginx"

# A fresh, empty cache each run, so the demo really downloads everything.
cache="$DEMO/cache"
rm -rf "$cache" "$DEMO"/worker-*.log
mkdir -p "$cache"
export WARMER_CACHE_DIR=$cache

# One URL per line, as `warmer enqueue` reads them.
urls="$DEMO/urls.txt"
for file in "$DEMO/origin"/img-*; do
  echo "$ORIGIN_URL/$(basename "$file")"
done >"$urls"
first_url=$(head -n 1 "$urls")

# --- 3. Enqueue --------------------------------------------------------------
step "Enqueuing $(wc -l <"$urls") URLs: warmer enqueue --priority normal $urls"
batch=$("$warmer" enqueue --queue "$QUEUE" --priority normal "$urls")
echo "batch: $batch" >&2

# --- 4. Workers --------------------------------------------------------------
step "Starting $WORKERS workers (logs: $DEMO/worker-N.log)"
worker_pids=()
for n in $(seq 1 "$WORKERS"); do
  "$warmer" worker --queue "$QUEUE" --concurrency 8 --cache-dir "$cache" \
    >"$DEMO/worker-$n.log" 2>&1 &
  worker_pids+=("$!")
  track_process "$!" "worker-$n"
  echo "worker-$n: pid $!" >&2
done

# --- 5. Watch ----------------------------------------------------------------
step "Watching the batch: warmer watch --batch $batch"
watch_status=0
"$warmer" watch --queue "$QUEUE" --batch "$batch" || watch_status=$?

# --- 6. Results --------------------------------------------------------------
step "Batch counters: warmer status $batch"
"$warmer" status --queue "$QUEUE" "$batch" || true

step "Where the files are"
# `warmer cache path` prints the path even when the URL is not cached, but
# then exits with status 1.
cached_at=$("$warmer" cache path "$first_url") || cached_at="$cached_at (not cached)"
echo "cache dir:  $cache"
echo "first URL:  $first_url"
echo "cached at:  $cached_at"
echo "files:      $(find "$cache" -type f | wc -l)"
echo "total size: $(du -sh "$cache" | cut -f1)"

step "Stopping workers (SIGTERM) and services"
for pid in "${worker_pids[@]}"; do
  stop_process "$pid"
done
stop_services

if ((watch_status == 0)); then
  step "Done: every image is in the cache."
else
  step "Done, but some images failed (warmer watch exited $watch_status): see $DEMO/worker-*.log"
fi
exit "$watch_status"
