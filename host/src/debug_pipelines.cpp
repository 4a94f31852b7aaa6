// Stage dumps and replays of PNG decode and encode, lossless JPEG decode and the filters
// (hetcodec/debug.h; JPEG decode and encode are in debug_stages.cpp).
#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

#include "core/jpeg/lossless.h"
#include "core/jpeg/parser.h"
#include "core/png/checksum.h"
#include "core/png/deflate_plan.h"
#include "core/png/reader.h"
#include "core/portable/ljpeg.h"
#include "core/portable/png_decode.h"
#include "core/portable/png_deflate_plan.h"
#include "core/portable/png_inflate.h"
#include "host/src/debug_common.h"
#include "host/src/filters_access.h"
#include "host/src/ljpeg_scans.h"
#include "host/src/png_encoder_access.h"

namespace hetcodec {

using detail::has_stage;
using detail::input_of;
using detail::parameter;
using detail::parameter32;
using detail::read_back;
using detail::stage_of;
using detail::upload_bytes;
using detail::words_of;
using detail::zeroed;

namespace {

std::vector<std::uint8_t> bytes_of(const void* p, std::size_t n) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  return std::vector<std::uint8_t>(b, b + n);
}

std::string key(const char* what, std::size_t k, const char* field) {
  return std::string(what) + std::to_string(k) + "_" + field;
}

// ---- PNG decode ---------------------------------------------------------------------------

// The wavefront order the decoder takes on this device (PngDecoder::Impl::wavefront()).
Wavefront png_order(const Device& d) {
  if (d.info().is_emulator) return Wavefront::Diagonals;
  return d.info().is_gpu ? Wavefront::Tickets : Wavefront::Diagonals;
}

struct PngPass {
  std::uint64_t offset = 0;
  std::uint32_t rows = 0, row_bytes = 0;
};

std::vector<PngPass> png_passes(const StageDump& d) {
  std::vector<PngPass> passes(parameter32(d, "passes", 7));
  for (std::size_t k = 0; k < passes.size(); ++k) {
    passes[k].offset = parameter(d, key("pass", k, "offset"));
    passes[k].rows = parameter32(d, key("pass", k, "rows"));
    passes[k].row_bytes = parameter32(d, key("pass", k, "row_bytes"));
  }
  return passes;
}

// The de-filter of each pass of `rows` (the filter types checked here), each pass's path chosen
// as the decoder chooses it (PngDecoder::Impl::defilter_passes): from the filter types after the
// host's inflate; after the device's, from the largest type alone (no bands).
std::vector<PngDefilterInfo> png_defilter_work(const std::vector<std::uint8_t>& rows,
                                               const std::vector<PngPass>& passes,
                                               std::uint32_t bpp, bool device_inflated,
                                               std::size_t& scratch_bytes) {
  std::vector<PngDefilterInfo> work;
  for (const PngPass& p : passes) {
    if (!p.rows || !p.row_bytes) continue;
    const std::size_t stride = std::size_t(p.row_bytes) + 1;
    if (p.offset + stride * p.rows > rows.size())
      throw Error(ErrorCode::InvalidArgument, "debug: a pass past the inflated rows");
    PngDefilterInfo d;
    d.offset = p.offset;
    d.height = p.rows;
    d.row_bytes = p.row_bytes;
    d.bpp = bpp;
    d.rows_independent = true;
    d.bands = !device_inflated;
    for (std::uint32_t y = 0; y < p.rows; ++y) {
      const std::uint8_t type = rows[p.offset + y * stride];
      if (type > 4)
        throw Error(ErrorCode::InvalidData,
                    "debug: row " + std::to_string(y) + " has filter type " + std::to_string(type));
      if (type > 1) d.rows_independent = false;
      if (type > 1 && y % HC_WF_ROWS == 0 && y > 0) d.bands = false;
    }
    scratch_bytes = std::max(scratch_bytes, PngKernels::defilter_scratch_bytes(d));
    work.push_back(d);
  }
  return work;
}

void png_defilter(Device& dev, Queue& q, DeviceBuffer& rows, const std::vector<std::uint8_t>& bytes,
                  const std::vector<PngPass>& passes, std::uint32_t bpp, bool device_inflated) {
  std::size_t scratch_bytes = 4;
  const std::vector<PngDefilterInfo> work =
      png_defilter_work(bytes, passes, bpp, device_inflated, scratch_bytes);
  auto scratch = zeroed(dev, q, scratch_bytes);
  for (const PngDefilterInfo& w : work) dev.png().defilter(q, rows, *scratch, w, png_order(dev));
}

hc_png_job png_job_of(const StageDump& d) {
  const StageBuffer& s = input_of(d, "job", HC_PNG_JOB_BYTES);
  hc_png_job job;
  std::memcpy(&job, s.bytes.data(), sizeof job);
  return job;
}

std::uint32_t png_pixel_bytes(const StageDump& d) {
  return parameter32(d, "channels", 4) * parameter32(d, "sample_bytes", 2);
}

}  // namespace

