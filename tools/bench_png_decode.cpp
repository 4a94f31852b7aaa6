// `hetcodec bench png-decode`: PNG decoding from PNG bytes to samples on the host, per selected
// device, one image at a time and several decoders at once, on files written by libpng and by
// hetcodec's parallel mode, with libpng and zlib's inflate alone measured in the same run.
#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "core/png/reader.h"
#include "host/src/parallel.h"
#include "tools/bench_failures.h"
#include "tools/bench_png_common.h"
#include "tools/cli.h"
#include "tools/libpng_write.h"

namespace hetcodec::tools {
namespace {

struct BenchPngDecodeOptions {
  std::vector<std::string> paths;
  std::string crop = "2040x1356";
  double min_time = 2.0;
  bool peers = true;
  int streams = 8;
  std::string wavefront = "auto";
  int segments = 0;
  std::string inflate = "both";
  std::size_t overlap = PngDecodeOptions{}.overlap_bytes;
  std::string json_path;
};

// libpng's decode of a file to its expanded samples (the peer).
std::size_t libpng_read(const std::vector<std::uint8_t>& file, std::vector<std::uint8_t>& out) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, file.data(), file.size()))
    throw Error(ErrorCode::InvalidData, std::string("libpng: ") + image.message);
  image.format = PNG_FORMAT_RGB;
  out.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.data(), 0, nullptr))
    throw Error(ErrorCode::InvalidData, std::string("libpng: ") + image.message);
  return out.size();
}

// The zlib stream of a file's IDAT chunks, joined.
std::vector<std::uint8_t> idat_of(const std::vector<std::uint8_t>& f) {
  std::vector<std::uint8_t> z;
  for (std::size_t at = 8; at + 12 <= f.size();) {
    const std::uint32_t len = std::uint32_t(f[at]) << 24 | std::uint32_t(f[at + 1]) << 16 |
                              std::uint32_t(f[at + 2]) << 8 | f[at + 3];
    if (std::equal(f.begin() + std::ptrdiff_t(at + 4), f.begin() + std::ptrdiff_t(at + 8), "IDAT"))
      z.insert(z.end(), f.begin() + std::ptrdiff_t(at + 8),
               f.begin() + std::ptrdiff_t(at + 8 + len));
    at += 12 + len;
  }
  return z;
}

struct DecodeSet {
  std::string name;
  std::vector<std::vector<std::uint8_t>> files;
  std::vector<double> mp;
};

// Decodes the set round-robin on `streams` threads for at least min_time seconds.
template <typename Make>
double measure_decode(const DecodeSet& set, double min_time, int streams, Make&& make) {
  return measure_streams(
      set.files.size(), [&set](std::size_t k) { return set.mp[k]; }, min_time, streams,
      [&make, &set] {
        auto decode = make();
        return [&set, decode](std::size_t k) { decode(set.files[k]); };
      });
}

// One result: a decoder (ours on a device, or a peer) on one set of files, one image at a time
// (single) or several decoders at once (batch).
struct Row {
  std::string name, kind, files, mode;
  double mp_s;
  nlohmann::json device;
  // per image, on the decoding thread
  double inflate_ms = 0, upload_ms = 0, kernels_ms = 0, download_ms = 0;
};

void print(const Row& r) {
  std::fprintf(stdout, "%-44s %-30s %9.1f MP/s  %7.3f GP/s", r.name.c_str(), r.files.c_str(),
               r.mp_s, r.mp_s / 1000.0);
  if (r.kind == "hetcodec")
    std::fprintf(stdout, "  (ms per image: host %.2f, upload %.2f, kernels %.2f, download %.2f)",
                 r.inflate_ms, r.upload_ms, r.kernels_ms, r.download_ms);
  std::fprintf(stdout, "\n");
  std::fflush(stdout);
}

