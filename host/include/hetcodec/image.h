// What every pipeline shares in the public API: host images (core/image.h), the description of
// an image a decoder can give before decoding it, images left in device memory, the inputs of a
// batch, and a batch's errors.
#ifndef HETCODEC_IMAGE_H
#define HETCODEC_IMAGE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/image.h"
#include "hetcodec/device.h"

namespace hetcodec {

// The decoded image a file will give, read from its headers before decoding (JpegDecoder::info,
// PngDecoder::info; libspng's spng_get_ihdr, nvJPEG's nvjpegGetImageInfo): the size and format
// of the Image decode() returns, so a caller can size its memory first.
struct ImageInfo {
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::RGB;
  int bit_depth = 8;
  int channels() const { return hetcodec::channels(format); }
  std::size_t bytes() const {
    return std::size_t(width) * std::size_t(height) * std::size_t(channels()) *
           std::size_t(bit_depth / 8);
  }
};

// An image in device memory, for later stages on the same device (PngEncoder::encode takes
// one): samples as Image lays them out, at `offset` in `buffer`, an opaque handle to the memory.
struct DeviceImage {
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::RGB;
  int bit_depth = 8;
  std::shared_ptr<DeviceBuffer> buffer;
  std::size_t offset = 0;
  std::vector<std::string> warnings;
  Metadata metadata;  // as Image's
  int channels() const { return hetcodec::channels(format); }
  std::size_t bytes() const {
    return std::size_t(width) * std::size_t(height) * std::size_t(channels()) *
           std::size_t(bit_depth / 8);
  }
};

// A rectangle of an image: `width` x `height` pixels from column x, row y. All zero: the whole
// image.
struct Region {
  int x = 0, y = 0, width = 0, height = 0;
  bool whole() const { return x == 0 && y == 0 && width == 0 && height == 0; }
};

// One input of a batch: encoded bytes the caller keeps alive until the call returns, and, for
// the decoders that crop (JpegDecoder), the region of it to decode.
struct Input {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  Region crop = {};
};

// Per input of a batch, the Error it failed with (its code and message), or nothing.
using BatchErrors = std::vector<std::optional<Error>>;

// The samples of `image`, which lies in `device`'s memory (a decoder's or filter's output on it),
// brought back to host memory as an Image (the same layout: 16-bit samples big-endian).
// Error(InvalidArgument) for an image whose buffer is missing or too small.
Image download(const std::shared_ptr<Device>& device, const DeviceImage& image);

// Where a DeviceImage's samples lie, to hand them to another library without a copy (DLPack,
// __cuda_array_interface__). The samples are ready when the call that made the image returns
// (decode_to_device and the like wait for their work), so any stream may read them; they live
// as long as the DeviceImage's buffer does.
struct NativeMemory {
  DeviceKind kind = DeviceKind::Cpu;
  int ordinal = 0;           // CUDA: the device ordinal; OpenCL: N of its spec opencl:N; CPU: 0
  void* handle = nullptr;    // CUDA: the buffer's device pointer; CPU: its host pointer;
                             // OpenCL: its cl_mem
  std::size_t offset = 0;    // bytes from there to the first sample (DeviceImage::offset)
};
NativeMemory native_memory(const std::shared_ptr<Device>& device, const DeviceImage& image);

}  // namespace hetcodec

#endif  // HETCODEC_IMAGE_H
