// PNG decode stages (core/portable/png_decode.h). Twin of kernels_cl/png_decode.cl, which
// describes the wavefront engine; the CPU reference is backends/cpu/png_kernels.cpp.
#include "core/portable/png_decode.h"
#include "core/portable/png_inflate.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

__global__ void png_clear(std::uint32_t* words, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) words[i] = 0;
}

__global__ void png_defilter_rows(std::uint8_t* rows, std::uint64_t offset, std::uint32_t height,
                                  std::uint32_t row_bytes, std::uint32_t bpp) {
  const std::uint32_t y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= height) return;
  std::uint8_t* r = rows + offset + std::uint64_t(y) * (std::uint64_t(row_bytes) + 1u);
  if (r[0] != 1u) return;  // None
  for (std::uint32_t i = bpp; i < row_bytes; ++i) r[1u + i] = std::uint8_t(r[1u + i] + r[1u + i - bpp]);
}

__global__ void __launch_bounds__(HC_WF_THREADS)
png_defilter_tiles(std::uint8_t* rows, std::uint64_t offset, std::uint32_t height,
                   std::uint32_t row_bytes, std::uint32_t bpp, std::uint32_t tiles_x,
                   std::uint32_t tiles_y, int diagonal, std::uint32_t* scratch) {
  __shared__ std::uint8_t tile[HC_WF_LOCAL];
  __shared__ std::uint32_t shared_ticket;
  const std::uint32_t r = threadIdx.x;
  const std::uint64_t stride = std::uint64_t(row_bytes) + 1u;
  std::uint8_t* base = rows + offset;
  const volatile std::uint8_t* vbase = base;
  std::uint32_t tx, ty;
  if (diagonal >= 0) {
    hc_wf_tile_on_diagonal(std::uint32_t(diagonal), blockIdx.x, tiles_x, &tx, &ty);
  } else {
    if (r == 0) shared_ticket = atomicAdd(&scratch[0], 1u);
    __syncthreads();
    hc_wf_tile_of(shared_ticket, tiles_x, tiles_y, &tx, &ty);
  }
  const std::uint32_t y0 = ty * HC_WF_ROWS, x0 = tx * HC_WF_BYTES;
  // A tile whose first row is None or Sub does not need the row above: it starts a band and
  // does not wait on the tile above (the parallel mode's files have one every 32 rows).
  const bool band_start = y0 > 0 && base[std::uint64_t(y0) * stride] <= 1u;
  // The tile's own filtered bytes first: nothing else writes them, so they load while the
  // tiles above and to the left may still be working.
  #pragma unroll 8
  for (std::uint32_t k = r; k < HC_WF_ROWS * HC_WF_BYTES; k += HC_WF_THREADS) {
    const std::uint32_t row = k / HC_WF_BYTES, i = k % HC_WF_BYTES;
    const std::uint32_t y = y0 + row, x = x0 + i;
    tile[(row + 1u) * HC_WF_STRIDE + 8u + i] =
        (y < height && x < row_bytes) ? base[std::uint64_t(y) * stride + 1u + x] : std::uint8_t(0);
  }
  if (diagonal < 0) {
    if (r == 0) {
      if (ty > 0 && !band_start)
        while (atomicOr(&scratch[1u + (ty - 1u) * tiles_x + tx], 0u) == 0u) {}
      if (tx > 0)
        while (atomicOr(&scratch[1u + ty * tiles_x + tx - 1u], 0u) == 0u) {}
      __threadfence();  // acquire: the awaited tiles' bytes are read after their flags
    }
    __syncthreads();
  }
  for (std::uint32_t i = r; i < HC_WF_BYTES + 8u; i += HC_WF_THREADS) {
    const int x = int(x0) + int(i) - 8;
    std::uint8_t v = 0;
    if (y0 > 0 && !band_start && x >= 0 && std::uint32_t(x) < row_bytes)
      v = vbase[std::uint64_t(y0 - 1u) * stride + 1u + std::uint32_t(x)];
    tile[i] = v;
  }
  for (std::uint32_t k = r; k < HC_WF_ROWS * 8u; k += HC_WF_THREADS) {
    const std::uint32_t row = k >> 3, i = k & 7u;
    const std::uint32_t y = y0 + row;
    const int x = int(x0) + int(i) - 8;
    std::uint8_t v = 0;
    if (y < height && x >= 0) v = vbase[std::uint64_t(y) * stride + 1u + std::uint32_t(x)];
    tile[(row + 1u) * HC_WF_STRIDE + i] = v;
  }
  const std::uint32_t y = y0 + r;
  const int type = (r < HC_WF_ROWS && y < height) ? base[std::uint64_t(y) * stride] : 0;
  __syncthreads();
  // Thread r solves row r: its left and upper-left bytes live in two 8-byte register windows.
  const std::uint32_t rr = r < HC_WF_ROWS ? r : 0u;
  std::uint8_t* cur = tile + (rr + 1u) * HC_WF_STRIDE + 8u;
  const std::uint8_t* up = cur - HC_WF_STRIDE;
  hc_u32 left[8], upl[8];
  hc_png_window(cur - 8, left);
  hc_png_window(up - 8, upl);
  for (std::uint32_t s = 0; s < HC_WF_STEPS; ++s) {
    const int c = int(s) - int(r);
    if (r < HC_WF_ROWS && c >= 0 && c < HC_WF_BYTES / HC_WF_CHUNK && y < height) {
      const std::uint32_t i = std::uint32_t(c) * HC_WF_CHUNK;
      if (x0 + i < row_bytes) {
        const std::uint32_t n = min(std::uint32_t(HC_WF_CHUNK), row_bytes - x0 - i);
        hc_png_unfilter_chunk_any(type, bpp, cur + i, up + i, n, left, upl);
      }
    }
    __syncthreads();
  }
  const std::uint32_t last_row = min(y0 + HC_WF_ROWS, height) - 1u;
  const std::uint32_t end = min(x0 + HC_WF_BYTES, row_bytes);
  if (diagonal < 0) {
    // What the tiles below and to the right read goes out first, then the flag, then the rest:
    // the waiting tiles see the flag after a short fence rather than after the whole tile.
    for (std::uint32_t i = r; i < HC_WF_BYTES; i += HC_WF_THREADS)
      if (x0 + i < row_bytes)
        base[std::uint64_t(last_row) * stride + 1u + x0 + i] =
            tile[(last_row - y0 + 1u) * HC_WF_STRIDE + 8u + i];
    for (std::uint32_t k = r; k < HC_WF_ROWS * 8u; k += HC_WF_THREADS) {
      const std::uint32_t row = k >> 3, yy = y0 + row;
      const int x = int(end) - 8 + int(k & 7u);
      if (yy < height && x >= int(x0))
        base[std::uint64_t(yy) * stride + 1u + std::uint32_t(x)] =
            tile[(row + 1u) * HC_WF_STRIDE + 8u + (std::uint32_t(x) - x0)];
    }
    __threadfence();  // release: those bytes are visible before the flag
    __syncthreads();
    if (r == 0) atomicExch(&scratch[1u + ty * tiles_x + tx], 1u);
  }
#pragma unroll 8
  for (std::uint32_t k = r; k < HC_WF_ROWS * HC_WF_BYTES; k += HC_WF_THREADS) {
    const std::uint32_t row = k / HC_WF_BYTES, i = k % HC_WF_BYTES;
    const std::uint32_t yy = y0 + row, x = x0 + i;
    // (the bytes already written above are left alone: a waiting tile may be reading them)
    if (yy < height && x < row_bytes && (diagonal >= 0 || (yy != last_row && x + 8u < end)))
      base[std::uint64_t(yy) * stride + 1u + x] = tile[(row + 1u) * HC_WF_STRIDE + 8u + i];
  }
}

