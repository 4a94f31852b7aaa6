// The PNG decode pipeline (DESIGN.md §3 "PNG decode"): core/png parses the chunks and inflates
// the image data into pinned memory (segment by segment on host threads when the file has an
// hcRS or iDOT index), one copy takes it to the device, PngKernels::defilter reconstructs each pass
// with the wavefront engine (or row by row when no row looks at the row above), and
// PngKernels::unpack expands the samples into the output image.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "core/png/checksum.h"
#include "core/png/reader.h"
#include "core/portable/png_decode.h"
#include "core/portable/png_inflate.h"
#include "hetcodec/png.h"
#include "host/src/batch_engine.h"
#include "host/src/parallel.h"
#include "host/src/pinned_copy.h"

namespace hetcodec {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

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
  // with 4 queues, the 8 pieces of a 2040x1356 RGB image read 1.87-1.99 GP/s on the H100
  // machine, with 8 2.11-2.22. No queue waits on another's event (NVIDIA's OpenCL held such
  // waits for milliseconds).
  static constexpr std::size_t kPieceQueues = 8;
  std::vector<std::unique_ptr<Queue>> piece_queues;
  std::unique_ptr<PinnedBuffer> piece_jobs;  // each piece's unpack job, pinned then on the device
  std::vector<std::unique_ptr<DeviceBuffer>> piece_job;
  std::vector<std::unique_ptr<DeviceBuffer>> piece_scratch;
  // A piece of the output on its way to `download`: where it lies, and its arrival.
  static constexpr std::size_t kMaxPieces = 32;
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
  // Inflates the segments of a file with an hcRS or iDOT index on the device into `rows` (already
  // large enough). False, with nothing reported, when there is no usable index or a segment
  // does not inflate as it should: the host path then inflates and reports. On success,
  // max_type is the largest filter type of the rows.
  bool inflate_on_device(const std::uint8_t* data, const png::Info& info, int& max_type);
  // The de-filter's tile order for this device (see the option).
  Wavefront wavefront() const {
    // Oclgrind cannot see the ticket protocol's synchronisation between work-groups (flags
    // and fences) and reports the halo reads as data races: the emulator gets one launch per
    // diagonal.
    if (device->info().is_emulator) return Wavefront::Diagonals;
    if (options.wavefront != Wavefront::Auto) return options.wavefront;
    return device->info().is_gpu ? Wavefront::Tickets : Wavefront::Diagonals;
  }
  // run() and the samples back into `img`.
  void to_host(const std::uint8_t* data, std::size_t size, Image& img);
  // The decode limits of the options.
  png::DecodeLimits limits() const {
    png::DecodeLimits l;
    l.max_pixels = options.max_pixels;
    l.max_inflated_bytes = options.max_inflated_bytes;
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

PngDecoder::PngDecoder(const std::string& spec, PngDecodeOptions options)
    : PngDecoder(open_device(spec), options) {}

PngDecoder::PngDecoder(std::shared_ptr<Device> device, PngDecodeOptions options)
{
  if (!device) throw Error(ErrorCode::InvalidArgument, "PngDecoder: no device");
  if (options.threads <= 0) options.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  if (options.batch_streams <= 0) options.batch_streams = 1;
  options.max_inflated_bytes = std::min<std::uint64_t>(options.max_inflated_bytes, (1ull << 32) - 1);
  impl_ = Impl::make(std::move(device), options);
}

PngDecoder::~PngDecoder() = default;

Device& PngDecoder::device() { return *impl_->device; }

const PngDecoder::StageTimes& PngDecoder::stage_times() const { return impl_->times; }

void PngDecoder::reset_stage_times() { impl_->times = {}; }

ImageInfo PngDecoder::info(const std::uint8_t* data, std::size_t size) const {
  const png::Info info = png::parse(data, size, impl_->limits());
  ImageInfo out;
  out.width = int(info.width);
  out.height = int(info.height);
  out.format = png_format(info.out_channels());
  out.bit_depth = info.out_depth();
  return out;
}

DeviceImage PngDecoder::Impl::run(const std::uint8_t* data, std::size_t size,
                                     std::shared_ptr<DeviceBuffer>& dst,
                                     std::vector<Arrival>* arrivals) {
  const auto t0 = Clock::now();
  const png::Info info = png::parse(data, size, limits());
  DeviceImage img;
  img.width = int(info.width);
  img.height = int(info.height);
  img.format = png_format(info.out_channels());
  img.bit_depth = info.out_depth();
  img.warnings = info.warnings;
  const std::size_t total = std::size_t(png::inflated_bytes(info));
  ensure(rows, std::max<std::size_t>(total, 1), [&](std::size_t n) { return device->alloc(n); });
  times.inflate += since(t0);
  const std::size_t bytes = img.bytes();
  if (!dst || dst->size() < bytes) dst = std::shared_ptr<DeviceBuffer>(device->alloc(bytes));
  img.buffer = dst;
  times.overlapped = false;
  int max_type = -1;
  times.inflated_on_device =
      (options.inflate == PngInflate::Device) && inflate_on_device(data, info, max_type);
  if (!times.inflated_on_device && overlapped(data, info, img, *dst, arrivals)) {
    times.used_index = times.overlapped = true;
    times.split_pieces = 0;
    ++times.images;
    return img;
  }
  const auto t_host = Clock::now();
  if (times.inflated_on_device) {
    times.used_index = true;
    times.split_pieces = 0;
  } else {
    max_type = -1;  // (a failed device inflate may have set it)
    ensure(staging, total, [&](std::size_t n) { return device->alloc_pinned(n); });
    png::inflate_image(
        data, info, staging->data(), img.warnings, options.threads, &times.used_index,
        [this](int n, const std::function<void(int)>& fn) { pool.run(n, fn); },
        &times.split_pieces);
  }
  // The filter types are checked here (on the device: their largest), and each pass learns
  // whether its rows are independent, or its tile rows bands (PngDefilterInfo::bands).
  const auto passes = png::passes(info);
  std::vector<PngDefilterInfo> work;
  std::size_t scratch_bytes = 4;
  for (const png::Pass& p : passes) {
    if (!p.width || !p.height) continue;
    PngDefilterInfo d;
    d.offset = p.offset;
    d.height = p.height;
    d.row_bytes = p.row_bytes;
    d.bpp = info.filter_bpp();
    d.rows_independent = max_type <= 1;
    if (max_type < 0) {  // not known yet: the host inflated the rows
      d.bands = true;
      const std::uint8_t* f = staging->data() + p.offset;
      for (std::uint32_t y = 0; y < p.height; ++y) {
        const std::uint8_t type = f[std::size_t(y) * (p.row_bytes + 1u)];
        if (type > 4) png::bad_filter_type(y, type, info.interlace != 0);
        if (type > 1) d.rows_independent = false;
        if (type > 1 && y % HC_WF_ROWS == 0 && y > 0) d.bands = false;
      }
    }
    scratch_bytes = std::max(scratch_bytes, PngKernels::defilter_scratch_bytes(d));
    work.push_back(d);
  }
  times.inflate += since(t_host);

  // Each stage is waited for, so that its time is its own (one image at a time, the stages
  // depend on each other anyway).
  auto t1 = Clock::now();
  ensure(scratch, scratch_bytes, [&](std::size_t n) { return device->alloc(n); });
  if (!job) job = device->alloc(HC_PNG_JOB_BYTES);
  if (!times.inflated_on_device) queue->write(*rows, 0, *staging, 0, total);
  const auto words = png::unpack_job(info);
  queue->write(*job, 0, words.data(), HC_PNG_JOB_BYTES);
  queue->finish();
  times.upload += since(t1);
  t1 = Clock::now();
  const Wavefront order = wavefront();
  for (const auto& d : work) device->png().defilter(*queue, *rows, *scratch, d, order);
  device->png().unpack(*queue, *job, *rows, *dst, 0, info.width, info.height,
                       std::uint32_t(img.channels() * (img.bit_depth / 8)));
  queue->finish();
  times.kernels += since(t1);
  ++times.images;
  return img;
}

bool PngDecoder::Impl::overlapped(const std::uint8_t* data, const png::Info& info,
                                  const DeviceImage& img, DeviceBuffer& dst,
                                  std::vector<Arrival>* arrivals) {
  const std::uint64_t total = png::inflated_bytes(info);
  // Under four host threads the decoder is one of several sharing the host (decode_batch's
  // streams, or a caller's decoders on their own threads), whose images overlap one another's
  // stages already: pieces only add launches and queues there (eight decoders of two threads
  // each on the H100 machine, NVIDIA OpenCL: 3.02-3.24 GP/s with pieces, 3.26-3.37 without).
  if (info.interlace || options.overlap_bytes == 0 || options.threads < 4 ||
      total < 2 * std::uint64_t(options.overlap_bytes))
    return false;
  const auto t0 = Clock::now();
  png::SegmentInflater seg(data, info);
  if (!seg.size()) return false;
  const png::Pass pass = png::passes(info)[0];
  const std::uint32_t height = info.height;
  const std::size_t stride = std::size_t(pass.row_bytes) + 1u;
  const std::size_t pixel_bytes = std::size_t(img.channels()) * std::size_t(img.bit_depth / 8);
  const std::size_t out_row = std::size_t(info.width) * pixel_bytes;
  // A piece ends before the first row filtered with None or Sub at least `rows_per_piece` rows
  // after its start, or at the last row: kMaxPieces at most.
  const std::uint32_t wanted =
      std::uint32_t(std::min<std::uint64_t>(total / options.overlap_bytes, kMaxPieces));
  const std::uint32_t rows_per_piece = (height + wanted - 1) / wanted;

  ensure(staging, total, [&](std::size_t b) { return device->alloc_pinned(b); });
  PngDefilterInfo whole;
  whole.height = height;
  whole.row_bytes = pass.row_bytes;
  whole.bpp = info.filter_bpp();
  while (piece_queues.size() + 1 < kPieceQueues) piece_queues.push_back(device->create_queue());
  piece_scratch.resize(kPieceQueues);
  for (auto& b : piece_scratch)
    ensure(b, PngKernels::defilter_scratch_bytes(whole), [&](std::size_t n) { return device->alloc(n); });
  ensure(piece_jobs, kMaxPieces * HC_PNG_JOB_BYTES,
         [&](std::size_t b) { return device->alloc_pinned(b); });
  if (arrivals) {
    ensure(download, img.bytes(), [&](std::size_t b) { return device->alloc_pinned(b); });
    arrivals->clear();
  }
  const auto job_words = png::unpack_job(info);
  const Wavefront order = wavefront();

  // Rows [r0, r1) to the device, de-filtered, unpacked and (with arrivals) read back, on the
  // piece's queue.
  std::uint32_t pieces = 0;
  auto send = [&](std::uint32_t r0, std::uint32_t r1, bool independent, bool bands) {
    const std::size_t turn = pieces % kPieceQueues;
    Queue& kq = turn ? *piece_queues[turn - 1] : *queue;
    const std::size_t at = std::size_t(r0) * stride;
    kq.write(*rows, at, *staging, at, std::size_t(r1 - r0) * stride);
    const std::size_t slot = std::size_t(pieces) * HC_PNG_JOB_BYTES;
    std::uint32_t* w = reinterpret_cast<std::uint32_t*>(piece_jobs->data() + slot);
    std::memcpy(w, job_words.data(), HC_PNG_JOB_BYTES);
    w[HC_PNG_H] = r1 - r0;
    w[HC_PNG_PASS + 6] = std::uint32_t(at);  // the pass starts at the piece's first row
    if (piece_job.size() <= pieces) piece_job.push_back(device->alloc(HC_PNG_JOB_BYTES));
    kq.write(*piece_job[pieces], 0, *piece_jobs, slot, HC_PNG_JOB_BYTES);
    PngDefilterInfo d = whole;
    d.offset = at;
    d.height = r1 - r0;
    d.rows_independent = independent;
    d.bands = bands;
    device->png().defilter(kq, *rows, *piece_scratch[turn], d, order);
    device->png().unpack(kq, *piece_job[pieces], *rows, dst, std::size_t(r0) * out_row,
                         info.width, r1 - r0, std::uint32_t(pixel_bytes));
    ++pieces;
    if (!arrivals) {
      kq.record();  // (which submits the piece's work at once)
      return;
    }
    Arrival a;
    a.offset = std::size_t(r0) * out_row;
    a.bytes = std::size_t(r1 - r0) * out_row;
    kq.read(*download, a.offset, dst, a.offset, a.bytes);
    a.done = kq.record();
    arrivals->push_back(std::move(a));
  };

  // The pool's threads inflate the segments in order; the calling thread inflates too, and
  // between segments checks the filter types of the rows that have arrived and sends each
  // piece whose rows are all there.
  const std::size_t n = seg.size();
  std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[n]);
  for (std::size_t k = 0; k < n; ++k) done[k].store(false, std::memory_order_relaxed);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};  // a segment did not inflate, or a device call threw
  std::uint8_t* const rows_in = staging->data();
  auto inflate_one = [&]() {
    const std::size_t k = next++;
    if (k >= n) return false;
    if (!failed.load(std::memory_order_relaxed) && !seg.inflate(k, rows_in)) failed = true;
    done[k].store(true, std::memory_order_release);
    return true;
  };
  std::int64_t bad_row = -1;  // the first row with a filter type above 4
  std::exception_ptr error;
  pool.run(int(std::min<std::size_t>(std::size_t(options.threads), n)), [&](int id) {
    if (id == 0) {
      try {
        std::size_t ready = 0;  // segments inflated, from the first on
        std::uint32_t sent = 0, checked = 0, cut = rows_per_piece;
        bool independent = true, bands = true;
        while (sent < height && !failed.load(std::memory_order_relaxed)) {
          while (ready < n && done[ready].load(std::memory_order_acquire)) ++ready;
          const std::uint32_t arrived = ready == n ? height : seg.first_row(ready);
          std::uint32_t end = 0;
          for (; checked < arrived; ++checked) {
            const std::uint8_t type = rows_in[std::size_t(checked) * stride];
            if (type > 4) {
              bad_row = checked;
              break;
            }
            // A None or Sub row past the piece's target length starts the next piece: one on
            // a multiple of HC_WF_ROWS when there is one within a band's rows, so that the
            // bands of a file that has them (our parallel mode's) stay bands in the pieces.
            if (type <= 1 && checked >= cut && checked > sent &&
                (checked % HC_WF_ROWS == 0 || checked >= cut + HC_WF_ROWS)) {
              end = checked;
              break;
            }
            if (type > 1) independent = false;
            if (type > 1 && (checked - sent) % HC_WF_ROWS == 0 && checked > sent) bands = false;
          }
          if (bad_row >= 0) break;
          if (!end && checked == height) end = height;
          if (end) {
            send(sent, end, independent, bands);
            sent = end;
            cut =
                std::uint32_t(std::min<std::uint64_t>(std::uint64_t(end) + rows_per_piece, height));
            independent = bands = true;
          } else if (!inflate_one()) {
            std::this_thread::yield();
          }
        }
      } catch (...) {
        error = std::current_exception();
        failed = true;
      }
    }
    while (inflate_one()) {
    }
  });
  times.inflate += since(t0);
  auto finish_all = [&] {
    queue->finish();
    for (auto& q : piece_queues) q->finish();
  };
  auto drain = [&] {
    finish_all();
    if (arrivals) arrivals->clear();
  };
  if (error) {
    try {
      drain();
    } catch (...) {
    }
    std::rethrow_exception(error);
  }
  // A segment that did not inflate, or Adler-32 sums that do not add up: the caller inflates
  // the whole stream and says so.
  if (failed || !seg.check()) {
    drain();
    return false;
  }
  if (bad_row >= 0) {
    drain();
    png::bad_filter_type(std::uint32_t(bad_row), rows_in[std::size_t(bad_row) * stride]);
  }
  if (!arrivals) {
    const auto t1 = Clock::now();
    finish_all();
    times.kernels += since(t1);
  }
  return true;
}

