#!/usr/bin/env python3
"""Makes the 12-bit JPEG test files and their references (libjpeg-turbo 3 is the oracle: Debian's
2.1.5 decodes no 12-bit files). Needs the PyPI package imagecodecs (its libjpeg-turbo 3 encodes
and decodes) and libjpeg-turbo 3's cjpeg, jpegtran and djpeg on PATH (for the progressive,
arithmetic and restart variants and the scaled and cropped references).

  python3 make.py        # in this folder: writes the .jpg files, the .pnm references and
                         # manifest.txt (file scale crop reference)
"""
import subprocess
import zlib

import imagecodecs
import numpy as np

W, H = 35, 27


def picture(seed):
    """Gradients across the whole 12-bit range, an edge and noise, so that the IDCT overshoots
    and the range limit matters."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:H, 0:W]
    r = x * 4095 // (W - 1)
    g = y * 4095 // (H - 1)
    b = np.where((x // 6 + y // 6) % 2 == 0, 4095, 0)
    img = np.stack([r, g, b], axis=-1) + rng.integers(-300, 300, size=(H, W, 3))
    return np.clip(img, 0, 4095).astype(np.uint16)


def region(pnm, crop):
    """djpeg -crop's output cut to the region asked for: djpeg writes the window that
    jpeg_crop_scanline widened to the left to an iMCU boundary."""
    kind, dims, maxval, samples = pnm.split(b"\n", 3)
    w0, h = map(int, dims.split())
    w = int(crop.split("x")[0])
    comps = 1 if kind == b"P5" else 3
    rows = np.frombuffer(samples, dtype=">u2").reshape(h, w0, comps)[:, w0 - w:, :]
    return b"%s\n%d %d\n%s\n" % (kind, w, h, maxval) + rows.tobytes()


def run(*args, stdin=None):
    """The command's output; exit status 2 (djpeg: decoded with warnings) counts as success."""
    done = subprocess.run(args, input=stdin, capture_output=True)
    if done.returncode not in (0, 2):
        raise subprocess.CalledProcessError(done.returncode, args, done.stdout, done.stderr)
    return done.stdout


def main():
    files = {}
    rgb = picture(1)
    files["rgb444-q90.jpg"] = imagecodecs.jpeg8_encode(rgb, level=90, subsampling="444",
                                                       bitspersample=12)
    files["rgb422-q75.jpg"] = imagecodecs.jpeg8_encode(picture(2), level=75, subsampling="422",
                                                       bitspersample=12)
    files["rgb420-q98.jpg"] = imagecodecs.jpeg8_encode(picture(3), level=98, subsampling="420",
                                                       bitspersample=12)
    files["gray-q85.jpg"] = imagecodecs.jpeg8_encode(np.ascontiguousarray(picture(4)[:, :, 1]), level=85,
                                                     bitspersample=12)
    # cjpeg -precision 12 with restart markers every MCU row, from a 16-bit PPM of maxval 4095.
    ppm = b"P6\n%d %d\n4095\n" % (W, H) + picture(5).astype(">u2").tobytes()
    files["rgb420-restart.jpg"] = run("cjpeg", "-precision", "12", "-quality", "80",
                                      "-sample", "2x2", "-restart", "1", stdin=ppm)
    files["rgb420-prog.jpg"] = run("jpegtran", "-progressive", stdin=files["rgb420-q98.jpg"])
    files["gray-prog.jpg"] = run("jpegtran", "-progressive", stdin=files["gray-q85.jpg"])
    # Cut short after its first AC scans: libjpeg-turbo decodes what it has, with block
    # smoothing of the coefficients not known to full precision.
    prog = files["rgb420-prog.jpg"]
    files["rgb420-prog-cut.jpg"] = prog[:len(prog) * 3 // 5]
    files["rgb422-arith.jpg"] = run("jpegtran", "-arithmetic", stdin=files["rgb422-q75.jpg"])
    files["rgb444-arith-prog.jpg"] = run("jpegtran", "-arithmetic", "-progressive",
                                         stdin=files["rgb444-q90.jpg"])
    manifest = []
    for name, data in files.items():
        open(name, "wb").write(data)
        # imagecodecs' decode is the full-size reference; djpeg's must agree with it (a cut file
        # is djpeg's alone).
        pnm = run("djpeg", "-dct", "int", "-pnm", name)
        if not name.endswith("-cut.jpg"):
            full = imagecodecs.jpeg8_decode(data)
            assert pnm.endswith(full.astype(">u2").tobytes()), name
        stem = name[:-4]
        for denom in (1, 2, 4, 8):
            ref = f"{stem}-{denom}.pnm"
            open(ref, "wb").write(pnm if denom == 1 else
                                  run("djpeg", "-dct", "int", "-scale", f"1/{denom}", "-pnm", name))
            manifest.append(f"{name} {denom} - {ref}")
        for denom, crop in ((1, "13x9+11+7"), (2, "7x5+5+3")):
            ref = f"{stem}-{denom}-crop.pnm"
            open(ref, "wb").write(region(run("djpeg", "-dct", "int", "-scale", f"1/{denom}",
                                             "-crop", crop, "-pnm", name), crop))
            manifest.append(f"{name} {denom} {crop} {ref}")
    # The conformance file of libjpeg-turbo's test suite (tests/data/jpeg holds a copy): digests
    # of its samples.
    for denom in (1, 2, 4, 8):
        pnm = run("djpeg", "-dct", "int", "-scale", f"1/{denom}", "-pnm", "../monkey12.jpg")
        kind, dims, maxval, samples = pnm.split(b"\n", 3)
        w, h = dims.split()
        manifest.append(f"../monkey12.jpg {denom} - crc32:{zlib.crc32(samples):08x}:"
                        f"{int(w)}x{int(h)}")
    open("manifest.txt", "w").write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    main()
