// Lossless JPEG decode (DESIGN.md §3 "Lossless JPEG decode", docs/ljpeg-decode.md): the row
// table on the host (the caller's, restart markers, or the pre-pass), the file and the job to the
// device, then per scan the residual stage (a work-item per row) and the reconstruction, then
// the output pixels.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/jpeg/entropy_device.h"
#include "core/jpeg/lossless.h"
#include "core/jpeg/metadata.h"
#include "core/jpeg/parser.h"
#include "core/portable/ljpeg.h"
#include "host/src/jpeg_decoder_impl.h"
#include "host/src/ljpeg_scans.h"

namespace hetcodec {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void ensure(Device& d, std::unique_ptr<DeviceBuffer>& b, std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 16);
  if (!b || b->size() < bytes) {
    b.reset();
    b = d.alloc(bytes);
  }
}

// memcpy on up to `threads` threads (0: hardware threads), in pieces of at least 2 MiB: one
// thread copies a few GB/s, short of what the transfer to the device then takes.
void copy_parallel(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, int threads) {
  constexpr std::size_t kPiece = std::size_t(2) << 20;
  std::size_t t =
      threads > 0 ? std::size_t(threads) : std::max(1u, std::thread::hardware_concurrency());
  t = std::min(t, (n + kPiece - 1) / kPiece);
  if (t <= 1) {
    std::memcpy(dst, src, n);
    return;
  }
  const std::size_t per = (n + t - 1) / t;
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < t; ++k)
    pool.emplace_back([=] {
      const std::size_t a = std::min(n, k * per), b = std::min(n, a + per);
      std::memcpy(dst + a, src + a, b - a);
    });
  std::memcpy(dst, src, std::min(n, per));
  for (auto& th : pool) th.join();
}

// JpegEntropy::Auto finds the row table of a lossless file of at least this many bytes on a GPU.
constexpr std::size_t kAutoDeviceRowsBytes = 256 << 10;

PixelFormat lossless_format(int channels) {
  return channels == 1   ? PixelFormat::Gray
         : channels == 2 ? PixelFormat::GrayAlpha
         : channels == 3 ? PixelFormat::RGB
                         : PixelFormat::CMYK;
}

jpeg::Header parse_lossless(const std::uint8_t* data, std::size_t size,
                            const JpegDecodeOptions& options) {
  jpeg::Limits limits;
  limits.max_pixels = options.max_pixels;
  limits.max_scans = options.max_scans;
  return jpeg::parse(data, size, limits);
}

}  // namespace

std::vector<LjpegScanInfo> detail::lossless_scans(const jpeg::LosslessLayout& L, int threads,
                                                  std::size_t& status_bytes,
                                                  std::size_t& scratch_bytes) {
  std::vector<LjpegScanInfo> infos;
  for (std::size_t k = 0; k < L.scans.size(); ++k) {
    const jpeg::LosslessScan& ls = L.scans[k];
    LjpegScanInfo info;
    info.scan = std::uint32_t(k);
    info.plane_offset = L.plane_offsets[k];
    info.width = ls.width;
    info.height = ls.height;
    info.comps = std::uint32_t(ls.components.size());
    info.predictor = std::uint32_t(ls.predictor);
    info.restart_rows = std::uint32_t(ls.restart_rows) * ls.mcu_v;
    info.mcu_v = ls.mcu_v;
    info.status_offset = status_bytes;
    info.cpu_threads = threads;
    status_bytes += std::size_t(ls.coded_rows()) * 4 * HC_LJ_STATUS_WORDS;
    scratch_bytes = std::max(scratch_bytes, LjpegKernels::scratch_bytes(info));
    infos.push_back(info);
  }
  return infos;
}

