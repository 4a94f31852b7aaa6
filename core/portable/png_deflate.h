/* Deflate with zlib's Z_RLE decisions on the device (DESIGN.md §3 "PNG encode"), shared by the
 * CPU reference (backends/cpu), CUDA (kernels_cu/png_encode.cu) and OpenCL
 * (kernels_cl/png_encode.cl). It makes, byte for byte, what core/png/zlib_rle.cpp makes on the
 * host: for the parallel mode every segment's deflate data (zlib_rle_segments), for the
 * compatible mode the one stream's (zlib_rle_compress), as long as no block would be stored
 * beyond what zlib's window holds (then the host makes the stream).
 *
 * The work is split into stages, each a function of one index (a piece of the data, a segment
 * or a block), run one after the other over the whole image:
 *   HC_DFL_CLEAR       per 64 words: zero the output.
 *   HC_DFL_COUNT       per piece of HC_DFL_PIECE bytes: the symbols of the runs of equal bytes
 *                      that start in it (the parse of a run never leaves it: a literal, matches
 *                      of 258, then a last match of 3 or more or up to two literals), and its
 *                      Adler-32.
 *   HC_DFL_SCAN_CHUNKS per chunk of HC_DFL_CHUNK pieces: each piece's first symbol in the chunk,
 *                      the chunk's symbols and Adler-32.
 *   HC_DFL_SCAN        per segment: each chunk's first symbol, the segment's symbols and Adler-32.
 *   HC_DFL_EMIT        per piece: its first symbol in the segment (kept for the later stages),
 *                      the symbols, written at their index (one 16-bit word each:
 *                      a literal byte, or 256 + length - 3 for a match at distance 1), and
 *                      where each block starts.
 *   HC_DFL_HIST        per block, a work-group of HC_DFL_HIST_LANES: its symbols counted into a
 *                      histogram in local memory (local atomic adds), then stored.
 *   HC_DFL_BLOCK       per block, a work-group of HC_DFL_BLOCK_LANES: zlib's trees from the
 *                      histogram (its heap order and tie-breaks, its repair of long codes), its
 *                      choice of stored, fixed or dynamic, the code of each symbol, the header's
 *                      bits. The heap's merges are one work-item's; building the heap, the
 *                      code lengths (the depth of every node, by pointer jumping), the codes,
 *                      the code table and the block's size are shared among the work-group.
 *   HC_DFL_LAYOUT      per segment: where each block starts, in bits, and the segment's bytes.
 *   HC_DFL_OFFSETS     one item: where each segment starts in the deflate data.
 *   HC_DFL_BITS        per piece: the bits of its symbols in the block of its first one.
 *   HC_DFL_PLACE       per block, a work-group of HC_DFL_PLACE_LANES: where the symbols of
 *                      each piece whose first symbol is in it go (a scan of the pieces' bits).
 *   HC_DFL_PACK_BLOCKS per block: its header, end-of-block code and sync flush, or all of a
 *                      stored block.
 *   HC_DFL_PACK        per piece: its symbols' codes.
 * Writers share the words at the edges of what they write with their neighbours and set
 * those through an atomic OR on the zeroed output; the words between are theirs alone.
 * Every index range is fixed by the host from the sizes alone (a block index for every block
 * a segment could have); a stage's items beyond what the data needs do nothing.
 * HC_DFL_HIST, HC_DFL_BLOCK and HC_DFL_PLACE run an item on a work-group (hc_dfl_run's lane and
 * lanes, HC_BARRIER between their phases); the CPU reference runs them with one lane. */
#ifndef HETCODEC_PORTABLE_PNG_DEFLATE_H
#define HETCODEC_PORTABLE_PNG_DEFLATE_H

/* The plan and stage list, zlib's trees, the symbol stages; below: the block stage, the bit
 * stages and packing, and hc_dfl_run. */
#include "core/portable/kernel.h"
#include "core/portable/png_deflate_plan.h"
#include "core/portable/png_deflate_trees.h"
#include "core/portable/png_deflate_symbols.h"

/* ---- the block stage ------------------------------------------------------------------------ */

