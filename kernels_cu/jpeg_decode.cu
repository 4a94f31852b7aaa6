// JPEG decode stages on CUDA: token decode + dequantise + IDCT (fused, and as two separate
// kernels) and upsampling + colour conversion, all on a job (core/portable/jpeg_job.h).
// Twin of kernels_cl/jpeg_decode.cl and backends/cpu/jpeg_kernels.cpp.
#include "core/portable/jpeg_decode.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

// Scatters group g's tokens into a tile of 64 blocks `stride` shorts apart, one token per
// thread at a time (see kernels_cl/jpeg_decode.cl).
__device__ __forceinline__ void scatter(const hc_u32* job, hc_u32 g, hc_u32 lid, hc_i16* tile,
                                        hc_u32 stride) {
  const hc_u32 dir = job[HC_JOB_W_DIRECTORY] + 2u * g;
  const hc_u32 off = job[dir], cnt = job[dir + 1u];
  const hc_u32* tok = job + job[HC_JOB_W_TOKENS] + 3u * off;
  for (hc_u32 t = lid; t < cnt; t += 64u) {
    const hc_u32 c01 = tok[3u * t], c23 = tok[3u * t + 1u], w = tok[3u * t + 2u];
    const hc_u32 b = ((w >> 24) & 63u) * stride;
    tile[b + (w & 63u)] = static_cast<hc_i16>(c01 & 0xFFFFu);
    tile[b + ((w >> 6) & 63u)] = static_cast<hc_i16>(c01 >> 16);
    tile[b + ((w >> 12) & 63u)] = static_cast<hc_i16>(c23 & 0xFFFFu);
    tile[b + ((w >> 18) & 63u)] = static_cast<hc_i16>(c23 >> 16);
  }
}

// The fused stage for group g of a job, by a block of 64 threads: zero the tile, scatter the
// tokens, then each thread dequantises and inverse-transforms one block into `planes`.
__device__ __forceinline__ void decode_idct_group(const hc_u32* job, hc_u32 g, hc_u8* planes) {
  __shared__ hc_i16 tile[64 * HC_TILE_STRIDE];
  const hc_u32 lid = threadIdx.x;
  for (hc_u32 i = lid; i < 64u * HC_TILE_STRIDE; i += 64u) tile[i] = 0;
  __syncthreads();
  scatter(job, g, lid, tile, HC_TILE_STRIDE);
  __syncthreads();
  const int c = hc_job_component_of_group(job, g);
  const hc_u32* rec = hc_job_component(job, c);
  const hc_u32 blk = (g - rec[HC_JOB_C_FIRST_GROUP]) * 64u + lid;
  if (blk >= rec[HC_JOB_C_GRID_W] * rec[HC_JOB_C_GRID_H]) return;
  const hc_i32* q = hc_job_quant(job, rec);
  hc_i32 in[64];
#pragma unroll
  for (int k = 0; k < 64; k++) in[k] = static_cast<hc_i32>(tile[lid * HC_TILE_STRIDE + k]) * q[k];
  hc_jpeg_idct_store(in, rec, blk, planes);
}

__global__ void __launch_bounds__(64) jpeg_decode_idct(const hc_u32* job, hc_u8* planes) {
  decode_idct_group(job, blockIdx.x, planes);
}

// The fused stage for the jobs of a chunk table (core/portable/jpeg_job.h) at `table_word` of
// `jobs`: block b decodes the group of the job whose groups include it.
__global__ void __launch_bounds__(64)
    jpeg_decode_idct_chunk(const hc_u32* jobs, hc_u32 table_word, hc_u8* planes) {
  const hc_u32* e = hc_chunk_entry(jobs + table_word, HC_CHUNK_E_FIRST_GROUP, blockIdx.x);
  decode_idct_group(jobs + e[HC_CHUNK_E_JOB], blockIdx.x - e[HC_CHUNK_E_FIRST_GROUP],
                    planes + hc_chunk_offset(e, HC_CHUNK_E_PLANES_LO));
}

__global__ void __launch_bounds__(64) jpeg_decode_tokens(const hc_u32* job, hc_i16* coefficients) {
  const hc_u32 g = blockIdx.x, lid = threadIdx.x;
  hc_i16* tile = coefficients + static_cast<size_t>(g) * 4096u;
  for (hc_u32 i = lid; i < 4096u; i += 64u) tile[i] = 0;
  __syncthreads();
  scatter(job, g, lid, tile, 64u);
}

