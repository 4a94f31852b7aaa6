#include "core/png/deflate_plan.h"

#include <limits>

#include "core/portable/png_deflate.h"

namespace hetcodec::png {

std::uint32_t DeflatePlan::items(int stage) const {
  return stage >= 0 && stage < HC_DFL_STAGES ? hc_dfl_items(words.data(), stage) : 0;
}

std::size_t DeflatePlan::seg_off_word() const { return words[HC_DFL_W_SEG_OFF]; }
std::size_t DeflatePlan::seg_adler_word() const { return words[HC_DFL_W_SEG_ADLER]; }

bool make_deflate_plan(std::size_t n, const std::vector<std::size_t>& starts,
                       std::uint32_t stored_limit, DeflatePlan& plan) {
  plan = DeflatePlan{};
  if (n == 0 || starts.empty() || starts[0] != 0) return false;
  const std::size_t S = starts.size();
  std::vector<std::uint32_t> seg_piece(S + 1), seg_block(S + 1), seg_chunk(S + 1);
  std::size_t pieces = 0, blocks = 0, chunks = 0;
  for (std::size_t s = 0; s < S; ++s) {
    const std::size_t end = s + 1 < S ? starts[s + 1] : n;
    if (end <= starts[s]) return false;
    const std::size_t len = end - starts[s];
    seg_piece[s] = std::uint32_t(pieces);
    seg_block[s] = std::uint32_t(blocks);
    seg_chunk[s] = std::uint32_t(chunks);
    const std::size_t seg_pieces = (len + HC_DFL_PIECE - 1) / HC_DFL_PIECE;
    pieces += seg_pieces;
    chunks += (seg_pieces + HC_DFL_CHUNK - 1) / HC_DFL_CHUNK;
    blocks += len / HC_DFL_SYM_LIMIT + 1;  // symbols <= bytes
  }
  seg_piece[S] = std::uint32_t(pieces);
  seg_block[S] = std::uint32_t(blocks);
  seg_chunk[S] = std::uint32_t(chunks);
  const std::size_t out_bytes = n + 8 * blocks + 8 * S + 64;
  const std::size_t out_words = (out_bytes + 3) / 4;
  // Work: status, piece count/adler/offset, segment total/adler/bytes/offsets, blocks.
  std::size_t w = 1;
  auto take = [&w](std::size_t words) {
    const std::size_t at = w;
    w += words;
    return at;
  };
  // (the status, the segments' offsets and their Adler-32s together: the host reads them at once)
  const std::size_t w_seg_off = take(S + 1), w_seg_adler = take(S), w_piece_count = take(pieces),
                    w_piece_adler = take(pieces), w_piece_off = take(pieces), w_seg_total = take(S),
                    w_seg_bytes = take(S),
                    w_block = take(blocks * HC_DFL_BI_WORDS),
                    w_codes = take(blocks * HC_DFL_CODE_WORDS),
                    w_header = take(blocks * HC_DFL_HDR_WORDS),
                    w_hist = take(blocks * HC_DFL_HIST_WORDS), w_piece_bits = take(pieces),
                    w_piece_at = take(2 * pieces), w_chunk_count = take(chunks),
                    w_chunk_adler = take(chunks), w_chunk_off = take(chunks);
  const std::size_t limit = std::numeric_limits<std::uint32_t>::max() / 8;
  if (n > limit || out_words > limit || w > limit) return false;

  std::vector<std::uint32_t>& p = plan.words;
  p.assign(HC_DFL_PLAN_HEADER, 0);
  auto table = [&p](std::size_t count) {
    const std::size_t at = p.size();
    p.resize(at + count);
    return at;
  };
  const std::size_t t_start = table(S + 1), t_piece = table(S + 1), t_block = table(S + 1),
                    t_piece_seg = table(pieces), t_block_seg = table(blocks),
                    t_chunk = table(S + 1), t_chunk_seg = table(chunks);
  for (std::size_t s = 0; s < S; ++s) {
    p[t_start + s] = std::uint32_t(starts[s]);
    p[t_piece + s] = seg_piece[s];
    p[t_block + s] = seg_block[s];
    for (std::uint32_t q = seg_piece[s]; q < seg_piece[s + 1]; ++q) p[t_piece_seg + q] = std::uint32_t(s);
    for (std::uint32_t b = seg_block[s]; b < seg_block[s + 1]; ++b) p[t_block_seg + b] = std::uint32_t(s);
    p[t_chunk + s] = seg_chunk[s];
    for (std::uint32_t c = seg_chunk[s]; c < seg_chunk[s + 1]; ++c) p[t_chunk_seg + c] = std::uint32_t(s);
  }
  p[t_chunk + S] = seg_chunk[S];
  p[t_start + S] = std::uint32_t(n);
  p[t_piece + S] = seg_piece[S];
  p[t_block + S] = seg_block[S];
  p[HC_DFL_N] = std::uint32_t(n);
  p[HC_DFL_SEGMENTS] = std::uint32_t(S);
  p[HC_DFL_PIECES] = std::uint32_t(pieces);
  p[HC_DFL_BLOCKS] = std::uint32_t(blocks);
  p[HC_DFL_STORED_LIMIT] = stored_limit;
  p[HC_DFL_OUT_WORDS] = std::uint32_t(out_words);
  p[HC_DFL_SEG_START] = std::uint32_t(t_start);
  p[HC_DFL_SEG_PIECE] = std::uint32_t(t_piece);
  p[HC_DFL_SEG_BLOCK] = std::uint32_t(t_block);
  p[HC_DFL_PIECE_SEG] = std::uint32_t(t_piece_seg);
  p[HC_DFL_BLOCK_SEG] = std::uint32_t(t_block_seg);
  p[HC_DFL_W_PIECE_COUNT] = std::uint32_t(w_piece_count);
  p[HC_DFL_W_PIECE_ADLER] = std::uint32_t(w_piece_adler);
  p[HC_DFL_W_PIECE_OFF] = std::uint32_t(w_piece_off);
  p[HC_DFL_W_SEG_TOTAL] = std::uint32_t(w_seg_total);
  p[HC_DFL_W_SEG_ADLER] = std::uint32_t(w_seg_adler);
  p[HC_DFL_W_SEG_BYTES] = std::uint32_t(w_seg_bytes);
  p[HC_DFL_W_SEG_OFF] = std::uint32_t(w_seg_off);
  p[HC_DFL_W_BLOCK] = std::uint32_t(w_block);
  p[HC_DFL_W_CODES] = std::uint32_t(w_codes);
  p[HC_DFL_W_HEADER] = std::uint32_t(w_header);
  p[HC_DFL_W_HIST] = std::uint32_t(w_hist);
  p[HC_DFL_W_PIECE_BITS] = std::uint32_t(w_piece_bits);
  p[HC_DFL_W_PIECE_AT] = std::uint32_t(w_piece_at);
  p[HC_DFL_CHUNKS] = std::uint32_t(chunks);
  p[HC_DFL_SEG_CHUNK] = std::uint32_t(t_chunk);
  p[HC_DFL_CHUNK_SEG] = std::uint32_t(t_chunk_seg);
  p[HC_DFL_W_CHUNK_COUNT] = std::uint32_t(w_chunk_count);
  p[HC_DFL_W_CHUNK_ADLER] = std::uint32_t(w_chunk_adler);
  p[HC_DFL_W_CHUNK_OFF] = std::uint32_t(w_chunk_off);
  plan.segments = std::uint32_t(S);
  plan.work_words = w;
  plan.sym_words = n;
  plan.out_words = out_words;
  return true;
}

std::uint32_t compatible_stored_limit(std::size_t n, int window_bits) {
  if (window_bits == 8) window_bits = 9;
  const std::size_t wsize = std::size_t(1) << window_bits;
  constexpr std::size_t kMinLookahead = 258 + 3 + 1;
  if (n < 2 * wsize - kMinLookahead) return std::numeric_limits<std::uint32_t>::max();
  return std::uint32_t(wsize - kMinLookahead);
}

}  // namespace hetcodec::png