/* Block stage, last phase: the code of every symbol value (hc_dfl_symbol_code) into the block's
 * code table, and the symbols' bits from the histogram (the tree build may have given an unused
 * code a count of 1; hist holds the true counts, `matches` the count of matches) into
 * bi[HC_DFL_BI_DATA_BITS]. Type 1 or 2; in a dynamic block lane 0 is writing the tree
 * description meanwhile, so the others share the table (when there are others). */
HC_FN void hc_dfl_block_codes(HC_LOCAL hc_dfl_state* z, hc_u32 type, const HC_GLOBAL hc_u32* hist,
                              hc_u32 matches, HC_GLOBAL hc_u32* codes, HC_GLOBAL hc_u32* bi,
                              hc_u32 lane, hc_u32 lanes) {
  const hc_u32 dlen = type == 1u ? 5u : z->d.len[0];
  const hc_u32 first = type == 2u && lanes > 1u ? 1u : 0u, step = lanes - first;
  hc_u64 bits = 0;
  hc_u32 i;
  if (lane >= first) {
    for (i = lane - first; i < 512u; i += step) {
      hc_u32 code;
      const hc_u32 len = hc_dfl_symbol_code(z, type, i, &code);
      if (i < 256u) {
        bits += (hc_u64)hist[i] * len;
      } else {
        const hc_u32 m = i - 256u, c = hc_dfl_length_code(m), sym = 257u + c;
        /* the length code's bits, once for the code (at its base; a used code has them) */
        if (m == hc_dfl_length_base(c) && hist[sym]) bits += (hc_u64)hist[sym] * (len - dlen);
      }
      codes[2u * i] = code;
      codes[2u * i + 1u] = len;
    }
  }
  z->part_a[lane] = bits;
  if (lane == 0u) {
    codes[1024] = type == 1u ? hc_dfl_fixed_code(256u) : z->l.code[256];
    codes[1025] = type == 1u ? hc_dfl_fixed_len(256u) : z->l.len[256];
  }
  HC_BARRIER();
  if (lane == 0u) {
    bits = codes[1025] + (hc_u64)matches * dlen;
    for (i = 0; i < lanes; ++i) bits += z->part_a[i];
    bi[HC_DFL_BI_DATA_BITS] = (hc_u32)bits;
  }
}

