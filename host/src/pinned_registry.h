// The pinned buffers handed out by hetcodec::alloc_pinned (hetcodec/device.h), so that the
// encoders can tell that samples lie in one and send them from there.
#ifndef HETCODEC_HOST_PINNED_REGISTRY_H
#define HETCODEC_HOST_PINNED_REGISTRY_H

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backends/backend.h"

namespace hetcodec::detail {

// Where `bytes` from `p` lie in a live buffer that alloc_pinned made for `device`: the buffer
// and the offset of p in it. The buffer is kept alive while the result is.
struct PinnedPlace {
  std::shared_ptr<PinnedBuffer> buffer;
  std::size_t offset = 0;
};
PinnedPlace find_pinned(const Device& device, const std::uint8_t* p, std::size_t bytes);

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_PINNED_REGISTRY_H
