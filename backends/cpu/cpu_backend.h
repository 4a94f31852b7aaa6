// The CPU reference backend: a full backend, not a test helper (STYLE.md). Device memory is
// host memory and the queue runs each command as it is enqueued, so events are always complete.
#ifndef HETCODEC_BACKENDS_CPU_CPU_BACKEND_H
#define HETCODEC_BACKENDS_CPU_CPU_BACKEND_H

#include <cstdint>
#include <memory>

#include "backends/backend.h"

namespace hetcodec::cpu {

class Buffer : public DeviceBuffer {
 public:
  explicit Buffer(std::size_t size);
  std::uint8_t* data() { return data_.get(); }
  const std::uint8_t* data() const { return data_.get(); }

 private:
  std::unique_ptr<std::uint8_t[]> data_;
};

DeviceInfo device_info();
std::shared_ptr<Device> open_device(const DeviceInfo& info);
std::unique_ptr<JpegKernels> make_jpeg_kernels();
std::unique_ptr<PngKernels> make_png_kernels();

}  // namespace hetcodec::cpu

#endif  // HETCODEC_BACKENDS_CPU_CPU_BACKEND_H
