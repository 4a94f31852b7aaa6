// JPEG colour conversion on OpenCL: host side of kernels_cl/jpeg_color.cl.
#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"

namespace hetcodec::opencl {
namespace {

class ClJpegKernels : public JpegKernels {
 public:
  explicit ClJpegKernels(ClDevice& device) : program_(device.program("jpeg_color")) {}

  void run_ycc_to_rgb(Queue& queue, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                      std::uint32_t pixels) override {
    cl::Kernel k = make_kernel(program_, "jpeg_ycc_to_rgb");
    HC_CL_CHECK(k.setArg(0, mem_of(ycc)));
    HC_CL_CHECK(k.setArg(1, mem_of(rgb)));
    HC_CL_CHECK(k.setArg(2, cl_uint(pixels)));
    queue_cast(queue).launch(k, pixels, "jpeg_ycc_to_rgb");
  }

 private:
  cl::Program program_;
};

}  // namespace

std::unique_ptr<JpegKernels> make_jpeg_kernels(ClDevice& device) {
  return std::make_unique<ClJpegKernels>(device);
}

}  // namespace hetcodec::opencl
