// nvJPEG's encoder measured for `hetcodec bench jpeg-encode` (bench_nvjpeg_encode.h): libnvjpeg
// loaded with dlopen, one handle, an encoder state and parameters per CUDA stream.
#include "tools/bench_nvjpeg_encode.h"

#ifdef HETCODEC_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace hetcodec::tools {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// nvjpeg.h's types and values (nvjpegImage_t, nvjpegChromaSubsampling_t, NVJPEG_INPUT_RGBI).
struct NvImage {
  unsigned char* channel[4];
  std::size_t pitch[4];
};
using NvHandle = void*;
using NvState = void*;
using NvParams = void*;
constexpr int kInputRGBI = 5;
int css_of(JpegSampling s) {
  switch (s) {
    case JpegSampling::S444:
      return 0;
    case JpegSampling::S422:
      return 1;
    case JpegSampling::S420:
      return 2;
    case JpegSampling::S440:
      return 3;
    default:
      return 6;  // NVJPEG_CSS_GRAY
  }
}

struct NvEncoderApi {
  void* lib = nullptr;
  std::string why;
  int (*create_simple)(NvHandle*) = nullptr;
  int (*destroy)(NvHandle) = nullptr;
  int (*state_create)(NvHandle, NvState*, cudaStream_t) = nullptr;
  int (*state_destroy)(NvState) = nullptr;
  int (*params_create)(NvHandle, NvParams*, cudaStream_t) = nullptr;
  int (*params_destroy)(NvParams) = nullptr;
  int (*set_quality)(NvParams, int, cudaStream_t) = nullptr;
  int (*set_sampling)(NvParams, int, cudaStream_t) = nullptr;
  int (*set_optimized)(NvParams, int, cudaStream_t) = nullptr;
  int (*encode_image)(NvHandle, NvState, NvParams, const NvImage*, int, int, int,
                      cudaStream_t) = nullptr;
  int (*retrieve)(NvHandle, NvState, unsigned char*, std::size_t*, cudaStream_t) = nullptr;

  NvEncoderApi() {
    for (const char* name : {"libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so"}) {
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
    }
    if (!lib) {
      why = "libnvjpeg not found";
      return;
    }
    load(create_simple, "nvjpegCreateSimple");
    load(destroy, "nvjpegDestroy");
    load(state_create, "nvjpegEncoderStateCreate");
    load(state_destroy, "nvjpegEncoderStateDestroy");
    load(params_create, "nvjpegEncoderParamsCreate");
    load(params_destroy, "nvjpegEncoderParamsDestroy");
    load(set_quality, "nvjpegEncoderParamsSetQuality");
    load(set_sampling, "nvjpegEncoderParamsSetSamplingFactors");
    load(set_optimized, "nvjpegEncoderParamsSetOptimizedHuffman");
    load(encode_image, "nvjpegEncodeImage");
    load(retrieve, "nvjpegEncodeRetrieveBitstream");
    if (!why.empty()) lib = nullptr;
  }
  template <typename F>
  void load(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f && why.empty()) why = std::string("libnvjpeg lacks ") + name;
  }
};

// A failed nvJPEG or CUDA call, with its text.
void check(int status, const char* call) {
  if (status != 0)
    throw std::runtime_error(std::string(call) + ": status " + std::to_string(status));
}
#define HC_NV_CHECK(call) check(int(call), #call)

// One encoder: a CUDA stream, its encoder state and parameters, the last file retrieved.
struct Encoder {
  NvEncoderApi& api;
  NvHandle handle;
  cudaStream_t stream = nullptr;
  NvState state = nullptr;
  NvParams params = nullptr;
  unsigned char* d_staging = nullptr;  // host input goes here first
  std::vector<unsigned char> file;

