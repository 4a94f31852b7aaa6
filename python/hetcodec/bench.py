"""Decode throughput from Python: hetcodec against the Python libraries a data loader would
otherwise use, on the same JPEG files in the same run.

    python -m hetcodec.bench DIR [--device cuda] [--batch 256] [--min-time 1] [--json out.json]

Rows: hetcodec's decode_batch to numpy arrays and to device arrays (output="device"; into the
buffers of earlier batches, and into a new buffer each batch), one file at a time, and the same batch's C++ work alone (the binding's overhead is the difference);
then, where they import, nvImageCodec (nvidia-nvimgcodec) and torchvision.io.decode_jpeg on the
GPU, each batched, and PIL and simplejpeg with one file per thread on all cores. Each row
repeats the set for --min-time seconds after a warm-up. The first files' pixels of each peer are
compared with hetcodec's (libjpeg-turbo's, exactly): a peer that decodes differently (another
IDCT or upsampling) is marked so, not failed.
"""

import argparse
import concurrent.futures
import io
import json
import os
import pathlib
import platform
import sys
import time

import numpy as np

import hetcodec


def timed(run, count, min_time):
    """Images per second of run() (which decodes `count` images), over at least min_time s; a
    run() that returns a float gives its own seconds (the C++ work alone)."""
    run()  # warm-up: allocations, programs, caches
    done, seconds = 0, 0.0
    while seconds < min_time:
        start = time.perf_counter()
        own = run()
        seconds += own if isinstance(own, float) else time.perf_counter() - start
        done += count
    return done / seconds


