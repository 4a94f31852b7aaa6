// JPEG encode stages on OpenCL: the entry points of kernels_cl/jpeg_encode.cl enqueued with the
// geometry of backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"
#include "core/portable/jpeg_encode.h"

namespace hetcodec::opencl {
namespace {

class ClJpegEncodeKernels : public JpegEncodeKernels {
 public:
  explicit ClJpegEncodeKernels(ClDevice& device)
      : kernels_(device.program("jpeg_encode"), names(), HC_JENC_STAGES) {}

  void run_stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                 const DeviceBuffer& pixels, const DeviceBuffer& plan, DeviceBuffer& work,
                 DeviceBuffer& data, DeviceBuffer& coefs, DeviceBuffer& out) override {
    cl::Kernel& k = kernels_.get()[std::size_t(stage)];
    HC_CL_CHECK(k.setArg(0, mem_of(pixels)));
    HC_CL_CHECK(k.setArg(1, mem_of(plan)));
    HC_CL_CHECK(k.setArg(2, mem_of(work)));
    HC_CL_CHECK(k.setArg(3, mem_of(data)));
    HC_CL_CHECK(k.setArg(4, mem_of(coefs)));
    HC_CL_CHECK(k.setArg(5, mem_of(out)));
    HC_CL_CHECK(k.setArg(6, cl_uint(arg)));
    HC_CL_CHECK(k.setArg(7, cl_uint(items)));
    queue_cast(queue).launch(k, plan_jpeg_encode(stage, items), names()[stage]);
  }

 private:
  static const char* const* names() {
#define HC_JENC_NAME(s, name, kind) #name,
    static const char* const kNames[HC_JENC_STAGES] = {HC_JENC_STAGE_LIST(HC_JENC_NAME)};
#undef HC_JENC_NAME
    return kNames;
  }
  ThreadKernels kernels_;  // the stages' kernel objects, per calling thread
};

}  // namespace

std::unique_ptr<JpegEncodeKernels> make_jpeg_encode_kernels(ClDevice& device) {
  return std::make_unique<ClJpegEncodeKernels>(device);
}

}  // namespace hetcodec::opencl
