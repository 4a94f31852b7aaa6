// What the parts of the PNG reader (reader.h) share: the format's big-endian integers, the
// InvalidData error that names a byte offset, and zlib's inflate over a stream in pieces
// (the IDAT chunks' data, or a compressed text). Internal to core/png.
#ifndef HETCODEC_CORE_PNG_READER_PARTS_H
#define HETCODEC_CORE_PNG_READER_PARTS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hetcodec::png {

inline std::uint32_t be32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

// Error(InvalidData) "png: byte <at>: <what>" (chunk_parser.cpp).
[[noreturn]] void invalid(std::size_t at, const std::string& what);

// Inflates `in` (pieces of one zlib stream, or of raw deflate with window_bits < 0) into at most
// out_size bytes at `out` (inflate.cpp).
struct InflateResult {
  std::size_t produced = 0;
  bool ended = false;      // the stream's end was reached
  bool left_over = false;  // it would produce more than out_size bytes
  bool trailing = false;   // input bytes follow the stream's end
  bool bad = false;        // damaged data (message says how)
  std::string message;
};

InflateResult inflate_chunks(const std::vector<std::pair<const std::uint8_t*, std::size_t>>& in,
                             std::uint8_t* out, std::size_t out_size, int window_bits);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_READER_PARTS_H