__global__ void png_unpack(const std::uint8_t* rows, const std::uint32_t* job, std::uint8_t* out,
                           std::uint32_t width, std::uint32_t height, std::uint32_t pixel_bytes) {
  const std::uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (std::uint32_t y = blockIdx.y; y < height; y += gridDim.y)
    hc_png_unpack_pixel(rows, job, x, y, out + (std::uint64_t(y) * width + x) * pixel_bytes);
}

__global__ void png_inflate(const std::uint8_t* compressed, const std::uint32_t* segments,
                            std::uint8_t* rows, std::uint32_t* results, std::uint32_t count) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count)
    hc_inflate_segment(segments + std::size_t(k) * HC_INF_WORDS, compressed, rows,
                       results + std::size_t(k) * HC_INF_RESULT_WORDS);
}

}  // namespace

cudaError_t launch_png_inflate(cudaStream_t stream, const std::uint8_t* compressed,
                               const std::uint32_t* segments, std::uint8_t* rows,
                               std::uint32_t* results, std::uint32_t count) {
  png_inflate<<<(count + 31) / 32, 32, 0, stream>>>(compressed, segments, rows, results, count);
  return cudaGetLastError();
}

// Window k of the band's rows (HC_WF_BYTES bytes from byte k * HC_WF_BYTES of each) from
// global memory into its ring slot: lane l takes bytes 8l..8l+7 of every row, so that a row's
// window is one contiguous access of the work-group; rows four at a time, so that their loads
// are in flight together. Zeros past the row's end.
__device__ __forceinline__ void band_load(const std::uint8_t* base, std::uint64_t stride,
                                          std::uint32_t y0, std::uint32_t rows,
                                          std::uint32_t row_bytes, std::uint32_t k,
                                          std::uint8_t* slot) {
  const std::uint32_t l = threadIdx.x, x = k * HC_WF_BYTES + l * HC_WF_CHUNK;
#pragma unroll 8
  for (std::uint32_t rr = 0; rr < rows; ++rr) {
    const std::uint8_t* __restrict__ g = base + std::uint64_t(y0 + rr) * stride + 1u + x;
    std::uint8_t* __restrict__ t = slot + (rr + 1u) * HC_WF_STRIDE + 8u + l * HC_WF_CHUNK;
#pragma unroll
    for (std::uint32_t j = 0; j < HC_WF_CHUNK; ++j) t[j] = x + j < row_bytes ? g[j] : std::uint8_t(0);
  }
}

