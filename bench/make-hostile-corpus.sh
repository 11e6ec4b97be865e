#!/usr/bin/env bash
# Makes the hostile-image corpus of bench/hostile.sh (HOSTILE_MODE=corpus)
# into DIR, once (kept between runs; delete DIR to make it again):
#
#   bench/make-hostile-corpus.sh DIR
#
# Every file is made here with `vips` and a few lines of Python (header
# patches, the animated GIF); nothing is downloaded.
# Each kind is one file; bench/hostile.sh requests it under several URLs.
#
# | file | what it is |
# |---|---|
# | prog-100mp.jpg | 10000x10000 progressive JPEG, 4:4:4 (Q 95): libjpeg holds every DCT coefficient of a progressive file, 2 bytes a sample (600 MB), even for a shrink-on-load thumbnail |
# | prog-cmyk-64mp.jpg | 8000x8000 CMYK progressive JPEG: 4 bands of coefficients (512 MB), then a CMYK to sRGB conversion |
# | base-100mp.jpg | 10000x10000 baseline JPEG |
# | liar.jpg | 800x534 pixels of data under a header that claims 10000x10000 |
# | prog-liar.jpg | the same, progressive |
# | bomb.png | 10000x10000 RGB of one colour: 100 MP from a few hundred KB |
# | bomb-interlaced.png | 10000x10000 RGBA, Adam7-interlaced: libpng needs the whole image in memory |
# | deep-16bit.png | 6000x6000 RGBA, 16 bits a sample (8 bytes a pixel, decoded to 4) |
# | grey-alpha.png | 8000x8000 grey + alpha (2 bands), 16-bit |
# | huge-header.png | a 1x1 PNG whose header claims 60000x60000 |
# | bomb.gif | 10000x10000 GIF of one colour |
# | animated.gif | 1000x1000, 300 frames |
# | bomb.webp | 10000x10000 lossless WebP of one colour |
# | bomb.avif | 6000x6000 AVIF of one colour |
set -euo pipefail

DIR=${1:?usage: make-hostile-corpus.sh DIR}
mkdir -p "$DIR"
if [[ -f $DIR/.complete ]]; then exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log() { echo "make-hostile-corpus: $*" >&2; }

# flat W H BANDS VALUE OUT: a W×H image of one value in every band.
flat() { vips black "$tmp/black.v" "$1" "$2" --bands "$3" && vips linear "$tmp/black.v" "$5" 1 "$4" --uchar; }

# patch_jpeg_size IN OUT W H: rewrite the frame header (SOF0/1/2) of a JPEG to claim W×H.
patch_jpeg_size() {
  python3 - "$@" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
w, h = int(sys.argv[3]), int(sys.argv[4])
i = 2
while i + 9 < len(data) and data[i] == 0xFF:
    marker, length = data[i + 1], data[i + 2] << 8 | data[i + 3]
    if marker in (0xC0, 0xC1, 0xC2):
        data[i + 5:i + 7] = h.to_bytes(2, "big")
        data[i + 7:i + 9] = w.to_bytes(2, "big")
        break
    i += 2 + length
open(sys.argv[2], "wb").write(data)
EOF
}

log "making the hostile corpus in $DIR"
vips gaussnoise "$tmp/noise.v" 1000 1000 --sigma 20 --mean 128
vips colourspace "$tmp/noise.v" "$tmp/noise-srgb.v" srgb
vips cast "$tmp/noise-srgb.v" "$tmp/noise-rgb.v" uchar
# 10000x10000 of smooth content (noise upscaled): every pixel decodes, the file stays small.
vips resize "$tmp/noise-rgb.v" "$tmp/big-rgb.v" 10
vips copy "$tmp/big-rgb.v" "$DIR/prog-100mp.jpg[Q=95,interlace,strip]"
vips copy "$tmp/big-rgb.v" "$DIR/base-100mp.jpg[Q=85,strip]"
vips extract_area "$tmp/big-rgb.v" "$tmp/big-8k.v" 0 0 8000 8000
vips colourspace "$tmp/big-8k.v" "$tmp/cmyk.v" cmyk
vips copy "$tmp/cmyk.v" "$DIR/prog-cmyk-64mp.jpg[Q=90,interlace,strip]"

