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

#include "core/portable/kernel.h"

#define HC_DFL_HIST_LANES 256u
#define HC_DFL_BLOCK_LANES 32u
#define HC_DFL_PLACE_LANES 256u

#define HC_DFL_PIECE 256u
#define HC_DFL_CHUNK 64u /* pieces */
#define HC_DFL_SYM_LIMIT 16383u /* zlib's lit_bufsize - 1 with memLevel 8 */

/* The stages, in the order they run: the one list the kernels, their launch plans and the
 * host's loop over the stages are made from. X(stage, kernel name, kind): ITEM stages run an item
 * per work-item, GROUP stages an item per work-group of hc_dfl_lanes(stage). */
#define HC_DFL_STAGE_LIST(X)                             \
  X(HC_DFL_CLEAR, png_deflate_clear, ITEM)               \
  X(HC_DFL_COUNT, png_deflate_count, ITEM)               \
  X(HC_DFL_SCAN_CHUNKS, png_deflate_scan_chunks, ITEM)   \
  X(HC_DFL_SCAN, png_deflate_scan, ITEM)                 \
  X(HC_DFL_EMIT, png_deflate_emit, ITEM)                 \
  X(HC_DFL_HIST, png_deflate_hist, GROUP)                \
  X(HC_DFL_BLOCK, png_deflate_block, GROUP)              \
  X(HC_DFL_LAYOUT, png_deflate_layout, ITEM)             \
  X(HC_DFL_OFFSETS, png_deflate_offsets, ITEM)           \
  X(HC_DFL_BITS, png_deflate_bits, ITEM)                 \
  X(HC_DFL_PLACE, png_deflate_place, GROUP)              \
  X(HC_DFL_PACK_BLOCKS, png_deflate_pack_blocks, ITEM)   \
  X(HC_DFL_PACK, png_deflate_pack, ITEM)
#define HC_DFL_STAGE_ENUM(stage, name, kind) stage,
enum { HC_DFL_STAGE_LIST(HC_DFL_STAGE_ENUM) HC_DFL_STAGES };
#undef HC_DFL_STAGE_ENUM
#define HC_DFL_ITEM_LANES 64 /* an item stage's work-group */

/* The lanes of a stage's work-group: a GROUP stage's item runs on them together; an ITEM stage
 * runs HC_DFL_ITEM_LANES items to a work-group, except HC_DFL_PACK_BLOCKS: a stored block's
 * bytes follow its own data, so one item to a work-group (and to a warp), so that no warp runs
 * 32 different paths one after the other. */
HC_FN hc_u32 hc_dfl_lanes(int stage) {
  return stage == HC_DFL_HIST    ? HC_DFL_HIST_LANES
         : stage == HC_DFL_BLOCK ? HC_DFL_BLOCK_LANES
         : stage == HC_DFL_PLACE ? HC_DFL_PLACE_LANES
         : stage == HC_DFL_PACK_BLOCKS ? 1u
                                 : HC_DFL_ITEM_LANES;
}
HC_FN int hc_dfl_is_group_stage(int stage) {
  return stage == HC_DFL_HIST || stage == HC_DFL_BLOCK || stage == HC_DFL_PLACE;
}

/* The plan: host-written words, this header and then tables at the word offsets it gives. The
 * w_* fields are word offsets in the work buffer of what the stages write there (also set by
 * the host). Fixed-width fields only: the layout is the same in C++, CUDA and OpenCL C
 * (core/png/deflate_plan.cpp checks it with static_assert). */
typedef struct hc_dfl_plan {
  hc_u32 n; /* filtered bytes */
  hc_u32 segments; /* S */
  hc_u32 pieces; /* pieces, over all segments */
  hc_u32 blocks; /* block indices, over all segments */
  hc_u32 stored_limit; /* a stored block longer than this sets HC_DFL_UNSURE */
  hc_u32 out_words; /* the output's capacity in 32-bit words */
  hc_u32 seg_start; /* table: S + 1 byte offsets (the last is N) */
  hc_u32 seg_piece; /* table: S + 1 first pieces */
  hc_u32 seg_block; /* table: S + 1 first block indices */
  hc_u32 piece_seg; /* table: the segment of each piece */
  hc_u32 block_seg; /* table: the segment of each block index */
  hc_u32 w_piece_count; /* per piece */
  hc_u32 w_piece_adler; /* per piece */
  hc_u32 w_piece_off; /* per piece: its first symbol in its chunk, then (from HC_DFL_EMIT on) in its segment */
  hc_u32 w_seg_total; /* per segment: symbols */
  hc_u32 w_seg_adler; /* per segment: Adler-32 of its bytes */
  hc_u32 w_seg_bytes; /* per segment: deflate bytes */
  hc_u32 w_seg_off; /* S + 1: where each segment starts in the deflate data */
  hc_u32 w_block; /* per block index: HC_DFL_BI_WORDS words */
  hc_u32 w_codes; /* per block index: HC_DFL_CODE_WORDS words */
  hc_u32 w_header; /* per block index: HC_DFL_HDR_WORDS words */
  hc_u32 w_hist; /* per block index: HC_DFL_HIST_WORDS words */
  hc_u32 w_piece_bits; /* per piece: bits of its symbols in its first block */
  hc_u32 w_piece_at; /* per piece: 2 words, the stream bit of its first symbol */
  hc_u32 chunks; /* chunks, over all segments */
  hc_u32 seg_chunk; /* table: S + 1 first chunks */
  hc_u32 chunk_seg; /* table: the segment of each chunk */
  hc_u32 w_chunk_count; /* per chunk: symbols */
  hc_u32 w_chunk_adler; /* per chunk */
  hc_u32 w_chunk_off; /* per chunk: its first symbol in the segment */
  hc_u32 reserved[2];
} hc_dfl_plan;
#define HC_DFL_PLAN_HEADER 32 /* words */
#define HC_DFL_HIST_WORDS 288 /* literal/length counts (286), then the matches */
#define HC_DFL_HIST_MATCHES 286

/* The header of a plan buffer. */
HC_FN const HC_GLOBAL hc_dfl_plan* hc_dfl_header(const HC_GLOBAL hc_u32* plan) {
  return (const HC_GLOBAL hc_dfl_plan*)plan;
}
/* Work word 0 is the status: 0, or the bits below. */
#define HC_DFL_UNSURE 1u   /* a block would be stored past the limit: the host decides */
#define HC_DFL_OVERFLOW 2u /* the output would not fit (cannot happen with the host's sizes) */

