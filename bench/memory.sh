#!/usr/bin/env bash
# The worker's memory model (issue 15): peak RSS of a fresh `warmer worker`
# by image size class, destination and --concurrency, the idle worker's RSS,
# and what --memory-budget changes. docs/memory.md explains the figures.
#
#   bench/memory.sh                                   (or: make bench-memory)
#   BENCH_MEMORY_CLASSES="small large" bench/memory.sh  (default: small medium large huge png)
#   BENCH_MEMORY_CONCURRENCY="1 4 16"                 (the --concurrency values, default 1 4 16)
#   BENCH_MEMORY_JOBS=64                              (jobs per batch, default max(16, 4 x the largest concurrency))
#   BENCH_MEMORY_BUDGET=64                            (the small --memory-budget of part 3, MiB, default 64)
#   BENCH_TIMEOUT=600                                 (seconds a batch may take)
#
# Size classes, each FILES distinct images made once with the `vips` CLI
# into bench/.memory-corpus (kept between runs; delete it for new pixels):
#   small   320x240 JPEG       medium 1600x1200 JPEG     large 4000x3000 JPEG (12 MP)
#   huge    8000x6000 JPEG (48 MP)                       png   4000x3000 PNG (no shrink-on-load)
# The JPEGs are fractal noise with camera-like grain at Q=85 (about 0.2 bytes
# a pixel, like a phone photo); the PNG is the same without grain.
#
# 1. Idle: one worker started with --concurrency 16 that has connected to
#    Redis and run nothing: VmRSS after 3 s. Then libvips' share: the small
#    class, processed, --concurrency 1, --memory-cache-size 0.
# 2. For each class, destination (disk: the original bytes; processed:
#    `--thumbnail 320 --format jpeg`, as bench/processed.sh) and
#    concurrency: a fresh worker on a fresh queue and empty cache runs one
#    batch of JOBS distinct URLs (CLASS-N.EXT?n=K: nginx ignores the query,
#    the cache key is the whole URL), and its peak RSS (VmHWM) is read before
#    it stops. Every batch has the same number of jobs whatever the
#    concurrency, so the memory cache (16 MiB by default) fills the same way
#    in all three. Then, per class and destination, a least-squares fit
#    RSS = base + slope x concurrency over the concurrencies.
# 3. The memory budget: the large class at the largest concurrency,
#    processed, as thumbnails and as full decodes (`--resize 320x0`, no
#    shrink-on-load), with the default --memory-budget and with
#    BENCH_MEMORY_BUDGET; and the png class's thumbnails with
#    BENCH_MEMORY_BUDGET (a PNG has no shrink-on-load).
#
# A batch with failures fails the bench. Nothing here is timed against a
# target: seconds are printed for reading only.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

read -r -a CLASSES <<<"${BENCH_MEMORY_CLASSES:-small medium large huge png}"
read -r -a CONCURRENCIES <<<"${BENCH_MEMORY_CONCURRENCY:-1 4 16}"
largest=0
for c in "${CONCURRENCIES[@]}"; do
  if ((c > largest)); then largest=$c; fi
done
JOBS=${BENCH_MEMORY_JOBS:-$((4 * largest > 16 ? 4 * largest : 16))}
SMALL_BUDGET=${BENCH_MEMORY_BUDGET:-64}
FILES=4
# bench_setup makes COUNT mixed corpus images in CORPUS and serves CORPUS:
# a corpus of this bench's own, so bench/.corpus (300 images) is untouched.
CORPUS="$PWD/bench/.memory-corpus"
COUNT=16

# class_shape CLASS: "WIDTH HEIGHT EXTENSION"
class_shape() {
  case $1 in
    small) echo "320 240 jpg" ;;
    medium) echo "1600 1200 jpg" ;;
    large) echo "4000 3000 jpg" ;;
    huge) echo "8000 6000 jpg" ;;
    png) echo "4000 3000 png" ;;
    *) log "unknown size class $1 (small, medium, large, huge, png)"; exit 2 ;;
  esac
}

