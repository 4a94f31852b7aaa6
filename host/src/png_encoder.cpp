// The PNG encode pipeline (DESIGN.md §3 "PNG encode"): the image goes to the device,
// PngKernels::filter_rows picks libpng's filter per row and filters it, then the deflate stream
// is made on the device (png_deflate.h) or, from the filtered rows brought back, by core/png on
// host threads (Z_RLE, or libdeflate in the small mode), and the host writes the chunks. An
// image in a stored layout (palette, gray below 8 bits) goes up as the file's packed samples,
// mapped back on the host (core/png/layout.h), and is filtered with None alone.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "backends/backend.h"
#include "core/png/checksum.h"
#include "core/png/deflate_plan.h"
#include "core/png/layout.h"
#include "core/png/small_deflate.h"
#include "core/png/writer.h"
#include "core/png/zlib_rle.h"
#include "core/portable/png_deflate.h"
#include "hetcodec/png.h"
#include "host/src/parallel.h"
#include "host/src/pinned_upload.h"
#include "host/src/png_encoder_access.h"
#include "host/src/stage_clock.h"

namespace hetcodec {

namespace {

// Host images being encoded at once in this process. The upload's copy threads are shared out
// among them: one encoder copies on 8, four at once on 2 each (four encoders with 8 copy
// threads each held each other up on NVIDIA's OpenCL: docs/png-encode.md).
std::atomic<int> host_encodes{0};

struct CountEncode {
  CountEncode() { host_encodes.fetch_add(1, std::memory_order_relaxed); }
  ~CountEncode() { host_encodes.fetch_sub(1, std::memory_order_relaxed); }
  CountEncode(const CountEncode&) = delete;
  CountEncode& operator=(const CountEncode&) = delete;
};

}  // namespace

struct PngEncoder::Impl {
  std::shared_ptr<Device> device;
  PngEncodeOptions options;
  std::unique_ptr<Queue> queue;
  std::unique_ptr<DeviceBuffer> rows, filtered;
  std::unique_ptr<DeviceBuffer> plan, work, syms, out;  // the device deflate's
  // The last plan made, and what it was made from (the filtered bytes, the segments' starts,
  // the stored limit): images of one shape in a row make it once and send it once.
  png::DeflatePlan made_plan;
  bool made_any = false, made_ok = false;
  std::size_t made_n = 0;
  std::vector<std::size_t> made_starts;
  std::uint32_t made_limit = 0;
  bool plan_sent = false;                 // whether `plan` holds made_plan
  std::unique_ptr<PinnedBuffer> staging;  // a large image's samples on their way up
  std::unique_ptr<PinnedBuffer> result;   // the deflate data and its CRCs on their way down
  detail::WorkerPool pool;                // the upload's copies, kept between images
  // Copies a host image's samples to `rows` (host/src/pinned_upload.h). The copy threads are
  // shared out among the host images being encoded at once: one encoder copies on 8, four at
  // once on 2 each.
  void upload(const std::uint8_t* samples, std::size_t bytes) {
    const int at_once = std::max(1, host_encodes.load(std::memory_order_relaxed));
    const int workers = std::max(1, std::min(options.threads, std::max(2, 8 / at_once)));
    detail::upload_pinned(*device, *queue, *rows, samples, bytes, staging, pool, workers);
  }
  bool on_device = false;
  detail::PngEncodeObserver observer;  // (the debugging tools': detail::PngEncoderAccess)
  StageTimes times;
  detail::StageClock clock;
  void lap(double& slot) { clock.lap(*queue, slot); }
  void ensure(std::unique_ptr<DeviceBuffer>& b, std::size_t n) {
    detail::ensure_buffer(*device, b, n);
  }
  // The file, its deflate stream made on the device from the filtered rows in `filtered`;
  // empty when the device cannot make zlib's bytes for it.
  std::vector<std::uint8_t> device_file(const png::Raster& shape);
  const png::DeflatePlan* deflate_plan(const png::Raster& shape, std::size_t n,
                                       png::ParallelSegments& seg, int& window_bits);
  // The samples of `shape` (its colour type, depth, PLTE and tRNS; the samples are not read)
  // are in `rows`: filters them there, and makes the file.
  std::vector<std::uint8_t> finish(const png::Raster& shape);
  // Starts an encode of a host image of `bytes` samples: queue, timer, the rows' buffer.
  void start(std::size_t bytes) {
    if (!queue) queue = device->create_queue();
    clock.on = options.profile;
    clock.start();
    if (!rows || rows->size() < bytes) rows = device->alloc(bytes);
  }
  int segment_count() const {
    return options.segments > 0 ? options.segments : std::max(1, int(device->info().compute_units));
  }
};

// The segments of the filtered rows (`n` bytes) and the device deflate's plan for them, made
// once for images of one shape in a row; null when the device cannot make zlib's bytes.
const png::DeflatePlan* PngEncoder::Impl::deflate_plan(const png::Raster& shape, std::size_t n,
                                                       png::ParallelSegments& seg,
                                                       int& window_bits) {
  std::uint32_t stored_limit = 0xFFFFFFFFu;
  if (options.mode == PngMode::Compatible) {
    seg.first_row = {0};
    seg.starts = {0};
    window_bits = png::compatible_window_bits(shape);
    stored_limit = png::compatible_stored_limit(n, window_bits);
  } else {
    seg = png::parallel_segments(shape, segment_count());
  }
  if (!made_any || made_n != n || made_starts != seg.starts || made_limit != stored_limit) {
    made_plan = png::DeflatePlan{};
    plan_sent = false;
    made_ok = png::make_deflate_plan(n, seg.starts, stored_limit, made_plan);
    made_n = n;
    made_starts = seg.starts;
    made_limit = stored_limit;
    made_any = true;
  }
  return made_ok ? &made_plan : nullptr;
}

std::vector<std::uint8_t> PngEncoder::Impl::device_file(const png::Raster& shape) {
  const std::size_t n = (shape.row_bytes() + 1) * std::size_t(shape.height);
  const bool compatible = options.mode == PngMode::Compatible;
  png::ParallelSegments seg;
  int window_bits = 15;
  const png::DeflatePlan* plan_made = deflate_plan(shape, n, seg, window_bits);
  if (!plan_made) return {};
  const png::DeflatePlan& p = *plan_made;
  Queue& q = *queue;
  if (!plan || plan->size() < p.words.size() * 4) plan_sent = false;  // (a new buffer)
  ensure(plan, p.words.size() * 4);
  ensure(work, p.work_words * 4);
  ensure(syms, (p.sym_words * 2 + 3) / 4 * 4);
  // The IDAT chunks' CRC-32s are made on the device too: the stream in pieces of kCrcPiece
  // bytes that the chunk cuts (every multiple of kCrcPiece in the zlib stream, whose first 2
  // bytes, the header, come from the host) fall between, their CRCs stored past the stream in
  // `out` so that one read brings both; the writer joins them chunk by chunk.
  constexpr std::uint32_t kCrcPiece = 1024, kHeader = 2;
  const std::size_t crc_room = (std::size_t(p.out_words) * 4 + kHeader) / kCrcPiece * 4 + 8;
  ensure(out, p.out_words * 4 + crc_room);
  if (!plan_sent) {
    q.write(*plan, 0, p.words.data(), p.words.size() * 4);
    plan_sent = true;
  }
  detail::PngEncodeSnapshot snap{"", q,          *rows,      *filtered,  n,
                                 &p, plan.get(), work.get(), syms.get(), out.get()};
  if (observer) {  // (what the stages leave alone is then zero on every device)
    q.zero(*work, 0, work->size());
    q.zero(*syms, 0, syms->size());
  }
  PngKernels& k = device->png();
  times.deflate_stages.resize(HC_DFL_STAGES);
  const auto t0 = clock.mark;
  for (int stage = 0; stage < HC_DFL_STAGES; ++stage) {
    k.deflate(q, stage, p.items(stage), *filtered, *plan, *work, *syms, *out);
    lap(times.deflate_stages[std::size_t(stage)]);
    if (observer) {
      q.finish();
      snap.stage = "deflate";
      snap.deflate_stage = stage;
      observer(snap);
    }
  }
  if (options.profile) times.deflate += std::chrono::duration<double>(clock.mark - t0).count();
  const std::size_t S = p.segments;
  std::vector<std::uint32_t> head(2 * S + 2);  // status, offsets, Adler-32s
  q.read(head.data(), *work, 0, head.size() * 4);
  if (head[0] != 0) return {};
  const std::uint32_t* seg_off = head.data() + p.seg_off_word();
  const std::uint32_t* seg_adler = head.data() + p.seg_adler_word();
  const std::size_t total = seg_off[S];
  const std::uint32_t pieces = std::uint32_t((total + kHeader + kCrcPiece - 1) / kCrcPiece);
  const std::size_t crc_at = (total + 3) / 4 * 4;  // past the stream's last word
  k.crc32_pieces(q, *out, std::uint32_t(total), kCrcPiece, kHeader, *out, crc_at, pieces);
  if (observer) {
    q.finish();
    snap.stage = "crcs";
    snap.deflate_bytes = total;
    snap.crc_at = crc_at;
    snap.crc_pieces = pieces;
    observer(snap);
  }
  // Into pinned memory (a copy to pageable memory goes through the driver's own staging), read
  // from there by the writer.
  const std::size_t down = crc_at + std::size_t(pieces) * 4;
  if (!result || result->size() < down) {
    result.reset();
    result = device->alloc_pinned(down + down / 8 + 4096);
  }
  q.read(*result, 0, *out, 0, down);
  q.finish();
  const std::uint8_t* data = result->data();
  std::vector<std::uint32_t> piece_crc(pieces);
  if (pieces) std::memcpy(piece_crc.data(), data + crc_at, std::size_t(pieces) * 4);
  lap(times.download);
  std::uint32_t adler = 1;
  for (std::size_t s = 0; s < S; ++s) {
    const std::size_t end = s + 1 < S ? seg.starts[s + 1] : n;
    adler = png::adler32_combine(adler, seg_adler[s], end - seg.starts[s]);
  }
  std::vector<std::uint8_t> header;
  png::zlib_header(header, window_bits);
  const std::uint8_t trailer[4] = {std::uint8_t(adler >> 24), std::uint8_t(adler >> 16),
                                   std::uint8_t(adler >> 8), std::uint8_t(adler)};
  const png::PieceCrcs data_crcs{piece_crc.data(), pieces, kCrcPiece, kHeader};
  const std::vector<png::StreamPart> parts = {
      {header.data(), 2}, {data, total, &data_crcs}, {trailer, 4}};
  std::vector<std::uint8_t> file;
  if (compatible) {
    file = png::compatible_file(shape, parts);
  } else {
    std::vector<std::size_t> offsets(S);
    for (std::size_t s = 0; s < S; ++s) offsets[s] = 2 + std::size_t(seg_off[s]);
    file = png::parallel_file(shape, seg.first_row, offsets, parts);
  }
  lap(times.host);
  return file;
}

void detail::PngEncoderAccess::observe(PngEncoder& encoder, PngEncodeObserver observer) {
  encoder.impl_->observer = std::move(observer);
}

const PngEncoder::StageTimes& PngEncoder::stage_times() const { return impl_->times; }
void PngEncoder::reset_stage_times() { impl_->times = StageTimes{}; }

bool PngEncoder::last_deflated_on_device() const { return impl_->on_device; }

PngEncoder::PngEncoder(const std::string& spec, PngEncodeOptions options)
    : PngEncoder(open_device(spec), options) {}

PngEncoder::PngEncoder(std::shared_ptr<Device> device, PngEncodeOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "PngEncoder: no device");
  impl_->device = std::move(device);
  if (options.threads <= 0)
    options.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  impl_->options = options;
}

