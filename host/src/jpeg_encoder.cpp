// The JPEG encode pipeline (DESIGN.md §3 "JPEG encode"): the image goes to the device (or is
// already there), HC_JENC_BLOCKS makes the quantised blocks in coding order, and the Huffman
// coding runs either on the device (core/portable/jpeg_encode.h: each block's bits, prefix sums,
// packing, stuffing, markers) or on host threads from the blocks brought back
// (core/jpeg/encoder.h encode_scan); the host writes the markers around the data. With
// optimize_coding the symbol counts are made on the device and the tables built on the host as
// libjpeg's jpeg_gen_optimal_table builds them.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "backends/backend.h"
#include "core/jpeg/encoder.h"
#include "core/portable/jpeg_encode.h"
#include "hetcodec/jpeg_encode.h"
#include "host/src/parallel.h"
#include "host/src/pinned_upload.h"
#include "host/src/stage_clock.h"

namespace hetcodec {
namespace {

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, "jpeg encode: " + what);
}

// The input's pixel layout: bytes per pixel, and the byte of R, G, B (or the gray sample).
struct Layout {
  int bytes = 3;
  int off[3] = {0, 1, 2};
  bool gray = false;
};

Layout layout_of(JpegPixels p) {
  switch (p) {
    case JpegPixels::Gray:
      return {1, {0, 0, 0}, true};
    case JpegPixels::GrayAlpha:
      return {2, {0, 0, 0}, true};
    case JpegPixels::RGB:
      return {3, {0, 1, 2}, false};
    case JpegPixels::RGBA:
      return {4, {0, 1, 2}, false};
    case JpegPixels::BGR:
      return {3, {2, 1, 0}, false};
    case JpegPixels::BGRA:
      return {4, {2, 1, 0}, false};
  }
  bad("unknown pixel layout " + std::to_string(int(p)));
}

JpegPixels pixels_of(PixelFormat f, int bit_depth) {
  if (bit_depth != 8)
    bad("a " + std::to_string(bit_depth) + "-bit image (baseline JPEG holds 8-bit samples)");
  switch (f) {
    case PixelFormat::Gray:
      return JpegPixels::Gray;
    case PixelFormat::GrayAlpha:
      return JpegPixels::GrayAlpha;
    case PixelFormat::RGB:
      return JpegPixels::RGB;
    case PixelFormat::RGBA:
      return JpegPixels::RGBA;
    default:
      bad("a CMYK image (the encoder writes gray and YCbCr JPEG)");
  }
}

jpeg::EncodeOptions core_options(const JpegEncodeOptions& o, bool gray_input) {
  jpeg::EncodeOptions c;
  c.quality = o.quality;
  switch (o.sampling) {
    case JpegSampling::S444:
      c.h = c.v = 1;
      break;
    case JpegSampling::S422:
      c.h = 2;
      c.v = 1;
      break;
    case JpegSampling::S420:
      c.h = c.v = 2;
      break;
    case JpegSampling::S440:
      c.h = 1;
      c.v = 2;
      break;
    case JpegSampling::Gray:
      c.gray = true;
      break;
    default:
      bad("unknown sampling " + std::to_string(int(o.sampling)));
  }
  c.gray = c.gray || gray_input;
  c.restart_interval = o.restart_interval;
  c.restart_rows = o.restart_rows;
  c.optimize = o.optimize;
  c.base_tables = o.quant_tables;
  return c;
}

void check_options(const JpegEncodeOptions& o) {
  if (o.batch_streams < 1 || o.batch_streams > 16)
    bad("batch streams " + std::to_string(o.batch_streams) + " is not 1..16");
  // core_options checks the sampling, plan_encode the rest.
  jpeg::plan_encode(8, 8, 3, core_options(o, false));
}

}  // namespace