// libjpeg-turbo 3 turns IDCT scaling off for lossless files and decodes them whole; a caller
// who asked for 1/N is told instead of being handed a full-size image.
void JpegDecoder::Impl::check_lossless_scale() const {
  if (options.scale_denom != 1)
    throw Error(ErrorCode::Unsupported,
                "jpeg: lossless JPEG (SOF3) is not decoded scaled (scale 1/" +
                    std::to_string(options.scale_denom) + "); decode it at scale 1");
}

bool JpegDecoder::Impl::wants_device_rows(std::size_t size) const {
  return detail::device_entropy_chosen(options.entropy, device->info(), size, kAutoDeviceRowsBytes);
}

void JpegDecoder::Impl::decode_lossless(const std::uint8_t* data, std::size_t size,
                                        const std::vector<std::uint64_t>* row_table, Image* out,
                                        DeviceImage* device_out, LosslessReport* report,
                                        bool profile) {
  check_lossless_scale();
  const auto t0 = Clock::now();
  const jpeg::Header h = parse_lossless(data, size, options);
  const jpeg::LosslessLayout L = jpeg::lossless_layout(h);
  jpeg::RowTables tables;
  if (row_table) {
    tables = jpeg::row_tables_given(*row_table, L);
  } else {
    tables = jpeg::row_tables_from_markers(data, size, h, L);
  }
  // No table yet: the device's stages find it after the upload (placeholders in the job until
  // then), or the host's pre-pass now.
  const bool device_rows = tables.scans.empty() && wants_device_rows(size) &&
                           jpeg::DeviceEntropyPlan::supports_lossless(h, L);
  if (device_rows) {
    for (const jpeg::LosslessScan& ls : L.scans) {
      jpeg::RowTable t;
      t.source = jpeg::RowTableSource::Device;
      t.starts.assign(ls.coded_rows(), 0);
      tables.scans.push_back(std::move(t));
    }
  } else if (tables.scans.empty()) {
    tables = jpeg::row_tables_prepass(data, size, h, L, options.threads);
  }
  std::vector<std::uint32_t> job = jpeg::lossless_job(h, L, tables);
  std::vector<std::string> warnings = h.warnings;
  warnings.insert(warnings.end(), tables.warnings.begin(), tables.warnings.end());
  Metadata metadata = jpeg::read_metadata(data, h, warnings);
  LosslessReport r;
  r.predictor = L.scans[0].predictor;
  r.precision = L.precision;
  r.point_transform = L.scans[0].pt;
  r.restart_interval = h.scans[0].restart_interval;
  r.scans = int(L.scans.size());
  r.row_table = jpeg::to_string(tables.scans[0].source);
  r.row_table_seconds = since(t0);

  Lossless& s = lossless;
  Device& d = *device;
  if (!s.queue) s.queue = d.create_queue();
  Queue& q = *s.queue;
  std::size_t status_bytes = 0, scratch_bytes = 0;
  const std::vector<LjpegScanInfo> infos =
      detail::lossless_scans(L, options.threads, status_bytes, scratch_bytes);
  const std::size_t pixel_bytes = std::size_t(L.channels) * std::size_t(L.depth);
  const std::size_t out_bytes = std::size_t(L.width) * std::size_t(L.height) * pixel_bytes;
  ensure(d, s.file, size);
  ensure(d, s.job, job.size() * 4);
  ensure(d, s.planes, L.planes_bytes);
  ensure(d, s.scratch, scratch_bytes);
  ensure(d, s.status, status_bytes);
  std::shared_ptr<DeviceBuffer> target;
  if (device_out) {
    target = d.alloc(std::max<std::size_t>(out_bytes, 1));
  } else {
    ensure(d, s.output, out_bytes);
  }
  DeviceBuffer& output = device_out ? *target : *s.output;
  const std::size_t staging = std::max(size, device_out ? 0 : out_bytes);
  if (!s.staging || s.staging->size() < staging) {
    s.staging.reset();
    s.staging = d.alloc_pinned(std::max<std::size_t>(staging, 16));
  }

  auto stage = [&](double& seconds, Clock::time_point& t) {
    if (!profile) return;
    q.finish();
    seconds = since(t);
    t = Clock::now();
  };
  auto t = Clock::now();
  if (d.info().is_emulator) {
    // Oclgrind does not see what the host writes into a mapped buffer: its checks would call
    // the file's bytes uninitialised.
    q.write(*s.file, 0, data, size);
  } else {
    copy_parallel(s.staging->data(), data, size, options.threads);
    q.write(*s.file, 0, *s.staging, 0, size);
  }
  q.write(*s.job, 0, job.data(), job.size() * 4);
  stage(r.upload_seconds, t);
  if (device_rows) {
    const auto tr = Clock::now();
    jpeg::DeviceEntropyPlan plan;
    plan.add_lossless(h, L, job, data, size, 0, detail::device_entropy_sub_bytes(size));
    detail::run_device_entropy(d, q, plan, *s.file, *s.job, 0, device_entropy, 32, HC_JH_ROWS);
    std::vector<std::string> none;
    if (!plan.outcome(0, device_entropy.status.data(), data, size, none)) {
      // Damaged, corrupt or unsettled: the pre-pass, with libjpeg-turbo's warnings.
      tables = jpeg::row_tables_prepass(data, size, h, L, options.threads);
      // (where the host path has them: after the parser's, before the metadata's)
      warnings.insert(warnings.begin() + std::ptrdiff_t(h.warnings.size()), tables.warnings.begin(),
                      tables.warnings.end());
      job = jpeg::lossless_job(h, L, tables);
      q.write(*s.job, 0, job.data(), job.size() * 4);
      r.row_table = jpeg::to_string(tables.scans[0].source);
    }
    r.row_table_seconds += since(tr);
    t = Clock::now();
  }
  if (d.info().is_emulator) {
    // Oclgrind takes the first sample of each row below the first, as the residual stage
    // writes it, for uninitialised on a buffer never written before (the bytes are written:
    // tests/test_ljpeg.cpp compares every sample, and compute-sanitizer's initcheck finds
    // nothing on CUDA); zeros first keep its checks on everything else.
    const std::vector<std::uint8_t> zeros(L.planes_bytes, 0);
    q.write(*s.planes, 0, zeros.data(), zeros.size());
  }
  LjpegKernels& k = d.ljpeg();
  for (const LjpegScanInfo& info : infos)
    k.residuals(q, *s.job, *s.file, *s.planes, *s.status, info);
  stage(r.residual_seconds, t);
  for (const LjpegScanInfo& info : infos) {
    // Oclgrind cannot see the ticket order's synchronisation (wavefront_body.h): it takes the
    // launch per diagonal.
    Wavefront order = options.lossless_order;
    if (d.info().is_emulator && order == Wavefront::Auto && info.predictor > 2)
      order = Wavefront::Diagonals;
    k.reconstruct(q, *s.planes, *s.scratch, info, order);
  }
  stage(r.reconstruct_seconds, t);
  k.unpack(q, *s.job, *s.planes, output, 0, std::uint32_t(L.width), std::uint32_t(L.height),
           std::uint32_t(pixel_bytes));
  stage(r.unpack_seconds, t);
  std::vector<std::uint32_t> status(status_bytes / 4);
  q.read(status.data(), *s.status, 0, status_bytes);
  if (out) q.read(*s.staging, 0, output, 0, out_bytes);
  q.finish();
  // The pre-pass gave libjpeg-turbo's warnings already; a given or marker-made table gets the
  // device's.
  if (tables.scans[0].source != jpeg::RowTableSource::PrePass) {
    for (std::size_t sc = 0; sc < infos.size(); ++sc) {
      const std::uint32_t* st = status.data() + infos[sc].status_offset / 4;
      int bad = -1, hit = -1;
      for (std::uint32_t y = 0; y < infos[sc].height / infos[sc].mcu_v; ++y) {
        if ((st[2 * y] & HC_LJ_ST_BAD_CODE) && bad < 0) bad = int(y);
        if ((st[2 * y] & HC_LJ_ST_HIT_MARKER) && hit < 0) hit = int(y);
      }
      const std::size_t base = L.scans[sc].data_offset;
      if (bad >= 0)
        warnings.push_back("corrupt JPEG data: bad Huffman code (scan " + std::to_string(sc) +
                           ", coded row " + std::to_string(bad) + ", byte " +
                           std::to_string(base + st[2 * bad + 1]) + ")");
      if (hit >= 0)
        warnings.push_back("corrupt JPEG data: premature end of data segment (scan " +
                           std::to_string(sc) + ", coded row " + std::to_string(hit) + ", byte " +
                           std::to_string(base + st[2 * hit + 1]) + ")");
    }
  }
  if (out) {
    const auto td = Clock::now();
    out->width = L.width;
    out->height = L.height;
    out->format = lossless_format(L.channels);
    out->bit_depth = 8 * L.depth;
    out->pixels.assign(s.staging->data(), s.staging->data() + out_bytes);
    out->warnings = std::move(warnings);
    out->metadata = std::move(metadata);
    r.download_seconds = since(td);
  } else if (device_out) {
    device_out->width = L.width;
    device_out->height = L.height;
    device_out->format = lossless_format(L.channels);
    device_out->bit_depth = 8 * L.depth;
    device_out->buffer = target;
    device_out->offset = 0;
    device_out->warnings = std::move(warnings);
    device_out->metadata = std::move(metadata);
  }
  r.total_seconds = since(t0);
  ++times.images;
  if (report) *report = r;
}

