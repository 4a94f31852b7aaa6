// PNG decode entry points: the bodies of core/portable/png_defilter.h and png_inflate.h on CUDA,
// each a block of its launch plan's lanes (backends/launch_plan.h).
#include "core/portable/png_defilter.h"
#include "core/portable/png_inflate.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

__global__ void png_clear(hc_u32* words, hc_u32 n) {
  hc_png_clear(words, n, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void png_defilter_rows(hc_u8* rows, hc_u64 offset, hc_u32 height, hc_u32 row_bytes,
                                  hc_u32 bpp) {
  hc_png_defilter_rows(rows, offset, height, row_bytes, bpp, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void __launch_bounds__(HC_WF_THREADS)
    png_defilter_tiles(hc_u8* rows, hc_u64 offset, hc_u32 height, hc_u32 row_bytes, hc_u32 bpp,
                       hc_u32 tiles_x, hc_u32 tiles_y, hc_i32 diagonal, hc_u32* scratch) {
  __shared__ hc_wf_tile_local loc;
  hc_png_defilter_tiles(rows, offset, height, row_bytes, bpp, tiles_x, tiles_y, diagonal, scratch,
                        blockIdx.x, threadIdx.x, HC_WF_THREADS, &loc);
}

__global__ void __launch_bounds__(HC_WF_ROWS)
    png_defilter_bands(hc_u8* rows, hc_u64 offset, hc_u32 height, hc_u32 row_bytes, hc_u32 bpp) {
  __shared__ hc_wf_band_local loc;
  hc_png_defilter_bands(rows, offset, height, row_bytes, bpp, blockIdx.x, threadIdx.x, HC_WF_ROWS,
                        &loc);
}

__global__ void png_unpack(const hc_u8* rows, const hc_png_job* job, hc_u8* out, hc_u32 width,
                           hc_u32 height, hc_u32 pixel_bytes) {
  hc_png_unpack_column(rows, job, out, width, height, pixel_bytes,
                       blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y, gridDim.y);
}

__global__ void png_inflate(const hc_u8* compressed, const hc_u32* segments, hc_u8* rows,
                            hc_u32* results, hc_u32 count) {
  hc_inflate_item(compressed, segments, rows, results, count,
                  blockIdx.x * blockDim.x + threadIdx.x);
}

}  // namespace

cudaError_t launch_png_defilter(cudaStream_t stream, const DefilterPass& p, std::uint8_t* rows,
                                const PngDefilterInfo& info, std::uint32_t* scratch) {
  const Launch& l = p.launch;
  switch (p.kernel) {
    case DefilterKernel::Clear:
      return launch(png_clear, stream, l, scratch, p.clear_words);
    case DefilterKernel::Rows:
      return launch(png_defilter_rows, stream, l, rows, info.offset, info.height, info.row_bytes,
                    info.bpp);
    case DefilterKernel::Bands:
      return launch(png_defilter_bands, stream, l, rows, info.offset, info.height, info.row_bytes,
                    info.bpp);
    case DefilterKernel::Tiles:
      return launch(png_defilter_tiles, stream, l, rows, info.offset, info.height, info.row_bytes,
                    info.bpp, p.tiles_x, p.tiles_y, p.diagonal, scratch);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_png_unpack(cudaStream_t stream, const Launch& l, const std::uint8_t* rows,
                              const std::uint32_t* job, std::uint8_t* out, std::uint32_t width,
                              std::uint32_t height, std::uint32_t pixel_bytes) {
  return launch(png_unpack, stream, l, rows, reinterpret_cast<const hc_png_job*>(job), out, width,
                height, pixel_bytes);
}

cudaError_t launch_png_inflate(cudaStream_t stream, const Launch& l, const std::uint8_t* compressed,
                               const std::uint32_t* segments, std::uint8_t* rows,
                               std::uint32_t* results, std::uint32_t count) {
  return launch(png_inflate, stream, l, compressed, segments, rows, results, count);
}

}  // namespace hetcodec::cuda
