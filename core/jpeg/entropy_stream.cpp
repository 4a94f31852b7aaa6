// The writing of the token stream (core/jpeg/token_stream.h) from the entropy decoder's results:
// its header, the directory of groups and every block's tokens in group order, on several
// threads where the caller gives them.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/jpeg/entropy_parts.h"

namespace hetcodec::jpeg {

namespace {

// Records where each of the result's blocks has its tokens (src_of) and how many (count_of),
// marking with bit 7 the blocks whose four-at-a-time copy would read past the result's last
// token; with `dir`, also adds each block's tokens to its group's count there.
void index_blocks(const EntropyResult& r, const Token** src_of, std::uint8_t* count_of,
                  std::uint32_t* dir) {
  const Token* t = r.tokens.data();
  const std::size_t m = r.block_ids.size();
  for (std::size_t i = 0; i < m; ++i) {
    const std::uint32_t id = r.block_ids[i];
    src_of[id] = t;
    count_of[id] = r.block_tokens[i];
    if (dir) dir[2 * std::size_t(id >> 6) + 1] += r.block_tokens[i];
    t += r.block_tokens[i];
  }
  const Token* const end = r.tokens.data() + r.tokens.size();
  for (std::size_t i = m; i-- > 0 && end - src_of[r.block_ids[i]] < 16;)
    count_of[r.block_ids[i]] |= 0x80;
}

// Copies the tokens of blocks [b0, b1) to `tokens` from `cursor` on, four at a time where the
// copy stays below `limit` and the block is not marked; exactly otherwise.
void copy_blocks(std::size_t b0, std::size_t b1, std::size_t cursor, std::size_t limit,
                 const Token* const* src_of, const std::uint8_t* count_of, Token* tokens) {
  for (std::size_t b = b0; b < b1; ++b) {
    const std::uint8_t c = count_of[b];
    if (!c) continue;
    const std::size_t n = c & 31;
    const Token* s = src_of[b];
    Token* d = tokens + cursor;
    if (!(c & 0x80) && cursor + 16 <= limit) {
      for (std::size_t j = 0; j < n; j += 4) std::memcpy(d + j, s + j, 4 * sizeof(Token));
    } else {
      for (std::size_t j = 0; j < n; ++j) d[j] = s[j];
    }
    cursor += n;
  }
}

}  // namespace

namespace {

// The stream's header; returns where its directory starts.
std::uint32_t* write_header(const Layout& layout_, std::uint8_t* out) {
  const std::size_t nc = layout_.components.size();
  auto* w = reinterpret_cast<std::uint32_t*>(out);
  w[0] = kTokenMagic;
  w[1] = kTokenVersion | std::uint32_t(nc) << 16;
  for (std::size_t c = 0; c < nc; ++c) {
    w[2 + 2 * c] = layout_.components[c].blocks;
    w[3 + 2 * c] = std::uint32_t(layout_.components[c].grid_w);
  }
  return w + 2 + 2 * nc;
}

// Grouped mode: per group, its bucket in one copy, then its blocks that did not fit, in decode
// order.
void write_grouped(const Layout& layout_, const EntropyResult& r, std::uint8_t* out);

}  // namespace

std::size_t EntropyDecoder::stream_bytes(const std::vector<EntropyResult>& results) const {
  return token_stream_size(layout_, results);
}

void EntropyDecoder::write_stream(const std::vector<EntropyResult>& results, std::uint8_t* out,
                                  const Parallel& parallel) const {
  write_token_stream(layout_, results, out, parallel);
}

std::size_t token_count(const std::vector<EntropyResult>& results) {
  std::size_t tokens = 0;
  for (const auto& r : results) {
    tokens += r.tokens.size();
    if (r.group_cap)
      for (std::uint32_t f : r.group_fill) tokens += f;
  }
  return tokens;
}

std::size_t token_stream_size(const Layout& layout_, const std::vector<EntropyResult>& results) {
  std::vector<std::uint32_t> blocks;
  for (const auto& c : layout_.components) blocks.push_back(c.blocks);
  return token_stream_bytes(blocks, token_count(results));
}

void write_token_stream(const Layout& layout_, const std::vector<EntropyResult>& results,
                        std::uint8_t* out, const EntropyDecoder::Parallel& parallel) {
  if (results.size() == 1 && results[0].group_cap) {
    write_grouped(layout_, results[0], out);
    return;
  }
  if (results.empty()) {
    // No tokens (the job of a file whose Huffman data the device decodes): every group's offset
    // and count 0, as the general path below writes them, without its pass over the blocks.
    std::uint32_t* const dir = write_header(layout_, out);
    std::memset(dir, 0, 2 * layout_.groups * sizeof(std::uint32_t));
    return;
  }
  auto each = [&](std::size_t count, const std::function<void(std::size_t)>& fn) {
    if (parallel && count > 1) {
      parallel(count, fn);
    } else {
      for (std::size_t i = 0; i < count; ++i) fn(i);
    }
  };
  // Where each block's tokens are and how many (0: none). The tokens are then copied in the
  // stream's order, four at a time: a copy may run past a block's last token, into the place
  // of tokens written after it, and read past it, into the next block's tokens. Only the blocks
  // near the end of a result (marked with bit 7) and the last tokens of a range of groups are
  // copied exactly.
  thread_local std::vector<const Token*> source;
  thread_local std::vector<std::uint8_t> count;
  const std::size_t groups = layout_.groups;
  const std::size_t blocks = groups * 64;
  if (source.size() < blocks) source.resize(blocks);
  count.assign(blocks, 0);
  std::size_t total = 0;
  for (const auto& r : results) total += r.tokens.size();
  const Token** const src_of = source.data();
  std::uint8_t* const count_of = count.data();
  std::uint32_t* const dir = write_header(layout_, out);
  auto* const tokens = reinterpret_cast<Token*>(dir + 2 * groups);
  // Token counts per group, then offsets, then the copies; in ranges of groups, on several
  // threads where the caller gives them (a large image decoded in pieces).
  const std::size_t ranges = parallel && results.size() > 1 ? std::min<std::size_t>(groups, 64) : 1;
  auto range = [&](std::size_t k, std::size_t& g0, std::size_t& g1) {
    g0 = groups * k / ranges;
    g1 = groups * (k + 1) / ranges;
  };
  // On one thread the fill pass counts each group's tokens too.
  if (ranges == 1)
    for (std::size_t g = 0; g < groups; ++g) dir[2 * g + 1] = 0;
  each(results.size(), [&](std::size_t k) {  // results hold disjoint blocks
    index_blocks(results[k], src_of, count_of, ranges == 1 ? dir : nullptr);
  });
  if (ranges > 1)
    each(ranges, [&](std::size_t k) {
      std::size_t g0, g1;
      range(k, g0, g1);
      for (std::size_t g = g0; g < g1; ++g) {
        std::uint32_t n = 0;
        for (std::size_t b = g * 64; b < g * 64 + 64; ++b) n += count_of[b] & 31u;
        dir[2 * g + 1] = n;
      }
    });
  std::uint32_t offset = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    dir[2 * g] = offset;
    offset += dir[2 * g + 1];
  }
  each(ranges, [&](std::size_t k) {
    std::size_t g0, g1;
    range(k, g0, g1);
    if (g0 == g1) return;
    // A copy runs past a block's tokens only inside the range: another thread writes the next.
    const std::size_t limit = g1 < groups ? dir[2 * g1] : total;
    copy_blocks(g0 * 64, g1 * 64, dir[2 * g0], limit, src_of, count_of, tokens);
  });
}