/* A block's words. */
#define HC_DFL_BI_EXISTS 0
#define HC_DFL_BI_TYPE 1      /* 0 stored, 1 fixed, 2 dynamic */
#define HC_DFL_BI_HDR_BITS 2  /* dynamic: the tree description's bits */
#define HC_DFL_BI_DATA_BITS 3 /* coded: the symbols' bits, end-of-block included */
#define HC_DFL_BI_BYTES 4     /* the data bytes its symbols cover */
#define HC_DFL_BI_BYTE_START 5
#define HC_DFL_BI_BIT_LO 6    /* where it starts, in bits from its segment's start */
#define HC_DFL_BI_BIT_HI 7
/* (words 8 and 9 are not used) */
#define HC_DFL_BI_FINAL 10    /* the stream's final block */
#define HC_DFL_BI_FLUSH 11    /* the last block of a segment before another: a sync flush follows */
#define HC_DFL_BI_WORDS 12
/* A coded block's table: per symbol value (0-255 literals, 256 + length - 3 matches) two words,
 * the bits to send (for a match: length code, extra bits and distance code together, at most
 * 25 bits) and their count; then the end-of-block code's two. */
#define HC_DFL_CODE_WORDS 1026
#define HC_DFL_HDR_WORDS 144

#define HC_DFL_L_CODES 286
#define HC_DFL_D_CODES 30
#define HC_DFL_BL_CODES 19
#define HC_DFL_HEAP (2 * HC_DFL_L_CODES + 1)
#define HC_DFL_MAX_BITS 15

/* ---- helpers ---------------------------------------------------------------------------- */

HC_FN hc_u32 hc_dfl_run_symbols(hc_u32 run) {
  /* (r from q rather than rest % 258: a division and a remainder of the same operands become
   * an LLVM `freeze`, which Oclgrind's uninitialised-value tracking cannot follow) */
  const hc_u32 rest = run - 1u, q = rest / 258u, r = rest - 258u * q;
  return 1u + q + (r >= 3u ? 1u : r);
}

/* Length code (0..28) of a match of length l + 3, its extra bits and their base. */
HC_FN hc_u32 hc_dfl_length_code(hc_u32 l) {
  hc_u32 e = 0;
  if (l == 255u) return 28u;
  if (l < 8u) return l;
  while ((l >> (e + 3u)) != 0u) ++e; /* l in [8 << (e-1)... ) */
  /* l has e + 3 significant bits: e extra bits */
  return 4u * (e + 1u) + ((l >> e) & 3u);
}
HC_FN hc_u32 hc_dfl_length_extra(hc_u32 c) { return (c < 8u || c == 28u) ? 0u : c / 4u - 1u; }
HC_FN hc_u32 hc_dfl_length_base(hc_u32 c) {
  if (c < 8u) return c;
  if (c == 28u) return 255u;
  return (4u + (c & 3u)) << (c / 4u - 1u);
}
HC_FN hc_u32 hc_dfl_dist_extra(hc_u32 c) { return c < 4u ? 0u : c / 2u - 1u; }
HC_FN hc_u32 hc_dfl_bl_extra(hc_u32 c) { return c == 16u ? 2u : c == 17u ? 3u : c == 18u ? 7u : 0u; }
/* The code-length code's transmission order 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, ... */
HC_FN hc_u32 hc_dfl_bl_order(hc_u32 k) {
  return k < 3u ? 16u + k : k == 3u ? 0u : (k & 1u) ? 7u - (k - 5u) / 2u : 8u + (k - 4u) / 2u;
}
/* The low `len` bits of code (len 0..16) in reverse order: each byte reversed by the
 * multiply-and-mask method (64-bit), then the bytes swapped. (The shift-and-mask form compiles
 * to LLVM's bitreverse intrinsic, which Oclgrind does not implement.) */
HC_FN hc_u32 hc_dfl_reverse8(hc_u32 b) {
  return (hc_u32)(((((hc_u64)b * 0x0802u) & 0x22110u) | (((hc_u64)b * 0x8020u) & 0x88440u)) *
                      0x10101u >> 16) & 0xFFu;
}
HC_FN hc_u32 hc_dfl_reverse(hc_u32 code, hc_u32 len) {
  const hc_u32 r = (hc_dfl_reverse8(code & 0xFFu) << 8) | hc_dfl_reverse8((code >> 8) & 0xFFu);
  return r >> (16u - len);
}
/* The fixed literal/length code of symbol n: length, and the code as sent (bit-reversed). */
HC_FN hc_u32 hc_dfl_fixed_len(hc_u32 n) { return n < 144u ? 8u : n < 256u ? 9u : n < 280u ? 7u : 8u; }
HC_FN hc_u32 hc_dfl_fixed_code(hc_u32 n) {
  if (n < 144u) return hc_dfl_reverse(0x30u + n, 8u);
  if (n < 256u) return hc_dfl_reverse(0x190u + (n - 144u), 9u);
  if (n < 280u) return hc_dfl_reverse(n - 256u, 7u);
  return hc_dfl_reverse(0xC0u + (n - 280u), 8u);
}

HC_FN hc_u32 hc_dfl_adler_combine(hc_u32 a1, hc_u32 a2, hc_u32 len2) {
  const hc_u32 base = 65521u;
  const hc_u32 rem = len2 % base;
  hc_u32 sum1 = a1 & 0xFFFFu;
  hc_u32 sum2 = (rem * sum1) % base;
  sum1 += (a2 & 0xFFFFu) + base - 1u;
  sum2 += ((a1 >> 16) & 0xFFFFu) + ((a2 >> 16) & 0xFFFFu) + base - rem;
  if (sum1 >= base) sum1 -= base;
  if (sum1 >= base) sum1 -= base;
  if (sum2 >= (base << 1)) sum2 -= (base << 1);
  if (sum2 >= base) sum2 -= base;
  return sum1 | (sum2 << 16);
}

/* A piece's bytes [*a, *b) and its segment's [*sa, *sb). */
HC_FN void hc_dfl_piece(const HC_GLOBAL hc_u32* plan, hc_u32 p, hc_u32* s, hc_u32* a, hc_u32* b,
                        hc_u32* sa, hc_u32* sb) {
  const HC_GLOBAL hc_u32* seg_start = plan + hc_dfl_header(plan)->seg_start;
  *s = plan[hc_dfl_header(plan)->piece_seg + p];
  *sa = seg_start[*s];
  *sb = seg_start[*s + 1u];
  *a = *sa + (p - plan[hc_dfl_header(plan)->seg_piece + *s]) * HC_DFL_PIECE;
  *b = *sb - *a < HC_DFL_PIECE ? *sb : *a + HC_DFL_PIECE;
}

