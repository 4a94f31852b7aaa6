// JPEG encode stages on CUDA: the entry points of kernels_cu/jpeg_encode.cu launched with the
// geometry of backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "core/portable/jpeg_encode.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

class CudaJpegEncodeKernels : public JpegEncodeKernels {
 public:
  void run_stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                 const DeviceBuffer& pixels, const DeviceBuffer& plan, DeviceBuffer& work,
                 DeviceBuffer& data, DeviceBuffer& coefs, DeviceBuffer& out) override {
#define HC_JENC_NAME(s, name, kind) #name,
    static const char* const kNames[HC_JENC_STAGES] = {HC_JENC_STAGE_LIST(HC_JENC_NAME)};
#undef HC_JENC_NAME
    CudaQueue& q = current(queue);
    q.after_launch(
        launch_jpeg_encode(q.stream(), plan_jpeg_encode(stage, items), stage, arg, items,
                           ptr_of(pixels), reinterpret_cast<const std::uint32_t*>(ptr_of(plan)),
                           reinterpret_cast<std::uint32_t*>(ptr_of(work)),
                           reinterpret_cast<std::uint32_t*>(ptr_of(data)),
                           reinterpret_cast<std::int16_t*>(ptr_of(coefs)), ptr_of(out)),
        kNames[stage]);
  }
};

}  // namespace

std::unique_ptr<JpegEncodeKernels> make_jpeg_encode_kernels() {
  return std::make_unique<CudaJpegEncodeKernels>();
}

}  // namespace hetcodec::cuda
