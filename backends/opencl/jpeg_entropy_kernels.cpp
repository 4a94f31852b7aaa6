// Device Huffman decoding on OpenCL: the entry points of kernels_cl/jpeg_entropy.cl enqueued with
// the geometry of backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"
#include "core/portable/jpeg_huffman.h"

namespace hetcodec::opencl {
namespace {

class ClJpegEntropyKernels : public JpegEntropyKernels {
 public:
  explicit ClJpegEntropyKernels(ClDevice& device)
      : kernels_(device.program("jpeg_entropy"), names(), HC_JH_STAGES) {}

  void run_stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                 const DeviceBuffer& plan, const DeviceBuffer& data, DeviceBuffer& work,
                 DeviceBuffer& coefs) override {
    cl::Kernel& k = kernels_.get()[std::size_t(stage)];
    HC_CL_CHECK(k.setArg(0, mem_of(plan)));
    HC_CL_CHECK(k.setArg(1, mem_of(data)));
    HC_CL_CHECK(k.setArg(2, mem_of(work)));
    HC_CL_CHECK(k.setArg(3, mem_of(coefs)));
    HC_CL_CHECK(k.setArg(4, cl_uint(arg)));
    HC_CL_CHECK(k.setArg(5, cl_uint(items)));
    queue_cast(queue).launch(k, plan_jpeg_entropy(stage, items), names()[stage]);
  }

 private:
  static const char* const* names() {
#define HC_JH_NAME(s, name, kind) #name,
    static const char* const kNames[HC_JH_STAGES] = {HC_JH_STAGE_LIST(HC_JH_NAME)};
#undef HC_JH_NAME
    return kNames;
  }
  ThreadKernels kernels_;  // the stages' kernel objects, per calling thread
};

}  // namespace

std::unique_ptr<JpegEntropyKernels> make_jpeg_entropy_kernels(ClDevice& device) {
  return std::make_unique<ClJpegEntropyKernels>(device);
}

}  // namespace hetcodec::opencl