StageDump dump_png_decode_stages(const std::shared_ptr<Device>& device, const std::uint8_t* data,
                                 std::size_t size) {
  StageDump dump = detail::dump_on(device, "png-decode");
  const png::Info info = png::parse(data, size, png::DecodeLimits{});
  Device& dev = *device;
  std::unique_ptr<Queue> q = dev.create_queue();
  const std::size_t total = std::size_t(png::inflated_bytes(info));
  const std::uint32_t channels = std::uint32_t(info.out_channels());
  const std::uint32_t sample_bytes = std::uint32_t(info.out_depth() / 8);
  dump.parameters = {{"width", info.width},
                     {"height", info.height},
                     {"interlace", std::uint64_t(info.interlace)},
                     {"bpp", info.filter_bpp()},
                     {"channels", channels},
                     {"sample_bytes", sample_bytes},
                     {"inflated_bytes", total}};
  std::vector<PngPass> passes;
  for (const png::Pass& p : png::passes(info)) {
    PngPass pp;
    pp.offset = p.offset;
    pp.rows = p.width ? p.height : 0;
    pp.row_bytes = p.width && p.height ? p.row_bytes : 0;
    passes.push_back(pp);
  }
  dump.parameters.emplace_back("passes", passes.size());
  for (std::size_t k = 0; k < passes.size(); ++k) {
    dump.parameters.emplace_back(key("pass", k, "offset"), passes[k].offset);
    dump.parameters.emplace_back(key("pass", k, "rows"), passes[k].rows);
    dump.parameters.emplace_back(key("pass", k, "row_bytes"), passes[k].row_bytes);
  }
  auto rows = zeroed(dev, *q, total);
  bool inflated = false;
  const std::vector<std::uint32_t> table = png::inflate_table(info);
  if (!table.empty()) {
    // The device inflate of a file with an index, as PngDecoder::Impl::inflate_on_device.
    const std::size_t segments = table.size() / HC_INF_WORDS;
    std::vector<std::uint8_t> compressed = bytes_of(table.data(), table.size() * 4);
    for (const auto& [off, len] : info.idat)
      compressed.insert(compressed.end(), data + off, data + off + len);
    dump.parameters.emplace_back("segments", segments);
    const std::vector<std::uint8_t> idat(compressed.begin() + std::ptrdiff_t(table.size() * 4),
                                         compressed.end());
    auto table_buffer = upload_bytes(dev, *q, bytes_of(table.data(), table.size() * 4));
    auto idat_buffer = upload_bytes(dev, *q, idat);
    auto results = zeroed(dev, *q, segments * HC_INF_RESULT_WORDS * 4);
    dev.png().inflate(*q, *idat_buffer, *table_buffer, *rows, *results, std::uint32_t(segments));
    const std::vector<std::uint8_t> r = read_back(*q, *results, segments * HC_INF_RESULT_WORDS * 4);
    // Taken as the decoder takes it: every segment inflated, their Adler-32 sums the stream's
    // and no filter type above 4 (else the host inflates, and reports).
    inflated = true;
    std::uint32_t adler = 1, max_type = 0;
    for (std::size_t k = 0; k < segments; ++k) {
      std::uint32_t res[HC_INF_RESULT_WORDS];
      std::memcpy(res, r.data() + k * HC_INF_RESULT_WORDS * 4, sizeof res);
      if (res[HC_INF_STATUS] != HC_INF_OK) inflated = false;
      adler =
          png::adler32_combine(adler, res[HC_INF_ADLER], table[k * HC_INF_WORDS + HC_INF_OUT_LEN]);
      max_type = std::max(max_type, res[HC_INF_MAX_TYPE]);
    }
    const std::uint8_t* end = idat.data() + idat.size();
    if (idat.size() < 4 ||
        adler != (std::uint32_t(end[-4]) << 24 | std::uint32_t(end[-3]) << 16 |
                  std::uint32_t(end[-2]) << 8 | end[-1]) ||
        max_type > 4)
      inflated = false;
    dump.stages.push_back({"compressed",
                           "u8",
                           {compressed.size()},
                           "the segment table (HC_INF_WORDS words a segment), then the IDAT "
                           "chunks' data joined",
                           std::move(compressed)});
  }
  if (!inflated) {
    std::vector<std::uint8_t> host(total);
    std::vector<std::string> warnings;
    png::inflate_image(data, info, host.data(), warnings, 1);
    if (total) q->write(*rows, 0, host.data(), total);
  }
  dump.parameters.emplace_back("device_inflate", inflated ? 1 : 0);
  const hc_png_job job_record = png::unpack_job(info);
  dump.stages.push_back({"job",
                         "u8",
                         {HC_PNG_JOB_BYTES},
                         "the unpack job (hc_png_job: the passes, the tRNS key, the palette)",
                         bytes_of(&job_record, HC_PNG_JOB_BYTES)});
  std::vector<std::uint8_t> inflated_rows = read_back(*q, *rows, total);
  dump.stages.push_back({"inflated",
                         "u8",
                         {total},
                         std::string("each pass's filtered rows, a filter byte then its bytes (") +
                             (inflated ? "the device's inflate" : "the host's inflate") + ")",
                         inflated_rows});
  png_defilter(dev, *q, *rows, inflated_rows, passes, info.filter_bpp(), inflated);
  dump.stages.push_back({"defiltered",
                         "u8",
                         {total},
                         "each pass's reconstructed rows, filter bytes kept",
                         read_back(*q, *rows, total)});
  auto job = upload_bytes(dev, *q, bytes_of(&job_record, HC_PNG_JOB_BYTES));
  const std::size_t out_bytes = std::size_t(info.width) * info.height * channels * sample_bytes;
  auto out = zeroed(dev, *q, out_bytes);
  dev.png().unpack(*q, *job, *rows, *out, 0, info.width, info.height, channels * sample_bytes);
  dump.stages.push_back(
      {"image",
       sample_bytes == 2 ? "u16" : "u8",
       {info.height, info.width, channels},
       std::string("rows x columns x channels") + (sample_bytes == 2 ? " (16-bit big-endian)" : ""),
       read_back(*q, *out, out_bytes)});
  return dump;
}

