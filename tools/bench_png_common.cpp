// The parts the PNG benchmarks share (bench_png_common.h).
#include "tools/bench_png_common.h"

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

}  // namespace

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
    for (const auto& f : files)
      ims.push_back(center_crop(read_image_file(f.string(), cpu), cw, ch));
  }
  if (!ims.empty()) {
    source =
        std::to_string(ims.size()) + " images from " + paths[0] + ", cropped to at most " + crop;
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

void add_image_options(CLI::App& cmd, std::vector<std::string>& paths, std::string& crop,
                       double& min_time) {
  cmd.add_option("inputs", paths, "image files or directories")->type_name("PATH");
  cmd.add_option("--crop", crop, "largest size measured, WxH")->capture_default_str();
  cmd.add_option("--min-time", min_time, "seconds to repeat each measurement")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
}

}  // namespace hetcodec::tools
