#!/usr/bin/env bash
# Processed warming (320-px JPEG thumbnails) against `vipsthumbnail`.
#
#   bench/processed.sh              (or: make bench-processed)
#   BENCH_COUNT=1000 bench/processed.sh   (default 300 images)
#   BENCH_POLICY=storeAll bench/processed.sh   (worker --data-cache-policy; default: the worker's, automatic)
#
# Reference: `vipsthumbnail -s 320` run as one process per core, each on its
# share of the corpus, reading the files from local disk.
# Warmer: one `warmer worker` with an empty cache; from `warmer enqueue
# --destination processed --thumbnail 320 --format jpeg` until `warmer watch`
# reports the batch finished: download from nginx, decode with shrink-on-load,
# encode, store, publish events. See bench/README.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

POLICY=${BENCH_POLICY:-automatic}
CORES=$(nproc)

bench_setup

# --- (a) Reference: vipsthumbnail, one process per core ----------------------
# vips_run N: thumbnail every corpus file into a fresh folder; sets run_seconds.
vips_run() {
  local n=$1 dir start end got per
  dir=$(mktemp -d "$WORK/vips-$n.XXXX")
  per=$(((COUNT + CORES - 1) / CORES))
  start=$(now)
  find "$CORPUS" -name 'img-*' -print0 | sort -z |
    xargs -0 -P "$CORES" -n "$per" vipsthumbnail -s 320 -o "$dir/%s.jpg"
  end=$(now)
  got=$(find "$dir" -type f | wc -l)
  if ((got != COUNT)); then
    log "vipsthumbnail run $n: expected $COUNT files, got $got"
    exit 1
  fi
  run_seconds=$(elapsed "$start" "$end")
}

# --- (b) Warmer: one worker, one processed batch ------------------------------
# warmer_run N: sets run_seconds and run_rss_kib (see bench/lib.sh).
warmer_run() {
  local n=$1
  local cache="$WORK/cache-$n" url path width
  warmer_batch "$n" "$cache" --data-cache-policy "$POLICY" -- \
    --destination processed --thumbnail 320 --format jpeg
  # Every thumbnail must be a JPEG at most 320 px on its longest side.
  # Spot-check the first and last URL through `warmer cache path`.
  for url in "$(head -n 1 "$URLS")" "$(tail -n 1 "$URLS")"; do
    if ! path=$(WARMER_CACHE_DIR=$cache "$warmer" cache path --thumbnail 320 --format jpeg "$url"); then
      log "warmer run $n: no thumbnail of $url in $cache"
      exit 1
    fi
    width=$(vipsheader -f width "$path")
    if ((width > 320)) || [[ $(vipsheader -f vips-loader "$path") != jpegload ]]; then
      log "warmer run $n: $path is not a JPEG thumbnail ($(vipsheader "$path"))"
      exit 1
    fi
  done
}

bench_pairs "vipsthumbnail x$CORES" vips_run "warmer processed ($POLICY)" warmer_run