namespace {

StageBuffer replay_png_decode(const std::shared_ptr<Device>& device, const StageDump& d,
                              const std::string& stage, const ReplayCrop& crop) {
  Device& dev = *device;
  std::unique_ptr<Queue> q = dev.create_queue();
  const std::uint32_t width = parameter32(d, "width"), height = parameter32(d, "height");
  const std::uint32_t bpp = parameter32(d, "bpp", 8);
  const std::size_t total = parameter(d, "inflated_bytes");
  const std::vector<PngPass> passes = png_passes(d);
  StageBuffer out = stage_of(d, stage);
  const bool device_inflated = detail::parameter_or(d, "device_inflate", 0) == 1;
  if (!crop.whole()) {
    // One pass of `height` rows from byte 0 (the crops' layout), within the rows and the job.
    const PngPass& p = passes.at(0);
    const hc_png_job job = png_job_of(d);
    if (passes.size() != 1 || p.offset != 0 || p.rows != height ||
        (std::uint64_t(p.row_bytes) + 1) * height > total || job.interlace != 0 ||
        job.height != height || job.width != width || job.pass[0].offset != 0 ||
        job.pass[0].row_bytes != p.row_bytes)
      throw Error(ErrorCode::InvalidArgument,
                  "debug: the dump's rows are not one pass of its height (a crop needs them so)");
  }
  if (!crop.whole()) detail::check_band(crop, height);
  if (stage == "inflated") {
    if (!has_stage(d, "compressed") || parameter(d, "device_inflate") != 1)
      throw Error(ErrorCode::InvalidArgument,
                  "debug: this dump's rows were inflated on the host (no index for the device)");
    const StageBuffer& c = stage_of(d, "compressed");
    const std::size_t segments = parameter(d, "segments");
    const std::size_t table_bytes = segments * HC_INF_WORDS * 4;
    if (segments == 0 || c.bytes.size() < table_bytes)
      throw Error(ErrorCode::InvalidArgument, "debug: the compressed stage lacks its table");
    auto table =
        upload_bytes(dev, *q, {c.bytes.begin(), c.bytes.begin() + std::ptrdiff_t(table_bytes)});
    auto idat =
        upload_bytes(dev, *q, {c.bytes.begin() + std::ptrdiff_t(table_bytes), c.bytes.end()});
    auto rows = zeroed(dev, *q, total);
    auto results = zeroed(dev, *q, segments * HC_INF_RESULT_WORDS * 4);
    dev.png().inflate(*q, *idat, *table, *rows, *results, std::uint32_t(segments));
    out.bytes = read_back(*q, *rows, total);
  } else if (stage == "defiltered") {
    const StageBuffer& in = input_of(d, "inflated", total);
    if (crop.whole()) {
      auto rows = upload_bytes(dev, *q, in.bytes);
      png_defilter(dev, *q, *rows, in.bytes, passes, bpp, device_inflated);
      out.bytes = read_back(*q, *rows, total);
    } else {
      // The crop's rows, after the row above them as the dump reconstructed it, filtered with
      // None (it is its own reconstruction): the rows below it then reconstruct as they did.
      const std::size_t stride = std::size_t(passes.at(0).row_bytes) + 1;
      const std::size_t above = crop.first_row > 0 ? 1 : 0;
      const std::size_t first = std::size_t(crop.first_row) - above;
      const StageBuffer& done = input_of(d, "defiltered", total);
      std::vector<std::uint8_t> band(
          in.bytes.begin() + std::ptrdiff_t(first * stride),
          in.bytes.begin() + std::ptrdiff_t((crop.first_row + crop.rows) * stride));
      if (above) {
        std::copy_n(done.bytes.begin() + std::ptrdiff_t(first * stride), stride, band.begin());
        band[0] = 0;
      }
      auto rows = upload_bytes(dev, *q, band);
      PngPass p = passes[0];
      p.offset = 0;
      p.rows = std::uint32_t(crop.rows + above);
      png_defilter(dev, *q, *rows, band, {p}, bpp, device_inflated);
      const std::vector<std::uint8_t> made = read_back(*q, *rows, band.size());
      std::copy(made.begin() + std::ptrdiff_t(above * stride), made.end(),
                out.bytes.begin() + std::ptrdiff_t(crop.first_row * stride));
    }
  } else if (stage == "image") {
    const StageBuffer& in = input_of(d, "defiltered", total);
    hc_png_job job = png_job_of(d);
    const std::uint32_t pixel_bytes = png_pixel_bytes(d);
    const std::size_t row_out = std::size_t(width) * pixel_bytes;
    if (out.bytes.size() != row_out * height)
      throw Error(ErrorCode::InvalidArgument, "debug: the image stage's size is not the image's");
    std::uint32_t rows_made = height;
    if (!crop.whole()) {
      // The job of the crop's rows alone (non-interlaced: one pass).
      job.height = std::uint32_t(crop.rows);
      job.pass[0].offset +=
          std::uint32_t(crop.first_row * (std::uint64_t(passes.at(0).row_bytes) + 1));
      rows_made = std::uint32_t(crop.rows);
    }
    auto rows = upload_bytes(dev, *q, in.bytes);
    auto job_buffer = upload_bytes(dev, *q, bytes_of(&job, HC_PNG_JOB_BYTES));
    auto pixels = zeroed(dev, *q, row_out * rows_made);
    dev.png().unpack(*q, *job_buffer, *rows, *pixels, 0, width, rows_made, pixel_bytes);
    const std::vector<std::uint8_t> made = read_back(*q, *pixels, row_out * rows_made);
    std::copy(made.begin(), made.end(),
              out.bytes.begin() + std::ptrdiff_t(crop.first_row * row_out));
  } else {
    throw Error(ErrorCode::InvalidArgument,
                "debug: stage " + stage + " of png-decode is not a device stage");
  }
  return out;
}

std::string locate_png_rows(const StageDump& d, const StageBuffer& s, std::size_t byte) {
  std::ostringstream w;
  const std::vector<PngPass> passes = png_passes(d);
  const bool interlaced = parameter(d, "interlace") != 0;
  hc_png_job job{};
  const bool have_job = has_stage(d, "job") && stage_of(d, "job").bytes.size() == HC_PNG_JOB_BYTES;
  if (have_job) job = png_job_of(d);
  for (std::size_t k = 0; k < passes.size(); ++k) {
    const PngPass& p = passes[k];
    const std::size_t stride = std::size_t(p.row_bytes) + 1;
    if (!p.rows || byte < p.offset || byte >= p.offset + stride * p.rows) continue;
    const std::size_t in = byte - p.offset, y = in / stride, col = in % stride;
    if (interlaced) w << "pass " << k + 1 << ", ";
    w << "row " << y;
    if (col == 0) {
      w << ", its filter byte";
    } else {
      const std::size_t b = col - 1, bpp = parameter(d, "bpp");
      w << ", byte " << b;
      if (have_job && job.pass[k].width) {
        // (bits per pixel from the row's bytes and the pass's width)
        const std::size_t bits =
            std::max<std::size_t>(std::size_t(p.row_bytes) * 8 / job.pass[k].width, 1);
        const std::size_t x = bits >= 8 ? b / std::max<std::size_t>(bpp, 1) : b * 8 / bits;
        w << " (pixel " << x << " of the row; image pixel (" << job.pass[k].x0 + x * job.pass[k].dx
          << ", " << job.pass[k].y0 + y * job.pass[k].dy << "))";
      }
    }
    return w.str();
  }
  w << s.name << " byte " << byte << " (in no pass)";
  return w.str();
}

// ---- PNG encode ---------------------------------------------------------------------------

const char* kBlockWords[HC_DFL_BI_WORDS] = {
    "exists",   "type",       "header bits",     "data bits",
    "bytes",    "first byte", "first bit (low)", "first bit (high)",
    "(unused)", "(unused)",   "final",           "flush"};

png::DeflatePlan plan_of(const StageDump& d) {
  png::DeflatePlan p;
  p.words = words_of(stage_of(d, "plan"));
  if (p.words.size() < HC_DFL_PLAN_HEADER)
    throw Error(ErrorCode::InvalidArgument, "debug: the plan stage lacks its header");
  p.segments = parameter32(d, "segments");
  p.work_words = parameter(d, "work_words");
  p.sym_words = parameter(d, "sym_words");
  p.out_words = parameter(d, "out_words");
  const hc_dfl_plan& h = *reinterpret_cast<const hc_dfl_plan*>(p.words.data());
  if (h.segments != p.segments || h.out_words != p.out_words ||
      std::uint64_t(h.w_block) + std::uint64_t(h.blocks) * HC_DFL_BI_WORDS > p.work_words)
    throw Error(ErrorCode::InvalidArgument, "debug: the dump's plan and parameters disagree");
  return p;
}

}  // namespace

