/* The reduced-size inverse DCTs of libjpeg-turbo's scaled decoding (jidctred.c: jpeg_idct_4x4,
 * jpeg_idct_2x2, jpeg_idct_1x1), which jddctmgr.c picks for a component whose DCT_scaled_size
 * is 4, 2 or 1 (decoding at 1/2, 1/4, 1/8). Each turns an 8x8 block of dequantised coefficients
 * into s x s samples: the LL&M algorithm of jpeg_idct_islow with each 8-point 1-D step replaced
 * by one that gives the averages of 2 (4x4) or 4 (2x2) adjacent outputs, the same CONST_BITS and
 * PASS1_BITS, one more bit (4x4) or two (2x2) of descaling per pass; 1x1 is the DC over 8.
 *
 * Arithmetic as in core/portable/jpeg_idct.h: wrapping 32-bit unsigned, shifted as signed, 8- or
 * 12-bit samples by `twelve` (PASS1_BITS 2 or 1). The range limit keeps the low 10 bits of a
 * pass-2 result for 8-bit samples, bits 19..28 (4x4) or 20..29 (2x2) of the sum, which wrapping
 * preserves; for 12-bit samples the low 14, bits 18..31 (4x4), also preserved, or 19..32 (2x2),
 * whose top bit wrapping loses, so a 12-bit 2x2 block equals libjpeg-turbo's while its pass-2
 * results lie within +-4096 (conforming files; damaged ones may differ). Pass 1 equals
 * libjpeg-turbo's while its sums fit 32 bits, which they do for every conforming file. The columns whose AC terms are all zero take
 * pass 1's shortcut as jidctred.c does (the same value, computed without the 64-bit sum), so
 * those columns agree with its C code on out-of-range input too; pass 2's shortcut is an identity
 * of the wrapped arithmetic and is left out. libjpeg-turbo's x86 SIMD 4x4 and 2x2 (used when
 * present) give the same samples on conforming data. */
#ifndef HETCODEC_PORTABLE_JPEG_IDCT_REDUCED_H
#define HETCODEC_PORTABLE_JPEG_IDCT_REDUCED_H

#include "core/portable/jpeg_idct.h"

/* FIX(x) = (INT32)(x * 8192 + 0.5) for the reduced transforms' constants (jidctred.c), besides
 * those of jpeg_idct.h. */
#define HC_FIX_0_211164243 1730u
#define HC_FIX_0_509795579 4176u
#define HC_FIX_0_601344887 4926u
#define HC_FIX_0_720959822 5906u
#define HC_FIX_0_850430095 6967u
#define HC_FIX_1_061594337 8697u
#define HC_FIX_1_272758580 10426u
#define HC_FIX_1_451774981 11893u
#define HC_FIX_2_172734803 17799u
#define HC_FIX_3_624509785 29692u

/* The 8-to-4 step: from the eight inputs (in4 is not needed), the averages of output pairs
 * (0,1), (2,3), (4,5), (6,7) of the 8-point IDCT, scaled by 2^(CONST_BITS + 1), undescaled. */
HC_FN void hc_idct_1d_4(hc_u32 in0, hc_u32 in1, hc_u32 in2, hc_u32 in3, hc_u32 in5, hc_u32 in6,
                        hc_u32 in7, hc_u32* out) {
  const hc_u32 even0 = in0 << (HC_IDCT_CONST_BITS + 1);
  const hc_u32 even2 = in2 * HC_FIX_1_847759065 - in6 * HC_FIX_0_765366865;
  const hc_u32 upper = even0 + even2, lower = even0 - even2;
  /* The odd part's two sums: sqrt(2) times sums of the odd cosines (jidctred.c's comments). */
  const hc_u32 odd_a = in5 * HC_FIX_1_451774981 + in1 * HC_FIX_1_061594337 -
                       in7 * HC_FIX_0_211164243 - in3 * HC_FIX_2_172734803;
  const hc_u32 odd_b = in3 * HC_FIX_0_899976223 + in1 * HC_FIX_2_562915447 -
                       in7 * HC_FIX_0_509795579 - in5 * HC_FIX_0_601344887;
  out[0] = upper + odd_b;
  out[3] = upper - odd_b;
  out[1] = lower + odd_a;
  out[2] = lower - odd_a;
}

/* The 8-to-2 step: the averages of outputs 0..3 and 4..7, scaled by 2^(CONST_BITS + 2). */
HC_FN void hc_idct_1d_2(hc_u32 in0, hc_u32 in1, hc_u32 in3, hc_u32 in5, hc_u32 in7, hc_u32* out) {
  const hc_u32 even = in0 << (HC_IDCT_CONST_BITS + 2);
  const hc_u32 odd = in5 * HC_FIX_0_850430095 + in1 * HC_FIX_3_624509785 -
                     in7 * HC_FIX_0_720959822 - in3 * HC_FIX_1_272758580;
  out[0] = even + odd;
  out[1] = even - odd;
}

