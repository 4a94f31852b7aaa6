// The batch engine shared by the pipelines (JpegDecoder, PngDecoder, and the encoders and codecs
// after them): CPU threads run each input's host stage a bounded window ahead of the device, and
// the inputs go to the device in input order, a chunk of consecutive inputs at a time, on device
// slots (a queue each) taken in turn, so the host work of later inputs overlaps the transfers and
// kernels of earlier ones. Also here: the pool of pinned buffers a batch reuses instead of
// allocating (freeing pinned memory synchronises the device), device slots, and buffers that
// grow. A codec supplies two functions, its host stage per input and its device feed per chunk.
#ifndef HETCODEC_HOST_BATCH_ENGINE_H
#define HETCODEC_HOST_BATCH_ENGINE_H

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/backend.h"
#include "host/src/parallel.h"

namespace hetcodec::detail {

// Pinned host buffers kept from batch to batch: take() hands out the smallest that fits (else a
// new one, rounded up so that it fits most of the inputs after it), give() takes one back.
// Buffers are never freed during a batch. Safe to call from several threads.
class PinnedPool {
 public:
  explicit PinnedPool(Device& device) : device_(device) {}
  std::unique_ptr<PinnedBuffer> take(std::size_t bytes);
  void give(std::unique_ptr<PinnedBuffer>&& buffer);
  // The largest arena (bytes of several inputs side by side) used so far, for sizing the next.
  std::size_t arena_hint();
  void note_arena(std::size_t bytes);
  const Device& device() const { return device_; }

 private:
  Device& device_;
  std::mutex m_;
  std::vector<std::unique_ptr<PinnedBuffer>> buffers_;
  std::size_t arena_hint_ = 0;
};

// `want` bytes, or the device's largest single allocation where that is less, but never less
// than `need` (a need over the limit then fails in the allocation, naming the device): the size
// of a buffer given room to grow.
std::size_t within_alloc(const Device& device, std::size_t want, std::size_t need);

// At least n bytes in `b`, replaced (with room to grow) when smaller.
void ensure(Device& device, std::unique_ptr<DeviceBuffer>& b, std::size_t n);
void ensure(Device& device, std::unique_ptr<PinnedBuffer>& b, std::size_t n);

// One device slot: a queue, the point its last work reaches, and the pinned buffers that work
// still reads. A slot is reused only once wait() has returned.
struct BatchSlot {
  std::unique_ptr<Queue> queue;
  std::unique_ptr<Event> done;
  std::vector<std::unique_ptr<PinnedBuffer>> staged;
  // Waits for the slot's work, gives its staged buffers back to `pool`; returns seconds waited.
  double wait(PinnedPool& pool);
};

// How a batch runs: `items` inputs, fed `per_chunk` at a time, prepared on `workers` threads
// (the calling thread included). With `one_feeder`, the calling thread alone feeds the device
// and prepares nothing (a device that must be driven from one thread: Oclgrind runs enqueued
// work on the thread that waits for it, with state of the thread that made it).
struct BatchPlan {
  std::size_t items = 0;
  std::size_t per_chunk = 1;
  int workers = 1;
  bool one_feeder = false;
  std::size_t chunks() const { return (items + per_chunk - 1) / per_chunk; }
  std::size_t chunk_size(std::size_t c) const { return std::min(per_chunk, items - c * per_chunk); }
};

// Where a batch's threads spent their time (seconds, summed over threads), and the failure that
// stopped it (a feed that threw), for the caller to rethrow once its slots are safe to reuse.
struct BatchOutcome {
  double wait_ticket = 0;     // waiting for a ticket (the window ahead of the device was full)
  double wait_cpu = 0;        // the calling thread, its own inputs done, waiting for the rest
  double thread_seconds = 0;  // threads x the batch's duration
  std::exception_ptr failure;
};

class BatchEngine {
 public:
  // prepare(i, worker): the host stage of input i on worker `worker` (0 .. workers - 1); it
  // records its own failures and must not throw. feed(c): chunk c (all its inputs prepared),
  // called in chunk order from one thread at a time; if it throws, the batch stops and the
  // exception comes back in the outcome. With an empty feed (a pipeline whose host stage drives
  // the device itself, one worker per stream) chunks are done as they are prepared, in any
  // order, and no window holds the workers back.
  using Prepare = std::function<void(std::size_t item, int worker)>;
  using Feed = std::function<void(std::size_t chunk)>;
  BatchOutcome run(const BatchPlan& plan, const Prepare& prepare, const Feed& feed);

  // The engine's threads, kept from batch to batch; also for the parallel work inside one input.
  WorkerPool& pool() { return pool_; }

 private:
  WorkerPool pool_;
};

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_BATCH_ENGINE_H
