// PNG encode stages on the CPU reference: the core/portable arithmetic the CUDA and OpenCL
// kernels use (kernels_cu/png_encode.cu, kernels_cl/png_encode.cl), in plain loops.
#include <cstring>
#include <memory>

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"
#include "core/portable/png_crc.h"
#include "core/portable/png_decode.h"
#include "core/portable/png_deflate.h"
#include "core/portable/png_filter.h"
#include "core/portable/png_inflate.h"

namespace hetcodec::cpu {
namespace {

class CpuPngKernels : public PngKernels {
 public:
  void run_filter_rows(Queue&, const DeviceBuffer& rows, DeviceBuffer& filtered,
                       const PngFilterInfo& info) override {
    const std::uint8_t* in = backend_cast<const Buffer>(rows, "cpu").data();
    std::uint8_t* out = backend_cast<Buffer>(filtered, "cpu").data();
    const std::size_t rb = info.row_bytes;
    for (std::uint32_t y = 0; y < info.height; ++y) {
      const std::uint8_t* row = in + y * rb;
      const std::uint8_t* prev = y ? row - rb : row;
      hc_u64 s[HC_PNG_FILTERS] = {0, 0, 0, 0, 0};
      for (std::uint32_t i = 0; i < info.row_bytes; ++i)
        for (int t = 0; t < HC_PNG_FILTERS; ++t)
          s[t] += hc_png_score(hc_png_filter_byte(t, row, prev, y > 0, i, info.bpp));
      const int best =
          hc_png_pick(s[0], s[1], s[2], s[3], s[4], hc_png_row_mask(info.mask, info.band_rows, y));
      std::uint8_t* o = out + y * (rb + 1);
      o[0] = std::uint8_t(best);
      for (std::uint32_t i = 0; i < info.row_bytes; ++i)
        o[1 + i] = hc_png_filter_byte(best, row, prev, y > 0, i, info.bpp);
    }
  }

  // The reference: row after row, byte after byte (the order does not change the result).
  void run_defilter(Queue&, DeviceBuffer& rows, DeviceBuffer&, const PngDefilterInfo& info,
                    Wavefront) override {
    std::uint8_t* base = backend_cast<Buffer>(rows, "cpu").data() + info.offset;
    const std::size_t stride = std::size_t(info.row_bytes) + 1;
    const std::uint32_t bpp = info.bpp;
    for (std::uint32_t y = 0; y < info.height; ++y) {
      std::uint8_t* cur = base + y * stride + 1;
      const std::uint8_t* up = y ? cur - stride : nullptr;
      const int type = cur[-1];
      for (std::uint32_t i = 0; i < info.row_bytes; ++i)
        cur[i] = hc_png_unfilter_byte(type, cur[i], i >= bpp ? cur[i - bpp] : 0, up ? up[i] : 0,
                                      up && i >= bpp ? up[i - bpp] : 0);
    }
  }

  void run_unpack(Queue&, const DeviceBuffer& job, const DeviceBuffer& rows, DeviceBuffer& out,
                  std::size_t out_offset, std::uint32_t width, std::uint32_t height,
                  std::uint32_t pixel_bytes) override {
    const auto* j = reinterpret_cast<const hc_u32*>(backend_cast<const Buffer>(job, "cpu").data());
    const std::uint8_t* in = backend_cast<const Buffer>(rows, "cpu").data();
    std::uint8_t* o = backend_cast<Buffer>(out, "cpu").data() + out_offset;
    for (std::uint32_t y = 0; y < height; ++y)
      for (std::uint32_t x = 0; x < width; ++x)
        hc_png_unpack_pixel(in, j, x, y, o + (std::size_t(y) * width + x) * pixel_bytes);
  }

  void run_crc32_pieces(Queue&, const DeviceBuffer& data, std::uint32_t bytes, std::uint32_t piece,
                        std::uint32_t skew, DeviceBuffer& crcs, std::size_t crcs_offset,
                        std::uint32_t count) override {
    const std::uint8_t* d = backend_cast<const Buffer>(data, "cpu").data();
    std::uint8_t* c = backend_cast<Buffer>(crcs, "cpu").data() + crcs_offset;
    static const std::vector<hc_u32> table = [] {
      std::vector<hc_u32> t(HC_CRC_TABLE_WORDS);
      for (hc_u32 e = 0; e < HC_CRC_TABLE_WORDS; ++e) t[e] = hc_crc32_table_entry(e);
      return t;
    }();
    for (std::uint32_t j = 0; j < count; ++j) {
      const hc_u32 v = hc_crc32_piece(d, bytes, piece, skew, j, table.data());
      std::memcpy(c + 4 * std::size_t(j), &v, 4);
    }
  }

  void run_inflate(Queue&, const DeviceBuffer& compressed, const DeviceBuffer& segments,
                   DeviceBuffer& rows, DeviceBuffer& results, std::uint32_t count) override {
    const std::uint8_t* in = backend_cast<const Buffer>(compressed, "cpu").data();
    const auto* seg =
        reinterpret_cast<const hc_u32*>(backend_cast<const Buffer>(segments, "cpu").data());
    std::uint8_t* out = backend_cast<Buffer>(rows, "cpu").data();
    auto* res = reinterpret_cast<hc_u32*>(backend_cast<Buffer>(results, "cpu").data());
    for (std::uint32_t k = 0; k < count; ++k)
      hc_inflate_segment(seg + std::size_t(k) * HC_INF_WORDS, in, out,
                         res + std::size_t(k) * HC_INF_RESULT_WORDS);
  }

  void run_deflate(Queue&, int stage, std::uint32_t items, const DeviceBuffer& data,
                   const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms,
                   DeviceBuffer& out) override {
    const std::uint8_t* d = backend_cast<const Buffer>(data, "cpu").data();
    const auto* p = reinterpret_cast<const hc_u32*>(backend_cast<const Buffer>(plan, "cpu").data());
    auto* w = reinterpret_cast<hc_u32*>(backend_cast<Buffer>(work, "cpu").data());
    auto* s = reinterpret_cast<hc_u16*>(backend_cast<Buffer>(syms, "cpu").data());
    auto* o = reinterpret_cast<hc_u32*>(backend_cast<Buffer>(out, "cpu").data());
    auto state = std::make_unique<hc_dfl_state>();  // the work-group stages' scratch (one lane)
    for (std::uint32_t i = 0; i < items; ++i)
      hc_dfl_run(stage, i, d, p, w, s, o, state.get(), 0, 1);
  }
};

}  // namespace

std::unique_ptr<PngKernels> make_png_kernels() { return std::make_unique<CpuPngKernels>(); }

}  // namespace hetcodec::cpu
