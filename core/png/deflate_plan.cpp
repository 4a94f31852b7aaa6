// The plan of the device deflate (deflate_plan.h): the segments' sizes in pieces, chunks and
// block indices, the layout of the work buffer, and the plan buffer's tables and header
// (hc_dfl_plan, core/portable/png_deflate_plan.h).
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
static_assert(offsetof(hc_dfl_plan, seg_start) == 6 * 4 &&
                  offsetof(hc_dfl_plan, w_seg_off) == 17 * 4 &&
                  offsetof(hc_dfl_plan, w_chunk_off) == 29 * 4,
              "hc_dfl_plan: 32-bit fields in order, no padding");

std::size_t DeflatePlan::seg_off_word() const { return hc_dfl_header(words.data())->w_seg_off; }
std::size_t DeflatePlan::seg_adler_word() const { return hc_dfl_header(words.data())->w_seg_adler; }

namespace {

// Per segment its first piece, block index and chunk (each list with the totals at [S]).
struct SegmentSizes {
  std::size_t S = 0, pieces = 0, blocks = 0, chunks = 0;
  std::vector<std::uint32_t> seg_piece, seg_block, seg_chunk;
};

// The sizes of the segments at `starts` over `n` bytes; false if a segment is empty.
bool segment_sizes(std::size_t n, const std::vector<std::size_t>& starts, SegmentSizes& z) {
  const std::size_t S = starts.size();
  z.S = S;
  z.seg_piece.assign(S + 1, 0);
  z.seg_block.assign(S + 1, 0);
  z.seg_chunk.assign(S + 1, 0);
  for (std::size_t s = 0; s < S; ++s) {
    const std::size_t end = s + 1 < S ? starts[s + 1] : n;
    if (end <= starts[s]) return false;
    const std::size_t len = end - starts[s];
    z.seg_piece[s] = std::uint32_t(z.pieces);
    z.seg_block[s] = std::uint32_t(z.blocks);
    z.seg_chunk[s] = std::uint32_t(z.chunks);
    const std::size_t seg_pieces = (len + HC_DFL_PIECE - 1) / HC_DFL_PIECE;
    z.pieces += seg_pieces;
    z.chunks += (seg_pieces + HC_DFL_CHUNK - 1) / HC_DFL_CHUNK;
    z.blocks += len / HC_DFL_SYM_LIMIT + 1;  // symbols <= bytes
  }
  z.seg_piece[S] = std::uint32_t(z.pieces);
  z.seg_block[S] = std::uint32_t(z.blocks);
  z.seg_chunk[S] = std::uint32_t(z.chunks);
  return true;
}

// The work buffer's layout into the header's w_* fields; returns its words. Work: status, piece
// count/adler/offset, segment total/adler/bytes/offsets, blocks.
std::size_t work_layout(const SegmentSizes& z, hc_dfl_plan& h) {
  std::size_t w = 1;
  auto take = [&w](std::size_t words) {
    const std::size_t at = w;
    w += words;
    return std::uint32_t(at);
  };
  const std::size_t S = z.S, pieces = z.pieces, blocks = z.blocks, chunks = z.chunks;
  // (the status, the segments' offsets and their Adler-32s together: the host reads them at once)
  h.w_seg_off = take(S + 1);
  h.w_seg_adler = take(S);
  h.w_piece_count = take(pieces);
  h.w_piece_adler = take(pieces);
  h.w_piece_off = take(pieces);
  h.w_seg_total = take(S);
  h.w_seg_bytes = take(S);
  h.w_block = take(blocks * HC_DFL_BI_WORDS);
  h.w_codes = take(blocks * HC_DFL_CODE_WORDS);
  h.w_header = take(blocks * HC_DFL_HDR_WORDS);
  h.w_hist = take(blocks * HC_DFL_HIST_WORDS);
  h.w_piece_bits = take(pieces);
  h.w_piece_at = take(2 * pieces);
  h.w_chunk_count = take(chunks);
  h.w_chunk_adler = take(chunks);
  h.w_chunk_off = take(chunks);
  return w;
}

// The plan's tables after its header, their word offsets into the header's fields.
void write_tables(std::size_t n, const std::vector<std::size_t>& starts, const SegmentSizes& z,
                  std::vector<std::uint32_t>& p, hc_dfl_plan& h) {
  const std::size_t S = z.S;
  auto table = [&p](std::size_t count) {
    const std::size_t at = p.size();
    p.resize(at + count);
    return at;
  };
  const std::size_t t_start = table(S + 1), t_piece = table(S + 1), t_block = table(S + 1),
                    t_piece_seg = table(z.pieces), t_block_seg = table(z.blocks),
                    t_chunk = table(S + 1), t_chunk_seg = table(z.chunks);
  for (std::size_t s = 0; s < S; ++s) {
    p[t_start + s] = std::uint32_t(starts[s]);
    p[t_piece + s] = z.seg_piece[s];
    p[t_block + s] = z.seg_block[s];
    for (std::uint32_t q = z.seg_piece[s]; q < z.seg_piece[s + 1]; ++q)
      p[t_piece_seg + q] = std::uint32_t(s);
    for (std::uint32_t b = z.seg_block[s]; b < z.seg_block[s + 1]; ++b)
      p[t_block_seg + b] = std::uint32_t(s);
    p[t_chunk + s] = z.seg_chunk[s];
    for (std::uint32_t c = z.seg_chunk[s]; c < z.seg_chunk[s + 1]; ++c)
      p[t_chunk_seg + c] = std::uint32_t(s);
  }
  p[t_chunk + S] = z.seg_chunk[S];
  p[t_start + S] = std::uint32_t(n);
  p[t_piece + S] = z.seg_piece[S];
  p[t_block + S] = z.seg_block[S];
  h.seg_start = std::uint32_t(t_start);
  h.seg_piece = std::uint32_t(t_piece);
  h.seg_block = std::uint32_t(t_block);
  h.piece_seg = std::uint32_t(t_piece_seg);
  h.block_seg = std::uint32_t(t_block_seg);
  h.seg_chunk = std::uint32_t(t_chunk);
  h.chunk_seg = std::uint32_t(t_chunk_seg);
}

}  // namespace

bool make_deflate_plan(std::size_t n, const std::vector<std::size_t>& starts,
                       std::uint32_t stored_limit, DeflatePlan& plan) {
  plan = DeflatePlan{};
  if (n == 0 || starts.empty() || starts[0] != 0) return false;
  SegmentSizes z;
  if (!segment_sizes(n, starts, z)) return false;
  const std::size_t out_bytes = n + 8 * z.blocks + 8 * z.S + 64;
  const std::size_t out_words = (out_bytes + 3) / 4;
  hc_dfl_plan h{};
  const std::size_t w = work_layout(z, h);
  const std::size_t limit = std::numeric_limits<std::uint32_t>::max() / 8;
  if (n > limit || out_words > limit || w > limit) return false;

  std::vector<std::uint32_t>& p = plan.words;
  p.assign(HC_DFL_PLAN_HEADER, 0);
  write_tables(n, starts, z, p, h);
  h.n = std::uint32_t(n);
  h.segments = std::uint32_t(z.S);
  h.pieces = std::uint32_t(z.pieces);
  h.blocks = std::uint32_t(z.blocks);
  h.chunks = std::uint32_t(z.chunks);
  h.stored_limit = stored_limit;
  h.out_words = std::uint32_t(out_words);
  std::memcpy(p.data(), &h, sizeof h);
  plan.segments = std::uint32_t(z.S);
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
