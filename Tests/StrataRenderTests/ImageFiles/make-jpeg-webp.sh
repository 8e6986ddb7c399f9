#!/usr/bin/env bash
# Makes the JPEG and WebP files the decoding tests read, from one pattern drawn here: four flat
# quadrants (red, green, blue, white) in 64×48 pixels, so that a decoder's colours, orientation and
# scaling can be checked at each quadrant's centre even through lossy compression. Run by hand
# after changing it (ImageMagick, libjpeg-turbo-progs and webp); the files are committed.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

quadrants() { # WIDTH HEIGHT OUT: the pattern at any size
    local w=$(($1 / 2)) h=$(($2 / 2))
    convert \( -size ${w}x$h xc:'#ff0000' -size ${w}x$h xc:'#00ff00' +append \) \
            \( -size ${w}x$h xc:'#0000ff' -size ${w}x$h xc:'#ffffff' +append \) -append "$3"
}
quadrants 64 48 "$work/pattern.png"

convert "$work/pattern.png" -strip -quality 95 jpeg-baseline.jpg
convert "$work/pattern.png" -strip -quality 95 -interlace Plane jpeg-progressive.jpg
convert "$work/pattern.png" -strip -quality 95 -colorspace Gray jpeg-gray.jpg
# ImageMagick writes CMYK as Adobe's applications do: inverted, with an APP14 "Adobe" marker.
convert "$work/pattern.png" -strip -quality 95 -colorspace CMYK jpeg-cmyk.jpg
# A camera-sized photo for the downscaled decode: 6000×4000 of the same quadrants.
quadrants 6000 4000 "$work/large.png"
convert "$work/large.png" -strip -quality 80 jpeg-6000x4000.jpg

# EXIF orientations 1 to 8: the stored pixels are the pattern turned by the inverse of what the
# tag says, so every file shows the same upright pattern.
inverse=(none -flop "-rotate 180" -flip -transpose "-rotate 270" -transverse "-rotate 90")
for n in 1 2 3 4 5 6 7 8; do
    op=${inverse[$((n - 1))]}
    [ "$op" = none ] && op=""
    # shellcheck disable=SC2086
    convert "$work/pattern.png" $op -strip -quality 95 "$work/stored.jpg"
    # An APP1 "Exif" block holding one IFD entry, Orientation (0x0112, SHORT, 1) = n, inserted
    # after the SOI marker.
    /usr/bin/python3 - "$work/stored.jpg" "jpeg-orientation-$n.jpg" "$n" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
tiff = b'MM\x00\x2a' + struct.pack('>I', 8) + struct.pack('>H', 1) \
    + struct.pack('>HHIHH', 0x0112, 3, 1, int(sys.argv[3]), 0) + struct.pack('>I', 0)
payload = b'Exif\x00\x00' + tiff
app1 = b'\xff\xe1' + struct.pack('>H', len(payload) + 2) + payload
open(sys.argv[2], 'wb').write(data[:2] + app1 + data[2:])
PY
done

cwebp -quiet -q 95 "$work/pattern.png" -o webp-lossy.webp
cwebp -quiet -lossless "$work/pattern.png" -o webp-lossless.webp
# Alpha: the green quadrant fully transparent, the white one half transparent (alpha 128).
convert "$work/pattern.png" \( -size 64x48 xc:white -fill black -draw 'rectangle 32,0 63,23' \
        -fill '#808080' -draw 'rectangle 32,24 63,47' \) -alpha off -compose CopyOpacity -composite "$work/alpha.png"
cwebp -quiet -lossless -exact "$work/alpha.png" -o webp-alpha-lossless.webp
cwebp -quiet -q 95 -alpha_q 100 "$work/alpha.png" -o webp-alpha-lossy.webp
# An animation: red for 50 ms, green for 0 ms (played at 100 ms), blue for 300 ms, three plays.
for c in red:ff0000 green:00ff00 blue:0000ff; do convert -size 16x16 xc:"#${c#*:}" "$work/${c%%:*}.png"; done
# img2webp refuses a 0 ms frame, so webpmux sets it afterwards.
img2webp -loop 3 -lossless -d 50 "$work/red.png" -d 10 "$work/green.png" -d 300 "$work/blue.png" -o "$work/animated.webp"
webpmux -duration 0,2,2 "$work/animated.webp" -o webp-animated.webp
