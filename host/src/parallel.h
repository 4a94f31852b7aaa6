// Parallel loops for the host stages of the codecs: on threads started per call (tens of
// microseconds each, for work of a millisecond or more), or on a WorkerPool whose threads live
// as long as the pool (a decoder's), for work that repeats at a finer grain.
#ifndef HETCODEC_HOST_PARALLEL_H
#define HETCODEC_HOST_PARALLEL_H

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hetcodec::detail {


// Threads kept for the life of the pool. run(n, fn) runs fn(0) on the calling thread and
// fn(1..n-1) on pool threads (started on first need), and returns once all have returned; fn
// must not throw. An idle pool thread spins for a short while before it sleeps, so that runs
// that follow each other closely (the batches of a loader, the phases of one image) wake no one.
// A run that finds the pool busy (a call from inside fn, or from another thread) starts threads
// of its own instead.
class WorkerPool {
 public:
  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      quit_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    go_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void run(int n, const std::function<void(int)>& fn) {
    if (n <= 1) {
      if (n == 1) fn(0);
      return;
    }
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) {
      std::vector<std::thread> extra;
      for (int i = 1; i < n; ++i) extra.emplace_back(fn, i);
      fn(0);
      for (auto& t : extra) t.join();
      return;
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      const std::uint64_t g = generation_.load(std::memory_order_relaxed);
      while (int(threads_.size()) < n - 1) {
        const int id = int(threads_.size()) + 1;
        threads_.emplace_back([this, id, g] { loop(id, g); });
      }
      job_ = &fn;
      width_ = n;
      remaining_.store(n - 1, std::memory_order_relaxed);
      generation_.store(g + 1, std::memory_order_release);
    }
    go_.notify_all();
    fn(0);
    for (int spin = 0; remaining_.load(std::memory_order_acquire) != 0 && spin < 4096; ++spin)
      pause();
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return remaining_.load(std::memory_order_acquire) == 0; });
    job_ = nullptr;
  }

 private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }
  void loop(int id, std::uint64_t seen) {
    using Clock = std::chrono::steady_clock;
    for (;;) {
      // Spin for up to about 0.2 ms, then sleep until the next run.
      const auto t0 = Clock::now();
      for (int spin = 0; generation_.load(std::memory_order_acquire) == seen; ++spin) {
        pause();
        if ((spin & 255) == 255 && Clock::now() - t0 > std::chrono::microseconds(200)) break;
      }
      const std::function<void(int)>* fn = nullptr;
      {
        std::unique_lock<std::mutex> lock(m_);
        go_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
        if (quit_) return;
        seen = generation_.load(std::memory_order_relaxed);
        if (id < width_) fn = job_;
      }
      if (!fn) continue;
      (*fn)(id);
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(m_);
        done_.notify_one();
      }
    }
  }

  std::mutex busy_;  // held by the run in progress
  std::mutex m_;
  std::condition_variable go_, done_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> remaining_{0};
  const std::function<void(int)>* job_ = nullptr;
  int width_ = 0;
  bool quit_ = false;
};

// Runs fn(0..count-1) on up to `threads` threads (the caller's included; the others from `pool`
// when given, else started for the call); the first exception thrown is rethrown once all have
// finished.
template <typename Fn>
void parallel_for(std::size_t count, int threads, Fn fn, WorkerPool* pool = nullptr) {
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
  if (pool) {
    pool->run(int(n), [&](int) { work(); });
  } else {
    std::vector<std::thread> extra;
    for (std::size_t t = 1; t < n; ++t) extra.emplace_back(work);
    work();
    for (auto& t : extra) t.join();
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_PARALLEL_H
