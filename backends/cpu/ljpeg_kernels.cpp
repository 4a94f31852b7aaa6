// Lossless JPEG stages on the CPU reference: the bodies of core/portable/ljpeg.h, which the CUDA
// and OpenCL entry points call too, run over the launch plans of backends/launch_plan.h. The
// residual stage's rows are independent: they go on the threads the scan asks for.
#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"
#include "core/portable/ljpeg.h"

namespace hetcodec::cpu {
namespace {

hc_u32* words(const DeviceBuffer& b) { return reinterpret_cast<hc_u32*>(bytes(b)); }

// body(i) for i in [0, n) on `threads` threads (0: one per hardware thread), in interleaved
// blocks of 16 so that neighbouring rows share a thread's cache.
template <class Body>
void on_threads(std::uint32_t n, int threads, Body&& body) {
  unsigned t = threads > 0 ? unsigned(threads) : std::max(1u, std::thread::hardware_concurrency());
  t = std::min<unsigned>(t, (n + 15) / 16);
  if (t <= 1) {
    for (std::uint32_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < t; ++k)
    pool.emplace_back([&, k] {
      for (std::uint32_t b = k * 16; b < n; b += t * 16)
        for (std::uint32_t i = b; i < std::min(n, b + 16); ++i) body(i);
    });
  for (auto& th : pool) th.join();
}

class CpuLjpegKernels : public LjpegKernels {
 public:
  void run_residuals(Queue&, const DeviceBuffer& job, const DeviceBuffer& file,
                     DeviceBuffer& planes, DeviceBuffer& status,
                     const LjpegScanInfo& info) override {
    const hc_u32* j = words(job);
    const hc_u8* f = bytes(file);
    hc_u8* p = bytes(planes) + info.plane_offset;
    auto* st = reinterpret_cast<hc_u32*>(bytes(status) + info.status_offset);
    on_threads(info.coded_rows(), info.cpu_threads,
               [&](std::uint32_t y) { hc_lj_residual_row(j, f, info.scan, p, st, y); });
  }

  void run_reconstruct(Queue&, DeviceBuffer& planes, DeviceBuffer& scratch,
                       const LjpegScanInfo& info, Wavefront order) override {
    hc_u8* base = bytes(planes);
    hc_u8* p = base + info.plane_offset;
    const PngDefilterInfo w = ljpeg_wavefront_info(info);
    for (const LjpegPass& pass : plan_ljpeg_reconstruct(info, order)) {
      switch (pass.kind) {
        case LjpegPassKind::FirstColumn: {
          auto local = std::make_unique<hc_lj_column_local>();
          run_groups(pass.launch, [&](hc_u32) {
            hc_lj_first_column(p, info.height, info.width, info.comps, 0, 1, local.get());
          });
        } break;
        case LjpegPassKind::FirstRowSums: {
          const int first_only = pass.kind == LjpegPassKind::FirstRowSums;
          on_threads(info.height, info.cpu_threads, [&](std::uint32_t y) {
            hc_lj_row_sums(p, info.height, info.width, info.comps, first_only, y);
          });
          break;
        }
        case LjpegPassKind::ColumnSums:
          run_items(pass.launch, [&](hc_u32 i) {
            hc_lj_column_sums(p, info.height, info.width, info.comps, i);
          });
          break;
        case LjpegPassKind::Wavefront:
          run_engine(pass.wavefront, base, words(scratch), w);
          break;
      }
    }
  }

  void run_unpack(Queue&, const DeviceBuffer& job, const DeviceBuffer& planes, DeviceBuffer& out,
                  std::size_t out_offset, std::uint32_t width, std::uint32_t height) override {
    const Launch plan = plan_ljpeg_unpack(width, height);
    const hc_u32* j = words(job);
    const hc_u8* in = bytes(planes);
    hc_u8* o = bytes(out) + out_offset;
    for (hc_u32 gy = 0; gy < plan.groups_y; ++gy)
      for (hc_u32 x = 0; x < width; ++x) hc_lj_unpack_column(j, in, o, x, gy, plan.groups_y);
  }

 private:
  static void run_engine(const DefilterPass& pass, hc_u8* r, hc_u32* flags,
                         const PngDefilterInfo& info) {
    switch (pass.kernel) {
      case DefilterKernel::Clear:
        run_items(pass.launch, [&](hc_u32 i) {
          if (i < pass.clear_words) flags[i] = 0;
        });
        break;
      case DefilterKernel::Rows:  // not planned for lossless JPEG (row sums instead)
        break;
      case DefilterKernel::Bands: {
        auto local = std::make_unique<hc_wf_band_local>();
        run_groups(pass.launch, [&](hc_u32 g) {
          hc_lj_defilter_bands(r, info.offset, info.height, info.row_bytes, info.bpp, g, 0, 1,
                               local.get());
        });
        break;
      }
      case DefilterKernel::Tiles: {
        // Ticket order works as it is on one thread: work-groups run in ticket order.
        auto local = std::make_unique<hc_wf_tile_local>();
        run_groups(pass.launch, [&](hc_u32 g) {
          hc_lj_defilter_tiles(r, info.offset, info.height, info.row_bytes, info.bpp, pass.tiles_x,
                               pass.tiles_y, pass.diagonal, flags, g, 0, 1, local.get());
        });
        break;
      }
    }
  }
};

}  // namespace

std::unique_ptr<LjpegKernels> make_ljpeg_kernels() { return std::make_unique<CpuLjpegKernels>(); }

}  // namespace hetcodec::cpu
