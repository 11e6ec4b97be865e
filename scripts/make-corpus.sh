#!/usr/bin/env bash
# Generate a corpus of real, photo-like images with the `vips` CLI.
#
#   scripts/make-corpus.sh OUTDIR COUNT
#
# Writes OUTDIR/img-0001.jpg, img-0002.webp, img-0003.jpg, img-0004.png, ...
# (formats cycle JPEG, WebP, JPEG, PNG), each between about 320x240 and
# 1600x1200 pixels, tens to a few hundred KB each.
#
# When OUTDIR already holds exactly COUNT img-* files nothing is done, so the
# corpus is a cache that survives between runs. Other files in OUTDIR are left
# alone. The layout of every image (size, crop, rotation) comes from a fixed
# random seed, so names, formats and dimensions are the same on every run;
# the pixels differ, because vips' fractal noise is random.
#
# How the pixels are made: fractal surfaces (`vips fractsurf`, the 1/f noise
# of clouds and terrain, which compresses much like a photo) are rendered once
# into three 2048x2048 colour "base" images. Each corpus image is then a single
# `vips affine` call that rotates, zooms and crops a base straight into the
# output file, so images are all different while costing one cheap command
# each. The renders run two at a time (`xargs -P 2`).
set -euo pipefail

BASE_SIZE=2048 # pixels, square; every crop below fits inside it

log() { echo "corpus: $*" >&2; }

# --render BASE NAME SAVE_OPTIONS INTERPOLATE A B C D LEFT TOP WIDTH HEIGHT
# Internal mode used through xargs: render one image from base image number
# BASE into $CORPUS_OUTDIR/NAME. Paths travel in the environment, not on the
# xargs line, so directories with spaces work. The output is written under a
# hidden temporary name first, so an interrupted run never leaves a
# half-written img-* file that would count as part of the corpus.
if [[ ${1:-} == --render ]]; then
  shift
  base="$CORPUS_WORK/base-$1.v"
  out="$CORPUS_OUTDIR/$2"
  tmp="$CORPUS_OUTDIR/.tmp-$2" # keeps the extension vips picks the format by
  save_opts=$3
  interpolate=$4
  matrix="$5 $6 $7 $8"
  oarea="$9 ${10} ${11} ${12}"
  vips affine "$base" "$tmp$save_opts" "$matrix" --oarea "$oarea" --interpolate "$interpolate"
  mv -f "$tmp" "$out"
  exit 0
fi

