// Pipelines stage by stage, for debugging across devices (hetcodec/debug.h).
#include <algorithm>
#include <cstring>
#include <iomanip>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>

#include "backends/backend.h"
#include "core/portable/jpeg_job.h"
#include "hetcodec/debug.h"
#include "host/src/debug_common.h"
#include "host/src/jpeg_encoder_access.h"
#include "host/src/jpeg_prepare.h"
#if HETCODEC_HAVE_OPENCL
#include "backends/opencl/embedded.h"
#endif

namespace hetcodec {

using detail::input_of;
using detail::parameter;
using detail::read_back;
using detail::stage_of;

namespace {

hc_jpeg_job job_header(const StageBuffer& job) {
  hc_jpeg_job h{};
  if (job.bytes.size() < sizeof h)
    throw Error(ErrorCode::InvalidArgument, "debug: a job stage without its header");
  std::memcpy(&h, job.bytes.data(), sizeof h);
  if (h.magic != HC_JOB_MAGIC || h.components < 1 || h.components > 4)
    throw Error(ErrorCode::InvalidArgument, "debug: the job stage's header is not a job's");
  return h;
}

std::size_t element_bytes(const std::string& e) {
  return e == "u8" ? 1 : (e == "u16" || e == "i16") ? 2 : 4;
}

std::string value_at(const StageBuffer& s, std::size_t element) {
  const std::size_t n = element_bytes(s.element), at = element * n;
  if (at + n > s.bytes.size()) return "(none)";
  std::uint32_t v = 0;
  std::memcpy(&v, s.bytes.data() + at, n);
  if (s.element == "i16") return std::to_string(std::int16_t(v));
  return std::to_string(v);
}

// The output pixels a component's sample (x, y) of its plane feeds, from the upsampling factors.
std::string image_pixels(const hc_jpeg_component& r, std::size_t x, std::size_t y) {
  if (x < r.window_col) return "";
  const std::size_t ix = (x - r.window_col) * r.hr, iy = y * r.vr;
  std::ostringstream w;
  w << "; image pixel" << (r.hr * r.vr > 1 ? "s from (" : " (") << ix << ", " << iy << ")";
  return w.str();
}

// Element `element` of stage `s` in the image's terms, with the job's layout.
std::string locate(const StageBuffer& s, std::size_t element, const hc_jpeg_job& h) {
  std::ostringstream w;
  if (s.name == "job") {
    const std::size_t word = element;
    if (word < HC_JOB_WORDS)
      w << "job header word " << word;
    else if (word < HC_JOB_TOKENS_WORD)
      w << "quantisation table " << (word - HC_JOB_WORDS) / 64 << ", entry "
        << (word - HC_JOB_WORDS) % 64;
    else if (word < h.tokens)
      w << "token directory word " << word - h.directory;
    else
      w << "token " << (word - h.tokens) / 3 << " (word " << (word - h.tokens) % 3 << ")";
    return w.str();
  }
  if (s.name == "coefficients") {
    const std::size_t block = element / 64, k = element % 64;
    for (std::uint32_t c = 0; c < h.components; ++c) {
      const hc_jpeg_component& r = h.component[c];
      const std::size_t first = std::size_t(r.first_group) * 64;
      if (block < first || block >= first + std::size_t(r.groups) * 64) continue;
      const std::size_t local = block - first;
      if (local >= std::size_t(r.grid_w) * r.grid_h) {
        w << "component " << c << ", padding block " << local << " of its last group";
        return w.str();
      }
      const std::size_t bx = local % r.grid_w, by = local / r.grid_w;
      w << "component " << c << ", block (" << bx << ", " << by << ") [block " << block
        << " of the job, group " << block / 64 << "], coefficient " << k << " (row " << k / 8
        << ", column " << k % 8 << "); samples x " << bx * r.block << ".."
        << bx * r.block + r.block - 1 << ", y " << by * r.block << ".."
        << by * r.block + r.block - 1 << " of the component" << image_pixels(r, bx * r.block, by * r.block);
      return w.str();
    }
    w << "block " << block << ", coefficient " << k << " (in no component)";
    return w.str();
  }
  if (s.name == "planes") {
    const std::size_t byte = element * element_bytes(s.element);
    for (std::uint32_t c = 0; c < h.components; ++c) {
      const hc_jpeg_component& r = h.component[c];
      const std::size_t bytes = std::size_t(r.stride) * r.grid_h * r.block;
      if (byte < r.plane_offset || byte >= r.plane_offset + bytes) continue;
      const std::size_t in = byte - r.plane_offset, y = in / r.stride;
      const std::size_t x = (in % r.stride) / (h.precision > 8 ? 2 : 1);
      const bool padding = x < r.window_col || x >= r.window_col + r.width || y >= r.height;
      w << "component " << c << ", sample (" << x << ", " << y << "), in block (" << x / r.block
        << ", " << y / r.block << ")"
        << (padding ? " (padding beyond the component's samples)" : image_pixels(r, x, y));
      return w.str();
    }
    w << "plane byte " << byte << " (in no component)";
    return w.str();
  }
  if (s.name == "image" && s.shape.size() == 3 && s.shape[1] && s.shape[2])
    return detail::pixel_of(element, s.shape[1], s.shape[2]);
  w << "element " << element;
  return w.str();
}

}  // namespace

StageDump dump_jpeg_decode_stages(const std::shared_ptr<Device>& device, const std::uint8_t* data,
                                  std::size_t size) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "debug: no device");
  detail::JpegPrepared p;
  std::vector<jpeg::EntropyResult> scratch;
  JpegDecodeOptions options;
  detail::prepare_jpeg(Input{data, size}, options, 1, p, scratch);
  if (!p.ok) throw Error(p.code, p.error);
  if (p.job.empty())
    throw Error(ErrorCode::Unsupported, "debug: this file's pipeline has no job stage (lossless?)");
  JpegJobInfo info = p.info;
  info.job_offset = 0;
  const std::string sample = info.sample_bytes == 2 ? "u16" : "u8";
  StageDump dump;
  dump.pipeline = "jpeg-decode";
  dump.device = device->info().spec;
  dump.device_name = device->info().name;
  dump.parameters = {{"job_bytes", p.job.size() * 4}, {"groups", info.groups},
                     {"blocks", info.blocks},         {"plane_bytes", info.plane_bytes},
                     {"width", info.width},           {"height", info.height},
                     {"channels", info.channels},     {"sample_bytes", info.sample_bytes}};
  std::unique_ptr<Queue> q = device->create_queue();
  JpegKernels& k = device->jpeg();

  const std::size_t job_bytes = p.job.size() * 4;
  auto job = device->alloc(job_bytes);
  q->write(*job, 0, p.job.data(), job_bytes);
  dump.stages.push_back({"job", "u32", {p.job.size()},
                         "words: header, quantisation tables, token directory, tokens",
                         read_back(*q, *job, job_bytes)});

  const std::size_t coef_bytes = std::size_t(info.groups) * 64 * 64 * 2;
  // (Every buffer zeroed first: the bytes a stage leaves alone, such as the padding between
  // planes, are then equal on every device.)
  auto coefficients = device->alloc(std::max<std::size_t>(coef_bytes, 1));
  q->zero(*coefficients, 0, coefficients->size());
  k.decode_tokens(*q, *job, *coefficients, info);
  dump.stages.push_back({"coefficients", "i16", {std::uint64_t(info.groups) * 64, 64},
                         "blocks (64 per group, each component's groups in raster order) x 64 "
                         "quantised coefficients in natural order",
                         read_back(*q, *coefficients, coef_bytes)});

  auto planes = device->alloc(std::max<std::size_t>(info.plane_bytes, 1));
  q->zero(*planes, 0, planes->size());
  k.idct(*q, *job, *coefficients, *planes, info);
  dump.stages.push_back({"planes", sample, {info.plane_bytes / info.sample_bytes},
                         "each component's samples, at its plane_offset, stride bytes a row "
                         "(the job header's component records)",
                         read_back(*q, *planes, info.plane_bytes)});

  auto out = device->alloc(std::max<std::size_t>(info.output_bytes(), 1));
  q->zero(*out, 0, out->size());
  k.upsample_color(*q, *job, *planes, *out, 0, info);
  dump.stages.push_back({"image", sample, {info.height, info.width, info.channels},
                         "rows x columns x channels" +
                             std::string(info.sample_bytes == 2 ? " (16-bit big-endian)" : ""),
                         read_back(*q, *out, info.output_bytes())});
  return dump;
}

