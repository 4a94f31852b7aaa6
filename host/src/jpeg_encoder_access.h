// What the debugging tools see of a JPEG encoder (hetcodec/debug.h): after each of its device
// stages, when an observer is set, the stage's name and the buffers as the stage left them
// (the queue finished). No cost without an observer.
#ifndef HETCODEC_HOST_JPEG_ENCODER_ACCESS_H
#define HETCODEC_HOST_JPEG_ENCODER_ACCESS_H

#include <cstdint>
#include <functional>
#include <vector>

#include "backends/backend.h"
#include "core/portable/jpeg_encode.h"
#include "hetcodec/jpeg_encode.h"

namespace hetcodec::detail {

struct JpegEncodeSnapshot {
  const char* stage;  // "blocks", "positions", "packed", "stuffing"
  Queue& queue;
  const hc_jenc_batch& head;  // the launch's plan header
  const DeviceBuffer& work;
  const DeviceBuffer* data;  // (from "packed" on)
  const DeviceBuffer& coefs;
  const std::vector<std::uint32_t>& plan;  // the launch's plan, as sent
  const DeviceBuffer& pixels;              // the samples, at the image plans' offsets
};
using JpegEncodeObserver = std::function<void(const JpegEncodeSnapshot&)>;

struct JpegEncoderAccess {
  // Sets (or, with an empty one, clears) the encoder's observer.
  static void observe(JpegEncoder& encoder, JpegEncodeObserver observer);
};

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_JPEG_ENCODER_ACCESS_H
