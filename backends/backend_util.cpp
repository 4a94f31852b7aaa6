// What every backend shares behind the interface of backends/backend.h: the checks of each
// JpegKernels and PngKernels stage's arguments, made once before the backend's run_* (so a bad
// size is the same InvalidArgument on every device), the JPEG chunk table's writer, and the
// cache directory, HETCODEC_SYNC and kernel log helpers, and the device memory limit.
#include "backends/backend_util.h"

#include <algorithm>
#include <cctype>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "core/portable/filters.h"
#include "core/portable/jpeg_encode.h"
#include "core/portable/jpeg_huffman.h"
#include "core/portable/jpeg_job.h"
#include "backends/launch_plan.h"
#include "core/portable/ljpeg.h"
#include "core/portable/png_decode.h"
#include "core/portable/png_deflate.h"
#include "core/portable/png_inflate.h"

namespace hetcodec {

void check_range(const char* what, std::size_t offset, std::size_t bytes, std::size_t size) {
  if (offset > size || bytes > size - offset) {
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": range [" +
                                                std::to_string(offset) + ", +" +
                                                std::to_string(bytes) + ") outside a buffer of " +
                                                std::to_string(size) + " bytes");
  }
}

namespace {
std::atomic<std::uint64_t> g_device_to_host{0};
}  // namespace

void count_device_to_host(std::size_t bytes) {
  g_device_to_host.fetch_add(bytes, std::memory_order_relaxed);
}

std::uint64_t device_to_host_bytes() { return g_device_to_host.load(std::memory_order_relaxed); }

void check_alloc(const DeviceInfo& info, std::size_t bytes, const char* what) {
  if (info.max_alloc_bytes && bytes > info.max_alloc_bytes)
    throw Error(ErrorCode::LimitExceeded,
                info.spec + ": " + what + " of " + std::to_string(bytes) +
                    " bytes is over the device's largest single allocation, " +
                    std::to_string(info.max_alloc_bytes) + " bytes");
}

namespace {
// A size as "1048576", "512M", "512MiB", "2G" (binary units, K to T, case ignored); 0 for
// anything else.
std::uint64_t parse_size(const char* v) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v) return 0;
  std::string unit(end);
  for (char& c : unit) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  if (!unit.empty() && unit.back() == 'i') unit.pop_back();
  const std::string units = "kmgt";
  if (unit.empty()) return n;
  const auto at = units.find(unit);
  if (unit.size() != 1 || at == std::string::npos) return 0;
  return std::uint64_t(n) << (10 * (at + 1));
}
}  // namespace

Device::Device(DeviceInfo info) : info_(std::move(info)) {
  // $HETCODEC_DEVICE_MEMORY limits every device of the process (a size that does not parse:
  // no limit).
  if (const char* v = std::getenv("HETCODEC_DEVICE_MEMORY")) limit_ = parse_size(v);
}

std::unique_ptr<DeviceBuffer> Device::alloc(std::size_t bytes) {
  check_alloc(info_, bytes, "device buffer");
  // The bytes are taken before the runtime is asked, so that buffers made at once on several
  // threads cannot pass the limit together.
  const std::uint64_t before = in_use_->fetch_add(bytes, std::memory_order_relaxed);
  const std::uint64_t limit = memory_limit();
  if (limit && before + bytes > limit) {
    in_use_->fetch_sub(bytes, std::memory_order_relaxed);
    throw Error(ErrorCode::OutOfMemory,
                info_.spec + ": a device buffer of " + std::to_string(bytes) +
                    " bytes would pass the device memory limit of " + std::to_string(limit) +
                    " bytes (" + std::to_string(before) + " in use)");
  }
  std::unique_ptr<DeviceBuffer> buffer;
  try {
    buffer = make_buffer(bytes);
  } catch (...) {
    in_use_->fetch_sub(bytes, std::memory_order_relaxed);
    throw;
  }
  buffer->in_use_ = in_use_;
  return buffer;
}

