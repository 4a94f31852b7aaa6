"""The Python package against the command-line tool (the same C++ library) and itself: decodes
and encodes equal the CLI's files, 16-bit samples, crops, batches with failures, errors with
their codes, and one decoder shared by threads. Set by CTest: HETCODEC_CLI (the tool),
HETCODEC_TEST_DATA (tests/data)."""

import os
import pathlib
import subprocess
import threading

import numpy as np
import pytest

import hetcodec

DATA = pathlib.Path(os.environ.get("HETCODEC_TEST_DATA", pathlib.Path(__file__).parents[1] / "data"))
CLI = os.environ.get("HETCODEC_CLI")
JPEGS = sorted((DATA / "jpeg").glob("*.jpg"))
PNGS = sorted((DATA / "pngsuite").glob("[!x]*.png"))[:40]  # (x*: PngSuite's broken files)


def devices():
    return [d["spec"] for d in hetcodec.devices() if not d["is_emulator"]]


def read_pnm(path):
    """Samples of a binary PGM/PPM/PAM file (8 or 16 bits) as an H x W x C array."""
    data = path.read_bytes()
    if data[:2] == b"P7":
        header, _, body = data.partition(b"ENDHDR\n")
        fields = dict(line.split(b" ", 1) for line in header.split(b"\n")[1:] if b" " in line)
        w, h, c, maxval = (int(fields[k]) for k in (b"WIDTH", b"HEIGHT", b"DEPTH", b"MAXVAL"))
    else:
        parts = data.split(maxsplit=4)
        c = 1 if parts[0] == b"P5" else 3
        w, h, maxval, body = int(parts[1]), int(parts[2]), int(parts[3]), parts[4]
    dtype = np.dtype(">u2") if maxval > 255 else np.uint8
    return np.frombuffer(body, dtype=dtype, count=w * h * c).reshape(h, w, c).astype(
        np.uint16 if maxval > 255 else np.uint8)


def cli(tmp_path, *args):
    if not CLI:
        pytest.skip("HETCODEC_CLI not set (CTest sets it)")
    subprocess.run([CLI, "-q", "-d", "cpu", *map(str, args)], check=True, cwd=tmp_path)


@pytest.mark.parametrize("path", JPEGS, ids=lambda p: p.name)
def test_jpeg_decode_equals_the_cli(tmp_path, path):
    cli(tmp_path, "decode", path, "out.pam")
    got = hetcodec.Decoder("cpu").decode(path.read_bytes())
    assert np.array_equal(got, read_pnm(tmp_path / "out.pam"))


@pytest.mark.parametrize("path", PNGS, ids=lambda p: p.name)
def test_png_decode_equals_the_cli(tmp_path, path):
    cli(tmp_path, "decode", path, "out.pam")
    got = hetcodec.Decoder("cpu").decode(path.read_bytes())
    assert np.array_equal(got, read_pnm(tmp_path / "out.pam"))


@pytest.mark.parametrize("args", [("jpeg", 90, "420"), ("jpeg", 50, "444"), ("png", 0, "")])
def test_encode_equals_the_cli(tmp_path, args):
    fmt, quality, sampling = args
    image = hetcodec.Decoder("cpu").decode((DATA / "jpeg" / "testorig.jpg").read_bytes())
    cli(tmp_path, "decode", DATA / "jpeg" / "testorig.jpg", "in.ppm")
    if fmt == "jpeg":
        cli(tmp_path, "encode", "in.ppm", "out.jpg", "--quality", quality, "--sampling", sampling)
        ours = hetcodec.Encoder("cpu", format="jpeg", quality=quality, sampling=sampling).encode(image)
        assert ours == (tmp_path / "out.jpg").read_bytes()
    else:
        cli(tmp_path, "encode", "in.ppm", "out.png")
        assert hetcodec.Encoder("cpu").encode(image) == (tmp_path / "out.png").read_bytes()


