// nvJPEG's batched decode measured for `hetcodec bench jpeg` (bench_nvjpeg.h). Empty in a build
// without CUDA.
#include "tools/bench_nvjpeg.h"

#ifdef HETCODEC_HAVE_CUDA
#include <chrono>
#include <thread>

namespace hetcodec::tools {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

double bench_nvjpeg(NvJpeg& nv, int backend, const std::vector<std::vector<std::uint8_t>>& batch,
                    const std::vector<std::pair<int, int>>& dims, double min_time,
                    std::string& why) {
  NvHandle handle = nullptr;
  NvState state = nullptr;
  int st = nv.create(backend, nullptr, nullptr, 0, &handle);
  if (st != 0) {
    why = "nvjpegCreateEx status " + std::to_string(st);
    return -1;
  }
  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  std::vector<unsigned char*> buffers;
  std::vector<NvImage> out(batch.size());
  std::vector<const unsigned char*> ptrs;
  std::vector<std::size_t> lengths;
  double rate = -1;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    unsigned char* p = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&p), std::size_t(dims[i].first) * dims[i].second * 3);
    buffers.push_back(p);
    out[i] = NvImage{};
    out[i].channel[0] = p;
    out[i].pitch[0] = std::size_t(dims[i].first) * 3;
    ptrs.push_back(batch[i].data());
    lengths.push_back(batch[i].size());
  }
  st = nv.state_create(handle, &state);
  if (st == 0)
    st = nv.batched_init(handle, state, int(batch.size()), int(std::thread::hardware_concurrency()),
                         kNvRGBI);
  auto run = [&] {
    int s = nv.batched(handle, state, ptrs.data(), lengths.data(), out.data(), stream);
    cudaStreamSynchronize(stream);
    return s;
  };
  if (st == 0) st = run();  // warm-up
  if (st == 0) {
    std::size_t images = 0;
    const auto t0 = Clock::now();
    double t = 0;
    while (t < min_time) {
      if ((st = run()) != 0) break;
      images += batch.size();
      t = since(t0);
    }
    if (st == 0) rate = double(images) / t;
  }
  if (st != 0) why = "nvjpegDecodeBatched status " + std::to_string(st);
  if (state) nv.state_destroy(state);
  nv.destroy(handle);
  for (auto* p : buffers) cudaFree(p);
  cudaStreamDestroy(stream);
  return rate;
}

}  // namespace hetcodec::tools
#endif  // HETCODEC_HAVE_CUDA
