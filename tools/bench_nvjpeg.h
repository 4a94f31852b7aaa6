// nvJPEG as a peer of `hetcodec bench jpeg` (bench_jpeg.cpp), loaded at run time: declarations
// of the few entry points used, as the nvJPEG documentation gives them, so that the tool builds
// without nvjpeg.h and runs without libnvjpeg. Only in a build with CUDA (HETCODEC_HAVE_CUDA).
#ifndef HETCODEC_TOOLS_BENCH_NVJPEG_H
#define HETCODEC_TOOLS_BENCH_NVJPEG_H
#ifdef HETCODEC_HAVE_CUDA

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hetcodec::tools {

struct NvImage {
  unsigned char* channel[4];
  std::size_t pitch[4];
};
using NvHandle = void*;
using NvState = void*;
using PCreateEx = int (*)(int backend, void*, void*, unsigned flags, NvHandle*);
using PStateCreate = int (*)(NvHandle, NvState*);
using PBatchedInit = int (*)(NvHandle, NvState, int batch, int max_cpu_threads, int format);
using PBatched = int (*)(NvHandle, NvState, const unsigned char* const*, const std::size_t*,
                         NvImage*, cudaStream_t);
using PStateDestroy = int (*)(NvState);
using PDestroy = int (*)(NvHandle);
constexpr int kNvRGBI = 5;

struct NvJpeg {
  void* lib = nullptr;
  PCreateEx create = nullptr;
  PStateCreate state_create = nullptr;
  PBatchedInit batched_init = nullptr;
  PBatched batched = nullptr;
  PStateDestroy state_destroy = nullptr;
  PDestroy destroy = nullptr;
  std::string why;
  NvJpeg() {
    for (const char* name : {"libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so"}) {
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
    }
    if (!lib) {
      why = "libnvjpeg not found";
      return;
    }
    create = reinterpret_cast<PCreateEx>(dlsym(lib, "nvjpegCreateEx"));
    state_create = reinterpret_cast<PStateCreate>(dlsym(lib, "nvjpegJpegStateCreate"));
    batched_init = reinterpret_cast<PBatchedInit>(dlsym(lib, "nvjpegDecodeBatchedInitialize"));
    batched = reinterpret_cast<PBatched>(dlsym(lib, "nvjpegDecodeBatched"));
    state_destroy = reinterpret_cast<PStateDestroy>(dlsym(lib, "nvjpegJpegStateDestroy"));
    destroy = reinterpret_cast<PDestroy>(dlsym(lib, "nvjpegDestroy"));
    if (!create || !state_create || !batched_init || !batched || !state_destroy || !destroy) {
      why = "libnvjpeg lacks an entry point";
      lib = nullptr;
    }
  }
};

// img/s of nvJPEG backend `backend` on the batch, RGB interleaved into device memory; a
// negative value with `why` set when the backend is unavailable.
double bench_nvjpeg(NvJpeg& nv, int backend, const std::vector<std::vector<std::uint8_t>>& batch,
                    const std::vector<std::pair<int, int>>& dims, double min_time,
                    std::string& why);

// nvJPEG's lossless backend (NVJPEG_BACKEND_LOSSLESS_JPEG: predictor 1, one or two components)
// on one file, batches of one through nvjpegDecodeBatched into native-endian uint16 samples
// (NVJPEG_OUTPUT_UNCHANGEDI_U16) in device memory (bench_ljpeg_nvjpeg.cpp): the seconds of each
// of `runs` decodes after a warm-up, and the samples in `samples`. False with `why` set where
// the backend is unavailable or refuses the file.
bool bench_nvjpeg_lossless(NvJpeg& nv, const std::vector<std::uint8_t>& file, int width, int height,
                           int components, int runs, std::vector<double>& seconds,
                           std::vector<std::uint16_t>& samples, std::string& why);
constexpr int kNvBackendLossless = 6;
constexpr int kNvUnchangedInterleavedU16 = 7;

}  // namespace hetcodec::tools

#endif  // HETCODEC_HAVE_CUDA
#endif  // HETCODEC_TOOLS_BENCH_NVJPEG_H