StageDump dump_png_encode_stages(const std::shared_ptr<Device>& device, const Image& image,
                                 int segments) {
  StageDump dump = detail::dump_on(device, "png-encode");
  if (segments < 1 || segments > 4096)
    throw Error(ErrorCode::InvalidArgument,
                "debug: segments " + std::to_string(segments) + " is not 1..4096");
  PngEncodeOptions options;
  options.mode = PngMode::Parallel;
  options.deflate = PngDeflate::Device;
  options.segments = segments;
  PngEncoder encoder(device, options);
  dump.parameters = {{"width", std::uint64_t(image.width)},
                     {"height", std::uint64_t(image.height)}};
  detail::PngEncoderAccess::observe(encoder, [&](const detail::PngEncodeSnapshot& s) {
    const std::string stage = s.stage;
    Queue& q = s.queue;
    if (stage == "filtered") {
      const PngFilterInfo& f = s.filter;
      dump.stages.push_back({"samples",
                             "u8",
                             {f.height, f.row_bytes},
                             "the image's rows as uploaded (rows x bytes)",
                             read_back(q, s.rows, std::size_t(f.height) * f.row_bytes)});
      dump.stages.push_back({"filtered",
                             "u8",
                             {f.height, std::uint64_t(f.row_bytes) + 1},
                             "rows x (the filter byte, then the filtered bytes)",
                             read_back(q, s.filtered, s.filtered_bytes)});
      dump.parameters.insert(dump.parameters.end(), {{"rows", f.height},
                                                     {"row_bytes", f.row_bytes},
                                                     {"bpp", f.bpp},
                                                     {"mask", f.mask},
                                                     {"band_rows", f.band_rows}});
      return;
    }
    const png::DeflatePlan& p = *s.plan;
    if (stage == "deflate" && s.deflate_stage == HC_DFL_CLEAR) {
      dump.stages.push_back({"plan",
                             "u32",
                             {p.words.size()},
                             "the deflate plan: its header (hc_dfl_plan), then its tables",
                             bytes_of(p.words.data(), p.words.size() * 4)});
      dump.parameters.insert(dump.parameters.end(), {{"segments", p.segments},
                                                     {"work_words", p.work_words},
                                                     {"sym_words", p.sym_words},
                                                     {"out_words", p.out_words},
                                                     {"filtered_bytes", s.filtered_bytes}});
    } else if (stage == "deflate" && s.deflate_stage == HC_DFL_EMIT) {
      dump.stages.push_back({"symbols",
                             "u16",
                             {p.sym_words},
                             "the deflate symbols of every segment at their index: a literal "
                             "byte, or 256 + length - 3 for a match at distance 1",
                             read_back(q, *s.syms, p.sym_words * 2)});
    } else if (stage == "deflate" && s.deflate_stage == HC_DFL_LAYOUT) {
      const hc_dfl_plan& h = *reinterpret_cast<const hc_dfl_plan*>(p.words.data());
      dump.stages.push_back({"blocks",
                             "u32",
                             {h.blocks, HC_DFL_BI_WORDS},
                             "block indices x their record (HC_DFL_BI_*: exists, type, header "
                             "bits, data bits, bytes, first byte, first bit, final, flush)",
                             read_back(q, *s.work, std::size_t(h.blocks) * HC_DFL_BI_WORDS * 4,
                                       std::size_t(h.w_block) * 4)});
    } else if (stage == "crcs") {
      dump.stages.push_back({"deflate",
                             "u8",
                             {s.deflate_bytes},
                             "the deflate data of every segment, back to back (a sync flush "
                             "between them)",
                             read_back(q, *s.out, s.deflate_bytes)});
      dump.stages.push_back({"crcs",
                             "u32",
                             {s.crc_pieces},
                             "the CRC-32 of each 1024-byte piece of the zlib stream (its 2-byte "
                             "header first)",
                             read_back(q, *s.out, s.crc_pieces * 4, s.crc_at)});
    }
  });
  std::vector<std::uint8_t> file = encoder.encode(image);
  if (!encoder.last_deflated_on_device())
    throw Error(ErrorCode::Unsupported,
                "debug: the device deflate could not make this image's stream");
  dump.stages.push_back({"file", "u8", {file.size()}, "the PNG file", std::move(file)});
  return dump;
}