// Window k of the band's rows from its ring slot back to global memory (nothing past the
// row's end).
__device__ __forceinline__ void band_store(std::uint8_t* base, std::uint64_t stride, std::uint32_t y0,
                                           std::uint32_t rows, std::uint32_t row_bytes,
                                           std::uint32_t k, const std::uint8_t* slot) {
  const std::uint32_t l = threadIdx.x, x = k * HC_WF_BYTES + l * HC_WF_CHUNK;
  for (std::uint32_t rr = 0; rr < rows; ++rr) {
    std::uint8_t* g = base + std::uint64_t(y0 + rr) * stride + 1u + x;
    const std::uint8_t* t = slot + (rr + 1u) * HC_WF_STRIDE + 8u + l * HC_WF_CHUNK;
#pragma unroll
    for (std::uint32_t j = 0; j < HC_WF_CHUNK; ++j)
      if (x + j < row_bytes) g[j] = t[j];
  }
}

__global__ void __launch_bounds__(HC_WF_ROWS)
png_defilter_bands(std::uint8_t* rows, std::uint64_t offset, std::uint32_t height,
                   std::uint32_t row_bytes, std::uint32_t bpp) {
  __shared__ std::uint8_t ring[HC_BAND_LOCAL];
  const std::uint32_t r = threadIdx.x;
  const std::uint64_t stride = std::uint64_t(row_bytes) + 1u;
  std::uint8_t* base = rows + offset;
  const std::uint32_t y0 = blockIdx.x * HC_WF_ROWS, y = y0 + r;
  const std::uint32_t band = min(std::uint32_t(HC_WF_ROWS), height - y0);
  const std::uint32_t chunks = (row_bytes + HC_WF_CHUNK - 1) / HC_WF_CHUNK;
  const std::uint32_t windows = (row_bytes + HC_WF_BYTES - 1) / HC_WF_BYTES;
  const std::uint32_t per_window = HC_WF_BYTES / HC_WF_CHUNK;
  // The zero row above each slot's first row, and the first window.
  for (std::uint32_t k = 0; k < HC_BAND_SLOTS; ++k)
    for (std::uint32_t i = r; i < HC_WF_STRIDE; i += HC_WF_ROWS) ring[k * HC_BAND_SLOT + i] = 0;
  band_load(base, stride, y0, band, row_bytes, 0, ring);
  const int type = y < height ? base[std::uint64_t(y) * stride] : 0;
  hc_u32 left[8], upl[8];
  for (int k = 0; k < 8; ++k) left[k] = upl[k] = 0;
  std::uint32_t stored = 0;
  __syncthreads();
  for (std::uint32_t s = 0; s < chunks + band - 1u; ++s) {
    if (s % per_window == 0) {
      // The window the last row finished two windows' steps ago goes out, and the window after
      // the first row's comes into its slot.
      const std::uint32_t k = s / per_window;
      std::uint8_t* slot = ring + ((k + 1) % HC_BAND_SLOTS) * HC_BAND_SLOT;
      if (k >= 2) {
        band_store(base, stride, y0, band, row_bytes, k - 2, slot);
        stored = k - 1;
      }
      __syncthreads();
      if (k + 1 < windows) band_load(base, stride, y0, band, row_bytes, k + 1, slot);
      __syncthreads();
    }
    const int c = int(s) - int(r);
    if (r < band && c >= 0 && std::uint32_t(c) < chunks) {
      const std::uint32_t w = std::uint32_t(c) / per_window, i = (std::uint32_t(c) % per_window) * HC_WF_CHUNK;
      std::uint8_t* cur = ring + (w % HC_BAND_SLOTS) * HC_BAND_SLOT + (r + 1u) * HC_WF_STRIDE + 8u + i;
      const std::uint32_t n = min(std::uint32_t(HC_WF_CHUNK), row_bytes - std::uint32_t(c) * HC_WF_CHUNK);
      hc_png_unfilter_chunk_any(type, bpp, cur, cur - HC_WF_STRIDE, n, left, upl);
    }
    __syncthreads();
  }
  for (std::uint32_t k = stored; k < windows; ++k)
    band_store(base, stride, y0, band, row_bytes, k, ring + (k % HC_BAND_SLOTS) * HC_BAND_SLOT);
}