def peers(files, threads):
    """(name, decode-all function, to-numpy function) of each peer that imports."""
    out = []
    try:
        from nvidia import nvimgcodec  # noqa: PLC0415 (optional)

        decoder = nvimgcodec.Decoder()

        def nvimg():
            return decoder.decode(files)

        out.append(("nvImageCodec decode (batched, GPU)", nvimg,
                    lambda images: [np.asarray(im.cpu()) for im in images]))
    except Exception:  # noqa: BLE001 (not installed, or no GPU for it)
        pass
    try:
        import torch  # noqa: PLC0415
        import torchvision.io  # noqa: PLC0415

        if torch.cuda.is_available():
            tensors = [torch.frombuffer(bytearray(f), dtype=torch.uint8) for f in files]

            def tv():
                images = torchvision.io.decode_jpeg(tensors, device="cuda")
                torch.cuda.synchronize()
                return images

            out.append(("torchvision.io.decode_jpeg (batched, GPU)", tv,
                        lambda images: [im.permute(1, 2, 0).cpu().numpy() for im in images]))
    except Exception:  # noqa: BLE001
        pass
    pool = concurrent.futures.ThreadPoolExecutor(threads)
    try:
        from PIL import Image  # noqa: PLC0415

        def pil_one(data):
            with Image.open(io.BytesIO(data)) as im:
                return np.asarray(im)

        out.append((f"PIL ({threads} threads)", lambda: list(pool.map(pil_one, files)),
                    lambda images: images))
    except ImportError:
        pass
    try:
        import simplejpeg  # noqa: PLC0415

        def sj_one(data):
            return simplejpeg.decode_jpeg(data, colorspace="RGB", fastdct=False, fastupsample=False)

        out.append((f"simplejpeg ({threads} threads)", lambda: list(pool.map(sj_one, files)),
                    lambda images: images))
    except ImportError:
        pass
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m hetcodec.bench",
        description="JPEG decode throughput from Python: hetcodec's batch and single calls, "
        "its binding's overhead over the C++ work, and nvImageCodec, torchvision, PIL and "
        "simplejpeg where they import, on the same files in the same run.")
    parser.add_argument("dir", nargs="?", default=os.environ.get("HETCODEC_CORPUS"),
                        help="directory of JPEG files (default: $HETCODEC_CORPUS)")
    parser.add_argument("--device", default="auto", help="hetcodec device spec (default: auto)")
    parser.add_argument("--batch", type=int, default=256, help="files measured (default: 256)")
    parser.add_argument("--min-time", type=float, default=1.0,
                        help="seconds each row repeats the set (default: 1)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="threads of the CPU peers (default: every core)")
    parser.add_argument("--no-peers", action="store_true", help="hetcodec's rows only")
    parser.add_argument("--json", help="also write the results as JSON to this file")
    args = parser.parse_args(argv)
    if not args.dir:
        parser.error("give a directory of JPEG files (or set $HETCODEC_CORPUS)")
    paths = sorted(p for p in pathlib.Path(args.dir).iterdir()
                   if p.suffix.lower() in (".jpg", ".jpeg"))[:args.batch]
    if not paths:
        parser.error(f"no .jpg files in {args.dir}")
    files = [p.read_bytes() for p in paths]
    pixels = 0
    decoder = hetcodec.Decoder(args.device)
    reference = decoder.decode_batch(files)
    pixels = sum(im.shape[0] * im.shape[1] for im in reference)
    print(f"{len(files)} files from {args.dir}, {pixels / len(files) / 1e6:.2f} MP each; "
          f"hetcodec {hetcodec.version()} on {decoder.device}", file=sys.stderr)
    rows = []

    def row(name, rate, equal=None):
        rows.append({"name": name, "images_per_s": rate,
                     "megapixels_per_s": rate * pixels / len(files) / 1e6, "equal": equal})
        mark = "" if equal is None else ("  (pixels equal)" if equal else "  (pixels differ)")
        print(f"{name:<48} {rate:10.1f} img/s {rate * pixels / len(files) / 1e6:9.1f} MP/s{mark}")

    native = timed(lambda: decoder._d.native_batch_seconds(files, 4) / 4, len(files), args.min_time)
    batch = timed(lambda: decoder.decode_batch(files), len(files), args.min_time)
    row(f"hetcodec {decoder.device} decode_batch, C++ work alone", native)
    row(f"hetcodec {decoder.device} decode_batch -> numpy", batch)
    row(f"hetcodec {decoder.device} decode_batch -> device arrays, C++ work alone",
        timed(lambda: decoder._d.native_batch_seconds(files, 4, True) / 4, len(files),
              args.min_time))
    row(f"hetcodec {decoder.device} decode_batch -> device arrays",
        timed(lambda: decoder.decode_batch(files, output="device"), len(files), args.min_time))
    fresh = hetcodec.Decoder(args.device, reuse_device_buffers=False)
    row(f"hetcodec {decoder.device} decode_batch -> device arrays, new buffers",
        timed(lambda: fresh.decode_batch(files, output="device"), len(files), args.min_time))
    del fresh
    row(f"hetcodec {decoder.device} decode, one file a call",
        timed(lambda: [decoder.decode(f) for f in files], len(files), args.min_time))
    overhead = native / batch - 1
    print(f"the binding's overhead on decode_batch: {100 * overhead:.1f}%")
    if not args.no_peers:
        for name, run, to_numpy in peers(files, args.threads):
            try:
                got = to_numpy(run())
                check = min(len(files), 16)
                equal = all(np.array_equal(np.asarray(a).reshape(b.shape), b)
                            if np.asarray(a).size == b.size else False
                            for a, b in zip(got[:check], reference[:check]))
                row(name, timed(run, len(files), args.min_time), equal)
            except Exception as e:  # noqa: BLE001 (a peer that fails is reported, not fatal)
                print(f"{name}: failed: {e}", file=sys.stderr)
        ours = batch
        for r in rows[6:]:
            print(f"hetcodec decode_batch -> numpy against {r['name']}: "
                  f"{ours / r['images_per_s']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": platform.node(), "device": decoder.device,
                       "files": len(files), "megapixels_per_file": pixels / len(files) / 1e6,
                       "binding_overhead": overhead, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
