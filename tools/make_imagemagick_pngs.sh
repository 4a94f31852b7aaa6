#!/usr/bin/env bash
# Writes the PNG test files of tests/data/png-imagemagick with ImageMagick (6 or 7): every
# colour type and bit depth, plain and Adam7-interlaced, from one small synthetic image with
# an alpha channel. The PNG decode tests hold hetcodec's samples to libpng's for each.
# usage: tools/make_imagemagick_pngs.sh OUTDIR
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
im=$(command -v magick || command -v convert)
mkdir -p "$out"
src="$out/.source.png"
# 37x23: not a multiple of 8 either way, so every Adam7 pass is partial.
"$im" -seed 7 -size 37x23 plasma:red-blue -attenuate 0.4 +noise Gaussian \
  \( -size 37x23 gradient:white-black \) -alpha off -compose CopyOpacity -composite "$src"
write() {  # name, then ImageMagick options
  local name=$1; shift
  for il in none png; do
    local suffix=""; [ "$il" = png ] && suffix="-adam7"
    "$im" "$src" "$@" -interlace "$il" "$out/$name$suffix.png"
  done
}
for d in 1 2 4 8 16; do
  write "gray$d" -alpha off -colorspace Gray -depth "$d" -define png:color-type=0 -define png:bit-depth="$d"
done
for d in 8 16; do
  write "grayalpha$d" -colorspace Gray -depth "$d" -define png:color-type=4 -define png:bit-depth="$d"
  write "rgb$d" -alpha off -depth "$d" -define png:color-type=2 -define png:bit-depth="$d"
  write "rgba$d" -depth "$d" -define png:color-type=6 -define png:bit-depth="$d"
done
# ImageMagick picks the palette depth from the colour count (4 or 8 bits here; it writes two
# colours as gray): 1- and 2-bit palettes come from PngSuite and libpng.
write "palette-4colours" -alpha off -colors 4 -define png:color-type=3
write "palette-16colours" -alpha off -colors 16 -define png:color-type=3
write "palette-200colours" -alpha off -colors 200 -define png:color-type=3
# PNG8 with binary transparency: a palette image with a tRNS chunk.
for il in none png; do
  suffix=""; [ "$il" = png ] && suffix="-adam7"
  "$im" "$src" -channel A -threshold 50% +channel -colors 100 -interlace "$il" \
    "PNG8:$out/palette-trns$suffix.png"
done
rm -f "$src"