PngEncoder::~PngEncoder() = default;

Device& PngEncoder::device() { return *impl_->device; }

namespace {

png::Raster shape_of(int width, int height, int channels, int bit_depth) {
  png::Raster shape;  // the size and format; the samples stay where they are
  shape.width = width;
  shape.height = height;
  shape.channels = channels;
  shape.bit_depth = bit_depth;
  return shape;
}

// The layout in core/png's terms (a Raster without samples).
png::Raster raster_of(const PngLayout& layout, int width, int height) {
  png::Raster r = shape_of(width, height, PngLayout::channels(layout.color), layout.bit_depth);
  const int type = int(layout.color);
  if (type != 0 && type != 2 && type != 3 && type != 4 && type != 6)
    throw Error(ErrorCode::InvalidArgument,
                "png: colour type " + std::to_string(type) + " (PNG defines 0, 2, 3, 4 and 6)");
  r.indexed = layout.color == PngLayout::Color::Palette;
  for (const auto& e : layout.palette) r.plte.insert(r.plte.end(), e.begin(), e.end());
  r.trns = layout.trns;
  return r;
}

}  // namespace

std::vector<std::uint8_t> PngEncoder::encode(const Image& image) {
  if (image.format == PixelFormat::CMYK)
    throw Error(ErrorCode::InvalidArgument, "png: a CMYK image has no PNG form");
  png::check_shape(image.width, image.height, image.channels(), image.bit_depth,
                   image.pixels.size());
  Impl& im = *impl_;
  const CountEncode counted;
  im.start(image.pixels.size());
  im.upload(image.pixels.data(), image.pixels.size());
  im.lap(im.times.upload);
  png::Raster shape = shape_of(image.width, image.height, image.channels(), image.bit_depth);
  shape.metadata = &image.metadata;
  return im.finish(shape);
}