# make_class CLASS: FILES images of CLASS in CORPUS, unless already there.
# Each: a 1024x1024 fractal surface (1/f noise, a fresh one each), false
# colour, resized to the class's size, grain added for JPEGs, saved under a
# temporary name and renamed, so an interrupted run leaves no half file.
make_class() {
  local class=$1 width height ext i out tmp
  read -r width height ext <<<"$(class_shape "$class")"
  for i in $(seq 1 "$FILES"); do
    out="$CORPUS/$class-$i.$ext"
    if [[ -s $out ]]; then continue; fi
    tmp="$WORK/make-$class"
    vips fractsurf "$tmp-surface.v" 1024 1024 2.5
    vips scale "$tmp-surface.v" "$tmp-grey.v"
    vips falsecolour "$tmp-grey.v" "$tmp-colour.v"
    vips resize "$tmp-colour.v" "$tmp-sized.v" "$(awk -v w="$width" 'BEGIN { print w / 1024 }')" \
      --vscale "$(awk -v h="$height" 'BEGIN { print h / 1024 }')"
    if [[ $ext == jpg ]]; then
      vips gaussnoise "$tmp-noise.v" "$width" "$height" --sigma 6 --mean 0
      vips add "$tmp-sized.v" "$tmp-noise.v" "$tmp-sum.v"
      vips cast "$tmp-sum.v" "$CORPUS/.tmp-$class-$i.jpg[Q=85,strip]" uchar
    else
      vips cast "$tmp-sized.v" "$CORPUS/.tmp-$class-$i.png[compression=6,strip]" uchar
    fi
    mv -f "$CORPUS/.tmp-$class-$i.$ext" "$out"
    rm -f "$tmp"-*.v
  done
}

# class_urls CLASS FILE: JOBS distinct URLs over the class's FILES images.
class_urls() {
  local ext
  read -r _ _ ext <<<"$(class_shape "$1")"
  awk -v base="$ORIGIN_URL/$1" -v ext="$ext" -v files="$FILES" -v n="$JOBS" \
    'BEGIN { for (k = 1; k <= n; k++) printf "%s-%d.%s?n=%d\n", base, (k - 1) % files + 1, ext, k }' >"$2"
}

bench_setup
log "size classes: ${CLASSES[*]}; concurrency: ${CONCURRENCIES[*]}; $JOBS jobs a batch"
for class in "${CLASSES[@]}"; do
  make_class "$class"
done