namespace {

StageBuffer replay_png_encode(const std::shared_ptr<Device>& device, const StageDump& d,
                              const std::string& stage) {
  Device& dev = *device;
  std::unique_ptr<Queue> q = dev.create_queue();
  StageBuffer out = stage_of(d, stage);
  PngFilterInfo f;
  f.height = parameter32(d, "rows");
  f.row_bytes = parameter32(d, "row_bytes", PngFilterInfo::kMaxPngRowBytes);
  f.bpp = parameter32(d, "bpp", 8);
  f.mask = parameter32(d, "mask", 0x1F);
  f.band_rows = parameter32(d, "band_rows");
  const std::size_t filtered_bytes = std::size_t(f.height) * (std::size_t(f.row_bytes) + 1);
  if (stage == "filtered") {
    const StageBuffer& in = input_of(d, "samples", std::size_t(f.height) * f.row_bytes);
    auto rows = upload_bytes(dev, *q, in.bytes);
    auto filtered = zeroed(dev, *q, filtered_bytes);
    dev.png().filter_rows(*q, *rows, *filtered, f);
    out.bytes = read_back(*q, *filtered, filtered_bytes);
    return out;
  }
  if (stage == "crcs") {
    const StageBuffer& in = stage_of(d, "deflate");
    const std::size_t total = in.bytes.size();
    const std::uint32_t pieces = std::uint32_t((total + 2 + 1023) / 1024);
    const std::size_t crc_at = (total + 3) / 4 * 4;
    if (out.bytes.size() != std::size_t(pieces) * 4)
      throw Error(ErrorCode::InvalidArgument, "debug: the crcs stage is not the deflate data's");
    auto buffer = zeroed(dev, *q, crc_at + std::size_t(pieces) * 4);
    if (total) q->write(*buffer, 0, in.bytes.data(), total);
    dev.png().crc32_pieces(*q, *buffer, std::uint32_t(total), 1024, 2, *buffer, crc_at, pieces);
    out.bytes = read_back(*q, *buffer, std::size_t(pieces) * 4, crc_at);
    return out;
  }
  int last = stage == "symbols"   ? HC_DFL_EMIT
             : stage == "blocks"  ? HC_DFL_LAYOUT
             : stage == "deflate" ? HC_DFL_PACK
                                  : -1;
  if (last < 0)
    throw Error(ErrorCode::InvalidArgument,
                "debug: stage " + stage + " of png-encode is not a device stage");
  // The deflate's stages from the first to `last`, from the dump's filtered rows and plan.
  const png::DeflatePlan p = plan_of(d);
  const hc_dfl_plan& h = *reinterpret_cast<const hc_dfl_plan*>(p.words.data());
  if (h.n != filtered_bytes)
    throw Error(ErrorCode::InvalidArgument, "debug: the plan is not the rows'");
  const StageBuffer& in = input_of(d, "filtered", filtered_bytes);
  std::vector<std::uint8_t> padded = in.bytes;
  padded.resize((padded.size() + 7) / 8 * 8, 0);  // (the stages read 8-byte words)
  auto filtered = upload_bytes(dev, *q, padded);
  auto plan = upload_bytes(dev, *q, bytes_of(p.words.data(), p.words.size() * 4));
  auto work = zeroed(dev, *q, p.work_words * 4);
  auto syms = zeroed(dev, *q, (p.sym_words * 2 + 3) / 4 * 4);
  auto packed = zeroed(dev, *q, p.out_words * 4);
  for (int k = 0; k <= last; ++k)
    dev.png().deflate(*q, k, p.items(k), *filtered, *plan, *work, *syms, *packed);
  if (stage == "symbols") {
    out.bytes = read_back(*q, *syms, p.sym_words * 2);
  } else if (stage == "blocks") {
    out.bytes = read_back(*q, *work, std::size_t(h.blocks) * HC_DFL_BI_WORDS * 4,
                          std::size_t(h.w_block) * 4);
  } else {
    std::vector<std::uint8_t> end = read_back(*q, *work, 4, (p.seg_off_word() + p.segments) * 4);
    std::uint32_t total;
    std::memcpy(&total, end.data(), 4);
    out.bytes = read_back(*q, *packed, std::min<std::size_t>(total, p.out_words * 4));
  }
  return out;
}

std::string locate_png_encode(const StageDump& d, const StageBuffer& s, std::size_t element) {
  std::ostringstream w;
  if (s.name == "samples" || s.name == "filtered") {
    const std::size_t row_bytes = parameter(d, "row_bytes") + (s.name == "filtered" ? 1 : 0);
    const std::size_t y = element / row_bytes, col = element % row_bytes;
    w << "row " << y;
    if (s.name == "filtered" && col == 0) {
      w << ", its filter byte";
    } else {
      const std::size_t b = s.name == "filtered" ? col - 1 : col;
      w << ", byte " << b << " (pixel " << b / std::max<std::uint64_t>(parameter(d, "bpp"), 1)
        << ", for 8- and 16-bit samples)";
    }
  } else if (s.name == "plan") {
    w << "plan word " << element << (element < HC_DFL_PLAN_HEADER ? " (the header)" : "");
  } else if (s.name == "symbols") {
    w << "symbol " << element;
  } else if (s.name == "blocks") {
    w << "block index " << element / HC_DFL_BI_WORDS << ", word " << element % HC_DFL_BI_WORDS
      << " (" << kBlockWords[element % HC_DFL_BI_WORDS] << ")";
  } else if (s.name == "deflate") {
    w << "deflate byte " << element << " (zlib stream byte " << element + 2 << ")";
  } else if (s.name == "crcs") {
    w << "the CRC-32 of piece " << element << " (zlib stream bytes from " << element * 1024 << ")";
  } else {
    w << s.name << " byte " << element;
  }
  return w.str();
}

// ---- lossless JPEG decode -----------------------------------------------------------------

std::vector<LjpegScanInfo> ljpeg_scans(const StageDump& d) {
  std::vector<LjpegScanInfo> scans(parameter32(d, "scans", HC_LJ_MAX_SCANS));
  for (std::size_t k = 0; k < scans.size(); ++k) {
    LjpegScanInfo& s = scans[k];
    s.scan = std::uint32_t(k);
    s.plane_offset = parameter(d, key("scan", k, "plane_offset"));
    s.width = parameter32(d, key("scan", k, "width"));
    s.height = parameter32(d, key("scan", k, "height"));
    s.comps = parameter32(d, key("scan", k, "comps"), 4);
    s.predictor = parameter32(d, key("scan", k, "predictor"), 7);
    s.restart_rows = parameter32(d, key("scan", k, "restart_rows"));
    s.mcu_v = std::max(1u, parameter32(d, key("scan", k, "mcu_v")));
    s.status_offset = parameter(d, key("scan", k, "status_offset"));
  }
  return scans;
}

Wavefront ljpeg_order(const Device& d, const LjpegScanInfo& s) {
  return d.info().is_emulator && s.predictor > 2 ? Wavefront::Diagonals : Wavefront::Auto;
}

void ljpeg_check(const StageDump& d, const std::vector<LjpegScanInfo>& scans) {
  const std::uint64_t planes = parameter(d, "planes_bytes"), status = parameter(d, "status_bytes");
  for (const LjpegScanInfo& s : scans)
    if (s.plane_offset + s.plane_bytes() > planes ||
        s.status_offset + std::uint64_t(s.coded_rows()) * 4 * HC_LJ_STATUS_WORDS > status)
      throw Error(ErrorCode::InvalidArgument, "debug: a scan past the planes or the status");
}

}  // namespace

