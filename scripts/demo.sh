#!/usr/bin/env bash
# Warmer end to end on one machine: the first command to run.
#
#   scripts/demo.sh        (or: make demo)
#
# What happens:
#   1. installs what is missing (scripts/bootstrap.sh) and builds `warmer`;
#   2. starts a local Redis (unless WARMER_REDIS_URL points at one) and a
#      local nginx "origin" serving 60 generated images;
#   3. enqueues two batches of the 60 image URLs: the original bytes
#      (destination disk), and 320-px WebP thumbnails (destination processed);
#   4. starts two workers that warm them into a disk cache;
#   5. follows each batch live with `warmer watch` until it is done;
#   6. prints the batch counters and where the cached files are, then stops
#      the workers and the services.
# Everything lives in .services/demo/ (git-ignored): the images in origin/,
# the cache in cache/, worker logs in worker-1.log and worker-2.log.
# The exit status is 0 when no image failed (as `warmer watch` says).
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
scripts/swift-build.sh # (every script builds through it: see its header)
warmer="$(scripts/swift-build.sh --show-bin-path)/warmer"

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
# The SSRF guard refuses loopback by default: allow the local origin's host.
export WARMER_ALLOW_HOSTS=127.0.0.1

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
step "Enqueuing $(wc -l <"$urls") URLs twice"
echo "warmer enqueue --priority normal $urls" >&2
batch=$("$warmer" enqueue --queue "$QUEUE" --priority normal "$urls")
echo "batch: $batch (original bytes)" >&2
thumbs_flags=(--destination processed --thumbnail 320 --format webp --quality 80)
echo "warmer enqueue --priority low ${thumbs_flags[*]} $urls" >&2
thumbs=$("$warmer" enqueue --queue "$QUEUE" --priority low "${thumbs_flags[@]}" "$urls")
echo "batch: $thumbs (320-px WebP thumbnails)" >&2

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
watch_status=0
for id in "$batch" "$thumbs"; do
  step "Watching a batch: warmer watch --batch $id"
  "$warmer" watch --queue "$QUEUE" --batch "$id" || watch_status=$?
done

# --- 6. Results --------------------------------------------------------------
for id in "$batch" "$thumbs"; do
  step "Batch counters: warmer status $id"
  "$warmer" status --queue "$QUEUE" "$id" || true
done

step "Where the files are"
# `warmer cache path` prints the path even when the URL is not cached, but
# then exits with status 1.
cached_at=$("$warmer" cache path "$first_url") || cached_at="$cached_at (not cached)"
thumb_at=$("$warmer" cache path "${thumbs_flags[@]:2}" "$first_url") || thumb_at="$thumb_at (not cached)"
echo "cache dir:  $cache"
echo "first URL:  $first_url"
echo "cached at:  $cached_at"
echo "thumbnail:  $thumb_at ($(vipsheader "${thumb_at%% *}" 2>/dev/null || echo "not readable"))"
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
