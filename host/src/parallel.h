// A parallel loop for the host stages of the decoders (no pool: threads are started per call,
// which costs tens of microseconds, so callers use it for work of a millisecond or more).
#ifndef HETCODEC_HOST_PARALLEL_H
#define HETCODEC_HOST_PARALLEL_H

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace hetcodec::detail {

// Runs fn(0..count-1) on up to `threads` threads (the caller's included); the first exception
// thrown is rethrown once all have finished.
template <typename Fn>
void parallel_for(std::size_t count, int threads, Fn fn) {
  const std::size_t n = std::min<std::size_t>(count, std::size_t(std::max(1, threads)));
  if (n <= 1) {
    for (std::size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_PARALLEL_H
