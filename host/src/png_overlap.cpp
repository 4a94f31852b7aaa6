// The overlapped decode of PngDecoder (PngDecodeOptions::overlap_bytes): a non-interlaced file
// with an index (hcRS or iDOT) is decoded in pieces cut before rows filtered with None or Sub;
// each piece is uploaded, de-filtered, unpacked (and read back) on one of several queues while
// host threads inflate the segments of the pieces after it.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <thread>

#include "core/png/reader.h"
#include "core/portable/png_decode.h"
#include "core/portable/wavefront.h"
#include "host/src/png_decoder_impl.h"

namespace hetcodec {

// One overlapped decode in flight: the pool's threads inflate the segments in order; the calling
// thread inflates too, and between segments checks the filter types of the rows that have
// arrived and sends each piece whose rows are all there to the device.
struct PngDecoder::Impl::Overlap {
  Impl& m;
  const png::Info& info;
  DeviceBuffer& dst;
  std::vector<Arrival>* arrivals;
  png::SegmentInflater& seg;
  hc_png_job whole_job;   // the unpack job of the whole image
  PngDefilterInfo whole;  // the de-filter of the whole pass
  Wavefront order;
  std::size_t stride = 0, pixel_bytes = 0, out_row = 0;
  std::uint32_t height = 0, rows_per_piece = 0;
  std::uint32_t pieces = 0;                   // sent
  std::unique_ptr<std::atomic<bool>[]> done;  // per segment: inflated
  std::atomic<std::size_t> next{0};           // the next segment to inflate
  std::atomic<bool> failed{false};            // a segment did not inflate, or a device call threw
  std::int64_t bad_row = -1;                  // the first row with a filter type above 4
  std::exception_ptr error;

  // An image of one pass (not interlaced) in `wanted` pieces or so.
  Overlap(Impl& impl, const png::Info& i, const DeviceImage& img, DeviceBuffer& d,
          std::vector<Arrival>* a, png::SegmentInflater& s, std::uint32_t wanted)
      : m(impl),
        info(i),
        dst(d),
        arrivals(a),
        seg(s),
        whole_job(png::unpack_job(i)),
        order(impl.wavefront()),
        done(new std::atomic<bool>[s.size()]) {
    const png::Pass pass = png::passes(i)[0];
    stride = std::size_t(pass.row_bytes) + 1u;
    pixel_bytes = std::size_t(img.channels()) * std::size_t(img.bit_depth / 8);
    out_row = std::size_t(i.width) * pixel_bytes;
    height = i.height;
    rows_per_piece = (height + wanted - 1) / wanted;
    whole.height = height;
    whole.row_bytes = pass.row_bytes;
    whole.bpp = i.filter_bpp();
    for (std::size_t k = 0; k < s.size(); ++k) done[k].store(false, std::memory_order_relaxed);
  }

  // Rows [r0, r1) to the device, de-filtered, unpacked and (with arrivals) read back, on the
  // piece's queue.
  void send(std::uint32_t r0, std::uint32_t r1, bool independent, bool bands) {
    const std::size_t turn = pieces % kPieceQueues;
    Queue& kq = turn ? *m.piece_queues[turn - 1] : *m.queue;
    const std::size_t at = std::size_t(r0) * stride;
    kq.write(*m.rows, at, *m.staging, at, std::size_t(r1 - r0) * stride);
    const std::size_t slot = std::size_t(pieces) * HC_PNG_JOB_BYTES;
    hc_png_job piece = whole_job;
    piece.height = r1 - r0;
    piece.pass[0].offset = std::uint32_t(at);  // the pass starts at the piece's first row
    std::memcpy(m.piece_jobs->data() + slot, &piece, sizeof piece);
    if (m.piece_job.size() <= pieces) m.piece_job.push_back(m.device->alloc(HC_PNG_JOB_BYTES));
    kq.write(*m.piece_job[pieces], 0, *m.piece_jobs, slot, HC_PNG_JOB_BYTES);
    PngDefilterInfo d = whole;
    d.offset = at;
    d.height = r1 - r0;
    d.rows_independent = independent;
    d.bands = bands;
    m.device->png().defilter(kq, *m.rows, *m.piece_scratch[turn], d, order);
    m.device->png().unpack(kq, *m.piece_job[pieces], *m.rows, dst, std::size_t(r0) * out_row,
                           info.width, r1 - r0, std::uint32_t(pixel_bytes));
    ++pieces;
    if (!arrivals) {
      kq.record();  // (which submits the piece's work at once)
      return;
    }
    Arrival a;
    a.offset = std::size_t(r0) * out_row;
    a.bytes = std::size_t(r1 - r0) * out_row;
    kq.read(*m.download, a.offset, dst, a.offset, a.bytes);
    a.done = kq.record();
    arrivals->push_back(std::move(a));
  }