// Our decoder on `device`: `streams` decoders at once on the set, inflating `where`, with pieces
// of `overlap` bytes; the row, its stage times per image included.
Row measure_ours(const std::shared_ptr<Device>& device, const DeviceInfo& info,
                 const DecodeSet& set, PngInflate where, int streams, std::size_t overlap,
                 const BenchPngDecodeOptions& o) {
  std::vector<std::shared_ptr<PngDecoder>> decoders;
  std::mutex m;
  const double v = measure_decode(set, o.min_time, streams, [&] {
    PngDecodeOptions po;
    // The host threads (inflating hcRS segments) shared among the decoders at once.
    po.threads = std::max(1, int(std::thread::hardware_concurrency()) / streams);
    po.inflate = where;
    po.overlap_bytes = overlap;
    po.wavefront = o.wavefront == "tickets"     ? Wavefront::Tickets
                   : o.wavefront == "diagonals" ? Wavefront::Diagonals
                                                : Wavefront::Auto;
    auto dec = std::make_shared<PngDecoder>(device, po);
    auto out = std::make_shared<Image>();
    for (const auto& f : set.files) dec->decode(f.data(), f.size(), *out);  // warm-up
    dec->reset_stage_times();
    {
      std::lock_guard<std::mutex> lock(m);
      decoders.push_back(dec);
    }
    return
        [dec, out](const std::vector<std::uint8_t>& f) { dec->decode(f.data(), f.size(), *out); };
  });
  double inflate = 0, up = 0, kern = 0, down = 0;
  std::uint64_t images = 0;
  for (const auto& d : decoders) {
    images += d->stage_times().images;
    inflate += d->stage_times().inflate;
    up += d->stage_times().upload;
    kern += d->stage_times().kernels;
    down += d->stage_times().download;
  }
  Row r{"hetcodec " + info.spec,           "hetcodec", set.name,
        streams == 1 ? "single" : "batch", v,          to_json(info)};
  const double per = 1e3 / double(std::max<std::uint64_t>(1, images));
  r.inflate_ms = inflate * per;
  r.upload_ms = up * per;
  r.kernels_ms = kern * per;
  r.download_ms = down * per;
  return r;
}

// Every selected device on both sets: libpng's files inflated on the host, ours on the host
// and/or the device, one image at a time and `streams` at once.
void measure_device(const DeviceInfo& info, const DecodeSet& libpng_files,
                    const DecodeSet& parallel_files, const BenchPngDecodeOptions& o,
                    std::vector<Row>& rows) {
  {
    auto device = open_device(info.spec);
    std::vector<std::pair<const DecodeSet*, PngInflate>> runs = {{&libpng_files, PngInflate::Host}};
    if (o.inflate != "device") runs.push_back({&parallel_files, PngInflate::Host});
    if (o.inflate != "host") runs.push_back({&parallel_files, PngInflate::Device});
    for (const auto& [set, where] : runs) {
      // The parallel-mode files inflated on the host, one at a time: also without the overlap of
      // the pieces' device work with the inflate (PngDecodeOptions::overlap_bytes), for
      // comparison (in batch mode each decoder has too few host threads to take pieces).
      std::vector<std::size_t> overlaps = {o.overlap};
      if (set == &parallel_files && where == PngInflate::Host && o.overlap) overlaps.push_back(0);
      for (const int streams : {1, o.streams})
        for (const std::size_t overlap : overlaps) {
          if (streams > 1 && overlap != o.overlap) continue;
          rows.push_back(measure_ours(device, info, *set, where, streams, overlap, o));
          if (where == PngInflate::Device) rows.back().name += " dev-inflate";
          if (streams > 1) rows.back().name += " x" + std::to_string(streams);
          if (!overlap && set == &parallel_files && where == PngInflate::Host)
            rows.back().name += " no-overlap";
          print(rows.back());
        }
    }
  }
}

