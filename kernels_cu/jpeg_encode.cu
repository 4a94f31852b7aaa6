// JPEG encode entry points: the bodies of core/portable/jpeg_encode.h on CUDA, a kernel per
// stage (HC_JENC_STAGE_LIST), each a block of its launch plan's lanes (backends/launch_plan.h).
#include "core/portable/jpeg_encode.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

// GROUP stages an item (work-group) to a block, their scratch in shared memory; ITEM stages an
// item to a thread.
template <int Stage, bool Group>
__global__ void jpeg_encode(hc_u32 arg, hc_u32 items, const hc_u8* pixels, const hc_u32* plan,
                            hc_u32* work, hc_u32* data, hc_i16* coefs, hc_u8* out) {
  if constexpr (Group) {
    __shared__ hc_jenc_local z;
    if (blockIdx.x < items)
      hc_jenc_run(Stage, arg, blockIdx.x, pixels, plan, work, data, coefs, out, &z, threadIdx.x,
                  blockDim.x);
  } else {
    const hc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < items) hc_jenc_run(Stage, arg, i, pixels, plan, work, data, coefs, out, nullptr, 0, 1);
  }
}

constexpr bool kITEM = false, kGROUP = true;

}  // namespace

cudaError_t launch_jpeg_encode(cudaStream_t stream, const Launch& l, int stage, std::uint32_t arg,
                               std::uint32_t items, const std::uint8_t* pixels,
                               const std::uint32_t* plan, std::uint32_t* work,
                               std::uint32_t* data, std::int16_t* coefs, std::uint8_t* out) {
  switch (stage) {
#define HC_JENC_LAUNCH(S, name, kind) \
  case S:                             \
    return launch(jpeg_encode<S, k##kind>, stream, l, arg, items, pixels, plan, work, data, coefs, \
                  out);
    HC_JENC_STAGE_LIST(HC_JENC_LAUNCH)
#undef HC_JENC_LAUNCH
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace hetcodec::cuda
