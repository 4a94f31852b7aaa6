// Lossless JPEG decode entry points: the bodies of core/portable/ljpeg.h on CUDA, each a block of
// its launch plan's lanes (backends/launch_plan.h).
#include "core/portable/ljpeg.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

__global__ void ljpeg_residuals(const hc_u32* job, const hc_u8* file, hc_u32 scan, hc_u8* plane,
                                hc_u32* status) {
  hc_lj_residual_row(job, file, scan, plane, status, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void __launch_bounds__(HC_LJ_COLUMN_LANES)
    ljpeg_first_column(hc_u8* plane, hc_u32 height, hc_u32 width, hc_u32 comps) {
  __shared__ hc_lj_column_local loc;
  hc_lj_first_column(plane, height, width, comps, threadIdx.x, HC_LJ_COLUMN_LANES, &loc);
}

__global__ void ljpeg_row_sums(hc_u8* plane, hc_u32 height, hc_u32 width, hc_u32 comps,
                               int first_only) {
  hc_lj_row_sums(plane, height, width, comps, first_only, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void ljpeg_column_sums(hc_u8* plane, hc_u32 height, hc_u32 width, hc_u32 comps) {
  hc_lj_column_sums(plane, height, width, comps, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void ljpeg_clear(hc_u32* words, hc_u32 n) {
  const hc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) words[i] = 0u;
}

__global__ void __launch_bounds__(HC_WF_ROWS)
    ljpeg_bands(hc_u8* rows, hc_u64 offset, hc_u32 height, hc_u32 row_bytes, hc_u32 bpp) {
  __shared__ hc_wf_band_local loc;
  hc_lj_defilter_bands(rows, offset, height, row_bytes, bpp, blockIdx.x, threadIdx.x, HC_WF_ROWS,
                       &loc);
}

__global__ void __launch_bounds__(HC_WF_THREADS)
    ljpeg_tiles(hc_u8* rows, hc_u64 offset, hc_u32 height, hc_u32 row_bytes, hc_u32 bpp,
                hc_u32 tiles_x, hc_u32 tiles_y, hc_i32 diagonal, hc_u32* scratch) {
  __shared__ hc_wf_tile_local loc;
  hc_lj_defilter_tiles(rows, offset, height, row_bytes, bpp, tiles_x, tiles_y, diagonal, scratch,
                       blockIdx.x, threadIdx.x, HC_WF_THREADS, &loc);
}

__global__ void ljpeg_unpack(const hc_u32* job, const hc_u8* planes, hc_u8* out) {
  hc_lj_unpack_column(job, planes, out, blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y,
                      gridDim.y);
}

}  // namespace

cudaError_t launch_ljpeg_residuals(cudaStream_t stream, const LjpegScanInfo& info,
                                   const std::uint32_t* job, const std::uint8_t* file,
                                   std::uint8_t* planes, std::uint32_t* status) {
  return launch(ljpeg_residuals, stream, plan_ljpeg_residuals(info.coded_rows()), job, file,
                info.scan, planes + info.plane_offset,
                status + info.status_offset / sizeof(std::uint32_t));
}

cudaError_t launch_ljpeg_reconstruct(cudaStream_t stream, const LjpegPass& pass,
                                     const LjpegScanInfo& info, std::uint8_t* planes,
                                     std::uint32_t* scratch) {
  std::uint8_t* p = planes + info.plane_offset;
  const Launch& l = pass.launch;
  switch (pass.kind) {
    case LjpegPassKind::FirstColumn:
      return launch(ljpeg_first_column, stream, l, p, info.height, info.width, info.comps);
    case LjpegPassKind::FirstRowSums:
      return launch(ljpeg_row_sums, stream, l, p, info.height, info.width, info.comps,
                    int(pass.kind == LjpegPassKind::FirstRowSums));
    case LjpegPassKind::ColumnSums:
      return launch(ljpeg_column_sums, stream, l, p, info.height, info.width, info.comps);
    case LjpegPassKind::Wavefront:
      break;
  }
  const DefilterPass& w = pass.wavefront;
  const PngDefilterInfo e = ljpeg_wavefront_info(info);
  switch (w.kernel) {
    case DefilterKernel::Clear:
      return launch(ljpeg_clear, stream, w.launch, scratch, w.clear_words);
    case DefilterKernel::Bands:
      return launch(ljpeg_bands, stream, w.launch, planes, e.offset, e.height, e.row_bytes, e.bpp);
    case DefilterKernel::Tiles:
      return launch(ljpeg_tiles, stream, w.launch, planes, e.offset, e.height, e.row_bytes, e.bpp,
                    w.tiles_x, w.tiles_y, w.diagonal, scratch);
    case DefilterKernel::Rows:
      break;
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_ljpeg_unpack(cudaStream_t stream, const std::uint32_t* job,
                                const std::uint8_t* planes, std::uint8_t* out, std::uint32_t width,
                                std::uint32_t height) {
  return launch(ljpeg_unpack, stream, plan_ljpeg_unpack(width, height), job, planes, out);
}

}  // namespace hetcodec::cuda
