// `hetcodec bench png-encode`: PNG encoding from host samples to PNG bytes on the host, per
// selected device, with libpng (default settings, and the Z_RLE strategy) measured in the same
// run on the same images; output sizes against both.
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
#include "tools/cli.h"
#include "tools/libpng_write.h"

namespace hetcodec::tools {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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

// A photo-like synthetic RGB image: smooth gradients, edges and mild noise.
Image synthetic(int w, int h, unsigned seed) {
  Image im;
  im.width = w;
  im.height = h;
  im.pixels.resize(std::size_t(w) * std::size_t(h) * 3);
  unsigned x = seed * 2654435761u + 1;
  for (int y = 0; y < h; ++y)
    for (int i = 0; i < w; ++i) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      const int n = int(x % 7) - 3;
      const int edge = ((i / 97 + y / 61) & 1) * 40;
      std::uint8_t* p = &im.pixels[(std::size_t(y) * std::size_t(w) + std::size_t(i)) * 3];
      p[0] = std::uint8_t(std::clamp(i * 255 / w + edge + n, 0, 255));
      p[1] = std::uint8_t(std::clamp(y * 255 / h + n, 0, 255));
      p[2] = std::uint8_t(std::clamp((i + y) * 127 / (w + h) + 64 - edge / 2 + n, 0, 255));
    }
  return im;
}

Image center_crop(const Image& im, int w, int h) {
  if (im.width <= w && im.height <= h) return im;
  w = std::min(w, im.width);
  h = std::min(h, im.height);
  const std::size_t px = std::size_t(im.channels()) * std::size_t(im.bit_depth / 8);
  Image out = im;
  out.width = w;
  out.height = h;
  out.pixels.resize(std::size_t(w) * std::size_t(h) * px);
  const int x0 = (im.width - w) / 2, y0 = (im.height - h) / 2;
  for (int y = 0; y < h; ++y)
    std::copy_n(&im.pixels[(std::size_t(y0 + y) * std::size_t(im.width) + std::size_t(x0)) * px],
                std::size_t(w) * px, &out.pixels[std::size_t(y) * std::size_t(w) * px]);
  return out;
}

// The images both PNG benchmarks measure: the files given (directories read in name order),
// centre-cropped to `crop` (WxH), or four synthetic photo-like images of that size; `source`
// describes them.
std::vector<Image> bench_images(const std::vector<std::string>& paths, const std::string& crop,
                                   int& cw, int& ch, std::string& source) {
  if (std::sscanf(crop.c_str(), "%dx%d", &cw, &ch) != 2 || cw < 1 || ch < 1)
    throw Error(ErrorCode::InvalidArgument, "--crop WxH, e.g. 2040x1356 (got " + crop + ")");
  std::vector<Image> ims;
  auto cpu = open_device("cpu");
  for (const auto& p : paths) {
    std::vector<fs::path> files;
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(p);
    }
    for (const auto& f : files) ims.push_back(center_crop(read_image_file(f.string(), cpu), cw, ch));
  }
  if (!ims.empty()) {
    source = std::to_string(ims.size()) + " images from " + paths[0] + ", cropped to at most " + crop;
  } else {
    for (unsigned s = 0; s < 4; ++s) ims.push_back(synthetic(cw, ch, s + 1));
    source = "built-in: 4 synthetic " + crop + " RGB images";
  }
  return ims;
}

std::vector<std::uint8_t> libpng_write(const Image& im, int strategy) {
  return tools::libpng_write(im.width, im.height, im.channels(), im.bit_depth, im.pixels.data(),
                             strategy);
}

