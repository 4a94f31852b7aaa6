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
#include "host/src/jpeg_encoder_access.h"
#include "host/src/parallel.h"
#include "host/src/pinned_registry.h"
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
  if (o.batch_images < 0 || o.batch_images > 4096)
    bad("batch images " + std::to_string(o.batch_images) + " is not 0..4096");
  // core_options checks the sampling, plan_encode the rest.
  jpeg::plan_encode(8, 8, 3, core_options(o, false));
}

// One image of a launch (core/portable/jpeg_encode.h codes a batch of images in each stage).
struct Piece {
  std::size_t offset = 0;  // its first sample's byte in the pixels buffer
  int width = 0, height = 0;
  Layout layout;
  const Metadata* metadata = nullptr;
  jpeg::EncodePlan plan;
  jpeg::EncodeTables tables;
  std::vector<std::uint8_t>* file = nullptr;  // where the file goes
};

struct Item;
struct Launch;

// An image checked and planned: Error(InvalidArgument) for one JPEG cannot hold.
jpeg::EncodePlan plan_piece(int width, int height, const Layout& l, const JpegEncodeOptions& o) {
  if (width < 1 || height < 1)
    bad("an image of " + std::to_string(width) + "x" + std::to_string(height) + " pixels");
  jpeg::EncodePlan p = jpeg::plan_encode(width, height, 3, core_options(o, l.gray));
  if (p.blocks() >= (std::uint64_t(1) << 31) / 64)
    throw Error(ErrorCode::LimitExceeded,
                "jpeg encode: " + std::to_string(p.blocks()) + " blocks (2^25 at most)");
  return p;
}

}  // namespace

struct JpegEncoder::Impl {
  std::shared_ptr<Device> device;
  JpegEncodeOptions options;
  std::unique_ptr<Queue> queue;
  std::unique_ptr<Queue> upload_queue;  // a large image's samples, while its first bands run
  std::unique_ptr<DeviceBuffer> pixels, plan, work, data, coefs, out;
  std::unique_ptr<PinnedBuffer> staging;  // samples up, data down
  std::unique_ptr<PinnedBuffer> plan_staging;  // the plan up
  double data_per_block = 0;              // the last launch's entropy-coded bytes per block
  bool data_dirty = false;  // a launch stopped between HC_JENC_PACK and HC_JENC_SCATTER's end
  detail::JpegEncodeObserver observer;  // (the debugging tools': detail::JpegEncoderAccess)
  detail::WorkerPool pool;
  StageTimes times;
  // encode_batch: encoders of the same device for the other streams, and their threads.
  std::vector<std::unique_ptr<JpegEncoder>> streams;
  detail::WorkerPool batch_pool;
  int copy_share = 1;  // the streams of a batch at once (upload()'s and host coding's threads)
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
  // Host samples to `pixels` on q: those in a buffer of alloc_pinned's straight from it, in
  // parts of 2 MiB; the rest through the staging buffer (host/src/pinned_upload.h), copied into
  // it while the transfers run, on up to 8 threads and the encoder's share of the host threads
  // (copy_share encoders copying at once). on_part: as upload_pinned's.
  void upload(Queue& q, const std::vector<detail::UploadSpan>& spans,
              const std::function<void(std::size_t)>& on_part = {}) {
    ensure(pixels, spans.back().at + spans.back().bytes);
    std::vector<detail::UploadSpan> rest;
    // A run of pinned spans laid out in the pixels buffer as in their pinned buffer goes up in
    // one transfer (in parts of 2 MiB with on_part): a transfer has a fixed cost of several
    // microseconds, as much as half a megabyte's own time on the bus.
    for (std::size_t i = 0; i < spans.size();) {
      const detail::UploadSpan& s = spans[i];
      const detail::PinnedPlace from = detail::find_pinned(*device, s.src, s.bytes);
      if (!from.buffer) {
        rest.push_back(spans[i++]);
        continue;
      }
      std::size_t end = s.at + s.bytes;
      auto address = [](const std::uint8_t* p) { return reinterpret_cast<std::uintptr_t>(p); };
      for (++i; i < spans.size() && address(spans[i].src) - address(s.src) == spans[i].at - s.at &&
                detail::find_pinned(*device, spans[i].src, spans[i].bytes).buffer == from.buffer;
           ++i)
        end = spans[i].at + spans[i].bytes;
      const std::size_t bytes = end - s.at, part = on_part ? std::size_t(2) << 20 : bytes;
      for (std::size_t at = 0; at < bytes; at += part) {
        const std::size_t n = std::min(part, bytes - at);
        q.write(*pixels, s.at + at, *from.buffer, from.offset + at, n);
        if (on_part) on_part(s.at + at + n);
      }
    }
    if (!rest.empty())
      detail::upload_pinned(*device, q, *pixels, rest, staging, pool,
                            std::clamp(options.threads / copy_share, 1, 8), on_part);
  }
  // The files of images whose samples lie in `px`, in one launch per stage; with `banded`, the
  // one image's samples are uploaded from there to `px` (the pixels buffer) meanwhile.
  void encode(const DeviceBuffer& px, std::vector<Piece>& pieces,
              const std::vector<detail::UploadSpan>* banded = nullptr);
  // The same, a failed launch of several images tried again image by image, so that only the
  // image at fault fails (its error in failed[index[i]]).
  void encode_apart(const DeviceBuffer& px, std::vector<Piece>& pieces,
                    const std::vector<std::size_t>& index, BatchErrors& failed);
  // A launch's images: uploaded (from the host), encoded, counted. With `failed`, the errors
  // of the encoding go there, image by image; without, and for the rest (the upload, the
  // queue), they are thrown.
  void run(Launch& launch, BatchErrors* failed);
  // Images whose samples lie one after another in one buffer of alloc_pinned's (gaps of at
  // most a quarter of their bytes) are placed in the pixels buffer as they lie there, so that
  // they go up in one transfer.
  void keep_pinned_layout(Launch& launch);
  std::vector<std::uint8_t> one(Item item);
  // The images of a batch of `count` (those that failed their checks left out), in launches
  // spread over batch_streams streams.
  std::vector<std::vector<std::uint8_t>> batch(std::vector<Item>& items, std::size_t count,
                                               BatchErrors& failed);
};

