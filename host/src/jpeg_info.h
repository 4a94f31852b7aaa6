// JPEG file introspection for `hetcodec info` and the tests (jpeg_info.cpp): the header as the
// parser reads it, and the token stream the CPU stage makes. Not part of the installed API: a
// program that needs a file's size and format before decoding asks JpegDecoder::info().
#ifndef HETCODEC_HOST_JPEG_INFO_H
#define HETCODEC_HOST_JPEG_INFO_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hetcodec {

struct JpegFileInfo {
  int width = 0, height = 0, precision = 0, components = 0;
  std::string process;                // "baseline Huffman (SOF0)", ...
  std::vector<std::string> sampling;  // "2x2", "1x1", ... per component
  std::string subsampling;            // "4:2:0", "4:4:4", "gray", ... or "" when unnamed
  std::string color;         // colour space the file is read as (libjpeg's jpeg_color_space)
  int restart_interval = 0;  // of the first scan, in MCUs; 0: none
  int scans = 0;
  bool decodable = false;  // false: `unsupported` says why
  std::string unsupported;
  std::uint64_t blocks = 0, nonzero_blocks = 0, coefficients = 0;  // non-zero coefficients
  std::uint64_t token_stream_bytes = 0, dense_bytes = 0;           // dense: blocks x 64 x int16
  std::vector<std::string> warnings;
  std::vector<std::string> segments;  // APPn / COM markers present ("APP0 JFIF", "APP1 Exif", ...)
  std::uint64_t icc_profile_bytes = 0, exif_bytes = 0;  // core/jpeg/metadata.h; 0: none
};
// Error(InvalidData) for a file that does not parse; an unsupported coding process is reported
// in the result (decodable false), not thrown.
JpegFileInfo jpeg_file_info(const std::uint8_t* data, std::size_t size,
                            std::uint64_t max_pixels = 1ull << 28);

// The token stream of a file, as the CPU stage hands it to the device (docs/token-stream.md).
std::vector<std::uint8_t> jpeg_token_stream(const std::uint8_t* data, std::size_t size,
                                            std::uint64_t max_pixels = 1ull << 28);

}  // namespace hetcodec

#endif  // HETCODEC_HOST_JPEG_INFO_H