bool PngDecoder::Impl::inflate_on_device(const std::uint8_t* data, const png::Info& info,
                                         int& max_type) {
  const std::vector<std::uint32_t> table = png::inflate_table(info);
  if (table.empty()) return false;
  const auto t0 = Clock::now();
  const std::size_t n = table.size() / HC_INF_WORDS;
  const std::size_t table_bytes = table.size() * 4;
  // The segment table, then the joined IDAT data, in one pinned buffer.
  ensure(inflate_in, table_bytes + info.idat_bytes, [&](std::size_t b) { return device->alloc_pinned(b); });
  detail::copy_to_pinned(inflate_in->data(), table.data(), table_bytes);
  std::uint8_t* joined = inflate_in->data() + table_bytes;
  for (const auto& [off, len] : info.idat) {
    detail::copy_to_pinned(joined, data + off, len);
    joined += len;
  }
  const std::uint32_t stream_adler = std::uint32_t(joined[-4]) << 24 | std::uint32_t(joined[-3]) << 16 |
                                     std::uint32_t(joined[-2]) << 8 | joined[-1];
  times.inflate += since(t0);
  auto t1 = Clock::now();
  ensure(segment_table, table_bytes, [&](std::size_t b) { return device->alloc(b); });
  ensure(compressed, std::max<std::size_t>(info.idat_bytes, 1), [&](std::size_t b) { return device->alloc(b); });
  ensure(results, n * HC_INF_RESULT_WORDS * 4, [&](std::size_t b) { return device->alloc(b); });
  ensure(inflate_results, n * HC_INF_RESULT_WORDS * 4, [&](std::size_t b) { return device->alloc_pinned(b); });
  queue->write(*segment_table, 0, *inflate_in, 0, table_bytes);
  queue->write(*compressed, 0, *inflate_in, table_bytes, info.idat_bytes);
  queue->finish();
  times.upload += since(t1);
  t1 = Clock::now();
  device->png().inflate(*queue, *compressed, *segment_table, *rows, *results, std::uint32_t(n));
  queue->read(*inflate_results, 0, *results, 0, n * HC_INF_RESULT_WORDS * 4);
  queue->finish();
  times.kernels += since(t1);
  const auto* res = reinterpret_cast<const std::uint32_t*>(inflate_results->data());
  std::uint32_t adler = 1;
  max_type = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t* r = res + k * HC_INF_RESULT_WORDS;
    if (r[HC_INF_STATUS] != HC_INF_OK) return false;
    const std::uint32_t* w = table.data() + k * HC_INF_WORDS;
    adler = png::adler32_combine(adler, r[HC_INF_ADLER], w[HC_INF_OUT_LEN]);
    max_type = std::max<int>(max_type, int(r[HC_INF_MAX_TYPE]));
  }
  // A bad filter type or checksum: the host path says which.
  return adler == stream_adler && max_type <= 4;
}

