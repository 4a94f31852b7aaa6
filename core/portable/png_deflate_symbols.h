/* The device deflate's symbol stages (png_deflate.h): HC_DFL_COUNT, HC_DFL_SCAN_CHUNKS,
 * HC_DFL_SCAN and HC_DFL_EMIT parse each piece's runs of equal bytes into zlib's Z_RLE symbols
 * and sum their counts and Adler-32 per chunk and segment; HC_DFL_LAYOUT and HC_DFL_OFFSETS
 * place the blocks and segments in the deflate data once the block stage has sized them.
 * C++, CUDA and OpenCL C. */
#ifndef HETCODEC_PORTABLE_PNG_DEFLATE_SYMBOLS_H
#define HETCODEC_PORTABLE_PNG_DEFLATE_SYMBOLS_H

#include "core/portable/png_deflate_trees.h"

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
  const hc_u32 q0 = plan[hc_dfl_header(plan)->seg_piece + s],
               q1 = plan[hc_dfl_header(plan)->seg_piece + s + 1u];
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
  const hc_u32 nb =
      hc_dfl_segment_blocks(work[hc_dfl_header(plan)->w_seg_total + s], s + 1u == segments);
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

#endif /* HETCODEC_PORTABLE_PNG_DEFLATE_SYMBOLS_H */
