#include "core/png/deflate_plan.h"

#include <cstddef>
#include <cstring>
#include <limits>

#include "core/portable/png_deflate_plan.h"

namespace hetcodec::png {

std::uint32_t DeflatePlan::items(int stage) const {
  return stage >= 0 && stage < HC_DFL_STAGES ? hc_dfl_items(words.data(), stage) : 0;
}

// The header's layout is the same in C++, CUDA and OpenCL C only if no field is padded.
static_assert(sizeof(hc_dfl_plan) == HC_DFL_PLAN_HEADER * 4, "hc_dfl_plan: the header's words");
static_assert(offsetof(hc_dfl_plan, seg_start) == 6 * 4 && offsetof(hc_dfl_plan, w_seg_off) == 17 * 4 &&
                  offsetof(hc_dfl_plan, w_chunk_off) == 29 * 4,
              "hc_dfl_plan: 32-bit fields in order, no padding");

std::size_t DeflatePlan::seg_off_word() const { return hc_dfl_header(words.data())->w_seg_off; }
std::size_t DeflatePlan::seg_adler_word() const { return hc_dfl_header(words.data())->w_seg_adler; }

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
  hc_dfl_plan h{};
  h.n = std::uint32_t(n);
  h.segments = std::uint32_t(S);
  h.pieces = std::uint32_t(pieces);
  h.blocks = std::uint32_t(blocks);
  h.stored_limit = stored_limit;
  h.out_words = std::uint32_t(out_words);
  h.seg_start = std::uint32_t(t_start);
  h.seg_piece = std::uint32_t(t_piece);
  h.seg_block = std::uint32_t(t_block);
  h.piece_seg = std::uint32_t(t_piece_seg);
  h.block_seg = std::uint32_t(t_block_seg);
  h.w_piece_count = std::uint32_t(w_piece_count);
  h.w_piece_adler = std::uint32_t(w_piece_adler);
  h.w_piece_off = std::uint32_t(w_piece_off);
  h.w_seg_total = std::uint32_t(w_seg_total);
  h.w_seg_adler = std::uint32_t(w_seg_adler);
  h.w_seg_bytes = std::uint32_t(w_seg_bytes);
  h.w_seg_off = std::uint32_t(w_seg_off);
  h.w_block = std::uint32_t(w_block);
  h.w_codes = std::uint32_t(w_codes);
  h.w_header = std::uint32_t(w_header);
  h.w_hist = std::uint32_t(w_hist);
  h.w_piece_bits = std::uint32_t(w_piece_bits);
  h.w_piece_at = std::uint32_t(w_piece_at);
  h.chunks = std::uint32_t(chunks);
  h.seg_chunk = std::uint32_t(t_chunk);
  h.chunk_seg = std::uint32_t(t_chunk_seg);
  h.w_chunk_count = std::uint32_t(w_chunk_count);
  h.w_chunk_adler = std::uint32_t(w_chunk_adler);
  h.w_chunk_off = std::uint32_t(w_chunk_off);
  std::memcpy(p.data(), &h, sizeof h);
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
