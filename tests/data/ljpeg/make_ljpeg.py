#!/usr/bin/env python3
"""Makes the lossless JPEG (ITU-T T.81 process 14, SOF3, Huffman) test files in this folder.

Needs, from PyPI: imagecodecs (bundling libjpeg-turbo 3, the oracle), numpy, pydicom and
pydicom-data (DICOM test files carrying lossless JPEG frames); from Debian 12: ffmpeg (5.1, its
`ljpeg` encoder). Run it from anywhere: python3 make_ljpeg.py. It rewrites every .jpg here,
manifest.txt and bad.txt; it is deterministic (fixed seeds, inputs fed to FFmpeg as raw
frames, FFmpeg in bitexact mode).

Four encoders make the good files:
  ic-*     imagecodecs.jpeg8_encode (libjpeg-turbo 3): predictors 1-7, precisions 2-16,
           1 to 4 components, odd sizes. It offers no restart interval and no point transform.
  wr-*     the writer below, written from T.81 Annex H (coding model), Annex C (code tables)
           and Annex K.2 (optimal tables): restart intervals, point transform, one scan per
           component and 2+1 splits, predictor and table changes between scans, fixed and
           optimal tables, 16-bit differences of 32768.
  ff-*     FFmpeg's ljpeg encoder (BGR in its reversible colour transform at 9 bits; YCbCr
           with sampling factors; 4:2:0 is listed as unsupported).
  dicom-*  the encapsulated frames of pydicom's lossless JPEG test files, bytes unchanged.
Every file is decoded by libjpeg-turbo 3 (imagecodecs.jpeg8_decode) and, where we know what
went in, its samples must equal the input, or this script fails.

bad-* files are derived from good ones; bad.txt records what libjpeg-turbo 3 does with each.
Digests are 64-bit FNV-1a of the decoded samples, row-major H x W x C: bytes for precision <= 8,
big-endian 16-bit words above.
"""

import glob
import os
import subprocess
import sys
import zlib

import imagecodecs
import numpy as np
import pydicom
from pydicom.encaps import generate_frames

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, '..', '..', '..', 'tools', 'demo-images')


# ---------------------------------------------------------------------------------------------
# digests and parsing


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return '%016x' % h


def sample_bytes(a):
    return a.tobytes() if a.dtype == np.uint8 else a.astype('>u2').tobytes()


def digest(a):
    return fnv1a64(sample_bytes(a))


def parse(data):
    """Frame and scan headers of a JPEG stream (T.81 B.2): what the manifest lists."""
    info = {'sof': None, 'scans': [], 'dri': 0}
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            i += 1  # entropy-coded data
            continue
        m = data[i + 1]
        if m == 0xFF or m == 0x00 or 0xD0 <= m <= 0xD7:
            i += 1 if m == 0xFF else 2
            continue
        if m == 0xD9:
            break
        n = data[i + 2] << 8 | data[i + 3]
        seg = data[i + 4:i + 2 + n]
        if m in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            comps = [(seg[6 + 3 * k], seg[7 + 3 * k] >> 4, seg[7 + 3 * k] & 15)
                     for k in range(seg[5])]
            info['sof'] = (m, seg[0], seg[1] << 8 | seg[2], seg[3] << 8 | seg[4], comps)
        elif m == 0xDD:
            info['dri'] = seg[0] << 8 | seg[1]
        elif m == 0xDA:
            ns = seg[0]
            info['scans'].append({'comps': [seg[1 + 2 * k] for k in range(ns)],
                                  'ss': seg[1 + 2 * ns], 'al': seg[3 + 2 * ns] & 15,
                                  'dri': info['dri']})
        i += 2 + n
    return info


# ---------------------------------------------------------------------------------------------
# source images


def demo(name):
    with open(os.path.join(DEMO, name), 'rb') as f:
        data = f.read()
    return imagecodecs.png_decode(data) if name.endswith('.png') else imagecodecs.jpeg8_decode(data)


def rng_for(key):
    return np.random.default_rng(zlib.crc32(key.encode()))


