// What the encode pipelines share around their stages: a clock that, when profiling, waits for
// the queue and adds each stage's time to its slot, and device buffers grown on demand (an
// eighth more than asked, so a slightly larger image later does not reallocate).
#ifndef HETCODEC_HOST_STAGE_CLOCK_H
#define HETCODEC_HOST_STAGE_CLOCK_H

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>

#include "backends/backend.h"

namespace hetcodec::detail {

struct StageClock {
  using Clock = std::chrono::steady_clock;
  bool on = false;  // profiling: lap() waits for the queue
  Clock::time_point mark;
  void start() { mark = Clock::now(); }
  // With `on`: waits for `queue` and adds the time since the last lap to `slot`.
  void lap(Queue& queue, double& slot) {
    if (!on) return;
    queue.finish();
    const auto now = Clock::now();
    slot += std::chrono::duration<double>(now - mark).count();
    mark = now;
  }
};

inline void ensure_buffer(Device& device, std::unique_ptr<DeviceBuffer>& b, std::size_t n) {
  if (!b || b->size() < n) {
    b.reset();
    b = device.alloc(std::max<std::size_t>(n + n / 8, 256));
  }
}

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_STAGE_CLOCK_H