namespace {

// Work-groups of HC_JENC_HIST for an image: one per 256 blocks, 1..HC_JENC_HIST_GROUPS.
std::uint32_t hist_groups(const jpeg::EncodePlan& p) {
  return std::uint32_t(std::clamp<std::uint64_t>((p.blocks() + 255) / 256, 1, HC_JENC_HIST_GROUPS));
}

// Image m's plan (core/portable/jpeg_encode.h) at `words`: the geometry, the quantisation
// tables, the code tables.
void image_plan(std::uint32_t* words, const Piece& piece) {
  const jpeg::EncodePlan& p = piece.plan;
  const Layout& l = piece.layout;
  static_assert(sizeof(hc_jenc_plan) <= HC_JENC_PLAN_WORDS * 4, "plan header too large");
  static_assert(HC_JENC_L_END <= HC_JENC_HIST_WORDS, "HC_JENC_BLOCKS's local words");
  hc_jenc_plan h{};
  h.width = std::uint32_t(p.width);
  h.height = std::uint32_t(p.height);
  h.comps = std::uint32_t(p.comps);
  h.pixel_bytes = std::uint32_t(l.bytes);
  for (int i = 0; i < 3; ++i) h.off[i] = std::uint32_t(l.off[i]);
  h.gray_in = l.gray ? 1 : 0;
  h.pixels_lo = std::uint32_t(piece.offset);
  h.pixels_hi = std::uint32_t(std::uint64_t(piece.offset) >> 32);
  h.hmax = std::uint32_t(p.comps == 1 ? 1 : p.hmax);
  h.vmax = std::uint32_t(p.comps == 1 ? 1 : p.vmax);
  std::uint32_t first = 0;
  for (int c = 0; c < 3; ++c) {
    const bool has = c < p.comps;
    h.h[c] = std::uint32_t(has ? p.mcu_h(c) : 1);
    h.v[c] = std::uint32_t(has ? p.mcu_v(c) : 1);
    h.hx[c] = h.hmax / h.h[c];
    h.vx[c] = h.vmax / h.v[c];
    // (jcprepct.c pads each plane to whole row groups of vmax pixel rows)
    h.last[c] = (h.height + h.vmax - 1) / h.vmax * h.v[c] - 1;
    h.bw[c] = std::uint32_t(has ? p.bw[c] : 1);
    h.bh[c] = std::uint32_t(has ? p.bh[c] : 1);
    h.first[c] = has ? first : 0xFFFFFFFFu;
    if (has) first += h.h[c] * h.v[c];
  }
  // (an MCU is 8 or 16 pixels either way: the sampling factors are 1 or 2)
  if (h.hmax > 2 || h.vmax > 2)
    throw Error(ErrorCode::Unsupported, "jpeg encode: sampling factors above 2");
  h.mcu_sx = h.hmax == 2 ? 4 : 3;
  h.mcu_sy = h.vmax == 2 ? 4 : 3;
  h.mcus_x = std::uint32_t(p.mcus_x);
  h.mcus_y = std::uint32_t(p.mcus_y);
  h.bpm = std::uint32_t(p.blocks_per_mcu);
  h.interval = std::uint32_t(p.restart_interval > 0 ? std::uint64_t(p.restart_interval) : p.mcus());
  h.intervals = std::uint32_t(p.intervals());
  h.blocks = std::uint32_t(p.blocks());
  h.hist_groups = hist_groups(p);
  std::fill(words, words + HC_JENC_PLAN_TOTAL_WORDS, 0u);
  std::memcpy(words, &h, sizeof(h));
  for (int q = 0; q < 2; ++q)
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t d = 8 * std::uint32_t(p.quant[q][i]);
      words[std::size_t(HC_JENC_QUANT_WORD + 64 * q + i)] = std::uint32_t(p.quant[q][i]);
      words[std::size_t(HC_JENC_RECIP_WORD + 64 * q + i)] =
          std::uint32_t((std::uint64_t(1) << 32) / d + 1);
    }
  static const int kNatural[64] = HC_JPEG_NATURAL_ORDER;
  for (int k = 0; k < 64; ++k) words[HC_JENC_ZZ_WORD + kNatural[k]] = std::uint32_t(k);
}

