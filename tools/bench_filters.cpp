// `hetcodec bench filters`: the filters of hetcodec/filters.h on device-resident images, per
// selected device, against the CPU reference (one thread) in the same run. Each figure is the
// median of repeated calls timed on the host clock around a complete call (launch and wait),
// after a warm-up call; every device's bytes are compared with the CPU reference's first.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "tools/bench_failures.h"
#include "tools/bench_time.h"
#include "tools/cli.h"

namespace hetcodec::tools {
namespace {

struct FilterBenchOptions {
  int width = 3840, height = 2160;  // smoothing and texture input; Perlin noise
  int mandel = 2048;                // the Mandelbrot view's side
  int iterations = 256;
  int octaves = 16;
  double min_seconds = 0.5;
  std::string json_path;
};

// A photo-like RGB test image: gradients, edges and noise.
Image test_image(int width, int height) {
  Image im;
  im.width = width, im.height = height, im.format = PixelFormat::RGB;
  im.pixels.resize(im.bytes());
  std::uint32_t r = 12345;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) {
        r = r * 1664525u + 1013904223u;
        const int edge = ((x / 97 + y / 61) % 2) * 80;
        const int v = (x * 255 / width + y * 255 / height) / 2 + edge + int(r >> 28) - 8 + c * 20;
        im.pixels[(std::size_t(y) * width + x) * 3 + c] = std::uint8_t(std::clamp(v, 0, 255));
      }
  return im;
}

struct Row {
  std::string filter, device, name;
  double megapixels = 0, seconds = 0;
};

}  // namespace

void add_bench_filters_command(CLI::App& bench, GlobalOptions& options) {
  auto opt = std::make_shared<FilterBenchOptions>();
  auto* cmd = bench.add_subcommand(
      "filters",
      "filters on device-resident images, per selected device, against the CPU reference\n"
      "(one thread) in the same run: adaptive smoothing and the Perlin texture of an RGB image,\n"
      "Perlin noise, and the Mandelbrot set (the compute-bound one). Median of repeated calls,\n"
      "each launched and waited for; every device's bytes checked against the CPU reference's.");
  cmd->add_option("--width", opt->width, "image width (smoothing, texture, Perlin noise)")
      ->capture_default_str()
      ->check(CLI::Range(8, 32768));
  cmd->add_option("--height", opt->height, "image height")
      ->capture_default_str()
      ->check(CLI::Range(8, 32768));
  cmd->add_option("--mandelbrot-size", opt->mandel, "the Mandelbrot view's side in pixels")
      ->capture_default_str()
      ->check(CLI::Range(8, 32768));
  cmd->add_option("--iterations", opt->iterations, "Mandelbrot iterations")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--octaves", opt->octaves, "Perlin octaves")
      ->capture_default_str()
      ->check(CLI::Range(1, 32));
  cmd->add_option("--min-time", opt->min_seconds, "seconds to repeat each measurement")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60.0));
  cmd->add_option("--json", opt->json_path, "also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  cmd->callback([&options, opt] {
    std::vector<DeviceInfo> devices = selected_devices(options);
    // The CPU reference always, first: the bytes every device must give, and the baseline.
    devices.erase(std::remove_if(devices.begin(), devices.end(),
                                 [](const DeviceInfo& d) { return d.kind == DeviceKind::Cpu; }),
                  devices.end());
    devices.insert(devices.begin(), resolve_device("cpu"));
    const Image photo = test_image(opt->width, opt->height);
    PerlinOptions noise;
    noise.octaves = opt->octaves;
    TextureOptions texture;
    texture.noise = noise;
    MandelbrotOptions mandel;
    mandel.iterations = opt->iterations;
    std::vector<std::vector<std::uint8_t>> reference;
    std::vector<Row> rows;
    BenchFailures failures("bench filters");
    for (const DeviceInfo& info : devices) {
      try {
        std::fprintf(stderr, "[bench filters] %s (%s) ...\n", info.spec.c_str(), info.name.c_str());
        auto device = open_device(info.spec);
        Filters f(device);
        DeviceImage in;
        in.width = photo.width, in.height = photo.height, in.format = photo.format;
        in.buffer = std::shared_ptr<DeviceBuffer>(device->alloc(photo.bytes()));
        {
          auto q = device->create_queue();
          q->write(*in.buffer, 0, photo.pixels.data(), photo.bytes());
          q->finish();
        }
        const std::vector<std::function<DeviceImage()>> runs = {
            [&] { return f.smooth(in); }, [&] { return f.texture(in, texture); },
            [&] { return f.perlin(opt->width, opt->height, noise); },
            [&] { return f.mandelbrot(opt->mandel, opt->mandel, mandel); }};
        const char* names[] = {"smooth", "texture", "perlin", "mandelbrot"};
        for (std::size_t k = 0; k < runs.size(); ++k) {
          const std::vector<std::uint8_t> bytes = f.download(runs[k]()).pixels;
          if (info.kind == DeviceKind::Cpu)
            reference.push_back(bytes);
          else if (bytes != reference[k])
            throw Error(ErrorCode::DeviceError,
                        info.spec + ": " + names[k] + " differs from the CPU reference's bytes");
          const double mp = k == 3 ? double(opt->mandel) * opt->mandel / 1e6
                                   : double(opt->width) * opt->height / 1e6;
          // (The CPU reference, single-threaded and slow: three calls after the warm-up.)
          const double s = median_seconds(
              [&] { runs[k](); }, info.kind == DeviceKind::Cpu ? 0 : opt->min_seconds, 1000, 3);
          rows.push_back({names[k], info.spec, info.name, mp, s});
        }
      } catch (const Error& e) {
        if (info.kind == DeviceKind::Cpu) throw;
        failures.add(info.spec + " (" + info.name + ")", e);
      }
    }
    nlohmann::json doc = {{"benchmark", "filters"},
                          {"version", version()},
                          {"width", opt->width},
                          {"height", opt->height},
                          {"mandelbrot_size", opt->mandel},
                          {"iterations", opt->iterations},
                          {"octaves", opt->octaves},
                          {"devices", nlohmann::json::array()},
                          {"results", nlohmann::json::array()}};
    for (const auto& d : devices) doc["devices"].push_back(to_json(d));
    std::printf("%-11s %-12s %10s %10s %14s\n", "filter", "device", "ms", "MP/s",
                "x CPU reference");
    for (const Row& r : rows) {
      double cpu = 0;
      for (const Row& c : rows)
        if (c.filter == r.filter && c.device == "cpu") cpu = c.seconds;
      std::printf("%-11s %-12s %10.3f %10.1f %13.1fx\n", r.filter.c_str(), r.device.c_str(),
                  r.seconds * 1e3, r.megapixels / r.seconds, cpu / r.seconds);
      doc["results"].push_back({{"filter", r.filter},
                                {"device", r.device},
                                {"name", r.name},
                                {"megapixels", r.megapixels},
                                {"seconds", r.seconds},
                                {"mp_per_s", r.megapixels / r.seconds},
                                {"x_cpu_reference", cpu / r.seconds}});
    }
    if (failures.empty()) std::printf("every device's bytes equal the CPU reference's\n");
    if (!opt->json_path.empty()) {
      if (opt->json_path == "-") {
        std::cout << doc.dump(2) << "\n";
      } else {
        std::ofstream out(opt->json_path);
        out << doc.dump(2) << "\n";
        if (!out) throw Error(ErrorCode::InvalidArgument, "cannot write " + opt->json_path);
      }
    }
    failures.throw_if_any();
  });
}

}  // namespace hetcodec::tools