// hetcodec's host stage alone (parse with every CRC, then the whole stream inflated on one
// thread: libdeflate when built with it), on one thread and on every host thread at once, one
// image each; then one image on every host thread: segments of an index, or pieces cut at block
// starts (core/png/split_inflate.h) when there is none, on a pool of threads. The most a decoder
// that inflates on this host can deliver.
void measure_host_inflate(const DecodeSet& set, const BenchPngDecodeOptions& o,
                          std::vector<Row>& rows) {
  const int all = int(std::max(1u, std::thread::hardware_concurrency()));
  for (const int streams : {1, all}) {
    const double h = measure_decode(set, o.min_time, streams, [] {
      auto buf = std::make_shared<std::vector<std::uint8_t>>();
      return [buf](const std::vector<std::uint8_t>& f) {
        const png::Info info = png::parse(f.data(), f.size());
        buf->resize(std::size_t(png::inflated_bytes(info)));
        std::vector<std::string> warnings;
        png::inflate_image(f.data(), info, buf->data(), warnings, 1);
      };
    });
    rows.push_back(
        {streams == 1 ? "host inflate only" : "host inflate only x" + std::to_string(streams),
         "inflate",
         set.name,
         streams == 1 ? "single" : "batch",
         h,
         {}});
    print(rows.back());
  }
  const double h = measure_decode(set, o.min_time, 1, [all] {
    auto buf = std::make_shared<std::vector<std::uint8_t>>();
    auto pool = std::make_shared<detail::WorkerPool>();
    return [buf, pool, all](const std::vector<std::uint8_t>& f) {
      const png::Info info = png::parse(f.data(), f.size());
      buf->resize(std::size_t(png::inflated_bytes(info)));
      std::vector<std::string> warnings;
      png::inflate_image(f.data(), info, buf->data(), warnings, all, nullptr,
                         [&](int n, const std::function<void(int)>& fn) { pool->run(n, fn); });
    };
  });
  rows.push_back({"host inflate only, " + std::to_string(all) + " threads",
                  "inflate",
                  set.name,
                  "single",
                  h,
                  {}});
  print(rows.back());
}

// The peers on one set: libpng, zlib's inflate alone (a bound on any decoder that inflates on one
// thread), and our host stage alone.
void measure_peers(const DecodeSet& set, int cw, int ch, const BenchPngDecodeOptions& o,
                   std::vector<Row>& rows) {
  for (const int streams : {1, o.streams}) {
    const double v = measure_decode(set, o.min_time, streams, [] {
      auto buf = std::make_shared<std::vector<std::uint8_t>>();
      return [buf](const std::vector<std::uint8_t>& f) { libpng_read(f, *buf); };
    });
    rows.push_back({streams == 1 ? "libpng" : "libpng x" + std::to_string(streams),
                    "libpng",
                    set.name,
                    streams == 1 ? "single" : "batch",
                    v,
                    {}});
    print(rows.back());
  }
  std::vector<std::vector<std::uint8_t>> streams_z;
  for (const auto& f : set.files) streams_z.push_back(idat_of(f));
  DecodeSet z{set.name, streams_z, set.mp};
  const double v = measure_decode(z, o.min_time, 1, [&] {
    auto buf = std::make_shared<std::vector<std::uint8_t>>(std::size_t(cw) * ch * 8 + ch);
    return [buf](const std::vector<std::uint8_t>& s) {
      uLongf n = uLongf(buf->size());
      if (uncompress(buf->data(), &n, s.data(), uLong(s.size())) != Z_OK)
        throw Error(ErrorCode::InvalidData, "zlib: uncompress failed");
    };
  });
  rows.push_back({"zlib inflate only", "inflate", set.name, "single", v, {}});
  print(rows.back());
  measure_host_inflate(set, o, rows);
}

void write_json(const std::vector<Row>& rows, const std::string& source, double total_mp,
                const BenchPngDecodeOptions& o) {
  nlohmann::json j;
  j["benchmark"] = "png-decode";
  j["version"] = version();
  j["corpus"] = source;
  j["megapixels"] = total_mp;
  j["min_time_s"] = o.min_time;
  j["batch_streams"] = o.streams;
  j["overlap_bytes"] = o.overlap;
  for (const auto& r : rows) {
    nlohmann::json e = {{"name", r.name},
                        {"kind", r.kind},
                        {"files", r.files},
                        {"mode", r.mode},
                        {"megapixels_per_s", r.mp_s}};
    if (!r.device.is_null()) e["device"] = r.device;
    if (r.kind == "hetcodec") {
      e["ms_per_image"] = {{"host", r.inflate_ms},
                           {"upload", r.upload_ms},
                           {"kernels", r.kernels_ms},
                           {"download", r.download_ms}};
    }
    j["results"].push_back(e);
  }
  if (o.json_path == "-")
    std::cout << j.dump(2) << "\n";
  else
    write_bytes(o.json_path, j.dump(2) + "\n", {});
}