HC_FN void hc_dfl_block(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work, hc_u32 k,
                        HC_LOCAL hc_dfl_state* z, hc_u32 lane, hc_u32 lanes) {
  const hc_u32 s = plan[hc_dfl_header(plan)->block_seg + k];
  const hc_u32 j = k - plan[hc_dfl_header(plan)->seg_block + s];
  const hc_u32 segments = hc_dfl_header(plan)->segments;
  const int last_seg = s + 1u == segments;
  const hc_u32 total = work[hc_dfl_header(plan)->w_seg_total + s];
  const hc_u32 nb = hc_dfl_segment_blocks(total, last_seg);
  const hc_u32 seg_end = plan[hc_dfl_header(plan)->seg_start + s + 1u];
  HC_GLOBAL hc_u32* bi = work + hc_dfl_header(plan)->w_block + k * HC_DFL_BI_WORDS;
  HC_GLOBAL hc_u32* codes = work + hc_dfl_header(plan)->w_codes + k * HC_DFL_CODE_WORDS;
  const HC_GLOBAL hc_u32* hist = work + hc_dfl_header(plan)->w_hist + k * HC_DFL_HIST_WORDS;
  const hc_u32 matches = hist[HC_DFL_HIST_MATCHES];
  hc_u32 i, type;
  if (lane == 0u) bi[HC_DFL_BI_EXISTS] = j < nb ? 1u : 0u;
  if (j >= nb) return;
  for (i = lane; i < HC_DFL_HEAP; i += lanes)
    z->l_freq[i] = i == 256u ? 1u : i < HC_DFL_L_CODES ? hist[i] : 0u;
  for (i = lane; i < HC_DFL_D_HEAP; i += lanes) z->d_freq[i] = i == 0u ? matches : 0u;
  for (i = lane; i < HC_DFL_BL_HEAP; i += lanes) z->bl_freq[i] = 0;
  if (lane == 0u) {
    /* The bytes its symbols cover: up to the next block's first (HC_DFL_EMIT wrote the starts
     * of the blocks that have symbols; only a final block can have none). */
    if (j * HC_DFL_SYM_LIMIT == total) bi[HC_DFL_BI_BYTE_START] = seg_end;
    z->bytes = ((j + 1u) * HC_DFL_SYM_LIMIT < total ? bi[HC_DFL_BI_WORDS + HC_DFL_BI_BYTE_START]
                                                    : seg_end) -
               bi[HC_DFL_BI_BYTE_START];
    hc_dfl_state_init(z);
    z->opt_len = z->static_len = 0;
  }
  HC_BARRIER();
  hc_dfl_build_trees(z, lane, lanes);
  if (lane == 0u) {
    const hc_u32 bytes = z->bytes;
    if (hc_dfl_stored_fits(z, bytes)) {
      type = 0u;
      if (bytes > hc_dfl_header(plan)->stored_limit) HC_ATOMIC_OR(work, HC_DFL_UNSURE);
    } else {
      type = hc_dfl_coded_type(z);
    }
    z->type = type;
    bi[HC_DFL_BI_TYPE] = type;
    bi[HC_DFL_BI_BYTES] = bytes;
    bi[HC_DFL_BI_FINAL] = last_seg && j + 1u == nb ? 1u : 0u;
    bi[HC_DFL_BI_FLUSH] = !last_seg && j + 1u == nb ? 1u : 0u;
    bi[HC_DFL_BI_HDR_BITS] = 0;
    bi[HC_DFL_BI_DATA_BITS] = 0;
  }
  HC_BARRIER();
  type = z->type;
  if (type == 0u) return;
  if (type == 2u && lane == 0u) {
    /* The tree description, on lane 0 while the others fill the code table. */
    hc_dfl_hw w;
    w.out = work + hc_dfl_header(plan)->w_header + k * HC_DFL_HDR_WORDS;
    w.acc = 0;
    w.n = 0;
    w.words = 0;
    hc_dfl_tree_header(z, &w);
    bi[HC_DFL_BI_HDR_BITS] = 32u * w.words + w.n;
    if (w.n && w.words < HC_DFL_HDR_WORDS) w.out[w.words] = (hc_u32)w.acc;
  }
  hc_dfl_block_codes(z, type, hist, matches, codes, bi, lane, lanes);
}

/* ---- packing -------------------------------------------------------------------------------- */

/* A bit writer into the shared output: the first and the last word it touches through an
 * atomic OR (a neighbour writes the other bits of those), the ones between stored. */
typedef struct {
  HC_GLOBAL hc_u32* out;
  hc_u64 word;
  hc_u64 acc;
  hc_u32 n;
  int first;
} hc_dfl_bw;

HC_FN void hc_dfl_bw_start(hc_dfl_bw* w, HC_GLOBAL hc_u32* out, hc_u64 bit) {
  w->out = out;
  w->word = bit >> 5;
  w->n = (hc_u32)(bit & 31u);
  w->acc = 0;
  w->first = 1;
}
HC_FN void hc_dfl_bw_flush_word(hc_dfl_bw* w) {
  if (w->first) {
    HC_ATOMIC_OR(w->out + w->word, (hc_u32)w->acc);
    w->first = 0;
  } else {
    w->out[w->word] = (hc_u32)w->acc;
  }
  w->word++;
  w->acc >>= 32;
  w->n -= 32u;
}
HC_FN void hc_dfl_bw_put(hc_dfl_bw* w, hc_u32 value, hc_u32 len) {
  w->acc |= (hc_u64)value << w->n;
  w->n += len;
  if (w->n >= 32u) hc_dfl_bw_flush_word(w);
}
HC_FN void hc_dfl_bw_align(hc_dfl_bw* w) { hc_dfl_bw_put(w, 0u, (8u - (w->n & 7u)) & 7u); }
HC_FN void hc_dfl_bw_end(hc_dfl_bw* w) {
  if (w->n) HC_ATOMIC_OR(w->out + w->word, (hc_u32)w->acc);
}