/* jpeg_idct_4x4 on one block: `in` the 64 dequantised coefficients in natural order (used as the
 * workspace), `out` the 16 samples, row-major. */
HC_FN void hc_jpeg_idct_4x4(hc_i32* in, hc_u16* out, int twelve) {
  const int pass1 = hc_idct_pass1_bits(twelve);
  hc_u32 t[4];
  int i, k;
  /* Pass 1: columns (all but column 4, which pass 2 does not read) into rows 0..3 of `in`. */
  for (i = 0; i < 8; i++) {
    if (i == 4) continue;
    if ((in[8 + i] | in[16 + i] | in[24 + i] | in[40 + i] | in[48 + i] | in[56 + i]) == 0) {
      const hc_i32 dc = (hc_i32)((hc_u32)in[i] << pass1);
      in[i] = dc;
      in[8 + i] = dc;
      in[16 + i] = dc;
      in[24 + i] = dc;
      continue;
    }
    hc_idct_1d_4((hc_u32)in[i], (hc_u32)in[8 + i], (hc_u32)in[16 + i], (hc_u32)in[24 + i],
                 (hc_u32)in[40 + i], (hc_u32)in[48 + i], (hc_u32)in[56 + i], t);
    for (k = 0; k < 4; k++) in[8 * k + i] = hc_idct_descale(t[k], HC_IDCT_CONST_BITS - pass1 + 1);
  }
  /* Pass 2: rows 0..3, descaled by 2^(PASS1_BITS + 3 + 1) more, range-limited. */
  for (i = 0; i < 4; i++) {
    const int r = 8 * i;
    hc_idct_1d_4((hc_u32)in[r], (hc_u32)in[r + 1], (hc_u32)in[r + 2], (hc_u32)in[r + 3],
                 (hc_u32)in[r + 5], (hc_u32)in[r + 6], (hc_u32)in[r + 7], t);
    for (k = 0; k < 4; k++)
      out[4 * i + k] =
          hc_idct_range_limit_n(hc_idct_descale(t[k], HC_IDCT_CONST_BITS + pass1 + 3 + 1), twelve);
  }
}

/* jpeg_idct_2x2 on one block: 4 samples, row-major. */
HC_FN void hc_jpeg_idct_2x2(hc_i32* in, hc_u16* out, int twelve) {
  const int pass1 = hc_idct_pass1_bits(twelve);
  hc_u32 t[2];
  int i, k;
  /* Pass 1: columns 0, 1, 3, 5, 7 (the others feed nothing) into rows 0 and 1 of `in`. */
  for (i = 0; i < 8; i++) {
    if (i == 2 || i == 4 || i == 6) continue;
    if ((in[8 + i] | in[24 + i] | in[40 + i] | in[56 + i]) == 0) {
      const hc_i32 dc = (hc_i32)((hc_u32)in[i] << pass1);
      in[i] = dc;
      in[8 + i] = dc;
      continue;
    }
    hc_idct_1d_2((hc_u32)in[i], (hc_u32)in[8 + i], (hc_u32)in[24 + i], (hc_u32)in[40 + i],
                 (hc_u32)in[56 + i], t);
    in[i] = hc_idct_descale(t[0], HC_IDCT_CONST_BITS - pass1 + 2);
    in[8 + i] = hc_idct_descale(t[1], HC_IDCT_CONST_BITS - pass1 + 2);
  }
  /* Pass 2: rows 0 and 1, descaled by 2^(PASS1_BITS + 3 + 2) more, range-limited. */
  for (i = 0; i < 2; i++) {
    const int r = 8 * i;
    hc_idct_1d_2((hc_u32)in[r], (hc_u32)in[r + 1], (hc_u32)in[r + 3], (hc_u32)in[r + 5],
                 (hc_u32)in[r + 7], t);
    for (k = 0; k < 2; k++)
      out[2 * i + k] =
          hc_idct_range_limit_n(hc_idct_descale(t[k], HC_IDCT_CONST_BITS + pass1 + 3 + 2), twelve);
  }
}

/* jpeg_idct_1x1: the dequantised DC over 8, rounded, range-limited. */
HC_FN hc_u16 hc_jpeg_idct_1x1(hc_i32 dc, int twelve) {
  return hc_idct_range_limit_n(hc_idct_descale((hc_u32)dc, 3), twelve);
}

#endif /* HETCODEC_PORTABLE_JPEG_IDCT_REDUCED_H */