std::uint64_t capped_max_alloc(std::uint64_t reported) {
  const char* v = std::getenv("HETCODEC_MAX_ALLOC");
  if (!v || !*v) return reported;
  char* end = nullptr;
  const unsigned long long cap = std::strtoull(v, &end, 10);
  if (*end || cap == 0) return reported;  // not a byte count: ignored
  return reported ? std::min<std::uint64_t>(reported, cap) : cap;
}

void PngKernels::filter_rows(Queue& queue, const DeviceBuffer& rows, DeviceBuffer& filtered,
                             const PngFilterInfo& info) {
  if (info.bpp < 1 || info.bpp > 8 || info.mask == 0 || info.mask > 0x1F ||
      info.row_bytes > PngFilterInfo::kMaxPngRowBytes ||
      (info.row_bytes && info.row_bytes < info.bpp))
    throw Error(ErrorCode::InvalidArgument,
                "filter_rows: row of " + std::to_string(info.row_bytes) + " bytes, " +
                    std::to_string(info.bpp) + " per pixel, filter mask " +
                    std::to_string(info.mask));
  check_range("filter_rows input", 0, std::size_t(info.height) * info.row_bytes, rows.size());
  check_range("filter_rows output", 0, std::size_t(info.height) * (std::size_t(info.row_bytes) + 1),
              filtered.size());
  if (info.height && info.row_bytes) run_filter_rows(queue, rows, filtered, info);
}

std::size_t PngKernels::defilter_scratch_bytes(const PngDefilterInfo& info) {
  return png_defilter_scratch_bytes(info);
}

void PngKernels::defilter(Queue& queue, DeviceBuffer& rows, DeviceBuffer& scratch,
                          const PngDefilterInfo& info, Wavefront order) {
  if (info.bpp < 1 || info.bpp > 8 || info.row_bytes > PngFilterInfo::kMaxPngRowBytes)
    throw Error(ErrorCode::InvalidArgument, "defilter: row of " + std::to_string(info.row_bytes) +
                                                " bytes, " + std::to_string(info.bpp) +
                                                " per pixel");
  check_range("defilter rows", info.offset,
              std::size_t(info.height) * (std::size_t(info.row_bytes) + 1), rows.size());
  if (order == Wavefront::Auto) order = Wavefront::Tickets;  // the host resolves it (png.h)
  if (!info.rows_independent && !info.bands && order == Wavefront::Tickets)
    check_range("defilter scratch", 0, defilter_scratch_bytes(info), scratch.size());
  if (info.height && info.row_bytes) run_defilter(queue, rows, scratch, info, order);
}

std::size_t LjpegKernels::scratch_bytes(const LjpegScanInfo& info) {
  return png_defilter_scratch_bytes(ljpeg_wavefront_info(info));
}

namespace {
void check_ljpeg_scan(const LjpegScanInfo& info, const DeviceBuffer& planes) {
  if (info.comps < 1 || info.comps > 4 || info.predictor < 1 || info.predictor > 7 ||
      info.mcu_v < 1 || info.mcu_v > 4 || info.height % info.mcu_v != 0 ||
      std::uint64_t(info.width) * info.comps * 2 > PngFilterInfo::kMaxPngRowBytes)
    throw Error(ErrorCode::InvalidArgument, "ljpeg: scan of " + std::to_string(info.comps) +
                                                " components, " + std::to_string(info.width) +
                                                " wide, predictor " +
                                                std::to_string(info.predictor));
  check_range("ljpeg plane", info.plane_offset, info.plane_bytes(), planes.size());
}
}  // namespace

void LjpegKernels::residuals(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& file,
                             DeviceBuffer& planes, DeviceBuffer& status,
                             const LjpegScanInfo& info) {
  check_ljpeg_scan(info, planes);
  check_range("ljpeg job", 0, 4 * HC_LJ_HEADER_WORDS, job.size());
  check_range("ljpeg status", info.status_offset,
              std::size_t(info.coded_rows()) * 4 * HC_LJ_STATUS_WORDS, status.size());
  if (file.size() == 0) throw Error(ErrorCode::InvalidArgument, "ljpeg: no file data");
  if (info.height && info.width) run_residuals(queue, job, file, planes, status, info);
}