/* Where block k starts in the stream, in bits, and where its first symbol's code goes. */
HC_FN hc_u64 hc_dfl_block_bit(const HC_GLOBAL hc_u32* plan, const HC_GLOBAL hc_u32* work,
                              hc_u32 k) {
  const HC_GLOBAL hc_u32* bi = work + hc_dfl_header(plan)->w_block + k * HC_DFL_BI_WORDS;
  const hc_u32 s = plan[hc_dfl_header(plan)->block_seg + k];
  return 8u * (hc_u64)work[hc_dfl_header(plan)->w_seg_off + s] +
         (((hc_u64)bi[HC_DFL_BI_BIT_HI] << 32) | bi[HC_DFL_BI_BIT_LO]);
}
HC_FN hc_u64 hc_dfl_data_bit(const HC_GLOBAL hc_u32* plan, const HC_GLOBAL hc_u32* work, hc_u32 k) {
  return hc_dfl_block_bit(plan, work, k) + 3u +
         work[hc_dfl_header(plan)->w_block + k * HC_DFL_BI_WORDS + HC_DFL_BI_HDR_BITS];
}

/* A piece's symbols: [*first, *end) in its segment, the block of the first. */
HC_FN void hc_dfl_piece_symbols(const HC_GLOBAL hc_u32* plan, const HC_GLOBAL hc_u32* work,
                                hc_u32 p, hc_u32* first, hc_u32* end, hc_u32* block) {
  const hc_u32 s = plan[hc_dfl_header(plan)->piece_seg + p];
  *first = work[hc_dfl_header(plan)->w_piece_off + p];
  *end = *first + work[hc_dfl_header(plan)->w_piece_count + p];
  *block = plan[hc_dfl_header(plan)->seg_block + s] + *first / HC_DFL_SYM_LIMIT;
}

HC_FN void hc_dfl_bits(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work,
                       const HC_GLOBAL hc_u16* syms, hc_u32 p) {
  hc_u32 first, end, k, i, bits = 0;
  hc_dfl_piece_symbols(plan, work, p, &first, &end, &k);
  if (first < end &&
      work[hc_dfl_header(plan)->w_block + k * HC_DFL_BI_WORDS + HC_DFL_BI_TYPE] != 0u) {
    const HC_GLOBAL hc_u32* codes = work + hc_dfl_header(plan)->w_codes + k * HC_DFL_CODE_WORDS;
    const HC_GLOBAL hc_u16* sp =
        syms + plan[hc_dfl_header(plan)->seg_start + plan[hc_dfl_header(plan)->piece_seg + p]];
    const hc_u32 stop = (first / HC_DFL_SYM_LIMIT + 1u) * HC_DFL_SYM_LIMIT;
    for (i = first; i < end && i < stop; ++i) bits += codes[2u * sp[i] + 1u];
  }
  work[hc_dfl_header(plan)->w_piece_bits + p] = bits;
}

/* The sum of the work-group's values v, and into *before the sum of those of the lanes below
 * this one (a scan in local memory, `scan` lanes words). */
HC_FN hc_u32 hc_dfl_group_scan(HC_LOCAL hc_u32* scan, hc_u32 v, hc_u32* before, hc_u32 lane,
                               hc_u32 lanes) {
  hc_u32 d, total;
  scan[lane] = v;
  HC_BARRIER();
  for (d = 1u; d < lanes; d *= 2u) {
    const hc_u32 t = lane >= d ? scan[lane - d] : 0u;
    HC_BARRIER();
    scan[lane] += t;
    HC_BARRIER();
  }
  *before = scan[lane] - v;
  total = scan[lanes - 1u];
  HC_BARRIER(); /* (before the scan is used again) */
  return total;
}

/* Per block, a work-group: the stream bit of the first symbol of each piece whose first symbol
 * is in the block, from the block's data bit and the pieces' bits (BITS) by a scan. */