// The code tables of an image's plan.
void image_codes(std::uint32_t* words, const jpeg::EncodeTables& t) {
  const jpeg::HuffmanTable* tables[4] = {&t.dc[0], &t.ac[0], &t.dc[1], &t.ac[1]};
  for (int k = 0; k < 4; ++k) {
    const auto codes = jpeg::derive_codes(*tables[k]);
    std::copy(codes.begin(), codes.end(), words + HC_JENC_CODES_WORD + 256 * k);
  }
}

hc_jenc_batch& batch_header(std::vector<std::uint32_t>& plan) {
  return *reinterpret_cast<hc_jenc_batch*>(plan.data());
}

// The kernels' plan for a batch (core/portable/jpeg_encode.h): its header, image table and
// work-group map, each image's plan, and the work buffer's layout.
std::vector<std::uint32_t> batch_plan(const std::vector<Piece>& pieces, bool optimize) {
  static_assert(sizeof(hc_jenc_batch) <= HC_JENC_BATCH_WORDS * 4, "batch header too large");
  const std::uint32_t n = std::uint32_t(pieces.size());
  auto align = [](std::uint64_t w) { return std::uint32_t((w + 3) / 4 * 4); };  // 16 bytes
  hc_jenc_batch b{};
  b.images = n;
  b.optimize = optimize ? 1 : 0;
  std::vector<std::uint32_t> table((n + 1) * HC_JENC_TABLE_STRIDE);
  std::vector<std::uint32_t> group_img, hist_img;
  for (std::uint32_t m = 0; m <= n; ++m) {
    std::uint32_t* e = table.data() + m * HC_JENC_TABLE_STRIDE;
    e[HC_JENC_T_BLOCK] = b.blocks;
    e[HC_JENC_T_GROUP] = b.groups;
    e[HC_JENC_T_INTERVAL] = b.intervals;
    e[HC_JENC_T_HIST] = b.hist_groups;
    if (m == n) break;
    const jpeg::EncodePlan& p = pieces[m].plan;
    const std::uint32_t groups =
        std::uint32_t((p.blocks() + HC_JENC_GROUP_BLOCKS - 1) / HC_JENC_GROUP_BLOCKS);
    const std::uint32_t hist = optimize ? hist_groups(p) : 0;
    b.blocks += std::uint32_t(p.blocks());
    b.intervals += std::uint32_t(p.intervals());
    b.groups += groups;
    b.hist_groups += hist;
    group_img.insert(group_img.end(), groups, m);
    hist_img.insert(hist_img.end(), hist, m);
  }
  b.group_map = align(HC_JENC_TABLE_WORD + table.size());
  b.plans = align(std::uint64_t(b.group_map) + b.groups + b.hist_groups);
  b.pos_count = b.blocks + 1;
  std::uint32_t w = 0;
  auto take = [&](std::uint64_t count) {
    const std::uint32_t at = w;
    w = align(std::uint64_t(w) + count);
    return at;
  };
  b.w_pos = take(b.pos_count);
  b.w_intervals = take(b.intervals);
  b.w_sums = take(2 * HC_JENC_SCAN_STATUS_WORDS);
  b.w_results = take(HC_JENC_RESULT_WORDS);
  b.w_shares = take(std::uint64_t(b.blocks) * 4);  // (8 16-bit words a block)
  b.w_dc = take((std::uint64_t(b.blocks) + 1) / 2);
  b.w_hist = take(optimize ? std::uint64_t(n) * HC_JENC_HIST_WORDS : 0);
  std::vector<std::uint32_t> words(std::size_t(b.plans) + std::size_t(n) * HC_JENC_PLAN_TOTAL_WORDS,
                                   0);
  std::memcpy(words.data(), &b, sizeof(b));
  std::copy(table.begin(), table.end(), words.begin() + HC_JENC_TABLE_WORD);
  std::copy(group_img.begin(), group_img.end(), words.begin() + b.group_map);
  std::copy(hist_img.begin(), hist_img.end(), words.begin() + b.group_map + b.groups);
  for (std::uint32_t m = 0; m < n; ++m) {
    std::uint32_t* ip = words.data() + b.plans + std::size_t(m) * HC_JENC_PLAN_TOTAL_WORDS;
    image_plan(ip, pieces[m]);
    image_codes(ip, pieces[m].tables);
  }
  return words;
}

}  // namespace