void LjpegKernels::reconstruct(Queue& queue, DeviceBuffer& planes, DeviceBuffer& scratch,
                               const LjpegScanInfo& info, Wavefront order) {
  check_ljpeg_scan(info, planes);
  for (const LjpegPass& p : plan_ljpeg_reconstruct(info, order))
    if (p.kind == LjpegPassKind::Wavefront && p.wavefront.kernel == DefilterKernel::Clear)
      check_range("ljpeg scratch", 0, scratch_bytes(info), scratch.size());
  if (info.height && info.width) run_reconstruct(queue, planes, scratch, info, order);
}

void LjpegKernels::unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                          DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                          std::uint32_t height, std::uint32_t pixel_bytes) {
  check_range("ljpeg job", 0, 4 * HC_LJ_HEADER_WORDS, job.size());
  check_range("ljpeg output", out_offset, std::size_t(width) * height * pixel_bytes, out.size());
  if (width && height && planes.size())
    run_unpack(queue, job, planes, out, out_offset, width, height);
}

void JpegEncodeKernels::stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                              const DeviceBuffer& pixels, const DeviceBuffer& plan,
                              DeviceBuffer& work, DeviceBuffer& data, DeviceBuffer& coefs,
                              DeviceBuffer& out) {
  if (stage < 0 || stage >= HC_JENC_STAGES)
    throw Error(ErrorCode::InvalidArgument, "jpeg encode: no stage " + std::to_string(stage));
  check_range("jpeg encode plan", 0, 4 * HC_JENC_PLAN_TOTAL_WORDS, plan.size());
  if (items) run_stage(queue, stage, arg, items, pixels, plan, work, data, coefs, out);
}

void JpegEntropyKernels::stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                               const DeviceBuffer& plan, const DeviceBuffer& data,
                               DeviceBuffer& work, DeviceBuffer& coefs) {
  if (stage < 0 || stage >= HC_JH_STAGES)
    throw Error(ErrorCode::InvalidArgument, "jpeg entropy: no stage " + std::to_string(stage));
  check_range("jpeg entropy plan", 0, 4 * HC_JH_HEADER_WORDS, plan.size());
  if (items) run_stage(queue, stage, arg, items, plan, data, work, coefs);
}

void FilterKernels::run(Queue& queue, int kind, const hc_filter_params& p, const DeviceBuffer* src,
                        std::size_t src_offset, DeviceBuffer& dst, std::size_t dst_offset) {
  if (kind < 0 || kind >= HC_FILTER_KINDS)
    throw Error(ErrorCode::InvalidArgument, "filters: no kernel " + std::to_string(kind));
  if (p.channels < 1 || p.channels > 4 || p.colours > p.channels)
    throw Error(ErrorCode::InvalidArgument, "filters: " + std::to_string(p.colours) + " of " +
                                                std::to_string(p.channels) + " channels");
  // Pixel indices are 32-bit in the bodies.
  const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
  if (pixels > 0xffffffffu)
    throw Error(ErrorCode::InvalidArgument, "filters: " + std::to_string(pixels) + " pixels");
  const bool reads = kind == HC_FILTER_SMOOTH || kind == HC_FILTER_TEXTURE;
  const std::size_t per = kind == HC_FILTER_PERLIN && p.mode == HC_PERLIN_F32 ? 4 : p.channels;
  if (reads) {
    if (!src) throw Error(ErrorCode::InvalidArgument, "filters: no input image");
    check_range("filter input", src_offset, std::size_t(pixels) * p.channels, src->size());
  }
  check_range("filter output", dst_offset, std::size_t(pixels) * per, dst.size());
  if (kind == HC_FILTER_SMOOTH && p.tiles_x != (p.width + HC_SMOOTH_TILE - 1) / HC_SMOOTH_TILE)
    throw Error(ErrorCode::InvalidArgument, "filters: smoothing tiles across do not fit the width");
  if (pixels) run_kernel(queue, kind, p, src, src_offset, dst, dst_offset);
}

