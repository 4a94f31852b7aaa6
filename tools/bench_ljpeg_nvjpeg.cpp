// nvJPEG's lossless backend measured for `hetcodec bench ljpeg` (bench_nvjpeg.h): a decoder
// handle created for NVJPEG_BACKEND_LOSSLESS_JPEG, a state initialised for batches of one image
// with interleaved 16-bit output, each decode waited for. Empty in a build without CUDA.
#include "tools/bench_nvjpeg.h"

#ifdef HETCODEC_HAVE_CUDA
#include <chrono>

namespace hetcodec::tools {

bool bench_nvjpeg_lossless(NvJpeg& nv, const std::vector<std::uint8_t>& file, int width, int height,
                           int components, int runs, std::vector<double>& seconds,
                           std::vector<std::uint16_t>& samples, std::string& why) {
  using Clock = std::chrono::steady_clock;
  NvHandle handle = nullptr;
  NvState state = nullptr;
  int st = nv.create(kNvBackendLossless, nullptr, nullptr, 0, &handle);
  if (st != 0) {
    why = "nvjpegCreateEx(NVJPEG_BACKEND_LOSSLESS_JPEG) status " + std::to_string(st);
    return false;
  }
  const std::size_t pitch = std::size_t(width) * std::size_t(components) * 2;
  const std::size_t bytes = pitch * std::size_t(height);
  cudaStream_t stream = nullptr;
  unsigned char* d_out = nullptr;
  if (cudaStreamCreate(&stream) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&d_out), bytes) != cudaSuccess) {
    why = "cudaMalloc of " + std::to_string(bytes) + " bytes failed";
    if (stream) cudaStreamDestroy(stream);
    nv.destroy(handle);
    return false;
  }
  NvImage out{};
  out.channel[0] = d_out;
  out.pitch[0] = pitch;
  const unsigned char* data = file.data();
  const std::size_t length = file.size();
  const char* call = "nvjpegJpegStateCreate";
  st = nv.state_create(handle, &state);
  if (st == 0) {
    call = "nvjpegDecodeBatchedInitialize";
    st = nv.batched_init(handle, state, 1, 1, kNvUnchangedInterleavedU16);
  }
  auto decode = [&] {
    const int s = nv.batched(handle, state, &data, &length, &out, stream);
    cudaStreamSynchronize(stream);
    return s;
  };
  if (st == 0) call = "nvjpegDecodeBatched";
  for (int r = -1; st == 0 && r < runs; ++r) {  // r = -1: the warm-up
    const auto t0 = Clock::now();
    st = decode();
    if (r >= 0 && st == 0)
      seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  if (st == 0) {
    samples.resize(bytes / 2);
    if (cudaMemcpy(samples.data(), d_out, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
      why = "cudaMemcpy of nvJPEG's output failed";
      st = -1;
    }
  } else {
    why = std::string(call) + " status " + std::to_string(st);
  }
  if (state) nv.state_destroy(state);
  nv.destroy(handle);
  cudaFree(d_out);
  cudaStreamDestroy(stream);
  return st == 0;
}

}  // namespace hetcodec::tools
#endif  // HETCODEC_HAVE_CUDA