namespace {

// That the job's component records fit its groups and `plane_bytes` of planes, and the samples
// the upsampling reads their planes, as the kernels read and write them (the dump is a file: a record edited to point elsewhere would have them
// write outside the buffers). Error(InvalidArgument) otherwise.
void check_components(const hc_jpeg_job& h, std::uint64_t plane_bytes) {
  std::uint64_t next_group = 0;
  for (std::uint32_t c = 0; c < h.components; ++c) {
    const hc_jpeg_component& r = h.component[c];
    const std::uint64_t sample = h.precision > 8 ? 2 : 1;
    const bool fits =
        (r.block == 1 || r.block == 2 || r.block == 4 || r.block == 8) &&
        r.first_group == next_group && std::uint64_t(r.grid_w) * r.grid_h <= r.groups * 64ull &&
        r.stride >= std::uint64_t(r.grid_w) * r.block * sample && r.plane_offset <= plane_bytes &&
        std::uint64_t(r.grid_h) * r.block <=
            (r.stride ? (plane_bytes - r.plane_offset) / r.stride : 0) &&
        std::uint64_t(r.window_col) + r.width <= std::uint64_t(r.grid_w) * r.block &&
        r.height <= std::uint64_t(r.grid_h) * r.block;
    if (!fits)
      throw Error(ErrorCode::InvalidArgument,
                  "debug: the job's component " + std::to_string(c) + " does not fit its planes");
    next_group += r.groups;
  }
  if (next_group != h.groups)
    throw Error(ErrorCode::InvalidArgument, "debug: the job's components are not its groups");
}

// The planes' bytes of job block `block` copied from `from` to `to` (the samples the IDCT writes
// for it: block x block samples at its place in its component's plane); nothing for a padding
// block. The records are check_components'.
void copy_block_samples(const hc_jpeg_job& h, std::uint64_t block, std::size_t sample_bytes,
                        const std::vector<std::uint8_t>& from, std::vector<std::uint8_t>& to) {
  for (std::uint32_t c = 0; c < h.components; ++c) {
    const hc_jpeg_component& r = h.component[c];
    const std::uint64_t first = std::uint64_t(r.first_group) * 64;
    if (block < first || block - first >= std::uint64_t(r.groups) * 64) continue;
    const std::uint64_t local = block - first;
    if (local >= std::uint64_t(r.grid_w) * r.grid_h) return;
    const std::uint64_t bx = local % r.grid_w, by = local / r.grid_w;
    const std::uint64_t row_bytes = std::uint64_t(r.block) * sample_bytes;
    for (std::uint64_t y = by * r.block; y < by * r.block + r.block; ++y) {
      const std::size_t at = std::size_t(r.plane_offset + y * r.stride + bx * row_bytes);
      std::copy(from.begin() + std::ptrdiff_t(at), from.begin() + std::ptrdiff_t(at + row_bytes),
                to.begin() + std::ptrdiff_t(at));
    }
    return;
  }
}

StageBuffer replay_jpeg_decode(const std::shared_ptr<Device>& device, const StageDump& d,
                               const std::string& stage, const ReplayCrop& crop) {
  JpegJobInfo info;
  info.job_bytes = parameter(d, "job_bytes");
  info.groups = std::uint32_t(parameter(d, "groups"));
  info.blocks = std::uint32_t(parameter(d, "blocks"));
  info.plane_bytes = parameter(d, "plane_bytes");
  info.width = std::uint32_t(parameter(d, "width"));
  info.height = std::uint32_t(parameter(d, "height"));
  info.channels = std::uint32_t(parameter(d, "channels"));
  info.sample_bytes = std::uint32_t(parameter(d, "sample_bytes"));
  const StageBuffer& job = input_of(d, "job", info.job_bytes);
  const hc_jpeg_job h = job_header(job);
  if (h.groups != info.groups || h.blocks != info.blocks || h.width != info.width ||
      h.height != info.height || h.out_channels != info.channels ||
      info.sample_bytes != (h.precision > 8 ? 2u : 1u) || std::uint64_t(info.groups) >= (1u << 26))
    throw Error(ErrorCode::InvalidArgument, "debug: the dump's parameters are not its job's");
  check_components(h, info.plane_bytes);
  const std::size_t coef_bytes = std::size_t(info.groups) * 64 * 64 * 2;
  std::unique_ptr<Queue> q = device->create_queue();
  JpegKernels& k = device->jpeg();
  auto job_buffer = device->alloc(info.job_bytes);
  q->write(*job_buffer, 0, job.bytes.data(), info.job_bytes);
  auto upload = [&](const StageBuffer& s) {
    auto b = device->alloc(std::max<std::size_t>(s.bytes.size(), 1));
    if (!s.bytes.empty()) q->write(*b, 0, s.bytes.data(), s.bytes.size());
    return b;
  };
  auto output = [&](std::size_t bytes) {
    auto b = device->alloc(std::max<std::size_t>(bytes, 1));
    q->zero(*b, 0, b->size());
    return b;
  };
  StageBuffer out = stage_of(d, stage);
  // A crop: the blocks [b0, b1) of the job, or the image's pixels of rows [first_row, ...).
  const std::uint64_t b0 = crop.first_block, b1 = crop.first_block + crop.blocks;
  const std::uint64_t job_blocks = std::uint64_t(info.groups) * 64;
  if (crop.blocks && (b0 >= job_blocks || crop.blocks > job_blocks - b0))
    throw Error(ErrorCode::InvalidArgument, "debug: " + std::to_string(crop.blocks) +
                                                " blocks from block " + std::to_string(b0) +
                                                " of a job of " + std::to_string(job_blocks));
  if (stage == "coefficients") {
    auto coefficients = output(coef_bytes);
    if (crop.whole()) {
      k.decode_tokens(*q, *job_buffer, *coefficients, info);
      out.bytes = read_back(*q, *coefficients, coef_bytes);
    } else {  // (a group's tokens decode together: the groups that hold the blocks)
      const std::uint32_t g0 = std::uint32_t(b0 / 64), g1 = std::uint32_t((b1 + 63) / 64);
      k.decode_tokens(*q, *job_buffer, *coefficients, info, {g0, g1 - g0});
      out.bytes = input_of(d, "coefficients", coef_bytes).bytes;
      const auto made =
          read_back(*q, *coefficients, std::size_t(b1 - b0) * 128, std::size_t(b0) * 128);
      std::copy(made.begin(), made.end(), out.bytes.begin() + std::ptrdiff_t(b0 * 128));
    }
  } else if (stage == "planes") {
    auto coefficients = upload(input_of(d, "coefficients", coef_bytes));
    auto planes = output(info.plane_bytes);
    if (crop.whole()) {
      k.idct(*q, *job_buffer, *coefficients, *planes, info);
      out.bytes = read_back(*q, *planes, info.plane_bytes);
    } else {
      k.idct(*q, *job_buffer, *coefficients, *planes, info,
             {std::uint32_t(b0), std::uint32_t(b1 - b0)});
      const auto made = read_back(*q, *planes, info.plane_bytes);
      out.bytes = input_of(d, "planes", info.plane_bytes).bytes;
      for (std::uint64_t b = b0; b < b1; ++b)
        copy_block_samples(h, b, info.sample_bytes, made, out.bytes);
    }
  } else if (stage == "image") {
    auto planes = upload(input_of(d, "planes", info.plane_bytes));
    auto pixels = output(info.output_bytes());
    if (crop.whole()) {
      k.upsample_color(*q, *job_buffer, *planes, *pixels, 0, info);
      out.bytes = read_back(*q, *pixels, info.output_bytes());
    } else {
      detail::check_band(crop, info.height);
      const std::size_t row = std::size_t(info.width) * info.channels * info.sample_bytes;
      k.upsample_color(
          *q, *job_buffer, *planes, *pixels, 0, info,
          {std::uint32_t(crop.first_row * info.width), std::uint32_t(crop.rows * info.width)});
      const auto made =
          read_back(*q, *pixels, std::size_t(crop.rows) * row, std::size_t(crop.first_row) * row);
      out.bytes = input_of(d, "image", info.output_bytes()).bytes;
      std::copy(made.begin(), made.end(), out.bytes.begin() + std::ptrdiff_t(crop.first_row * row));
    }
  } else {
    throw Error(ErrorCode::InvalidArgument,
                "debug: stage " + stage +
                    " of jpeg-decode is not a device stage (the job is the "
                    "host's Huffman decoding)");
  }
  return out;
}

// The line `line` of `file` in a kernel program's text, by its #line directives.
std::string program_line(const std::string& text, const std::string& file, std::size_t line) {
  std::istringstream in(text);
  std::string l, at_file;
  std::size_t at_line = 1;
  while (std::getline(in, l)) {
    if (l.rfind("#line ", 0) == 0) {
      std::istringstream directive(l.substr(6));
      std::string name;
      directive >> at_line >> std::quoted(name);
      at_file = name;
      continue;
    }
    if (at_file == file && at_line == line) {
      const std::size_t first = l.find_first_not_of(" \t");
      return first == std::string::npos ? "" : l.substr(first);
    }
    ++at_line;
  }
  return "";
}

std::string kernel_source_line(const std::string& kernel, const std::string& file,
                               std::size_t line) {
#if HETCODEC_HAVE_OPENCL
  // The program that names the kernel first (a portable header's line is the same in each).
  std::string found;
  for (const auto& src : opencl::embedded_sources()) {
    const std::string text = src.text;
    const std::string l = program_line(text, file, line);
    if (l.empty()) continue;
    if (text.find(kernel) != std::string::npos) return l;
    if (found.empty()) found = l;
  }
  return found;
#else
  (void)kernel, (void)file, (void)line;
  return "";
#endif
}

}  // namespace

