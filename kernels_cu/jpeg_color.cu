// JPEG colour conversion: planar YCbCr -> interleaved RGB with libjpeg-turbo's fixed-point
// arithmetic (core/portable/jpeg_color.h). Twin of kernels_cl/jpeg_color.cl and
// backends/cpu/jpeg_color.cpp. One thread per pixel.
#include "core/portable/jpeg_color.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {

__global__ void jpeg_ycc_to_rgb(const std::uint8_t* ycc, std::uint8_t* rgb, std::uint32_t pixels) {
  std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  hc_i32 y = ycc[i];
  hc_i32 cb = ycc[pixels + i];
  hc_i32 cr = ycc[2 * pixels + i];
  rgb[3 * i + 0] = static_cast<std::uint8_t>(hc_ycc_red(y, cr));
  rgb[3 * i + 1] = static_cast<std::uint8_t>(hc_ycc_green(y, cb, cr));
  rgb[3 * i + 2] = static_cast<std::uint8_t>(hc_ycc_blue(y, cb));
}

cudaError_t launch_jpeg_ycc_to_rgb(cudaStream_t stream, const std::uint8_t* d_ycc,
                                   std::uint8_t* d_rgb, std::uint32_t pixels) {
  if (pixels == 0) return cudaSuccess;
  const unsigned threads = 256;
  jpeg_ycc_to_rgb<<<(pixels + threads - 1) / threads, threads, 0, stream>>>(d_ycc, d_rgb, pixels);
  return cudaGetLastError();
}

}  // namespace hetcodec::cuda
