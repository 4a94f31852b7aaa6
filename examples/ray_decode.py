"""Decode (and optionally re-encode) a directory of JPEG and PNG files on a Ray cluster with
Ray Data and hetcodec.

The pipeline:

    ray.data.read_binary_files(paths, include_paths=True)      # rows: path, bytes
      .map_batches(DecodeBatch, compute=ActorPoolStrategy(size=workers), ...)

DecodeBatch is a callable class: Ray Data starts `workers` actors, each holding one
hetcodec.Decoder (and Encoder) for its whole life, and sends them batches of files. Where the
cluster has GPUs each actor asks for one (num_gpus=1) and its decoder takes device "auto", the
GPU Ray gave it; on a CPU-only cluster each actor asks for --cpus-per-worker cores (1 by
default) and decodes on the CPU reference device. A decoder's threads are its actor's CPUs.

A file that fails to decode does not stop the job: decode_batch(errors="return") gives its
error, which becomes the row's `error` column. Every input file gives exactly one output row:

    path      the input file
    error     "" or "<code>: <message>" (hetcodec.Error), for decoding or re-encoding
    height, width, channels, dtype   the decoded image ("" dtype and zeros when it failed)
    pixels    the samples as raw bytes (C order, native endianness; b"" when the image was
              written to a file instead, or failed): array_of(row) makes the array again
    output    the re-encoded file written (--output), else ""

Pixels travel as bytes with their shape and dtype beside them because a data set's images have
many sizes and both 8- and 16-bit samples: Arrow keeps that in a plain binary column, where a
tensor column needs one dtype and a placeholder for failed rows.

    python examples/ray_decode.py --input photos/ --output pngs/ --format png
    python examples/ray_decode.py --input photos/ --address auto      # an existing cluster

hetcodec must be installed on every node of the cluster; ray and its data extra ("ray[data]")
are needed by this example only.
"""

import argparse
import pathlib
import sys
import time

import numpy as np
import ray

import hetcodec

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".jpe", ".jfif", ".png")
OUTPUT_SUFFIX = {"png": ".png", "jpeg": ".jpg"}


def list_images(input_dir):
    """The image files under input_dir (searched recursively, by their suffixes), sorted."""
    root = pathlib.Path(input_dir)
    return sorted(str(p) for p in root.rglob("*")
                  if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)


def array_of(row):
    """The decoded image of an output row (a dict, or a pandas row) as a numpy array, or None
    for a failed row or one whose image went to a file."""
    if row["error"] or not len(row["pixels"]):
        return None
    shape = (int(row["height"]), int(row["width"]), int(row["channels"]))
    return np.frombuffer(row["pixels"], dtype=np.dtype(row["dtype"])).reshape(shape)


class DecodeBatch:
    """The map_batches callable: decodes a batch of files (the `bytes` and `path` columns of
    read_binary_files) with one decoder per actor, and returns one row per file.

    device, threads: of the hetcodec.Decoder (and Encoder).
    output_dir: write each image there re-encoded as `format` ("png" or "jpeg", at `quality`),
        under its path relative to input_root, instead of returning its pixels.
    """

    def __init__(self, device="auto", threads=0, output_dir=None, input_root=None,
                 format="png", quality=90):
        self.decoder = hetcodec.Decoder(device, threads=threads)
        self.encoder = None
        self.output_dir = pathlib.Path(output_dir) if output_dir else None
        self.input_root = pathlib.Path(input_root) if input_root else None
        if self.output_dir:
            self.encoder = hetcodec.Encoder(device, format=format, quality=quality)
            self.suffix = OUTPUT_SUFFIX[format]

    def output_path(self, path):
        """Where the re-encoded file of input `path` goes: its place under input_root, moved
        to output_dir, with the output format's suffix."""
        path = pathlib.Path(path)
        try:
            relative = path.relative_to(self.input_root) if self.input_root else path.name
        except ValueError:
            relative = path.name
        return (self.output_dir / relative).with_suffix(self.suffix)

    def __call__(self, batch):
        paths = [str(p) for p in batch["path"]]
        images = self.decoder.decode_batch(list(batch["bytes"]), errors="return")
        n = len(paths)
        out = {"path": np.array(paths, dtype=object), "error": np.full(n, "", dtype=object),
               "height": np.zeros(n, np.int32), "width": np.zeros(n, np.int32),
               "channels": np.zeros(n, np.int32), "dtype": np.full(n, "", dtype=object),
               "pixels": np.full(n, b"", dtype=object), "output": np.full(n, "", dtype=object)}
        for i, (path, image) in enumerate(zip(paths, images)):
            if isinstance(image, hetcodec.Error):
                out["error"][i] = f"{image.code}: {image.message}"
                continue
            out["height"][i], out["width"][i], out["channels"][i] = image.shape
            out["dtype"][i] = image.dtype.name
            if self.encoder is None:
                out["pixels"][i] = image.tobytes()
                continue
            try:
                data = self.encoder.encode(image)
            except hetcodec.Error as error:
                out["error"][i] = f"{error.code}: encode: {error.message}"
                continue
            target = self.output_path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            out["output"][i] = str(target)
        return out