StageDump dump_jpeg_encode_stages(const std::shared_ptr<Device>& device, const Image& image,
                                  JpegEncodeOptions options) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "debug: no device");
  options.entropy = JpegEntropy::Device;
  options.batch_streams = 1;
  StageDump dump;
  dump.pipeline = "jpeg-encode";
  dump.device = device->info().spec;
  dump.device_name = device->info().name;
  JpegEncoder encoder(device, options);
  auto words = [](Queue& q, const DeviceBuffer& b, std::size_t word, std::size_t count) {
    return read_back(q, b, count * 4, word * 4);
  };
  detail::JpegEncoderAccess::observe(encoder, [&](const detail::JpegEncodeSnapshot& s) {
    const hc_jenc_batch& h = s.head;
    const std::string stage = s.stage;
    if (stage == "blocks") {
      const std::size_t pixel_bytes = image.pixels.size();
      dump.stages.push_back({"pixels",
                             "u8",
                             {pixel_bytes},
                             "the image's samples as uploaded (rows x columns x channels)",
                             read_back(s.queue, s.pixels, pixel_bytes)});
      dump.stages.push_back(
          {"plan",
           "u32",
           {s.plan.size()},
           "the launch's plan: its header (hc_jenc_batch), image table, "
           "work-group map and the image's plan with its Huffman codes",
           std::vector<std::uint8_t>(
               reinterpret_cast<const std::uint8_t*>(s.plan.data()),
               reinterpret_cast<const std::uint8_t*>(s.plan.data()) + s.plan.size() * 4)});
      std::vector<std::uint8_t> bytes = read_back(s.queue, s.coefs, std::size_t(h.blocks) * 128);
      dump.stages.push_back({"blocks",
                             "i16",
                             {h.blocks, 64},
                             "coded blocks in coding order (each MCU's blocks, component by "
                             "component) x 64 quantised coefficients in zigzag order",
                             std::move(bytes)});
      dump.parameters = {{"blocks", h.blocks},
                         {"intervals", h.intervals},
                         {"optimize", options.optimize ? 1u : 0u},
                         {"width", std::uint64_t(image.width)},
                         {"height", std::uint64_t(image.height)},
                         {"channels", std::uint64_t(image.channels())}};
    } else if (stage == "positions") {
      dump.stages.push_back({"positions",
                             "u32",
                             {h.pos_count},
                             "each block's first bit in the packed data (an interval's end "
                             "padded to a byte), then the total",
                             words(s.queue, s.work, h.w_pos, h.pos_count)});
    } else if (s.data) {
      const std::vector<std::uint8_t> r = words(s.queue, s.work, h.w_results, HC_JENC_RESULT_WORDS);
      std::uint32_t bytes = 0;
      std::memcpy(&bytes, r.data() + 4 * HC_JENC_R_BYTES, 4);
      if (stage == "packed") {
        std::vector<std::uint8_t> packed =
            read_back(s.queue, *s.data, bytes, std::size_t(hc_jenc_w_data(bytes)) * 4);
        dump.stages.push_back({"packed",
                               "u8",
                               {bytes},
                               "the entropy-coded bytes, intervals back to back, without "
                               "stuffed 0x00 bytes or markers",
                               std::move(packed)});
      } else {
        const std::uint32_t entries = hc_jenc_chunks(bytes) + 1;
        dump.stages.push_back({"stuffing",
                               "u32",
                               {entries},
                               "the 0xFF bytes before each 32-byte chunk of the packed bytes, "
                               "then the total",
                               words(s.queue, *s.data, 0, entries)});
      }
    }
  });
  std::vector<std::uint8_t> file = encoder.encode(image);
  dump.stages.push_back({"file", "u8", {file.size()}, "the JPEG file", std::move(file)});
  return dump;
}