struct Result {
  std::string name, kind, mode, deflate;
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
  for (std::size_t i = 0; t < min_time; ++i) {
    const Image& im = ims[i % ims.size()];
    encode(im);
    mp += double(im.width) * double(im.height) / 1e6;
    t = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  r.mp_s = mp / t;
  return r;
}

// Runs items 0..count-1 round-robin on `streams` threads, each with its own worker from
// make() (a callable taking the item index), for at least min_time seconds after a warm-up
// pass on the first; returns megapixels per second over all threads.
template <typename MpOf, typename Make>
double measure_streams(std::size_t count, MpOf&& mp_of, double min_time, int streams, Make&& make) {
  std::atomic<std::size_t> next{0};
  std::atomic<int> ready{0}, started{0};
  std::atomic<bool> stop{false};
  std::vector<double> mp(std::size_t(streams), 0);
  std::vector<std::thread> pool;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto t0 = Clock::now();
  for (int s = 0; s < streams; ++s)
    pool.emplace_back([&, s] {
      try {
        auto run = make();
        if (s == 0)  // one warm-up pass (kernel builds, first allocations), not timed
          for (std::size_t k = 0; k < count; ++k) run(k);
        ready++;
        while (ready < streams) std::this_thread::yield();
        if (s == 0) t0 = Clock::now();
        started++;
        while (started < streams) std::this_thread::yield();
        for (std::size_t i; !stop && (i = next++) < 1u << 30;) {
          const std::size_t k = i % count;
          run(k);
          mp[std::size_t(s)] += mp_of(k);
          if (std::chrono::duration<double>(Clock::now() - t0).count() >= min_time) stop = true;
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        failure = std::current_exception();
        stop = true;
      }
    });
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  const double t = std::chrono::duration<double>(Clock::now() - t0).count();
  double total = 0;
  for (double m : mp) total += m;
  return total / t;
}

void run_bench_png(const GlobalOptions& global, const BenchPngOptions& o) {
  int cw = 0, ch = 0;
  std::string source;
  const std::vector<Image> ims = bench_images(o.paths, o.crop, cw, ch, source);
  double total_mp = 0;
  for (const auto& im : ims) total_mp += double(im.width) * double(im.height) / 1e6;
  std::fprintf(stdout, "bench png-encode: %s, %.1f MP\n", source.c_str(), total_mp);
  std::vector<Result> results;
  auto print = [&](const Result& r) {
    std::fprintf(stdout, "%-52s %9.1f MP/s  %7.3f GP/s  %10llu bytes\n", r.name.c_str(), r.mp_s,
                 r.mp_s / 1000.0, (unsigned long long)r.bytes);
    std::fflush(stdout);
  };
  for (const auto& info : selected_devices(global)) {
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
        const std::size_t single = results.size() - 1;  // the row the step times belong to
        if (o.stages) {
          // Once more with each step timed apart (the device waited for after each).
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
          results[single].stages = {{"upload_ms", st.upload / n},   {"filter_ms", st.filter / n},
                                   {"deflate_ms", st.deflate / n}, {"download_ms", st.download / n},
                                   {"host_ms", st.host / n}};
          std::vector<double> ds;
          for (double v : st.deflate_stages) ds.push_back(v / n);
          results[single].stages["deflate_stages_ms"] = ds;
        }
        if (o.streams > 1) {
          // Several encoders at once on the same device, one per thread (each with its own
          // queue), sharing the host threads.
          Result batch = results.back();
          batch.name += " x" + std::to_string(o.streams);
          PngEncodeOptions bo = opts;
          bo.profile = false;  // (the step timing above set it: these rows measure the pipeline)
          bo.threads = std::max(1, int(std::thread::hardware_concurrency()) / o.streams);
          batch.mp_s = measure_streams(
              ims.size(),
              [&ims](std::size_t k) { return double(ims[k].width) * double(ims[k].height) / 1e6; },
              o.min_time, o.streams, [&] {
                auto enc = std::make_shared<PngEncoder>(device, bo);
                return [enc, &ims](std::size_t k) { enc->encode(ims[k]); };
              });
          batch.streams = o.streams;
          results.push_back(batch);
          print(results.back());
        }
        if (d == PngDeflate::Device && !device_all)
          std::fprintf(stdout, "  (some images fell back to the host deflate)\n");
      }
  }
  if (o.peers) {
    results.push_back(measure("libpng default", "libpng", ims, o.min_time,
                              [](const Image& im) { return libpng_write(im, -1); }));
    print(results.back());
    results.push_back(measure("libpng Z_RLE", "libpng", ims, o.min_time,
                              [](const Image& im) { return libpng_write(im, Z_RLE); }));
    print(results.back());
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
  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["benchmark"] = "png-encode";
    j["version"] = version();
    j["corpus"] = source;
    j["megapixels"] = total_mp;
    j["min_time_s"] = o.min_time;
    for (const auto& r : results) {
      nlohmann::json e = {{"name", r.name}, {"kind", r.kind}, {"megapixels_per_s", r.mp_s},
                          {"output_bytes", r.bytes}};
      if (!r.device.is_null()) e["device"] = r.device;
      if (!r.mode.empty()) e["mode"] = r.mode;
      if (!r.deflate.empty()) e["deflate"] = r.deflate;
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
}

// ---- bench png-decode --------------------------------------------------------------------------

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
      z.insert(z.end(), f.begin() + std::ptrdiff_t(at + 8), f.begin() + std::ptrdiff_t(at + 8 + len));
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
  return measure_streams(set.files.size(), [&set](std::size_t k) { return set.mp[k]; }, min_time,
                         streams, [&make, &set] {
                           auto decode = make();
                           return [&set, decode](std::size_t k) { decode(set.files[k]); };
                         });
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
  struct Row {
    std::string name, kind, files, mode;
    double mp_s;
    nlohmann::json device;
    // per image, on the decoding thread
    double inflate_ms = 0, upload_ms = 0, kernels_ms = 0, download_ms = 0;
  };
  std::vector<Row> rows;
  auto print = [&](const Row& r) {
    std::fprintf(stdout, "%-44s %-30s %9.1f MP/s  %7.3f GP/s", r.name.c_str(), r.files.c_str(),
                 r.mp_s, r.mp_s / 1000.0);
    if (r.kind == "hetcodec")
      std::fprintf(stdout, "  (ms per image: host %.2f, upload %.2f, kernels %.2f, download %.2f)",
                   r.inflate_ms, r.upload_ms, r.kernels_ms, r.download_ms);
    std::fprintf(stdout, "\n");
    std::fflush(stdout);
  };
  for (const auto& info : selected_devices(global)) {
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
          std::vector<std::shared_ptr<PngDecoder>> decoders;
          std::mutex m;
          const double v = measure_decode(*set, o.min_time, streams, [&] {
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
            for (const auto& f : set->files) dec->decode(f.data(), f.size(), *out);  // warm-up
            dec->reset_stage_times();
            {
              std::lock_guard<std::mutex> lock(m);
              decoders.push_back(dec);
            }
            return [dec, out](const std::vector<std::uint8_t>& f) {
              dec->decode(f.data(), f.size(), *out);
            };
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
          rows.push_back({"hetcodec " + info.spec, "hetcodec", set->name,
                          streams == 1 ? "single" : "batch", v, to_json(info)});
          if (where == PngInflate::Device) rows.back().name += " dev-inflate";
          if (streams > 1) rows.back().name += " x" + std::to_string(streams);
          if (!overlap && set == &parallel_files && where == PngInflate::Host)
            rows.back().name += " no-overlap";
          const double per = 1e3 / double(std::max<std::uint64_t>(1, images));
          rows.back().inflate_ms = inflate * per;
          rows.back().upload_ms = up * per;
          rows.back().kernels_ms = kern * per;
          rows.back().download_ms = down * per;
          print(rows.back());
        }
    }
  }
  if (o.peers) {
    for (const DecodeSet* set : {&libpng_files, &parallel_files}) {
      for (const int streams : {1, o.streams}) {
        const double v = measure_decode(*set, o.min_time, streams, [] {
          auto buf = std::make_shared<std::vector<std::uint8_t>>();
          return [buf](const std::vector<std::uint8_t>& f) { libpng_read(f, *buf); };
        });
        rows.push_back({streams == 1 ? "libpng" : "libpng x" + std::to_string(streams), "libpng",
                        set->name, streams == 1 ? "single" : "batch", v, {}});
        print(rows.back());
      }
      // The CPU inflater alone (zlib over the whole IDAT stream), as a bound on any decoder that
      // inflates on one thread.
      std::vector<std::vector<std::uint8_t>> streams_z;
      for (const auto& f : set->files) streams_z.push_back(idat_of(f));
      DecodeSet z{set->name, streams_z, set->mp};
      const double v = measure_decode(z, o.min_time, 1, [&] {
        auto buf = std::make_shared<std::vector<std::uint8_t>>(std::size_t(cw) * ch * 8 + ch);
        return [buf](const std::vector<std::uint8_t>& s) {
          uLongf n = uLongf(buf->size());
          uncompress(buf->data(), &n, s.data(), uLong(s.size()));
        };
      });
      rows.push_back({"zlib inflate only", "inflate", set->name, "single", v, {}});
      print(rows.back());
      // hetcodec's host stage alone (parse with every CRC, then the whole stream inflated on one
      // thread: libdeflate when built with it), on one thread and on every host thread at once,
      // one image each: the most a decoder that inflates on this host can deliver.
      const int all = int(std::max(1u, std::thread::hardware_concurrency()));
      for (const int streams : {1, all}) {
        const double h = measure_decode(*set, o.min_time, streams, [] {
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
             set->name,
             streams == 1 ? "single" : "batch",
             h,
             {}});
        print(rows.back());
      }
      // The same for one image on every host thread: segments of an index, or pieces cut at
      // block starts (core/png/split_inflate.h) when there is none, on a pool of threads.
      const double h = measure_decode(*set, o.min_time, 1, [all] {
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
                      set->name,
                      "single",
                      h,
                      {}});
      print(rows.back());
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
  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["benchmark"] = "png-decode";
    j["version"] = version();
    j["corpus"] = source;
    j["megapixels"] = total_mp;
    j["min_time_s"] = o.min_time;
    j["batch_streams"] = o.streams;
    j["overlap_bytes"] = o.overlap;
    for (const auto& r : rows) {
      nlohmann::json e = {{"name", r.name}, {"kind", r.kind}, {"files", r.files},
                          {"mode", r.mode}, {"megapixels_per_s", r.mp_s}};
      if (!r.device.is_null()) e["device"] = r.device;
      if (r.kind == "hetcodec") {
        e["ms_per_image"] = {{"host", r.inflate_ms}, {"upload", r.upload_ms},
                             {"kernels", r.kernels_ms}, {"download", r.download_ms}};
      }
      j["results"].push_back(e);
    }
    if (o.json_path == "-")
      std::cout << j.dump(2) << "\n";
    else
      write_bytes(o.json_path, j.dump(2) + "\n", {});
  }
}

// The options both PNG benchmarks take: inputs, --crop and --min-time.
void add_image_options(CLI::App& cmd, std::vector<std::string>& paths, std::string& crop,
                       double& min_time) {
  cmd.add_option("inputs", paths, "image files or directories")->type_name("PATH");
  cmd.add_option("--crop", crop, "largest size measured, WxH")->capture_default_str();
  cmd.add_option("--min-time", min_time, "seconds to repeat each measurement")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
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

void add_bench_png_command(CLI::App& bench, GlobalOptions& global) {
  auto o = std::make_shared<BenchPngOptions>();
  auto* cmd = bench.add_subcommand(
      "png-encode",
      "PNG encoding, host samples in, PNG bytes on the host, per selected device in the\n"
      "compatible and the parallel mode, with libpng (default, and the Z_RLE strategy) in the\n"
      "same run; output sizes.\n"
      "Inputs: image files or directories (PNM, PAM, PNG, JPEG), centre-cropped to --crop;\n"
      "without inputs, four synthetic photo-like images of that size.");
  add_image_options(*cmd, o->paths, o->crop, o->min_time);
  cmd->add_flag("!--no-peers", o->peers, "skip libpng");
  cmd->add_option("--segments", o->segments, "parallel mode: segments (0: one per compute unit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--deflate", o->deflate,
                  "where the deflate stream is made: on the device, on host threads from the\n"
                  "filtered rows, or both measured")
      ->check(CLI::IsMember({"device", "host", "both"}))
      ->capture_default_str();
  cmd->add_option("--streams", o->streams,
                  "encoders at once in batch mode (1: single images only)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--stages", o->stages,
                "also time each step (upload, filter, deflate stages, download, host) apart");
  cmd->add_option("--json", o->json_path, "also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  cmd->callback([&global, o] { run_bench_png(global, *o); });
}

}  // namespace hetcodec::tools