/* Blocks of a segment with `total` symbols: full ones, then for the stream's last segment a
 * final one (possibly empty), for the others what is left (if anything). */
HC_FN hc_u32 hc_dfl_segment_blocks(hc_u32 total, int last) {
  return last ? total / HC_DFL_SYM_LIMIT + 1u : (total + HC_DFL_SYM_LIMIT - 1u) / HC_DFL_SYM_LIMIT;
}

/* The data's bytes read eight at a time on the devices: a work-item walks 256 bytes of its own,
 * 256 bytes from its neighbour's, so byte loads would cost a memory transaction each. The
 * buffer starts 8-byte aligned; the words are little-endian on every device we build for. */
#if defined(__OPENCL_VERSION__) || defined(__CUDA_ARCH__)
#if defined(__OPENCL_VERSION__) && !defined(__ENDIAN_LITTLE__)
#error "png_deflate.h reads the data as little-endian words"
#endif
typedef struct {
  const HC_GLOBAL hc_u64* words;
  hc_u64 word;
  hc_u32 at; /* the word in `word`, ~0 for none */
} hc_dfl_bytes;
HC_FN void hc_dfl_bytes_init(hc_dfl_bytes* r, const HC_GLOBAL hc_u8* data) {
  r->words = (const HC_GLOBAL hc_u64*)data;
  r->word = 0;
  r->at = 0xFFFFFFFFu;
}
HC_FN hc_u32 hc_dfl_byte(hc_dfl_bytes* r, hc_u32 i) {
  if (i >> 3 != r->at) {
    r->at = i >> 3;
    r->word = r->words[r->at];
  }
  return (hc_u32)(r->word >> ((i & 7u) * 8u)) & 0xFFu;
}
#else
typedef struct {
  const hc_u8* data;
} hc_dfl_bytes;
HC_FN void hc_dfl_bytes_init(hc_dfl_bytes* r, const hc_u8* data) { r->data = data; }
HC_FN hc_u32 hc_dfl_byte(hc_dfl_bytes* r, hc_u32 i) { return r->data[i]; }
#endif

/* ---- stages over pieces ----------------------------------------------------------------- */

/* The runs a piece owns are those that start in it (the last may go on past it, up to the
 * segment's end). COUNT and EMIT walk its bytes once, closing each run when the next starts.
 * COUNT keeps the symbols of the open run as it grows, without a branch: a run of L bytes is
 * hc_dfl_run_symbols(L) symbols, and its L + 1st byte adds 1 when (L - 1) % 258 is 0 or 1,
 * takes 1 away when it is 2 (two literals become a match of 3), and adds nothing otherwise. */
HC_FN void hc_dfl_count(const HC_GLOBAL hc_u8* data, const HC_GLOBAL hc_u32* plan,
                        HC_GLOBAL hc_u32* work, hc_u32 p) {
  hc_u32 s, a, b, sa, sb, i, count = 0, s1 = 1, s2 = 0, prev = 0, start = 0, r = 0, own = 0;
  hc_dfl_bytes d;
  hc_dfl_bytes_init(&d, data);
  hc_dfl_piece(plan, p, &s, &a, &b, &sa, &sb);
  prev = a > sa ? hc_dfl_byte(&d, a - 1u) : 0u;
  for (i = a; i < b; ++i) {
    const hc_u32 x = hc_dfl_byte(&d, i);
    const hc_u32 fresh = (i == sa) | (x != prev);
    s1 += x;
    s2 += s1;
    own |= fresh;
    count += fresh ? 1u : own ? (hc_u32)(r < 2u) - (hc_u32)(r == 2u) : 0u;
    r = fresh || r == 257u ? 0u : r + 1u;
    start = fresh ? i : start;
    prev = x;
  }
  if (own) {
    /* The open run goes on past the piece: its symbols from its whole length. */
    const hc_u32 inside = i - start;
    while (i < sb && hc_dfl_byte(&d, i) == prev) ++i;
    if (i - start != inside) count += hc_dfl_run_symbols(i - start) - hc_dfl_run_symbols(inside);
  }
  if (p == 0u) work[0] = 0; /* the status, before any later stage sets it */
  work[hc_dfl_header(plan)->w_piece_count + p] = count;
  work[hc_dfl_header(plan)->w_piece_adler + p] = (s1 % 65521u) | ((s2 % 65521u) << 16);
}

/* The symbol emitter of a piece: where the next symbol goes, its block, its byte. */
typedef struct {
  HC_GLOBAL hc_u16* out;
  HC_GLOBAL hc_u32* block_info;
  hc_u32 block, rem, pos; /* block index, symbols before this one in it, data byte */
} hc_dfl_emitter;

HC_FN void hc_dfl_put_symbol(hc_dfl_emitter* e, hc_u32 value, hc_u32 bytes) {
  if (e->rem == HC_DFL_SYM_LIMIT) {
    e->rem = 0;
    e->block++;
  }
  if (e->rem == 0u) e->block_info[e->block * HC_DFL_BI_WORDS + HC_DFL_BI_BYTE_START] = e->pos;
  *e->out++ = (hc_u16)value;
  e->rem++;
  e->pos += bytes;
}