void JpegEncoder::Impl::encode(const DeviceBuffer& px, std::vector<Piece>& pieces,
                               const std::vector<detail::UploadSpan>* banded) {
  const std::size_t n = pieces.size();
  for (Piece& piece : pieces) piece.tables = jpeg::standard_encode_tables();
  JpegEncodeKernels& k = device->jpeg_encode();
  std::vector<std::uint32_t> kp = batch_plan(pieces, options.optimize);
  const hc_jenc_batch head = batch_header(kp);  // (the fields up to the packed data's)
  ensure(plan, kp.size() * 4);
  ensure(coefs, std::size_t(head.blocks) * 128);
  ensure(work, (std::size_t(head.w_hist) + (head.optimize ? n * HC_JENC_HIST_WORDS : 0)) * 4);
  std::uint32_t bytes = 0;  // packed: a bound on them, then (once read back) the count
  auto run = [&](int stage, std::uint32_t arg = 0) {
    // The data and output buffers are made once their sizes are known; the stages before that
    // get the work buffer in their place (and do not touch it through them).
    k.stage(*queue, stage, arg, hc_jenc_items(&head, bytes, stage, arg), px, *plan, *work,
            data ? *data : *work, *coefs, out ? *out : *work);
  };
  auto plan_of = [&](std::size_t m) {
    return kp.data() + head.plans + m * HC_JENC_PLAN_TOTAL_WORDS;
  };
  // The plan goes up from pinned memory: a copy from pageable memory would hold this thread
  // until the transfers before it (a launch's samples) are done, and may hold other queues'.
  // (Each launch ends with the queue finished, so the pinned copy is free again by the next.)
  auto send_plan = [&] {
    const std::size_t plan_bytes = kp.size() * 4;
    if (!plan_staging || plan_staging->size() < plan_bytes)
      plan_staging =
          device->alloc_pinned(std::max<std::size_t>(plan_bytes + plan_bytes / 8, 65536));
    std::memcpy(plan_staging->data(), kp.data(), plan_bytes);
    queue->write(*plan, 0, *plan_staging, 0, plan_bytes);
  };
  send_plan();
  std::vector<std::unique_ptr<Event>> arrived;  // (kept until the queue is done with them)
  if (!banded) {
    run(HC_JENC_BLOCKS);
  } else {
    // The samples go up in parts on a queue of their own, and each band of HC_JENC_BLOCKS's
    // work-groups whose MCU rows are all in starts here once the transfer of its last part ends.
    if (!upload_queue) upload_queue = device->create_queue();
    const auto& ip = *reinterpret_cast<const hc_jenc_plan*>(plan_of(0));
    const std::size_t row_bytes = std::size_t(ip.width) * ip.pixel_bytes;
    const std::size_t total = banded->back().at + banded->back().bytes;
    std::uint32_t done = 0;
    upload(
        *upload_queue, *banded, [&](std::size_t sent) {
          std::uint64_t ready = head.groups;
          if (sent < total)
            ready = std::min<std::uint64_t>(
                ready, (sent / row_bytes >> ip.mcu_sy) * ip.mcus_x * ip.bpm / HC_JENC_GROUP_BLOCKS);
          if (ready <= done) return;
          arrived.push_back(upload_queue->record());
          queue->wait_for(*arrived.back());
          k.stage(*queue, HC_JENC_BLOCKS, done, std::uint32_t(ready) - done, px, *plan, *work,
                  *work, *coefs, *work);
          done = std::uint32_t(ready);
        });
  }
  lap(times.transform);
  auto observe = [&](const char* stage) {
    if (!observer) return;
    queue->finish();
    observer({stage, *queue, head, *work, data.get(), *coefs, kp, px});
  };
  observe("blocks");
  if (options.optimize) {
    run(HC_JENC_HIST);
    std::vector<std::uint32_t> counts(n * HC_JENC_HIST_WORDS);
    queue->read(counts.data(), *work, std::size_t(head.w_hist) * 4, counts.size() * 4);
    for (std::size_t m = 0; m < n; ++m) {
      pieces[m].tables = jpeg::optimal_encode_tables(counts.data() + m * HC_JENC_HIST_WORDS);
      image_codes(plan_of(m), pieces[m].tables);
    }
    send_plan();         // (the queue has finished: the counts were read)
    lap(times.entropy);  // (the symbol counts and the tables are the Huffman coding's)
  }
  for (Piece& piece : pieces)
    *piece.file = jpeg::write_headers(piece.plan, piece.tables, piece.metadata);
  lap(times.host);
  // The device's bit positions are 32-bit: a launch whose bits could reach 2^32 (a single image
  // of more than about 2.5 million blocks) is coded on host threads instead, which count in 64.
  const bool wide = std::uint64_t(head.blocks) * 1681 + 8ull * head.intervals >= (1ull << 32);
  if (!entropy_on_device() || wide) {
    // The blocks are coded where they land, in pinned memory (int16-aligned).
    const std::size_t block_bytes = std::size_t(head.blocks) * 128;
    ensure_pinned(block_bytes);
    queue->read(*staging, 0, *coefs, 0, block_bytes);
    queue->finish();
    lap(times.download);
    const auto* blocks = reinterpret_cast<const std::int16_t*>(staging->data());
    // The launch's images side by side on the encoder's share of the host threads (the
    // streams of a batch share them), each on its share of those where it is large enough to
    // be worth more than one (jpeg::scan_threads).
    const int threads = std::max(1, options.threads / copy_share);
    const int share = std::max(1, threads / int(std::min<std::size_t>(n, 1u << 16)));
    detail::parallel_for(
        n, threads,
        [&](std::size_t m) {
          const std::size_t first =
              kp[HC_JENC_TABLE_WORD + m * HC_JENC_TABLE_STRIDE + HC_JENC_T_BLOCK];
          const auto scan_data =
              jpeg::encode_scan(pieces[m].plan, pieces[m].tables, blocks + first * 64,
                                jpeg::scan_threads(pieces[m].plan, share));
          std::vector<std::uint8_t>& file = *pieces[m].file;
          file.insert(file.end(), scan_data.begin(), scan_data.end());
          file.insert(file.end(), {0xFF, 0xD9});
        },
        &pool);
    lap(times.entropy);
    return;
  }
  // The packed bytes are bounded by the blocks' most bits (a DC code and difference of 16 + 11
  // bits, 63 AC codes and values of 16 + 10, and 16 more as a margin) and a byte of padding an
  // interval: with room for that, the stages run without the host waiting to learn the packed
  // size. The room is held by the encoder (its buffers only grow), so a launch whose bound
  // passes kBoundedBytes (about 320000 blocks; real data is a tenth of the bound or less)
  // learns the packed size first instead.
  constexpr std::uint64_t kBoundedBytes = 64ull << 20;
  std::vector<std::uint32_t> results(HC_JENC_RESULT_WORDS + n);
  const std::uint64_t bound = (std::uint64_t(head.blocks) * 1681 + 7) / 8 + head.intervals;
  if (options.optimize) run(HC_JENC_BITS);
  run(HC_JENC_SCAN, HC_JENC_SCAN_POS);
  observe("positions");
  if (bound <= kBoundedBytes) {
    bytes = std::uint32_t(bound);
  } else {
    queue->read(results.data(), *work, std::size_t(head.w_results) * 4, HC_JENC_RESULT_WORDS * 4);
    bytes = results[HC_JENC_R_BYTES];
    if (bytes > 0x7FFFFFFFu - 64u)
      throw Error(ErrorCode::LimitExceeded,
                  "jpeg encode: more than 2^31 bytes of entropy-coded data");
  }
  // The packed data's buffer is all zeroes when HC_JENC_PACK starts (its work-groups OR the
  // words they share into it): zeroed when made, and after each use by HC_JENC_SCATTER, which
  // zeroes what it read (again here after a launch that stopped between the two).
  const std::size_t data_bytes_max =
      (std::size_t(hc_jenc_w_data(bytes)) + hc_jenc_data_words(bytes)) * 4;
  if (data_dirty || !data || data->size() < data_bytes_max) {
    ensure(data, data_bytes_max);
    queue->zero(*data, 0, data->size());
  }
  const std::size_t out_head = hc_jenc_out_head(&head);
  const std::uint64_t out_max = out_head + 2ull * bytes + 2ull * head.intervals + 16;
  const bool made = !out || out->size() < out_max;
  ensure(out, out_max);
  if (made) queue->zero(*out, 0, out->size());  // (read past the data: below)
  data_dirty = true;
  run(HC_JENC_PACK);
  observe("packed");
  run(HC_JENC_SCAN, HC_JENC_SCAN_FF);
  observe("stuffing");
  run(HC_JENC_SCATTER);
  // The output's header (the results and each image's first byte) and its data are read in one
  // transfer and one wait: as many bytes of the data as the last launch's bytes per block
  // foretell (with a margin), the rest after the wait if that was short. (The bytes read past
  // the data are zeroes or an earlier launch's, never uninitialised.) (Not while profiling,
  // whose split times the download apart.)
  const double foretold = clock.on ? 0 : data_per_block * head.blocks * (1 + 1.0 / 16);
  const std::size_t guess =
      foretold > 0 ? std::size_t(std::min<double>(double(out_max - out_head), foretold + 4096)) : 0;
  ensure_pinned(out_head + guess);
  queue->read(*staging, 0, *out, 0, out_head + guess);
  queue->finish();
  std::memcpy(results.data(), staging->data(), results.size() * 4);
  lap(times.entropy);
  const std::uint32_t packed = results[HC_JENC_R_BYTES];
  if (packed > bytes)
    throw Error(ErrorCode::DeviceError, "jpeg encode: " + std::to_string(packed) +
                                            " packed bytes, above their bound of " +
                                            std::to_string(bytes));
  data_dirty = false;  // (HC_JENC_SCATTER has zeroed what HC_JENC_PACK wrote)
  bytes = packed;
  const std::size_t data_bytes =
      std::size_t(bytes) + results[HC_JENC_R_FF] + 2 * (std::size_t(head.intervals) - n);
  data_per_block = double(data_bytes) / head.blocks;
  if (data_bytes > guess) {
    // (from the header on, if the staging buffer is made anew)
    const std::size_t from = staging->size() >= out_head + data_bytes ? out_head + guess : 0;
    ensure_pinned(out_head + data_bytes);
    queue->read(*staging, from, *out, from, out_head + data_bytes - from);
    queue->finish();
  }
  for (std::size_t m = 0; m < n; ++m) {
    const std::size_t from = results[HC_JENC_RESULT_WORDS + m];
    const std::size_t to = m + 1 < n ? results[HC_JENC_RESULT_WORDS + m + 1] : data_bytes;
    if (from > to || to > data_bytes)
      throw Error(ErrorCode::DeviceError, "jpeg encode: image " + std::to_string(m) +
                                           "'s data at bytes " + std::to_string(from) + ".." +
                                           std::to_string(to) + " of " +
                                           std::to_string(data_bytes));
    std::vector<std::uint8_t>& file = *pieces[m].file;
    const std::size_t head_bytes = file.size();
    file.resize(head_bytes + (to - from) + 2);
    std::memcpy(file.data() + head_bytes, staging->data() + out_head + from, to - from);
    file[file.size() - 2] = 0xFF;
    file[file.size() - 1] = 0xD9;
  }
  lap(times.download);
}

