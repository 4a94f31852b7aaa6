// The PNG decode pipeline (DESIGN.md §3 "PNG decode"): core/png parses the chunks and inflates
// the image data into pinned memory (segment by segment on host threads when the file has an
// hcRS or iDOT index), one copy takes it to the device, PngKernels::defilter reconstructs each pass
// with the wavefront engine (or row by row when no row looks at the row above), and
// PngKernels::unpack expands the samples into the output image. Here: one file with its stages
// waited for in turn, and decode_batch on the batch engine (batch_engine.h); an indexed file
// whose device stages overlap its inflate is png_overlap.cpp's.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "core/png/checksum.h"
#include "core/png/layout.h"
#include "core/png/metadata.h"
#include "core/png/reader.h"
#include "core/portable/png_decode.h"
#include "core/portable/png_inflate.h"
#include "core/portable/wavefront.h"
#include "host/src/png_decoder_impl.h"
#include "host/src/pinned_copy.h"

namespace hetcodec {

PngDecoder::PngDecoder(const std::string& spec, PngDecodeOptions options)
    : PngDecoder(open_device(spec), options) {}

PngDecoder::PngDecoder(std::shared_ptr<Device> device, PngDecodeOptions options) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "PngDecoder: no device");
  if (options.threads <= 0)
    options.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  if (options.batch_streams <= 0) options.batch_streams = 1;
  options.max_inflated_bytes =
      std::min<std::uint64_t>(options.max_inflated_bytes, (1ull << 32) - 1);
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

PngLayout PngDecoder::layout(const std::uint8_t* data, std::size_t size) const {
  const png::Raster r = png::stored_layout(png::parse(data, size, impl_->limits()));
  PngLayout out;
  out.color = PngLayout::Color(r.color_type());
  out.bit_depth = r.bit_depth;
  for (std::size_t i = 0; i + 2 < r.plte.size(); i += 3)
    out.palette.push_back({r.plte[i], r.plte[i + 1], r.plte[i + 2]});
  out.trns = r.trns;
  return out;
}

// The filter types are checked here (on the device: their largest), and each pass learns
// whether its rows are independent, or its tile rows bands (PngDefilterInfo::bands).
std::vector<PngDefilterInfo> PngDecoder::Impl::defilter_passes(const png::Info& info, int max_type,
                                                               std::size_t& scratch_bytes) const {
  std::vector<PngDefilterInfo> work;
  for (const png::Pass& p : png::passes(info)) {
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
  return work;
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
  img.metadata = png::read_metadata(info, limits().max_chunk_bytes, img.warnings);
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
  std::size_t scratch_bytes = 4;
  const std::vector<PngDefilterInfo> work = defilter_passes(info, max_type, scratch_bytes);
  times.inflate += since(t_host);

  // Each stage is waited for, so that its time is its own (one image at a time, the stages
  // depend on each other anyway).
  auto t1 = Clock::now();
  ensure(scratch, scratch_bytes, [&](std::size_t n) { return device->alloc(n); });
  if (!job) job = device->alloc(HC_PNG_JOB_BYTES);
  if (!times.inflated_on_device) queue->write(*rows, 0, *staging, 0, total);
  const hc_png_job job_record = png::unpack_job(info);
  queue->write(*job, 0, &job_record, sizeof job_record);
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

bool PngDecoder::Impl::inflate_on_device(const std::uint8_t* data, const png::Info& info,
                                         int& max_type) {
  const std::vector<std::uint32_t> table = png::inflate_table(info);
  if (table.empty()) return false;
  const auto t0 = Clock::now();
  const std::size_t n = table.size() / HC_INF_WORDS;
  const std::size_t table_bytes = table.size() * 4;
  // The segment table, then the joined IDAT data, in one pinned buffer.
  ensure(inflate_in, table_bytes + info.idat_bytes,
         [&](std::size_t b) { return device->alloc_pinned(b); });
  detail::copy_to_pinned(inflate_in->data(), table.data(), table_bytes);
  std::uint8_t* joined = inflate_in->data() + table_bytes;
  for (const auto& [off, len] : info.idat) {
    detail::copy_to_pinned(joined, data + off, len);
    joined += len;
  }
  const std::uint32_t stream_adler = std::uint32_t(joined[-4]) << 24 |
                                     std::uint32_t(joined[-3]) << 16 |
                                     std::uint32_t(joined[-2]) << 8 | joined[-1];
  times.inflate += since(t0);
  auto t1 = Clock::now();
  ensure(segment_table, table_bytes, [&](std::size_t b) { return device->alloc(b); });
  ensure(compressed, std::max<std::size_t>(info.idat_bytes, 1),
         [&](std::size_t b) { return device->alloc(b); });
  ensure(results, n * HC_INF_RESULT_WORDS * 4, [&](std::size_t b) { return device->alloc(b); });
  ensure(inflate_results, n * HC_INF_RESULT_WORDS * 4,
         [&](std::size_t b) { return device->alloc_pinned(b); });
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
  // Out of pinned memory into the vector on several threads (one thread's copy took longer
  // than the transfer itself for a 2040x1356 RGB image), piece by piece as the
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
  img.metadata = std::move(d.metadata);
}

std::vector<Image> PngDecoder::decode_batch(const std::vector<Input>& inputs, BatchErrors* errors) {
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
