// Filters on OpenCL: the entry points of kernels_cl/filters.cl enqueued with the geometry of
// backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"
#include "core/portable/filters.h"

namespace hetcodec::opencl {
namespace {

class ClFilterKernels : public FilterKernels {
 public:
  explicit ClFilterKernels(ClDevice& device)
      : kernels_(device.program("filters"), names(), HC_FILTER_KINDS) {}

 protected:
  void run_kernel(Queue& queue, int kind, const hc_filter_params& p, const DeviceBuffer* src,
                  std::size_t src_offset, DeviceBuffer& dst, std::size_t dst_offset) override {
    cl::Kernel& k = kernels_.get()[std::size_t(kind)];
    // (The kernels that read no input take the output in its place.)
    HC_CL_CHECK(k.setArg(0, mem_of(src ? *src : dst)));
    HC_CL_CHECK(k.setArg(1, cl_ulong(src_offset)));
    HC_CL_CHECK(k.setArg(2, mem_of(dst)));
    HC_CL_CHECK(k.setArg(3, cl_ulong(dst_offset)));
    HC_CL_CHECK(k.setArg(4, sizeof(hc_filter_params), &p));
    queue_cast(queue).launch(k, plan_filter(kind, p.width, p.height), names()[kind]);
  }

 private:
  static const char* const* names() {
    static const char* const kNames[HC_FILTER_KINDS] = {"filter_smooth", "filter_perlin",
                                                        "filter_texture", "filter_mandelbrot"};
    return kNames;
  }
  ThreadKernels kernels_;  // the kernel objects, per calling thread
};

}  // namespace

std::unique_ptr<FilterKernels> make_filter_kernels(ClDevice& device) {
  return std::make_unique<ClFilterKernels>(device);
}

}  // namespace hetcodec::opencl
