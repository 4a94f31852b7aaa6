// Launchers of the CUDA entry points in kernels_cu/, called by backends/cuda with the geometry
// of backends/launch_plan.h. Each enqueues its kernel on `stream` and returns the launch status;
// the caller checks it where it is made.
#ifndef HETCODEC_KERNELS_CU_LAUNCH_H
#define HETCODEC_KERNELS_CU_LAUNCH_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/backend.h"
#include "backends/backend_util.h"
#include "backends/launch_plan.h"

namespace hetcodec::cuda {

inline dim3 grid_of(const Launch& l) { return dim3(l.groups_x, l.groups_y); }

#if defined(__CUDACC__)
// Enqueues `kernel` with a launch plan's geometry on `stream` and returns the launch status (the
// entry points' launchers in kernels_cu/*.cu; g++ compiles this header too, without it).
template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), cudaStream_t stream, const Launch& l, Args... args) {
  if (kernel_log_enabled()) {
    const char* name = nullptr;
    if (cudaFuncGetName(&name, reinterpret_cast<const void*>(kernel)) == cudaSuccess && name)
      log_kernel(name);
  }
  kernel<<<grid_of(l), l.lanes, 0, stream>>>(args...);
  return cudaGetLastError();
}
#endif

// JPEG (kernels_cu/jpeg_decode.cu, jpeg_color.cu): `job` is the job itself, `jobs` a job buffer
// holding a chunk table at word `table_word`.
cudaError_t launch_jpeg_ycc_to_rgb(cudaStream_t stream, const Launch& l, const std::uint8_t* d_ycc,
                                   std::uint8_t* d_rgb, std::uint32_t pixels);
cudaError_t launch_jpeg_decode_idct(cudaStream_t stream, const Launch& l, const std::uint8_t* job,
                                    std::uint8_t* planes);
// The two-stage path's kernels run the items [first, end) of their launch plan's range.
cudaError_t launch_jpeg_decode_tokens(cudaStream_t stream, const Launch& l, const std::uint8_t* job,
                                      std::uint32_t first_group, std::uint8_t* coefficients);
cudaError_t launch_jpeg_idct(cudaStream_t stream, const Launch& l, const std::uint8_t* job,
                             const std::uint8_t* coefficients, std::uint8_t* planes,
                             std::uint32_t end_block, std::uint32_t first_block);
cudaError_t launch_jpeg_upsample_color(cudaStream_t stream, const Launch& l,
                                       const std::uint8_t* job, const std::uint8_t* planes,
                                       std::uint8_t* out, std::uint32_t end_pixel,
                                       std::uint32_t first_pixel);
cudaError_t launch_jpeg_decode_idct_chunk(cudaStream_t stream, const Launch& l,
                                          const std::uint8_t* jobs, std::uint32_t table_word,
                                          std::uint8_t* planes);
cudaError_t launch_jpeg_upsample_color_chunk(cudaStream_t stream, const Launch& l,
                                             const std::uint8_t* jobs, std::uint32_t table_word,
                                             const std::uint8_t* planes, std::uint8_t* out);
// PNG encode (kernels_cu/png_encode.cu).
cudaError_t launch_png_filter_rows(cudaStream_t stream, const Launch& l, const std::uint8_t* rows,
                                   std::uint8_t* out, const PngFilterInfo& info);
cudaError_t launch_png_crc32_pieces(cudaStream_t stream, const Launch& l, const std::uint8_t* data,
                                    std::uint32_t bytes, std::uint32_t piece, std::uint32_t skew,
                                    std::uint32_t* crcs, std::uint32_t count);
cudaError_t launch_png_deflate(cudaStream_t stream, const Launch& l, int stage, std::uint32_t items,
                               const std::uint8_t* data, const std::uint32_t* plan,
                               std::uint32_t* work, std::uint16_t* syms, std::uint32_t* out);
// PNG decode (kernels_cu/png_decode.cu): one pass of plan_png_defilter.
cudaError_t launch_png_defilter(cudaStream_t stream, const DefilterPass& pass, std::uint8_t* rows,
                                const PngDefilterInfo& info, std::uint32_t* scratch);
cudaError_t launch_png_inflate(cudaStream_t stream, const Launch& l, const std::uint8_t* compressed,
                               const std::uint32_t* segments, std::uint8_t* rows,
                               std::uint32_t* results, std::uint32_t count);
cudaError_t launch_png_unpack(cudaStream_t stream, const Launch& l, const std::uint8_t* rows,
                              const std::uint32_t* job, std::uint8_t* out, std::uint32_t width,
                              std::uint32_t height, std::uint32_t pixel_bytes);

// Lossless JPEG (kernels_cu/ljpeg.cu): the residual stage of a scan, one pass of its
// reconstruction, and the unpacking of the output pixels.
cudaError_t launch_ljpeg_residuals(cudaStream_t stream, const LjpegScanInfo& info,
                                   const std::uint32_t* job, const std::uint8_t* file,
                                   std::uint8_t* planes, std::uint32_t* status);
cudaError_t launch_ljpeg_reconstruct(cudaStream_t stream, const LjpegPass& pass,
                                     const LjpegScanInfo& info, std::uint8_t* planes,
                                     std::uint32_t* scratch);
cudaError_t launch_ljpeg_unpack(cudaStream_t stream, const std::uint32_t* job,
                                const std::uint8_t* planes, std::uint8_t* out, std::uint32_t width,
                                std::uint32_t height);

// JPEG encode (kernels_cu/jpeg_encode.cu): one stage of core/portable/jpeg_encode.h.
cudaError_t launch_jpeg_encode(cudaStream_t stream, const Launch& l, int stage, std::uint32_t arg,
                               std::uint32_t items, const std::uint8_t* pixels,
                               const std::uint32_t* plan, std::uint32_t* work,
                               std::uint32_t* data, std::int16_t* coefs, std::uint8_t* out);

// Device Huffman decoding (kernels_cu/jpeg_entropy.cu): one stage of core/portable/jpeg_huffman.h.
cudaError_t launch_jpeg_entropy(cudaStream_t stream, const Launch& l, int stage, std::uint32_t arg,
                                std::uint32_t items, const std::uint32_t* plan,
                                const std::uint8_t* data, std::uint32_t* work, std::int16_t* coefs);

// Filters (kernels_cu/filters.cu): one kernel of core/portable/filters.h, `src` and `dst` at
// the image's first byte.
cudaError_t launch_filter(cudaStream_t stream, int kind, const hc_filter_params& p,
                          const std::uint8_t* src, std::uint8_t* dst);

}  // namespace hetcodec::cuda

#endif  // HETCODEC_KERNELS_CU_LAUNCH_H
