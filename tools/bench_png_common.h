// The parts `hetcodec bench png-encode` (bench_png.cpp) and `bench png-decode`
// (bench_png_decode.cpp) share: the images measured, libpng's encoder as a peer, the options that
// choose the images, and a round-robin measurement on several threads.
#ifndef HETCODEC_TOOLS_BENCH_PNG_COMMON_H
#define HETCODEC_TOOLS_BENCH_PNG_COMMON_H

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tools/cli.h"

namespace hetcodec::tools {

using Clock = std::chrono::steady_clock;

// The images both PNG benchmarks measure: the files given (directories read in name order),
// centre-cropped to `crop` (WxH), or four synthetic photo-like images of that size; `source`
// describes them; cw and ch receive the crop's size.
std::vector<Image> bench_images(const std::vector<std::string>& paths, const std::string& crop,
                                int& cw, int& ch, std::string& source);
// libpng's file of `im` with a zlib strategy (-1: libpng's default).
std::vector<std::uint8_t> libpng_write(const Image& im, int strategy);
// The options both PNG benchmarks take: inputs, --crop and --min-time.
void add_image_options(CLI::App& cmd, std::vector<std::string>& paths, std::string& crop,
                       double& min_time);

// Runs items 0..count-1 round-robin on `streams` threads, each with its own worker from
// make() (a callable taking the item index), for at least min_time seconds after a warm-up
// pass on the first; returns megapixels per second over all threads.
template <typename MpOf, typename Make>
double measure_streams(std::size_t count, MpOf&& mp_of, double min_time, int streams, Make&& make) {
  std::atomic<std::size_t> next{0};
  std::atomic<int> ready{0}, started{0};
  std::atomic<bool> stop{false};
  std::vector<double> mp(std::size_t(streams), 0);
  std::vector<std::thread> pool;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto t0 = Clock::now();
  for (int s = 0; s < streams; ++s)
    pool.emplace_back([&, s] {
      try {
        auto run = make();
        if (s == 0)  // one warm-up pass (kernel builds, first allocations), not timed
          for (std::size_t k = 0; k < count; ++k) run(k);
        ready++;
        while (ready < streams) std::this_thread::yield();
        if (s == 0) t0 = Clock::now();
        started++;
        while (started < streams) std::this_thread::yield();
        for (std::size_t i; !stop && (i = next++) < 1u << 30;) {
          const std::size_t k = i % count;
          run(k);
          mp[std::size_t(s)] += mp_of(k);
          if (std::chrono::duration<double>(Clock::now() - t0).count() >= min_time) stop = true;
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        failure = std::current_exception();
        stop = true;
      }
    });
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  const double t = std::chrono::duration<double>(Clock::now() - t0).count();
  double total = 0;
  for (double m : mp) total += m;
  return total / t;
}

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_BENCH_PNG_COMMON_H
