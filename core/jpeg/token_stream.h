// The token stream: the compact run-length form in which quantised DCT coefficients travel from
// the CPU's Huffman stage to the device (DESIGN.md §3, docs/token-stream.md).
//
// Layout, all uint32 little-endian words unless said otherwise:
//   word 0              magic "HCTK" (bytes 48 43 54 4B)
//   word 1              version (bits 0-15, currently 1) | component count (bits 16-31)
//   2 words/component   blocks of the component, blocks per row of its block grid
//   2 words/group       the directory: first token of the group, token count
//   3 words/token       the tokens (12 bytes each):
//                         4 x int16 quantised coefficients,
//                         1 x uint32: four 6-bit natural (row-major) positions in bits 0-23,
//                         6-bit block index inside the group in bits 24-29, 2 reserved bits (0).
// A group is 64 consecutive blocks of one component in raster order; groups of component 0
// come first. An all-zero block has no token; a block whose non-zero count is not a multiple of
// 4 repeats its last coefficient and position in its last token.
#ifndef HETCODEC_CORE_JPEG_TOKEN_STREAM_H
#define HETCODEC_CORE_JPEG_TOKEN_STREAM_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetcodec::jpeg {

constexpr std::uint32_t kTokenMagic = 0x4B544348u;  // "HCTK"
constexpr std::uint32_t kTokenVersion = 1;

struct Token {
  std::int16_t coef[4];
  std::uint32_t word;  // positions and block id, as above
};
static_assert(sizeof(Token) == 12, "a token is 12 bytes");

inline std::uint32_t token_word(const int pos[4], int block_in_group) {
  return std::uint32_t(pos[0]) | std::uint32_t(pos[1]) << 6 | std::uint32_t(pos[2]) << 12 |
         std::uint32_t(pos[3]) << 18 | std::uint32_t(block_in_group) << 24;
}

struct TokenStreamInfo {
  int components = 0;
  std::vector<std::uint32_t> blocks, blocks_per_row;
  std::uint32_t groups = 0;
  std::uint32_t tokens = 0;
  std::size_t directory_word = 0, tokens_word = 0;  // word offsets inside the stream
  std::size_t bytes = 0;
};

// Bytes of a stream with these components' block counts and `tokens` tokens.
std::size_t token_stream_bytes(const std::vector<std::uint32_t>& blocks, std::size_t tokens);

// Checks a stream (header, directory within bounds, token positions and block ids in range) and
// describes it. Throws Error(InvalidData) naming the byte offset of the first problem.
TokenStreamInfo inspect_token_stream(const std::uint8_t* data, std::size_t size);

// Expands a stream into dense quantised coefficients: for each component, blocks x 64 int16 in
// natural order, components back to back. For tests, `hetcodec info` and replaying saved streams.
std::vector<std::int16_t> expand_token_stream(const std::uint8_t* data, std::size_t size);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_TOKEN_STREAM_H