struct JpegEncoder::Impl {
  std::shared_ptr<Device> device;
  JpegEncodeOptions options;
  std::unique_ptr<Queue> queue;
  std::unique_ptr<DeviceBuffer> pixels, plan, work, data, coefs, out;
  std::unique_ptr<PinnedBuffer> staging;  // samples up, data down
  detail::WorkerPool pool;
  StageTimes times;
  // encode_batch: encoders of the same device for the other streams, and their threads.
  std::vector<std::unique_ptr<JpegEncoder>> streams;
  detail::WorkerPool batch_pool;
  detail::StageClock clock;
  void lap(double& slot) { clock.lap(*queue, slot); }
  void ensure(std::unique_ptr<DeviceBuffer>& b, std::size_t n) {
    detail::ensure_buffer(*device, b, n);
  }
  // The staging buffer grown to n bytes; a transfer from it still in flight (the upload) is
  // waited for before it goes.
  void ensure_pinned(std::size_t n) {
    if (!staging || staging->size() < n) {
      if (staging && queue) queue->finish();
      staging.reset();
      staging = device->alloc_pinned(std::max<std::size_t>(n + n / 8, 4096));
    }
  }
  bool entropy_on_device() const {
    if (options.entropy == JpegEntropy::Auto) return device->info().kind != DeviceKind::Cpu;
    return options.entropy == JpegEntropy::Device;
  }
  void start() {
    if (!queue) queue = device->create_queue();
    clock.on = options.profile;
    clock.start();
  }
  // Host samples to `pixels` (host/src/pinned_upload.h), copied into pinned memory on up to 8
  // threads while the transfers run.
  void upload(const std::uint8_t* src, std::size_t bytes) {
    ensure(pixels, bytes);
    detail::upload_pinned(*device, *queue, *pixels, src, bytes, staging, pool,
                          std::min(options.threads, 8));
  }
  std::vector<std::uint8_t> encode(const DeviceBuffer& px, std::size_t offset, int width,
                                   int height, const Layout& layout, const Metadata* metadata);
};

namespace {

// The kernels' plan for an image (core/portable/jpeg_encode.h): the geometry, the quantisation
// tables, the code tables, and the work buffer's layout for `data_words` of packed data.
std::vector<std::uint32_t> kernel_plan(const jpeg::EncodePlan& p, const jpeg::EncodeTables& t,
                                       std::size_t pixel_offset, int pixel_bytes,
                                       const int* off, bool gray_in, std::uint32_t data_words,
                                       std::uint32_t ff_entries) {
  std::vector<std::uint32_t> words(HC_JENC_PLAN_TOTAL_WORDS, 0);
  static_assert(sizeof(hc_jenc_plan) <= HC_JENC_PLAN_WORDS * 4, "plan header too large");
  hc_jenc_plan h{};
  h.width = std::uint32_t(p.width);
  h.height = std::uint32_t(p.height);
  h.comps = std::uint32_t(p.comps);
  h.pixel_bytes = std::uint32_t(pixel_bytes);
  for (int i = 0; i < 3; ++i) h.off[i] = std::uint32_t(off[i]);
  h.gray_in = gray_in ? 1 : 0;
  h.pixels_lo = std::uint32_t(pixel_offset);
  h.pixels_hi = std::uint32_t(std::uint64_t(pixel_offset) >> 32);
  h.hmax = std::uint32_t(p.comps == 1 ? 1 : p.hmax);
  h.vmax = std::uint32_t(p.comps == 1 ? 1 : p.vmax);
  std::uint32_t first = 0;
  for (int c = 0; c < 3; ++c) {
    const bool has = c < p.comps;
    h.h[c] = std::uint32_t(has ? p.mcu_h(c) : 1);
    h.v[c] = std::uint32_t(has ? p.mcu_v(c) : 1);
    h.bw[c] = std::uint32_t(has ? p.bw[c] : 1);
    h.bh[c] = std::uint32_t(has ? p.bh[c] : 1);
    h.first[c] = has ? first : 0xFFFFFFFFu;
    if (has) first += h.h[c] * h.v[c];
  }
  h.mcus_x = std::uint32_t(p.mcus_x);
  h.mcus_y = std::uint32_t(p.mcus_y);
  h.bpm = std::uint32_t(p.blocks_per_mcu);
  h.interval = std::uint32_t(p.restart_interval > 0 ? std::uint64_t(p.restart_interval) : p.mcus());
  h.intervals = std::uint32_t(p.intervals());
  h.blocks = std::uint32_t(p.blocks());
  h.pos_count = h.blocks + 1;
  h.interval_count = h.intervals + 1;
  std::uint32_t w = 0;
  auto take = [&](std::uint32_t n) {
    const std::uint32_t at = w;
    w += (n + 3) / 4 * 4;  // 16-byte aligned arrays
    return at;
  };
  h.w_pos = take(h.pos_count);
  h.w_intervals = take(h.interval_count);
  h.w_sums = take(HC_JENC_SCAN_GROUPS);
  h.w_results = take(HC_JENC_RESULT_WORDS);
  h.w_hist = take(HC_JENC_HIST_WORDS);
  w = 0;  // the data buffer
  h.w_ff = take(ff_entries);
  h.w_data = take(data_words);
  h.data_words = data_words;
  // The stages that loop over the packed words: an item per word, up to HC_JENC_LOOP_ITEMS.
  h.loop_items = std::max<std::uint32_t>(1, std::min<std::uint32_t>(data_words, HC_JENC_LOOP_ITEMS));
  // A scan's work-group takes at least 1024 entries, the histogram's 256 blocks.
  auto groups = [](std::uint64_t entries, std::uint32_t per, std::uint32_t most) {
    return std::uint32_t(std::clamp<std::uint64_t>((entries + per - 1) / per, 1, most));
  };
  h.scan_groups[HC_JENC_SCAN_POS] = groups(h.pos_count, 1024, HC_JENC_SCAN_GROUPS);
  h.scan_groups[HC_JENC_SCAN_INTERVALS] = groups(h.interval_count, 1024, HC_JENC_SCAN_GROUPS);
  h.scan_groups[HC_JENC_SCAN_FF] = groups(ff_entries, 1024, HC_JENC_SCAN_GROUPS);
  h.hist_groups = groups(h.blocks, 256, HC_JENC_HIST_GROUPS);
  std::memcpy(words.data(), &h, sizeof(h));
  for (int q = 0; q < 2; ++q)
    for (int i = 0; i < 64; ++i)
      words[std::size_t(HC_JENC_QUANT_WORD + 64 * q + i)] = std::uint32_t(p.quant[q][i]);
  static const int kNatural[64] = HC_JPEG_NATURAL_ORDER;
  std::copy(kNatural, kNatural + 64, words.begin() + HC_JENC_ZIGZAG_WORD);
  const jpeg::HuffmanTable* tables[4] = {&t.dc[0], &t.ac[0], &t.dc[1], &t.ac[1]};
  for (int k = 0; k < 4; ++k) {
    const auto codes = jpeg::derive_codes(*tables[k]);
    std::copy(codes.begin(), codes.end(), words.begin() + HC_JENC_CODES_WORD + 256 * k);
  }
  return words;
}

// Words of the work buffer, and of the data buffer.
std::size_t work_words(const std::vector<std::uint32_t>& plan) {
  const auto* h = reinterpret_cast<const hc_jenc_plan*>(plan.data());
  return std::size_t(h->w_hist) + HC_JENC_HIST_WORDS;
}
std::size_t data_words(const std::vector<std::uint32_t>& plan) {
  const auto* h = reinterpret_cast<const hc_jenc_plan*>(plan.data());
  return std::size_t(h->w_data) + h->data_words;
}

}  // namespace