StageDump dump_ljpeg_decode_stages(const std::shared_ptr<Device>& device, const std::uint8_t* data,
                                   std::size_t size) {
  StageDump dump = detail::dump_on(device, "ljpeg-decode");
  const jpeg::Header h = jpeg::parse(data, size, jpeg::Limits{});
  if ((h.sof_marker & 3) != 3)
    throw Error(ErrorCode::InvalidArgument,
                "debug: not a lossless JPEG (pipeline jpeg-decode takes this file)");
  const jpeg::LosslessLayout L = jpeg::lossless_layout(h);
  jpeg::RowTables tables = jpeg::row_tables_from_markers(data, size, h, L);
  if (tables.scans.empty()) tables = jpeg::row_tables_prepass(data, size, h, L, 1);
  const std::vector<std::uint32_t> job_words = jpeg::lossless_job(h, L, tables);
  Device& dev = *device;
  std::unique_ptr<Queue> q = dev.create_queue();
  std::vector<LjpegScanInfo> infos;
  std::size_t status_bytes = 0, scratch_bytes = 4;
  const std::size_t pixel_bytes = std::size_t(L.channels) * std::size_t(L.depth);
  const std::size_t out_bytes = std::size_t(L.width) * std::size_t(L.height) * pixel_bytes;
  dump.parameters = {{"width", std::uint64_t(L.width)},
                     {"height", std::uint64_t(L.height)},
                     {"channels", std::uint64_t(L.channels)},
                     {"depth", std::uint64_t(L.depth)},
                     {"scans", L.scans.size()},
                     {"planes_bytes", L.planes_bytes}};
  infos = detail::lossless_scans(L, 0, status_bytes, scratch_bytes);
  for (std::size_t k = 0; k < infos.size(); ++k) {
    const LjpegScanInfo& info = infos[k];
    dump.parameters.insert(dump.parameters.end(),
                           {{key("scan", k, "plane_offset"), info.plane_offset},
                            {key("scan", k, "width"), info.width},
                            {key("scan", k, "height"), info.height},
                            {key("scan", k, "comps"), info.comps},
                            {key("scan", k, "predictor"), info.predictor},
                            {key("scan", k, "restart_rows"), info.restart_rows},
                            {key("scan", k, "mcu_v"), info.mcu_v},
                            {key("scan", k, "status_offset"), info.status_offset}});
  }
  dump.parameters.emplace_back("status_bytes", status_bytes);
  const std::vector<std::uint8_t> file(data, data + size);
  dump.stages.push_back({"file", "u8", {size}, "the file's bytes", file});
  std::vector<std::uint8_t> job_bytes = bytes_of(job_words.data(), job_words.size() * 4);
  dump.stages.push_back({"job",
                         "u32",
                         {job_words.size()},
                         "words: header, scan records and Huffman tables, row tables",
                         job_bytes});
  auto file_buffer = upload_bytes(dev, *q, file);
  auto job = upload_bytes(dev, *q, job_bytes);
  auto planes = zeroed(dev, *q, L.planes_bytes);
  auto status = zeroed(dev, *q, status_bytes);
  auto scratch = zeroed(dev, *q, scratch_bytes);
  LjpegKernels& k = dev.ljpeg();
  for (const LjpegScanInfo& info : infos)
    k.residuals(*q, *job, *file_buffer, *planes, *status, info);
  const std::string plane_layout =
      "each scan's plane at its plane_offset: per row a type byte, then its samples (the "
      "scan's components interleaved), 16 bits each, low byte first";
  dump.stages.push_back({"residuals",
                         "u8",
                         {L.planes_bytes},
                         plane_layout + " (differences)",
                         read_back(*q, *planes, L.planes_bytes)});
  dump.stages.push_back({"row-status",
                         "u32",
                         {status_bytes / 4},
                         "per scan, per coded row: flags (HC_LJ_ST_*) and the byte of the "
                         "first problem",
                         read_back(*q, *status, status_bytes)});
  for (const LjpegScanInfo& info : infos)
    k.reconstruct(*q, *planes, *scratch, info, ljpeg_order(dev, info));
  dump.stages.push_back({"samples",
                         "u8",
                         {L.planes_bytes},
                         plane_layout + " (samples)",
                         read_back(*q, *planes, L.planes_bytes)});
  auto out = zeroed(dev, *q, out_bytes);
  k.unpack(*q, *job, *planes, *out, 0, std::uint32_t(L.width), std::uint32_t(L.height),
           std::uint32_t(pixel_bytes));
  dump.stages.push_back(
      {"image",
       L.depth == 2 ? "u16" : "u8",
       {std::uint64_t(L.height), std::uint64_t(L.width), std::uint64_t(L.channels)},
       std::string("rows x columns x channels") + (L.depth == 2 ? " (16-bit big-endian)" : ""),
       read_back(*q, *out, out_bytes)});
  return dump;
}

