// PNG encode stages on every device: the same bytes as the CPU reference of core/png, which
// the PNG encode tests hold to libpng's files.
#include <doctest/doctest.h>

#include <vector>

#include "backends/backend.h"
#include "core/png/filter.h"
#include "core/png/writer.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
using hetcodec::test::for_each_device;

namespace {

png::Raster raster(int w, int h, int channels, int depth, unsigned seed, bool noise) {
  png::Raster im;
  im.width = w;
  im.height = h;
  im.channels = channels;
  im.bit_depth = depth;
  const std::size_t n = im.row_bytes() * std::size_t(h);
  if (noise) {
    const auto r = hetcodec::test::random_bytes(n, seed);
    im.samples.assign(r.begin(), r.end());
  } else {
    const auto rgb = hetcodec::test::synthetic_rgb(int(n / 3) + 1, 1, seed);
    im.samples.assign(rgb.samples.begin(), rgb.samples.begin() + std::ptrdiff_t(n));
  }
  return im;
}

std::vector<std::uint8_t> filter_on(Device& dev, const png::Raster& im, unsigned mask) {
  auto q = dev.create_queue();
  const std::size_t rb = im.row_bytes();
  auto rows = dev.alloc(im.samples.size());
  auto out = dev.alloc((rb + 1) * std::size_t(im.height));
  q->write(*rows, 0, im.samples.data(), im.samples.size());
  PngFilterInfo info;
  info.height = std::uint32_t(im.height);
  info.row_bytes = std::uint32_t(rb);
  info.bpp = std::uint32_t(im.channels * im.bit_depth / 8);
  info.mask = mask;
  dev.png().filter_rows(*q, *rows, *out, info);
  std::vector<std::uint8_t> result((rb + 1) * std::size_t(im.height));
  q->read(result.data(), *out, 0, result.size());
  q->finish();
  return result;
}

}  // namespace

TEST_CASE("png filter_rows gives libpng's filter choice and rows on every device") {
  struct Case {
    int w, h, channels, depth;
    bool noise;
  };
  const Case cases[] = {{1, 1, 3, 8, false},  {1, 9, 1, 16, false}, {9, 1, 4, 8, true},
                        {37, 23, 3, 8, false}, {29, 17, 2, 16, true}, {300, 7, 4, 8, false},
                        {700, 5, 3, 16, false}};
  for_each_device([&](Device& dev) {
    for (const auto& c : cases) {
      INFO(c.w << "x" << c.h << ", " << c.channels << " channels, " << c.depth << " bits");
      const png::Raster im = raster(c.w, c.h, c.channels, c.depth, unsigned(c.w + 7 * c.h), c.noise);
      CHECK(filter_on(dev, im, png::libpng_filter_mask(std::uint32_t(c.w), std::uint32_t(c.h))) ==
            png::filter_rows_libpng(im));
    }
    // Every subset of filters, against the reference's choice.
    const png::Raster im = raster(41, 6, 3, 8, 5, false);
    const std::size_t rb = im.row_bytes();
    std::vector<std::uint8_t> scratch(rb);
    for (unsigned mask = 1; mask < 32; ++mask) {
      INFO("mask " << mask);
      std::vector<std::uint8_t> want((rb + 1) * 6);
      for (int y = 0; y < 6; ++y)
        png::choose_filter_libpng(im.samples.data() + std::size_t(y) * rb,
                                  y ? im.samples.data() + std::size_t(y - 1) * rb : nullptr, rb, 3,
                                  mask, want.data() + std::size_t(y) * (rb + 1), scratch.data());
      CHECK(filter_on(dev, im, mask) == want);
    }
  });
}

TEST_CASE("png filter_rows refuses bad arguments") {
  for_each_device([&](Device& dev) {
    auto q = dev.create_queue();
    auto rows = dev.alloc(100);
    auto out = dev.alloc(100);
    PngFilterInfo info;
    info.height = 10;
    info.row_bytes = 10;
    info.bpp = 3;
    CHECK_THROWS_AS(dev.png().filter_rows(*q, *rows, *out, info), Error);  // output too small
    info.height = 9;
    info.mask = 0;
    CHECK_THROWS_AS(dev.png().filter_rows(*q, *rows, *out, info), Error);
    info.mask = 0x1F;
    info.bpp = 9;
    CHECK_THROWS_AS(dev.png().filter_rows(*q, *rows, *out, info), Error);
  });
}