RESULTS="$WORK/memory.tsv" # class, destination, concurrency, peak KiB, seconds
: >"$RESULTS"
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# measure NAME CONCURRENCY URLS [WORKER_ARGS...] -- [ENQUEUE_ARGS...]: one
# fresh worker, one batch; sets run_rss_kib and run_seconds (bench/lib.sh).
measure() {
  local name=$1 concurrency=$2 urls=$3
  shift 3
  local worker_args=() enqueue_args=()
  while (($#)) && [[ $1 != -- ]]; do worker_args+=("$1"); shift; done
  (($#)) && shift
  enqueue_args=("$@")
  PARALLEL=$concurrency
  warmer_start "$name" "$WORK/cache-$name" "${worker_args[@]}"
  warmer_timed_batch "$urls" "${enqueue_args[@]}"
  warmer_stop
  rm -rf "$WORK/cache-$name"
}

# --- 1. Idle ------------------------------------------------------------------
PARALLEL=16
warmer_start idle "$WORK/cache-idle"
sleep 2
idle_kib=$(awk '/^VmRSS:/ { print $2 }' "/proc/$worker_pid/status")
warmer_stop
log "idle worker (--concurrency 16, connected, no job): RSS $(mib "$idle_kib") MiB"
# libvips' own share: one small processed job at a time with the memory
# cache off, so what the processed base adds over idle is libvips loaded,
# its thread and its caches.
if [[ " ${CLASSES[*]} " == *" small "* ]]; then
  class_urls small "$WORK/urls-small.txt"
  measure libvips 1 "$WORK/urls-small.txt" --memory-cache-size 0 -- --destination processed --thumbnail 320 --format jpeg
  libvips_kib=$run_rss_kib
  log "small processed, --concurrency 1, --memory-cache-size 0: peak RSS $(mib "$libvips_kib") MiB"
fi

# --- 2. Class x destination x concurrency -------------------------------------
for class in "${CLASSES[@]}"; do
  class_urls "$class" "$WORK/urls-$class.txt"
  for destination in disk processed; do
    if [[ $destination == processed ]]; then
      enqueue_args=(--destination processed --thumbnail 320 --format jpeg)
    else
      enqueue_args=(--destination disk)
    fi
    for c in "${CONCURRENCIES[@]}"; do
      measure "$class-$destination-$c" "$c" "$WORK/urls-$class.txt" -- "${enqueue_args[@]}"
      printf '%s\t%s\t%s\t%s\t%s\n' "$class" "$destination" "$c" "$run_rss_kib" "$run_seconds" >>"$RESULTS"
      log "$class $destination --concurrency $c: peak RSS $(mib "$run_rss_kib") MiB (${run_seconds}s)"
    done
  done
done

# --- 3. The memory budget -----------------------------------------------------
BUDGET_RESULTS="$WORK/budget.tsv" # class, work, budget, peak KiB, seconds
: >"$BUDGET_RESULTS"
# budget_case CLASS WORK BUDGET: CLASS at the largest concurrency, processed,
# WORK being thumbnail (--thumbnail 320) or full (--resize 320x0).
budget_case() {
  local class=$1 work=$2 budget=$3 spec=(--thumbnail 320)
  if [[ $work == full ]]; then spec=(--resize 320x0); fi
  measure "budget-$class-$work-$budget" "$largest" "$WORK/urls-$class.txt" --memory-budget "$budget" -- \
    --destination processed "${spec[@]}" --format jpeg
  printf '%s\t%s\t%s\t%s\t%s\n' "$class" "$work" "$budget" "$run_rss_kib" "$run_seconds" >>"$BUDGET_RESULTS"
  log "$class $work, --concurrency $largest, --memory-budget $budget: peak RSS $(mib "$run_rss_kib") MiB (${run_seconds}s)"
}
if [[ " ${CLASSES[*]} " == *" large "* ]]; then
  for work in thumbnail full; do
    budget_case large "$work" 1024
    budget_case large "$work" "$SMALL_BUDGET"
  done
fi
# A PNG has no shrink-on-load: its thumbnail decodes every pixel.
if [[ " ${CLASSES[*]} " == *" png "* ]]; then
  budget_case png thumbnail "$SMALL_BUDGET"
fi
stop_services

# --- Report -------------------------------------------------------------------
echo
echo "warmer worker peak RSS (VmHWM), $JOBS jobs a batch, $(nproc) cores, --image-threads default ($(($(nproc) + 1)))"
echo "idle (connected, no job): $(mib "$idle_kib") MiB"
if [[ -n ${libvips_kib:-} ]]; then
  echo "small processed, --concurrency 1, --memory-cache-size 0 (libvips loaded, no memory cache): $(mib "$libvips_kib") MiB"
fi
echo
for class in "${CLASSES[@]}"; do
  read -r width height ext <<<"$(class_shape "$class")"
  size=$(find "$CORPUS" -maxdepth 1 -name "$class-*.$ext" -printf '%s\n' | awk '{ s += $1; n++ } END { printf "%.2f", s / n / 1048576 }')
  echo "$class: ${width}x${height} $ext, $size MiB a file on average"
done
echo
awk -F '\t' -v concurrencies="${CONCURRENCIES[*]}" '
  BEGIN { n = split(concurrencies, cs, " ") }
  { rss[$1 SUBSEP $2 SUBSEP $3] = $4 / 1024; secs[$1 SUBSEP $2 SUBSEP $3] = $5
    if (!(($1 SUBSEP $2) in seen)) { seen[$1 SUBSEP $2] = 1; order[++rows] = $1 SUBSEP $2 } }
  END {
    printf "%-8s %-10s", "class", "dest"
    for (i = 1; i <= n; i++) printf " %9s", "c=" cs[i]
    printf " %9s %12s\n", "base", "MiB per job"
    for (r = 1; r <= rows; r++) {
      split(order[r], key, SUBSEP)
      printf "%-8s %-10s", key[1], key[2]
      sx = sy = sxx = sxy = 0
      for (i = 1; i <= n; i++) {
        y = rss[order[r] SUBSEP cs[i]]
        printf " %9.1f", y
        sx += cs[i]; sy += y; sxx += cs[i] * cs[i]; sxy += cs[i] * y
      }
      # least squares: y = base + slope x
      slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
      base = (sy - slope * sx) / n
      printf " %9.1f %12.2f\n", base, slope
    }
  }' "$RESULTS"
if [[ -s $BUDGET_RESULTS ]]; then
  echo
  echo "memory budget: processed, --concurrency $largest (thumbnail: --thumbnail 320; full: --resize 320x0)"
  awk -F '\t' '{ printf "  %-6s %-9s --memory-budget %5s MiB: peak RSS %7.1f MiB, %7.2f s\n", $1, $2, $3, $4 / 1024, $5 }' "$BUDGET_RESULTS"
fi
