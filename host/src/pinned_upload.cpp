// host/src/pinned_upload.h.
#include "host/src/pinned_upload.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "host/src/pinned_copy.h"

namespace hetcodec::detail {

void upload_pinned(Device& device, Queue& queue, DeviceBuffer& dst, const std::uint8_t* samples,
                   std::size_t bytes, std::unique_ptr<PinnedBuffer>& staging, WorkerPool& pool,
                   int copy_threads) {
  if (bytes < (std::size_t(1) << 20)) {
    queue.write(dst, 0, samples, bytes);
    return;
  }
  if (!staging || staging->size() < bytes) {
    staging.reset();
    staging = device.alloc_pinned(bytes + bytes / 8);
  }
  constexpr std::size_t kPiece = std::size_t(1) << 18, kParts = 4;
  const std::size_t pieces = (bytes + kPiece - 1) / kPiece;
  const std::size_t per_part = (pieces + kParts - 1) / kParts;
  std::uint8_t* to = staging->data();
  std::atomic<std::size_t> next{0}, copied[kParts];
  for (auto& c : copied) c = 0;
  auto work = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < pieces;) {
      const std::size_t at = k * kPiece;
      copy_to_pinned(to + at, samples + at, std::min(kPiece, bytes - at));
      copied[k / per_part].fetch_add(1, std::memory_order_release);
    }
  };
  std::exception_ptr failed;  // a failed transfer, thrown once the copies are done
  auto send = [&] {
    try {
      for (std::size_t part = 0; part * per_part < pieces; ++part) {
        const std::size_t first = part * per_part, last = std::min(pieces, first + per_part);
        while (copied[part].load(std::memory_order_acquire) < last - first)
          std::this_thread::yield();
        const std::size_t at = first * kPiece, end = std::min(bytes, last * kPiece);
        queue.write(dst, at, *staging, at, end - at);
      }
    } catch (...) {
      failed = std::current_exception();
    }
  };
  pool.run(std::max(1, copy_threads) + 1, [&](int id) {
    if (id == 0)
      send();
    else
      work();
  });
  if (failed) std::rethrow_exception(failed);
}

}  // namespace hetcodec::detail