HC_FN void hc_dfl_place(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work,
                        const HC_GLOBAL hc_u16* syms, hc_u32 k, HC_LOCAL hc_u32* scan, hc_u32 lane,
                        hc_u32 lanes) {
  const HC_GLOBAL hc_u32* bi = work + hc_dfl_header(plan)->w_block + k * HC_DFL_BI_WORDS;
  const hc_u32 s = plan[hc_dfl_header(plan)->block_seg + k];
  const hc_u32 j = k - plan[hc_dfl_header(plan)->seg_block + s];
  const hc_u32 lo = j * HC_DFL_SYM_LIMIT, hi = lo + HC_DFL_SYM_LIMIT;
  const HC_GLOBAL hc_u32* off = work + hc_dfl_header(plan)->w_piece_off;
  const hc_u32 seg_p0 = plan[hc_dfl_header(plan)->seg_piece + s];
  hc_u32 p0 = seg_p0, p1 = plan[hc_dfl_header(plan)->seg_piece + s + 1u], end, lead = 0, before, q;
  hc_u64 at;
  if (work[0] != 0u || bi[HC_DFL_BI_EXISTS] == 0u || bi[HC_DFL_BI_TYPE] == 0u) return;
  /* The first piece whose first symbol is in this block or later, and the first past it. */
  end = p1;
  while (p0 < p1) {
    const hc_u32 mid = p0 + (p1 - p0) / 2u;
    if (off[mid] < lo)
      p0 = mid + 1u;
    else
      p1 = mid;
  }
  p1 = end;
  end = p0;
  while (end < p1) {
    const hc_u32 mid = end + (p1 - end) / 2u;
    if (off[mid] < hi)
      end = mid + 1u;
    else
      p1 = mid;
  }
  at = hc_dfl_data_bit(plan, work, k);
  /* The block's first symbols may end a run of a piece that started before it: theirs come
   * first (that piece's writer goes on into this block). */
  if (p0 > seg_p0) {
    const hc_u32 prev_end = off[p0 - 1u] + work[hc_dfl_header(plan)->w_piece_count + p0 - 1u];
    const HC_GLOBAL hc_u32* codes = work + hc_dfl_header(plan)->w_codes + k * HC_DFL_CODE_WORDS;
    const HC_GLOBAL hc_u16* sp = syms + plan[hc_dfl_header(plan)->seg_start + s];
    hc_u32 i;
    for (i = lo + lane; i < prev_end && i < hi; i += lanes) lead += codes[2u * sp[i] + 1u];
  }
  at += hc_dfl_group_scan(scan, lead, &before, lane, lanes);
  for (q = p0; q < end; q += lanes) {
    const hc_u32 p = q + lane;
    const hc_u32 bits = p < end ? work[hc_dfl_header(plan)->w_piece_bits + p] : 0u;
    const hc_u32 total = hc_dfl_group_scan(scan, bits, &before, lane, lanes);
    if (p < end) {
      work[hc_dfl_header(plan)->w_piece_at + 2u * p] = (hc_u32)(at + before);
      work[hc_dfl_header(plan)->w_piece_at + 2u * p + 1u] = (hc_u32)((at + before) >> 32);
    }
    at += total;
  }
}

HC_FN void hc_dfl_pack(const HC_GLOBAL hc_u32* plan, const HC_GLOBAL hc_u32* work,
                       const HC_GLOBAL hc_u16* syms, HC_GLOBAL hc_u32* out, hc_u32 p) {
  hc_u32 first, end, k, i, rem;
  const HC_GLOBAL hc_u32* bi;
  const HC_GLOBAL hc_u32* codes;
  const HC_GLOBAL hc_u16* sp;
  hc_dfl_bw w;
  int coded;
  if (work[0] != 0u) return;
  hc_dfl_piece_symbols(plan, work, p, &first, &end, &k);
  if (first == end) return;
  sp = syms + plan[hc_dfl_header(plan)->seg_start + plan[hc_dfl_header(plan)->piece_seg + p]];
  bi = work + hc_dfl_header(plan)->w_block + k * HC_DFL_BI_WORDS;
  codes = work + hc_dfl_header(plan)->w_codes + k * HC_DFL_CODE_WORDS;
  coded = bi[HC_DFL_BI_TYPE] != 0u;
  rem = first - first / HC_DFL_SYM_LIMIT * HC_DFL_SYM_LIMIT; /* (not %: hc_dfl_run_symbols) */
  /* (HC_DFL_PLACE placed the piece only when its first block is coded) */
  hc_dfl_bw_start(&w, out,
                  coded ? ((hc_u64)work[hc_dfl_header(plan)->w_piece_at + 2u * p + 1u] << 32) |
                              work[hc_dfl_header(plan)->w_piece_at + 2u * p]
                        : 0u);
  for (i = first; i < end; ++i) {
    if (rem == HC_DFL_SYM_LIMIT) {
      /* The run goes on into the next block: its codes, from its data's start. */
      if (coded) hc_dfl_bw_end(&w);
      ++k;
      rem = 0;
      bi += HC_DFL_BI_WORDS;
      codes += HC_DFL_CODE_WORDS;
      coded = bi[HC_DFL_BI_TYPE] != 0u;
      hc_dfl_bw_start(&w, out, hc_dfl_data_bit(plan, work, k));
    }
    if (coded) {
      const hc_u32 v = sp[i];
      hc_dfl_bw_put(&w, codes[2u * v], codes[2u * v + 1u]);
    }
    ++rem;
  }
  if (coded) hc_dfl_bw_end(&w);
}

