// Device Huffman decoding entry points: the bodies of core/portable/jpeg_huffman.h on CUDA, a
// kernel per stage (HC_JH_STAGE_LIST), ITEM stages a thread per item, GROUP stages a block.
#include "core/portable/jpeg_huffman.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

template <int Stage, bool Group>
__global__ void jpeg_entropy(hc_u32 arg, hc_u32 items, const hc_u32* __restrict__ plan,
                             const hc_u8* __restrict__ data, hc_u32* work, hc_i16* coefs) {
  if constexpr (Group) {
    __shared__ hc_jh_local z;
    if (blockIdx.x < items)
      hc_jh_run(Stage, arg, blockIdx.x, plan, data, work, coefs, &z, threadIdx.x, blockDim.x);
  } else {
    const hc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < items) hc_jh_run(Stage, arg, i, plan, data, work, coefs, nullptr, 0, 1);
  }
}

constexpr bool kITEM = false, kGROUP = true;

}  // namespace

cudaError_t launch_jpeg_entropy(cudaStream_t stream, const Launch& l, int stage, std::uint32_t arg,
                                std::uint32_t items, const std::uint32_t* plan,
                                const std::uint8_t* data, std::uint32_t* work,
                                std::int16_t* coefs) {
  switch (stage) {
#define HC_JH_LAUNCH(S, name, kind) \
  case S:                           \
    return launch(jpeg_entropy<S, k##kind>, stream, l, arg, items, plan, data, work, coefs);
    HC_JH_STAGE_LIST(HC_JH_LAUNCH)
#undef HC_JH_LAUNCH
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace hetcodec::cuda
