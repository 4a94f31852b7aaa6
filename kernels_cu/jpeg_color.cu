// JPEG colour conversion entry point: core/portable/jpeg_decode.h's hc_jpeg_ycc_to_rgb on CUDA,
// a thread per pixel.
#include "core/portable/jpeg_decode.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

__global__ void jpeg_ycc_to_rgb(const hc_u8* ycc, hc_u8* rgb, hc_u32 pixels) {
  hc_jpeg_ycc_to_rgb(ycc, rgb, pixels, blockIdx.x * blockDim.x + threadIdx.x);
}

}  // namespace

cudaError_t launch_jpeg_ycc_to_rgb(cudaStream_t stream, const Launch& l, const std::uint8_t* d_ycc,
                                   std::uint8_t* d_rgb, std::uint32_t pixels) {
  return launch(jpeg_ycc_to_rgb, stream, l, d_ycc, d_rgb, pixels);
}

}  // namespace hetcodec::cuda