namespace {

// A jpeg-encode stage made again: the encoder's stages from the first to the one that leaves
// that buffer, from the dump's samples and plan, into zeroed buffers.
StageBuffer replay_jpeg_encode(const std::shared_ptr<Device>& device, const StageDump& d,
                               const std::string& stage) {
  const int last = stage == "blocks"      ? 0
                   : stage == "positions" ? 1
                   : stage == "packed"    ? 2
                   : stage == "stuffing"  ? 3
                                          : -1;
  if (last < 0)
    throw Error(ErrorCode::InvalidArgument, "debug: stage " + stage +
                                                " of jpeg-encode does not replay (the file is made "
                                                "by scatter and the host)");
  if (parameter(d, "optimize") != 0)
    throw Error(ErrorCode::Unsupported,
                "debug: the stages of an encode with optimised tables do not replay (the host "
                "makes the tables between them)");
  const std::vector<std::uint32_t> words = detail::words_of(stage_of(d, "plan"));
  hc_jenc_batch h{};
  if (words.size() * 4 < sizeof h)
    throw Error(ErrorCode::InvalidArgument, "debug: the plan stage lacks its header");
  std::memcpy(&h, words.data(), sizeof h);
  if (h.blocks != parameter(d, "blocks") || h.w_hist > (1u << 28) || h.plans > words.size() ||
      h.w_pos + std::uint64_t(h.pos_count) > h.w_hist)
    throw Error(ErrorCode::InvalidArgument, "debug: the dump's plan and parameters disagree");
  Device& dev = *device;
  std::unique_ptr<Queue> q = dev.create_queue();
  JpegEncodeKernels& k = dev.jpeg_encode();
  auto pixels = detail::upload_bytes(dev, *q, stage_of(d, "pixels").bytes);
  auto plan = detail::upload_bytes(
      dev, *q,
      std::vector<std::uint8_t>(
          reinterpret_cast<const std::uint8_t*>(words.data()),
          reinterpret_cast<const std::uint8_t*>(words.data()) + words.size() * 4));
  auto work = detail::zeroed(dev, *q, std::size_t(h.w_hist) * 4);
  auto coefs = detail::zeroed(dev, *q, std::size_t(h.blocks) * 128);
  // The stages as the encoder runs them: the data and output buffers made once the packed
  // size is known (the blocks' bound on it, or past kBoundedBytes the count the scan left).
  constexpr std::uint64_t kBoundedBytes = 64ull << 20;
  const std::uint64_t bound64 = (std::uint64_t(h.blocks) * 1681 + 7) / 8 + h.intervals;
  std::uint32_t bytes = 0;
  std::unique_ptr<DeviceBuffer> data, out;
  const int stages[4][2] = {{HC_JENC_BLOCKS, 0},
                            {HC_JENC_SCAN, HC_JENC_SCAN_POS},
                            {HC_JENC_PACK, 0},
                            {HC_JENC_SCAN, HC_JENC_SCAN_FF}};
  for (int i = 0; i <= last; ++i) {
    if (i == 2) {
      if (bound64 <= kBoundedBytes) {
        bytes = std::uint32_t(bound64);
      } else {
        const std::vector<std::uint8_t> r =
            read_back(*q, *work, 4, (std::size_t(h.w_results) + HC_JENC_R_BYTES) * 4);
        std::memcpy(&bytes, r.data(), 4);
        if (bytes > 0x7FFFFFFFu - 64u)
          throw Error(ErrorCode::LimitExceeded, "debug: more than 2^31 packed bytes");
      }
      data = detail::zeroed(dev, *q,
                            (std::size_t(hc_jenc_w_data(bytes)) + hc_jenc_data_words(bytes)) * 4);
      out = detail::zeroed(dev, *q, hc_jenc_out_head(&h) + 2ull * bytes + 2ull * h.intervals + 16);
    }
    k.stage(*q, stages[i][0], std::uint32_t(stages[i][1]),
            hc_jenc_items(&h, bytes, stages[i][0], std::uint32_t(stages[i][1])), *pixels, *plan,
            *work, data ? *data : *work, *coefs, out ? *out : *work);
  }
  StageBuffer out_stage = stage_of(d, stage);
  if (last == 0) {
    out_stage.bytes = read_back(*q, *coefs, std::size_t(h.blocks) * 128);
  } else if (last == 1) {
    out_stage.bytes = read_back(*q, *work, std::size_t(h.pos_count) * 4, std::size_t(h.w_pos) * 4);
  } else {
    std::uint32_t packed = 0;
    const std::vector<std::uint8_t> r =
        read_back(*q, *work, 4, (std::size_t(h.w_results) + HC_JENC_R_BYTES) * 4);
    std::memcpy(&packed, r.data(), 4);
    bytes = std::min(packed, bytes);
    out_stage.bytes = last == 2
                          ? read_back(*q, *data, bytes, std::size_t(hc_jenc_w_data(bytes)) * 4)
                          : read_back(*q, *data, (std::size_t(hc_jenc_chunks(bytes)) + 1) * 4);
  }
  return out_stage;
}

}  // namespace

