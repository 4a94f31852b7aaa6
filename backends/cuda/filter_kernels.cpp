// Filters on CUDA: the entry points of kernels_cu/filters.cu launched with the geometry of
// backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "core/portable/filters.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

class CudaFilterKernels : public FilterKernels {
 protected:
  void run_kernel(Queue& queue, int kind, const hc_filter_params& p, const DeviceBuffer* src,
                  std::size_t src_offset, DeviceBuffer& dst, std::size_t dst_offset) override {
    static const char* const kNames[HC_FILTER_KINDS] = {"filter_smooth", "filter_perlin",
                                                        "filter_texture", "filter_mandelbrot"};
    CudaQueue& q = current(queue);
    q.after_launch(launch_filter(q.stream(), kind, p, src ? ptr_of(*src) + src_offset : nullptr,
                                 ptr_of(dst) + dst_offset),
                   kNames[kind]);
  }
};

}  // namespace

std::unique_ptr<FilterKernels> make_filter_kernels() {
  return std::make_unique<CudaFilterKernels>();
}

}  // namespace hetcodec::cuda