void JpegEncoder::Impl::encode_apart(const DeviceBuffer& px, std::vector<Piece>& pieces,
                                     const std::vector<std::size_t>& index,
                                     BatchErrors& failed) {
  auto fail = [&](std::size_t i, const Error& e) {
    failed[index[i]] = e;
    pieces[i].file->clear();
  };
  auto attempt = [&](std::vector<Piece>& ps, auto&& on_error) {
    try {
      encode(px, ps);
      return true;
    } catch (const Error& e) {
      on_error(e);
    } catch (const std::exception& e) {  // (std::bad_alloc and the like)
      on_error(Error(ErrorCode::OutOfMemory, e.what()));
    }
    return false;
  };
  if (pieces.size() == 1) {
    attempt(pieces, [&](const Error& e) { fail(0, e); });
    return;
  }
  if (attempt(pieces, [](const Error&) {})) return;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    std::vector<Piece> one{pieces[i]};
    attempt(one, [&](const Error& e) { fail(i, e); });
  }
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

namespace {

// An image of a batch, checked and planned.
struct Item {
  std::size_t index = 0;  // its place in the batch
  Piece piece;
  const std::uint8_t* host = nullptr;  // host samples (null: piece.offset in `buffer`)
  std::size_t bytes = 0;
  const DeviceBuffer* buffer = nullptr;
};

// An image of width x height pixels of layout l, planned (Error for one JPEG cannot hold).
Item item_of(int width, int height, const Layout& l, const Metadata* metadata,
             const JpegEncodeOptions& o) {
  Item it;
  it.piece.plan = plan_piece(width, height, l, o);
  it.piece.width = width;
  it.piece.height = height;
  it.piece.layout = l;
  it.piece.metadata = o.keep_metadata ? metadata : nullptr;
  jpeg::check_metadata(it.piece.metadata);  // (here, before the image joins a launch)
  return it;
}

Item host_item(const Image& image, const JpegEncodeOptions& o) {
  const Layout l = layout_of(pixels_of(image.format, image.bit_depth));
  const std::size_t need =
      std::size_t(std::max(image.width, 0)) * std::size_t(std::max(image.height, 0)) * l.bytes;
  if (image.width < 1 || image.height < 1)
    bad("an image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
        " pixels");
  if (image.pixels.size() != need)
    bad(std::to_string(image.pixels.size()) + " bytes of samples for " +
        std::to_string(image.width) + "x" + std::to_string(image.height) + " pixels (" +
        std::to_string(need) + " expected)");
  Item it = item_of(image.width, image.height, l, &image.metadata, o);
  it.host = image.pixels.data();
  it.bytes = need;
  return it;
}

Item device_item(const DeviceImage& image, const JpegEncodeOptions& o) {
  if (!image.buffer) bad("a device image without a buffer");
  const Layout l = layout_of(pixels_of(image.format, image.bit_depth));
  if (image.width < 1 || image.height < 1)
    bad("an image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
        " pixels");
  if (image.offset > image.buffer->size() || image.buffer->size() - image.offset < image.bytes())
    bad("a device image whose samples run past its buffer");
  Item it = item_of(image.width, image.height, l, &image.metadata, o);
  it.piece.offset = image.offset;
  it.buffer = image.buffer.get();
  return it;
}

// The images of one launch of the stages.
struct Launch {
  std::vector<std::size_t> index;
  std::vector<Piece> pieces;
  std::vector<detail::UploadSpan> spans;  // host samples, to the pixels buffer
  const DeviceBuffer* samples = nullptr;  // or the device buffer that holds them
};

// A launch holds up to `per` images, `most_pixels` pixels and 2^20 blocks (but always one
// image), all of them from the host or from the same device buffer.
std::vector<Launch> launches_of(std::vector<Item>& items, std::size_t per,
                                std::uint64_t most_pixels,
                                std::vector<std::vector<std::uint8_t>>& files) {
  const std::uint64_t kPixels = most_pixels, kBlocks = std::uint64_t(1) << 20;
  std::vector<Launch> out;
  std::uint64_t pixels = 0, blocks = 0;
  std::size_t at = 0;
  for (Item& it : items) {
    const std::uint64_t px = std::uint64_t(it.piece.width) * std::uint64_t(it.piece.height);
    const std::uint64_t bl = it.piece.plan.blocks();
    if (out.empty() || out.back().pieces.size() >= per || pixels + px > kPixels ||
        blocks + bl > kBlocks || out.back().samples != it.buffer) {
      out.emplace_back();
      out.back().samples = it.buffer;
      pixels = blocks = 0;
      at = 0;
    }
    Launch& l = out.back();
    pixels += px;
    blocks += bl;
    it.piece.file = &files[it.index];
    if (it.host) {
      it.piece.offset = at;
      l.spans.push_back({it.host, it.bytes, at});
      at = (at + it.bytes + 255) / 256 * 256;
    }
    l.index.push_back(it.index);
    l.pieces.push_back(it.piece);
  }
  return out;
}

}  // namespace

