// PNG encode stages on CUDA: host side of kernels_cu/png_encode.cu.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

class CudaPngKernels : public PngKernels {
 public:
  void run_filter_rows(Queue& queue, const DeviceBuffer& rows, DeviceBuffer& filtered,
                       const PngFilterInfo& info) override {
    CudaQueue& q = queue_cast(queue);
    HC_CUDA_CHECK(cudaSetDevice(q.ordinal()));
    q.after_launch(launch_png_filter_rows(q.stream(), ptr_of(rows), ptr_of(filtered), info.height,
                                          info.row_bytes, info.bpp, info.mask),
                   "png_filter_rows");
  }
};

}  // namespace

std::unique_ptr<PngKernels> make_png_kernels() { return std::make_unique<CudaPngKernels>(); }

}  // namespace hetcodec::cuda
