// Files with metadata made by libjpeg and libpng through their C APIs, and the metadata those
// libraries read back from a file: the oracles of the metadata tests (core/image.h's Metadata).
#ifndef HETCODEC_TESTS_SUPPORT_METADATA_ORACLE_H
#define HETCODEC_TESTS_SUPPORT_METADATA_ORACLE_H

#include <cstdint>
#include <string>
#include <vector>

namespace hetcodec::test {

// An ICC profile header libpng accepts (png_icc_check_header: its length, 'acsp', a monitor
// class, the PCS illuminant D50, no tags) for data colour space `space` ("RGB ", "GRAY",
// "CMYK"), followed by deterministic bytes up to `size` (a multiple of 4, at least 132).
std::vector<std::uint8_t> icc_profile(std::size_t size, const char* space, unsigned seed);
// A little-endian TIFF header with one IFD entry (Orientation) and `extra` bytes after it:
// EXIF as it follows "Exif\0\0" in a JPEG APP1 segment and as a PNG eXIf chunk holds it.
std::vector<std::uint8_t> exif_block(std::size_t extra);

struct JpegMetadataParams {
  int width = 40, height = 24;
  bool progressive = false;  // jpeg_simple_progression
  bool rgb = false;          // stored as RGB (jpeg_set_colorspace JCS_RGB: an Adobe marker)
  bool gray = false;
  std::vector<std::uint8_t> exif;  // APP1 "Exif\0\0" + exif (jpeg_write_marker) when not empty
  std::vector<std::uint8_t> icc;   // jpeg_write_icc_profile when not empty
  // The ICC segments written by hand, last sequence number first (libjpeg reassembles them by
  // number); also splits the profile into segments of this many bytes (0: as libjpeg does).
  bool icc_reversed = false;
  std::size_t icc_segment = 0;
};
std::vector<std::uint8_t> libjpeg_file(const JpegMetadataParams& params);

// What libjpeg reads: jpeg_read_header's colour space (JCS_* as an integer) and the
// components, progressive flag, size; jpeg_read_icc_profile; the first APP1 "Exif\0\0" segment
// without its 6-byte header.
struct LibjpegMetadata {
  int color_space = 0, components = 0, width = 0, height = 0;
  bool progressive = false, has_icc = false;
  std::vector<std::uint8_t> icc, exif;
};
LibjpegMetadata libjpeg_metadata(const std::vector<std::uint8_t>& jpeg);
// libjpeg's name for a JCS_* value as `hetcodec info` writes it ("grayscale", "YCbCr", ...).
std::string libjpeg_color_name(int color_space);

struct PngText {
  int compression = 0;  // PNG_TEXT_COMPRESSION_NONE, _zTXt, PNG_ITXT_COMPRESSION_NONE, ...
  std::string key, text;
};
// What libpng reads from a file (png_get_*), and its samples as libpng expands them.
struct LibpngMetadata {
  bool has_iccp = false, has_srgb = false, has_gama = false, has_chrm = false, has_phys = false;
  std::string icc_name;
  std::vector<std::uint8_t> icc, exif;
  int srgb_intent = -1;
  std::uint32_t gama = 0;  // png_get_gAMA_fixed
  std::int32_t chrm[8] = {};
  std::uint32_t phys_x = 0, phys_y = 0;
  int phys_unit = -1;
  std::vector<PngText> text;
  std::uint32_t width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  std::vector<std::uint8_t> samples;  // png_set_expand'ed, 16-bit big-endian
};
LibpngMetadata libpng_metadata(const std::vector<std::uint8_t>& png);

struct PngMetadataParams {
  int width = 33, height = 17, channels = 3;  // 8-bit gray (1) or RGB (3)
  std::vector<std::uint8_t> icc;              // png_set_iCCP "test profile" when not empty
  bool srgb = false;                          // png_set_sRGB (perceptual)
  bool gama = true, chrm = true, phys = true, text = true;
  std::vector<std::uint8_t> exif;  // png_set_eXIf_1 when not empty
};
// A PNG libpng writes with those chunks: gAMA 45455, cHRM of sRGB, pHYs 2835 x 3780 per metre,
// a tEXt, a zTXt and an iTXt; the samples deterministic bytes.
std::vector<std::uint8_t> libpng_file(const PngMetadataParams& params);

// The chunk types of a PNG file in order, and the data of its first chunk of `type`.
std::vector<std::string> chunk_types(const std::vector<std::uint8_t>& png);
std::vector<std::uint8_t> chunk_data(const std::vector<std::uint8_t>& png, const std::string& type);

}  // namespace hetcodec::test

#endif  // HETCODEC_TESTS_SUPPORT_METADATA_ORACLE_H