HC_FN void hc_dfl_pack_block(const HC_GLOBAL hc_u8* data, const HC_GLOBAL hc_u32* plan,
                             const HC_GLOBAL hc_u32* work, HC_GLOBAL hc_u32* out, hc_u32 k) {
  const HC_GLOBAL hc_u32* bi = work + hc_dfl_header(plan)->w_block + k * HC_DFL_BI_WORDS;
  hc_dfl_bw w;
  hc_u32 i, type;
  if (work[0] != 0u || bi[HC_DFL_BI_EXISTS] == 0u) return;
  type = bi[HC_DFL_BI_TYPE];
  hc_dfl_bw_start(&w, out, hc_dfl_block_bit(plan, work, k));
  hc_dfl_bw_put(&w, bi[HC_DFL_BI_FINAL] | (type << 1), 3u);
  if (type == 0u) {
    const hc_u32 len = bi[HC_DFL_BI_BYTES];
    const HC_GLOBAL hc_u8* src = data + bi[HC_DFL_BI_BYTE_START];
    hc_dfl_bw_align(&w);
    hc_dfl_bw_put(&w, len | ((~len & 0xFFFFu) << 16), 32u);
    for (i = 0; i < len; ++i) hc_dfl_bw_put(&w, src[i], 8u);
  } else {
    const HC_GLOBAL hc_u32* codes = work + hc_dfl_header(plan)->w_codes + k * HC_DFL_CODE_WORDS;
    const HC_GLOBAL hc_u32* hdr = work + hc_dfl_header(plan)->w_header + k * HC_DFL_HDR_WORDS;
    const hc_u32 hbits = bi[HC_DFL_BI_HDR_BITS];
    for (i = 0; i + 32u <= hbits; i += 32u) hc_dfl_bw_put(&w, hdr[i / 32u], 32u);
    if (hbits & 31u) hc_dfl_bw_put(&w, hdr[i / 32u] & ((1u << (hbits & 31u)) - 1u), hbits & 31u);
    hc_dfl_bw_end(&w);
    /* The end-of-block code, after the symbols' codes. */
    hc_dfl_bw_start(&w, out,
                    hc_dfl_data_bit(plan, work, k) + bi[HC_DFL_BI_DATA_BITS] - codes[1025]);
    hc_dfl_bw_put(&w, codes[1024], codes[1025]);
  }
  if (bi[HC_DFL_BI_FLUSH]) {
    hc_dfl_bw_put(&w, 0u, 3u);
    hc_dfl_bw_align(&w);
    hc_dfl_bw_put(&w, 0xFFFF0000u, 32u);
  }
  hc_dfl_bw_end(&w);
}

HC_FN void hc_dfl_clear(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* out, hc_u32 i) {
  /* Item i zeroes words i, i + items, i + 2 items... (neighbouring items, neighbouring words). */
  const hc_u32 words = hc_dfl_header(plan)->out_words, items = (words + 63u) / 64u;
  hc_u32 w;
  for (w = i; w < words; w += items) out[w] = 0;
}

/* Block k's histogram: its symbols counted in local memory `h` (HC_DFL_HIST_WORDS words) by the
 * work-group's lanes, then stored: literal/length counts, and the matches at
 * HC_DFL_HIST_MATCHES. Every block index gets one (zeros where the block has no symbols). */
