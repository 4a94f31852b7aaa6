// JPEG colour conversion on CUDA: host side of kernels_cu/jpeg_color.cu.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

class CudaJpegKernels : public JpegKernels {
 public:
  void run_ycc_to_rgb(Queue& queue, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                      std::uint32_t pixels) override {
    CudaQueue& q = queue_cast(queue);
    HC_CUDA_CHECK(cudaSetDevice(q.ordinal()));
    q.after_launch(launch_jpeg_ycc_to_rgb(q.stream(), ptr_of(ycc), ptr_of(rgb), pixels),
                   "jpeg_ycc_to_rgb");
  }
};

}  // namespace

std::unique_ptr<JpegKernels> make_jpeg_kernels() { return std::make_unique<CudaJpegKernels>(); }

}  // namespace hetcodec::cuda