  Encoder(NvEncoderApi& a, NvHandle h, int quality, int css, bool optimize, std::size_t staging)
      : api(a), handle(h) {
    HC_NV_CHECK(cudaStreamCreate(&stream));
    HC_NV_CHECK(api.state_create(handle, &state, stream));
    HC_NV_CHECK(api.params_create(handle, &params, stream));
    HC_NV_CHECK(api.set_quality(params, quality, stream));
    HC_NV_CHECK(api.set_sampling(params, css, stream));
    HC_NV_CHECK(api.set_optimized(params, optimize ? 1 : 0, stream));
    if (staging) HC_NV_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_staging), staging));
  }
  ~Encoder() {
    if (d_staging) cudaFree(d_staging);
    if (params) api.params_destroy(params);
    if (state) api.state_destroy(state);
    if (stream) cudaStreamDestroy(stream);
  }
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  // RGB interleaved at `d_rgb` to `file` on the host.
  std::size_t encode(const unsigned char* d_rgb, int width, int height) {
    NvImage src{};
    src.channel[0] = const_cast<unsigned char*>(d_rgb);
    src.pitch[0] = std::size_t(width) * 3;
    HC_NV_CHECK(api.encode_image(handle, state, params, &src, kInputRGBI, width, height, stream));
    std::size_t length = 0;
    HC_NV_CHECK(api.retrieve(handle, state, nullptr, &length, stream));
    HC_NV_CHECK(cudaStreamSynchronize(stream));
    file.resize(length);
    HC_NV_CHECK(api.retrieve(handle, state, file.data(), &length, stream));
    HC_NV_CHECK(cudaStreamSynchronize(stream));
    return length;
  }
  std::size_t encode_from_host(const Image& im) {
    HC_NV_CHECK(cudaMemcpyAsync(d_staging, im.pixels.data(), im.pixels.size(),
                                cudaMemcpyHostToDevice, stream));
    return encode(d_staging, im.width, im.height);
  }
};

// Passes of `items` calls of `one(k)` (k = 0..items-1) on `threads` threads, for at least
// min_time seconds after one untimed pass: items per second.
template <typename One>
double passes(std::size_t items, int threads, double min_time, One&& one) {
  std::exception_ptr failure;
  std::mutex m;
  auto pass = [&] {
    std::atomic<std::size_t> next{0};
    auto work = [&](int t) {
      try {
        for (std::size_t k; (k = next++) < items;) one(t, k);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        failure = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    if (failure) std::rethrow_exception(failure);
  };
  pass();
  std::size_t done = 0;
  const auto t0 = Clock::now();
  double t = 0;
  do {
    pass();
    done += items;
    t = since(t0);
  } while (t < min_time);
  return double(done) / t;
}

}  // namespace

NvEncodeRates bench_nvjpeg_encode(const std::vector<const Image*>& images, int quality,
                                  JpegSampling sampling, bool optimize, int streams,
                                  double min_time) {
  NvEncodeRates r;
  static NvEncoderApi api;  // loaded once per process
  int devices = 0;
  if (!api.lib) {
    r.why = api.why;
    return r;
  }
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    r.why = "no CUDA device";
    return r;
  }
  NvHandle handle = nullptr;
  std::vector<unsigned char*> d_images;
  try {
    HC_NV_CHECK(api.create_simple(&handle));
    std::size_t largest = 0;
    for (const Image* im : images) {
      unsigned char* p = nullptr;
      HC_NV_CHECK(cudaMalloc(reinterpret_cast<void**>(&p), im->pixels.size()));
      d_images.push_back(p);
      HC_NV_CHECK(cudaMemcpy(p, im->pixels.data(), im->pixels.size(), cudaMemcpyHostToDevice));
      largest = std::max(largest, im->pixels.size());
    }
    const int css = css_of(sampling);
    const std::size_t n = images.size();
    {
      Encoder single(api, handle, quality, css, optimize, largest);
      for (std::size_t k = 0; k < n; ++k)
        r.bytes += single.encode(d_images[k], images[k]->width, images[k]->height);
      r.host =
          passes(n, 1, min_time, [&](int, std::size_t k) { single.encode_from_host(*images[k]); });
      r.device = passes(n, 1, min_time, [&](int, std::size_t k) {
        single.encode(d_images[k], images[k]->width, images[k]->height);
      });
    }
    r.streams = std::max(1, streams);
    std::vector<std::unique_ptr<Encoder>> many;
    many.reserve(std::size_t(r.streams));
    for (int s = 0; s < r.streams; ++s)
      many.push_back(std::make_unique<Encoder>(api, handle, quality, css, optimize, 0));
    // At least one image per stream in a pass, so that every stream has work.
    const std::size_t items = std::max<std::size_t>(n, std::size_t(r.streams));
    r.batched = passes(items, r.streams, min_time, [&](int t, std::size_t k) {
      const Image& im = *images[k % n];
      many[std::size_t(t)]->encode(d_images[k % n], im.width, im.height);
    });
  } catch (const std::exception& e) {
    r.why = e.what();
  }
  for (auto* p : d_images) cudaFree(p);
  if (handle) api.destroy(handle);
  return r;
}

}  // namespace hetcodec::tools

#else  // a build without CUDA

namespace hetcodec::tools {

NvEncodeRates bench_nvjpeg_encode(const std::vector<const Image*>&, int, JpegSampling, bool, int,
                                  double) {
  NvEncodeRates r;
  r.why = "not in this build (built without CUDA)";
  return r;
}

}  // namespace hetcodec::tools

#endif  // HETCODEC_HAVE_CUDA
