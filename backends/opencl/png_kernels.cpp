// PNG encode stages on OpenCL: host side of kernels_cl/png_encode.cl.
#include <mutex>

#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"

namespace hetcodec::opencl {
namespace {

class ClPngKernels : public PngKernels {
 public:
  explicit ClPngKernels(ClDevice& device)
      : filter_(make_kernel(device.program("png_encode"), "png_filter_rows")) {}

  void run_filter_rows(Queue& queue, const DeviceBuffer& rows, DeviceBuffer& filtered,
                       const PngFilterInfo& info) override {
    // A kernel object is not safe to set from two threads at once (see jpeg_kernels.cpp).
    std::lock_guard<std::mutex> lock(mutex_);
    HC_CL_CHECK(filter_.setArg(0, mem_of(rows)));
    HC_CL_CHECK(filter_.setArg(1, mem_of(filtered)));
    HC_CL_CHECK(filter_.setArg(2, cl_uint(info.row_bytes)));
    HC_CL_CHECK(filter_.setArg(3, cl_uint(info.bpp)));
    HC_CL_CHECK(filter_.setArg(4, cl_uint(info.mask)));
    queue_cast(queue).launch(filter_, std::size_t(info.height) * 256, 256, "png_filter_rows");
  }

 private:
  cl::Kernel filter_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<PngKernels> make_png_kernels(ClDevice& device) {
  return std::make_unique<ClPngKernels>(device);
}

}  // namespace hetcodec::opencl
