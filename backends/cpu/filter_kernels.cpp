// Filters on the CPU reference: the bodies of core/portable/filters.h, which the CUDA and
// OpenCL entry points call too, over the launch plans of backends/launch_plan.h. Compiled with
// -ffp-contract=off (backends/CMakeLists.txt), so that no product and sum fuse here either.
#include <memory>

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"
#include "core/portable/filters.h"

namespace hetcodec::cpu {
namespace {

class CpuFilterKernels : public FilterKernels {
 protected:
  void run_kernel(Queue&, int kind, const hc_filter_params& p, const DeviceBuffer* src,
                  std::size_t src_offset, DeviceBuffer& dst, std::size_t dst_offset) override {
    const Launch l = plan_filter(kind, p.width, p.height);
    const hc_u8* s = src ? bytes(*src) + src_offset : nullptr;
    hc_u8* d = bytes(dst) + dst_offset;
    switch (kind) {
      case HC_FILTER_SMOOTH: {
        auto loc = std::make_unique<hc_smooth_local>();
        run_groups(l, [&](hc_u32 g) { hc_filter_smooth(s, d, p, g, 0, 1, loc.get()); });
        break;
      }
      case HC_FILTER_PERLIN:
        run_items(l, [&](hc_u32 i) { hc_filter_perlin(d, p, i); });
        break;
      case HC_FILTER_TEXTURE:
        run_items(l, [&](hc_u32 i) { hc_filter_texture(s, d, p, i); });
        break;
      case HC_FILTER_MANDELBROT:
        run_items(l, [&](hc_u32 i) { hc_filter_mandelbrot(d, p, i); });
        break;
    }
  }
};

}  // namespace

std::unique_ptr<FilterKernels> make_filter_kernels() {
  return std::make_unique<CpuFilterKernels>();
}

}  // namespace hetcodec::cpu