void run_bench_png_decode(const GlobalOptions& global, const BenchPngDecodeOptions& o) {
  int cw = 0, ch = 0;
  std::string source;
  const std::vector<Image> ims = bench_images(o.paths, o.crop, cw, ch, source);
  auto cpu = open_device("cpu");
  // The same images as libpng writes them by default, and as our parallel mode writes them.
  DecodeSet libpng_files{"libpng default files"}, parallel_files{"hetcodec parallel-mode files"};
  PngEncodeOptions eo;
  eo.segments = o.segments;
  PngEncoder encoder(cpu, eo);
  double total_mp = 0;
  for (const auto& im : ims) {
    const double mp = double(im.width) * double(im.height) / 1e6;
    total_mp += mp;
    libpng_files.files.push_back(libpng_write(im, -1));
    libpng_files.mp.push_back(mp);
    parallel_files.files.push_back(encoder.encode(im));
    parallel_files.mp.push_back(mp);
  }
  std::fprintf(stdout, "bench png-decode: %s, %.1f MP; %d streams in batch mode\n", source.c_str(),
               total_mp, o.streams);
  std::vector<Row> rows;
  BenchFailures failures("bench png-decode");
  for (const auto& info : selected_devices(global)) {
    try {
      measure_device(info, libpng_files, parallel_files, o, rows);
    } catch (const Error& e) {  // the other devices and the peers are still measured
      failures.add(info.spec + " (" + info.name + ")", e);
    }
  }
  if (o.peers) {
    for (const DecodeSet* set : {&libpng_files, &parallel_files}) {
      try {
        measure_peers(*set, cw, ch, o, rows);
      } catch (const std::exception& e) {
        failures.add("libpng and zlib on " + set->name, e.what());
      }
    }
    std::fprintf(stdout, "ratios (MP/s over MP/s, same files, same mode):\n");
    for (const auto& r : rows) {
      if (r.kind != "hetcodec") continue;
      for (const auto& p : rows)
        if (p.kind == "libpng" && p.files == r.files && p.mode == r.mode)
          std::fprintf(stdout, "  %s on %s / %s = %.2f\n", r.name.c_str(), r.files.c_str(),
                       p.name.c_str(), r.mp_s / p.mp_s);
    }
  }
  if (!o.json_path.empty()) write_json(rows, source, total_mp, o);
  failures.throw_if_any();
}

}  // namespace

void add_bench_png_decode_command(CLI::App& bench, GlobalOptions& global) {
  auto o = std::make_shared<BenchPngDecodeOptions>();
  auto* cmd = bench.add_subcommand(
      "png-decode",
      "PNG decoding, PNG bytes in, samples on the host, per selected device: one image at a\n"
      "time (single) and --streams decoders at once (batch), on the same images written by\n"
      "libpng (default settings) and by hetcodec's parallel mode; libpng and zlib's inflate\n"
      "alone in the same run.\n"
      "Inputs: image files or directories (PNM, PAM, PNG, JPEG), centre-cropped to --crop;\n"
      "without inputs, four synthetic photo-like images of that size.");
  add_image_options(*cmd, o->paths, o->crop, o->min_time);
  cmd->add_option("--streams", o->streams, "decoders at once in batch mode")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("!--no-peers", o->peers, "skip libpng and zlib");
  cmd->add_option("--wavefront", o->wavefront, "tile order of the de-filter")
      ->check(CLI::IsMember({"auto", "tickets", "diagonals"}))
      ->capture_default_str();
  cmd->add_option("--segments", o->segments,
                  "hcRS segments of the parallel-mode files (0: the encoder's default on the CPU "
                  "reference, one per core)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--inflate", o->inflate,
                  "where the parallel-mode files' segments are inflated: host threads, the "
                  "device (one work-item per segment), or both, measured one after the other")
      ->check(CLI::IsMember({"host", "device", "both"}))
      ->capture_default_str();
  cmd->add_option("--overlap", o->overlap,
                  "inflated bytes per piece when the parallel-mode files' device work overlaps "
                  "their host inflate (0: no overlap); one image at a time, the files are also "
                  "measured without it")
      ->capture_default_str();
  cmd->add_option("--json", o->json_path, "also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  cmd->callback([&global, o] { run_bench_png_decode(global, *o); });
}

}  // namespace hetcodec::tools
