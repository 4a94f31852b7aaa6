// libpng writing a PNG to memory, row by row, with default settings or a given zlib strategy:
// the peer of `bench png-encode` and the oracle of the PNG tests (tests/support).
#ifndef HETCODEC_TOOLS_LIBPNG_WRITE_H
#define HETCODEC_TOOLS_LIBPNG_WRITE_H

#include <png.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace hetcodec::tools {

// `samples`: height rows of width * channels samples of bit_depth (8 or 16, big-endian) bits.
// `strategy` < 0: libpng's default strategy.
inline std::vector<std::uint8_t> libpng_write(int width, int height, int channels, int bit_depth,
                                              const std::uint8_t* samples, int strategy) {
  std::vector<std::uint8_t> out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("libpng failed to write");
  }
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep data, png_size_t n) {
        auto* v = static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(p));
        v->insert(v->end(), data, data + n);
      },
      nullptr);
  static const int kType[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                               PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), bit_depth, kType[channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (strategy >= 0) png_set_compression_strategy(png, strategy);
  png_write_info(png, info);
  const std::size_t row = std::size_t(width) * std::size_t(channels) * std::size_t(bit_depth / 8);
  for (int y = 0; y < height; ++y)
    png_write_row(png, const_cast<png_bytep>(samples + std::size_t(y) * row));
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_LIBPNG_WRITE_H
