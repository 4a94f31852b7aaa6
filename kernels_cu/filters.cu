// Filter entry points: the bodies of core/portable/filters.h on CUDA (whose products and sums
// are __fmul_rn/__fadd_rn, never fused), each a block of its launch plan's lanes
// (backends/launch_plan.h).
#include "core/portable/filters.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

__global__ void __launch_bounds__(HC_SMOOTH_LANES)
    filter_smooth(const hc_u8* src, hc_u8* dst, hc_filter_params p) {
  __shared__ hc_smooth_local loc;
  hc_filter_smooth(src, dst, p, blockIdx.x, threadIdx.x, HC_SMOOTH_LANES, &loc);
}

__global__ void filter_perlin(hc_u8* dst, hc_filter_params p) {
  hc_filter_perlin(dst, p, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void filter_texture(const hc_u8* src, hc_u8* dst, hc_filter_params p) {
  hc_filter_texture(src, dst, p, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void filter_mandelbrot(hc_u8* dst, hc_filter_params p) {
  hc_filter_mandelbrot(dst, p, blockIdx.x * blockDim.x + threadIdx.x);
}

}  // namespace

cudaError_t launch_filter(cudaStream_t stream, int kind, const hc_filter_params& p,
                          const std::uint8_t* src, std::uint8_t* dst) {
  const Launch l = plan_filter(kind, p.width, p.height);
  switch (kind) {
    case HC_FILTER_SMOOTH:
      return launch(filter_smooth, stream, l, src, dst, p);
    case HC_FILTER_PERLIN:
      return launch(filter_perlin, stream, l, dst, p);
    case HC_FILTER_TEXTURE:
      return launch(filter_texture, stream, l, src, dst, p);
    case HC_FILTER_MANDELBROT:
      return launch(filter_mandelbrot, stream, l, dst, p);
  }
  return cudaErrorInvalidValue;
}

}  // namespace hetcodec::cuda