def plan_actors(resources, workers=None, cpus_per_worker=None, actors_per_gpu=1):
    """The decoder actors for a cluster's resources (ray.cluster_resources()): their device,
    the resources each asks for, how many, and each one's decoder threads."""
    cpus, gpus = int(resources.get("CPU", 1)), int(resources.get("GPU", 0))
    if gpus:
        # actors_per_gpu actors per GPU (one by default), each asking for its share of one:
        # Ray makes that GPU the only one the actor sees, and "auto" takes it.
        share = max(1, int(actors_per_gpu))
        cpus_per_worker = cpus_per_worker or max(1, cpus // (gpus * share))
        return ("auto", {"num_gpus": 1 / share, "num_cpus": cpus_per_worker},
                workers or gpus * share, cpus_per_worker)
    cpus_per_worker = cpus_per_worker or 1
    return ("cpu", {"num_cpus": cpus_per_worker}, workers or max(1, cpus // cpus_per_worker),
            cpus_per_worker)


def pipeline(paths, workers=None, batch_size=64, cpus_per_worker=None, output_dir=None,
             input_root=None, format="png", quality=90, actors_per_gpu=1):
    """The Ray Data pipeline (a lazy Dataset) decoding `paths` on the connected cluster.

    workers: decoder actors; by default actors_per_gpu per GPU, or on a CPU-only cluster one
        per cpus_per_worker CPUs.
    actors_per_gpu: actors sharing each GPU (each asks for 1/actors_per_gpu of one): while one
        waits on Ray (its batch coming in, its rows going out), another decodes.
    cpus_per_worker: CPUs each actor asks for, and its decoder's threads (the Huffman and
        inflate stages run on host threads on every device). By default the cluster's CPUs
        shared out among its GPUs, or 1 on a CPU-only cluster.
    batch_size: files per decode_batch call.
    """
    device, per_actor, workers, cpus_per_worker = plan_actors(
        ray.cluster_resources(), workers, cpus_per_worker, actors_per_gpu)
    # Reading a file is I/O: the read tasks reserve no CPU, so that actors holding every CPU of
    # a node (the default on a CPU-only cluster) do not leave them waiting for one forever;
    # as many run at once as there are actors (unbounded, each would take a worker process).
    files = ray.data.read_binary_files(paths, include_paths=True, num_cpus=0,
                                       concurrency=workers)
    return files.map_batches(
        DecodeBatch,
        fn_constructor_kwargs={"device": device, "threads": cpus_per_worker,
                               "output_dir": output_dir, "input_root": input_root,
                               "format": format, "quality": quality},
        batch_size=batch_size,
        compute=ray.data.ActorPoolStrategy(size=workers),
        udf_modifying_row_count=False,
        **per_actor)


def run(paths, progress=None, **options):
    """Runs the pipeline over `paths` and returns (rows without their pixels, seconds);
    progress(done, failed, seconds) is called as batches come back."""
    rows, failed = [], 0
    start = time.perf_counter()
    for batch in pipeline(paths, **options).iter_batches(batch_size=None, batch_format="numpy"):
        for i in range(len(batch["path"])):
            rows.append({k: batch[k][i] for k in batch if k != "pixels"})
            failed += bool(batch["error"][i])
        if progress:
            progress(len(rows), failed, time.perf_counter() - start)
    return rows, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Decode the JPEG and PNG files of a directory on a Ray cluster (Ray Data, "
                    "one hetcodec decoder per actor: one actor per GPU, or per "
                    "--cpus-per-worker cores on a CPU-only cluster), and write them "
                    "re-encoded to --output, or only decode them (a throughput test). Files "
                    "that fail are reported, not fatal.",
        epilog="Example: python examples/ray_decode.py --input photos/ --output out/ "
               "--format png --address auto")
    parser.add_argument("--input", required=True,
                        help="directory of image files (searched recursively); on a cluster "
                             "every node must see it at the same path (shared file system)")
    parser.add_argument("--output",
                        help="directory for the re-encoded files (every node must see it); "
                             "without it the images are decoded and dropped")
    parser.add_argument("--format", choices=("png", "jpeg"), default="png",
                        help="format of the re-encoded files (default png)")
    parser.add_argument("--quality", type=int, default=90, help="JPEG quality (default 90)")
    parser.add_argument("--workers", type=int,
                        help="decoder actors (default: one per GPU of the cluster, or one per "
                             "--cpus-per-worker CPUs)")
    parser.add_argument("--cpus-per-worker", type=int,
                        help="CPUs each actor asks for, and its decoder's threads (default: "
                             "the cluster's CPUs over its GPUs, or 1 without GPUs)")
    parser.add_argument("--actors-per-gpu", type=int, default=1,
                        help="decoder actors sharing each GPU (default 1); more overlap one "
                             "actor's decoding with another's Ray transfers")
    parser.add_argument("--batch-size", type=int, default=64,
                        help="files per decode_batch call (default 64)")
    parser.add_argument("--address",
                        help='Ray cluster to join ("auto", or "ray://head:10001"); default: '
                             "start a local one")
    args = parser.parse_args(argv)

    paths = list_images(args.input)
    if not paths:
        parser.error(f"no {', '.join(IMAGE_SUFFIXES)} files under {args.input}")
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    resources = ray.cluster_resources()
    print(f"{len(paths)} files; cluster: {int(resources.get('CPU', 0))} CPUs, "
          f"{int(resources.get('GPU', 0))} GPUs, {len(ray.nodes())} nodes", flush=True)

    last, first = [0.0], []

    def progress(done, failed, seconds):
        first[:] = first or [seconds]
        if seconds - last[0] >= 2.0 or done == len(paths):
            print(f"  {done}/{len(paths)} files, {failed} failed, {done / seconds:.1f} files/s",
                  flush=True)
            last[0] = seconds

    rows, seconds = run(paths, progress=progress, workers=args.workers,
                        batch_size=args.batch_size, cpus_per_worker=args.cpus_per_worker,
                        output_dir=args.output, input_root=args.input, format=args.format,
                        quality=args.quality, actors_per_gpu=args.actors_per_gpu)
    failed = [row for row in rows if row["error"]]
    done = len(rows) - len(failed)
    for row in failed[:20]:
        print(f"  failed: {row['path']}: {row['error']}")
    if len(failed) > 20:
        print(f"  ... and {len(failed) - 20} more")
    megapixels = sum(int(r["height"]) * int(r["width"]) for r in rows if not r["error"]) / 1e6
    print(f"{done} images done, {len(failed)} failed, of {len(paths)} files, in {seconds:.2f} s: "
          f"{done / seconds:.1f} images/s, {megapixels / seconds:.1f} Mpixel/s"
          + (f"; written to {args.output}" if args.output else ""))
    if first:
        print(f"(the first results came after {first[0]:.2f} s: starting the actors and "
              f"the first batch)")
    return 0 if len(rows) == len(paths) and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
