"""hetcodec: JPEG and PNG decoding and encoding on a CUDA GPU, any OpenCL device or the CPU,
bit-exact with libjpeg-turbo and libpng.

    import hetcodec
    decoder = hetcodec.Decoder()                  # device="auto": CUDA, OpenCL GPU, ..., CPU
    image = decoder.decode(open("photo.jpg", "rb").read())   # numpy array, H x W x C
    images = decoder.decode_batch([a, b, c])      # the pipelined batch path
    png = hetcodec.Encoder(format="png").encode(image)

Images are numpy arrays of height x width x channels, uint8, or uint16 for 16-bit PNG and
12-bit or lossless JPEG samples. With output="device" they stay in the device's memory as
hetcodec.DeviceArray, which torch.from_dlpack, cupy.from_dlpack and numpy.from_dlpack take
without a copy (DLPack; __cuda_array_interface__ on CUDA). Decoders and encoders release the GIL while they work and may
be shared between threads. Failures raise hetcodec.Error, whose `code` is the library's error
code ("invalid data", "unsupported", "limit exceeded", "out of memory", ...) and `message` its
message.
"""

from . import _hetcodec
from ._hetcodec import Error, version

Error.code = property(lambda self: self.args[0], doc="the library's error code, as a string")
Error.message = property(lambda self: self.args[1], doc="what went wrong, and where")

__all__ = ["Decoder", "DeviceArray", "Encoder", "Error", "devices", "auto_device", "version"]
__version__ = version()


def devices():
    """The devices this process can use, as dicts (spec, kind, name, platform, memory_bytes,
    is_gpu, is_emulator): the CPU reference, CUDA devices, then OpenCL devices."""
    return _hetcodec.devices()


def auto_device():
    """The spec of the device device="auto" picks."""
    return _hetcodec.auto_device()


class DeviceArray:
    """A decoded image in device memory: height x width x channels samples on the decoder's
    device (CUDA memory, or host memory for the CPU reference device).

    It implements DLPack (__dlpack__, __dlpack_device__), so torch.from_dlpack(a),
    cupy.from_dlpack(a) and, on the CPU device, numpy.from_dlpack(a) take the samples without a
    copy; on CUDA also __cuda_array_interface__ (version 3). The samples are complete when the
    decode returns, so a consumer may read them on any stream (the stream argument of __dlpack__
    asks for nothing more). They live as long as this object or an array made from it does
    (the images of one decode_batch share one buffer, which lives as long as any of them).

    8-bit samples only go out through DLPack: 16-bit samples lie big-endian in device memory,
    and OpenCL memory has no DLPack consumer; .numpy() brings any image to the host.
    """

    __slots__ = ("_image", "_array")

    def __init__(self, image):
        self._image = image
        self._array = None

    def _dlpack_array(self):
        if self._array is None:
            try:
                self._array = self._image.dlpack()
            except Error as e:
                raise BufferError(e.message) from e
        return self._array

    @property
    def shape(self):
        """(height, width, channels)"""
        return self._image.shape

    @property
    def dtype(self):
        """"uint8", or "uint16" for 16-bit samples."""
        return "uint8" if self._image.bit_depth == 8 else "uint16"

    @property
    def device(self):
        """The spec of the device whose memory holds the samples ("cuda:0", "cpu", ...)."""
        return self._image.device

    @property
    def format(self):
        return self._image.format

    @property
    def warnings(self):
        return self._image.warnings

    def numpy(self):
        """The samples copied to a numpy array in host memory (uint16 in the machine's order)."""
        return self._image.download()

    def __dlpack__(self, **kwargs):
        return self._dlpack_array().__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._dlpack_array().__dlpack_device__()

    @property
    def __cuda_array_interface__(self):
        pointer = self._image.cuda_pointer
        if not pointer:
            raise AttributeError("__cuda_array_interface__: the samples are not in CUDA memory "
                                 f"({self.device})")
        if self._image.bit_depth != 8:  # (AttributeError: hasattr() probes say False)
            raise AttributeError("__cuda_array_interface__: 16-bit samples lie big-endian in "
                                 "device memory; .numpy() brings them to the host")
        return {"shape": tuple(self.shape), "typestr": "|u1", "data": (pointer, False),
                "strides": None, "version": 3, "stream": None}

    def __repr__(self):
        h, w, c = self.shape
        return f"hetcodec.DeviceArray({h}x{w}x{c} {self.dtype} on {self.device})"


class Decoder:
    """Decodes JPEG (baseline, extended, progressive, arithmetic, 12-bit, lossless) and PNG files,
    each found from its bytes, on one device.

    device: a spec ("auto", "cpu", "cuda", "cuda:0", "opencl:nvidia", ...; hetcodec.devices()).
    scale: JPEG files decoded at 1/scale of their size (1, 2, 4 or 8), as djpeg -scale 1/N.
    max_pixels: larger images are refused (hetcodec.Error "limit exceeded").
    threads: CPU threads for the Huffman and inflate stages (0: one per hardware thread).
    reuse_device_buffers: decode_batch(output="device") decodes into the device buffer of an
    earlier batch once every array (and every tensor made from one) of that batch is gone,
    after waiting for the device's work (CUDA), instead of a new buffer each batch.
    """

    def __init__(self, device="auto", scale=1, max_pixels=1 << 28, threads=0,
                 reuse_device_buffers=True):
        self._d = _hetcodec.Decoder(device, scale, max_pixels, threads, reuse_device_buffers)

    @property
    def device(self):
        """The spec of the device this decoder runs on."""
        return self._d.device

    def decode(self, data, crop=None, with_info=False, output="host"):
        """The image of one file (bytes or any bytes-like object) as a numpy array.

        crop: (x, y, width, height) of a JPEG's output, decoded alone (jpeg_crop_scanline).
        with_info: return (array, info) where info is a dict: warnings (corrupt but decodable
        data, as libjpeg-turbo and libpng warn), format ("gray", "rgb", "rgba", ...), bit_depth.
        output: "host" (a numpy array) or "device" (a hetcodec.DeviceArray in the device's
        memory, for torch.from_dlpack and the like).
        """
        if _device_output(output):
            image = DeviceArray(self._d.decode_to_device(data, crop))
            if with_info:
                return image, {"warnings": image.warnings, "format": image.format,
                               "bit_depth": 8 if image.dtype == "uint8" else 16}
            return image
        array, warnings, fmt, bits = self._d.decode(data, crop)
        if with_info:
            return array, {"warnings": warnings, "format": fmt, "bit_depth": bits}
        return array

    def decode_batch(self, datas, errors="raise", output="host"):
        """The images of many files at once, in order: JPEG files through the pipelined batch
        path (the Huffman stage of later images overlapping the device work of earlier ones).

        errors: "raise" raises the first failure (naming its index); "return" puts a
        hetcodec.Error in the failed files' places instead.
        output: "host" (numpy arrays) or "device" (hetcodec.DeviceArray; the JPEG files' images
        share one device buffer).
        """
        if errors not in ("raise", "return"):
            raise ValueError('errors is "raise" or "return"')
        if _device_output(output):
            out = [x if isinstance(x, Error) else DeviceArray(x)
                   for x in self._d.decode_batch_to_device(list(datas))]
        else:
            out = self._d.decode_batch(list(datas))
        if errors == "raise":
            for i, item in enumerate(out):
                if isinstance(item, Error):
                    raise Error(item.code, f"image {i}: {item.message}")
        return out


def _device_output(output):
    if output not in ("host", "device"):
        raise ValueError('output is "host" or "device"')
    return output == "device"


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
