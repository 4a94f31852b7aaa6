/* The accurate integer forward DCT of libjpeg-turbo (jfdctint.c, jpeg_fdct_islow: the
 * Loeffler-Ligtenberg-Moschytz algorithm with 13-bit constants, PASS1_BITS = 2) and libjpeg's
 * quantisation rounding (jcdctmgr.c: the coefficient divided by 8 x the table entry, rounded to
 * nearest, halves away from zero), for C++, CUDA and OpenCL C.
 *
 * As in core/portable/jpeg_idct.h the arithmetic wraps in 32-bit unsigned integers and shifts as
 * signed: for 8-bit samples no intermediate value leaves the int32 range (the largest, a second
 * pass product, stays under 2^30), so the result equals libjpeg-turbo's C code (64-bit JLONG) and
 * its SIMD code (32-bit lanes). */
#ifndef HETCODEC_PORTABLE_JPEG_FDCT_H
#define HETCODEC_PORTABLE_JPEG_FDCT_H

#include "core/portable/jpeg_idct.h"
#include "core/portable/kernel.h"

/* One 1-D 8-point forward DCT over p[0], p[s], ..., p[7s], in place. Pass 0 (rows) scales the
 * outputs up by PASS1_BITS; pass 1 (columns) takes that scale back out. */
HC_FN void hc_fdct_1d(hc_i32* p, int s, int pass) {
  const hc_u32 t0 = (hc_u32)(p[0] + p[7 * s]), t7 = (hc_u32)(p[0] - p[7 * s]);
  const hc_u32 t1 = (hc_u32)(p[s] + p[6 * s]), t6 = (hc_u32)(p[s] - p[6 * s]);
  const hc_u32 t2 = (hc_u32)(p[2 * s] + p[5 * s]), t5 = (hc_u32)(p[2 * s] - p[5 * s]);
  const hc_u32 t3 = (hc_u32)(p[3 * s] + p[4 * s]), t4 = (hc_u32)(p[3 * s] - p[4 * s]);
  const hc_u32 t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
  const int out = pass == 0 ? HC_IDCT_CONST_BITS - HC_IDCT_PASS1_BITS
                            : HC_IDCT_CONST_BITS + HC_IDCT_PASS1_BITS;
  hc_u32 z1, z5, a1, a2, a3, a4;
  if (pass == 0) {
    p[0] = (hc_i32)((t10 + t11) << HC_IDCT_PASS1_BITS);
    p[4 * s] = (hc_i32)((t10 - t11) << HC_IDCT_PASS1_BITS);
  } else {
    p[0] = hc_idct_descale(t10 + t11, HC_IDCT_PASS1_BITS);
    p[4 * s] = hc_idct_descale(t10 - t11, HC_IDCT_PASS1_BITS);
  }
  z1 = (t12 + t13) * HC_FIX_0_541196100;
  p[2 * s] = hc_idct_descale(z1 + t13 * HC_FIX_0_765366865, out);
  p[6 * s] = hc_idct_descale(z1 - t12 * HC_FIX_1_847759065, out);
  a1 = t4 + t7;
  a2 = t5 + t6;
  a3 = t4 + t6;
  a4 = t5 + t7;
  z5 = (a3 + a4) * HC_FIX_1_175875602;
  a1 = 0u - a1 * HC_FIX_0_899976223;
  a2 = 0u - a2 * HC_FIX_2_562915447;
  a3 = z5 - a3 * HC_FIX_1_961570560;
  a4 = z5 - a4 * HC_FIX_0_390180644;
  p[7 * s] = hc_idct_descale(t4 * HC_FIX_0_298631336 + a1 + a3, out);
  p[5 * s] = hc_idct_descale(t5 * HC_FIX_2_053119869 + a2 + a4, out);
  p[3 * s] = hc_idct_descale(t6 * HC_FIX_3_072711026 + a2 + a3, out);
  p[s] = hc_idct_descale(t7 * HC_FIX_1_501321110 + a1 + a4, out);
}

/* A coefficient quantised by table entry q (1..255): x / (8 q), rounded half away from zero.
 * Division truncates toward zero, so -((-x + d/2) / d) is (x - d/2) / d: no absolute value,
 * which LLVM would make the llvm.abs intrinsic that Oclgrind cannot run. */
HC_FN hc_i32 hc_quantize(hc_i32 x, hc_i32 q) {
  const hc_i32 d = 8 * q;
  return (x + (x < 0 ? -(d >> 1) : (d >> 1))) / d;
}

#endif /* HETCODEC_PORTABLE_JPEG_FDCT_H */
