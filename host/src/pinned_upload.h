// Host samples to a device buffer through pinned memory, for the encoders: the samples are
// copied into a pinned staging buffer by pool threads piece by piece (streaming stores,
// host/src/pinned_copy.h) while another starts each part's transfer (4 to 16 parts of 2 MiB or
// more) as soon as its pieces are in, so that the host copy and the DMA overlap. Inputs under
// 1 MiB are copied in on several threads, then sent in one transfer.
#ifndef HETCODEC_HOST_PINNED_UPLOAD_H
#define HETCODEC_HOST_PINNED_UPLOAD_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "host/src/parallel.h"

namespace hetcodec::detail {

// Copies `bytes` from `samples` to `dst` at offset 0 on `queue`; `staging` is grown as needed
// and kept by the caller; `copy_threads` pool threads copy. When it returns, the transfers are
// enqueued and the host memory may be reused once the queue has reached them (the pinned copy
// is the caller's until then).
void upload_pinned(Device& device, Queue& queue, DeviceBuffer& dst, const std::uint8_t* samples,
                   std::size_t bytes, std::unique_ptr<PinnedBuffer>& staging, WorkerPool& pool,
                   int copy_threads);

// `bytes` from `src` to byte `at` of the destination.
struct UploadSpan {
  const std::uint8_t* src = nullptr;
  std::size_t bytes = 0;
  std::size_t at = 0;
};

// The same for several sources (a batch's images), `spans` in increasing `at` and apart: the
// bytes between them are left as they were. `on_part`, if given, is called after each transfer
// is enqueued with the bytes enqueued so far (all of them at the last call), from the thread
// that enqueues them: to start work on `queue`'s device that needs only those.
void upload_pinned(Device& device, Queue& queue, DeviceBuffer& dst,
                   const std::vector<UploadSpan>& spans, std::unique_ptr<PinnedBuffer>& staging,
                   WorkerPool& pool, int copy_threads,
                   const std::function<void(std::size_t)>& on_part = {});

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_PINNED_UPLOAD_H