cudaError_t launch_png_defilter(cudaStream_t stream, std::uint8_t* rows, std::uint64_t offset,
                                std::uint32_t height, std::uint32_t row_bytes, std::uint32_t bpp,
                                bool rows_independent, bool bands, bool tickets,
                                std::uint32_t* scratch) {
  if (height == 0 || row_bytes == 0) return cudaSuccess;
  if (rows_independent) {
    png_defilter_rows<<<(height + 127) / 128, 128, 0, stream>>>(rows, offset, height, row_bytes, bpp);
    return cudaGetLastError();
  }
  if (bands) {
    png_defilter_bands<<<(height + HC_WF_ROWS - 1) / HC_WF_ROWS, HC_WF_ROWS, 0, stream>>>(
        rows, offset, height, row_bytes, bpp);
    return cudaGetLastError();
  }
  const std::uint32_t tiles_x = (row_bytes + HC_WF_BYTES - 1) / HC_WF_BYTES;
  const std::uint32_t tiles_y = (height + HC_WF_ROWS - 1) / HC_WF_ROWS;
  if (tickets) {
    const std::uint32_t words = 1u + tiles_x * tiles_y;
    png_clear<<<(words + 255) / 256, 256, 0, stream>>>(scratch, words);
    png_defilter_tiles<<<tiles_x * tiles_y, HC_WF_THREADS, 0, stream>>>(
        rows, offset, height, row_bytes, bpp, tiles_x, tiles_y, -1, scratch);
    return cudaGetLastError();
  }
  for (std::uint32_t d = 0; d + 1 < tiles_x + tiles_y; ++d) {
    const std::uint32_t lo = d >= tiles_x ? d - (tiles_x - 1) : 0;
    const std::uint32_t hi = d < tiles_y ? d : tiles_y - 1;
    png_defilter_tiles<<<hi - lo + 1, HC_WF_THREADS, 0, stream>>>(rows, offset, height, row_bytes, bpp,
                                                              tiles_x, tiles_y, int(d), scratch);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t launch_png_unpack(cudaStream_t stream, const std::uint8_t* rows,
                              const std::uint32_t* job, std::uint8_t* out, std::uint32_t width,
                              std::uint32_t height, std::uint32_t pixel_bytes) {
  if (width == 0 || height == 0) return cudaSuccess;
  png_unpack<<<dim3((width + 255) / 256, height < 65535u ? height : 65535u), 256, 0, stream>>>(rows, job, out, width, height,
                                                                    pixel_bytes);
  return cudaGetLastError();
}

}  // namespace hetcodec::cuda
