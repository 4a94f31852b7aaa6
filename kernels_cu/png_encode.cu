// PNG encode stages (core/portable/png_filter.h). Twin of kernels_cl/png_encode.cl and
// backends/cpu/png_kernels.cpp. filter_rows: one block of 256 threads per row; each thread
// scores its bytes under the five filters, the block reduces the scores, picks libpng's filter
// and writes the filtered row. png_deflate<Stage>: one thread per item of a stage of the device
// deflate (core/portable/png_deflate.h), or a block per item for its work-group stages.
#include "core/portable/png_crc.h"
#include "core/portable/png_deflate.h"
#include "core/portable/png_filter.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {

constexpr unsigned kFilterThreads = 256;

__global__ void png_filter_rows(const std::uint8_t* rows, std::uint8_t* out,
                                std::uint32_t row_bytes, std::uint32_t bpp, std::uint32_t mask,
                                std::uint32_t band_rows) {
  __shared__ hc_u64 part[HC_PNG_FILTERS][kFilterThreads];
  __shared__ hc_i32 choice;
  const std::uint32_t y = blockIdx.x, tid = threadIdx.x;
  const std::uint8_t* row = rows + std::size_t(y) * row_bytes;
  const std::uint8_t* prev = y ? row - row_bytes : row;
  hc_u64 s[HC_PNG_FILTERS] = {0, 0, 0, 0, 0};
  for (std::uint32_t i = tid; i < row_bytes; i += kFilterThreads)
    for (int t = 0; t < HC_PNG_FILTERS; ++t)
      s[t] += hc_png_score(hc_png_filter_byte(t, row, prev, y > 0, i, bpp));
  for (int t = 0; t < HC_PNG_FILTERS; ++t) part[t][tid] = s[t];
  __syncthreads();
  for (unsigned step = kFilterThreads / 2; step > 0; step >>= 1) {
    if (tid < step)
      for (int t = 0; t < HC_PNG_FILTERS; ++t) part[t][tid] += part[t][tid + step];
    __syncthreads();
  }
  if (tid == 0)
    choice = hc_png_pick(part[0][0], part[1][0], part[2][0], part[3][0], part[4][0],
                         hc_png_row_mask(mask, band_rows, y));
  __syncthreads();
  const hc_i32 best = choice;
  std::uint8_t* o = out + std::size_t(y) * (std::size_t(row_bytes) + 1);
  if (tid == 0) o[0] = std::uint8_t(best);
  for (std::uint32_t i = tid; i < row_bytes; i += kFilterThreads)
    o[1 + i] = hc_png_filter_byte(best, row, prev, y > 0, i, bpp);
}

cudaError_t launch_png_filter_rows(cudaStream_t stream, const std::uint8_t* rows, std::uint8_t* out,
                                   std::uint32_t height, std::uint32_t row_bytes, std::uint32_t bpp,
                                   std::uint32_t mask, std::uint32_t band_rows) {
  if (height == 0 || row_bytes == 0) return cudaSuccess;
  png_filter_rows<<<height, kFilterThreads, 0, stream>>>(rows, out, row_bytes, bpp, mask,
                                                         band_rows);
  return cudaGetLastError();
}

__global__ void png_crc32_pieces(const std::uint8_t* data, std::uint32_t bytes, std::uint32_t piece,
                                 std::uint32_t skew, std::uint32_t* crcs, std::uint32_t count) {
  __shared__ hc_u32 table[HC_CRC_TABLE_WORDS];
  for (unsigned e = threadIdx.x; e < HC_CRC_TABLE_WORDS; e += blockDim.x)
    table[e] = hc_crc32_table_entry(e);
  __syncthreads();
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < count) crcs[j] = hc_crc32_piece(data, bytes, piece, skew, j, table);
}

cudaError_t launch_png_crc32_pieces(cudaStream_t stream, const std::uint8_t* data,
                                    std::uint32_t bytes, std::uint32_t piece, std::uint32_t skew,
                                    std::uint32_t* crcs, std::uint32_t count) {
  png_crc32_pieces<<<(count + 63) / 64, 64, 0, stream>>>(data, bytes, piece, skew, crcs, count);
  return cudaGetLastError();
}

template <int Stage>
__global__ void png_deflate(std::uint32_t items, const std::uint8_t* data, const std::uint32_t* plan,
                            std::uint32_t* work, std::uint16_t* syms, std::uint32_t* out) {
  if constexpr (Stage == HC_DFL_HIST || Stage == HC_DFL_BLOCK || Stage == HC_DFL_PLACE) {
    // An item to a block, its scratch (the histogram; zlib's trees; a scan) in shared memory.
    __shared__ hc_dfl_state z;
    if (blockIdx.x < items)
      hc_dfl_run(Stage, blockIdx.x, data, plan, work, syms, out, &z, threadIdx.x, blockDim.x);
  } else {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < items) hc_dfl_run(Stage, i, data, plan, work, syms, out, nullptr, 0, 1);
  }
}

template <int Stage>
cudaError_t launch_deflate_stage(cudaStream_t stream, std::uint32_t items, const std::uint8_t* data,
                                 const std::uint32_t* plan, std::uint32_t* work,
                                 std::uint16_t* syms, std::uint32_t* out) {
  if constexpr (Stage == HC_DFL_HIST || Stage == HC_DFL_BLOCK || Stage == HC_DFL_PLACE) {
    const unsigned lanes = Stage == HC_DFL_HIST    ? HC_DFL_HIST_LANES
                           : Stage == HC_DFL_BLOCK ? HC_DFL_BLOCK_LANES
                                                   : HC_DFL_PLACE_LANES;
    png_deflate<Stage><<<items, lanes, 0, stream>>>(items, data, plan, work, syms, out);
  } else {
    // A stored block's bytes follow its own data: one thread to a warp, so that no warp runs
    // 32 different paths one after the other.
    const unsigned threads = Stage == HC_DFL_PACK_BLOCKS ? 1 : 64;
    png_deflate<Stage><<<(items + threads - 1) / threads, threads, 0, stream>>>(items, data, plan,
                                                                                work, syms, out);
  }
  return cudaGetLastError();
}

cudaError_t launch_png_deflate(cudaStream_t stream, int stage, std::uint32_t items,
                               const std::uint8_t* data, const std::uint32_t* plan,
                               std::uint32_t* work, std::uint16_t* syms, std::uint32_t* out) {
#define HC_DFL_CASE(S) \
  case S:              \
    return launch_deflate_stage<S>(stream, items, data, plan, work, syms, out);
  switch (stage) {
    HC_DFL_CASE(HC_DFL_CLEAR)
    HC_DFL_CASE(HC_DFL_COUNT)
    HC_DFL_CASE(HC_DFL_SCAN_CHUNKS)
    HC_DFL_CASE(HC_DFL_SCAN)
    HC_DFL_CASE(HC_DFL_EMIT)
    HC_DFL_CASE(HC_DFL_HIST)
    HC_DFL_CASE(HC_DFL_BLOCK)
    HC_DFL_CASE(HC_DFL_LAYOUT)
    HC_DFL_CASE(HC_DFL_OFFSETS)
    HC_DFL_CASE(HC_DFL_BITS)
    HC_DFL_CASE(HC_DFL_PLACE)
    HC_DFL_CASE(HC_DFL_PACK_BLOCKS)
    HC_DFL_CASE(HC_DFL_PACK)
    default:
      return cudaErrorInvalidValue;
  }
#undef HC_DFL_CASE
}

}  // namespace hetcodec::cuda