  // Inflates the next segment; false when none is left.
  bool inflate_one() {
    const std::size_t k = next++;
    if (k >= seg.size()) return false;
    if (!failed.load(std::memory_order_relaxed) && !seg.inflate(k, m.staging->data()))
      failed = true;
    done[k].store(true, std::memory_order_release);
    return true;
  }

  // The calling thread's part: checks the rows as their segments arrive and sends the pieces.
  void schedule() {
    const std::uint8_t* const rows_in = m.staging->data();
    const std::size_t n = seg.size();
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
        // A None or Sub row past the piece's target length starts the next piece: one on a
        // multiple of HC_WF_ROWS when there is one within a band's rows, so that the bands of a
        // file that has them (our parallel mode's) stay bands in the pieces.
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
        cut = std::uint32_t(std::min<std::uint64_t>(std::uint64_t(end) + rows_per_piece, height));
        independent = bands = true;
      } else if (!inflate_one()) {
        std::this_thread::yield();
      }
    }
  }
};

bool PngDecoder::Impl::overlapped(const std::uint8_t* data, const png::Info& info,
                                  const DeviceImage& img, DeviceBuffer& dst,
                                  std::vector<Arrival>* arrivals) {
  const std::uint64_t total = png::inflated_bytes(info);
  // Under four host threads the decoder is one of several sharing the host (decode_batch's
  // streams, or a caller's decoders on their own threads), whose images overlap one another's
  // stages already: pieces only add launches and queues there (eight decoders of two threads
  // each read less with pieces than without: docs/png-decode.md).
  if (info.interlace || options.overlap_bytes == 0 || options.threads < 4 ||
      total < 2 * std::uint64_t(options.overlap_bytes))
    return false;
  const auto t0 = Clock::now();
  png::SegmentInflater seg(data, info);
  if (!seg.size()) return false;
  // A piece ends before the first row filtered with None or Sub at least `rows_per_piece` rows
  // after its start, or at the last row: kMaxPieces at most.
  const std::uint32_t wanted =
      std::uint32_t(std::min<std::uint64_t>(total / options.overlap_bytes, kMaxPieces));
  Overlap o(*this, info, img, dst, arrivals, seg, wanted);

  ensure(staging, total, [&](std::size_t b) { return device->alloc_pinned(b); });
  while (piece_queues.size() + 1 < kPieceQueues) piece_queues.push_back(device->create_queue());
  piece_scratch.resize(kPieceQueues);
  for (auto& b : piece_scratch)
    ensure(b, PngKernels::defilter_scratch_bytes(o.whole),
           [&](std::size_t n) { return device->alloc(n); });
  ensure(piece_jobs, kMaxPieces * HC_PNG_JOB_BYTES,
         [&](std::size_t b) { return device->alloc_pinned(b); });
  if (arrivals) {
    ensure(download, img.bytes(), [&](std::size_t b) { return device->alloc_pinned(b); });
    arrivals->clear();
  }
  const std::size_t n = seg.size();
  pool.run(int(std::min<std::size_t>(std::size_t(options.threads), n)), [&](int id) {
    if (id == 0) {
      try {
        o.schedule();
      } catch (...) {
        o.error = std::current_exception();
        o.failed = true;
      }
    }
    while (o.inflate_one()) {
    }
  });
  times.inflate += since(t0);
  return overlap_finished(o);
}

// Waits for an overlapped decode's device work where it must: on failure (rethrown, or false
// for the caller to take the path that reports), and, without arrivals, to time the kernels.
bool PngDecoder::Impl::overlap_finished(Overlap& o) {
  auto finish_all = [&] {
    queue->finish();
    for (auto& q : piece_queues) q->finish();
  };
  auto drain = [&] {
    finish_all();
    if (o.arrivals) o.arrivals->clear();
  };
  if (o.error) {
    try {
      drain();
    } catch (...) {
    }
    std::rethrow_exception(o.error);
  }
  // A segment that did not inflate, or Adler-32 sums that do not add up: the caller inflates
  // the whole stream and says so.
  if (o.failed || !o.seg.check()) {
    drain();
    return false;
  }
  if (o.bad_row >= 0) {
    drain();
    png::bad_filter_type(std::uint32_t(o.bad_row),
                         staging->data()[std::size_t(o.bad_row) * o.stride]);
  }
  if (!o.arrivals) {
    const auto t1 = Clock::now();
    finish_all();
    times.kernels += since(t1);
  }
  return true;
}

}  // namespace hetcodec
