// Image types shared by the pipelines: pixel formats and a host image of 8- or 16-bit samples.
#ifndef HETCODEC_CORE_IMAGE_H
#define HETCODEC_CORE_IMAGE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hetcodec {

// Interleaved channels: JPEG decodes to Gray, RGB or CMYK (Adobe's inverted CMYK, as
// libjpeg-turbo writes it); PNG holds Gray, GrayAlpha, RGB and RGBA.
enum class PixelFormat { Gray, GrayAlpha, RGB, RGBA, CMYK };

inline int channels(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray:
      return 1;
    case PixelFormat::GrayAlpha:
      return 2;
    case PixelFormat::RGB:
      return 3;
    default:
      return 4;
  }
}
inline const char* to_string(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray:
      return "gray";
    case PixelFormat::GrayAlpha:
      return "gray+alpha";
    case PixelFormat::RGB:
      return "rgb";
    case PixelFormat::RGBA:
      return "rgba";
    default:
      return "cmyk";
  }
}
// The format of `n` channels as PNG holds them: 1 Gray, 2 GrayAlpha, 3 RGB, 4 RGBA (others: RGB;
// check the count first).
inline PixelFormat png_format(int n) {
  return n == 1   ? PixelFormat::Gray
         : n == 2 ? PixelFormat::GrayAlpha
         : n == 4 ? PixelFormat::RGBA
                  : PixelFormat::RGB;
}

// Interleaved samples, rows top to bottom, no padding: width * channels * bit_depth / 8 bytes per
// row; 16-bit samples big-endian, as PNG holds them.
struct Image {
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::RGB;
  int bit_depth = 8;  // 8 or 16
  std::vector<std::uint8_t> pixels;
  // Set when the input was corrupt but decodable (libjpeg-turbo and libpng would also warn).
  std::vector<std::string> warnings;
  int channels() const { return hetcodec::channels(format); }
  std::size_t row_bytes() const {
    return std::size_t(width) * std::size_t(channels()) * std::size_t(bit_depth / 8);
  }
  std::size_t bytes() const { return row_bytes() * std::size_t(height); }
};

}  // namespace hetcodec

#endif  // HETCODEC_CORE_IMAGE_H
