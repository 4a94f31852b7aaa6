// JPEG stages on the CPU reference: the bodies of core/portable/jpeg_decode.h, which the CUDA
// and OpenCL entry points call too, run over the launch plans of backends/launch_plan.h.
#include <cstdlib>
#include <memory>

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"
#include "core/portable/jpeg_decode.h"

namespace hetcodec::cpu {
namespace {

const hc_u32* words(const DeviceBuffer& b) {
  return reinterpret_cast<const hc_u32*>(backend_cast<const Buffer>(b, "cpu").data());
}

// A deliberately wrong IDCT, for the tests of `hetcodec debug compare` alone:
// $HETCODEC_TEST_WRONG_IDCT_BLOCK=N adds 1 to the first sample the separate IDCT stage writes
// for block N of a job (its index among the job's blocks, groups of 64 in order).
void wrong_idct_for_tests(const hc_u32* job, hc_u8* planes, const JpegLaunchRange& range) {
  static const char* env = std::getenv("HETCODEC_TEST_WRONG_IDCT_BLOCK");
  if (!env || !*env) return;
  const unsigned long block = std::strtoul(env, nullptr, 10);
  if (block < range.first || block - range.first >= range.count) return;
  const auto* h = reinterpret_cast<const hc_jpeg_job*>(job);
  for (hc_u32 c = 0; c < h->components && c < 4; ++c) {
    const hc_jpeg_component& r = h->component[c];
    const unsigned long first = r.first_group * 64ul;
    if (block < first || block - first >= static_cast<unsigned long>(r.grid_w) * r.grid_h) continue;
    const unsigned long local = block - first, bx = local % r.grid_w, by = local / r.grid_w;
    planes[r.plane_offset + by * r.block * r.stride + bx * r.block * (h->precision > 8 ? 2 : 1)] +=
        1;
  }
}

class CpuJpegKernels : public JpegKernels {
 public:
  void run_ycc_to_rgb(Queue&, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                      std::uint32_t pixels) override {
    const hc_u8* in = bytes(ycc);
    hc_u8* out = bytes(rgb);
    run_items(plan_jpeg_pixels(pixels), [&](hc_u32 i) { hc_jpeg_ycc_to_rgb(in, out, pixels, i); });
  }

  void run_decode_idct(Queue&, const DeviceBuffer& job, DeviceBuffer& planes,
                       const JpegJobInfo& info) override {
    const hc_u32* j = words(job) + info.job_offset / 4;
    auto local = std::make_unique<hc_jpeg_group_local>();  // the work-group's memory
    hc_u8* p = bytes(planes);
    run_groups(plan_jpeg_decode_idct(info.groups),
               [&](hc_u32 g) { hc_jpeg_decode_idct(j, g, p, 0, 1, local.get()); });
  }

  void run_decode_tokens(Queue&, const DeviceBuffer& job, DeviceBuffer& coefficients,
                         const JpegJobInfo& info, const JpegLaunchRange& r) override {
    const hc_u32* j = words(job) + info.job_offset / 4;
    auto* coef = reinterpret_cast<hc_i16*>(bytes(coefficients));
    run_groups(plan_jpeg_decode_idct(r.count),
               [&](hc_u32 g) { hc_jpeg_decode_tokens(j, r.first + g, coef, 0, 1); });
  }

  void run_idct(Queue&, const DeviceBuffer& job, const DeviceBuffer& coefficients,
                DeviceBuffer& planes, const JpegJobInfo& info, const JpegLaunchRange& r) override {
    const hc_u32* j = words(job) + info.job_offset / 4;
    const auto* coef = reinterpret_cast<const hc_i16*>(bytes(coefficients));
    hc_u8* p = bytes(planes);
    run_items(plan_jpeg_idct(r.count),
              [&](hc_u32 b) { hc_jpeg_idct(j, coef, p, r.first + r.count, r.first + b); });
    wrong_idct_for_tests(j, p, r);
  }

  void run_upsample_color(Queue&, const DeviceBuffer& job, const DeviceBuffer& planes,
                          DeviceBuffer& out, std::size_t out_offset, const JpegJobInfo& info,
                          const JpegLaunchRange& r) override {
    const hc_u32* j = words(job) + info.job_offset / 4;
    const hc_u8* p = bytes(planes);
    hc_u8* o = bytes(out) + out_offset;
    run_items(plan_jpeg_pixels(r.count),
              [&](hc_u32 i) { hc_jpeg_upsample_color(j, p, o, r.first + r.count, r.first + i); });
  }

  // The chunk stages find each work-group's job in the chunk table, as the kernels do: a table
  // written wrong shows on this backend too.
  void run_decode_idct_chunk(Queue&, const DeviceBuffer& jobs, std::size_t table_offset,
                             std::uint32_t groups, DeviceBuffer& planes) override {
    auto local = std::make_unique<hc_jpeg_group_local>();
    const hc_u32* all = words(jobs);
    hc_u8* p = bytes(planes);
    run_groups(plan_jpeg_decode_idct(groups), [&](hc_u32 g) {
      hc_jpeg_decode_idct_chunk(all, hc_u32(table_offset / 4), g, p, 0, 1, local.get());
    });
  }

  void run_upsample_color_chunk(Queue&, const DeviceBuffer& jobs, std::size_t table_offset,
                                std::uint32_t tiles, const DeviceBuffer& planes,
                                DeviceBuffer& out) override {
    const hc_u32* all = words(jobs);
    const hc_u8* p = bytes(planes);
    hc_u8* o = bytes(out);
    run_groups(plan_jpeg_color_chunk(tiles), [&](hc_u32 t) {
      for (hc_u32 lane = 0; lane < HC_CHUNK_TILE; ++lane)
        hc_jpeg_upsample_color_chunk(all, hc_u32(table_offset / 4), t, p, o, lane);
    });
  }
};

}  // namespace

std::unique_ptr<JpegKernels> make_jpeg_kernels() { return std::make_unique<CpuJpegKernels>(); }

}  // namespace hetcodec::cpu