@pytest.mark.parametrize("device", devices())
def test_every_device_gives_the_cpu_bytes(device):
    files = [p.read_bytes() for p in JPEGS[:4] + PNGS[:8]]
    want = hetcodec.Decoder("cpu").decode_batch(files)
    decoder = hetcodec.Decoder(device)
    assert decoder.device == device
    for one, expected in zip(decoder.decode_batch(files), want):
        assert one.dtype == expected.dtype and np.array_equal(one, expected)
    for data, expected in zip(files, want):
        assert np.array_equal(decoder.decode(data), expected)


def test_sixteen_bit_samples_round_trip():
    image = (np.arange(17 * 11 * 4, dtype=np.uint32).reshape(17, 11, 4) * 977 % 65536).astype(np.uint16)
    for mode in ("parallel", "compatible"):
        png = hetcodec.Encoder("cpu", png_mode=mode).encode(image)
        back, info = hetcodec.Decoder("cpu").decode(png, with_info=True)
        assert back.dtype == np.uint16 and info["bit_depth"] == 16 and info["format"] == "rgba"
        assert np.array_equal(back, image)
    gray = np.arange(6 * 5, dtype=np.uint8).reshape(6, 5)
    assert np.array_equal(hetcodec.Decoder("cpu").decode(hetcodec.Encoder("cpu").encode(gray)),
                          gray[:, :, None])


def test_crop_equals_the_cli(tmp_path):
    # (A crop is libjpeg-turbo's jpeg_crop_scanline region, whose edge samples may differ from
    # the whole image's: upsampling sees the window's edge.)
    path = DATA / "jpeg" / "testorig.jpg"
    cli(tmp_path, "decode", path, "out.ppm", "--crop", "40x30+16+8")
    got = hetcodec.Decoder("cpu").decode(path.read_bytes(), crop=(16, 8, 40, 30))
    assert np.array_equal(got, read_pnm(tmp_path / "out.ppm"))