HC_FN void hc_dfl_emit(const HC_GLOBAL hc_u8* data, const HC_GLOBAL hc_u32* plan,
                       HC_GLOBAL hc_u32* work, HC_GLOBAL hc_u16* syms, hc_u32 p) {
  hc_u32 s, a, b, sa, sb, i, first, prev = 0, start = 0;
  int own = 0;
  hc_dfl_emitter e;
  hc_dfl_bytes d;
  hc_dfl_bytes_init(&d, data);
  hc_dfl_piece(plan, p, &s, &a, &b, &sa, &sb);
  e.pos = a;
  /* The piece's first symbol: in its chunk, plus where the chunk starts; kept for later. */
  first = work[hc_dfl_header(plan)->w_piece_off + p] +
          work[hc_dfl_header(plan)->w_chunk_off + plan[hc_dfl_header(plan)->seg_chunk + s] +
               (p - plan[hc_dfl_header(plan)->seg_piece + s]) / HC_DFL_CHUNK];
  work[hc_dfl_header(plan)->w_piece_off + p] = first;
  e.out = syms + sa + first;
  e.rem = first / HC_DFL_SYM_LIMIT; /* (see hc_dfl_run_symbols for why not %) */
  e.block = plan[hc_dfl_header(plan)->seg_block + s] + e.rem;
  e.rem = first - e.rem * HC_DFL_SYM_LIMIT;
  e.block_info = work + hc_dfl_header(plan)->w_block;
  prev = a > sa ? hc_dfl_byte(&d, a - 1u) : 0u;
  for (i = a;; ++i) {
    hc_u32 x = 0;
    if (i < b) {
      x = hc_dfl_byte(&d, i);
      if (i != sa && x == prev) continue;
    } else {
      if (!own) break;
      while (i < sb && hc_dfl_byte(&d, i) == prev) ++i;
    }
    if (own) {
      /* The run [start, i) of bytes `prev`: a literal, matches of 258, then the rest. */
      hc_u32 rest = i - start - 1u;
      hc_dfl_put_symbol(&e, prev, 1u);
      while (rest >= 258u) {
        hc_dfl_put_symbol(&e, 256u + 255u, 258u);
        rest -= 258u;
      }
      if (rest >= 3u) {
        hc_dfl_put_symbol(&e, 256u + rest - 3u, rest);
      } else {
        while (rest--) hc_dfl_put_symbol(&e, prev, 1u);
      }
    } else {
      e.pos = i;
    }
    if (i >= b) break;
    own = 1;
    start = i;
    prev = x;
  }
}

/* ---- stages over segments ---------------------------------------------------------------- */

/* Items i0..i1-1 (pieces, or chunks of them) cover the bytes from `at` to `end`, `span` bytes
 * each: the first symbol of each (from its symbol count) into off[], their Adler-32s combined
 * into *adler; returns their symbols. */
HC_FN hc_u32 hc_dfl_prefix(HC_GLOBAL hc_u32* off, const HC_GLOBAL hc_u32* count,
                           const HC_GLOBAL hc_u32* adlers, hc_u32 i0, hc_u32 i1, hc_u32 at,
                           hc_u32 end, hc_u32 span, hc_u32* adler) {
  hc_u32 i, total = 0, a = 1u;
  for (i = i0; i < i1; ++i) {
    const hc_u32 len = end - at < span ? end - at : span;
    off[i] = total;
    total += count[i];
    a = hc_dfl_adler_combine(a, adlers[i], len);
    at += len;
  }
  *adler = a;
  return total;
}

HC_FN void hc_dfl_scan_chunk(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work, hc_u32 c) {
  const hc_u32 s = plan[hc_dfl_header(plan)->chunk_seg + c];
  const hc_u32 q0 = plan[hc_dfl_header(plan)->seg_piece + s], q1 = plan[hc_dfl_header(plan)->seg_piece + s + 1u];
  const hc_u32 p0 = q0 + (c - plan[hc_dfl_header(plan)->seg_chunk + s]) * HC_DFL_CHUNK;
  const hc_u32 p1 = q1 - p0 < HC_DFL_CHUNK ? q1 : p0 + HC_DFL_CHUNK;
  hc_u32 adler;
  work[hc_dfl_header(plan)->w_chunk_count + c] = hc_dfl_prefix(
      work + hc_dfl_header(plan)->w_piece_off, work + hc_dfl_header(plan)->w_piece_count,
      work + hc_dfl_header(plan)->w_piece_adler, p0, p1,
      plan[hc_dfl_header(plan)->seg_start + s] + (p0 - q0) * HC_DFL_PIECE,
      plan[hc_dfl_header(plan)->seg_start + s + 1u], HC_DFL_PIECE, &adler);
  work[hc_dfl_header(plan)->w_chunk_adler + c] = adler;
}

HC_FN void hc_dfl_scan(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work, hc_u32 s) {
  hc_u32 adler;
  work[hc_dfl_header(plan)->w_seg_total + s] = hc_dfl_prefix(
      work + hc_dfl_header(plan)->w_chunk_off, work + hc_dfl_header(plan)->w_chunk_count,
      work + hc_dfl_header(plan)->w_chunk_adler, plan[hc_dfl_header(plan)->seg_chunk + s],
      plan[hc_dfl_header(plan)->seg_chunk + s + 1u], plan[hc_dfl_header(plan)->seg_start + s],
      plan[hc_dfl_header(plan)->seg_start + s + 1u], HC_DFL_CHUNK * HC_DFL_PIECE, &adler);
  work[hc_dfl_header(plan)->w_seg_adler + s] = adler;
}

HC_FN void hc_dfl_layout(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work, hc_u32 s) {
  const hc_u32 segments = hc_dfl_header(plan)->segments;
  const hc_u32 nb = hc_dfl_segment_blocks(work[hc_dfl_header(plan)->w_seg_total + s], s + 1u == segments);
  const hc_u32 first = plan[hc_dfl_header(plan)->seg_block + s];
  hc_u64 bit = 0;
  hc_u32 j;
  for (j = 0; j < nb; ++j) {
    HC_GLOBAL hc_u32* bi = work + hc_dfl_header(plan)->w_block + (first + j) * HC_DFL_BI_WORDS;
    bi[HC_DFL_BI_BIT_LO] = (hc_u32)bit;
    bi[HC_DFL_BI_BIT_HI] = (hc_u32)(bit >> 32);
    if (bi[HC_DFL_BI_TYPE] == 0u) {
      bit = ((bit + 3u + 7u) & ~(hc_u64)7u) + 32u + 8u * (hc_u64)bi[HC_DFL_BI_BYTES];
    } else {
      bit += 3u + (hc_u64)bi[HC_DFL_BI_HDR_BITS] + (hc_u64)bi[HC_DFL_BI_DATA_BITS];
    }
  }
  if (s + 1u < segments) bit = ((bit + 3u + 7u) & ~(hc_u64)7u) + 32u; /* the sync flush */
  bit = (bit + 7u) & ~(hc_u64)7u;
  work[hc_dfl_header(plan)->w_seg_bytes + s] = (hc_u32)(bit >> 3);
}

