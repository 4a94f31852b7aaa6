"""A PyTorch data loader that decodes JPEG and PNG files with hetcodec.

HetcodecDataset is an IterableDataset over image files. Each DataLoader worker takes its own
share of the file list, creates one hetcodec.Decoder the first time it runs (so no decoder
crosses a fork), reads its files a batch at a time and decodes each batch with
Decoder.decode_batch, the library's pipelined path. It yields one tensor per image: height x
width x channels (uint8, or uint16 for 16-bit PNG and 12-bit JPEG), or channels x height x
width with chw=True.

Images of a data set rarely share one size, so collate_list keeps a batch as a list of tensors;
collate_stack stacks a batch whose images all have the same shape into one tensor.

    from torch.utils.data import DataLoader
    dataset = HetcodecDataset("photos/", batch_size=32)
    for images in DataLoader(dataset, batch_size=32, num_workers=4, collate_fn=collate_list):
        ...

Run it to decode a directory and print the images per second:

    python examples/torch_loader.py photos/ --workers 4

torch is not a dependency of the hetcodec package; this example imports it itself.
"""

import argparse
import os
import pathlib
import sys
import time
import warnings

import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

import hetcodec

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".jpe", ".jfif", ".png")


def list_images(paths):
    """The image files of `paths` (a file, a directory or a list of both), sorted: directories
    are searched recursively for files whose names end in IMAGE_SUFFIXES; files named
    directly are taken whatever their name."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = []
    for path in map(pathlib.Path, paths):
        if path.is_dir():
            files += sorted(p for p in path.rglob("*")
                            if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
        else:
            files.append(path)
    return [str(p) for p in files]


def _to_tensor(img):
    """A tensor of a decoded image without a copy: through DLPack when the image offers it (a
    device-resident output, which stays on its device), else from a host numpy array."""
    return torch.from_dlpack(img) if hasattr(img, "__dlpack__") else torch.from_numpy(img)


class HetcodecDataset(IterableDataset):
    """Decoded images of a list of files, as tensors.

    paths: a directory, a file or a list of them (see list_images).
    device: the hetcodec device spec of every worker's decoder ("auto", "cpu", "cuda:0", ...).
    batch_size: files read and decoded together by one decode_batch call.
    chw: yield channels x height x width views instead of height x width x channels.
    scale: JPEG files decoded at 1/scale (1, 2, 4 or 8).
    skip_errors: a file that fails to decode is left out with a warning, instead of raising
        hetcodec.Error.
    with_paths: yield (path, tensor) pairs instead of tensors.
    decoder_args: more keyword arguments of hetcodec.Decoder (max_pixels, threads).

    With several DataLoader workers, worker k of n takes files k, k + n, k + 2n, ... so each
    file is decoded once; the order in which the images arrive is then the DataLoader's.
    """

    def __init__(self, paths, device="auto", batch_size=32, chw=False, scale=1,
                 skip_errors=False, with_paths=False, **decoder_args):
        super().__init__()
        if batch_size < 1:
            raise ValueError("batch_size is at least 1")
        self.files = list_images(paths)
        self.device = device
        self.batch_size = batch_size
        self.chw = chw
        self.skip_errors = skip_errors
        self.with_paths = with_paths
        self.decoder_args = dict(decoder_args, scale=scale)
        self._decoder = None
        self._decoder_pid = None

    def __len__(self):
        return len(self.files)

    def decoder(self):
        """This process's decoder, created on first use. A decoder made before a fork (the
        main process iterated before the workers started) is not reused in the child."""
        if self._decoder is None or self._decoder_pid != os.getpid():
            self._decoder = hetcodec.Decoder(self.device, **self.decoder_args)
            self._decoder_pid = os.getpid()
        return self._decoder

    def shard(self):
        """The files this worker decodes: all of them in the main process, every n-th one in
        worker k of n."""
        info = get_worker_info()
        if info is None:
            return self.files
        return self.files[info.id::info.num_workers]

    def __iter__(self):
        files = self.shard()
        decoder = self.decoder()
        errors = "return" if self.skip_errors else "raise"
        for start in range(0, len(files), self.batch_size):
            names = files[start:start + self.batch_size]
            datas = [pathlib.Path(name).read_bytes() for name in names]
            try:
                images = decoder.decode_batch(datas, errors=errors)
            except hetcodec.Error as error:
                # decode_batch names the failed image by its index in the batch; name the file.
                raise hetcodec.Error(error.code, f"{error.message} (batch of {names})") from None
            for name, image in zip(names, images):
                if isinstance(image, hetcodec.Error):
                    warnings.warn(f"{name}: {image.code}: {image.message}; left out")
                    continue
                tensor = _to_tensor(image)
                if self.chw:
                    tensor = tensor.permute(2, 0, 1)
                yield (name, tensor) if self.with_paths else tensor


def collate_list(batch):
    """A batch of images of any sizes: a list of tensors, or (paths, tensors) for a dataset
    made with with_paths=True."""
    if batch and isinstance(batch[0], tuple):
        paths, tensors = zip(*batch)
        return list(paths), list(tensors)
    return list(batch)


def collate_stack(batch):
    """A batch of images of one shape and type stacked into one tensor (N x H x W x C, or
    N x C x H x W), or (paths, tensor) for a dataset made with with_paths=True. Images of
    different shapes raise ValueError: resize them first, or use collate_list."""
    paths, tensors = (None, batch)
    if batch and isinstance(batch[0], tuple):
        paths, tensors = (list(x) for x in zip(*batch))
    shapes = {(tuple(t.shape), t.dtype) for t in tensors}
    if len(shapes) > 1:
        raise ValueError(f"collate_stack: images of {len(shapes)} shapes or types in one "
                         f"batch ({sorted(str(s) for s in shapes)[:4]}...); use collate_list")
    stacked = torch.stack(tensors)
    return stacked if paths is None else (paths, stacked)


def make_loader(dataset, batch_size=None, num_workers=2, stack=False, **loader_args):
    """A DataLoader over a HetcodecDataset: batches of dataset.batch_size images (or
    batch_size), as collate_list's lists (or collate_stack's tensors with stack=True), decoded
    by num_workers worker processes started with "spawn" (see the module's notes on fork).
    loader_args: more DataLoader arguments (pin_memory, prefetch_factor, ...)."""
    if num_workers > 0:
        loader_args.setdefault("multiprocessing_context", "spawn")
    return DataLoader(dataset, batch_size=batch_size or dataset.batch_size,
                      num_workers=num_workers,
                      collate_fn=collate_stack if stack else collate_list, **loader_args)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Decode the JPEG and PNG files of a directory with hetcodec through a "
                    "PyTorch DataLoader (one decoder per worker process) and print the "
                    "images decoded per second.",
        epilog="Example: python examples/torch_loader.py photos/ --workers 4 --device cuda")
    parser.add_argument("input", nargs="+",
                        help="image files or directories (searched recursively for "
                             + ", ".join(IMAGE_SUFFIXES) + " files)")
    parser.add_argument("--device", default="auto",
                        help='hetcodec device spec of every worker: "auto" (default), "cpu", '
                             '"cuda:0", "opencl:..."; see hetcodec.devices()')
    parser.add_argument("--workers", type=int, default=2,
                        help="DataLoader worker processes, each with its own decoder "
                             "(0: decode in this process; default 2)")
    parser.add_argument("--batch-size", type=int, default=32,
                        help="files per decode_batch call and per DataLoader batch (default 32)")
    parser.add_argument("--chw", action="store_true",
                        help="channels x height x width tensors instead of height x width x "
                             "channels")
    parser.add_argument("--scale", type=int, default=1, choices=(1, 2, 4, 8),
                        help="decode JPEG files at 1/scale of their size (default 1)")
    parser.add_argument("--stack", action="store_true",
                        help="stack each batch into one tensor (all images of one size)")
    parser.add_argument("--threads", type=int, default=0,
                        help="CPU threads of each decoder (0, the default: one per hardware "
                             "thread; with several workers on the CPU device, 1 is better)")
    parser.add_argument("--skip-errors", action="store_true",
                        help="leave out files that fail to decode, with a warning, instead of "
                             "stopping")
    args = parser.parse_args(argv)

    dataset = HetcodecDataset(args.input, device=args.device, batch_size=args.batch_size,
                              chw=args.chw, scale=args.scale, skip_errors=args.skip_errors,
                              threads=args.threads)
    if not len(dataset):
        parser.error("no image files found")
    loader = make_loader(dataset, num_workers=args.workers, stack=args.stack)
    print(f"{len(dataset)} files, device {args.device} "
          f"(auto picks {hetcodec.auto_device()}), {args.workers} workers", flush=True)
    count = pixels = 0
    start = last = time.perf_counter()
    for batch in loader:
        tensors = list(batch)  # a stacked batch iterates over its images
        count += len(tensors)
        pixels += sum(t.numel() for t in tensors)
        now = time.perf_counter()
        if now - last >= 2.0:
            print(f"  {count} images, {count / (now - start):.1f} images/s", flush=True)
            last = now
    seconds = time.perf_counter() - start
    print(f"decoded {count} images ({pixels / 1e6:.1f} M samples) in {seconds:.2f} s: "
          f"{count / seconds:.1f} images/s")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
