// `hetcodec bench png-encode` and `bench png-decode`. Encode: host samples to PNG bytes on the
// host, per selected device, in the compatible, parallel and small modes, with libpng (default
// settings, and the Z_RLE strategy) measured in the same run on the same images; output sizes
// against both. Decode: PNG bytes to host samples,
// one image at a time and several decoders at once, against libpng and zlib's inflate alone.
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
#include "core/png/small_deflate.h"
#include "host/src/parallel.h"
#include "tools/bench_failures.h"
#include "tools/bench_png_common.h"
#include "tools/cli.h"
#include "tools/libpng_write.h"

namespace hetcodec::tools {
namespace {

struct BenchPngOptions {
  std::vector<std::string> paths;
  std::string crop = "2040x1356";
  double min_time = 2.0;
  bool peers = true;
  int segments = 0;
  std::string deflate = "both";
  bool stages = false;
  int streams = 4;
  std::string json_path;
};

struct Result {
  std::string name, kind, mode, deflate;
  int level = 0;  // the small mode's libdeflate level
  nlohmann::json stages;
  int streams = 1;
  double mp_s = 0;
  std::uint64_t bytes = 0;
  nlohmann::json device;
};

// Encodes the images round-robin for at least `min_time` seconds after one warm-up pass.
template <typename Encode>
Result measure(const std::string& name, const std::string& kind, const std::vector<Image>& ims,
               double min_time, Encode&& encode) {
  Result r{name, kind};
  for (const auto& im : ims) r.bytes += encode(im).size();
  double mp = 0, t = 0;
  const auto t0 = Clock::now();
  std::size_t i = 0;
  do {  // at least once, so that --min-time 0 still gives a figure
    const Image& im = ims[i++ % ims.size()];
    encode(im);
    mp += double(im.width) * double(im.height) / 1e6;
    t = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (t < min_time);
  r.mp_s = mp / t;
  return r;
}

void print(const Result& r) {
  std::fprintf(stdout, "%-52s %9.1f MP/s  %7.3f GP/s  %10llu bytes\n", r.name.c_str(), r.mp_s,
               r.mp_s / 1000.0, (unsigned long long)r.bytes);
  std::fflush(stdout);
}

// Each step of an encoder with `opts` timed apart (the device waited for after each), printed
// and kept in `r.stages`.
void time_steps(const std::shared_ptr<Device>& device, PngEncodeOptions opts,
                const std::vector<Image>& ims, Result& r) {
  opts.profile = true;
  PngEncoder timed(device, opts);
  for (const auto& im : ims) timed.encode(im);  // warm-up: allocations
  timed.reset_stage_times();
  for (const auto& im : ims) timed.encode(im);
  const PngEncoder::StageTimes& st = timed.stage_times();
  const double n = double(std::max<std::uint64_t>(st.images, 1)) / 1000.0;
  std::fprintf(stdout,
               "    ms per image: upload %.3f, filter %.3f, device deflate %.3f, download "
               "%.3f, host %.3f\n",
               st.upload / n, st.filter / n, st.deflate / n, st.download / n, st.host / n);
  if (!st.deflate_stages.empty() && st.deflate > 0) {
    std::fprintf(stdout, "    device deflate stages, ms:");
    for (double v : st.deflate_stages) std::fprintf(stdout, " %.3f", v / n);
    std::fprintf(stdout, "\n");
  }
  r.stages = {{"upload_ms", st.upload / n},
              {"filter_ms", st.filter / n},
              {"deflate_ms", st.deflate / n},
              {"download_ms", st.download / n},
              {"host_ms", st.host / n}};
  std::vector<double> ds;
  for (double v : st.deflate_stages) ds.push_back(v / n);
  r.stages["deflate_stages_ms"] = ds;
}

// Several encoders with `opts` at once on the same device, one per thread (each with its own
// queue), sharing the host threads: the row `single` measured as a batch.
Result measure_batch(const std::shared_ptr<Device>& device, const PngEncodeOptions& opts,
                     const std::vector<Image>& ims, const Result& single,
                     const BenchPngOptions& o) {
  Result batch = single;
  batch.name += " x" + std::to_string(o.streams);
  PngEncodeOptions bo = opts;
  bo.profile = false;  // (these rows measure the pipeline)
  bo.threads = std::max(1, int(std::thread::hardware_concurrency()) / o.streams);
  batch.mp_s = measure_streams(
      ims.size(),
      [&ims](std::size_t k) { return double(ims[k].width) * double(ims[k].height) / 1e6; },
      o.min_time, o.streams,
      [&] {
        auto enc = std::make_shared<PngEncoder>(device, bo);
        return [enc, &ims](std::size_t k) { enc->encode(ims[k]); };
      });
  batch.streams = o.streams;
  return batch;
}

// One device in both modes, with the deflate on the device and/or on host threads: one image at
// a time, each step apart (--stages), and --streams encoders at once.
void measure_device(const DeviceInfo& info, const std::vector<Image>& ims, const BenchPngOptions& o,
                    std::vector<Result>& results) {
  auto device = open_device(info.spec);
  std::vector<PngDeflate> where;
  if (o.deflate != "host") where.push_back(PngDeflate::Device);
  if (o.deflate != "device") where.push_back(PngDeflate::Host);
  for (PngDeflate d : where)
    for (PngMode mode : {PngMode::Compatible, PngMode::Parallel}) {
      PngEncodeOptions opts;
      opts.mode = mode;
      opts.segments = o.segments;
      opts.deflate = d;
      PngEncoder encoder(device, opts);
      const char* m = mode == PngMode::Compatible ? "compatible" : "parallel";
      const char* at = d == PngDeflate::Device ? "device deflate" : "host deflate";
      bool device_all = true;
      results.push_back(measure("hetcodec " + info.spec + " " + m + ", " + at, "hetcodec", ims,
                                o.min_time, [&](const Image& im) {
                                  auto f = encoder.encode(im);
                                  device_all = device_all && encoder.last_deflated_on_device();
                                  return f;
                                }));
      results.back().device = to_json(info);
      results.back().mode = m;
      results.back().deflate = d == PngDeflate::Host ? "host" : device_all ? "device" : "mixed";
      print(results.back());
      if (o.stages) time_steps(device, opts, ims, results.back());
      if (o.streams > 1) {
        results.push_back(measure_batch(device, opts, ims, results.back(), o));
        print(results.back());
      }
      if (d == PngDeflate::Device && !device_all)
        std::fprintf(stdout, "  (some images fell back to the host deflate)\n");
    }
  if (o.deflate == "device" || !png::small_deflate_available()) return;
  // The small mode: the parallel mode's filtering and segments, deflated by libdeflate on host
  // threads (its deflate is always the host's).
  PngEncodeOptions opts;
  opts.mode = PngMode::Small;
  opts.segments = o.segments;
  PngEncoder encoder(device, opts);
  results.push_back(
      measure("hetcodec " + info.spec + " small, libdeflate " + std::to_string(png::kSmallLevel),
              "hetcodec", ims, o.min_time, [&](const Image& im) { return encoder.encode(im); }));
  results.back().device = to_json(info);
  results.back().mode = "small";
  results.back().deflate = "host";
  results.back().level = png::kSmallLevel;
  print(results.back());
  if (o.stages) time_steps(device, opts, ims, results.back());
  if (o.streams > 1) {
    results.push_back(measure_batch(device, opts, ims, results.back(), o));
    print(results.back());
  }
}

void write_json(const std::vector<Result>& results, const std::string& source, double total_mp,
                const BenchPngOptions& o) {
  nlohmann::json j;
  j["benchmark"] = "png-encode";
  j["version"] = version();
  j["corpus"] = source;
  j["megapixels"] = total_mp;
  j["min_time_s"] = o.min_time;
  for (const auto& r : results) {
    nlohmann::json e = {{"name", r.name},
                        {"kind", r.kind},
                        {"megapixels_per_s", r.mp_s},
                        {"output_bytes", r.bytes}};
    if (!r.device.is_null()) e["device"] = r.device;
    if (!r.mode.empty()) e["mode"] = r.mode;
    if (!r.deflate.empty()) e["deflate"] = r.deflate;
    if (r.level) e["libdeflate_level"] = r.level;
    // Against each peer of the run: speed (MP/s over MP/s) and size (bytes over bytes).
    if (r.kind == "hetcodec")
      for (const auto& peer : results)
        if (peer.kind != "hetcodec" && peer.mp_s > 0 && peer.bytes > 0)
          e["vs_peers"][peer.name] = {{"speed", r.mp_s / peer.mp_s},
                                      {"size", double(r.bytes) / double(peer.bytes)}};
    if (!r.stages.is_null()) e["stages"] = r.stages;
    e["streams"] = r.streams;
    j["results"].push_back(e);
  }
  if (o.json_path == "-") {
    std::cout << j.dump(2) << "\n";
  } else {
    const std::string text = j.dump(2) + "\n";
    write_bytes(o.json_path, text, {});
  }
}

void run_bench_png(const GlobalOptions& global, const BenchPngOptions& o) {
  int cw = 0, ch = 0;
  std::string source;
  const std::vector<Image> ims = bench_images(o.paths, o.crop, cw, ch, source);
  double total_mp = 0;
  for (const auto& im : ims) total_mp += double(im.width) * double(im.height) / 1e6;
  std::fprintf(stdout, "bench png-encode: %s, %.1f MP\n", source.c_str(), total_mp);
  std::vector<Result> results;
  BenchFailures failures("bench png-encode");
  for (const auto& info : selected_devices(global)) {
    try {
      measure_device(info, ims, o, results);
    } catch (const Error& e) {  // the other devices and the peers are still measured
      failures.add(info.spec + " (" + info.name + ")", e);
    }
  }
  if (o.peers) {
    try {
      results.push_back(measure("libpng default", "libpng", ims, o.min_time,
                                [](const Image& im) { return libpng_write(im, -1); }));
      print(results.back());
      results.push_back(measure("libpng Z_RLE", "libpng", ims, o.min_time,
                                [](const Image& im) { return libpng_write(im, Z_RLE); }));
      print(results.back());
    } catch (const std::exception& e) {
      failures.add("libpng", e.what());
    }
    std::fprintf(stdout, "ratios (MP/s over MP/s; bytes over bytes):\n");
    for (auto& r : results) {
      if (r.kind != "hetcodec") continue;
      for (const auto& peer : results) {
        if (peer.kind == "hetcodec") continue;
        std::fprintf(stdout, "  %s / %s = %.2f speed, %.4f size\n", r.name.c_str(),
                     peer.name.c_str(), r.mp_s / peer.mp_s, double(r.bytes) / double(peer.bytes));
      }
    }
  }
  if (!o.json_path.empty()) write_json(results, source, total_mp, o);
  failures.throw_if_any();
}

}  // namespace

void add_bench_png_command(CLI::App& bench, GlobalOptions& global) {
  auto o = std::make_shared<BenchPngOptions>();
  auto* cmd = bench.add_subcommand(
      "png-encode",
      "PNG encoding, host samples in, PNG bytes on the host, per selected device in the\n"
      "compatible, parallel and small modes, with libpng (default, and the Z_RLE strategy) in\n"
      "the same run; output sizes.\n"
      "Inputs: image files or directories (PNM, PAM, PNG, JPEG), centre-cropped to --crop;\n"
      "without inputs, four synthetic photo-like images of that size.");
  add_image_options(*cmd, o->paths, o->crop, o->min_time);
  cmd->add_flag("!--no-peers", o->peers, "skip libpng");
  cmd->add_option("--segments", o->segments,
                  "parallel and small modes: segments (0: one per compute unit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--deflate", o->deflate,
                  "where the deflate stream is made: on the device, on host threads from the\n"
                  "filtered rows, or both measured (the small mode, always on host threads, is\n"
                  "measured unless 'device')")
      ->check(CLI::IsMember({"device", "host", "both"}))
      ->capture_default_str();
  cmd->add_option("--streams", o->streams, "encoders at once in batch mode (1: single images only)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--stages", o->stages,
                "also time each step (upload, filter, deflate stages, download, host) apart");
  cmd->add_option("--json", o->json_path, "also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  cmd->callback([&global, o] { run_bench_png(global, *o); });
}

}  // namespace hetcodec::tools