std::vector<std::string> replayable_stages(const StageDump& dump) {
  if (dump.pipeline == "jpeg-decode") return {"coefficients", "planes", "image"};
  if (dump.pipeline == "jpeg-encode") return {"blocks", "positions", "packed", "stuffing"};
  if (detail::other_pipeline(dump.pipeline)) return detail::other_replayable(dump);
  return {};
}

std::string crop_unit(const StageDump& dump, const std::string& stage) {
  if (dump.pipeline == "jpeg-decode")
    return stage == "image"                                 ? "rows"
           : (stage == "coefficients" || stage == "planes") ? "blocks"
                                                            : "";
  return crop_replayable(dump, stage) ? "rows" : "";
}

bool crop_replayable(const StageDump& dump, const std::string& stage) {
  if (dump.pipeline == "jpeg-decode") return !crop_unit(dump, stage).empty();
  if (dump.pipeline == "smooth") return stage == "output";
  if (dump.pipeline == "ljpeg-decode") return stage == "image";
  if (dump.pipeline == "png-decode" && (stage == "defiltered" || stage == "image"))
    return detail::parameter_or(dump, "interlace", 1) == 0;
  return false;
}

StageBuffer replay_stage(const std::shared_ptr<Device>& device, const StageDump& dump,
                         const std::string& stage, const ReplayCrop& crop) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "debug: no device");
  if (!crop.whole()) {
    const std::string unit = crop_unit(dump, stage);
    if (unit.empty()) detail::no_crop(dump.pipeline, stage);
    if ((unit == "rows" && crop.blocks) || (unit == "blocks" && crop.rows))
      throw Error(ErrorCode::InvalidArgument, "debug: stage " + stage + " of " + dump.pipeline +
                                                  " crops by " + unit + " alone");
  }
  if (dump.pipeline == "jpeg-decode") return replay_jpeg_decode(device, dump, stage, crop);
  if (dump.pipeline == "jpeg-encode") return replay_jpeg_encode(device, dump, stage);
  if (detail::other_pipeline(dump.pipeline)) return detail::other_replay(device, dump, stage, crop);
  throw Error(ErrorCode::Unsupported, "debug: no replay for pipeline " + dump.pipeline);
}