namespace {
void write_grouped(const Layout& layout_, const EntropyResult& r, std::uint8_t* out) {
  const std::size_t groups = layout_.groups;
  std::uint32_t* const dir = write_header(layout_, out);
  auto* const tokens = reinterpret_cast<Token*>(dir + 2 * groups);
  for (std::size_t g = 0; g < groups; ++g) dir[2 * g + 1] = r.group_fill[g];
  const std::size_t extra = r.block_ids.size();
  for (std::size_t i = 0; i < extra; ++i)
    dir[2 * std::size_t(r.block_ids[i] >> 6) + 1] += r.block_tokens[i];
  std::uint32_t offset = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    dir[2 * g] = offset;
    std::memcpy(tokens + offset, r.grouped.data() + g * r.group_cap,
                std::size_t(r.group_fill[g]) * sizeof(Token));
    offset += dir[2 * g + 1];
  }
  if (!extra) return;
  // Where each group's next token that did not fit goes.
  thread_local std::vector<std::uint32_t> cursor;
  cursor.resize(groups);
  for (std::size_t g = 0; g < groups; ++g) cursor[g] = dir[2 * g] + r.group_fill[g];
  const Token* t = r.tokens.data();
  for (std::size_t i = 0; i < extra; ++i) {
    const std::uint32_t n = r.block_tokens[i];
    std::uint32_t& c = cursor[r.block_ids[i] >> 6];
    std::memcpy(tokens + c, t, std::size_t(n) * sizeof(Token));
    c += n;
    t += n;
  }
}

}  // namespace

}  // namespace hetcodec::jpeg
