/* PNG scanline filters (PNG specification section 9) and libpng's per-row choice, one byte at
 * a time, shared by core/png (the CPU reference), backends/cpu, kernels_cu and kernels_cl. */
#ifndef HETCODEC_PORTABLE_PNG_FILTER_H
#define HETCODEC_PORTABLE_PNG_FILTER_H

#include "core/portable/kernel.h"

#define HC_PNG_FILTERS 5
#define HC_PNG_FILTER_LANES 256 /* a row's work-group */

/* Paeth predictor; ties go to a, then b, then c. The distances |b - c|, |a - c| and
 * |a + b - 2c| are compared through their squares, which order the same way: LLVM turns an
 * absolute value into the llvm.abs intrinsic, which Oclgrind cannot run. */
HC_FN hc_i32 hc_png_paeth(hc_i32 a, hc_i32 b, hc_i32 c) {
  hc_i32 p = b - c, q = a - c, r = p + q;
  hc_i32 pa = p * p, pb = q * q, pc = r * r;
  return (pa <= pb && pa <= pc) ? a : (pb <= pc) ? b : c;
}

/* Byte i of `row` filtered with `type` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth); `prev` is the
 * row above, read only when has_prev (the first row has zeros above it). */
HC_FN hc_u8 hc_png_filter_byte(hc_i32 type, const HC_GLOBAL hc_u8* row, const HC_GLOBAL hc_u8* prev,
                               hc_i32 has_prev, hc_u32 i, hc_u32 bpp) {
  hc_i32 x = row[i];
  hc_i32 a = i >= bpp ? row[i - bpp] : 0;
  hc_i32 b = has_prev ? prev[i] : 0;
  hc_i32 c = (has_prev && i >= bpp) ? prev[i - bpp] : 0;
  hc_i32 pred = type == 1   ? a
                : type == 2 ? b
                : type == 3 ? (a + b) >> 1
                : type == 4 ? hc_png_paeth(a, b, c)
                            : 0;
  return (hc_u8)((x - pred) & 0xFF);
}

/* libpng's score of one filtered byte: its distance from 0 modulo 256. */
HC_FN hc_u32 hc_png_score(hc_u8 v) { return v < 128 ? (hc_u32)v : 256u - (hc_u32)v; }

/* The filters allowed for row y: `mask`, except that with band_rows (the parallel mode's bands,
 * docs/png-parallel.md) every band_rows-th row after the first keeps only None and Sub (of
 * those in `mask`), so that it does not depend on the row above and a decoder can start a band
 * of rows there. */
HC_FN hc_u32 hc_png_row_mask(hc_u32 mask, hc_u32 band_rows, hc_u32 y) {
  const hc_u32 own = mask & 3u;
  return (band_rows != 0u && y != 0u && y % band_rows == 0u && own != 0u) ? own : mask;
}

/* The filter libpng picks from the five rows' scores over the allowed filters (`mask` bit t for
 * type t): the lowest score, ties to the earlier type. */
HC_FN hc_i32 hc_png_pick(hc_u64 s0, hc_u64 s1, hc_u64 s2, hc_u64 s3, hc_u64 s4, hc_u32 mask) {
  hc_i32 best = -1;
  hc_u64 best_score = 0;
  hc_u64 s[HC_PNG_FILTERS];
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
  s[4] = s4;
  for (hc_i32 t = 0; t < HC_PNG_FILTERS; ++t) {
    if (((mask >> t) & 1u) && (best < 0 || s[t] < best_score)) {
      best = t;
      best_score = s[t];
    }
  }
  return best < 0 ? 0 : best;
}

/* The filter row stage's local memory: each lane's five scores, then the choice. */
typedef struct hc_png_filter_local {
  hc_u64 part[HC_PNG_FILTERS * HC_PNG_FILTER_LANES];
  hc_i32 choice;
} hc_png_filter_local;

/* Row y of `rows` (height rows of row_bytes bytes, `bpp` bytes per pixel) filtered as libpng
 * filters it, into `out` (a filter-type byte, then the row): each lane scores its bytes under
 * the five filters, the work-group adds the scores up (lanes a power of two), picks libpng's
 * filter among those `mask` and band_rows allow, and writes the filtered row. */
HC_FN void hc_png_filter_row(const HC_GLOBAL hc_u8* rows, HC_GLOBAL hc_u8* out, hc_u32 row_bytes,
                             hc_u32 bpp, hc_u32 mask, hc_u32 band_rows, hc_u32 y, hc_u32 lane,
                             hc_u32 lanes, HC_LOCAL hc_png_filter_local* loc) {
  const HC_GLOBAL hc_u8* row = rows + (hc_u64)y * row_bytes;
  const HC_GLOBAL hc_u8* prev = y ? row - row_bytes : row;
  HC_GLOBAL hc_u8* o = out + (hc_u64)y * ((hc_u64)row_bytes + 1u);
  hc_u64 s[HC_PNG_FILTERS] = {0, 0, 0, 0, 0};
  hc_u32 i, step;
  hc_i32 t, best;
  for (i = lane; i < row_bytes; i += lanes)
    for (t = 0; t < HC_PNG_FILTERS; ++t)
      s[t] += hc_png_score(hc_png_filter_byte(t, row, prev, y > 0, i, bpp));
  for (t = 0; t < HC_PNG_FILTERS; ++t) loc->part[(hc_u32)t * HC_PNG_FILTER_LANES + lane] = s[t];
  HC_BARRIER();
  for (step = lanes / 2u; step > 0u; step >>= 1) {
    if (lane < step)
      for (t = 0; t < HC_PNG_FILTERS; ++t)
        loc->part[(hc_u32)t * HC_PNG_FILTER_LANES + lane] +=
            loc->part[(hc_u32)t * HC_PNG_FILTER_LANES + lane + step];
    HC_BARRIER();
  }
  if (lane == 0)
    loc->choice =
        hc_png_pick(loc->part[0], loc->part[HC_PNG_FILTER_LANES],
                    loc->part[2 * HC_PNG_FILTER_LANES], loc->part[3 * HC_PNG_FILTER_LANES],
                    loc->part[4 * HC_PNG_FILTER_LANES], hc_png_row_mask(mask, band_rows, y));
  HC_BARRIER();
  best = loc->choice;
  if (lane == 0) o[0] = (hc_u8)best;
  for (i = lane; i < row_bytes; i += lanes)
    o[1 + i] = hc_png_filter_byte(best, row, prev, y > 0, i, bpp);
}

#endif /* HETCODEC_PORTABLE_PNG_FILTER_H */
