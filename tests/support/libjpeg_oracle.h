// The libjpeg(-turbo) oracle, called through its C API (never its command-line tools), so the
// same test binary runs on any machine that has the library.
#ifndef HETCODEC_TESTS_SUPPORT_LIBJPEG_ORACLE_H
#define HETCODEC_TESTS_SUPPORT_LIBJPEG_ORACLE_H

#include <cstdint>
#include <vector>

namespace hetcodec::test {

struct Raster {
  int width = 0, height = 0, components = 0;
  std::vector<std::uint8_t> samples;  // interleaved, row-major
};

// Compresses interleaved 8-bit RGB with libjpeg: JDCT_ISLOW, the given quality, 4:4:4.
std::vector<std::uint8_t> libjpeg_encode_rgb444(const Raster& rgb, int quality);

// Decompresses with libjpeg: JDCT_ISLOW, default (fancy) upsampling. `rgb` true: RGB output;
// false: the YCbCr samples libjpeg converts from (out_color_space = JCS_YCbCr).
Raster libjpeg_decode(const std::vector<std::uint8_t>& jpeg, bool rgb);

// A photo-like test image: gradients, edges and noise, so every colour path is exercised.
Raster synthetic_rgb(int width, int height, unsigned seed);

}  // namespace hetcodec::test

#endif  // HETCODEC_TESTS_SUPPORT_LIBJPEG_ORACLE_H
