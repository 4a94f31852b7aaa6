"""The integration examples (examples/torch_loader.py, examples/ray_decode.py) against the CPU
decoder: every image they deliver equals hetcodec.Decoder("cpu").decode of its file, no file is
lost or decoded twice, and broken files come back as failures. Skipped where torch or ray is
not installed. The examples are loaded from their paths, not installed."""

import importlib.util
import os
import pathlib
import sys

import numpy as np
import pytest

import hetcodec

ROOT = pathlib.Path(__file__).parents[2]
DATA = pathlib.Path(os.environ.get("HETCODEC_TEST_DATA", ROOT / "tests" / "data"))
JPEGS = sorted((DATA / "jpeg").glob("*.jpg"))
# Gray, gray + alpha, RGB, RGBA, palette, 16-bit and interlaced PngSuite files.
PNGS = [DATA / "pngsuite" / name for name in (
    "basn0g01.png", "basn0g16.png", "basn2c08.png", "basn2c16.png", "basn3p04.png",
    "basn4a08.png", "basn6a08.png", "basn6a16.png", "basi2c08.png", "basi3p02.png")]


def load_example(name):
    """The module of examples/<name>.py, loaded from its path (examples are not a package).
    The folder goes on sys.path too, for the processes that DataLoader spawns (they take this
    process's sys.path and import the module by name to unpickle the dataset)."""
    if str(ROOT / "examples") not in sys.path:
        sys.path.append(str(ROOT / "examples"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # for pickling its classes (DataLoader workers, Ray actors)
    spec.loader.exec_module(module)
    return module


def cpu_decode(path):
    return hetcodec.Decoder("cpu").decode(pathlib.Path(path).read_bytes())


# --- torch -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch_loader():
    pytest.importorskip("torch")
    return load_example("torch_loader")


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory):
    """tests/data/jpeg's files and a few PngSuite files in one directory (the loader searches
    directories recursively)."""
    folder = tmp_path_factory.mktemp("images")
    for path in JPEGS + PNGS:
        (folder / path.name).write_bytes(path.read_bytes())
    return folder


@pytest.mark.parametrize("workers", [0, 2])
def test_torch_loader_gives_the_cpu_decoders_images(torch_loader, image_dir, workers):
    # Device "auto": whatever the machine has, the images are the CPU decoder's. With 2 workers,
    # after this process has used the device (workers=0 runs first), as the loader's "spawn"
    # start method allows.
    dataset = torch_loader.HetcodecDataset(image_dir, batch_size=4, with_paths=True)
    assert len(dataset) == len(JPEGS) + len(PNGS)
    seen = {}
    for paths, tensors in torch_loader.make_loader(dataset, batch_size=3, num_workers=workers):
        assert len(paths) == len(tensors) <= 3
        for path, tensor in zip(paths, tensors):
            assert path not in seen, f"{path} decoded twice"
            seen[path] = tensor
    assert sorted(seen) == sorted(dataset.files)
    for path, tensor in seen.items():
        want = cpu_decode(path)
        assert tensor.shape == want.shape and str(tensor.dtype) == f"torch.{want.dtype}"
        assert np.array_equal(tensor.numpy(), want), path


def test_torch_loader_chw_and_collate(torch_loader, image_dir):
    import torch

    path = image_dir / "testorig.jpg"
    (chw,) = list(torch_loader.HetcodecDataset([path], chw=True))
    want = cpu_decode(path)
    assert np.array_equal(chw.permute(1, 2, 0).numpy(), want)

    same = [torch.zeros(5, 4, 3, dtype=torch.uint8), torch.ones(5, 4, 3, dtype=torch.uint8)]
    assert torch_loader.collate_stack(same).shape == (2, 5, 4, 3)
    paths, stacked = torch_loader.collate_stack([("a", same[0]), ("b", same[1])])
    assert paths == ["a", "b"] and torch.equal(stacked[1], same[1])
    with pytest.raises(ValueError):
        torch_loader.collate_stack([same[0], torch.zeros(4, 5, 3, dtype=torch.uint8)])
    assert len(torch_loader.collate_list([same[0], chw])) == 2


def test_torch_loader_skips_or_raises_on_a_broken_file(torch_loader, tmp_path):
    (tmp_path / "good.jpg").write_bytes((DATA / "jpeg" / "testorig.jpg").read_bytes())
    (tmp_path / "broken.jpg").write_bytes(b"this is not a JPEG file")
    with pytest.raises(hetcodec.Error):
        list(torch_loader.HetcodecDataset(tmp_path))
    with pytest.warns(UserWarning, match="broken.jpg"):
        images = list(torch_loader.HetcodecDataset(tmp_path, skip_errors=True, with_paths=True))
    assert [pathlib.Path(p).name for p, _ in images] == ["good.jpg"]


# --- Ray Data ----------------------------------------------------------------------------------

def synthetic_images(folder):
    """About 100 files made here: JPEG and PNG encodings of synthetic images of a few sizes and
    channel counts (8- and 16-bit), and 2 files that cannot be decoded. Returns (good, bad)."""
    rng = np.random.default_rng(7)
    good = []
    sizes = [(8, 8), (17, 31), (64, 48), (90, 120), (33, 200)]
    for i in range(98):
        h, w = sizes[i % len(sizes)]
        y, x = np.mgrid[0:h, 0:w]
        kind = i % 7
        channels = (1, 3, 3, 1, 2, 3, 4)[kind]
        base = (x * 255 // max(w - 1, 1) + y * 3 + i) % 256
        image = np.stack([(base + 40 * c) % 256 for c in range(channels)], axis=-1)
        image = (image + rng.integers(0, 24, image.shape)).clip(0, 255).astype(np.uint8)
        if kind < 4:  # JPEG: gray and RGB, a few qualities and samplings
            encoder = hetcodec.Encoder("cpu", format="jpeg", quality=(50, 75, 90, 95)[kind],
                                       sampling="gray" if channels == 1 else ("420", "444")[i % 2])
            name = f"img{i:03}.jpg"
        else:  # PNG: gray + alpha, RGB, RGBA, and every third one at 16 bits
            if i % 3 == 0:
                image = image.astype(np.uint16) * 257 + i
            encoder = hetcodec.Encoder("cpu", format="png")
            name = f"img{i:03}.png"
        sub = folder / ("a" if i % 2 else "b")
        sub.mkdir(exist_ok=True)
        (sub / name).write_bytes(encoder.encode(image))
        good.append(str(sub / name))
    bad = [folder / "bad-garbage.jpg", folder / "bad-header.png"]
    bad[0].write_bytes(b"\xff\xd8\xff\xe0 this is not really a JPEG file" * 3)
    png = bytearray(pathlib.Path(good[4]).read_bytes())
    png[16:20] = b"\xff\xff\xff\xff"  # IHDR width 2^32 - 1, and IHDR's CRC no longer matches
    bad[1].write_bytes(bytes(png))
    return good, [str(p) for p in bad]


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    module = load_example("ray_decode")
    # The actors unpickle DecodeBatch: send the example's code with it, since the workers
    # cannot import a module loaded from a path.
    ray.cloudpickle.register_pickle_by_value(module)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield module
    ray.shutdown()


@pytest.fixture(scope="module")
def ray_images(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ray-in")
    good, bad = synthetic_images(folder)
    return folder, good, bad


def test_ray_job_decodes_every_file_once(ray_cluster, ray_images):
    folder, good, bad = ray_images
    paths = ray_cluster.list_images(folder)
    assert sorted(paths) == sorted(good + bad)
    rows = ray_cluster.pipeline(paths, workers=2, batch_size=16).take_all()
    assert len(rows) == len(paths)
    assert sorted(row["path"] for row in rows) == sorted(paths)
    by_path = {row["path"]: row for row in rows}
    for path in bad:
        assert by_path[path]["error"].startswith("invalid data"), by_path[path]["error"]
        assert ray_cluster.array_of(by_path[path]) is None
    for path in good:
        assert by_path[path]["error"] == "", by_path[path]["error"]
        got, want = ray_cluster.array_of(by_path[path]), cpu_decode(path)
        assert got.dtype == want.dtype and np.array_equal(got, want), path


def test_ray_job_writes_reencoded_files(ray_cluster, ray_images, tmp_path):
    folder, good, bad = ray_images
    out = tmp_path / "out"
    rows, seconds = ray_cluster.run(ray_cluster.list_images(folder), workers=2, batch_size=16,
                                    output_dir=str(out), input_root=str(folder), format="png")
    assert len(rows) == len(good) + len(bad) and seconds > 0
    assert sorted(row["path"] for row in rows if row["error"]) == sorted(bad)
    written = sorted(out.rglob("*.png"))
    assert len(written) == len(good)
    for path in good:
        target = out / pathlib.Path(path).relative_to(folder).with_suffix(".png")
        # PNG is lossless: the written file decodes to the input file's image.
        assert np.array_equal(cpu_decode(target), cpu_decode(path)), path


def test_ray_actors_share_gpus_and_cpus():
    pytest.importorskip("ray")
    module = load_example("ray_decode")
    # One node of 16 CPUs and one GPU: one actor holding the GPU and every CPU by default;
    # four sharing it, a quarter of the GPU and 4 CPUs each (their decoders' threads).
    assert module.plan_actors({"CPU": 16, "GPU": 1}) == (
        "auto", {"num_gpus": 1, "num_cpus": 16}, 1, 16)
    assert module.plan_actors({"CPU": 16, "GPU": 1}, actors_per_gpu=4) == (
        "auto", {"num_gpus": 0.25, "num_cpus": 4}, 4, 4)
    # Two nodes of 16 CPUs and 8 GPUs each: one actor per GPU, 2 CPUs each.
    assert module.plan_actors({"CPU": 32, "GPU": 16}) == (
        "auto", {"num_gpus": 1, "num_cpus": 2}, 16, 2)
    # No GPU: one CPU-reference actor per cpus_per_worker CPUs; workers given are kept.
    assert module.plan_actors({"CPU": 8}) == ("cpu", {"num_cpus": 1}, 8, 1)
    assert module.plan_actors({"CPU": 8}, cpus_per_worker=4) == ("cpu", {"num_cpus": 4}, 2, 4)
    assert module.plan_actors({"CPU": 8}, workers=3, actors_per_gpu=4)[2] == 3