void JpegEncoder::Impl::keep_pinned_layout(Launch& l) {
  if (l.spans.size() < 2) return;
  const detail::PinnedPlace first = detail::find_pinned(*device, l.spans[0].src, l.spans[0].bytes);
  if (!first.buffer) return;
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < l.spans.size(); ++i) {
    const detail::PinnedPlace p = detail::find_pinned(*device, l.spans[i].src, l.spans[i].bytes);
    if (p.buffer != first.buffer ||
        (i > 0 && l.spans[i].src < l.spans[i - 1].src + l.spans[i - 1].bytes))
      return;
    bytes += l.spans[i].bytes;
  }
  const std::size_t range = std::size_t(l.spans.back().src + l.spans.back().bytes - l.spans[0].src);
  if (range > bytes + bytes / 4) return;
  for (std::size_t i = 0; i < l.spans.size(); ++i) {
    l.spans[i].at = std::size_t(l.spans[i].src - l.spans[0].src);
    l.pieces[i].offset = l.spans[i].at;
  }
}

void JpegEncoder::Impl::run(Launch& l, BatchErrors* failed) {
  start();
  // One large image from the host (not profiled, which times the upload apart): its first MCU
  // rows are made into blocks while the rest are on their way.
  if (!failed && !clock.on && l.pieces.size() == 1 && l.spans.size() == 1 &&
      l.spans[0].bytes >= (std::size_t(4) << 20) && device->info().kind != DeviceKind::Cpu) {
    ensure(pixels, l.spans[0].bytes);  // (before `pixels` is taken, so that it stays)
    encode(*pixels, l.pieces, &l.spans);
    times.images += 1;
    return;
  }
  const DeviceBuffer* px = l.samples;
  if (!l.spans.empty()) {
    keep_pinned_layout(l);
    upload(*queue, l.spans);
    lap(times.upload);
    px = pixels.get();
  }
  if (failed)
    encode_apart(*px, l.pieces, l.index, *failed);
  else
    encode(*px, l.pieces);
  times.images += l.pieces.size();
}