namespace {

// The job of output rows [first, first + rows) alone, for the unpack: the image's height that
// many, each channel's plane that many rows further on (its rows checked within the planes).
std::vector<std::uint8_t> ljpeg_band_job(const StageDump& d, std::uint64_t first,
                                         std::uint64_t rows) {
  std::vector<std::uint32_t> job = words_of(stage_of(d, "job"));
  const std::uint64_t planes = parameter(d, "planes_bytes");
  if (job.size() < HC_LJ_HEADER_WORDS || job[HC_LJ_H_MAGIC] != HC_LJ_MAGIC ||
      job[HC_LJ_H_WIDTH] != parameter(d, "width") ||
      job[HC_LJ_H_HEIGHT] != parameter(d, "height") ||
      job[HC_LJ_H_CHANNELS] != parameter(d, "channels") || job[HC_LJ_H_CHANNELS] > 4)
    throw Error(ErrorCode::InvalidArgument, "debug: the job's header is not the dump's image");
  for (std::uint32_t c = 0; c < job[HC_LJ_H_CHANNELS]; ++c) {
    std::uint32_t* ch = job.data() + HC_LJ_H_CHANNEL + HC_LJ_CHANNEL_WORDS * c;
    const std::uint64_t stride = 2ull * ch[4] * ch[2] + 1,
                        at = std::uint64_t(ch[0]) | std::uint64_t(ch[1]) << 32;
    const std::uint64_t moved = at + first * stride;
    if (ch[2] < 1 || ch[2] > 4 || (ch[3] & 0xFFu) >= ch[2] || ch[4] < job[HC_LJ_H_WIDTH] ||
        moved + rows * stride > planes)
      throw Error(ErrorCode::InvalidArgument,
                  "debug: the job's channel " + std::to_string(c) + " lies past the planes");
    ch[0] = std::uint32_t(moved);
    ch[1] = std::uint32_t(moved >> 32);
  }
  job[HC_LJ_H_HEIGHT] = std::uint32_t(rows);
  return bytes_of(job.data(), job.size() * 4);
}

StageBuffer replay_ljpeg(const std::shared_ptr<Device>& device, const StageDump& d,
                         const std::string& stage, const ReplayCrop& crop) {
  Device& dev = *device;
  std::unique_ptr<Queue> q = dev.create_queue();
  const std::vector<LjpegScanInfo> scans = ljpeg_scans(d);
  ljpeg_check(d, scans);
  const std::size_t planes_bytes = parameter(d, "planes_bytes");
  const std::size_t status_bytes = parameter(d, "status_bytes");
  if (!crop.whole()) detail::check_band(crop, parameter(d, "height"));
  auto job = upload_bytes(
      dev, *q,
      crop.whole() ? stage_of(d, "job").bytes : ljpeg_band_job(d, crop.first_row, crop.rows));
  StageBuffer out = stage_of(d, stage);
  LjpegKernels& k = dev.ljpeg();
  if (stage == "residuals" || stage == "row-status") {
    auto file = upload_bytes(dev, *q, stage_of(d, "file").bytes);
    auto planes = zeroed(dev, *q, planes_bytes);
    auto status = zeroed(dev, *q, status_bytes);
    for (const LjpegScanInfo& s : scans) k.residuals(*q, *job, *file, *planes, *status, s);
    out.bytes = stage == "residuals" ? read_back(*q, *planes, planes_bytes)
                                     : read_back(*q, *status, status_bytes);
  } else if (stage == "samples") {
    auto planes = upload_bytes(dev, *q, input_of(d, "residuals", planes_bytes).bytes);
    std::size_t scratch_bytes = 4;
    for (const LjpegScanInfo& s : scans)
      scratch_bytes = std::max(scratch_bytes, LjpegKernels::scratch_bytes(s));
    auto scratch = zeroed(dev, *q, scratch_bytes);
    for (const LjpegScanInfo& s : scans)
      k.reconstruct(*q, *planes, *scratch, s, ljpeg_order(dev, s));
    out.bytes = read_back(*q, *planes, planes_bytes);
  } else if (stage == "image") {
    auto planes = upload_bytes(dev, *q, input_of(d, "samples", planes_bytes).bytes);
    const std::uint32_t width = parameter32(d, "width"), height = parameter32(d, "height");
    const std::uint32_t pixel_bytes = parameter32(d, "channels", 4) * parameter32(d, "depth", 2);
    const std::size_t row = std::size_t(width) * pixel_bytes;
    if (out.bytes.size() != row * height)
      throw Error(ErrorCode::InvalidArgument, "debug: the image stage's size is not the image's");
    const std::uint32_t rows = crop.whole() ? height : std::uint32_t(crop.rows);
    auto pixels = zeroed(dev, *q, row * rows);
    k.unpack(*q, *job, *planes, *pixels, 0, width, rows, pixel_bytes);
    const std::vector<std::uint8_t> made = read_back(*q, *pixels, row * rows);
    std::copy(made.begin(), made.end(), out.bytes.begin() + std::ptrdiff_t(crop.first_row * row));
  } else {
    throw Error(ErrorCode::InvalidArgument,
                "debug: stage " + stage + " of ljpeg-decode is not a device stage");
  }
  return out;
}

std::string locate_ljpeg(const StageDump& d, const StageBuffer& s, std::size_t element) {
  std::ostringstream w;
  const std::vector<LjpegScanInfo> scans = ljpeg_scans(d);
  if (s.name == "residuals" || s.name == "samples") {
    for (const LjpegScanInfo& sc : scans) {
      const std::size_t stride = std::size_t(sc.row_bytes()) + 1;
      if (element < sc.plane_offset || element >= sc.plane_offset + sc.plane_bytes()) continue;
      const std::size_t in = element - sc.plane_offset, y = in / stride, col = in % stride;
      w << "scan " << sc.scan << ", row " << y << " (coded row " << y / sc.mcu_v << ")";
      if (col == 0) {
        w << ", its type byte";
      } else {
        const std::size_t sample = (col - 1) / 2, x = sample / sc.comps;
        w << ", column " << x << ", component " << sample % sc.comps << " of the scan ("
          << ((col - 1) % 2 ? "high" : "low") << " byte)";
      }
      return w.str();
    }
    w << "plane byte " << element << " (in no scan)";
  } else if (s.name == "row-status") {
    for (const LjpegScanInfo& sc : scans) {
      const std::size_t first = sc.status_offset / 4,
                        words = std::size_t(sc.coded_rows()) * HC_LJ_STATUS_WORDS;
      if (element < first || element >= first + words) continue;
      const std::size_t in = element - first;
      w << "scan " << sc.scan << ", coded row " << in / HC_LJ_STATUS_WORDS << ", "
        << (in % HC_LJ_STATUS_WORDS ? "the byte of its first problem" : "its flags");
      return w.str();
    }
    w << "status word " << element << " (in no scan)";
  } else if (s.name == "job") {
    w << "job word " << element;
  } else {
    w << s.name << " byte " << element;
  }
  return w.str();
}

// ---- filters ------------------------------------------------------------------------------

const char* filter_pipeline(int kind) {
  return kind == HC_FILTER_SMOOTH    ? "smooth"
         : kind == HC_FILTER_TEXTURE ? "texture"
         : kind == HC_FILTER_PERLIN  ? "perlin"
                                     : "mandelbrot";
}

int filter_kind(const std::string& pipeline) {
  return pipeline == "smooth"    ? HC_FILTER_SMOOTH
         : pipeline == "texture" ? HC_FILTER_TEXTURE
         : pipeline == "perlin"  ? HC_FILTER_PERLIN
                                 : HC_FILTER_MANDELBROT;
}

std::uint64_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float from_bits(std::uint64_t b) {
  const std::uint32_t v = std::uint32_t(b);
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}

// The kernel's parameters, by name, and back.
std::vector<std::pair<std::string, std::uint64_t>> filter_parameters(const hc_filter_params& p) {
  return {{"width", p.width},
          {"height", p.height},
          {"channels", p.channels},
          {"colours", p.colours},
          {"tiles_x", p.tiles_x},
          {"octaves", p.octaves},
          {"iterations", p.iterations},
          {"mode", p.mode},
          {"k_bits", bits(p.k)},
          {"frequency_bits", bits(p.frequency)},
          {"amplitude_bits", bits(p.amplitude)},
          {"preserve_bits", bits(p.preserve)},
          {"filter_bits", bits(p.filter)},
          {"cx_bits", bits(p.cx)},
          {"cy_bits", bits(p.cy)},
          {"step_bits", bits(p.step)}};
}

hc_filter_params filter_params_of(const StageDump& d) {
  hc_filter_params p{};
  p.width = parameter32(d, "width", 32768);
  p.height = parameter32(d, "height", 32768);
  p.channels = parameter32(d, "channels", 4);
  p.colours = parameter32(d, "colours", 4);
  p.tiles_x = parameter32(d, "tiles_x");
  p.octaves = parameter32(d, "octaves");
  p.iterations = parameter32(d, "iterations");
  p.mode = parameter32(d, "mode");
  p.k = from_bits(parameter(d, "k_bits"));
  p.frequency = from_bits(parameter(d, "frequency_bits"));
  p.amplitude = from_bits(parameter(d, "amplitude_bits"));
  p.preserve = from_bits(parameter(d, "preserve_bits"));
  p.filter = from_bits(parameter(d, "filter_bits"));
  p.cx = from_bits(parameter(d, "cx_bits"));
  p.cy = from_bits(parameter(d, "cy_bits"));
  p.step = from_bits(parameter(d, "step_bits"));
  // What the filters themselves would have set (hetcodec/filters.h): the kernel writes
  // `channels` samples a pixel, and loops over octaves and iterations.
  const int kind = filter_kind(d.pipeline);
  const bool ok =
      p.width >= 1 && p.height >= 1 && p.channels >= 1 && p.colours >= 1 &&
      p.colours <= p.channels &&
      (kind == HC_FILTER_SMOOTH
           ? p.mode == 0 && p.tiles_x == (p.width + HC_SMOOTH_TILE - 1) / HC_SMOOTH_TILE
       : kind == HC_FILTER_TEXTURE ? p.mode == 0 && p.octaves >= 1 && p.octaves <= 32
       : kind == HC_FILTER_PERLIN
           ? p.mode == HC_PERLIN_U8 && p.channels == 1 && p.octaves >= 1 && p.octaves <= 32
           : p.iterations >= 1 && p.iterations <= 1000000 &&
                 p.channels == (p.mode == HC_MANDEL_FIRE ? 3u : 1u) && p.mode <= HC_MANDEL_FIRE);
  if (!ok)
    throw Error(ErrorCode::InvalidArgument,
                "debug: the dump's parameters are not the " + d.pipeline + " kernel's");
  return p;
}

// A filter's run through Filters (its observer keeps the kernel's parameters and output).
template <typename Run>
StageDump dump_filter(const std::shared_ptr<Device>& device, const Image* source, Run&& run) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "debug: no device");
  Filters filters(device);
  StageDump dump;
  bool seen = false;
  detail::FiltersAccess::observe(filters, [&](const detail::FilterSnapshot& s) {
    const hc_filter_params& p = s.params;
    dump = detail::dump_on(device, filter_pipeline(s.kind));
    dump.parameters = filter_parameters(p);
    if (source)
      dump.stages.push_back({"source",
                             "u8",
                             {p.height, p.width, p.channels},
                             "rows x columns x channels",
                             source->pixels});
    dump.stages.push_back(
        {"output",
         "u8",
         {p.height, p.width, p.channels},
         "rows x columns x channels",
         read_back(s.queue, s.dst, std::size_t(p.width) * p.height * p.channels)});
    seen = true;
  });
  run(filters);
  if (!seen) throw Error(ErrorCode::InvalidArgument, "debug: the filter ran no kernel");
  return dump;
}