vips extract_area "$tmp/noise-rgb.v" "$tmp/small.v" 0 0 800 534
vips copy "$tmp/small.v" "$tmp/small.jpg[Q=85]"
vips copy "$tmp/small.v" "$tmp/small-prog.jpg[Q=85,interlace]"
patch_jpeg_size "$tmp/small.jpg" "$DIR/liar.jpg" 10000 10000
patch_jpeg_size "$tmp/small-prog.jpg" "$DIR/prog-liar.jpg" 10000 10000

flat 10000 10000 3 90 "$tmp/flat3.v"
vips copy "$tmp/flat3.v" "$DIR/bomb.png[compression=9]"
flat 10000 10000 4 200 "$tmp/flat4.v"
vips copy "$tmp/flat4.v" "$DIR/bomb-interlaced.png[compression=9,interlace]"
flat 6000 6000 4 120 "$tmp/flat4-6k.v"
vips cast "$tmp/flat4-6k.v" "$tmp/deep.v" ushort --shift
vips copy "$tmp/deep.v" "$tmp/deep-rgb16.v" --interpretation rgb16
vips copy "$tmp/deep-rgb16.v" "$DIR/deep-16bit.png[compression=9]"
flat 8000 8000 2 80 "$tmp/flat2.v"
vips cast "$tmp/flat2.v" "$tmp/grey16.v" ushort --shift
vips copy "$tmp/grey16.v" "$tmp/grey16-i.v" --interpretation grey16
vips copy "$tmp/grey16-i.v" "$DIR/grey-alpha.png[compression=9]"
flat 1 1 3 10 "$tmp/one.v"
vips copy "$tmp/one.v" "$tmp/one.png"
python3 - "$tmp/one.png" "$DIR/huge-header.png" <<'EOF'
import sys, struct, zlib
data = bytearray(open(sys.argv[1], "rb").read())
# IHDR is the first chunk: length(4) type(4) width(4) height(4) ... crc(4)
data[16:24] = struct.pack(">II", 60000, 60000)
data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
open(sys.argv[2], "wb").write(data)
EOF

flat 10000 10000 3 30 "$tmp/flat-gif.v"
vips copy "$tmp/flat-gif.v" "$DIR/bomb.gif"
python3 - "$DIR/animated.gif" 1000 1000 300 <<'EOF'
# An animated GIF of FRAMES frames of W×H, each of one colour (alternating),
# each frame compressed with a minimal LZW encoder.
import struct, sys
out, w, h, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def lzw(pixels, min_size=2):
    clear, end = 1 << min_size, (1 << min_size) + 1
    table = {bytes([i]): i for i in range(clear)}
    size, next_code, bits, nbits, outb = min_size + 1, end + 1, 0, 0, bytearray()
    def emit(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += size
        while nbits >= 8:
            outb.append(bits & 0xFF); bits >>= 8; nbits -= 8
    emit(clear)
    prefix = b""
    for p in pixels:
        candidate = prefix + bytes([p])
        if candidate in table:
            prefix = candidate
            continue
        emit(table[prefix])
        if next_code < 4096:
            table[candidate] = next_code
            next_code += 1
            if next_code > (1 << size) and size < 12:
                size += 1
        prefix = bytes([p])
    emit(table[prefix]); emit(end)
    if nbits: outb.append(bits & 0xFF)
    blocks = bytearray([min_size])
    for i in range(0, len(outb), 255):
        chunk = outb[i:i + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\0")

data = bytearray(b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF1, 0, 0))
data += bytes([255, 0, 0, 0, 0, 255, 0, 255, 0, 255, 255, 255])  # 4 colours
data += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop forever
frame = {c: lzw(bytes([c]) * (w * h)) for c in (0, 1)}
for n in range(frames):
    data += b"\x21\xF9\x04\x00\x0A\x00\x00\x00"  # 0.1 s a frame
    data += b"\x2C" + struct.pack("<HHHHB", 0, 0, w, h, 0) + frame[n % 2]
data += b"\x3B"
open(out, "wb").write(data)
EOF
vips copy "$tmp/flat3.v" "$DIR/bomb.webp[lossless]"
flat 6000 6000 3 150 "$tmp/flat-avif.v"
vips copy "$tmp/flat-avif.v" "$DIR/bomb.avif[compression=av1,effort=0,Q=30]"

touch "$DIR/.complete"
ls -l "$DIR" >&2
