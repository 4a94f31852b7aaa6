// JPEG decode entry points: the bodies of core/portable/jpeg_decode.h on CUDA, each a block of
// its launch plan's lanes (backends/launch_plan.h).
#include "core/portable/jpeg_decode.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

const hc_u32* words(const std::uint8_t* p) { return reinterpret_cast<const hc_u32*>(p); }

__global__ void __launch_bounds__(HC_JPEG_GROUP_LANES)
    jpeg_decode_idct(const hc_u32* job, hc_u8* planes) {
  __shared__ hc_jpeg_group_local loc;
  hc_jpeg_decode_idct(job, blockIdx.x, planes, threadIdx.x, HC_JPEG_GROUP_LANES, &loc);
}

__global__ void __launch_bounds__(HC_JPEG_GROUP_LANES)
    jpeg_decode_idct_chunk(const hc_u32* jobs, hc_u32 table_word, hc_u8* planes) {
  __shared__ hc_jpeg_group_local loc;
  hc_jpeg_decode_idct_chunk(jobs, table_word, blockIdx.x, planes, threadIdx.x, HC_JPEG_GROUP_LANES,
                            &loc);
}

__global__ void __launch_bounds__(HC_JPEG_GROUP_LANES)
    jpeg_decode_tokens(const hc_u32* job, hc_u32 first_group, hc_i16* coefficients) {
  hc_jpeg_decode_tokens(job, first_group + blockIdx.x, coefficients, threadIdx.x,
                        HC_JPEG_GROUP_LANES);
}

__global__ void jpeg_idct(const hc_u32* job, const hc_i16* coefficients, hc_u8* planes,
                          hc_u32 end_block, hc_u32 first_block) {
  hc_jpeg_idct(job, coefficients, planes, end_block,
               first_block + blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void jpeg_upsample_color(const hc_u32* job, const hc_u8* planes, hc_u8* out,
                                    hc_u32 end_pixel, hc_u32 first_pixel) {
  hc_jpeg_upsample_color(job, planes, out, end_pixel,
                         first_pixel + blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void __launch_bounds__(HC_CHUNK_TILE)
    jpeg_upsample_color_chunk(const hc_u32* jobs, hc_u32 table_word, const hc_u8* planes,
                              hc_u8* out) {
  hc_jpeg_upsample_color_chunk(jobs, table_word, blockIdx.x, planes, out, threadIdx.x);
}

}  // namespace

cudaError_t launch_jpeg_decode_idct(cudaStream_t stream, const Launch& l, const std::uint8_t* job,
                                    std::uint8_t* planes) {
  return launch(jpeg_decode_idct, stream, l, words(job), planes);
}

cudaError_t launch_jpeg_decode_idct_chunk(cudaStream_t stream, const Launch& l,
                                          const std::uint8_t* jobs, std::uint32_t table_word,
                                          std::uint8_t* planes) {
  return launch(jpeg_decode_idct_chunk, stream, l, words(jobs), table_word, planes);
}

cudaError_t launch_jpeg_decode_tokens(cudaStream_t stream, const Launch& l, const std::uint8_t* job,
                                      std::uint32_t first_group, std::uint8_t* coefficients) {
  return launch(jpeg_decode_tokens, stream, l, words(job), first_group,
                reinterpret_cast<hc_i16*>(coefficients));
}

cudaError_t launch_jpeg_idct(cudaStream_t stream, const Launch& l, const std::uint8_t* job,
                             const std::uint8_t* coefficients, std::uint8_t* planes,
                             std::uint32_t end_block, std::uint32_t first_block) {
  return launch(jpeg_idct, stream, l, words(job), reinterpret_cast<const hc_i16*>(coefficients),
                planes, end_block, first_block);
}

cudaError_t launch_jpeg_upsample_color(cudaStream_t stream, const Launch& l,
                                       const std::uint8_t* job, const std::uint8_t* planes,
                                       std::uint8_t* out, std::uint32_t end_pixel,
                                       std::uint32_t first_pixel) {
  return launch(jpeg_upsample_color, stream, l, words(job), planes, out, end_pixel, first_pixel);
}

cudaError_t launch_jpeg_upsample_color_chunk(cudaStream_t stream, const Launch& l,
                                             const std::uint8_t* jobs, std::uint32_t table_word,
                                             const std::uint8_t* planes, std::uint8_t* out) {
  return launch(jpeg_upsample_color_chunk, stream, l, words(jobs), table_word, planes, out);
}

}  // namespace hetcodec::cuda