Image PngDecoder::decode(const std::uint8_t* data, std::size_t size) {
  Image img;
  decode(data, size, img);
  return img;
}

void PngDecoder::decode(const std::uint8_t* data, std::size_t size, Image& img) {
  impl_->to_host(data, size, img);
}

void PngDecoder::Impl::to_host(const std::uint8_t* data, std::size_t size, Image& img) {
  std::vector<Arrival> arrivals;
  DeviceImage d = run(data, size, out, &arrivals);
  const auto t = Clock::now();
  img.width = d.width;
  img.height = d.height;
  img.format = d.format;
  img.bit_depth = d.bit_depth;
  const std::size_t bytes = d.bytes();
  ensure(download, bytes, [&](std::size_t n) { return device->alloc_pinned(n); });
  // Out of pinned memory into the vector on several threads (one thread's copy, about 10 GB/s,
  // took longer than the transfer itself for a 2040x1356 RGB image), piece by piece as the
  // pieces arrive, so that the copies overlap the transfer of the pieces after them. Only this
  // thread waits for the pieces (waits from several threads at once cost more on NVIDIA's
  // OpenCL than the overlap saved).
  // (An overlapped decode has sent its reads already, one per piece.)
  constexpr std::size_t kPiece = std::size_t(2) << 20, kPart = std::size_t(256) << 10;
  if (arrivals.empty()) {
    for (std::size_t at = 0; at < bytes; at += kPiece) {
      Arrival a;
      a.offset = at;
      a.bytes = std::min(kPiece, bytes - at);
      queue->read(*download, at, *d.buffer, d.offset + at, a.bytes);
      a.done = queue->record();
      arrivals.push_back(std::move(a));
    }
  }
  img.pixels.resize(bytes);
  const std::uint8_t* from = download->data();
  std::uint8_t* to = img.pixels.data();
  for (const Arrival& a : arrivals) {
    a.done->wait();
    detail::parallel_for((a.bytes + kPart - 1) / kPart, std::min(options.threads, 8),
                         [&](std::size_t j) {
                           const std::size_t at = a.offset + j * kPart;
                           std::memcpy(to + at, from + at,
                                       std::min(kPart, a.offset + a.bytes - at));
                         },
                         &pool);
  }
  queue->finish();
  if (times.overlapped)
    for (auto& q : piece_queues) q->finish();
  times.download += since(t);
  img.warnings = std::move(d.warnings);
}