std::vector<EmulatorReport> summarise_emulator_log(const std::string& log) {
  std::vector<EmulatorReport> reports;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  const std::regex address(" *address 0x[0-9a-fA-F]+");
  const std::regex at_line(R"(At line ([0-9]+) \(column [0-9]+\) of (.*):)");
  EmulatorReport current;
  bool open = false;
  auto close = [&] {
    if (!open) return;
    open = false;
    auto key = std::make_tuple(current.message, current.kernel, current.location);
    auto it = index.find(key);
    if (it != index.end()) {
      ++reports[it->second].count;
      return;
    }
    const std::size_t colon = current.location.rfind(':');
    if (colon != std::string::npos)
      current.source = kernel_source_line(current.kernel, current.location.substr(0, colon),
                                          std::stoul(current.location.substr(colon + 1)));
    current.count = 1;
    index.emplace(key, reports.size());
    reports.push_back(current);
  };
  std::istringstream in(log);
  std::string l;
  while (std::getline(in, l)) {
    if (l.empty()) continue;
    if (l[0] != '\t' && l[0] != ' ') {  // a report's first line
      close();
      current = EmulatorReport{};
      current.message = std::regex_replace(l, address, "");
      if (current.message.rfind("Oclgrind: ", 0) == 0) current.message.erase(0, 10);
      open = true;
      continue;
    }
    const std::size_t first = l.find_first_not_of(" \t");
    if (!open || first == std::string::npos) continue;
    const std::string t = l.substr(first);
    std::smatch m;
    if (t.rfind("Kernel: ", 0) == 0 && current.kernel.empty()) {
      current.kernel = t.substr(8);
    } else if ((t.rfind("Entity: ", 0) == 0 || t.rfind("First entity: ", 0) == 0) &&
               current.entity.empty()) {
      current.entity = t.substr(t.find(':') + 1);
      current.entity.erase(0, current.entity.find_first_not_of(' '));
    } else if (current.location.empty() && std::regex_match(t, m, at_line)) {
      current.location = m[2].str() + ":" + m[1].str();
    }
  }
  close();
  return reports;
}

