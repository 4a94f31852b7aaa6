// Launchers of the CUDA kernels in kernels_cu/, called by backends/cuda. Each enqueues its
// kernel on `stream` and returns the launch status; the caller checks it where it is made.
#ifndef HETCODEC_KERNELS_CU_LAUNCH_H
#define HETCODEC_KERNELS_CU_LAUNCH_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hetcodec::cuda {

cudaError_t launch_jpeg_ycc_to_rgb(cudaStream_t stream, const std::uint8_t* d_ycc,
                                   std::uint8_t* d_rgb, std::uint32_t pixels);
// The JPEG decode stages of kernels_cu/jpeg_decode.cu; `groups` > 0, `pixels` > 0.
cudaError_t launch_jpeg_decode_idct(cudaStream_t stream, const std::uint8_t* job,
                                    std::uint8_t* planes, std::uint32_t groups);
cudaError_t launch_jpeg_decode_tokens(cudaStream_t stream, const std::uint8_t* job,
                                      std::uint8_t* coefficients, std::uint32_t groups);
cudaError_t launch_jpeg_idct(cudaStream_t stream, const std::uint8_t* job,
                             const std::uint8_t* coefficients, std::uint8_t* planes,
                             std::uint32_t groups);
cudaError_t launch_jpeg_upsample_color(cudaStream_t stream, const std::uint8_t* job,
                                       const std::uint8_t* planes, std::uint8_t* out,
                                       std::uint32_t pixels);
// The fused and colour stages over the jobs of a chunk table at byte `table_offset` of `jobs`;
// `groups` and `tiles` (the launches' blocks) > 0.
cudaError_t launch_jpeg_decode_idct_chunk(cudaStream_t stream, const std::uint8_t* jobs,
                                          std::size_t table_offset, std::uint8_t* planes,
                                          std::uint32_t groups);
cudaError_t launch_jpeg_upsample_color_chunk(cudaStream_t stream, const std::uint8_t* jobs,
                                             std::size_t table_offset, const std::uint8_t* planes,
                                             std::uint8_t* out, std::uint32_t tiles);
// The PNG encode stages of kernels_cu/png_encode.cu.
cudaError_t launch_png_filter_rows(cudaStream_t stream, const std::uint8_t* rows, std::uint8_t* out,
                                   std::uint32_t height, std::uint32_t row_bytes, std::uint32_t bpp,
                                   std::uint32_t mask, std::uint32_t band_rows);
// CRC-32 of `count` pieces (core/portable/png_crc.h), one thread each.
cudaError_t launch_png_crc32_pieces(cudaStream_t stream, const std::uint8_t* data,
                                    std::uint32_t bytes, std::uint32_t piece, std::uint32_t skew,
                                    std::uint32_t* crcs, std::uint32_t count);
// One stage of the device deflate of core/portable/png_deflate.h over `items` > 0 items.
cudaError_t launch_png_deflate(cudaStream_t stream, int stage, std::uint32_t items,
                               const std::uint8_t* data, const std::uint32_t* plan,
                               std::uint32_t* work, std::uint16_t* syms, std::uint32_t* out);
// The PNG decode stages of kernels_cu/png_decode.cu. `scratch` holds 1 + tiles words (ticket
// mode only); without tickets the wavefront runs one launch per tile diagonal. With `bands`
// (PngDefilterInfo::bands) one work-group per band, and neither scratch nor tickets.
cudaError_t launch_png_defilter(cudaStream_t stream, std::uint8_t* rows, std::uint64_t offset,
                                std::uint32_t height, std::uint32_t row_bytes, std::uint32_t bpp,
                                bool rows_independent, bool bands, bool tickets,
                                std::uint32_t* scratch);
// One thread per segment of core/portable/png_inflate.h; `count` > 0.
cudaError_t launch_png_inflate(cudaStream_t stream, const std::uint8_t* compressed,
                               const std::uint32_t* segments, std::uint8_t* rows,
                               std::uint32_t* results, std::uint32_t count);
cudaError_t launch_png_unpack(cudaStream_t stream, const std::uint8_t* rows,
                              const std::uint32_t* job, std::uint8_t* out, std::uint32_t width,
                              std::uint32_t height, std::uint32_t pixel_bytes);

}  // namespace hetcodec::cuda

#endif  // HETCODEC_KERNELS_CU_LAUNCH_H