std::vector<std::uint8_t> PngEncoder::encode(const Image& image, const PngLayout& layout) {
  png::Raster stored = raster_of(layout, image.width, image.height);
  png::check_layout(stored);
  // A layout that stores the samples as they are (8 or 16 bits, no palette, no key): the
  // image goes up itself.
  if (!stored.indexed && stored.bit_depth >= 8 && stored.trns.empty()) {
    if (image.format != layout.expanded_format() || image.bit_depth != stored.bit_depth)
      throw Error(ErrorCode::InvalidArgument, std::string("png: a ") + to_string(image.format) +
                                                  " image of " + std::to_string(image.bit_depth) +
                                                  " bits for colour type " +
                                                  std::to_string(stored.color_type()) + " at " +
                                                  std::to_string(stored.bit_depth) + " bits");
    return encode(image);
  }
  Impl& im = *impl_;
  const CountEncode counted;
  const auto t0 = detail::StageClock::Clock::now();
  png::pack_expanded(image, stored);
  im.start(stored.samples.size());
  im.clock.mark = t0;  // (the mapping counts as the upload's)
  im.upload(stored.samples.data(), stored.samples.size());
  im.lap(im.times.upload);
  stored.samples = {};
  stored.metadata = &image.metadata;
  return im.finish(stored);
}