namespace {

// Element `element` of a jpeg-encode stage, in the encoder's terms.
std::string locate_encode(const StageDump& d, const StageBuffer& s, std::size_t element) {
  std::ostringstream w;
  if (s.name == "pixels") {
    const std::uint64_t width = parameter(d, "width"), channels = parameter(d, "channels");
    if (width && channels) return detail::pixel_of(element, width, channels);
  }
  if (s.name == "plan")
    w << "plan word " << element;
  else if (s.name == "blocks")
    w << "block " << element / 64 << " (coding order), coefficient " << element % 64
      << " of zigzag order";
  else if (s.name == "positions")
    w << "the first bit of block " << element;
  else if (s.name == "packed")
    w << "packed byte " << element << " (bits " << element * 8 << ".." << element * 8 + 7 << ")";
  else if (s.name == "stuffing")
    w << "the 0xFF count before chunk " << element << " (packed bytes from " << element * 32 << ")";
  else
    w << s.name << " byte " << element;
  return w.str();
}

}  // namespace

std::optional<StageDifference> first_difference(const StageDump& a, const StageDump& b) {
  if (a.pipeline != b.pipeline || a.stages.size() != b.stages.size())
    throw Error(ErrorCode::InvalidArgument, "debug: dumps of different pipelines (" + a.pipeline +
                                                ", " + b.pipeline + ")");
  const StageBuffer* job = nullptr;
  for (const StageBuffer& s : a.stages)
    if (s.name == "job") job = &s;
  for (std::size_t i = 0; i < a.stages.size(); ++i) {
    const StageBuffer &sa = a.stages[i], &sb = b.stages[i];
    if (sa.name != sb.name)
      throw Error(ErrorCode::InvalidArgument,
                  "debug: stage " + std::to_string(i) + " is " + sa.name + " and " + sb.name);
    if (sa.bytes == sb.bytes) continue;
    StageDifference d;
    d.stage = sa.name;
    const std::size_t common = std::min(sa.bytes.size(), sb.bytes.size());
    std::size_t first = common;
    for (std::size_t j = 0; j < common; ++j) {
      if (sa.bytes[j] == sb.bytes[j]) continue;
      if (first == common) first = j;
      ++d.differing_bytes;
    }
    d.differing_bytes += std::max(sa.bytes.size(), sb.bytes.size()) - common;
    d.byte_offset = first;
    const std::size_t element = first / element_bytes(sa.element);
    if (first == common) {
      d.where = "the buffers' sizes: " + std::to_string(sa.bytes.size()) + " and " +
                std::to_string(sb.bytes.size()) + " bytes";
    } else if (a.pipeline == "jpeg-encode") {
      d.where = locate_encode(a, sa, element);
    } else if (a.pipeline == "jpeg-decode" && job) {
      d.where = locate(sa, element, job_header(*job));
    } else if (detail::other_pipeline(a.pipeline)) {
      d.where = detail::other_locate(a, sa, element);
    } else {
      d.where = "element " + std::to_string(element);
    }
    d.value_a = value_at(sa, element);
    d.value_b = value_at(sb, element);
    return d;
  }
  return std::nullopt;
}

std::optional<StageDifference> stage_difference(const StageDump& dump,
                                                const StageBuffer& replayed) {
  // (the dump with the replayed stage in place of its own: located with the same context)
  StageDump again = dump;
  bool found = false;
  for (StageBuffer& s : again.stages)
    if (s.name == replayed.name) s = replayed, found = true;
  if (!found)
    throw Error(ErrorCode::InvalidArgument, "debug: the dump has no stage " + replayed.name);
  StageDump a = dump, b = again;
  // Only the stage itself is compared; the stages before it are the dump's on both sides.
  auto keep = [&](StageDump& d) {
    std::vector<StageBuffer> kept;
    for (StageBuffer& s : d.stages)
      if (s.name == replayed.name || s.name == "job") kept.push_back(std::move(s));
    d.stages = std::move(kept);
  };
  keep(a);
  keep(b);
  return first_difference(a, b);
}

}  // namespace hetcodec