HC_FN void hc_dfl_offsets(const HC_GLOBAL hc_u32* plan, HC_GLOBAL hc_u32* work) {
  const hc_u32 segments = hc_dfl_header(plan)->segments;
  hc_u64 off = 0;
  hc_u32 s;
  for (s = 0; s < segments; ++s) {
    work[hc_dfl_header(plan)->w_seg_off + s] = (hc_u32)off;
    off += work[hc_dfl_header(plan)->w_seg_bytes + s];
  }
  if (off > 4u * (hc_u64)hc_dfl_header(plan)->out_words) {
    work[0] |= HC_DFL_OVERFLOW;
    off = 0;
  }
  work[hc_dfl_header(plan)->w_seg_off + segments] = (hc_u32)off;
}

/* ---- zlib's trees -------------------------------------------------------------------------- */

/* A tree's arrays, in hc_dfl_state (each tree sized for its codes, so that the block stage's
 * scratch stays small). */
typedef struct {
  HC_LOCAL hc_u32* freq;
  HC_LOCAL hc_u16* len; /* one more than the nodes: scan_tree's guard */
  HC_LOCAL hc_u16* code;
  HC_LOCAL hc_u16* dad;
  hc_i32 max_code;
} hc_dfl_tree;

#define HC_DFL_D_HEAP (2 * HC_DFL_D_CODES + 1)
#define HC_DFL_BL_HEAP (2 * HC_DFL_BL_CODES + 1)
typedef struct {
  hc_dfl_tree l, d, bl;
  hc_u32 l_freq[HC_DFL_HEAP], d_freq[HC_DFL_D_HEAP], bl_freq[HC_DFL_BL_HEAP];
  hc_u16 l_len[HC_DFL_HEAP + 1], d_len[HC_DFL_D_HEAP + 1], bl_len[HC_DFL_BL_HEAP + 1];
  hc_u16 l_code[HC_DFL_HEAP], d_code[HC_DFL_D_HEAP], bl_code[HC_DFL_BL_HEAP];
  hc_u16 l_dad[HC_DFL_HEAP], d_dad[HC_DFL_D_HEAP], bl_dad[HC_DFL_BL_HEAP];
  /* zlib's heap of nodes, each entry the node's sort key (frequency << 5 | depth: zlib's
   * smaller() is key <= key) above the node number (10 bits), so that comparisons read the
   * heap only; the entry past the last is HC_DFL_NO_ENTRY. A block's frequencies sum to at
   * most 16386, so a subtree is at most 22 deep. */
  hc_u32 heap[HC_DFL_HEAP + 1];
  hc_u32 bl_count[HC_DFL_MAX_BITS + 1], next_code[HC_DFL_MAX_BITS + 1];
  hc_i32 heap_len, heap_max;
  hc_u64 opt_len, static_len;
  /* the depth of every node, by pointer jumping: ancestors and distances, two copies */
  hc_u16 anc[2][HC_DFL_HEAP];
  hc_u8 dep[2][HC_DFL_HEAP];
  /* the lanes' partial sums */
  hc_u64 part_a[HC_DFL_BLOCK_LANES], part_b[HC_DFL_BLOCK_LANES];
  hc_u32 part_c[HC_DFL_BLOCK_LANES];
  hc_u32 bytes, type, max_blindex;
} hc_dfl_state;

HC_FN void hc_dfl_state_init(HC_LOCAL hc_dfl_state* z) {
  z->l.freq = z->l_freq;
  z->l.len = z->l_len;
  z->l.code = z->l_code;
  z->l.dad = z->l_dad;
  z->d.freq = z->d_freq;
  z->d.len = z->d_len;
  z->d.code = z->d_code;
  z->d.dad = z->d_dad;
  z->bl.freq = z->bl_freq;
  z->bl.len = z->bl_len;
  z->bl.code = z->bl_code;
  z->bl.dad = z->bl_dad;
}

#define HC_DFL_NODE(e) ((hc_i32)((e) & 0x3FFu))
#define HC_DFL_KEY(e) ((e) >> 10)
#define HC_DFL_NO_ENTRY 0xFFFFFFFFu /* a key above every node's */
HC_FN hc_u32 hc_dfl_entry(hc_u32 freq, hc_u32 depth, hc_i32 node) {
  return (((freq << 5) | depth) << 10) | (hc_u32)node;
}

/* zlib's pqdownheap(). KEY(a) <= KEY(b) is a <= (b | 0x3FF); heap[len + 1] is HC_DFL_NO_ENTRY,
 * so the last parent's missing right child is never taken. */
HC_FN void hc_dfl_downheap(HC_LOCAL hc_u32* heap, hc_i32 len, hc_i32 k) {
  const hc_u32 v = heap[k];
  hc_i32 j = k << 1;
  while (j <= len) {
    hc_u32 hj = heap[j];
    const hc_u32 hj1 = heap[j + 1];
    if (hj1 <= (hj | 0x3FFu)) {
      ++j;
      hj = hj1;
    }
    if (v <= (hj | 0x3FFu)) break;
    heap[k] = hj;
    k = j;
    j <<= 1;
  }
  heap[k] = v;
}

/* kind: 0 literal/length, 1 distance, 2 code-length code (which has no static lengths). */
HC_FN hc_u32 hc_dfl_extra(int kind, hc_i32 n) {
  if (kind == 0) return n >= 257 ? hc_dfl_length_extra((hc_u32)(n - 257)) : 0u;
  if (kind == 1) return hc_dfl_dist_extra((hc_u32)n);
  return hc_dfl_bl_extra((hc_u32)n);
}
HC_FN hc_u32 hc_dfl_static_len(int kind, hc_i32 n) { return kind == 0 ? hc_dfl_fixed_len((hc_u32)n) : 5u; }

/* zlib's gen_bitlen(). A node's length there is its parent's plus one, capped at max_length,
 * which is its depth capped; the nodes deeper than max_length are the overflow. The depths
 * come from pointer jumping over the parent links (five rounds: no tree here is 32 deep); the
 * repair of an overflow walks the heap in zlib's order, on lane 0. */
