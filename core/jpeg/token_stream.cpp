#include "core/jpeg/token_stream.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.h"

namespace hetcodec::jpeg {
namespace {

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "token stream: byte " + std::to_string(at) + ": " + what);
}

std::uint32_t word_at(const std::uint8_t* d, std::size_t w) {
  const std::uint8_t* p = d + 4 * w;
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

}  // namespace

std::size_t token_stream_bytes(const std::vector<std::uint32_t>& blocks, std::size_t tokens) {
  std::size_t groups = 0;
  for (auto b : blocks) groups += (b + 63) / 64;
  return 4 * (2 + 2 * blocks.size() + 2 * groups + 3 * tokens);
}

TokenStreamInfo inspect_token_stream(const std::uint8_t* d, std::size_t size) {
  TokenStreamInfo info;
  const std::size_t words = size / 4;
  if (size % 4) invalid(size, "size is not a multiple of 4");
  if (words < 2) invalid(0, "shorter than its header");
  if (word_at(d, 0) != kTokenMagic) invalid(0, "no HCTK magic");
  std::uint32_t w1 = word_at(d, 1);
  if ((w1 & 0xFFFF) != kTokenVersion)
    invalid(4, "version " + std::to_string(w1 & 0xFFFF) + " (this build reads version 1)");
  info.components = int(w1 >> 16);
  if (info.components < 1 || info.components > 4)
    invalid(4, std::to_string(info.components) + " components");
  if (words < 2 + 2 * std::size_t(info.components)) invalid(8, "header ends early");
  for (int c = 0; c < info.components; ++c) {
    std::uint32_t blocks = word_at(d, 2 + 2 * c), per_row = word_at(d, 3 + 2 * c);
    if (blocks && (per_row == 0 || blocks % per_row))
      invalid(8 + 8 * c, "component " + std::to_string(c) + ": " + std::to_string(blocks) +
                             " blocks in rows of " + std::to_string(per_row));
    info.blocks.push_back(blocks);
    info.blocks_per_row.push_back(per_row);
    info.groups += (blocks + 63) / 64;
  }
  info.directory_word = 2 + 2 * std::size_t(info.components);
  info.tokens_word = info.directory_word + 2 * std::size_t(info.groups);
  if (info.tokens_word > words) invalid(4 * info.directory_word, "directory ends early");
  if ((words - info.tokens_word) % 3) invalid(4 * info.tokens_word, "partial token at the end");
  const std::size_t tokens = (words - info.tokens_word) / 3;
  std::size_t expected_offset = 0;
  std::uint32_t group = 0;
  for (int c = 0; c < info.components; ++c) {
    const std::uint32_t groups = (info.blocks[c] + 63) / 64;
    for (std::uint32_t g = 0; g < groups; ++g, ++group) {
      const std::size_t at = info.directory_word + 2 * std::size_t(group);
      std::uint32_t offset = word_at(d, at), count = word_at(d, at + 1);
      if (offset != expected_offset || std::size_t(count) > tokens - offset)
        invalid(4 * at, "group " + std::to_string(group) + " lists tokens [" +
                            std::to_string(offset) + ", +" + std::to_string(count) + ")");
      const std::uint32_t blocks_here = std::min<std::uint32_t>(64, info.blocks[c] - 64 * g);
      for (std::uint32_t t = offset; t < offset + count; ++t) {
        std::uint32_t w = word_at(d, info.tokens_word + 3 * std::size_t(t) + 2);
        if ((w >> 24 & 63) >= blocks_here || (w >> 30))
          invalid(4 * (info.tokens_word + 3 * std::size_t(t) + 2),
                  "token names block " + std::to_string(w >> 24 & 63) + " of a group of " +
                      std::to_string(blocks_here));
      }
      expected_offset = offset + count;
    }
  }
  if (expected_offset != tokens)
    invalid(4 * info.tokens_word,
            std::to_string(tokens - expected_offset) + " tokens belong to no group");
  info.tokens = std::uint32_t(tokens);
  info.bytes = size;
  return info;
}

std::vector<std::int16_t> expand_token_stream(const std::uint8_t* d, std::size_t size) {
  TokenStreamInfo info = inspect_token_stream(d, size);
  std::size_t total_blocks = 0;
  for (auto b : info.blocks) total_blocks += b;
  std::vector<std::int16_t> out(total_blocks * 64, 0);
  std::size_t block_base = 0;
  std::uint32_t group = 0;
  for (int c = 0; c < info.components; ++c) {
    for (std::uint32_t g = 0; g < (info.blocks[c] + 63) / 64; ++g, ++group) {
      const std::size_t at = info.directory_word + 2 * std::size_t(group);
      std::uint32_t offset = word_at(d, at), count = word_at(d, at + 1);
      for (std::uint32_t t = offset; t < offset + count; ++t) {
        const std::size_t tw = info.tokens_word + 3 * std::size_t(t);
        std::uint32_t c01 = word_at(d, tw), c23 = word_at(d, tw + 1), w = word_at(d, tw + 2);
        std::int16_t coef[4] = {std::int16_t(c01 & 0xFFFF), std::int16_t(c01 >> 16),
                                std::int16_t(c23 & 0xFFFF), std::int16_t(c23 >> 16)};
        std::int16_t* block = &out[(block_base + 64 * std::size_t(g) + (w >> 24 & 63)) * 64];
        for (int i = 0; i < 4; ++i) block[w >> (6 * i) & 63] = coef[i];
      }
    }
    block_base += info.blocks[c];
  }
  return out;
}

}  // namespace hetcodec::jpeg
