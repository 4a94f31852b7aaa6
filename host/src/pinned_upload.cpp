// host/src/pinned_upload.h.
#include "host/src/pinned_upload.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <thread>

#include "host/src/pinned_copy.h"

namespace hetcodec::detail {

void upload_pinned(Device& device, Queue& queue, DeviceBuffer& dst, const std::uint8_t* samples,
                   std::size_t bytes, std::unique_ptr<PinnedBuffer>& staging, WorkerPool& pool,
                   int copy_threads) {
  upload_pinned(device, queue, dst, {UploadSpan{samples, bytes, 0}}, staging, pool, copy_threads);
}

void upload_pinned(Device& device, Queue& queue, DeviceBuffer& dst,
                   const std::vector<UploadSpan>& spans, std::unique_ptr<PinnedBuffer>& staging,
                   WorkerPool& pool, int copy_threads,
                   const std::function<void(std::size_t)>& on_part) {
  if (spans.empty()) return;
  const std::size_t bytes = spans.back().at + spans.back().bytes;
  if (!staging || staging->size() < bytes) {
    staging.reset();
    staging = device.alloc_pinned(std::max<std::size_t>(bytes + bytes / 8, 4096));
  }
  if (bytes < (std::size_t(1) << 20)) {
    // Small images: gathered, then one transfer, which the caller need not wait for (a write
    // from pageable memory waits for the queue, and on NVIDIA's OpenCL ran at a fraction of
    // the bus's rate). Copied in pieces of 128 KiB on up to copy_threads threads.
    constexpr std::size_t kSmallPiece = std::size_t(128) << 10;
    const std::size_t pieces = (bytes + kSmallPiece - 1) / kSmallPiece;
    std::uint8_t* to = staging->data();
    auto gather = [&](std::size_t a, std::size_t b) {
      for (const UploadSpan& s : spans) {
        const std::size_t from = std::max(a, s.at), end = std::min(b, s.at + s.bytes);
        if (from < end) std::memcpy(to + from, s.src + (from - s.at), end - from);
      }
    };
    if (pieces == 1 || copy_threads <= 1) {
      gather(0, bytes);
    } else {
      std::atomic<std::size_t> next{0};
      pool.run(int(std::min<std::size_t>(pieces, std::size_t(copy_threads))), [&](int) {
        for (std::size_t k; (k = next.fetch_add(1)) < pieces;)
          gather(k * kSmallPiece, std::min(bytes, (k + 1) * kSmallPiece));
      });
    }
    queue.write(dst, 0, *staging, 0, bytes);
    if (on_part) on_part(bytes);
    return;
  }
  // Pieces of 256 KiB, copied in turn by the threads; parts of 2 MiB or more (4 to 16 of them),
  // each sent once its pieces are in: small enough that the first starts early and the last
  // ends soon after the copying, large enough that each transfer runs near the bus's rate.
  constexpr std::size_t kPiece = std::size_t(1) << 18, kMaxParts = 16;
  const std::size_t pieces = (bytes + kPiece - 1) / kPiece;
  const std::size_t kParts = std::clamp<std::size_t>(bytes >> 21, 4, kMaxParts);
  const std::size_t per_part = (pieces + kParts - 1) / kParts;
  std::uint8_t* to = staging->data();
  // The staging bytes [a, b) from the spans that overlap them.
  auto copy = [&](std::size_t a, std::size_t b) {
    auto s = std::upper_bound(spans.begin(), spans.end(), a,
                              [](std::size_t v, const UploadSpan& x) { return v < x.at + x.bytes; });
    for (; s != spans.end() && s->at < b; ++s) {
      const std::size_t from = std::max(a, s->at), end = std::min(b, s->at + s->bytes);
      copy_to_pinned(to + from, s->src + (from - s->at), end - from);
    }
  };
  std::atomic<std::size_t> next{0}, copied[kMaxParts];
  for (auto& c : copied) c = 0;
  auto work = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < pieces;) {
      const std::size_t at = k * kPiece;
      copy(at, std::min(bytes, at + kPiece));
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
        if (on_part) on_part(end);
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
