// PNG encode entry points: the bodies of core/portable/png_filter.h, png_crc.h and png_deflate.h
// on CUDA, each a block of its launch plan's lanes (backends/launch_plan.h).
#include "core/portable/png_crc.h"
#include "core/portable/png_deflate.h"
#include "core/portable/png_filter.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

__global__ void __launch_bounds__(HC_PNG_FILTER_LANES)
    png_filter_rows(const hc_u8* rows, hc_u8* out, hc_u32 row_bytes, hc_u32 bpp, hc_u32 mask,
                    hc_u32 band_rows) {
  __shared__ hc_png_filter_local loc;
  hc_png_filter_row(rows, out, row_bytes, bpp, mask, band_rows, blockIdx.x, threadIdx.x,
                    HC_PNG_FILTER_LANES, &loc);
}

__global__ void __launch_bounds__(HC_CRC_LANES)
    png_crc32_pieces(const hc_u8* data, hc_u32 bytes, hc_u32 piece, hc_u32 skew, hc_u32* crcs,
                     hc_u32 count) {
  __shared__ hc_u32 table[HC_CRC_TABLE_WORDS];
  hc_crc32_pieces(data, bytes, piece, skew, crcs, count, blockIdx.x, threadIdx.x, HC_CRC_LANES,
                  table);
}

// A deflate stage per kernel (HC_DFL_STAGE_LIST): GROUP stages an item to a block, their scratch
// in shared memory; ITEM stages an item to a thread.
template <int Stage, bool Group>
__global__ void png_deflate(hc_u32 items, const hc_u8* data, const hc_u32* plan, hc_u32* work,
                            hc_u16* syms, hc_u32* out) {
  if constexpr (Group) {
    __shared__ hc_dfl_state z;
    if (blockIdx.x < items)
      hc_dfl_run(Stage, blockIdx.x, data, plan, work, syms, out, &z, threadIdx.x, blockDim.x);
  } else {
    const hc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < items) hc_dfl_run(Stage, i, data, plan, work, syms, out, nullptr, 0, 1);
  }
}

// The kinds of HC_DFL_STAGE_LIST as the kernel's template argument.
constexpr bool kITEM = false, kGROUP = true;

}  // namespace

cudaError_t launch_png_filter_rows(cudaStream_t stream, const Launch& l, const std::uint8_t* rows,
                                   std::uint8_t* out, const PngFilterInfo& info) {
  return launch(png_filter_rows, stream, l, rows, out, info.row_bytes, info.bpp, info.mask,
                info.band_rows);
}

cudaError_t launch_png_crc32_pieces(cudaStream_t stream, const Launch& l, const std::uint8_t* data,
                                    std::uint32_t bytes, std::uint32_t piece, std::uint32_t skew,
                                    std::uint32_t* crcs, std::uint32_t count) {
  return launch(png_crc32_pieces, stream, l, data, bytes, piece, skew, crcs, count);
}

cudaError_t launch_png_deflate(cudaStream_t stream, const Launch& l, int stage, std::uint32_t items,
                               const std::uint8_t* data, const std::uint32_t* plan,
                               std::uint32_t* work, std::uint16_t* syms, std::uint32_t* out) {
  switch (stage) {
#define HC_DFL_LAUNCH(S, name, kind) \
  case S:                            \
    return launch(png_deflate<S, k##kind>, stream, l, items, data, plan, work, syms, out);
    HC_DFL_STAGE_LIST(HC_DFL_LAUNCH)
#undef HC_DFL_LAUNCH
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace hetcodec::cuda