std::vector<std::uint8_t> JpegEncoder::Impl::one(Item item) {
  std::vector<std::vector<std::uint8_t>> files(1);
  std::vector<Item> items{std::move(item)};
  items[0].index = 0;
  auto launches = launches_of(items, 1, 1, files);
  run(launches[0], nullptr);
  return std::move(files[0]);
}

std::vector<std::vector<std::uint8_t>> JpegEncoder::Impl::batch(std::vector<Item>& items,
                                                                std::size_t count,
                                                                BatchErrors& failed) {
  std::vector<std::vector<std::uint8_t>> files(count);
  // By default the images are shared evenly among the streams in launches of up to 4
  // megapixels from the host: enough work per stage to fill the device, and launches short
  // enough that the streams' transfers and host steps overlap each other's kernels.
  std::size_t per = std::size_t(options.batch_images);
  std::uint64_t most_pixels = std::uint64_t(1) << 24;
  if (per == 0) {  // (a launch's plan holds 5.5 KiB an image: tiny images stop at 1024)
    per = std::clamp<std::size_t>((items.size() + std::size_t(options.batch_streams) - 1) /
                                      std::size_t(options.batch_streams),
                                  1, 1024);
    // Images already on the device have no transfers to overlap: their launches go up to 16
    // megapixels and take at least 32 images, fewer launches to make (NVIDIA's OpenCL ran 4 MP
    // launches 15% slower than CUDA and 16 MP ones as fast; a batch of 64 in launches of 16
    // at 0.63-0.83 of CUDA's rate, in launches of 32 as fast).
    const bool from_host =
        std::any_of(items.begin(), items.end(), [](const Item& it) { return it.host != nullptr; });
    most_pixels = std::uint64_t(1) << (from_host ? 22 : 24);
    if (!from_host) per = std::max<std::size_t>(per, 32);
  }
  std::vector<Launch> launches = launches_of(items, per, most_pixels, files);
  const int n = int(std::min<std::size_t>(std::size_t(options.batch_streams), launches.size()));
  while (int(streams.size()) < n - 1)
    streams.push_back(std::make_unique<JpegEncoder>(device, options));
  std::atomic<std::size_t> next{0};
  batch_pool.run(n, [&](int t) {
    Impl& e = t == 0 ? *this : *streams[std::size_t(t - 1)]->impl_;
    if (t > 0) e.options = options;
    e.copy_share = n;
    for (std::size_t i; (i = next.fetch_add(1)) < launches.size();) {
      // run() gives each image's error its place; what escapes it (a queue that cannot be made,
      // a wait that fails) fails the launch's images, not the thread.
      auto fail_all = [&](const Error& x) {
        for (std::size_t k : launches[i].index)
          if (!failed[k]) failed[k] = x;
      };
      try {
        e.run(launches[i], &failed);
      } catch (const Error& x) {
        fail_all(x);
      } catch (const std::exception& x) {
        fail_all(Error(ErrorCode::OutOfMemory, x.what()));
      }
    }
  });
  copy_share = 1;
  for (const auto& st : streams) {  // the other streams' times, into this encoder's
    StageTimes& t = st->impl_->times;
    times.upload += t.upload;
    times.transform += t.transform;
    times.entropy += t.entropy;
    times.download += t.download;
    times.host += t.host;
    times.images += t.images;
    t = StageTimes{};
  }
  return files;
}

