// JPEG encode stages on OpenCL: the entry points of kernels_cl/jpeg_encode.cl enqueued with the
// geometry of backends/launch_plan.h.
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"
#include "core/portable/jpeg_encode.h"

namespace hetcodec::opencl {
namespace {

class ClJpegEncodeKernels : public JpegEncodeKernels {
 public:
  explicit ClJpegEncodeKernels(ClDevice& device) : program_(device.program("jpeg_encode")) {}

  void run_stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                 const DeviceBuffer& pixels, const DeviceBuffer& plan, DeviceBuffer& work,
                 DeviceBuffer& data, DeviceBuffer& coefs, DeviceBuffer& out) override {
    cl::Kernel& k = kernels()[std::size_t(stage)];
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
  // The stages' kernel objects of each calling thread, made on its first call: encoders on
  // several threads set their arguments without waiting on each other (a kernel object is not
  // safe to set from two threads at once).
  std::vector<cl::Kernel>& kernels() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<cl::Kernel>& set = kernels_[std::this_thread::get_id()];
    if (set.empty())
      for (int s = 0; s < HC_JENC_STAGES; ++s) set.push_back(make_kernel(program_, names()[s]));
    return set;
  }
  cl::Program program_;
  std::map<std::thread::id, std::vector<cl::Kernel>> kernels_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<JpegEncodeKernels> make_jpeg_encode_kernels(ClDevice& device) {
  return std::make_unique<ClJpegEncodeKernels>(device);
}

}  // namespace hetcodec::opencl