void PngKernels::unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& rows,
                        DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                        std::uint32_t height, std::uint32_t pixel_bytes) {
  if (pixel_bytes < 1 || pixel_bytes > 8)
    throw Error(ErrorCode::InvalidArgument,
                "unpack: " + std::to_string(pixel_bytes) + " bytes per pixel");
  check_range("unpack job", 0, HC_PNG_JOB_BYTES, job.size());
  check_range("unpack output", out_offset, std::size_t(width) * height * pixel_bytes, out.size());
  if (width && height) run_unpack(queue, job, rows, out, out_offset, width, height, pixel_bytes);
}

void PngKernels::inflate(Queue& queue, const DeviceBuffer& compressed, const DeviceBuffer& segments,
                         DeviceBuffer& rows, DeviceBuffer& results, std::uint32_t count) {
  check_range("inflate segments", 0, std::size_t(count) * HC_INF_WORDS * 4, segments.size());
  check_range("inflate results", 0, std::size_t(count) * HC_INF_RESULT_WORDS * 4, results.size());
  if (count) run_inflate(queue, compressed, segments, rows, results, count);
}

void PngKernels::crc32_pieces(Queue& queue, const DeviceBuffer& data, std::uint32_t bytes,
                              std::uint32_t piece, std::uint32_t skew, DeviceBuffer& crcs,
                              std::size_t crcs_offset, std::uint32_t count) {
  if (piece == 0) throw Error(ErrorCode::InvalidArgument, "crc32_pieces: pieces of 0 bytes");
  if (crcs_offset % 4)
    throw Error(ErrorCode::InvalidArgument,
                "crc32_pieces: results at a byte offset not a multiple of 4");
  check_range("crc32 data", 0, bytes, data.size());
  check_range("crc32 results", crcs_offset, std::size_t(count) * 4, crcs.size());
  if (count) run_crc32_pieces(queue, data, bytes, piece, skew, crcs, crcs_offset, count);
}

void PngKernels::deflate(Queue& queue, int stage, std::uint32_t items, const DeviceBuffer& data,
                         const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms,
                         DeviceBuffer& out) {
  if (stage < 0 || stage >= HC_DFL_STAGES)
    throw Error(ErrorCode::InvalidArgument, "deflate: stage " + std::to_string(stage));
  check_range("deflate plan", 0, HC_DFL_PLAN_HEADER * 4, plan.size());
  check_range("deflate work", 0, 4, work.size());
  if (data.size() % 8)
    throw Error(ErrorCode::InvalidArgument,
                "deflate: the data buffer is not a whole number of 8-byte words");
  if (items) run_deflate(queue, stage, items, data, plan, work, syms, out);
}

void JpegKernels::ycc_to_rgb(Queue& queue, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                             std::uint32_t pixels) {
  check_range("ycc_to_rgb input", 0, 3 * std::size_t(pixels), ycc.size());
  check_range("ycc_to_rgb output", 0, 3 * std::size_t(pixels), rgb.size());
  if (pixels) run_ycc_to_rgb(queue, ycc, rgb, pixels);
}

// The job's contents are written by host/ (core/jpeg/job.h) and trusted; its size and the
// sizes of the buffers the kernels write are checked here, once for every backend.
namespace {
void check_job(const char* what, const DeviceBuffer& job, const JpegJobInfo& info) {
  if (info.job_offset % kJpegJobAlign != 0)
    throw Error(ErrorCode::InvalidArgument,
                std::string(what) + ": offset " + std::to_string(info.job_offset) +
                    " is not a multiple of " + std::to_string(kJpegJobAlign));
  if (info.job_offset / 4 > 0xFFFFFFFFu)
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": offset beyond 16 GiB");
  check_range(what, info.job_offset, info.job_bytes, job.size());
}
}  // namespace

void JpegKernels::decode_idct(Queue& queue, const DeviceBuffer& job, DeviceBuffer& planes,
                              const JpegJobInfo& info) {
  check_job("decode_idct job", job, info);
  check_range("decode_idct planes", 0, info.plane_bytes, planes.size());
  if (info.groups) run_decode_idct(queue, job, planes, info);
}

