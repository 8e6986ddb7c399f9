#!/bin/bash
# Writes the tiny GIF and APNG fixtures the ImageDecoding GIF/APNG tests read (gif-*.gif,
# apng-*.png in this folder). Hand-made byte by byte with Python, so each file holds exactly the
# records or chunks a test is about (disposal modes, blend ops, interlacing, colour maps…), which
# encoders such as ImageMagick would optimise away. Deterministic: rerunning gives the same bytes.
set -euo pipefail
cd "$(dirname "$0")"
/usr/bin/python3 - <<'PY'
import struct, zlib

# ---------- GIF ----------
def lzw(indices, min_code_size):
    """Uncompressed LZW: a clear code before every run of 2^m - 2 pixels keeps the code width
    at m + 1 bits, so no dictionary is needed."""
    clear, eoi, width = 1 << min_code_size, (1 << min_code_size) + 1, min_code_size + 1
    codes, run = [], (1 << min_code_size) - 2
    for i in range(0, len(indices), run):
        codes.append(clear)
        codes.extend(indices[i:i + run])
    codes.append(eoi)
    bits, nbits, out = 0, 0, bytearray()
    for c in codes:
        bits |= c << nbits
        nbits += width
        while nbits >= 8:
            out.append(bits & 0xFF); bits >>= 8; nbits -= 8
    if nbits:
        out.append(bits & 0xFF)
    blocks = bytearray([min_code_size])
    for i in range(0, len(out), 255):
        chunk = out[i:i + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\0")

def palette_bytes(colours, bits):
    colours = colours + [(0, 0, 0)] * ((1 << bits) - len(colours))
    return b"".join(bytes(c) for c in colours)

def gif(width, height, global_colours, frames, loop=None, bits=2):
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80 | (bits - 1), 0, 0))
    out += palette_bytes(global_colours, bits)
    if loop is not None:
        out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\0"
    for f in frames:
        if "disposal" in f or "delay" in f or "transparent" in f:
            packed = (f.get("disposal", 0) << 2) | (1 if "transparent" in f else 0)
            out += b"\x21\xf9\x04" + struct.pack("<BHB", packed, f.get("delay", 0), f.get("transparent", 0)) + b"\0"
        x, y, w, h = f["rect"]
        rows = f["pixels"]
        order = list(range(h))
        flags = 0
        if f.get("interlaced"):
            order = list(range(0, h, 8)) + list(range(4, h, 8)) + list(range(2, h, 4)) + list(range(1, h, 2))
            flags |= 0x40
        local = f.get("local")
        if local:
            flags |= 0x80 | (bits - 1)
        out += b"\x2c" + struct.pack("<HHHHB", x, y, w, h, flags)
        if local:
            out += palette_bytes(local, bits)
        out += lzw([p for r in order for p in rows[r]], max(bits, 2))
    return bytes(out + b"\x3b")

RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)
def fill(w, h, i): return [[i] * w for _ in range(h)]

# One frame, 4×4: left half red, right half index 1, which the GCE makes transparent.
open("gif-transparent.gif", "wb").write(gif(4, 4, [RED, GREEN], [
    {"rect": (0, 0, 4, 4), "transparent": 1, "pixels": [[0, 0, 1, 1]] * 4}]))

# Disposal: frame 0 fills the 4×4 canvas red; frame 1 draws green over (0,0)-(1,1) with the
# disposal under test; frame 2 draws one blue pixel at (3,3), so it shows what frame 1 left.
def disposal_gif(mode, loop, delays):
    return gif(4, 4, [RED, GREEN, BLUE, WHITE], [
        {"rect": (0, 0, 4, 4), "disposal": 1, "delay": delays[0], "pixels": fill(4, 4, 0)},
        {"rect": (0, 0, 2, 2), "disposal": mode, "delay": delays[1], "pixels": fill(2, 2, 1)},
        {"rect": (3, 3, 1, 1), "disposal": 1, "delay": delays[2], "pixels": fill(1, 1, 2)}], loop=loop)
open("gif-dispose-none.gif", "wb").write(disposal_gif(1, 0, (0, 1, 25)))
open("gif-dispose-background.gif", "wb").write(disposal_gif(2, 3, (10, 10, 10)))
open("gif-dispose-previous.gif", "wb").write(disposal_gif(3, None, (10, 10, 10)))