StageBuffer replay_filter(const std::shared_ptr<Device>& device, const StageDump& d,
                          const std::string& stage, const ReplayCrop& crop) {
  if (stage != "output")
    throw Error(ErrorCode::InvalidArgument,
                "debug: stage " + stage + " of " + d.pipeline + " is not a device stage");
  Device& dev = *device;
  std::unique_ptr<Queue> q = dev.create_queue();
  hc_filter_params p = filter_params_of(d);
  const int kind = filter_kind(d.pipeline);
  const std::size_t row = std::size_t(p.width) * p.channels;
  StageBuffer out = stage_of(d, stage);
  if (out.bytes.size() != row * p.height)
    throw Error(ErrorCode::InvalidArgument, "debug: the output stage's size is not the image's");
  std::unique_ptr<DeviceBuffer> src;
  if (kind == HC_FILTER_SMOOTH || kind == HC_FILTER_TEXTURE)
    src = upload_bytes(dev, *q, input_of(d, "source", row * p.height).bytes);
  std::size_t first = 0, rows = p.height, skip = 0;
  if (!crop.whole()) {
    detail::check_band(crop, p.height);
    // Smoothing reads two rows either side (the gradients of the neighbours), and keeps the
    // image's two edge rows: the crop runs with two rows more on each side, those not kept.
    first = std::size_t(crop.first_row >= 2 ? crop.first_row - 2 : 0);
    const std::size_t end = std::min<std::size_t>(p.height, crop.first_row + crop.rows + 2);
    rows = end - first;
    skip = crop.first_row - first;
    p.height = std::uint32_t(rows);
  }
  auto dst = zeroed(dev, *q, row * rows);
  dev.filters().run(*q, kind, p, src.get(), first * row, *dst, 0);
  const std::vector<std::uint8_t> made = read_back(*q, *dst, row * rows);
  const std::size_t keep = crop.whole() ? rows : std::size_t(crop.rows);
  std::copy_n(made.begin() + std::ptrdiff_t(skip * row), keep * row,
              out.bytes.begin() + std::ptrdiff_t((first + skip) * row));
  return out;
}

}  // namespace

StageDump dump_smooth_stages(const std::shared_ptr<Device>& device, const Image& image,
                             const SmoothOptions& options) {
  return dump_filter(device, &image, [&](Filters& f) { f.smooth(image, options); });
}

StageDump dump_texture_stages(const std::shared_ptr<Device>& device, const Image& image,
                              const TextureOptions& options) {
  return dump_filter(device, &image, [&](Filters& f) { f.texture(image, options); });
}

StageDump dump_perlin_stages(const std::shared_ptr<Device>& device, int width, int height,
                             const PerlinOptions& options) {
  return dump_filter(device, nullptr,
                     [&](Filters& f) { f.download(f.perlin(width, height, options)); });
}

StageDump dump_mandelbrot_stages(const std::shared_ptr<Device>& device, int width, int height,
                                 const MandelbrotOptions& options) {
  return dump_filter(device, nullptr,
                     [&](Filters& f) { f.download(f.mandelbrot(width, height, options)); });
}

namespace detail {

bool other_pipeline(const std::string& p) {
  return p == "png-decode" || p == "png-encode" || p == "ljpeg-decode" || p == "smooth" ||
         p == "texture" || p == "perlin" || p == "mandelbrot";
}

std::vector<std::string> other_replayable(const StageDump& d) {
  if (d.pipeline == "png-decode") {
    if (parameter_or(d, "device_inflate", 0) == 1) return {"inflated", "defiltered", "image"};
    return {"defiltered", "image"};
  }
  if (d.pipeline == "png-encode") return {"filtered", "symbols", "blocks", "deflate", "crcs"};
  if (d.pipeline == "ljpeg-decode") return {"residuals", "row-status", "samples", "image"};
  return {"output"};
}

StageBuffer other_replay(const std::shared_ptr<Device>& device, const StageDump& d,
                         const std::string& stage, const ReplayCrop& crop) {
  if (d.pipeline == "png-decode") return replay_png_decode(device, d, stage, crop);
  if (d.pipeline == "png-encode") return replay_png_encode(device, d, stage);
  if (d.pipeline == "ljpeg-decode") return replay_ljpeg(device, d, stage, crop);
  return replay_filter(device, d, stage, crop);
}

std::string other_locate(const StageDump& d, const StageBuffer& s, std::size_t element) {
  std::ostringstream w;
  if (s.name == "image" || s.name == "output" || s.name == "source") {
    if (s.shape.size() == 3 && s.shape[1] && s.shape[2])
      return pixel_of(element, s.shape[1], s.shape[2]);
  }
  if (d.pipeline == "png-decode") {
    if (s.name == "inflated" || s.name == "defiltered") return locate_png_rows(d, s, element);
    if (s.name == "compressed") {
      const std::size_t table = parameter_or(d, "segments", 0) * HC_INF_WORDS * 4;
      if (element < table)
        w << "segment " << element / (HC_INF_WORDS * 4) << "'s table entry, word "
          << element / 4 % HC_INF_WORDS;
      else
        w << "IDAT data byte " << element - table;
      return w.str();
    }
  }
  if (d.pipeline == "png-encode") return locate_png_encode(d, s, element);
  if (d.pipeline == "ljpeg-decode") return locate_ljpeg(d, s, element);
  w << s.name << " element " << element;
  return w.str();
}

}  // namespace detail

}  // namespace hetcodec
