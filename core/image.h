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

// A PNG ancillary chunk as it was in the file: its four-letter type and its data.
struct MetadataChunk {
  std::string type;
  std::vector<std::uint8_t> data;
};

// What describes an image besides its samples, carried from a decoded file into an encoded one
// (the PNG encoder writes it; clear it to leave it out). A JPEG gives `icc` and `exif`; a PNG
// gives `png_chunks`, with `icc` and `exif` filled from them for reading. The PNG encoder
// writes `png_chunks` as they are (an iCCP is not recompressed), then an iCCP from `icc` and an
// eXIf from `exif` where `png_chunks` has none.
struct Metadata {
  std::vector<std::uint8_t> icc;   // ICC profile, uncompressed; empty: none
  std::string icc_name;            // its name in a PNG iCCP chunk ("" from a JPEG)
  std::vector<std::uint8_t> exif;  // EXIF from its TIFF header on ("II*\0" or "MM\0*")
  // From a PNG: its iCCP, sRGB, gAMA, cHRM, pHYs, tEXt, zTXt, iTXt and eXIf chunks in file
  // order (the others describe the stored samples, or the file, and are not carried).
  std::vector<MetadataChunk> png_chunks;
  bool empty() const { return icc.empty() && exif.empty() && png_chunks.empty(); }
};

// Interleaved samples, rows top to bottom, no padding: width * channels * bit_depth / 8 bytes per
// row; 16-bit samples big-endian, as PNG holds them.
struct Image {
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::RGB;
  int bit_depth = 8;  // 8 or 16
  std::vector<std::uint8_t> pixels;
  // Set when the input was corrupt but decodable (libjpeg-turbo and libpng would also warn).
  std::vector<std::string> warnings;
  Metadata metadata;  // ICC profile, EXIF, PNG ancillary chunks of the file decoded
  int channels() const { return hetcodec::channels(format); }
  std::size_t row_bytes() const {
    return std::size_t(width) * std::size_t(channels()) * std::size_t(bit_depth / 8);
  }
  std::size_t bytes() const { return row_bytes() * std::size_t(height); }
};

}  // namespace hetcodec

#endif  // HETCODEC_CORE_IMAGE_H