std::vector<std::uint8_t> JpegEncoder::Impl::encode(const DeviceBuffer& px, std::size_t offset,
                                                    int width, int height, const Layout& layout,
                                                    const Metadata* metadata) {
  const jpeg::EncodePlan p = jpeg::plan_encode(width, height, 3, core_options(options, layout.gray));
  if (p.blocks() >= (std::uint64_t(1) << 31) / 64)
    throw Error(ErrorCode::LimitExceeded,
                "jpeg encode: " + std::to_string(p.blocks()) + " blocks (2^25 at most)");
  jpeg::EncodeTables tables = jpeg::standard_encode_tables();
  const std::uint32_t n = std::uint32_t(p.blocks());
  JpegEncodeKernels& k = device->jpeg_encode();
  // A first layout without packed data: the stages up to the prefix sums need only its head.
  std::vector<std::uint32_t> kp =
      kernel_plan(p, tables, offset, layout.bytes, layout.off, layout.gray, 0, 0);
  ensure(plan, kp.size() * 4);
  ensure(coefs, std::size_t(n) * 128);
  ensure(work, work_words(kp) * 4);
  auto run = [&](int stage, std::uint32_t arg = 0) {
    const auto* h = reinterpret_cast<const hc_jenc_plan*>(kp.data());
    // The data and output buffers are made once their sizes are known; the stages before that
    // get the work buffer in their place (and do not touch it through them).
    k.stage(*queue, stage, arg, hc_jenc_items(h, stage, arg), px, *plan, *work,
            data ? *data : *work, *coefs, out ? *out : *work);
  };
  auto scan = [&](std::uint32_t which) {
    run(HC_JENC_REDUCE, which);
    run(HC_JENC_SCAN_SUMS, which);
    run(HC_JENC_DOWNSWEEP, which);
  };
  queue->write(*plan, 0, kp.data(), kp.size() * 4);
  run(HC_JENC_BLOCKS);
  lap(times.transform);
  // The prefix of the work buffer keeps its layout in every plan of this image.
  const std::size_t w_results = reinterpret_cast<const hc_jenc_plan*>(kp.data())->w_results;
  const std::size_t w_hist = reinterpret_cast<const hc_jenc_plan*>(kp.data())->w_hist;
  if (p.optimize) {
    run(HC_JENC_HIST);
    std::vector<std::uint32_t> counts(HC_JENC_HIST_WORDS);
    queue->read(counts.data(), *work, w_hist * 4, counts.size() * 4);
    tables = jpeg::optimal_encode_tables(counts.data());
    kp = kernel_plan(p, tables, offset, layout.bytes, layout.off, layout.gray, 0, 0);
    queue->write(*plan, 0, kp.data(), kp.size() * 4);
    lap(times.entropy);  // (the symbol counts and the tables are the Huffman coding's)
  }
  std::vector<std::uint8_t> file = jpeg::write_headers(p, tables, metadata);
  const std::size_t head_bytes = file.size();
  lap(times.host);
  if (!entropy_on_device()) {
    // The blocks are coded where they land, in pinned memory (int16-aligned).
    const std::size_t block_bytes = std::size_t(n) * 128;
    ensure_pinned(block_bytes);
    queue->read(*staging, 0, *coefs, 0, block_bytes);
    queue->finish();
    lap(times.download);
    const auto data = jpeg::encode_scan(
        p, tables, reinterpret_cast<const std::int16_t*>(staging->data()), options.threads);
    file.insert(file.end(), data.begin(), data.end());
    file.insert(file.end(), {0xFF, 0xD9});
    lap(times.entropy);
    return file;
  }
  run(HC_JENC_BITS);
  scan(HC_JENC_SCAN_POS);
  run(HC_JENC_INTERVALS);
  scan(HC_JENC_SCAN_INTERVALS);
  std::uint32_t totals[HC_JENC_RESULT_WORDS];
  queue->read(totals, *work, w_results * 4, sizeof(totals));
  // The packed bytes are known now: the data buffer gets room for them and their 0xFF counts.
  const std::uint32_t bytes = totals[HC_JENC_R_TOTAL + HC_JENC_SCAN_INTERVALS];
  if (bytes > 0x7FFFFFFFu - 64u || std::uint64_t(totals[0]) + 8 * p.intervals() >= (1ull << 32))
    throw Error(ErrorCode::LimitExceeded,
                "jpeg encode: more than 2^31 bytes of entropy-coded data");
  const std::uint32_t packed_words = (bytes + 3) / 4 + 1;
  const std::uint32_t chunks = bytes / HC_JENC_FF_CHUNK + 2;
  kp = kernel_plan(p, tables, offset, layout.bytes, layout.off, layout.gray, packed_words, chunks);
  queue->write(*plan, 0, kp.data(), kp.size() * 4);
  ensure(data, data_words(kp) * 4);
  const std::uint64_t out_max = 2ull * bytes + 2 * p.intervals() + 16;
  ensure(out, out_max);
  run(HC_JENC_CLEAR);
  run(HC_JENC_PACK);
  run(HC_JENC_COUNT_FF);
  scan(HC_JENC_SCAN_FF);
  run(HC_JENC_SCATTER);
  run(HC_JENC_MARKERS);
  queue->read(totals, *work, w_results * 4, sizeof(totals));
  lap(times.entropy);
  const std::size_t data_bytes = std::size_t(bytes) + totals[HC_JENC_R_TOTAL + HC_JENC_SCAN_FF] +
                                 2 * (std::size_t(p.intervals()) - 1);
  ensure_pinned(data_bytes);
  queue->read(*staging, 0, *out, 0, data_bytes);
  queue->finish();
  file.resize(head_bytes + data_bytes + 2);
  std::memcpy(file.data() + head_bytes, staging->data(), data_bytes);
  file[head_bytes + data_bytes] = 0xFF;
  file[head_bytes + data_bytes + 1] = 0xD9;
  lap(times.download);
  return file;
}

