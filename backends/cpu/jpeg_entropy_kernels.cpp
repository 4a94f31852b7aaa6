// Device Huffman decoding on the CPU reference: the bodies of core/portable/jpeg_huffman.h,
// which the CUDA and OpenCL entry points call too, run over the launch plans of
// backends/launch_plan.h (a GROUP stage once per work-group with lane 0 of 1).
#include <memory>

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"
#include "core/portable/jpeg_huffman.h"

namespace hetcodec::cpu {
namespace {

class CpuJpegEntropyKernels : public JpegEntropyKernels {
 public:
  void run_stage(Queue&, int stage, std::uint32_t arg, std::uint32_t items,
                 const DeviceBuffer& plan, const DeviceBuffer& data, DeviceBuffer& work,
                 DeviceBuffer& coefs) override {
    const Launch l = plan_jpeg_entropy(stage, items);
    const auto* p = reinterpret_cast<const hc_u32*>(bytes(plan));
    const hc_u8* d = bytes(data);
    auto* w = reinterpret_cast<hc_u32*>(bytes(work));
    auto* c = reinterpret_cast<hc_i16*>(bytes(coefs));
    if (hc_jh_is_group_stage(stage)) {
      auto z = std::make_unique<hc_jh_local>();  // the work-group's memory
      run_groups(l, [&](hc_u32 i) {
        if (i < items) hc_jh_run(stage, arg, i, p, d, w, c, z.get(), 0, 1);
      });
    } else {
      run_items(l, [&](hc_u32 i) {
        if (i < items) hc_jh_run(stage, arg, i, p, d, w, c, nullptr, 0, 1);
      });
    }
  }
};

}  // namespace

std::unique_ptr<JpegEntropyKernels> make_jpeg_entropy_kernels() {
  return std::make_unique<CpuJpegEntropyKernels>();
}

}  // namespace hetcodec::cpu
