// PNG stages on the CPU reference: the bodies of core/portable/png_filter.h, png_crc.h,
// png_deflate.h, png_defilter.h and png_inflate.h, which the CUDA and OpenCL entry points call
// too, run over the launch plans of backends/launch_plan.h.
#include <memory>

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"
#include "core/portable/png_crc.h"
#include "core/portable/png_deflate.h"
#include "core/portable/png_defilter.h"
#include "core/portable/png_filter.h"
#include "core/portable/png_inflate.h"

namespace hetcodec::cpu {
namespace {

std::uint8_t* bytes(const DeviceBuffer& b) {
  return const_cast<Buffer&>(backend_cast<const Buffer>(b, "cpu")).data();
}
hc_u32* words(const DeviceBuffer& b) { return reinterpret_cast<hc_u32*>(bytes(b)); }

class CpuPngKernels : public PngKernels {
 public:
  void run_filter_rows(Queue&, const DeviceBuffer& rows, DeviceBuffer& filtered,
                       const PngFilterInfo& info) override {
    auto local = std::make_unique<hc_png_filter_local>();  // the work-group's memory
    const hc_u8* in = bytes(rows);
    hc_u8* o = bytes(filtered);
    run_groups(plan_png_filter_rows(info), [&](hc_u32 y) {
      hc_png_filter_row(in, o, info.row_bytes, info.bpp, info.mask, info.band_rows, y, 0, 1,
                        local.get());
    });
  }

  void run_defilter(Queue&, DeviceBuffer& rows, DeviceBuffer& scratch, const PngDefilterInfo& info,
                    Wavefront order) override {
    hc_u8* r = bytes(rows);
    hc_u32* flags = words(scratch);
    for (const DefilterPass& pass : plan_png_defilter(info, order)) {
      switch (pass.kernel) {
        case DefilterKernel::Clear:
          run_items(pass.launch, [&](hc_u32 i) { hc_png_clear(flags, pass.clear_words, i); });
          break;
        case DefilterKernel::Rows:
          run_items(pass.launch, [&](hc_u32 y) {
            hc_png_defilter_rows(r, info.offset, info.height, info.row_bytes, info.bpp, y);
          });
          break;
        case DefilterKernel::Bands: {
          auto local = std::make_unique<hc_wf_band_local>();
          run_groups(pass.launch, [&](hc_u32 g) {
            hc_png_defilter_bands(r, info.offset, info.height, info.row_bytes, info.bpp, g, 0, 1,
                                  local.get());
          });
          break;
        }
        case DefilterKernel::Tiles: {
          // Ticket order works as it is on one thread: work-groups run in ticket order, so
          // every flag a tile waits on is set already.
          auto local = std::make_unique<hc_wf_tile_local>();
          run_groups(pass.launch, [&](hc_u32 g) {
            hc_png_defilter_tiles(r, info.offset, info.height, info.row_bytes, info.bpp,
                                  pass.tiles_x, pass.tiles_y, pass.diagonal, flags, g, 0, 1,
                                  local.get());
          });
          break;
        }
      }
    }
  }

  void run_unpack(Queue&, const DeviceBuffer& job, const DeviceBuffer& rows, DeviceBuffer& out,
                  std::size_t out_offset, std::uint32_t width, std::uint32_t height,
                  std::uint32_t pixel_bytes) override {
    const Launch plan = plan_png_unpack(width, height);
    const hc_u8* in = bytes(rows);
    const auto* j = reinterpret_cast<const hc_png_job*>(bytes(job));
    hc_u8* o = bytes(out) + out_offset;
    for (hc_u32 gy = 0; gy < plan.groups_y; ++gy)
      for (hc_u32 x = 0; x < width; ++x)
        hc_png_unpack_column(in, j, o, width, height, pixel_bytes, x, gy, plan.groups_y);
  }

  void run_crc32_pieces(Queue&, const DeviceBuffer& data, std::uint32_t bytes_, std::uint32_t piece,
                        std::uint32_t skew, DeviceBuffer& crcs, std::size_t crcs_offset,
                        std::uint32_t count) override {
    auto table = std::make_unique<hc_u32[]>(HC_CRC_TABLE_WORDS);  // the work-group's memory
    auto* c = reinterpret_cast<hc_u32*>(bytes(crcs) + crcs_offset);
    const hc_u8* d = bytes(data);
    run_groups(plan_png_crc32_pieces(count), [&](hc_u32 g) {
      hc_crc32_pieces(d, bytes_, piece, skew, c, count, g, 0, 1, table.get());
    });
  }

  void run_inflate(Queue&, const DeviceBuffer& compressed, const DeviceBuffer& segments,
                   DeviceBuffer& rows, DeviceBuffer& results, std::uint32_t count) override {
    const hc_u8* in = bytes(compressed);
    const hc_u32* seg = words(segments);
    hc_u8* o = bytes(rows);
    hc_u32* res = words(results);
    run_items(plan_png_inflate(count),
              [&](hc_u32 k) { hc_inflate_item(in, seg, o, res, count, k); });
  }

  void run_deflate(Queue&, int stage, std::uint32_t items, const DeviceBuffer& data,
                   const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms,
                   DeviceBuffer& out) override {
    const Launch l = plan_png_deflate(stage, items);
    const hc_u8* d = bytes(data);
    const hc_u32* p = words(plan);
    hc_u32* w = words(work);
    auto* s = reinterpret_cast<hc_u16*>(bytes(syms));
    hc_u32* o = words(out);
    if (hc_dfl_is_group_stage(stage)) {
      auto z = std::make_unique<hc_dfl_state>();  // the work-group's memory
      run_groups(l, [&](hc_u32 i) { hc_dfl_run(stage, i, d, p, w, s, o, z.get(), 0, 1); });
    } else {
      run_items(l, [&](hc_u32 i) {
        if (i < items) hc_dfl_run(stage, i, d, p, w, s, o, nullptr, 0, 1);
      });
    }
  }
};

}  // namespace

std::unique_ptr<PngKernels> make_png_kernels() { return std::make_unique<CpuPngKernels>(); }

}  // namespace hetcodec::cpu