__global__ void jpeg_idct(const hc_u32* job, const hc_i16* coefficients, hc_u8* planes,
                          hc_u32 total_blocks) {
  const hc_u32 gb = blockIdx.x * blockDim.x + threadIdx.x;
  if (gb >= total_blocks) return;
  const int c = hc_job_component_of_group(job, gb >> 6);
  const hc_u32* rec = hc_job_component(job, c);
  const hc_u32 blk = gb - rec[HC_JOB_C_FIRST_GROUP] * 64u;
  if (blk >= rec[HC_JOB_C_GRID_W] * rec[HC_JOB_C_GRID_H]) return;
  const hc_i32* q = hc_job_quant(job, rec);
  const hc_i16* src = coefficients + static_cast<size_t>(gb) * 64u;
  hc_i32 in[64];
#pragma unroll
  for (int k = 0; k < 64; k++) in[k] = static_cast<hc_i32>(src[k]) * q[k];
  hc_jpeg_idct_store(in, rec, blk, planes);
}

__global__ void jpeg_upsample_color(const hc_u32* job, const hc_u8* planes, hc_u8* out,
                                    hc_u32 pixels) {
  const hc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  hc_jpeg_pixel(job, planes, i, out);
}

// The colour stage for the jobs of a chunk table: block t colours HC_CHUNK_TILE pixels of the
// job whose tiles include it.
__global__ void jpeg_upsample_color_chunk(const hc_u32* jobs, hc_u32 table_word,
                                          const hc_u8* planes, hc_u8* out) {
  const hc_u32* e = hc_chunk_entry(jobs + table_word, HC_CHUNK_E_FIRST_TILE, blockIdx.x);
  const hc_u32* job = jobs + e[HC_CHUNK_E_JOB];
  const hc_u32 i = (blockIdx.x - e[HC_CHUNK_E_FIRST_TILE]) * HC_CHUNK_TILE + threadIdx.x;
  if (i >= job[HC_JOB_W_WIDTH] * job[HC_JOB_W_HEIGHT]) return;
  hc_jpeg_pixel(job, planes + hc_chunk_offset(e, HC_CHUNK_E_PLANES_LO), i,
                out + hc_chunk_offset(e, HC_CHUNK_E_OUT_LO));
}

}  // namespace

cudaError_t launch_jpeg_decode_idct_chunk(cudaStream_t stream, const std::uint8_t* jobs,
                                          std::size_t table_offset, std::uint8_t* planes,
                                          std::uint32_t groups) {
  jpeg_decode_idct_chunk<<<groups, 64, 0, stream>>>(reinterpret_cast<const hc_u32*>(jobs),
                                                    hc_u32(table_offset / 4), planes);
  return cudaGetLastError();
}

cudaError_t launch_jpeg_upsample_color_chunk(cudaStream_t stream, const std::uint8_t* jobs,
                                             std::size_t table_offset, const std::uint8_t* planes,
                                             std::uint8_t* out, std::uint32_t tiles) {
  jpeg_upsample_color_chunk<<<tiles, HC_CHUNK_TILE, 0, stream>>>(
      reinterpret_cast<const hc_u32*>(jobs), hc_u32(table_offset / 4), planes, out);
  return cudaGetLastError();
}

cudaError_t launch_jpeg_decode_idct(cudaStream_t stream, const std::uint8_t* job,
                                    std::uint8_t* planes, std::uint32_t groups) {
  jpeg_decode_idct<<<groups, 64, 0, stream>>>(reinterpret_cast<const hc_u32*>(job), planes);
  return cudaGetLastError();
}

cudaError_t launch_jpeg_decode_tokens(cudaStream_t stream, const std::uint8_t* job,
                                      std::uint8_t* coefficients, std::uint32_t groups) {
  jpeg_decode_tokens<<<groups, 64, 0, stream>>>(reinterpret_cast<const hc_u32*>(job),
                                                reinterpret_cast<hc_i16*>(coefficients));
  return cudaGetLastError();
}

cudaError_t launch_jpeg_idct(cudaStream_t stream, const std::uint8_t* job,
                             const std::uint8_t* coefficients, std::uint8_t* planes,
                             std::uint32_t groups) {
  const hc_u32 blocks = groups * 64u;
  jpeg_idct<<<(blocks + 127) / 128, 128, 0, stream>>>(reinterpret_cast<const hc_u32*>(job),
                                                      reinterpret_cast<const hc_i16*>(coefficients),
                                                      planes, blocks);
  return cudaGetLastError();
}

cudaError_t launch_jpeg_upsample_color(cudaStream_t stream, const std::uint8_t* job,
                                       const std::uint8_t* planes, std::uint8_t* out,
                                       std::uint32_t pixels) {
  jpeg_upsample_color<<<(pixels + 255) / 256, 256, 0, stream>>>(
      reinterpret_cast<const hc_u32*>(job), planes, out, pixels);
  return cudaGetLastError();
}

}  // namespace hetcodec::cuda