HC_FN void hc_dfl_gen_bitlen(HC_LOCAL hc_dfl_state* z, HC_LOCAL hc_dfl_tree* t, int kind,
                             hc_i32 max_length, hc_u32 lane, hc_u32 lanes) {
  const hc_i32 top = z->heap_max;
  hc_i32 h, bits, round, overflow = 0;
  hc_u64 opt = 0, stat = 0;
  for (h = top + (hc_i32)lane; h < HC_DFL_HEAP; h += (hc_i32)lanes) {
    const hc_i32 n = HC_DFL_NODE(z->heap[h]);
    z->anc[0][n] = (hc_u16)(h == top ? n : t->dad[n]);
    z->dep[0][n] = (hc_u8)(h == top ? 0 : 1);
  }
  for (h = (hc_i32)lane; h <= HC_DFL_MAX_BITS; h += (hc_i32)lanes) z->bl_count[h] = 0;
  HC_BARRIER();
  for (round = 0; round < 5; ++round) {
    const int from = round & 1, to = from ^ 1;
    for (h = top + (hc_i32)lane; h < HC_DFL_HEAP; h += (hc_i32)lanes) {
      const hc_i32 n = HC_DFL_NODE(z->heap[h]), a = z->anc[from][n];
      z->dep[to][n] = (hc_u8)(z->dep[from][n] + z->dep[from][a]);
      z->anc[to][n] = z->anc[from][a];
    }
    HC_BARRIER();
  }
  for (h = top + (hc_i32)lane; h < HC_DFL_HEAP; h += (hc_i32)lanes) {
    const hc_i32 n = HC_DFL_NODE(z->heap[h]), depth = z->dep[1][n];
    hc_u32 xbits;
    hc_u64 f;
    bits = depth;
    if (bits > max_length) {
      bits = max_length;
      ++overflow;
    }
    t->len[n] = (hc_u16)bits;
    if (n > t->max_code) continue; /* not a leaf */
    HC_ATOMIC_ADD_LOCAL(&z->bl_count[bits], 1u);
    xbits = hc_dfl_extra(kind, n);
    f = t->freq[n];
    opt += f * (hc_u64)((hc_u32)bits + xbits);
    if (kind != 2) stat += f * (hc_u64)(hc_dfl_static_len(kind, n) + xbits);
  }
  z->part_a[lane] = opt;
  z->part_b[lane] = stat;
  z->part_c[lane] = (hc_u32)overflow;
  HC_BARRIER();
  if (lane == 0u) {
    hc_u32 i;
    for (i = 0; i < lanes; ++i) {
      z->opt_len += z->part_a[i];
      z->static_len += z->part_b[i];
      if (i) overflow += (hc_i32)z->part_c[i];
    }
    if (overflow > 0) {
      do {
        bits = max_length - 1;
        while (z->bl_count[bits] == 0u) --bits;
        z->bl_count[bits]--;
        z->bl_count[bits + 1] += 2u;
        z->bl_count[max_length]--;
        overflow -= 2;
      } while (overflow > 0);
      h = HC_DFL_HEAP;
      for (bits = max_length; bits != 0; --bits) {
        hc_u32 n = z->bl_count[bits];
        while (n != 0u) {
          const hc_i32 m = HC_DFL_NODE(z->heap[--h]);
          if (m > t->max_code) continue;
          if (t->len[m] != (hc_u32)bits) {
            z->opt_len += ((hc_u64)bits - t->len[m]) * (hc_u64)t->freq[m];
            t->len[m] = (hc_u16)bits;
          }
          --n;
        }
      }
    }
  }
  HC_BARRIER();
}

/* zlib's gen_codes(): the codes of each length in symbol order, from the first code of that
 * length; with enough lanes, one length to a lane. */
HC_FN void hc_dfl_gen_codes(HC_LOCAL hc_dfl_state* z, HC_LOCAL hc_dfl_tree* t, hc_u32 lane,
                            hc_u32 lanes) {
  hc_i32 bits, n;
  if (lane == 0u) {
    hc_u32 code = 0;
    z->next_code[0] = 0;
    for (bits = 1; bits <= HC_DFL_MAX_BITS; ++bits) {
      code = (code + z->bl_count[bits - 1]) << 1;
      z->next_code[bits] = code;
    }
  }
  HC_BARRIER();
  if (lanes < HC_DFL_MAX_BITS) {
    if (lane == 0u) {
      for (n = 0; n <= t->max_code; ++n) {
        const hc_u32 len = t->len[n];
        if (len == 0u) continue;
        t->code[n] = (hc_u16)hc_dfl_reverse(z->next_code[len]++, len);
      }
    }
  } else if (lane < HC_DFL_MAX_BITS) {
    const hc_u32 len = lane + 1u;
    hc_u32 next = z->next_code[len];
    for (n = 0; n <= t->max_code; ++n)
      if (t->len[n] == len) t->code[n] = (hc_u16)hc_dfl_reverse(next++, len);
  }
  HC_BARRIER();
}

/* zlib's build_tree(): lane 0 fills the heap and makes the merges, which follow one another;
 * the work-group makes the heap, the lengths and the codes. */
HC_FN void hc_dfl_build_tree(HC_LOCAL hc_dfl_state* z, HC_LOCAL hc_dfl_tree* t, hc_i32 elems,
                             int kind, hc_i32 max_length, hc_u32 lane, hc_u32 lanes) {
  HC_LOCAL hc_u32* heap = z->heap;
  hc_i32 n, node, len, level;
  if (lane == 0u) {
    hc_i32 max_code = -1;
    len = 0;
    for (n = 0; n < elems; ++n) {
      if (t->freq[n] != 0u) {
        heap[++len] = hc_dfl_entry(t->freq[n], 0u, n);
        max_code = n;
      } else {
        t->len[n] = 0;
      }
    }
    /* At least two codes of non-zero frequency. */
    while (len < 2) {
      node = max_code < 2 ? ++max_code : 0;
      heap[++len] = hc_dfl_entry(1u, 0u, node);
      t->freq[node] = 1u;
      z->opt_len--;
      if (kind != 2) z->static_len -= hc_dfl_static_len(kind, node);
    }
    heap[len + 1] = HC_DFL_NO_ENTRY;
    t->max_code = max_code;
    z->heap_len = len;
  }
  HC_BARRIER();
  /* zlib makes the heap with pqdownheap from heap_len / 2 down to 1. The subtrees of the
   * parents on one level are apart, and every deeper parent comes before them: a level at a
   * time, its parents on all lanes, gives the same heap. */
  len = z->heap_len;
  level = 1;
  while (level * 2 <= len / 2) level *= 2;
  for (; level >= 1; level /= 2) {
    for (n = level + (hc_i32)lane; n < 2 * level && n <= len / 2; n += (hc_i32)lanes)
      hc_dfl_downheap(heap, len, n);
    HC_BARRIER();
  }
  if (lane == 0u) {
    hc_i32 top = HC_DFL_HEAP;
    node = elems;
    do {
      const hc_u32 en = heap[1];
      hc_u32 em, depth;
      heap[1] = heap[len];
      heap[len--] = HC_DFL_NO_ENTRY;
      hc_dfl_downheap(heap, len, 1);
      em = heap[1];
      heap[--top] = en;
      heap[--top] = em;
      depth = (HC_DFL_KEY(en) & 31u) >= (HC_DFL_KEY(em) & 31u) ? (HC_DFL_KEY(en) & 31u)
                                                               : (HC_DFL_KEY(em) & 31u);
      t->dad[HC_DFL_NODE(en)] = t->dad[HC_DFL_NODE(em)] = (hc_u16)node;
      heap[1] = hc_dfl_entry((HC_DFL_KEY(en) >> 5) + (HC_DFL_KEY(em) >> 5), depth + 1u, node);
      ++node;
      hc_dfl_downheap(heap, len, 1);
    } while (len >= 2);
    heap[--top] = heap[1];
    z->heap_len = len;
    z->heap_max = top;
  }
  HC_BARRIER();
  hc_dfl_gen_bitlen(z, t, kind, max_length, lane, lanes);
  hc_dfl_gen_codes(z, t, lane, lanes);
}

