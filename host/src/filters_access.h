// What the debugging tools see of Filters (hetcodec/debug.h): after each kernel, when an
// observer is set, its kind, its parameters and its buffers as it left them (the queue
// finished). No cost without an observer.
#ifndef HETCODEC_HOST_FILTERS_ACCESS_H
#define HETCODEC_HOST_FILTERS_ACCESS_H

#include <cstddef>
#include <functional>

#include "backends/backend.h"
#include "core/portable/filters.h"
#include "hetcodec/filters.h"

namespace hetcodec::detail {

struct FilterSnapshot {
  int kind;  // HC_FILTER_*
  const hc_filter_params& params;
  Queue& queue;
  const DeviceBuffer* src;  // (smoothing and texture)
  std::size_t src_offset;
  const DeviceBuffer& dst;  // the output from byte 0
};
using FilterObserver = std::function<void(const FilterSnapshot&)>;

struct FiltersAccess {
  // Sets (or, with an empty one, clears) the filters' observer.
  static void observe(Filters& filters, FilterObserver observer);
};

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_FILTERS_ACCESS_H