namespace {

// `range` within `items` (count 0: all of them), or Error(InvalidArgument).
JpegLaunchRange range_within(const char* what, const JpegLaunchRange& range, std::uint64_t items) {
  if (items > 0xFFFFFFFFu)
    throw Error(ErrorCode::InvalidArgument,
                std::string(what) + ": " + std::to_string(items) + " items, past a launch's 2^32");
  if (range.count == 0 && range.first == 0) return {0, std::uint32_t(items)};
  if (range.count == 0 || range.first >= items || range.count > items - range.first)
    throw Error(ErrorCode::InvalidArgument,
                std::string(what) + ": items " + std::to_string(range.first) + " + " +
                    std::to_string(range.count) + " of " + std::to_string(items));
  return range;
}

}  // namespace

void JpegKernels::decode_tokens(Queue& queue, const DeviceBuffer& job, DeviceBuffer& coefficients,
                                const JpegJobInfo& info, const JpegLaunchRange& range) {
  check_job("decode_tokens job", job, info);
  check_range("decode_tokens coefficients", 0, std::size_t(info.groups) * 64 * 128,
              coefficients.size());
  const JpegLaunchRange r = range_within("decode_tokens groups", range, info.groups);
  if (r.count) run_decode_tokens(queue, job, coefficients, info, r);
}

void JpegKernels::idct(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& coefficients,
                       DeviceBuffer& planes, const JpegJobInfo& info,
                       const JpegLaunchRange& range) {
  check_job("idct job", job, info);
  check_range("idct coefficients", 0, std::size_t(info.groups) * 64 * 128, coefficients.size());
  check_range("idct planes", 0, info.plane_bytes, planes.size());
  const JpegLaunchRange r = range_within("idct blocks", range, std::uint64_t(info.groups) * 64);
  if (r.count) run_idct(queue, job, coefficients, planes, info, r);
}

void JpegKernels::upsample_color(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                                 DeviceBuffer& out, std::size_t out_offset, const JpegJobInfo& info,
                                 const JpegLaunchRange& range) {
  check_job("upsample_color job", job, info);
  check_range("upsample_color planes", 0, info.plane_bytes, planes.size());
  check_range("upsample_color output", out_offset, info.output_bytes(), out.size());
  const JpegLaunchRange r =
      range_within("upsample_color pixels", range, std::uint64_t(info.width) * info.height);
  if (r.count && info.output_bytes())
    run_upsample_color(queue, job, planes, out, out_offset, info, r);
}

std::size_t jpeg_chunk_table_bytes(std::size_t images) {
  return sizeof(hc_jpeg_chunk) + images * sizeof(hc_jpeg_chunk_entry);
}

namespace {
std::uint64_t colour_tiles(const JpegJobInfo& info) {
  return (std::uint64_t(info.width) * info.height + HC_CHUNK_TILE - 1) / HC_CHUNK_TILE;
}
}  // namespace

static_assert(sizeof(hc_jpeg_chunk) == 16 && sizeof(hc_jpeg_chunk_entry) == 32,
              "the chunk table's records: 32-bit words, no padding");

void write_jpeg_chunk_table(const std::vector<JpegChunkImage>& images, std::uint32_t* words) {
  std::uint64_t groups = 0, tiles = 0;
  for (std::size_t i = 0; i < images.size(); ++i) {
    const JpegChunkImage& im = images[i];
    hc_jpeg_chunk_entry e{};
    e.job = std::uint32_t(im.info.job_offset / 4);
    e.first_group = std::uint32_t(groups);
    e.first_tile = std::uint32_t(tiles);
    e.planes_lo = std::uint32_t(im.plane_offset);
    e.planes_hi = std::uint32_t(std::uint64_t(im.plane_offset) >> 32);
    e.out_lo = std::uint32_t(im.out_offset);
    e.out_hi = std::uint32_t(std::uint64_t(im.out_offset) >> 32);
    std::memcpy(reinterpret_cast<std::uint8_t*>(words) + sizeof(hc_jpeg_chunk) + i * sizeof e, &e,
                sizeof e);
    groups += im.info.groups;
    tiles += colour_tiles(im.info);
  }
  hc_jpeg_chunk h{};
  h.jobs = std::uint32_t(images.size());
  h.groups = std::uint32_t(groups);
  h.tiles = std::uint32_t(tiles);
  std::memcpy(words, &h, sizeof h);
}