def photo(kind, w, h, precision, key):
    """A crop of a real photo at `precision` bits: a 16-bit expansion with fine noise, so the
    low bits are used too, shifted down to the precision."""
    rng = rng_for(key)
    if kind == 'gray':
        src = demo('camera-gray.jpg')[:, :, None]
    elif kind == 'rgb':
        src = demo('coffee-rgb16.png') if precision > 8 else demo('chelsea-rgb.png')
    elif kind == 'ga':
        src = demo('astronaut-rgba.png')[:, :, [0, 3]]
    else:
        src = demo('astronaut-rgba.png')
    noise = rng.integers(-300, 301, (h, w, src.shape[2]))
    best = None
    for _ in range(8):  # the busiest of a few crops, so that 2 bits are not one flat sky
        y0 = int(rng.integers(0, src.shape[0] - h + 1))
        x0 = int(rng.integers(0, src.shape[1] - w + 1))
        crop = src[y0:y0 + h, x0:x0 + w].astype(np.int64)
        wide = crop * 257 if src.dtype == np.uint8 else crop
        scaled = np.clip(wide + noise, 0, 65535) >> (16 - precision)
        if best is None or scaled.std() > best.std():
            best = scaled
    return best


def synthetic(kind, w, h, c, precision, key):
    rng = rng_for(key)
    top = (1 << precision) - 1
    y, x = np.mgrid[0:h, 0:w]
    if kind == 'flat':
        a = np.full((h, w, c), top * 2 // 3, np.int64)
    elif kind == 'hgrad':
        a = np.repeat((x * top // max(w - 1, 1))[:, :, None], c, 2)
    elif kind == 'dgrad':
        a = np.stack([((x + y + 5 * k) * top // (w + h)) % (top + 1) for k in range(c)], 2)
    elif kind == 'noise':
        a = rng.integers(0, top + 1, (h, w, c))
    elif kind == 'extremes':  # 0 and the top value, alternating: the largest differences
        a = np.repeat((((x + y) & 1) * top)[:, :, None], c, 2)
    else:
        raise ValueError(kind)
    return a.astype(np.int64)


def as_array(a, precision):
    """(H, W, C) int array to the dtype and shape imagecodecs uses."""
    a = a.astype(np.uint8 if precision <= 8 else np.uint16)
    return a[:, :, 0] if a.shape[2] == 1 else a


# ---------------------------------------------------------------------------------------------
# the writer: T.81 Annex H (lossless coding model), Annex C and K.2 (Huffman tables)

# Annex K Table K.3, extended from category 11 to 16 with one code per length up to 14 bits.
FIXED_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
K3_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]


def optimal_table(freq):
    """BITS and HUFFVAL for symbol counts `freq` (K.2: Figures K.1, K.2, K.3 and K.4)."""
    freq = list(freq) + [0] * (257 - len(freq))
    freq[256] = 1  # reserves one code point so that no code is all 1-bits
    codesize = [0] * 257
    others = [-1] * 257
    while True:
        live = [v for v in range(257) if freq[v] > 0]
        if len(live) < 2:
            break
        v1 = min(live, key=lambda v: (freq[v], -v))
        v2 = min((v for v in live if v != v1), key=lambda v: (freq[v], -v))
        freq[v1] += freq[v2]
        freq[v2] = 0
        for v in (v1, v2):
            codesize[v] += 1
            while others[v] != -1:
                v = others[v]
                codesize[v] += 1
        while others[v1] != -1:
            v1 = others[v1]
        others[v1] = v2
    bits = [0] * 33
    for v in range(257):
        if codesize[v]:
            bits[codesize[v]] += 1
    i = 32
    while i > 16:  # K.3: no code longer than 16 bits
        if bits[i] > 0:
            j = i - 2
            while bits[j] == 0:
                j -= 1
            bits[i] -= 2
            bits[i - 1] += 1
            bits[j + 1] += 2
            bits[j] -= 1
        else:
            i -= 1
    while bits[i] == 0:
        i -= 1
    bits[i] -= 1  # the reserved code point
    vals = [v for size in range(1, 33) for v in range(256) if codesize[v] == size]
    return bits[1:17], vals


def code_table(bits, vals):
    """Symbol -> (code, length), Annex C (Figures C.1 to C.3)."""
    sizes = [n + 1 for n in range(16) for _ in range(bits[n])]
    codes = {}
    code = 0
    k = 0
    si = sizes[0] if sizes else 0
    while k < len(sizes):
        while k < len(sizes) and sizes[k] == si:
            codes[vals[k]] = (code, si)
            code += 1
            k += 1
        code <<= 1
        si += 1
    return codes


def predictions(s, pred, p_eff, restart, w):
    """Px for every sample of one component, H.1.2.1 and Table H.1 (samples `s` after the
    point transform). A restart interval starts again as the first line does."""
    h = s.shape[0]
    ra = np.zeros_like(s)
    rb = np.zeros_like(s)
    rc = np.zeros_like(s)
    ra[:, 1:] = s[:, :-1]
    rb[1:, :] = s[:-1, :]
    rc[1:, 1:] = s[:-1, :-1]
    px = {1: ra, 2: rb, 3: rc, 4: ra + rb - rc, 5: ra + ((rb - rc) >> 1),
          6: rb + ((ra - rc) >> 1), 7: (ra + rb) >> 1}[pred].copy()
    y, x = np.mgrid[0:h, 0:w]
    m = y * w + x
    start = (m // restart) * restart if restart else np.zeros_like(m)
    px = np.where(x == 0, rb, px)
    px = np.where(y == start // w, ra, px)
    return np.where(m == start, 1 << (p_eff - 1), px)


def category(d):
    return 16 if d == 32768 else abs(d).bit_length()


class BitWriter:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value, n):
        self.acc = (self.acc << n) | value
        self.n += n
        while self.n >= 8:
            self.n -= 8
            byte = (self.acc >> self.n) & 0xFF
            self.out.append(byte)
            if byte == 0xFF:
                self.out.append(0)  # F.1.2.3 byte stuffing
            self.acc &= (1 << self.n) - 1

    def align(self):
        if self.n:
            self.put((1 << (8 - self.n)) - 1, 8 - self.n)


def segment(marker, payload):
    return bytes([0xFF, marker]) + (len(payload) + 2).to_bytes(2, 'big') + bytes(payload)


def dht(tables):
    payload = bytearray()
    for th, (bits, vals) in sorted(tables.items()):
        payload += bytes([th]) + bytes(bits) + bytes(vals)
    return segment(0xC4, payload)


def write_ljpeg(img, precision, scans, restart=0, pt=0, huff='optimal', comment=None,
                fill_before_rst=False, drop_code=False):
    """Encodes `img` (H, W, C ints of `precision` bits) as SOF3.

    scans: list of (component indices, predictor, table per component). Every component has
    sampling factors 1x1, so an MCU is one sample of each component of the scan and a row has
    W MCUs. restart: Ri in MCUs (0: no DRI). pt: the point transform Al of every scan.
    huff: 'optimal' (one DHT per scan, K.2), 'fixed' or 'k3' (one DHT before the first scan).
    drop_code: the DHT leaves out the last code of its longest length (a bad file).
    """
    h, w, c = img.shape
    p_eff = precision - pt
    stored = img.astype(np.int64) >> pt
    out = bytearray(b'\xff\xd8')
    if comment:
        out += segment(0xFE, comment.encode())
    out += segment(0xC3, bytes([precision, h >> 8, h & 255, w >> 8, w & 255, c]) +
                   b''.join(bytes([k + 1, 0x11, 0]) for k in range(c)))
    if restart:
        out += segment(0xDD, restart.to_bytes(2, 'big'))
    diffs = []
    for comps, pred, _ in scans:
        d = [(stored[:, :, k] - predictions(stored[:, :, k], pred, p_eff, restart, w)) & 0xFFFF
             for k in comps]
        diffs.append([np.where(x > 32768, x - 65536, x) for x in d])
    fixed = {'fixed': FIXED_BITS, 'k3': K3_BITS}.get(huff)
    for n, (comps, pred, tsel) in enumerate(scans):
        if fixed is None:  # a DHT before every scan, as its own statistics want
            tables = {}
            for t in sorted(set(tsel)):
                freq = [0] * 17
                for k, d in enumerate(diffs[n]):
                    if tsel[k] == t:
                        for v in d.ravel():
                            freq[category(int(v))] += 1
                tables[t] = optimal_table(freq)
        elif n == 0:  # one DHT for the whole frame
            tables = {t: (fixed, list(range(sum(fixed)))) for s in scans for t in s[2]}
        else:
            tables = {}
        if tables:
            codes = {t: code_table(*tables[t]) for t in tables}
            if drop_code:
                tables = {t: (bits[:last] + [bits[last] - 1] + bits[last + 1:], vals[:-1])
                          for t, (bits, vals) in tables.items()
                          for last in [max(i for i in range(16) if bits[i])]}
            out += dht(tables)
        out += segment(0xDA, bytes([len(comps)]) +
                       b''.join(bytes([k + 1, tsel[j] << 4]) for j, k in enumerate(comps)) +
                       bytes([pred, 0, pt]))
        bw = BitWriter()
        flat = [d.ravel() for d in diffs[n]]
        for m in range(h * w):
            if restart and m and m % restart == 0:
                bw.align()
                if fill_before_rst:
                    bw.out += b'\xff\xff'  # B.1.1.2: fill bytes may precede any marker
                bw.out += bytes([0xFF, 0xD0 + (m // restart - 1) % 8])
            for j in range(len(comps)):
                v = int(flat[j][m])
                s = category(v)
                code, size = codes[tsel[j]][s]
                bw.put(code, size)
                if 0 < s < 16:
                    bw.put(v if v >= 0 else v + (1 << s) - 1, s)
        bw.align()
        out += bw.out
    out += b'\xff\xd9'
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# the files

GOOD = []  # (name, source, expected samples or None, note)
BAD = []


def emit(name, data):
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(data)
    return data


def check_equal(name, got, want):
    if got.shape != want.shape or not np.array_equal(got, want):
        raise SystemExit(f'{name}: libjpeg-turbo does not give back the samples that went in')


def make_imagecodecs():
    cases = []
    for precision in (2, 8, 12, 16):
        for pred in range(1, 8):
            cases.append(('gray', 64, 33, precision, pred))
    for pred in range(1, 8):
        cases.append(('rgb', 37, 23, 8, pred))
    for precision, pred in ((12, 1), (12, 4), (16, 7), (16, 5), (4, 2), (10, 4), (14, 7)):
        cases.append(('rgb', 37, 23, precision, pred))
    for precision, pred in ((4, 1), (4, 6), (10, 3), (14, 5)):
        cases.append(('gray', 64, 33, precision, pred))
    cases += [('rgba', 37, 23, 8, 1), ('rgba', 37, 23, 8, 5), ('rgba', 37, 23, 16, 6),
              ('ga', 37, 23, 8, 7), ('ga', 37, 23, 12, 2),
              ('gray', 1, 1, 8, 1), ('rgb', 1, 1, 16, 7), ('gray', 1, 17, 12, 2),
              ('gray', 17, 1, 16, 4), ('rgb', 1, 17, 8, 6), ('rgb', 17, 1, 8, 3),
              ('gray', 301, 7, 12, 5), ('rgb', 301, 7, 8, 3),
              ('gray', 257, 70, 16, 4), ('rgb', 255, 71, 8, 7), ('gray', 256, 70, 8, 6)]
    for kind, w, h, precision, pred in cases:
        name = f'ic-{kind}{precision}-pred{pred}-{w}x{h}.jpg'
        a = as_array(photo(kind, w, h, precision, name), precision)
        GOOD.append((name, 'imagecodecs', encode_ic(name, a, precision, pred), None))
    synth = [('flat', 64, 33, 1, 16, 1), ('flat', 37, 23, 3, 8, 4), ('hgrad', 64, 33, 1, 12, 2),
             ('dgrad', 64, 33, 3, 16, 5), ('noise', 37, 23, 1, 16, 1), ('noise', 37, 23, 3, 8, 7),
             ('noise', 64, 33, 1, 2, 4), ('extremes', 37, 23, 1, 16, 6),
             ('extremes', 37, 23, 3, 12, 4)]
    for kind, w, h, c, precision, pred in synth:
        name = f'ic-{kind}{c}x{precision}-pred{pred}-{w}x{h}.jpg'
        a = as_array(synthetic(kind, w, h, c, precision, name), precision)
        GOOD.append((name, 'imagecodecs', encode_ic(name, a, precision, pred), None))


def encode_ic(name, a, precision, pred):
    data = imagecodecs.jpeg8_encode(a, lossless=True, predictor=pred, bitspersample=precision)
    emit(name, data)
    check_equal(name, imagecodecs.jpeg8_decode(data), a)
    return a


def make_writer():
    def add(name, img, precision, pt=0, **kw):
        data = emit(name, write_ljpeg(img, precision, pt=pt, **kw))
        want = as_array((img >> pt) << pt, precision)
        check_equal(name, imagecodecs.jpeg8_decode(data), want)
        GOOD.append((name, 'writer', want, None))

    g12 = photo('gray', 37, 23, 12, 'wr-g12')
    rgb8 = photo('rgb', 64, 33, 8, 'wr-rgb8')
    rgb12 = photo('rgb', 37, 23, 12, 'wr-rgb12')
    rgb16 = photo('rgb', 37, 23, 16, 'wr-rgb16')
    g16 = photo('gray', 64, 33, 16, 'wr-g16')
    g8 = photo('gray', 64, 33, 8, 'wr-g8')
    cmyk = photo('rgba', 37, 23, 8, 'wr-cmyk8')
    one = [((0,), 1, (0,))]

    def inter3(pred):  # one interleaved scan; components 2 and 3 share table 1
        return [((0, 1, 2), pred, (0, 1, 1))]

    # restart intervals: 1 row, 3 rows (RST0..7 wrap), a last interval cut short by the
    # image's end, an interval longer than the image, fill bytes before every RSTn
    add('wr-gray12-pred4-37x23-rst1row.jpg', g12, 12, scans=[((0,), 4, (0,))], restart=37)
    add('wr-rgb8-pred7-64x33-rst3rows.jpg', rgb8, 8, scans=inter3(7), restart=3 * 64)
    add('wr-gray16-pred6-64x33-rst5rows-short-last.jpg', g16, 16, scans=[((0,), 6, (0,))],
        restart=5 * 64)
    add('wr-gray8-pred2-64x33-rst-longer-than-image.jpg', g8, 8, scans=[((0,), 2, (0,))],
        restart=40 * 64)
    add('wr-rgb12-pred5-37x23-rst2rows-fill.jpg', rgb12, 12, scans=inter3(5), restart=2 * 37,
        fill_before_rst=True)
    # point transform
    add('wr-gray12-pred1-37x23-pt2.jpg', g12, 12, pt=2, scans=[((0,), 1, (0,))])
    add('wr-rgb16-pred6-37x23-pt4.jpg', rgb16, 16, pt=4, scans=inter3(6))
    add('wr-gray8-pred7-64x33-pt1-rst1row.jpg', g8, 8, pt=1, scans=[((0,), 7, (0,))],
        restart=64)
    add('wr-gray2-pred1-64x33-pt1.jpg', photo('gray', 64, 33, 2, 'wr-g2pt'), 2, pt=1, scans=one)
    # one scan per component, with the predictor switched between scans
    add('wr-rgb8-pred1-2-3-64x33-3scans.jpg', rgb8, 8,
        scans=[((0,), 1, (0,)), ((1,), 2, (0,)), ((2,), 3, (0,))])
    add('wr-rgb12-pred4-5-6-37x23-3scans-rst2rows.jpg', rgb12, 12, restart=2 * 37,
        scans=[((0,), 4, (0,)), ((1,), 5, (1,)), ((2,), 6, (0,))])
    add('wr-rgb16-pred7-1-37x23-2plus1scans.jpg', rgb16, 16,
        scans=[((0, 1), 7, (0, 1)), ((2,), 1, (2,))])
    add('wr-rgb8-pred3-5-64x33-1plus2scans-fixed.jpg', rgb8, 8, huff='fixed',
        scans=[((0,), 3, (0,)), ((1, 2), 5, (1, 0))])
    add('wr-cmyk8-pred4-37x23-2plus2scans-rst1row.jpg', cmyk, 8, restart=37,
        scans=[((0, 1), 4, (0, 1)), ((2, 3), 2, (2, 3))])
    # fixed tables: T.81 K.3 for 8 bits, K.3 extended to 16 categories for 16 bits
    add('wr-gray8-pred1-64x33-k3table.jpg', g8, 8, huff='k3', scans=one, comment='K.3 table')
    add('wr-rgb16-pred4-37x23-fixedtable.jpg', rgb16, 16, huff='fixed', scans=inter3(4))
    # 16 bits: differences of 32768 (SSSS 16, no extra bits), wrapping differences
    ext = synthetic('extremes', 37, 23, 1, 16, 'wr-ext')
    half = np.where(ext > 0, 32768, 0)
    add('wr-gray16-pred1-37x23-diff32768.jpg', half, 16, scans=one)
    add('wr-gray16-pred4-37x23-extremes.jpg', ext, 16, scans=[((0,), 4, (0,))], huff='fixed')
    add('wr-gray16-pred7-64x33-noise-rst1row.jpg', synthetic('noise', 64, 33, 1, 16, 'wr-n16'),
        16, scans=[((0,), 7, (0,))], restart=64)
    # precision 2
    add('wr-gray2-pred5-37x23.jpg', synthetic('noise', 37, 23, 1, 2, 'wr-n2'), 2,
        scans=[((0,), 5, (0,))])
    add('wr-rgb2-pred6-37x23-rst1row.jpg', photo('rgb', 37, 23, 2, 'wr-rgb2'), 2,
        scans=inter3(6), restart=37)
    add('wr-gray8-pred1-1x1.jpg', photo('gray', 1, 1, 8, 'wr-1x1'), 8, scans=one)
    add('wr-rgb8-pred2-1x17-rst1row.jpg', photo('rgb', 1, 17, 8, 'wr-1x17'), 8, scans=inter3(2),
        restart=1)


def ffmpeg(args, raw):
    cmd = ['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y'] + args
    return subprocess.run(cmd, input=raw, capture_output=True, check=True).stdout


def make_ffmpeg():
    common = ['-frames:v', '1', '-c:v', 'ljpeg', '-flags', '+bitexact', '-fflags', '+bitexact',
              '-f', 'mjpeg', '-']
    for pred, (w, h) in ((1, (37, 23)), (2, (64, 33)), (3, (17, 5))):
        name = f'ff-bgr24-pred{pred}-{w}x{h}.jpg'
        rgb = photo('rgb', w, h, 8, name)
        bgr = rgb[:, :, ::-1].astype(np.uint8)
        data = emit(name, ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'bgr24', '-s', f'{w}x{h}',
                                  '-i', '-', '-pred', str(pred)] + common, bgr.tobytes()))
        # FFmpeg stores BGR in a reversible transform at 9 bits: (B+2G+R)/4, B-G+256, R-G+256
        b, g, r = (bgr[:, :, k].astype(np.int64) for k in range(3))
        want = np.stack([(b + 2 * g + r) >> 2, b - g + 256, r - g + 256], 2).astype(np.uint16)
        check_equal(name, imagecodecs.jpeg8_decode(data), want)
        GOOD.append((name, 'ffmpeg', want, 'samples are FFmpeg\'s colour transform of BGR'))
    w, h = 37, 23
    name = f'ff-bgra-pred1-{w}x{h}.jpg'
    rgba = photo('rgba', w, h, 8, name).astype(np.uint8)
    data = emit(name, ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'bgra', '-s', f'{w}x{h}', '-i', '-',
                              '-pred', '1'] + common, rgba.tobytes()))
    b, g, r, a = (rgba[:, :, k].astype(np.int64) for k in range(4))
    want = np.stack([(b + 2 * g + r) >> 2, b - g + 256, r - g + 256, a], 2).astype(np.uint16)
    check_equal(name, imagecodecs.jpeg8_decode(data), want)
    GOOD.append((name, 'ffmpeg', want, 'samples are FFmpeg\'s colour transform of BGR, then A'))
    for fmt, cw, ch in (('yuvj444p', w, h), ('yuvj420p', (w + 1) // 2, (h + 1) // 2)):
        name = f'ff-{fmt}-pred1-{w}x{h}.jpg'
        rng = rng_for(name)
        y = photo('gray', w, h, 8, name)[:, :, 0].astype(np.uint8)
        cb = (128 + rng.integers(-40, 41, (ch, cw))).astype(np.uint8)
        cr = (128 + rng.integers(-40, 41, (ch, cw))).astype(np.uint8)
        data = emit(name, ffmpeg(['-f', 'rawvideo', '-pix_fmt', fmt, '-s', f'{w}x{h}', '-i', '-',
                                  '-pred', '1', '-strict', '-1'] + common,
                                 y.tobytes() + cb.tobytes() + cr.tobytes()))
        if fmt == 'yuvj444p':
            want = np.stack([y, cb, cr], 2)
            check_equal(name, imagecodecs.jpeg8_decode(data), want)
            GOOD.append((name, 'ffmpeg', want, 'every component has sampling factors 1x2'))
        else:
            GOOD.append((name, 'ffmpeg', None, 'unsupported: Cb and Cr subsampled 2x2'))


def make_dicom():
    import data_store  # pydicom-data
    files = [os.path.join(os.path.dirname(pydicom.__file__), 'data', 'test_files',
                          'SC_rgb_jpeg_gdcm.dcm')]
    files += [os.path.join(os.path.dirname(data_store.__file__), 'data', n)
              for n in ('JPEG-LL.dcm', 'JPGLosslessP14SV1_1s_1f_8b.dcm', 'bad_sequence.dcm')]
    for path in files:
        ds = pydicom.dcmread(path)
        assert ds.file_meta.TransferSyntaxUID in ('1.2.840.10008.1.2.4.57',
                                                  '1.2.840.10008.1.2.4.70')
        frame = next(generate_frames(ds.PixelData, number_of_frames=1))
        name = 'dicom-' + os.path.basename(path)[:-4] + '.jpg'
        emit(name, frame)
        GOOD.append((name, 'dicom', None, 'bytes after EOI are the fragment\'s even-length pad'
                     if frame[-2:] != b'\xff\xd9' else None))


# ---------------------------------------------------------------------------------------------
# bad inputs


def sos_end(data):
    i = data.index(b'\xff\xda')
    return i + 2 + (data[i + 2] << 8 | data[i + 3])


def patched(data, marker, offset, value):
    """Replaces the byte `offset` bytes into the payload of the first `marker` segment."""
    i = data.index(bytes([0xFF, marker])) + 4 + offset
    return data[:i] + bytes([value]) + data[i + 1:]


def make_bad():
    g12 = photo('gray', 37, 23, 12, 'bad-g12')
    base = write_ljpeg(g12, 12, scans=[((0,), 1, (0,))])
    rst = write_ljpeg(g12, 12, scans=[((0,), 4, (0,))], restart=37)
    body = sos_end(base)
    dht_at = base.index(b'\xff\xc4')
    bad = {
        'bad-truncated-mid-scan.jpg': base[:body + (len(base) - body) // 2],
        'bad-truncated-after-sos.jpg': base[:body],
        'bad-predictor-0.jpg': patched(base, 0xDA, 3, 0),
        'bad-predictor-8.jpg': patched(base, 0xDA, 3, 8),
        'bad-precision-1.jpg': patched(base, 0xC3, 0, 1),
        'bad-precision-17.jpg': patched(base, 0xC3, 0, 17),
        'bad-sof7.jpg': base.replace(b'\xff\xc3', b'\xff\xc7', 1),
        'bad-sof11.jpg': base.replace(b'\xff\xc3', b'\xff\xcb', 1),
        'bad-size-65535x65535.jpg': patched(patched(patched(patched(
            base, 0xC3, 1, 255), 0xC3, 2, 255), 0xC3, 3, 255), 0xC3, 4, 255),
        'bad-huffman-code-missing.jpg': write_ljpeg(g12, 12, scans=[((0,), 1, (0,))],
                                                    drop_code=True),
        'bad-al-equals-precision.jpg': patched(base, 0xDA, 5, 12),
        'bad-al-above-precision.jpg': patched(base, 0xDA, 5, 13),
        'bad-restart-not-row-multiple.jpg': write_ljpeg(g12, 12, scans=[((0,), 4, (0,))],
                                                        restart=36),
        'bad-rst-missing.jpg': rst.replace(b'\xff\xd2', b'', 1),
        'bad-rst-out-of-order.jpg': rst.replace(b'\xff\xd2', b'\xff\xd4', 1),
        'bad-no-dht.jpg': base[:dht_at] + base[dht_at + 2 + (base[dht_at + 2] << 8 |
                                                             base[dht_at + 3]):],
        'bad-sos-unknown-component.jpg': patched(base, 0xDA, 1, 9),
        'bad-sos-undefined-table.jpg': patched(base, 0xDA, 2, 0x30),
    }
    for name, data in bad.items():
        assert data != base and data != rst, name
        emit(name, data)
        outcome = decode_isolated(os.path.join(HERE, name))
        if outcome[0] == 'decodes':  # safe to decode here too: it did in the child
            got = imagecodecs.jpeg8_decode(data).astype(np.int64)
            wrong = [y for y in range(got.shape[0]) if not np.array_equal(got[y], g12[y, :, 0])]
            outcome = outcome[:2] + (outcome[2] + '; rows unlike the source: ' + spans(wrong),)
            if got.max() >= 1 << 12:
                outcome = outcome[:2] + (outcome[2] + '; samples reach %d' % got.max(),)
        BAD.append((name,) + outcome + (BAD_NOTES.get(name),))


def spans(rows):
    out = []
    for y in rows:
        if out and out[-1][1] == y - 1:
            out[-1][1] = y
        else:
            out.append([y, y])
    return ','.join(f'{a}-{b}' if a != b else str(a) for a, b in out) or 'none'


BAD_NOTES = {
    'bad-size-65535x65535.jpg': 'the header passes: the wheel\'s libjpeg-turbo allows more than '
    'the stock 65500 (JERR_IMAGE_TOO_BIG); the 8 GiB output array fails under a 2 GiB limit',
    'bad-huffman-code-missing.jpg': 'the DHT lacks the last code of its longest length, which '
    'the data uses; libjpeg-turbo keeps 16 bits, so samples leave the 12-bit range',
    'bad-rst-missing.jpg': 'RST2 removed',
    'bad-rst-out-of-order.jpg': 'RST2 replaced by RST4',
    'bad-restart-not-row-multiple.jpg': 'coded as T.81 allows (Ri = 36, width 37); '
    'libjpeg-turbo accepts only whole MCU rows',
    'bad-al-equals-precision.jpg': 'Al = P = 12',
}


CHILD = '''
import resource, sys, imagecodecs, make_ljpeg
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]),) * 2)
try:
    got = imagecodecs.jpeg8_decode(open(sys.argv[1], 'rb').read())
except Exception as e:
    print('error', '-', type(e).__name__ + ':', e)
else:
    shape = 'x'.join(str(n) for n in (got.shape[1], got.shape[0]) + got.shape[2:])
    print('decodes', make_ljpeg.digest(got), shape, got.dtype)
'''


def decode_isolated(path):
    """libjpeg-turbo on a damaged file, in a child process with 2 GiB of address space: the
    imagecodecs wheel accepts dimensions past libjpeg-turbo's usual 65500, and a crash or a huge
    allocation must not take this script down."""
    run = subprocess.run([sys.executable, '-B', '-c', CHILD, path, str(2 << 30)],
                         capture_output=True, text=True, cwd=HERE)
    if run.returncode != 0:
        raise SystemExit(f'{path}: the decoding process failed: {run.stderr}')
    outcome, dig, message = run.stdout.strip().split(' ', 2)
    return outcome, dig, message


# ---------------------------------------------------------------------------------------------


def manifest_line(name, source, want, note):
    with open(os.path.join(HERE, name), 'rb') as f:
        data = f.read()
    info = parse(data)
    _, precision, h, w, comps = info['sof']
    scan = info['scans'][0]
    if note and note.startswith('unsupported'):
        dig = 'unsupported'
    else:
        got = imagecodecs.jpeg8_decode(data)
        if want is not None:
            check_equal(name, got, want)
        dig = digest(got)
    fields = [name, w, h, len(comps), precision, scan['ss'], scan['al'], scan['dri'],
              len(info['scans']), source, dig]
    line = ' '.join(str(f) for f in fields)
    return (f'# {name}: {note}\n' if note else '') + line


def main():
    for old in glob.glob(os.path.join(HERE, '*.jpg')):
        os.remove(old)
    make_imagecodecs()
    make_writer()
    make_ffmpeg()
    make_dicom()
    make_bad()
    with open(os.path.join(HERE, 'manifest.txt'), 'w') as f:
        f.write('# Lossless JPEG test files; made by make_ljpeg.py, decoded by libjpeg-turbo %s.\n'
                % imagecodecs.jpeg8_version().split()[1].split('/')[0])
        f.write('# name width height components precision predictor pt '
                'restart_interval_mcus scans source digest\n')
        f.write('# predictor, pt and restart interval are those of the first scan; digest is\n'
                '# FNV-1a 64 of the decoded samples, H x W x C, 8-bit bytes or big-endian '
                '16-bit words.\n')
        for entry in GOOD:
            f.write(manifest_line(*entry) + '\n')
    with open(os.path.join(HERE, 'bad.txt'), 'w') as f:
        f.write('# Damaged lossless JPEG files and what libjpeg-turbo %s does with them.\n'
                % imagecodecs.jpeg8_version().split()[1].split('/')[0])
        f.write('# name outcome digest_or_dash message (for decodes: W x H [x C] and dtype)\n')
        f.write('# imagecodecs silences libjpeg-turbo warnings, so "decodes" may hide one.\n'
                '# All are 37x23 12-bit, one row per restart interval where there is one.\n')
        for *entry, note in BAD:
            f.write((f'# {entry[0]}: {note}\n' if note else '') + ' '.join(entry) + '\n')
    print(f'{len(GOOD)} good files, {len(BAD)} bad files')


if __name__ == '__main__':
    main()