/* zlib's run limits for the code lengths (scan_tree/send_tree). */
HC_FN void hc_dfl_run_limits(hc_i32 curlen, hc_i32 nextlen, hc_i32* max_count, hc_i32* min_count) {
  if (nextlen == 0) {
    *max_count = 138;
    *min_count = 3;
  } else if (curlen == nextlen) {
    *max_count = 6;
    *min_count = 3;
  } else {
    *max_count = 7;
    *min_count = 4;
  }
}

/* A bit writer into a block's header words (not shared). */
typedef struct {
  HC_GLOBAL hc_u32* out;
  hc_u64 acc;
  hc_u32 n, words;
} hc_dfl_hw;

HC_FN void hc_dfl_hw_put(hc_dfl_hw* w, hc_u32 value, hc_u32 len) {
  w->acc |= (hc_u64)value << w->n;
  w->n += len;
  if (w->n >= 32u) {
    if (w->words < HC_DFL_HDR_WORDS) w->out[w->words] = (hc_u32)w->acc;
    w->words++;
    w->acc >>= 32;
    w->n -= 32u;
  }
}

/* zlib's scan_tree() (w null: the code-length code's frequencies) and send_tree() (w: the
 * lengths sent with that code): the code lengths of tree t as runs. */
HC_FN void hc_dfl_tree_runs(HC_LOCAL hc_dfl_state* z, HC_LOCAL hc_dfl_tree* t, hc_dfl_hw* w) {
  hc_i32 n, prevlen = -1, nextlen = t->len[0], count = 0, max_count = 7, min_count = 4;
  HC_LOCAL hc_dfl_tree* bl = &z->bl;
  if (!w) t->len[t->max_code + 1] = 0xFFFFu; /* guard (it stays for send_tree) */
  hc_dfl_run_limits(-1, nextlen, &max_count, &min_count);
  for (n = 0; n <= t->max_code; ++n) {
    const hc_i32 curlen = nextlen;
    nextlen = t->len[n + 1];
    if (++count < max_count && curlen == nextlen) continue;
    if (count < min_count) {
      if (!w) {
        bl->freq[curlen] += (hc_u32)count;
      } else {
        do hc_dfl_hw_put(w, bl->code[curlen], bl->len[curlen]);
        while (--count != 0);
      }
    } else if (curlen != 0) {
      if (curlen != prevlen) {
        if (!w) {
          bl->freq[curlen]++;
        } else {
          hc_dfl_hw_put(w, bl->code[curlen], bl->len[curlen]);
          --count;
        }
      }
      if (!w) {
        bl->freq[16]++;
      } else {
        hc_dfl_hw_put(w, bl->code[16], bl->len[16]);
        hc_dfl_hw_put(w, (hc_u32)(count - 3), 2u);
      }
    } else if (count <= 10) {
      if (!w) {
        bl->freq[17]++;
      } else {
        hc_dfl_hw_put(w, bl->code[17], bl->len[17]);
        hc_dfl_hw_put(w, (hc_u32)(count - 3), 3u);
      }
    } else {
      if (!w) {
        bl->freq[18]++;
      } else {
        hc_dfl_hw_put(w, bl->code[18], bl->len[18]);
        hc_dfl_hw_put(w, (hc_u32)(count - 11), 7u);
      }
    }
    count = 0;
    prevlen = curlen;
    hc_dfl_run_limits(curlen, nextlen, &max_count, &min_count);
  }
}

/* zlib's build_tree() for the literal/length and distance trees, then its build_bl_tree(): the
 * code-length code's frequencies from their lengths, its tree, the last of its lengths to send
 * (z->max_blindex) and the tree description's bits added to z->opt_len. The trees' frequencies
 * are set and z->opt_len and z->static_len are 0 before. */
HC_FN void hc_dfl_build_trees(HC_LOCAL hc_dfl_state* z, hc_u32 lane, hc_u32 lanes) {
  hc_dfl_build_tree(z, &z->l, HC_DFL_L_CODES, 0, HC_DFL_MAX_BITS, lane, lanes);
  hc_dfl_build_tree(z, &z->d, HC_DFL_D_CODES, 1, HC_DFL_MAX_BITS, lane, lanes);
  if (lane == 0u) {
    hc_dfl_tree_runs(z, &z->l, 0);
    hc_dfl_tree_runs(z, &z->d, 0);
  }
  HC_BARRIER();
  hc_dfl_build_tree(z, &z->bl, HC_DFL_BL_CODES, 2, 7, lane, lanes);
  if (lane == 0u) {
    hc_u32 max_blindex;
    for (max_blindex = HC_DFL_BL_CODES - 1; max_blindex >= 3u; --max_blindex)
      if (z->bl.len[hc_dfl_bl_order(max_blindex)] != 0u) break;
    z->opt_len += 3u * ((hc_u64)max_blindex + 1u) + 5u + 5u + 4u;
    z->max_blindex = max_blindex;
  }
}

/* zlib's _tr_flush_block() choice once the trees are built: whether a stored block of `bytes`
 * takes no more room than the codes would (zlib stores it only while those bytes are still in
 * its window, which the caller knows), and otherwise 1, the fixed codes, or 2, the trees. */