Image JpegDecoder::decode_lossless(const std::uint8_t* data, std::size_t size,
                                   const std::vector<std::uint64_t>* row_table,
                                   LosslessReport* report) {
  Image img;
  impl_->decode_lossless(data, size, row_table, &img, nullptr, report, false);
  return img;
}

DeviceImage JpegDecoder::decode_lossless_to_device(const std::uint8_t* data, std::size_t size,
                                                   const std::vector<std::uint64_t>* row_table,
                                                   LosslessReport* report) {
  DeviceImage img;
  impl_->decode_lossless(data, size, row_table, nullptr, &img, report, false);
  return img;
}

LosslessReport JpegDecoder::profile_lossless(const std::uint8_t* data, std::size_t size,
                                             const std::vector<std::uint64_t>* row_table,
                                             bool download) {
  LosslessReport r;
  Image img;
  DeviceImage dimg;
  impl_->decode_lossless(data, size, row_table, download ? &img : nullptr,
                         download ? nullptr : &dimg, &r, true);
  return r;
}

std::vector<std::uint8_t> JpegDecoder::lossless_row_table(const std::uint8_t* data,
                                                          std::size_t size) {
  const jpeg::Header h = parse_lossless(data, size, impl_->options);
  const jpeg::LosslessLayout L = jpeg::lossless_layout(h);
  jpeg::RowTables tables = jpeg::row_tables_from_markers(data, size, h, L);
  if (tables.scans.empty())
    tables = jpeg::row_tables_prepass(data, size, h, L, impl_->options.threads);
  return jpeg::write_row_table_sidecar(tables);
}

std::vector<std::uint64_t> JpegDecoder::read_lossless_row_table(const std::uint8_t* data,
                                                                std::size_t size,
                                                                const std::uint8_t* sidecar,
                                                                std::size_t sidecar_size) const {
  const jpeg::Header h = parse_lossless(data, size, impl_->options);
  const jpeg::LosslessLayout L = jpeg::lossless_layout(h);
  std::size_t rows = 0;
  for (const auto& s : L.scans) rows += s.coded_rows();
  return jpeg::read_row_table_sidecar(sidecar, sidecar_size, rows);
}

}  // namespace hetcodec
