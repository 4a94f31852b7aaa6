// The check every CUDA runtime call goes through (STYLE.md): it records the call text and place,
// where the call is made, never as a batched cudaGetLastError afterwards.
#ifndef HETCODEC_BACKENDS_CUDA_CUDA_CHECK_H
#define HETCODEC_BACKENDS_CUDA_CUDA_CHECK_H

#include <cuda_runtime_api.h>

namespace hetcodec::cuda {
[[noreturn]] void fail(cudaError_t err, const char* call, const char* file, int line);
}

#define HC_CUDA_CHECK(call)                                            \
  do {                                                                 \
    cudaError_t hc_cuda_err_ = (call);                                 \
    if (hc_cuda_err_ != cudaSuccess)                                   \
      ::hetcodec::cuda::fail(hc_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

#endif  // HETCODEC_BACKENDS_CUDA_CUDA_CHECK_H
