// Image types shared by the pipelines: pixel formats and a host image with 8-bit samples.
#ifndef HETCODEC_CORE_IMAGE_H
#define HETCODEC_CORE_IMAGE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hetcodec {

enum class PixelFormat { Gray, RGB, CMYK };

inline int channels(PixelFormat f) {
  return f == PixelFormat::Gray ? 1 : f == PixelFormat::RGB ? 3 : 4;
}
inline const char* to_string(PixelFormat f) {
  return f == PixelFormat::Gray ? "gray" : f == PixelFormat::RGB ? "rgb" : "cmyk";
}

// Interleaved 8-bit samples, rows top to bottom, no padding: width * channels bytes per row.
struct Image {
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::RGB;
  std::vector<std::uint8_t> pixels;
  // Set when the input was corrupt but decodable (libjpeg-turbo would also warn).
  std::vector<std::string> warnings;
  std::size_t row_bytes() const { return std::size_t(width) * std::size_t(channels(format)); }
};

}  // namespace hetcodec

#endif  // HETCODEC_CORE_IMAGE_H
