// Medians of repeated timings for the benches (`hetcodec bench transfer`, `bench filters`).
#ifndef HETCODEC_TOOLS_BENCH_TIME_H
#define HETCODEC_TOOLS_BENCH_TIME_H

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace hetcodec::tools {

// The median of repeated samples (`sample` returns the seconds it measured), after one untimed
// warm-up: first-touch, mapping, lazy driver work. At least `min_samples`, more until
// `min_seconds` have passed, at most `max_samples`.
inline double median_of(const std::function<double()>& sample, double min_seconds,
                        std::size_t max_samples, std::size_t min_samples = 5) {
  sample();
  std::vector<double> times;
  const auto start = std::chrono::steady_clock::now();
  while (times.size() < min_samples ||
         (times.size() < max_samples &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
              min_seconds))
    times.push_back(sample());
  std::nth_element(times.begin(), times.begin() + std::ptrdiff_t(times.size() / 2), times.end());
  return times[times.size() / 2];
}

// median_of the seconds `run` takes, each call timed on the host clock.
inline double median_seconds(const std::function<void()>& run, double min_seconds,
                             std::size_t max_samples = 200, std::size_t min_samples = 5) {
  return median_of(
      [&] {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      },
      min_seconds, max_samples, min_samples);
}

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_BENCH_TIME_H
