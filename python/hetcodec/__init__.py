"""hetcodec: JPEG and PNG decoding and encoding on a CUDA GPU, any OpenCL device or the CPU,
bit-exact with libjpeg-turbo and libpng.

    import hetcodec
    decoder = hetcodec.Decoder()                  # device="auto": CUDA, OpenCL GPU, ..., CPU
    image = decoder.decode(open("photo.jpg", "rb").read())   # numpy array, H x W x C
    images = decoder.decode_batch([a, b, c])      # the pipelined batch path
    png = hetcodec.Encoder(format="png").encode(image)

Images are numpy arrays of height x width x channels, uint8, or uint16 for 16-bit PNG and
12-bit or lossless JPEG samples. Decoders and encoders release the GIL while they work and may
be shared between threads. Failures raise hetcodec.Error, whose `code` is the library's error
code ("invalid data", "unsupported", "limit exceeded", "out of memory", ...) and `message` its
message.
"""

from . import _hetcodec
from ._hetcodec import Error, version

Error.code = property(lambda self: self.args[0], doc="the library's error code, as a string")
Error.message = property(lambda self: self.args[1], doc="what went wrong, and where")

__all__ = ["Decoder", "Encoder", "Error", "devices", "auto_device", "version"]
__version__ = version()


def devices():
    """The devices this process can use, as dicts (spec, kind, name, platform, memory_bytes,
    is_gpu, is_emulator): the CPU reference, CUDA devices, then OpenCL devices."""
    return _hetcodec.devices()


def auto_device():
    """The spec of the device device="auto" picks."""
    return _hetcodec.auto_device()


class Decoder:
    """Decodes JPEG (baseline, extended, progressive, arithmetic, 12-bit, lossless) and PNG files,
    each found from its bytes, on one device.

    device: a spec ("auto", "cpu", "cuda", "cuda:0", "opencl:nvidia", ...; hetcodec.devices()).
    scale: JPEG files decoded at 1/scale of their size (1, 2, 4 or 8), as djpeg -scale 1/N.
    max_pixels: larger images are refused (hetcodec.Error "limit exceeded").
    threads: CPU threads for the Huffman and inflate stages (0: one per hardware thread).
    """

    def __init__(self, device="auto", scale=1, max_pixels=1 << 28, threads=0):
        self._d = _hetcodec.Decoder(device, scale, max_pixels, threads)

    @property
    def device(self):
        """The spec of the device this decoder runs on."""
        return self._d.device

    def decode(self, data, crop=None, with_info=False):
        """The image of one file (bytes or any bytes-like object) as a numpy array.

        crop: (x, y, width, height) of a JPEG's output, decoded alone (jpeg_crop_scanline).
        with_info: return (array, info) where info is a dict: warnings (corrupt but decodable
        data, as libjpeg-turbo and libpng warn), format ("gray", "rgb", "rgba", ...), bit_depth.
        """
        array, warnings, fmt, bits = self._d.decode(data, crop)
        if with_info:
            return array, {"warnings": warnings, "format": fmt, "bit_depth": bits}
        return array

    def decode_batch(self, datas, errors="raise"):
        """The images of many files at once, in order: JPEG files through the pipelined batch
        path (the Huffman stage of later images overlapping the device work of earlier ones).

        errors: "raise" raises the first failure (naming its index); "return" puts a
        hetcodec.Error in the failed files' places instead.
        """
        if errors not in ("raise", "return"):
            raise ValueError('errors is "raise" or "return"')
        out = self._d.decode_batch(list(datas))
        if errors == "raise":
            for i, item in enumerate(out):
                if isinstance(item, Error):
                    raise Error(item.code, f"image {i}: {item.message}")
        return out


class Encoder:
    """Encodes numpy arrays (height x width [x channels], 1 to 4 channels, uint8; uint16 for
    PNG) on one device.

    format: "png" or "jpeg".
    PNG: png_mode "parallel" (the default, as `hetcodec encode`: the image deflated in
    independent segments on the device), "compatible" (the file libpng 1.6 writes with Z_RLE),
    or "small" (smaller files, segments deflated by libdeflate on host threads).
    JPEG: libjpeg-turbo's file for the same quality (1..100), sampling ("444", "422", "420",
    "440" or "gray"), optimize (optimal Huffman tables) and restart (MCUs between restart
    markers, 0 for none).
    """

    def __init__(self, device="auto", format="png", quality=75, sampling="420", optimize=False,
                 restart=0, png_mode="parallel"):
        self._e = _hetcodec.Encoder(device, format, quality, sampling, optimize, restart, png_mode)

    @property
    def format(self):
        return self._e.format

    def encode(self, image):
        """The file of one image, as bytes."""
        return self._e.encode(image)
