/* Dequantisation and the accurate integer inverse DCT of libjpeg-turbo (jidctint.c,
 * jpeg_idct_islow: the Loeffler-Ligtenberg-Moschytz algorithm with 13-bit constants, two passes,
 * PASS1_BITS = 2 for 8-bit samples and 1 for 12-bit ones), and its output range limiting
 * (jdmaster.c, prepare_range_limit_table). The functions that produce samples take `twelve`:
 * 0 for 8-bit samples (0..255), 1 for 12-bit ones (0..4095), as libjpeg-turbo 3 compiles
 * jidctint.c once for each; callers pass a constant, so the branch folds away.
 *
 * The arithmetic is done in wrapping 32-bit unsigned integers and shifted as signed, so that
 * C++, CUDA and OpenCL C compute the same bits for every input, valid or not (signed overflow is
 * undefined in all three). For the coefficient ranges a conforming 8-bit JPEG produces no
 * intermediate value leaves the int32 range, and the result equals libjpeg-turbo's, whose C code
 * computes in 64-bit JLONG and whose SIMD code in 16/32-bit lanes. */
#ifndef HETCODEC_PORTABLE_JPEG_IDCT_H
#define HETCODEC_PORTABLE_JPEG_IDCT_H

#include "core/portable/common.h"

#define HC_IDCT_CONST_BITS 13
#define HC_IDCT_PASS1_BITS 2 /* 8-bit samples; see hc_idct_pass1_bits */

/* PASS1_BITS of jidctint.c and jidctred.c: 2 for 8-bit samples, 1 for 12-bit ones. */
HC_FN int hc_idct_pass1_bits(int twelve) { return twelve ? 1 : 2; }

/* MAXJSAMPLE: 255 or 4095. */
HC_FN hc_i32 hc_max_sample(int twelve) { return twelve ? 4095 : 255; }

/* FIX(x) = (INT32)(x * 8192 + 0.5), as jidctint.c spells them for CONST_BITS == 13. */
#define HC_FIX_0_298631336 2446u
#define HC_FIX_0_390180644 3196u
#define HC_FIX_0_541196100 4433u
#define HC_FIX_0_765366865 6270u
#define HC_FIX_0_899976223 7373u
#define HC_FIX_1_175875602 9633u
#define HC_FIX_1_501321110 12299u
#define HC_FIX_1_847759065 15137u
#define HC_FIX_1_961570560 16069u
#define HC_FIX_2_053119869 16819u
#define HC_FIX_2_562915447 20995u
#define HC_FIX_3_072711026 25172u

/* DESCALE(x, n): x / 2^n rounded, as an arithmetic shift of the wrapped value. */
HC_FN hc_i32 hc_idct_descale(hc_u32 x, int n) {
  return HC_RIGHT_SHIFT((hc_i32)(x + (1u << (n - 1))), n);
}

/* idct_range_limit[x & RANGE_MASK] of libjpeg-turbo: the low bits of x (10 for 8-bit samples,
 * 14 for 12-bit ones: RANGE_MASK = 4 * MAXJSAMPLE + 3) read as a signed value, plus
 * CENTERJSAMPLE, clamped to 0..MAXJSAMPLE. */
HC_FN hc_u16 hc_idct_range_limit_n(hc_i32 x, int twelve) {
  const hc_i32 maxv = hc_max_sample(twelve);
  const hc_u32 mid = 2u * (hc_u32)(maxv + 1); /* (RANGE_MASK + 1) / 2 */
  hc_i32 s = (hc_i32)(((hc_u32)x + mid) & (2u * mid - 1u)) - (hc_i32)mid + (maxv + 1) / 2;
  return (hc_u16)(s < 0 ? 0 : (s > maxv ? maxv : s));
}

/* The same for 8-bit samples. */
HC_FN hc_u8 hc_idct_range_limit(hc_i32 x) { return (hc_u8)hc_idct_range_limit_n(x, 0); }

/* One 1-D 8-point inverse DCT (the even and odd parts shared by both passes of jidctint.c).
 * in0..in7 are the inputs in natural order; the eight outputs are scaled by 2^CONST_BITS and
 * written, undescaled, to out[0..7]. */