def test_errors_carry_the_code():
    decoder = hetcodec.Decoder("cpu")
    with pytest.raises(hetcodec.Error) as e:
        decoder.decode(b"not an image")
    assert e.value.code == "invalid data"
    cut = (DATA / "jpeg" / "testorig.jpg").read_bytes()[:200]
    with pytest.raises(hetcodec.Error):
        decoder.decode(cut)
    with pytest.raises(hetcodec.Error) as e:
        hetcodec.Decoder("cpu", max_pixels=100).decode((DATA / "jpeg" / "testorig.jpg").read_bytes())
    assert e.value.code == "limit exceeded"
    with pytest.raises(hetcodec.Error) as e:
        hetcodec.Decoder("no-such-device")
    assert e.value.code == "invalid argument"
    with pytest.raises(hetcodec.Error):
        hetcodec.Encoder("cpu", format="gif")
    with pytest.raises(hetcodec.Error):
        hetcodec.Encoder("cpu", format="jpeg", quality=101).encode(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(hetcodec.Error):
        hetcodec.Encoder("cpu").encode(np.zeros((4, 4, 5), np.uint8))
    with pytest.raises(hetcodec.Error) as e:
        hetcodec.Encoder("cpu").encode(np.zeros((4, 4, 3), np.float32))
    assert e.value.code == "invalid argument" and "uint8 or uint16" in e.value.message


def test_batch_failures_in_place_and_the_rest_decoded():
    good = [p.read_bytes() for p in JPEGS[:3]]
    files = [good[0], b"\xff\xd8\xff garbage", good[1], b"nothing", good[2], PNGS[0].read_bytes()]
    out = hetcodec.Decoder("cpu").decode_batch(files, errors="return")
    assert isinstance(out[1], hetcodec.Error) and isinstance(out[3], hetcodec.Error)
    assert out[3].code == "invalid data"
    single = hetcodec.Decoder("cpu")
    for i in (0, 2, 4, 5):
        assert np.array_equal(out[i], single.decode(files[i]))
    with pytest.raises(hetcodec.Error, match="image 1"):
        hetcodec.Decoder("cpu").decode_batch(files)


def test_one_decoder_shared_by_threads():
    files = [p.read_bytes() for p in JPEGS + PNGS[:10]]
    decoder = hetcodec.Decoder("cpu")
    want = [decoder.decode(f) for f in files]
    failures = []

    def work(k):
        try:
            for i in range(len(files)):
                j = (i + k) % len(files)
                if not np.array_equal(decoder.decode(files[j]), want[j]):
                    failures.append((k, j))
        except Exception as e:  # noqa: BLE001 (reported below)
            failures.append((k, repr(e)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def cuda_devices():
    return [d["spec"] for d in hetcodec.devices() if d["kind"] == "cuda"]


@pytest.mark.parametrize("device", devices())
def test_device_output_holds_the_host_samples(device):
    files = [p.read_bytes() for p in JPEGS[:4] + PNGS[:8]]
    decoder = hetcodec.Decoder(device)
    want = hetcodec.Decoder("cpu").decode_batch(files)
    batch = decoder.decode_batch(files + [b"nothing"], errors="return", output="device")
    assert isinstance(batch[-1], hetcodec.Error) and batch[-1].code == "invalid data"
    for data, one, expected in zip(files, batch, want):
        assert isinstance(one, hetcodec.DeviceArray) and one.device == device
        assert one.shape == expected.shape and one.dtype == str(expected.dtype)
        assert np.array_equal(one.numpy(), expected)
        alone, info = decoder.decode(data, output="device", with_info=True)
        assert np.array_equal(alone.numpy(), expected)
        assert info["bit_depth"] == expected.dtype.itemsize * 8
    with pytest.raises(ValueError):
        decoder.decode(files[0], output="gpu")


def test_dlpack_from_the_cpu_device_is_zero_copy_and_outlives_the_decoder():
    data = (DATA / "jpeg" / "testorig.jpg").read_bytes()
    want = hetcodec.Decoder("cpu").decode(data)
    decoder = hetcodec.Decoder("cpu")
    image = decoder.decode(data, output="device")
    assert image.__dlpack_device__() == (1, 0)  # kDLCPU
    array = np.from_dlpack(image)
    assert np.array_equal(array, want)
    # The device buffer itself: a sample changed through the array is what the device image
    # downloads.
    array.flags.writeable or pytest.skip("numpy gave a read-only view")
    array[0, 0, 0] ^= 0xFF
    assert image.numpy()[0, 0, 0] == array[0, 0, 0] != want[0, 0, 0]
    array[0, 0, 0] ^= 0xFF
    del image, decoder
    assert np.array_equal(array, want)
    assert not hasattr(hetcodec.Decoder("cpu").decode(data, output="device"),
                       "__cuda_array_interface__")


def _address(image):
    """Where a device array's samples are: the CUDA pointer, or the host address on the CPU."""
    if hasattr(image, "__cuda_array_interface__"):
        return image.__cuda_array_interface__["data"][0]
    return np.from_dlpack(image).__array_interface__["data"][0]


@pytest.mark.parametrize("device", ["cpu"] + cuda_devices())
def test_batches_reuse_a_device_buffer_only_once_its_arrays_are_gone(device):
    files = [p.read_bytes() for p in JPEGS[:4]]
    larger = [p.read_bytes() for p in JPEGS[:8]]
    want = hetcodec.Decoder("cpu").decode_batch(larger)
    decoder = hetcodec.Decoder(device)
    held = decoder.decode_batch(files, output="device")
    at = _address(held[0])
    # While the first batch's arrays live, the next batch has a buffer of its own, and the
    # first batch's samples stay as they were.
    other = decoder.decode_batch(files, output="device")
    assert _address(other[0]) != at
    assert all(np.array_equal(x.numpy(), y) for x, y in zip(held, want))
    # Once they are gone, their buffer takes a later batch that fits (the first image at its
    # start); a larger batch gets a larger buffer.
    del held
    again = decoder.decode_batch(files, output="device")
    assert _address(again[0]) == at
    assert all(np.array_equal(x.numpy(), y) for x, y in zip(again + other, want[:4] * 2))
    del again
    more = decoder.decode_batch(larger, output="device")
    assert all(np.array_equal(x.numpy(), y) for x, y in zip(more + other, want + want[:4]))
    # Without reuse, every batch has a buffer of its own.
    fresh = hetcodec.Decoder(device, reuse_device_buffers=False)
    del fresh.decode_batch(files, output="device")[:]
    assert all(np.array_equal(x.numpy(), y)
               for x, y in zip(fresh.decode_batch(files, output="device"), want))


def test_sixteen_bit_device_images_come_to_the_host_only():
    image = (np.arange(9 * 7 * 3, dtype=np.uint32).reshape(9, 7, 3) * 3001 % 65536).astype(np.uint16)
    png = hetcodec.Encoder("cpu").encode(image)
    on_device = hetcodec.Decoder("cpu").decode(png, output="device")
    assert on_device.dtype == "uint16"
    assert np.array_equal(on_device.numpy(), image)
    with pytest.raises(BufferError, match="16-bit"):
        np.from_dlpack(on_device)


def test_opencl_device_images_say_they_have_no_dlpack_consumer():
    opencl = [d for d in devices() if d.startswith("opencl")]
    if not opencl:
        pytest.skip("no OpenCL device")
    image = hetcodec.Decoder(opencl[0]).decode((DATA / "jpeg" / "testorig.jpg").read_bytes(),
                                               output="device")
    with pytest.raises(BufferError, match="OpenCL"):
        image.__dlpack__()


def test_torch_takes_device_images_through_dlpack():
    torch = pytest.importorskip("torch")
    data = (DATA / "jpeg" / "testorig.jpg").read_bytes()
    want = torch.from_numpy(hetcodec.Decoder("cpu").decode(data))
    targets = ["cpu"] + (cuda_devices() if torch.cuda.is_available() else [])
    for device in targets:
        tensor = torch.from_dlpack(hetcodec.Decoder(device).decode(data, output="device"))
        assert tensor.dtype == torch.uint8 and tuple(tensor.shape) == tuple(want.shape)
        assert tensor.device.type == ("cuda" if device.startswith("cuda") else "cpu")
        assert torch.equal(tensor.cpu(), want)


def test_cuda_device_images_through_dlpack_and_the_cuda_array_interface():
    if not cuda_devices():
        pytest.skip("no CUDA device")
    data = [p.read_bytes() for p in JPEGS[:3]]
    want = hetcodec.Decoder("cpu").decode_batch(data)
    images = hetcodec.Decoder(cuda_devices()[0]).decode_batch(data, output="device")
    # One buffer for the batch, each image at the next 4096-byte boundary after the one before.
    pointers = [image.__cuda_array_interface__["data"][0] for image in images]
    for k in range(1, len(images)):
        size = int(np.prod(want[k - 1].shape))
        assert pointers[k] - pointers[k - 1] == (size + 4095) // 4096 * 4096
    for image, expected in zip(images, want):
        assert image.__dlpack_device__() == (2, 0)  # kDLCUDA, device 0
        interface = image.__cuda_array_interface__
        assert interface["shape"] == expected.shape and interface["typestr"] == "|u1"
        assert interface["data"][0] != 0
        assert np.array_equal(image.numpy(), expected)
    cupy = pytest.importorskip("cupy")
    for image, expected in zip(images, want):
        assert np.array_equal(cupy.asnumpy(cupy.from_dlpack(image)), expected)
        assert np.array_equal(cupy.asnumpy(cupy.asarray(image)), expected)