std::vector<std::uint8_t> PngEncoder::encode(const DeviceImage& image) {
  if (!image.buffer)
    throw Error(ErrorCode::InvalidArgument, "png: a device image without a buffer");
  if (image.format == PixelFormat::CMYK)
    throw Error(ErrorCode::InvalidArgument, "png: a CMYK image has no PNG form");
  const int ch = image.channels();
  png::check_shape(image.width, image.height, ch, image.bit_depth, image.bytes());
  Impl& im = *impl_;
  im.start(image.bytes());
  im.queue->copy(*im.rows, 0, *image.buffer, image.offset, image.bytes());
  im.lap(im.times.upload);
  png::Raster shape = shape_of(image.width, image.height, ch, image.bit_depth);
  shape.metadata = &image.metadata;
  return im.finish(shape);
}

std::vector<std::uint8_t> PngEncoder::Impl::finish(const png::Raster& shape) {
  Impl& im = *this;
  const std::size_t rb = shape.row_bytes();
  if (rb > PngFilterInfo::kMaxPngRowBytes)
    throw Error(ErrorCode::LimitExceeded,
                "png: rows of " + std::to_string(rb) + " bytes (the encoder takes at most 2^28)");
  if (im.options.mode == PngMode::Small && !png::small_deflate_available())
    throw Error(ErrorCode::Unsupported,
                "png: the small mode needs libdeflate, which this build lacks");
  Device& dev = *im.device;
  const std::size_t out_bytes = (rb + 1) * std::size_t(shape.height);
  // The device deflate reads the rows as 8-byte words: room for the last one, zeroed once
  // (whatever image comes later, the bytes past its rows were written by one before it).
  const std::size_t padded = (out_bytes + 7) / 8 * 8;
  if (!im.filtered || im.filtered->size() < padded) {
    im.filtered.reset();
    im.filtered = dev.alloc(padded);
    const std::uint8_t zeros[8] = {};
    if (padded > out_bytes) im.queue->write(*im.filtered, out_bytes, zeros, padded - out_bytes);
  }
  PngFilterInfo info;
  info.height = std::uint32_t(shape.height);
  info.row_bytes = std::uint32_t(rb);
  info.bpp = std::uint32_t(shape.filter_bpp());
  info.mask = png::libpng_filter_mask_of(shape);  // None alone for palette and low depths
  if (im.options.mode != PngMode::Compatible) info.band_rows = png::kParallelBandRows;
  dev.png().filter_rows(*im.queue, *im.rows, *im.filtered, info);
  im.lap(im.times.filter);
  if (im.observer) {
    im.queue->finish();
    detail::PngEncodeSnapshot snap{"filtered", *im.queue, *im.rows, *im.filtered, out_bytes};
    snap.filter = info;
    im.observer(snap);
  }
  if (im.options.profile) ++im.times.images;
  im.on_device = false;
  const bool device_deflate = im.options.mode != PngMode::Small &&
                              (im.options.deflate == PngDeflate::Device ||
                               (im.options.deflate == PngDeflate::Auto &&
                                dev.info().kind != DeviceKind::Cpu && !dev.info().is_emulator));
  if (device_deflate) {
    std::vector<std::uint8_t> file;
    try {
      file = im.device_file(shape);
    } catch (const Error& e) {
      // Too little device memory for the deflate's buffers (about three times the filtered
      // rows): the host makes the stream from the rows instead. Anything else is reported.
      if (e.code() != ErrorCode::OutOfMemory) throw;
      im.plan.reset();
      im.plan_sent = false;
      im.work.reset();
      im.syms.reset();
      im.out.reset();
    }
    if (!file.empty()) {
      im.on_device = true;
      return file;
    }
  }
  std::vector<std::uint8_t> filtered(out_bytes);
  im.queue->read(filtered.data(), *im.filtered, 0, out_bytes);
  im.queue->finish();
  im.lap(im.times.download);
  std::vector<std::uint8_t> file;
  if (im.options.mode == PngMode::Compatible)
    file = png::assemble_compatible(shape, filtered, im.options.threads);
  else if (im.options.mode == PngMode::Small)
    file = png::assemble_small(shape, filtered, im.segment_count(), im.options.threads);
  else
    file = png::assemble_parallel(shape, filtered, im.segment_count(), im.options.threads);
  im.lap(im.times.host);
  return file;
}

}  // namespace hetcodec
