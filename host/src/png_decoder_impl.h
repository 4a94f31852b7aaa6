// PngDecoder's state, shared by its files: png_decoder.cpp (the decode of one file, its host and
// device stages waited for in turn; the batch on the batch engine) and png_overlap.cpp (the
// decode of an indexed file in pieces whose device stages overlap the inflate of the pieces after
// them).
#ifndef HETCODEC_HOST_PNG_DECODER_IMPL_H
#define HETCODEC_HOST_PNG_DECODER_IMPL_H

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "core/png/reader.h"
#include "hetcodec/png.h"
#include "host/src/batch_engine.h"
#include "host/src/parallel.h"

namespace hetcodec {

struct PngDecoder::Impl {
  std::shared_ptr<Device> device;
  PngDecodeOptions options;
  std::unique_ptr<Queue> queue;
  std::unique_ptr<PinnedBuffer> staging, download;
  std::unique_ptr<DeviceBuffer> rows, scratch, job;
  // The device inflate: the joined IDAT data and the segment table (pinned, then on the
  // device), and the segments' results.
  std::unique_ptr<PinnedBuffer> inflate_in, inflate_results;
  std::unique_ptr<DeviceBuffer> compressed, segment_table, results;
  std::shared_ptr<DeviceBuffer> out;  // the output of decode() (decode_to_device makes its own)
  // The overlapped decode: each piece's upload, kernels and download on one of kPieceQueues
  // queues in turn (`queue` the first), with the piece's de-filter scratch there. The pieces are
  // independent of one another, and one piece's de-filter takes about as long as the whole
  // image's (the chain along a band or a tile row is as long), so they must run side by side:
  // eight queues, so that the eight pieces of an image never share one (docs/png-decode.md).
  // No queue waits on another's event (NVIDIA's OpenCL held such waits for milliseconds).
  static constexpr std::size_t kPieceQueues = 8;
  std::vector<std::unique_ptr<Queue>> piece_queues;
  std::unique_ptr<PinnedBuffer> piece_jobs;  // each piece's unpack job, pinned then on the device
  std::vector<std::unique_ptr<DeviceBuffer>> piece_job;
  std::vector<std::unique_ptr<DeviceBuffer>> piece_scratch;
  // A piece of the output on its way to `download`: where it lies, and its arrival.
  static constexpr std::size_t kMaxPieces = 32;
  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }
  struct Arrival {
    std::size_t offset = 0, bytes = 0;
    std::unique_ptr<Event> done;
  };
  StageTimes times;
  // Threads for the segment inflate and the copies out of pinned memory, kept between images.
  detail::WorkerPool pool;
  // decode_batch's streams (this decoder and `workers`) run on the batch engine's threads.
  detail::BatchEngine engine;

  template <typename B, typename F>
  static void ensure(std::unique_ptr<B>& b, std::size_t bytes, F&& alloc) {
    if (!b || b->size() < bytes) {
      const std::size_t n = std::max<std::size_t>(bytes, b ? 2 * b->size() : 0);
      b.reset();  // the old one is freed before the new one is taken
      b = alloc(n);
    }
  }

  // Inflates, uploads and runs the device stages; the output goes to `out` (reallocated when
  // smaller than the image). Returns the image's description.
  // With `arrivals`, a decode that overlaps its stages also reads the output back into
  // `download` piece by piece, and says where each piece is and when it has arrived (nothing
  // when it did not overlap: the caller reads the output back itself).
  DeviceImage run(const std::uint8_t* data, std::size_t size, std::shared_ptr<DeviceBuffer>& dst,
                  std::vector<Arrival>* arrivals = nullptr);
  // The overlapped decode (PngDecodeOptions::overlap_bytes) of a file with an index, into `dst`
  // (large enough); false, with nothing reported, when the file does not qualify or a segment
  // does not inflate as it should (the caller then takes the path that reports). The image's
  // description is in `img`.
  bool overlapped(const std::uint8_t* data, const png::Info& info, const DeviceImage& img,
                  DeviceBuffer& dst, std::vector<Arrival>* arrivals);
  // One overlapped decode in flight (png_overlap.cpp), and its end.
  struct Overlap;
  bool overlap_finished(Overlap& o);
  // The de-filter of each pass of rows the host inflated into `staging` (max_type < 0: their
  // filter types are checked here) or the device did (max_type: their largest type); the
  // scratch the largest needs goes to `scratch_bytes`.
  std::vector<PngDefilterInfo> defilter_passes(const png::Info& info, int max_type,
                                               std::size_t& scratch_bytes) const;
  // Inflates the segments of a file with an hcRS or iDOT index on the device into `rows` (already
  // large enough). False, with nothing reported, when there is no usable index or a segment
  // does not inflate as it should: the host path then inflates and reports. On success,
  // max_type is the largest filter type of the rows.
  bool inflate_on_device(const std::uint8_t* data, const png::Info& info, int& max_type);
  // The de-filter's tile order for this device (see the option).
  Wavefront wavefront() const {
    // Oclgrind cannot see the ticket protocol's synchronisation between work-groups (flags
    // and fences) and reports the halo reads as data races: the emulator gets one launch per
    // diagonal unless tickets are asked for (clean there on an image of one tile).
    if (options.wavefront != Wavefront::Auto) return options.wavefront;
    if (device->info().is_emulator) return Wavefront::Diagonals;
    return device->info().is_gpu ? Wavefront::Tickets : Wavefront::Diagonals;
  }
  // run() and the samples back into `img`.
  void to_host(const std::uint8_t* data, std::size_t size, Image& img);
  // The decode limits of the options.
  png::DecodeLimits limits() const {
    png::DecodeLimits l;
    l.max_pixels = options.max_pixels;
    l.max_inflated_bytes = options.max_inflated_bytes;
    l.max_memory_bytes = options.max_memory_bytes;
    l.max_chunk_bytes = options.max_chunk_bytes;
    l.ignore_crc = options.ignore_crc;
    return l;
  }
  // Decoders of decode_batch's other threads (each with its own queue and buffers).
  std::vector<std::unique_ptr<Impl>> workers;
  static std::unique_ptr<Impl> make(std::shared_ptr<Device> device, const PngDecodeOptions& o) {
    auto m = std::make_unique<Impl>();
    m->device = std::move(device);
    m->options = o;
    m->queue = m->device->create_queue();
    return m;
  }
};

}  // namespace hetcodec

#endif  // HETCODEC_HOST_PNG_DECODER_IMPL_H