HC_FN int hc_dfl_stored_fits(const HC_LOCAL hc_dfl_state* z, hc_u64 bytes) {
  const hc_u64 opt_lenb = (z->opt_len + 3u + 7u) >> 3, static_lenb = (z->static_len + 3u + 7u) >> 3;
  return bytes + 4u <= (static_lenb <= opt_lenb ? static_lenb : opt_lenb);
}
HC_FN hc_u32 hc_dfl_coded_type(const HC_LOCAL hc_dfl_state* z) {
  return (z->static_len + 3u + 7u) >> 3 <= (z->opt_len + 3u + 7u) >> 3 ? 1u : 2u;
}

/* zlib's send_all_trees(): a dynamic block's tree description, after its three header bits. */
HC_FN void hc_dfl_tree_header(HC_LOCAL hc_dfl_state* z, hc_dfl_hw* w) {
  const hc_i32 lcodes = z->l.max_code + 1, dcodes = z->d.max_code + 1;
  const hc_u32 blcodes = z->max_blindex + 1u;
  hc_u32 i;
  hc_dfl_hw_put(w, (hc_u32)(lcodes - 257), 5u);
  hc_dfl_hw_put(w, (hc_u32)(dcodes - 1), 5u);
  hc_dfl_hw_put(w, blcodes - 4u, 4u);
  for (i = 0; i < blcodes; ++i) hc_dfl_hw_put(w, z->bl.len[hc_dfl_bl_order(i)], 3u);
  hc_dfl_tree_runs(z, &z->l, w);
  hc_dfl_tree_runs(z, &z->d, w);
}

/* The code of symbol value v (a literal byte, or 256 + length - 3 for a match at distance 1:
 * its length code, extra bits and distance code together, at most 25 bits) in a block of type
 * 1 (fixed) or 2 (dynamic), as sent, into *code; returns its bits, 0 for a length code the
 * block does not use (past max_code its length is scan_tree's guard). */
HC_FN hc_u32 hc_dfl_symbol_code(const HC_LOCAL hc_dfl_state* z, hc_u32 type, hc_u32 v,
                                hc_u32* code) {
  const hc_u32 dcode = type == 1u ? hc_dfl_reverse(0u, 5u) : z->d.code[0];
  const hc_u32 dlen = type == 1u ? 5u : z->d.len[0];
  hc_u32 m, c, sym, extra, clen;
  if (v < 256u) {
    const hc_u32 len = type == 1u ? hc_dfl_fixed_len(v) : z->l.len[v];
    *code = type == 1u ? hc_dfl_fixed_code(v) : len ? z->l.code[v] : 0u;
    return len;
  }
  m = v - 256u;
  c = hc_dfl_length_code(m);
  sym = 257u + c;
  extra = hc_dfl_length_extra(c);
  clen = type == 1u ? hc_dfl_fixed_len(sym) : z->l.len[sym];
  if (clen == 0u || clen > HC_DFL_MAX_BITS) {
    *code = 0u;
    return 0u;
  }
  *code = (type == 1u ? hc_dfl_fixed_code(sym) : z->l.code[sym]) |
          ((m - hc_dfl_length_base(c)) << clen) | (dcode << (clen + extra));
  return clen + extra + dlen;
}

/* ---- the block stage ------------------------------------------------------------------------ */

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
  {
    /* The code of every symbol value (hc_dfl_symbol_code), and the symbols' bits from the
     * histogram (the tree build may have given an unused code a count of 1; hist holds the
     * true counts). */
    const hc_u32 dlen = type == 1u ? 5u : z->d.len[0];
    const hc_u32 first = type == 2u && lanes > 1u ? 1u : 0u, step = lanes - first;
    hc_u64 bits = 0;
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
  if (first < end && work[hc_dfl_header(plan)->w_block + k * HC_DFL_BI_WORDS + HC_DFL_BI_TYPE] != 0u) {
    const HC_GLOBAL hc_u32* codes = work + hc_dfl_header(plan)->w_codes + k * HC_DFL_CODE_WORDS;
    const HC_GLOBAL hc_u16* sp = syms + plan[hc_dfl_header(plan)->seg_start + plan[hc_dfl_header(plan)->piece_seg + p]];
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
    if (off[mid] < lo) p0 = mid + 1u; else p1 = mid;
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
    hc_dfl_bw_start(&w, out, hc_dfl_data_bit(plan, work, k) + bi[HC_DFL_BI_DATA_BITS] - codes[1025]);
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

/* Items of each stage. */
HC_FN hc_u32 hc_dfl_items(const HC_GLOBAL hc_u32* plan, int stage) {
  switch (stage) {
    case HC_DFL_CLEAR:
      return (hc_dfl_header(plan)->out_words + 63u) / 64u;
    case HC_DFL_COUNT:
    case HC_DFL_EMIT:
    case HC_DFL_BITS:
    case HC_DFL_PACK:
      return hc_dfl_header(plan)->pieces;
    case HC_DFL_SCAN_CHUNKS:
      return hc_dfl_header(plan)->chunks;
    case HC_DFL_SCAN:
    case HC_DFL_LAYOUT:
      return hc_dfl_header(plan)->segments;
    case HC_DFL_OFFSETS:
      return 1u;
    default:
      return hc_dfl_header(plan)->blocks;
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
    case HC_DFL_COUNT: hc_dfl_count(data, plan, work, i); break;
    case HC_DFL_SCAN_CHUNKS: hc_dfl_scan_chunk(plan, work, i); break;
    case HC_DFL_SCAN: hc_dfl_scan(plan, work, i); break;
    case HC_DFL_EMIT: hc_dfl_emit(data, plan, work, syms, i); break;
    case HC_DFL_HIST:
      hc_dfl_hist(plan, work, syms, i, z->l_freq, lane, lanes);
      break;
    case HC_DFL_BLOCK:
      hc_dfl_block(plan, work, i, z, lane, lanes);
      break;
    case HC_DFL_LAYOUT: hc_dfl_layout(plan, work, i); break;
    case HC_DFL_OFFSETS: hc_dfl_offsets(plan, work); break;
    case HC_DFL_BITS: hc_dfl_bits(plan, work, syms, i); break;
    case HC_DFL_PLACE:
      hc_dfl_place(plan, work, syms, i, z->l_freq, lane, lanes);
      break;
    case HC_DFL_PACK_BLOCKS: hc_dfl_pack_block(data, plan, work, out, i); break;
    default: hc_dfl_pack(plan, work, syms, out, i); break;
  }
}

#endif /* HETCODEC_PORTABLE_PNG_DEFLATE_H */
