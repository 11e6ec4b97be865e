#!/usr/bin/env bash
# Warmer download throughput (disk destination) against `curl --parallel`.
#
#   bench/run.sh                    (or: make bench)
#   BENCH_COUNT=1000 bench/run.sh   (default 300 images)
#   BENCH_TIMEOUT=600                (seconds a warmer batch may take)
#
# See bench/README.md for what is measured and how to read the output.
# Generated images are cached in bench/.corpus; everything else of a run
# (services, downloads, caches, logs) goes to bench/.work, wiped each run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

bench_setup

# --- (a) Reference: curl --parallel ------------------------------------------
# curl_run N: download every URL into a fresh folder, 16 at a time over
# keep-alive connections; sets run_seconds.
curl_run() {
  local n=$1 dir config start end got
  dir=$(mktemp -d "$WORK/curl-$n.XXXX")
  config="$WORK/curl-$n.config"
  # A curl config file: one url/output pair per image.
  while read -r url; do
    printf 'url = "%s"\noutput = "%s/%s"\n' "$url" "$dir" "${url##*/}"
  done <"$URLS" >"$config"

  # -s alone does not hide the --parallel progress meter in curl 7.88,
  # hence --no-progress-meter; -S still shows errors.
  start=$(now)
  curl --parallel --parallel-max "$PARALLEL" --fail -sS --no-progress-meter --config "$config"
  end=$(now)

  got=$(find "$dir" -type f | wc -l)
  if ((got != COUNT)); then
    log "curl run $n: expected $COUNT files, got $got"
    exit 1
  fi
  run_seconds=$(elapsed "$start" "$end")
}

# --- (b) Warmer: one worker, one batch ---------------------------------------
# warmer_run N: the disk destination (download and store, no decoding); sets
# run_seconds and run_rss_kib (see bench/lib.sh).
warmer_run() {
  local n=$1
  local cache="$WORK/cache-$n" files url
  warmer_batch "$n" "$cache" -- --destination disk
  # The cache must now hold one file per URL (docs/cache-layout.md: one file
  # per entry; dot files are not entries: .tmp-* are writes in progress,
  # .warmer-folder-id the folder's identity). Spot-check the first and last
  # URL through `warmer cache path`, which exits 1 when it is not cached.
  files=$(find "$cache" -type f ! -name '.*' | wc -l)
  if ((files != COUNT)); then
    log "warmer run $n: expected $COUNT files in $cache, found $files"
    exit 1
  fi
  for url in "$(head -n 1 "$URLS")" "$(tail -n 1 "$URLS")"; do
    if ! WARMER_CACHE_DIR=$cache "$warmer" cache path "$url" >/dev/null; then
      log "warmer run $n: $url is not in the cache $cache"
      exit 1
    fi
  done
}

bench_pairs "curl --parallel-max $PARALLEL" curl_run "warmer disk, concurrency $PARALLEL" warmer_run
