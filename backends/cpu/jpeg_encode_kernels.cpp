// JPEG encode stages on the CPU reference: the bodies of core/portable/jpeg_encode.h, which the
// CUDA and OpenCL entry points call too, run over the launch plans of backends/launch_plan.h
// (a GROUP stage once per work-group with lane 0 of 1).
#include <memory>

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"
#include "core/portable/jpeg_encode.h"

namespace hetcodec::cpu {
namespace {

class CpuJpegEncodeKernels : public JpegEncodeKernels {
 public:
  void run_stage(Queue&, int stage, std::uint32_t arg, std::uint32_t items,
                 const DeviceBuffer& pixels, const DeviceBuffer& plan, DeviceBuffer& work,
                 DeviceBuffer& data, DeviceBuffer& coefs, DeviceBuffer& out) override {
    const Launch l = plan_jpeg_encode(stage, items);
    const hc_u8* px = bytes(pixels);
    const auto* p = reinterpret_cast<const hc_u32*>(bytes(plan));
    auto* w = reinterpret_cast<hc_u32*>(bytes(work));
    auto* d = reinterpret_cast<hc_u32*>(bytes(data));
    auto* c = reinterpret_cast<hc_i16*>(bytes(coefs));
    hc_u8* o = bytes(out);
    if (hc_jenc_is_group_stage(stage)) {
      auto z = std::make_unique<hc_jenc_local>();  // the work-group's memory
      run_groups(l, [&](hc_u32 i) { hc_jenc_run(stage, arg, i, px, p, w, d, c, o, z.get(), 0, 1); });
    } else {
      run_items(l, [&](hc_u32 i) { hc_jenc_run(stage, arg, i, px, p, w, d, c, o, nullptr, 0, 1); });
    }
  }
};

}  // namespace

std::unique_ptr<JpegEncodeKernels> make_jpeg_encode_kernels() {
  return std::make_unique<CpuJpegEncodeKernels>();
}

}  // namespace hetcodec::cpu