JpegEncoder::JpegEncoder(const std::string& spec, JpegEncodeOptions options)
    : JpegEncoder(open_device(spec), std::move(options)) {}

JpegEncoder::JpegEncoder(std::shared_ptr<Device> device, JpegEncodeOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "JpegEncoder: no device");
  impl_->device = std::move(device);
  set_options(options);
}

JpegEncoder::~JpegEncoder() = default;

Device& JpegEncoder::device() { return *impl_->device; }
const JpegEncodeOptions& JpegEncoder::options() const { return impl_->options; }

void JpegEncoder::set_options(const JpegEncodeOptions& options) {
  check_options(options);
  impl_->options = options;
  if (impl_->options.threads <= 0)
    impl_->options.threads = int(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<std::uint8_t> JpegEncoder::encode(const std::uint8_t* pixels, std::size_t size,
                                              int width, int height, JpegPixels layout) {
  const Layout l = layout_of(layout);
  if (width < 1 || height < 1) bad("an image of " + std::to_string(width) + "x" +
                                   std::to_string(height) + " pixels");
  const std::size_t need = std::size_t(width) * std::size_t(height) * std::size_t(l.bytes);
  if (!pixels || size != need)
    bad(std::to_string(size) + " bytes of samples for " + std::to_string(width) + "x" +
        std::to_string(height) + " pixels of " + std::to_string(l.bytes) + " bytes (" +
        std::to_string(need) + " expected)");
  jpeg::plan_encode(width, height, 3, core_options(impl_->options, l.gray));  // checks the size
  Impl& im = *impl_;
  im.start();
  im.upload(pixels, need);
  im.lap(im.times.upload);
  auto file = im.encode(*im.pixels, 0, width, height, l, nullptr);
  ++im.times.images;
  return file;
}

std::vector<std::uint8_t> JpegEncoder::encode(const Image& image) {
  const JpegPixels layout = pixels_of(image.format, image.bit_depth);
  const Layout l = layout_of(layout);
  const std::size_t need =
      std::size_t(std::max(image.width, 0)) * std::size_t(std::max(image.height, 0)) * l.bytes;
  if (image.width < 1 || image.height < 1)
    bad("an image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
        " pixels");
  if (image.pixels.size() != need)
    bad(std::to_string(image.pixels.size()) + " bytes of samples for " +
        std::to_string(image.width) + "x" + std::to_string(image.height) + " pixels (" +
        std::to_string(need) + " expected)");
  jpeg::plan_encode(image.width, image.height, 3, core_options(impl_->options, l.gray));
  Impl& im = *impl_;
  im.start();
  im.upload(image.pixels.data(), need);
  im.lap(im.times.upload);
  auto file = im.encode(*im.pixels, 0, image.width, image.height, l,
                        im.options.keep_metadata ? &image.metadata : nullptr);
  ++im.times.images;
  return file;
}

std::vector<std::uint8_t> JpegEncoder::encode(const DeviceImage& image) {
  if (!image.buffer) bad("a device image without a buffer");
  const JpegPixels layout = pixels_of(image.format, image.bit_depth);
  const Layout l = layout_of(layout);
  if (image.width < 1 || image.height < 1)
    bad("an image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
        " pixels");
  if (image.offset > image.buffer->size() || image.buffer->size() - image.offset < image.bytes())
    bad("a device image whose samples run past its buffer");
  Impl& im = *impl_;
  im.start();
  auto file = im.encode(*image.buffer, image.offset, image.width, image.height, l,
                        im.options.keep_metadata ? &image.metadata : nullptr);
  ++im.times.images;
  return file;
}

std::vector<std::vector<std::uint8_t>> JpegEncoder::encode_batch(const std::vector<Image>& images,
                                                                 BatchErrors* errors) {
  Impl& im = *impl_;
  std::vector<std::vector<std::uint8_t>> files(images.size());
  BatchErrors failed(images.size());
  const int n = int(std::min<std::size_t>(std::size_t(im.options.batch_streams), images.size()));
  while (int(im.streams.size()) < n - 1)
    im.streams.push_back(std::make_unique<JpegEncoder>(im.device, im.options));
  std::atomic<std::size_t> next{0};
  im.batch_pool.run(n, [&](int t) {
    JpegEncoder& e = t == 0 ? *this : *im.streams[std::size_t(t - 1)];
    if (t > 0) e.impl_->options = im.options;
    for (std::size_t i; (i = next.fetch_add(1)) < images.size();) {
      try {
        files[i] = e.encode(images[i]);
      } catch (const Error& x) {
        failed[i] = x;
      } catch (const std::exception& x) {  // (std::bad_alloc and the like)
        failed[i] = Error(ErrorCode::OutOfMemory, x.what());
      }
    }
  });
  for (const auto& s : im.streams) {  // the other streams' times, into this encoder's
    StageTimes& t = s->impl_->times;
    im.times.upload += t.upload;
    im.times.transform += t.transform;
    im.times.entropy += t.entropy;
    im.times.download += t.download;
    im.times.host += t.host;
    im.times.images += t.images;
    t = StageTimes{};
  }
  if (!errors) {
    for (std::size_t i = 0; i < images.size(); ++i)
      if (failed[i])
        throw Error(failed[i]->code(), "image " + std::to_string(i) + ": " + failed[i]->what());
  } else {
    *errors = std::move(failed);
  }
  return files;
}

const JpegEncoder::StageTimes& JpegEncoder::stage_times() const { return impl_->times; }
void JpegEncoder::reset_stage_times() { impl_->times = StageTimes{}; }

}  // namespace hetcodec