HC_FN void hc_idct_1d(hc_u32 in0, hc_u32 in1, hc_u32 in2, hc_u32 in3, hc_u32 in4, hc_u32 in5,
                      hc_u32 in6, hc_u32 in7, hc_u32* out) {
  /* Even part: reverse the even part of the forward DCT. */
  hc_u32 z2 = in2, z3 = in6;
  hc_u32 z1 = (z2 + z3) * HC_FIX_0_541196100;
  hc_u32 tmp2 = z1 - z3 * HC_FIX_1_847759065;
  hc_u32 tmp3 = z1 + z2 * HC_FIX_0_765366865;
  hc_u32 tmp0 = (in0 + in4) << HC_IDCT_CONST_BITS;
  hc_u32 tmp1 = (in0 - in4) << HC_IDCT_CONST_BITS;
  hc_u32 tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3;
  hc_u32 tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
  /* Odd part, per figure 8; the matrix is unitary and hence its transpose is its inverse. */
  tmp0 = in7;
  tmp1 = in5;
  tmp2 = in3;
  tmp3 = in1;
  z1 = tmp0 + tmp3;
  z2 = tmp1 + tmp2;
  z3 = tmp0 + tmp2;
  hc_u32 z4 = tmp1 + tmp3;
  hc_u32 z5 = (z3 + z4) * HC_FIX_1_175875602;
  tmp0 = tmp0 * HC_FIX_0_298631336;
  tmp1 = tmp1 * HC_FIX_2_053119869;
  tmp2 = tmp2 * HC_FIX_3_072711026;
  tmp3 = tmp3 * HC_FIX_1_501321110;
  z1 = 0u - z1 * HC_FIX_0_899976223;
  z2 = 0u - z2 * HC_FIX_2_562915447;
  z3 = 0u - z3 * HC_FIX_1_961570560;
  z4 = 0u - z4 * HC_FIX_0_390180644;
  z3 += z5;
  z4 += z5;
  tmp0 += z1 + z3;
  tmp1 += z2 + z4;
  tmp2 += z2 + z3;
  tmp3 += z1 + z4;
  out[0] = tmp10 + tmp3;
  out[7] = tmp10 - tmp3;
  out[1] = tmp11 + tmp2;
  out[6] = tmp11 - tmp2;
  out[2] = tmp12 + tmp1;
  out[5] = tmp12 - tmp1;
  out[3] = tmp13 + tmp0;
  out[4] = tmp13 - tmp0;
}

/* jpeg_idct_islow on one block. `in` holds the 64 dequantised coefficients (coefficient times
 * quantisation value, as int) in natural order and is used as the workspace; `out` receives the
 * 64 samples in natural order, of 8 or 12 bits by `twelve`. Both are private arrays of the
 * caller. The zero-AC shortcuts of
 * jidctint.c are arithmetic identities of the full computation, so they are not needed for the
 * result and are kept only where they save work on every backend. */
HC_FN void hc_jpeg_idct_islow(hc_i32* in, hc_u16* out, int twelve) {
  const int pass1 = hc_idct_pass1_bits(twelve);
  hc_u32 t[8];
  int i;
  /* Pass 1: columns from the input, results scaled up by 2^PASS1_BITS into the workspace. */
  for (i = 0; i < 8; i++) {
    if ((in[8 + i] | in[16 + i] | in[24 + i] | in[32 + i] | in[40 + i] | in[48 + i] | in[56 + i]) ==
        0) {
      hc_i32 dc = (hc_i32)((hc_u32)in[i] << pass1);
      in[i] = dc;
      in[8 + i] = dc;
      in[16 + i] = dc;
      in[24 + i] = dc;
      in[32 + i] = dc;
      in[40 + i] = dc;
      in[48 + i] = dc;
      in[56 + i] = dc;
      continue;
    }
    hc_idct_1d((hc_u32)in[i], (hc_u32)in[8 + i], (hc_u32)in[16 + i], (hc_u32)in[24 + i],
               (hc_u32)in[32 + i], (hc_u32)in[40 + i], (hc_u32)in[48 + i], (hc_u32)in[56 + i], t);
    in[i] = hc_idct_descale(t[0], HC_IDCT_CONST_BITS - pass1);
    in[8 + i] = hc_idct_descale(t[1], HC_IDCT_CONST_BITS - pass1);
    in[16 + i] = hc_idct_descale(t[2], HC_IDCT_CONST_BITS - pass1);
    in[24 + i] = hc_idct_descale(t[3], HC_IDCT_CONST_BITS - pass1);
    in[32 + i] = hc_idct_descale(t[4], HC_IDCT_CONST_BITS - pass1);
    in[40 + i] = hc_idct_descale(t[5], HC_IDCT_CONST_BITS - pass1);
    in[48 + i] = hc_idct_descale(t[6], HC_IDCT_CONST_BITS - pass1);
    in[56 + i] = hc_idct_descale(t[7], HC_IDCT_CONST_BITS - pass1);
  }
  /* Pass 2: rows from the workspace, descaled by 2^(PASS1_BITS + 3) more, range-limited. */
  for (i = 0; i < 8; i++) {
    const int r = 8 * i;
    int k;
    hc_idct_1d((hc_u32)in[r], (hc_u32)in[r + 1], (hc_u32)in[r + 2], (hc_u32)in[r + 3],
               (hc_u32)in[r + 4], (hc_u32)in[r + 5], (hc_u32)in[r + 6], (hc_u32)in[r + 7], t);
    for (k = 0; k < 8; k++)
      out[r + k] =
          hc_idct_range_limit_n(hc_idct_descale(t[k], HC_IDCT_CONST_BITS + pass1 + 3), twelve);
  }
}

#endif /* HETCODEC_PORTABLE_JPEG_IDCT_H */
