// Device Huffman decoding on CUDA: the entry points of kernels_cu/jpeg_entropy.cu launched with
// the geometry of backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "core/portable/jpeg_huffman.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

class CudaJpegEntropyKernels : public JpegEntropyKernels {
 public:
  void run_stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                 const DeviceBuffer& plan, const DeviceBuffer& data, DeviceBuffer& work,
                 DeviceBuffer& coefs) override {
#define HC_JH_NAME(s, name, kind) #name,
    static const char* const kNames[HC_JH_STAGES] = {HC_JH_STAGE_LIST(HC_JH_NAME)};
#undef HC_JH_NAME
    CudaQueue& q = current(queue);
    q.after_launch(launch_jpeg_entropy(q.stream(), plan_jpeg_entropy(stage, items), stage, arg,
                                       items, reinterpret_cast<const std::uint32_t*>(ptr_of(plan)),
                                       ptr_of(data), reinterpret_cast<std::uint32_t*>(ptr_of(work)),
                                       reinterpret_cast<std::int16_t*>(ptr_of(coefs))),
                   kNames[stage]);
  }
};

}  // namespace

std::unique_ptr<JpegEntropyKernels> make_jpeg_entropy_kernels() {
  return std::make_unique<CudaJpegEntropyKernels>();
}

}  // namespace hetcodec::cuda
