// Pipelines stage by stage, for debugging across devices (hetcodec/debug.h).
#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

#include "backends/backend.h"
#include "core/portable/jpeg_job.h"
#include "hetcodec/debug.h"
#include "host/src/jpeg_prepare.h"

namespace hetcodec {

namespace {

std::vector<std::uint8_t> read_back(Queue& q, const DeviceBuffer& b, std::size_t bytes) {
  std::vector<std::uint8_t> out(bytes);
  if (bytes) q.read(out.data(), b, 0, bytes);
  q.finish();
  return out;
}

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
  if (s.name == "image" && s.shape.size() == 3) {
    const std::size_t c = s.shape[2], x = element / c % s.shape[1], y = element / c / s.shape[1];
    w << "pixel (" << x << ", " << y << "), channel " << element % c;
    return w.str();
  }
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
    } else {
      d.where = job ? locate(sa, element, job_header(*job)) : "element " + std::to_string(element);
    }
    d.value_a = value_at(sa, element);
    d.value_b = value_at(sb, element);
    return d;
  }
  return std::nullopt;
}

}  // namespace hetcodec