namespace {
// Checks a chunk's images as the one-image stages check theirs (and, with `out`, their
// outputs); returns the work-groups of the decode launch (`groups`) and of the colour launch.
void check_chunk(const char* what, const DeviceBuffer& jobs, std::size_t table_offset,
                 const std::vector<JpegChunkImage>& images, const DeviceBuffer& planes,
                 const DeviceBuffer* out, std::uint32_t& groups, std::uint32_t& tiles) {
  const std::string name(what);
  if (table_offset % 4 != 0 || table_offset / 4 > 0xFFFFFFFFu)
    throw Error(ErrorCode::InvalidArgument,
                name + ": chunk table offset " + std::to_string(table_offset));
  check_range((name + " table").c_str(), table_offset, jpeg_chunk_table_bytes(images.size()),
              jobs.size());
  // Work-groups count in 32 bits, and a launch of CUDA's or OpenCL's holds 2^31 - 1 of them.
  std::uint64_t g = 0, t = 0;
  const std::string planes_name = name + " planes", out_name = name + " output";
  for (const JpegChunkImage& im : images) {
    check_job(what, jobs, im.info);
    check_range(planes_name.c_str(), im.plane_offset, im.info.plane_bytes, planes.size());
    if (out) check_range(out_name.c_str(), im.out_offset, im.info.output_bytes(), out->size());
    g += im.info.groups;
    t += colour_tiles(im.info);
  }
  if (g > 0x7FFFFFFFu || t > 0x7FFFFFFFu)
    throw Error(ErrorCode::InvalidArgument, name + ": too much work for one launch");
  groups = std::uint32_t(g);
  tiles = std::uint32_t(t);
}
}  // namespace

void JpegKernels::decode_idct_chunk(Queue& queue, const DeviceBuffer& jobs,
                                    std::size_t table_offset,
                                    const std::vector<JpegChunkImage>& images,
                                    DeviceBuffer& planes) {
  std::uint32_t groups = 0, tiles = 0;
  check_chunk("decode_idct_chunk", jobs, table_offset, images, planes, nullptr, groups, tiles);
  if (groups) run_decode_idct_chunk(queue, jobs, table_offset, groups, planes);
}

void JpegKernels::upsample_color_chunk(Queue& queue, const DeviceBuffer& jobs,
                                       std::size_t table_offset,
                                       const std::vector<JpegChunkImage>& images,
                                       const DeviceBuffer& planes, DeviceBuffer& out) {
  std::uint32_t groups = 0, tiles = 0;
  check_chunk("upsample_color_chunk", jobs, table_offset, images, planes, &out, groups, tiles);
  if (tiles) run_upsample_color_chunk(queue, jobs, table_offset, tiles, planes, out);
}

std::string cache_directory() {
  namespace fs = std::filesystem;
  fs::path dir;
  if (const char* v = std::getenv("HETCODEC_CACHE_DIR"); v && *v) {
    dir = v;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = fs::path(x) / "hetcodec";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = fs::path(h) / ".cache" / "hetcodec";
  } else {
    return {};
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  return fs::is_directory(dir, ec) ? dir.string() : std::string();
}

bool sync_each_launch() {
  static const bool sync = [] {
    const char* v = std::getenv("HETCODEC_SYNC");
    return v && *v && std::string(v) != "0";
  }();
  return sync;
}

namespace {
// $HETCODEC_KERNEL_LOG as the process found it first (empty: off).
const std::string& kernel_log_path() {
  static const std::string path = [] {
    const char* v = std::getenv("HETCODEC_KERNEL_LOG");
    return std::string(v ? v : "");
  }();
  return path;
}
}  // namespace

bool kernel_log_enabled() { return !kernel_log_path().empty(); }

void log_kernel(const std::string& name) {
  static std::mutex mutex;
  static std::set<std::string> logged;
  if (!kernel_log_enabled()) return;
  std::lock_guard<std::mutex> lock(mutex);
  if (!logged.insert(name).second) return;
  if (FILE* f = std::fopen(kernel_log_path().c_str(), "a")) {
    std::fprintf(f, "%s\n", name.c_str());
    std::fclose(f);
  }
}

}  // namespace hetcodec