if (($# != 2)) || ! [[ $2 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 OUTDIR COUNT" >&2
  exit 2
fi
outdir=$1
count=$2

if ! command -v vips >/dev/null 2>&1; then
  echo "make-corpus: the 'vips' command is missing (apt-get install libvips-tools, or run scripts/bootstrap.sh)" >&2
  exit 1
fi

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

count_images() {
  find "$outdir" -maxdepth 1 -type f -name 'img-*' | wc -l
}

existing=$(count_images)
if ((existing == count)); then
  log "$count images already in $outdir"
  exit 0
fi
if ((existing > 0)); then
  log "$outdir has $existing images, want $count: regenerating"
fi
find "$outdir" -maxdepth 1 -type f \( -name 'img-*' -o -name '.tmp-img-*' \) -delete

started=$SECONDS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- 1. Three colour base images (a few seconds, built in parallel) --------
# A fractal surface scaled to 8 bits, then coloured. A higher fractal
# dimension means more fine detail, hence bigger files. Photo-like bases also
# get a little Gaussian grain, like camera sensor noise; the PNG base does
# not, since PNGs on the web are mostly flat-coloured graphics.
#
# add_grain IN OUT: OUT = IN + noise (sigma 6), clipped back to 8 bits.
add_grain() {
  vips gaussnoise "$2-noise.v" "$BASE_SIZE" "$BASE_SIZE" --sigma 6 --mean 0
  vips add "$1" "$2-noise.v" "$2-sum.v"
  vips cast "$2-sum.v" "$2" uchar
  rm -f "$2-noise.v" "$2-sum.v"
}
# base-0 (photo) and base-2 (PNG): a false-colour (heat map) palette, with
# saturated colours and sharp edges between them.
make_false_colour_bases() {
  local w="$work/fc"
  vips fractsurf "$w-surface.v" "$BASE_SIZE" "$BASE_SIZE" 2.5
  vips scale "$w-surface.v" "$w-grey.v"
  vips falsecolour "$w-grey.v" "$work/base-2.v"
  add_grain "$work/base-2.v" "$work/base-0.v"
  rm -f "$w"-*.v
}
# base-1 (photo): softer colours, R, G and B being one surface, mirrored and
# rotated.
make_soft_base() {
  local w="$work/soft"
  vips fractsurf "$w-surface.v" "$BASE_SIZE" "$BASE_SIZE" 2.3
  vips scale "$w-surface.v" "$w-grey.v"
  vips flip "$w-grey.v" "$w-flip.v" horizontal
  vips rot "$w-grey.v" "$w-rot.v" d90
  vips bandjoin "$w-grey.v $w-flip.v $w-rot.v" "$w-rgb.v"
  vips copy "$w-rgb.v" "$w-srgb.v" --interpretation srgb
  add_grain "$w-srgb.v" "$work/base-1.v"
  rm -f "$w"-*.v
}
make_false_colour_bases &
job1=$!
make_soft_base &
job2=$!
wait "$job1"
wait "$job2"

# --- 2. Plan every image: one line of --render arguments each --------------
# awk does the floating-point work: pick a size, a zoom and a rotation, then
# place the output rectangle so that all of it falls inside the base image
# (vips affine would paint anything outside it black).
awk -v count="$count" -v base_size="$BASE_SIZE" '
BEGIN {
  srand(20240601) # fixed seed: same plan on every run
  pi = atan2(0, -1)
  for (i = 1; i <= count; i++) {
    # Formats cycle so that even a small corpus has all three.
    # Photos (JPEG, WebP) come from a grainy base, smoothly interpolated;
    # PNGs from the clean one with nearest-neighbour sampling, so they keep
    # few colours and quantise to a palette quickly.
    k = i % 4
    if (k == 1 || k == 3) { ext = "jpg";  opts = "[Q=85,strip]" }
    else if (k == 2)      { ext = "webp"; opts = "[Q=80,strip]" }
    else                  { ext = "png";  opts = "[palette,effort=1,strip]" }
    if (ext == "png") { base = 2; interpolate = "nearest" }
    else              { base = int(rand() * 2); interpolate = "bilinear" }

    # Width 320..1600, height from a common aspect ratio, kept in 240..1200.
    # PNG costs far more bytes per pixel than JPEG or WebP, so PNGs are at
    # most 1024 wide to stay in the same range of file sizes.
    maxw = (ext == "png") ? 1024 : 1600
    w = 320 + int(rand() * (maxw - 320 + 1))
    r = rand()
    if (r < 0.45)      aspect = 3 / 4
    else if (r < 0.65) aspect = 2 / 3
    else if (r < 0.80) aspect = 9 / 16
    else if (r < 0.90) aspect = 1
    else               aspect = 4 / 3 # portrait
    h = int(w * aspect)
    if (h < 240) h = 240
    if (h > 1200) h = 1200

    # Rotate -25..25 degrees and zoom between 1.5x and the smallest zoom
    # (at least 0.6x) at which the rotated rectangle still fits in the base.
    angle = (rand() * 50 - 25) * pi / 180
    co = cos(angle); si = sin(angle)
    aco = (co < 0) ? -co : co; asi = (si < 0) ? -si : si
    span_w = w * aco + h * asi # bounding box of the rotated output,
    span_h = w * asi + h * aco # in output pixels
    min_zoom = ((span_w > span_h) ? span_w : span_h) / (base_size - 16)
    if (min_zoom < 0.6) min_zoom = 0.6
    zoom = min_zoom + rand() * (1.5 - min_zoom)
    a = zoom * co; b = -zoom * si; c = zoom * si; d = zoom * co

    # Half the size, in base pixels, of the base area this image shows.
    half_w = span_w / (2 * zoom)
    half_h = span_h / (2 * zoom)
    # A random centre that keeps that area inside the base (4 px margin),
    # mapped into output space; the output area is centred on it.
    cx = half_w + 4 + rand() * (base_size - 2 * half_w - 8)
    cy = half_h + 4 + rand() * (base_size - 2 * half_h - 8)
    left = int(a * cx + b * cy - w / 2)
    top  = int(c * cx + d * cy - h / 2)

    name = sprintf("img-%04d.%s", i, ext)
    printf "%d %s %s %s %.6f %.6f %.6f %.6f %d %d %d %d\n", \
      base, name, opts, interpolate, a, b, c, d, left, top, w, h
  }
}' >"$work/plan"

# --- 3. Render, two at a time ----------------------------------------------
# Each plan line becomes the arguments of one "make-corpus.sh --render" call.
export CORPUS_OUTDIR=$outdir CORPUS_WORK=$work
xargs -r -P 2 -L 1 bash "${BASH_SOURCE[0]}" --render <"$work/plan"

made=$(count_images)
if ((made != count)); then
  echo "make-corpus: expected $count images in $outdir, found $made" >&2
  exit 1
fi
size=$(find "$outdir" -maxdepth 1 -type f -name 'img-*' -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f MiB", s / 1048576 }')
log "generated $count images ($size) in $outdir in $((SECONDS - started))s"
