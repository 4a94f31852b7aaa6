// What the JPEG decode suites share: test images derived from RGB, the byte comparison of a
// decoded image with libjpeg-turbo's, and libjpeg-turbo's C code path as the oracle for
// damaged files.
#ifndef HETCODEC_TESTS_SUPPORT_JPEG_CHECKS_H
#define HETCODEC_TESTS_SUPPORT_JPEG_CHECKS_H

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "hetcodec/image.h"
#include "tests/support/libjpeg_oracle.h"

namespace hetcodec::test {

inline std::vector<std::uint8_t> read_test_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "cannot read " << path);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

inline Raster gray_of(const Raster& rgb) {
  Raster g{rgb.width, rgb.height, 1, {}};
  for (std::size_t i = 0; i < rgb.samples.size() / 3; ++i)
    g.samples.push_back(std::uint8_t(
        (rgb.samples[3 * i] * 2 + rgb.samples[3 * i + 1] * 5 + rgb.samples[3 * i + 2]) / 8));
  return g;
}

inline Raster cmyk_of(const Raster& rgb) {
  Raster c{rgb.width, rgb.height, 4, {}};
  for (std::size_t i = 0; i < rgb.samples.size() / 3; ++i) {
    for (int k = 0; k < 3; ++k) c.samples.push_back(std::uint8_t(255 - rgb.samples[3 * i + k]));
    c.samples.push_back(std::uint8_t((rgb.samples[3 * i] + rgb.samples[3 * i + 2]) / 3));
  }
  return c;
}

// The decoded bytes equal libjpeg-turbo's; the first difference is named.
inline void check_equal(const Image& img, const Raster& ref, const std::string& name) {
  INFO(name);
  REQUIRE(img.width == ref.width);
  REQUIRE(img.height == ref.height);
  REQUIRE(channels(img.format) == ref.components);
  REQUIRE(img.pixels.size() == ref.samples.size());
  std::size_t first = 0;
  while (first < ref.samples.size() && img.pixels[first] == ref.samples[first]) ++first;
  if (first < ref.samples.size()) {
    const std::size_t px = first / std::size_t(ref.components);
    FAIL_CHECK("first difference at x="
               << px % std::size_t(ref.width) << " y=" << px / std::size_t(ref.width) << " sample "
               << first % std::size_t(ref.components) << ": " << int(img.pixels[first])
               << " vs libjpeg " << int(ref.samples[first]));
  }
}

// libjpeg-turbo's C code path: libjpeg-turbo 2.1 reads JSIMD_FORCENONE once per thread, so the
// oracle runs in a thread of its own started with the variable set. Its SIMD IDCT differs from
// the C one on the out-of-range coefficients corrupt data produces; the C code is what
// hetcodec matches (README, "Damaged files"). `failed` tells whether it refused the file, and
// `error`, when given, its message.
inline Raster libjpeg_c_path(const std::vector<std::uint8_t>& jpeg, int& warnings, bool& failed,
                             std::string* error = nullptr) {
  Raster out;
  failed = false;
  ::setenv("JSIMD_FORCENONE", "1", 1);
  std::thread t([&] {
    try {
      out = libjpeg_decode_default(jpeg, &warnings);
    } catch (const std::exception& e) {
      failed = true;
      if (error) *error = e.what();
    }
  });
  t.join();
  ::unsetenv("JSIMD_FORCENONE");
  return out;
}

}  // namespace hetcodec::test

#endif  // HETCODEC_TESTS_SUPPORT_JPEG_CHECKS_H