std::vector<Image> PngDecoder::decode_batch(const std::vector<Input>& inputs,
                                            BatchErrors* errors) {
  Impl& m = *impl_;
  // Oclgrind is not safe to drive from several host threads at once: one stream there.
  const int wanted = m.device->info().is_emulator ? 1 : m.options.batch_streams;
  const int streams = std::max(1, std::min<int>(wanted, int(inputs.size())));
  // The host threads (inflating indexed segments) are shared among the streams.
  PngDecodeOptions o = m.options;
  o.threads = std::max(1, m.options.threads / streams);
  // Images decoded at once overlap one another's stages already: no pieces, which cost each
  // image more launches and waits across queues (measured slower: docs/benchmarks.md).
  if (streams > 1) o.overlap_bytes = 0;
  while (int(m.workers.size()) < streams - 1) m.workers.push_back(Impl::make(m.device, o));
  std::vector<Image> out(inputs.size());
  BatchErrors errs(inputs.size());
  // On the batch engine, one image per chunk: each worker is a stream with its own queue and
  // buffers (worker 0 this decoder, on the calling thread), and an image's host and device
  // stages run in turn on its stream, overlapping the other streams' images. Nothing is left
  // for the feed.
  detail::BatchPlan plan;
  plan.items = inputs.size();
  plan.workers = streams;
  auto prepare = [&](std::size_t i, int worker) {
    Impl& d = worker ? *m.workers[std::size_t(worker - 1)] : m;
    try {
      d.to_host(inputs[i].data, inputs[i].size, out[i]);
    } catch (const Error& e) {
      errs[i] = e;
      out[i] = Image{};
    } catch (const std::bad_alloc&) {
      errs[i] = Error(ErrorCode::OutOfMemory, "png: out of host memory");
      out[i] = Image{};
    }
  };
  const PngDecodeOptions saved = m.options;
  m.options.threads = o.threads;
  m.options.overlap_bytes = o.overlap_bytes;
  m.engine.run(plan, prepare, {});
  m.options = saved;
  for (const auto& w : m.workers) {  // the other streams' time counts as this decoder's
    m.times.inflate += w->times.inflate;
    m.times.upload += w->times.upload;
    m.times.kernels += w->times.kernels;
    m.times.download += w->times.download;
    m.times.images += w->times.images;
    w->times = {};
  }
  if (errors) {
    *errors = std::move(errs);
    return out;
  }
  for (std::size_t i = 0; i < errs.size(); ++i)
    if (errs[i])
      throw Error(errs[i]->code(), "png batch input " + std::to_string(i) + ": " + errs[i]->what());
  return out;
}

DeviceImage PngDecoder::decode_to_device(const std::uint8_t* data, std::size_t size) {
  Impl& m = *impl_;
  std::shared_ptr<DeviceBuffer> dst;
  return m.run(data, size, dst);  // finished: the staging buffers are reused by the next call
}

}  // namespace hetcodec