# Interlaced 2×8, row y in colour y (8 colours, 3 bits).
RAINBOW = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255), (255, 255, 255)]
open("gif-interlaced.gif", "wb").write(gif(2, 8, RAINBOW, [
    {"rect": (0, 0, 2, 8), "interlaced": True, "pixels": [[y, y] for y in range(8)]}], bits=3))

# Local colour map: frame 0 uses the global map (index 0 red), frame 1 its own (index 0 yellow)
# over the right half, which also reaches 2 pixels beyond the 4×2 canvas (clipped).
open("gif-local-colormap.gif", "wb").write(gif(4, 2, [RED, GREEN], [
    {"rect": (0, 0, 4, 2), "disposal": 1, "pixels": fill(4, 2, 0)},
    {"rect": (2, 0, 4, 2), "local": [(255, 255, 0), (0, 255, 255)], "pixels": [[0, 1, 1, 1]] * 2}]))

# ---------- APNG ----------
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

def rgba_data(w, h, colour):
    raw = b"".join(b"\0" + bytes(colour) * w for _ in range(h))
    return zlib.compress(raw, 9)

def fctl(seq, w, h, x, y, num, den, dispose, blend):
    return chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, x, y, num, den, dispose, blend))

def apng(width, height, frames, plays, default=None, claimed_frames=None):
    """frames: (w, h, x, y, num, den, dispose, blend, colour). With `default`, a colour for a
    default image that is not part of the animation; otherwise frame 0 is the IDAT image."""
    out = bytearray(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)))
    out += chunk(b"acTL", struct.pack(">II", claimed_frames or len(frames), plays))
    seq = 0
    if default is not None:
        out += chunk(b"IDAT", rgba_data(width, height, default))
    for i, (w, h, x, y, num, den, dispose, blend, colour) in enumerate(frames):
        out += fctl(seq, w, h, x, y, num, den, dispose, blend); seq += 1
        data = rgba_data(w, h, colour)
        if i == 0 and default is None:
            out += chunk(b"IDAT", data)
        else:
            out += chunk(b"fdAT", struct.pack(">I", seq) + data); seq += 1
    return bytes(out + chunk(b"IEND", b""))

R, HALF_BLUE, G, WHITE4 = (255, 0, 0, 255), (0, 0, 255, 128), (0, 255, 0, 255), (255, 255, 255, 255)
NONE, BACKGROUND, PREVIOUS, SOURCE, OVER = 0, 1, 2, 0, 1
# Frame 1 (half-transparent blue at (0,0), 2×2) blends OVER the red and is disposed to
# BACKGROUND; frame 2 puts one green pixel at (3,3).
open("apng-over-background.png", "wb").write(apng(4, 4, [
    (4, 4, 0, 0, 1, 10, NONE, SOURCE, R),
    (2, 2, 0, 0, 0, 0, BACKGROUND, OVER, HALF_BLUE),
    (1, 1, 3, 3, 50, 100, NONE, SOURCE, G)], plays=2))
# The same frames with SOURCE and PREVIOUS, looping forever; frame 1's delay of 50/0 means 50/100.
open("apng-source-previous.png", "wb").write(apng(4, 4, [
    (4, 4, 0, 0, 1, 10, NONE, SOURCE, R),
    (2, 2, 0, 0, 50, 0, PREVIOUS, SOURCE, HALF_BLUE),
    (1, 1, 3, 3, 1, 10, NONE, SOURCE, G)], plays=0))
# A white default image outside the animation, then two animation frames.
open("apng-default-excluded.png", "wb").write(apng(4, 4, [
    (4, 4, 0, 0, 1, 10, NONE, SOURCE, R),
    (2, 2, 2, 2, 1, 10, NONE, SOURCE, G)], plays=1, default=WHITE4))
# Frame 1 claims 2×2 at (3,0) on a 4×4 canvas: outside it.
open("apng-frame-outside.png", "wb").write(apng(4, 4, [
    (4, 4, 0, 0, 1, 10, NONE, SOURCE, R),
    (2, 2, 3, 0, 1, 10, NONE, SOURCE, G)], plays=0))
# acTL claims 100 000 frames; one is there.
open("apng-too-many-frames.png", "wb").write(apng(1, 1, [
    (1, 1, 0, 0, 1, 10, NONE, SOURCE, R)], plays=0, claimed_frames=100_000))
PY
