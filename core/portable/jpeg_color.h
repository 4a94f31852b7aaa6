/* YCbCr -> RGB in libjpeg-turbo's fixed point (jdcolor.c, build_ycc_rgb_table and
 * ycc_rgb_convert), computed per sample instead of through its four tables: the values are the
 * table entries themselves, so the result is the same integers. JFIF / ITU-R BT.601 full range:
 *   R = Y + 1.40200 Cr,  G = Y - 0.34414 Cb - 0.71414 Cr,  B = Y + 1.77200 Cb   (Cb, Cr - 128).
 * The _n forms take MAXJSAMPLE (255, or 4095 for 12-bit samples, whose centre is 2048 and whose
 * tables libjpeg-turbo 3 builds by the same formulas). */
#ifndef HETCODEC_PORTABLE_JPEG_COLOR_H
#define HETCODEC_PORTABLE_JPEG_COLOR_H

#include "core/portable/common.h"

#define HC_YCC_SCALEBITS 16
#define HC_YCC_ONE_HALF ((hc_i32)1 << (HC_YCC_SCALEBITS - 1))
/* FIX(x) = (INT32)(x * 65536 + 0.5), written out so no float arithmetic reaches a kernel. */
#define HC_FIX_1_40200 91881
#define HC_FIX_1_77200 116130
#define HC_FIX_0_71414 46802
#define HC_FIX_0_34414 22554

/* v clamped to 0..maxv (libjpeg's range_limit). */
HC_FN hc_i32 hc_clamp_sample(hc_i32 v, hc_i32 maxv) { return v < 0 ? 0 : (v > maxv ? maxv : v); }

HC_FN hc_i32 hc_ycc_red_n(hc_i32 y, hc_i32 cr, hc_i32 maxv) {
  hc_i32 x = cr - (maxv + 1) / 2;
  return hc_clamp_sample(y + HC_RIGHT_SHIFT(HC_FIX_1_40200 * x + HC_YCC_ONE_HALF, HC_YCC_SCALEBITS),
                         maxv);
}

HC_FN hc_i32 hc_ycc_green_n(hc_i32 y, hc_i32 cb, hc_i32 cr, hc_i32 maxv) {
  hc_i32 g_cb = -HC_FIX_0_34414 * (cb - (maxv + 1) / 2) + HC_YCC_ONE_HALF;
  hc_i32 g_cr = -HC_FIX_0_71414 * (cr - (maxv + 1) / 2);
  return hc_clamp_sample(y + HC_RIGHT_SHIFT(g_cb + g_cr, HC_YCC_SCALEBITS), maxv);
}

HC_FN hc_i32 hc_ycc_blue_n(hc_i32 y, hc_i32 cb, hc_i32 maxv) {
  hc_i32 x = cb - (maxv + 1) / 2;
  return hc_clamp_sample(y + HC_RIGHT_SHIFT(HC_FIX_1_77200 * x + HC_YCC_ONE_HALF, HC_YCC_SCALEBITS),
                         maxv);
}

/* 8-bit samples. */
HC_FN hc_i32 hc_ycc_red(hc_i32 y, hc_i32 cr) { return hc_ycc_red_n(y, cr, 255); }
HC_FN hc_i32 hc_ycc_green(hc_i32 y, hc_i32 cb, hc_i32 cr) { return hc_ycc_green_n(y, cb, cr, 255); }
HC_FN hc_i32 hc_ycc_blue(hc_i32 y, hc_i32 cb) { return hc_ycc_blue_n(y, cb, 255); }

#endif /* HETCODEC_PORTABLE_JPEG_COLOR_H */
