// Metadata through libpng's C API for `hetcodec decode` (png_metadata.h).
#include "tools/png_metadata.h"

#include <cstdio>
#include <iostream>

#include "core/error.h"
#include "core/png/metadata.h"

namespace hetcodec::tools {

const char* const kStripHelp =
    "leave out the metadata a PNG output would carry: the ICC profile, EXIF, and a PNG's\n"
    "gAMA, cHRM, sRGB, pHYs and text chunks";

void set_libpng_metadata(png_structp png, png_infop info, const Metadata& m, int channels,
                         const std::string& path) {
  if (m.exif.size() >= 2 && m.exif[0] == m.exif[1] && (m.exif[0] == 'I' || m.exif[0] == 'M'))
    png_set_eXIf_1(png, info, png_uint_32(m.exif.size()), const_cast<png_bytep>(m.exif.data()));
  if (m.icc.empty()) return;
  if (!png::icc_fits(m.icc, channels)) {
    std::cerr << path << ": warning: the ICC profile (colour space '" << png::icc_color_space(m.icc)
              << "') does not describe " << (channels >= 3 ? "RGB" : "gray")
              << " samples; left out\n";
    return;
  }
  // A profile libpng finds fault with (its length, signature or tags) is then a libpng warning
  // and left out, not an error that loses the image.
  png_set_benign_errors(png, 1);
  const std::string name = m.icc_name.empty() ? "ICC profile" : m.icc_name;
  png_set_iCCP(png, info, name.c_str(), PNG_COMPRESSION_TYPE_BASE, m.icc.data(),
               png_uint_32(m.icc.size()));
}

void write_png_with_libpng(const std::string& path, int width, int height, int channels, int depth,
                           int sbit, const std::vector<std::uint8_t>& px,
                           const Metadata& metadata) {
  const bool to_stdout = path == "-";
  std::FILE* f = to_stdout ? stdout : std::fopen(path.c_str(), "wb");
  if (!f) throw Error(ErrorCode::InvalidArgument, "cannot create " + path);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    if (!to_stdout) std::fclose(f);
    throw Error(ErrorCode::InvalidArgument, "libpng failed to write " + path);
  }
  static const int kType[4] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                               PNG_COLOR_TYPE_RGB_ALPHA};
  png_init_io(png, f);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), depth, kType[channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (sbit) {
    png_color_8 bits{};
    const auto p = png_byte(sbit);
    bits.gray = bits.red = bits.green = bits.blue = p;
    bits.alpha = channels == 2 || channels == 4 ? p : 0;
    png_set_sBIT(png, info, &bits);
  }
  set_libpng_metadata(png, info, metadata, channels, path);
  png_write_info(png, info);
  const std::size_t row = std::size_t(width) * std::size_t(channels) * std::size_t(depth / 8);
  for (int y = 0; y < height; ++y) png_write_row(png, px.data() + std::size_t(y) * row);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  if ((to_stdout ? std::fflush(f) : std::fclose(f)) != 0)
    throw Error(ErrorCode::InvalidArgument, "cannot write " + path);
}

}  // namespace hetcodec::tools
