// What the debugging tools see of a PNG encoder (hetcodec/debug.h): after the filter and after
// each of the device deflate's stages and its CRC stage, when an observer is set, the stage and
// the buffers as it left them (the queue finished; the deflate's work and symbol buffers zeroed
// before its first stage). No cost without an observer.
#ifndef HETCODEC_HOST_PNG_ENCODER_ACCESS_H
#define HETCODEC_HOST_PNG_ENCODER_ACCESS_H

#include <cstddef>
#include <functional>

#include "backends/backend.h"
#include "core/png/deflate_plan.h"
#include "hetcodec/png.h"

namespace hetcodec::detail {

struct PngEncodeSnapshot {
  const char* stage;  // "filtered", "deflate" (after deflate_stage), "crcs"
  Queue& queue;
  const DeviceBuffer& rows;      // the samples as uploaded
  const DeviceBuffer& filtered;  // filtered_bytes of filtered rows
  std::size_t filtered_bytes;
  // The device deflate's (from "deflate" on):
  const png::DeflatePlan* plan = nullptr;
  const DeviceBuffer *plan_buffer = nullptr, *work = nullptr, *syms = nullptr, *out = nullptr;
  int deflate_stage = -1;                                     // HC_DFL_*
  std::size_t deflate_bytes = 0, crc_at = 0, crc_pieces = 0;  // ("crcs": in `out`)
  PngFilterInfo filter{};                                     // ("filtered")
};
using PngEncodeObserver = std::function<void(const PngEncodeSnapshot&)>;

struct PngEncoderAccess {
  // Sets (or, with an empty one, clears) the encoder's observer.
  static void observe(PngEncoder& encoder, PngEncodeObserver observer);
};

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_PNG_ENCODER_ACCESS_H