namespace {

// The files of a batch: each image checked and planned by `prepare` (an Error fails that
// image alone), the rest coded by `impl` (JpegEncoder::Impl::batch); the errors thrown (naming
// the image) or given back in `errors`.
template <typename Impl, typename Image, typename Prepare>
std::vector<std::vector<std::uint8_t>> batch_files(Impl& impl, const std::vector<Image>& images,
                                                   BatchErrors* errors, Prepare&& prepare) {
  BatchErrors failed(images.size());
  std::vector<Item> items;
  items.reserve(images.size());
  for (std::size_t i = 0; i < images.size(); ++i) {
    try {
      items.push_back(prepare(images[i]));
      items.back().index = i;
    } catch (const Error& e) {
      failed[i] = e;
    }
  }
  auto files = impl.batch(items, images.size(), failed);
  if (!errors) {
    for (std::size_t i = 0; i < failed.size(); ++i)
      if (failed[i])
        throw Error(failed[i]->code(), "image " + std::to_string(i) + ": " + failed[i]->what());
  } else {
    *errors = std::move(failed);
  }
  return files;
}

Item raw_item(const JpegRawImage& r, const JpegEncodeOptions& o) {
  const Layout l = layout_of(r.layout);
  if (r.width < 1 || r.height < 1)
    bad("an image of " + std::to_string(r.width) + "x" + std::to_string(r.height) + " pixels");
  const std::size_t need = std::size_t(r.width) * std::size_t(r.height) * std::size_t(l.bytes);
  if (!r.data || r.size != need)
    bad(std::to_string(r.size) + " bytes of samples for " + std::to_string(r.width) + "x" +
        std::to_string(r.height) + " pixels of " + std::to_string(l.bytes) + " bytes (" +
        std::to_string(need) + " expected)");
  Item it = item_of(r.width, r.height, l, nullptr, o);
  it.host = r.data;
  it.bytes = need;
  return it;
}

}  // namespace

std::vector<std::uint8_t> JpegEncoder::encode(const std::uint8_t* pixels, std::size_t size,
                                              int width, int height, JpegPixels layout) {
  return impl_->one(raw_item({pixels, size, width, height, layout}, impl_->options));
}

void detail::JpegEncoderAccess::observe(JpegEncoder& encoder, JpegEncodeObserver observer) {
  encoder.impl_->observer = std::move(observer);
}

std::vector<std::uint8_t> JpegEncoder::encode(const Image& image) {
  return impl_->one(host_item(image, impl_->options));
}

std::vector<std::uint8_t> JpegEncoder::encode(const DeviceImage& image) {
  return impl_->one(device_item(image, impl_->options));
}

std::vector<std::vector<std::uint8_t>> JpegEncoder::encode_batch(const std::vector<Image>& images,
                                                                 BatchErrors* errors) {
  return batch_files(*impl_, images, errors,
                     [&](const Image& image) { return host_item(image, impl_->options); });
}

std::vector<std::vector<std::uint8_t>> JpegEncoder::encode_batch(
    const std::vector<JpegRawImage>& images, BatchErrors* errors) {
  return batch_files(*impl_, images, errors,
                     [&](const JpegRawImage& image) { return raw_item(image, impl_->options); });
}

std::vector<std::vector<std::uint8_t>> JpegEncoder::encode_batch(
    const std::vector<DeviceImage>& images, BatchErrors* errors) {
  return batch_files(*impl_, images, errors,
                     [&](const DeviceImage& image) { return device_item(image, impl_->options); });
}

const JpegEncoder::StageTimes& JpegEncoder::stage_times() const { return impl_->times; }
void JpegEncoder::reset_stage_times() { impl_->times = StageTimes{}; }

}  // namespace hetcodec
