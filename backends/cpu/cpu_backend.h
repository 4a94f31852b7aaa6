// The CPU reference backend: a full backend, not a test helper (STYLE.md). Device memory is
// host memory and the queue runs each command as it is enqueued, so events are always complete.
#ifndef HETCODEC_BACKENDS_CPU_CPU_BACKEND_H
#define HETCODEC_BACKENDS_CPU_CPU_BACKEND_H

#include <cstdint>
#include <memory>

#include "backends/backend.h"
#include "backends/backend_util.h"
#include "backends/launch_plan.h"

namespace hetcodec::cpu {

class Buffer : public DeviceBuffer {
 public:
  explicit Buffer(std::size_t size);
  std::uint8_t* data() { return data_.get(); }
  const std::uint8_t* data() const { return data_.get(); }
  void* native_handle() const override { return data_.get(); }

 private:
  std::unique_ptr<std::uint8_t[]> data_;
};

// A CPU buffer's bytes, for the kernels' bodies (which take const and mutable buffers alike).
inline std::uint8_t* bytes(const DeviceBuffer& b) {
  return const_cast<Buffer&>(backend_cast<const Buffer>(b, "cpu")).data();
}

DeviceInfo device_info();
std::shared_ptr<Device> open_device(const DeviceInfo& info);
std::unique_ptr<JpegKernels> make_jpeg_kernels();
std::unique_ptr<PngKernels> make_png_kernels();
std::unique_ptr<LjpegKernels> make_ljpeg_kernels();
std::unique_ptr<JpegEncodeKernels> make_jpeg_encode_kernels();
std::unique_ptr<JpegEntropyKernels> make_jpeg_entropy_kernels();
std::unique_ptr<FilterKernels> make_filter_kernels();

// A launch plan run on the CPU: an ITEM body for every index group * lanes + lane of a 1-D plan
// (the body checks its bound), or a GROUP body once per work-group, as lane 0 of 1.
template <class Body>
void run_items(const Launch& plan, Body&& body) {
  for (std::uint64_t i = 0; i < plan.items(); ++i) body(std::uint32_t(i));
}
template <class Body>
void run_groups(const Launch& plan, Body&& body) {
  for (std::uint32_t g = 0; g < plan.groups_x; ++g) body(g);
}

}  // namespace hetcodec::cpu

#endif  // HETCODEC_BACKENDS_CPU_CPU_BACKEND_H