HC_FN void hc_dfl_hist(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work,
                       const HC_GLOBAL hc_u16* syms, hc_u32 k, HC_LOCAL hc_u32* h, hc_u32 lane,
                       hc_u32 lanes) {
  const hc_u32 s = plan[hc_dfl_header(plan)->block_seg + k];
  const hc_u32 first = (k - plan[hc_dfl_header(plan)->seg_block + s]) * HC_DFL_SYM_LIMIT;
  const hc_u32 total = work[hc_dfl_header(plan)->w_seg_total + s];
  const hc_u32 count = total <= first                     ? 0u
                       : total - first < HC_DFL_SYM_LIMIT ? total - first
                                                          : HC_DFL_SYM_LIMIT;
  const HC_GLOBAL hc_u16* sp = syms + plan[hc_dfl_header(plan)->seg_start + s] + first;
  HC_GLOBAL hc_u32* out = work + hc_dfl_header(plan)->w_hist + k * HC_DFL_HIST_WORDS;
  hc_u32 i;
  for (i = lane; i < HC_DFL_HIST_WORDS; i += lanes) h[i] = 0;
  HC_BARRIER();
  for (i = lane; i < count; i += lanes) {
    const hc_u32 v = sp[i];
    HC_ATOMIC_ADD_LOCAL(h + (v < 256u ? v : 257u + hc_dfl_length_code(v - 256u)), 1u);
  }
  HC_BARRIER();
  for (i = lane; i < HC_DFL_HIST_WORDS; i += lanes) {
    hc_u32 v = h[i];
    if (i == HC_DFL_HIST_MATCHES) {
      hc_u32 c;
      for (v = 0, c = 257u; c < HC_DFL_L_CODES; ++c) v += h[c];
    } else if (i > HC_DFL_HIST_MATCHES) {
      v = 0;
    }
    out[i] = v;
  }
}

/* The stage `stage` for item `i` (z: the work-group's scratch of HC_DFL_HIST and HC_DFL_BLOCK,
 * whose item runs on lanes 0..lanes-1 of a work-group; the other stages take lane 0 of 1). */
HC_FN void hc_dfl_run(int stage, hc_u32 i, const HC_GLOBAL hc_u8* data,
                      const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work, HC_GLOBAL hc_u16* syms,
                      HC_GLOBAL hc_u32* out, HC_LOCAL hc_dfl_state* z, hc_u32 lane, hc_u32 lanes) {
  if (i >= hc_dfl_items(plan, stage)) return;
  switch (stage) {
    case HC_DFL_CLEAR:
      hc_dfl_clear(plan, out, i);
      break;
    case HC_DFL_COUNT:
      hc_dfl_count(data, plan, work, i);
      break;
    case HC_DFL_SCAN_CHUNKS:
      hc_dfl_scan_chunk(plan, work, i);
      break;
    case HC_DFL_SCAN:
      hc_dfl_scan(plan, work, i);
      break;
    case HC_DFL_EMIT:
      hc_dfl_emit(data, plan, work, syms, i);
      break;
    case HC_DFL_HIST:
      hc_dfl_hist(plan, work, syms, i, z->l_freq, lane, lanes);
      break;
    case HC_DFL_BLOCK:
      hc_dfl_block(plan, work, i, z, lane, lanes);
      break;
    case HC_DFL_LAYOUT:
      hc_dfl_layout(plan, work, i);
      break;
    case HC_DFL_OFFSETS:
      hc_dfl_offsets(plan, work);
      break;
    case HC_DFL_BITS:
      hc_dfl_bits(plan, work, syms, i);
      break;
    case HC_DFL_PLACE:
      hc_dfl_place(plan, work, syms, i, z->l_freq, lane, lanes);
      break;
    case HC_DFL_PACK_BLOCKS:
      hc_dfl_pack_block(data, plan, work, out, i);
      break;
    default:
      hc_dfl_pack(plan, work, syms, out, i);
      break;
  }
}

#endif /* HETCODEC_PORTABLE_PNG_DEFLATE_H */
