// Images left in device memory, handed back to the host or to other libraries (image.h).
#include <cstdlib>
#include <string>

#include "host/src/device_image.h"

namespace hetcodec {

namespace {

void check_image(const std::shared_ptr<Device>& device, const DeviceImage& image) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "no device");
  if (!image.buffer || image.offset + image.bytes() > image.buffer->size())
    throw Error(ErrorCode::InvalidArgument,
                "a device image of " + std::to_string(image.bytes()) + " bytes at offset " +
                    std::to_string(image.offset) + " of a buffer of " +
                    std::to_string(image.buffer ? image.buffer->size() : 0) + " bytes");
}

}  // namespace

namespace detail {

Image download_on(Queue& queue, const DeviceImage& image) {
  Image out;
  out.width = image.width;
  out.height = image.height;
  out.format = image.format;
  out.bit_depth = image.bit_depth;
  out.metadata = image.metadata;
  out.warnings = image.warnings;
  out.pixels.resize(image.bytes());
  if (!out.pixels.empty()) {
    queue.read(out.pixels.data(), *image.buffer, image.offset, out.pixels.size());
    queue.finish();
  }
  return out;
}

}  // namespace detail

Image download(const std::shared_ptr<Device>& device, const DeviceImage& image) {
  check_image(device, image);
  std::unique_ptr<Queue> queue = device->create_queue();
  return detail::download_on(*queue, image);
}

NativeMemory native_memory(const std::shared_ptr<Device>& device, const DeviceImage& image) {
  check_image(device, image);
  const DeviceInfo& info = device->info();
  NativeMemory m;
  m.kind = info.kind;
  const std::size_t colon = info.spec.find(':');
  m.ordinal = colon == std::string::npos ? 0 : std::atoi(info.spec.c_str() + colon + 1);
  m.handle = image.buffer->native_handle();
  m.offset = image.offset;
  return m;
}

}  // namespace hetcodec
