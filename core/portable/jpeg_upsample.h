/* Chroma upsampling as libjpeg-turbo does it by default (jdsample.c with do_fancy_upsampling),
 * computed per output sample so a kernel can fuse it with colour conversion:
 *   HC_UPSAMPLE_FANCY_H2V1  triangle filter 3/4, 1/4 across columns (h2v1_fancy_upsample)
 *   HC_UPSAMPLE_FANCY_H2V2  the same across columns and rows (h2v2_fancy_upsample)
 *   HC_UPSAMPLE_FANCY_H1V2  triangle filter across rows only (h1v2_fancy_upsample)
 *   HC_UPSAMPLE_REPLICATE   integral factors by replication (fullsize, h2v1/h2v2_upsample,
 *                           int_upsample); libjpeg-turbo uses it for the 2x cases too when the
 *                           component is at most 2 samples wide.
 * Rows above the first and below the last are the first and last row themselves, as
 * jdmainct.c's context pointers make them; columns likewise, as the first and last column
 * cases of the fancy filters do. The plane holds the component's decoded samples with row
 * pitch `stride`; (cw, ch) is its downsampled size, (hr, vr) the expansion factors. */
#ifndef HETCODEC_PORTABLE_JPEG_UPSAMPLE_H
#define HETCODEC_PORTABLE_JPEG_UPSAMPLE_H

#include "core/portable/common.h"

#define HC_UPSAMPLE_REPLICATE 0
#define HC_UPSAMPLE_FANCY_H2V1 1
#define HC_UPSAMPLE_FANCY_H2V2 2
#define HC_UPSAMPLE_FANCY_H1V2 3

/* The method libjpeg-turbo's jinit_upsampler picks for one component with fancy upsampling
 * requested: (hr, vr) and cw from the sizes after IDCT scaling; `fancy` false where the filters
 * are off, as jinit_upsampler turns them off for min_DCT_scaled_size 1 (decoding at 1/8), whose
 * context rows jdmainct.c cannot provide. */
HC_FN int hc_upsample_method(int hr, int vr, int cw, int fancy) {
  if (!fancy) return HC_UPSAMPLE_REPLICATE;
  if (hr == 2 && vr == 1 && cw > 2) return HC_UPSAMPLE_FANCY_H2V1;
  if (hr == 1 && vr == 2) return HC_UPSAMPLE_FANCY_H1V2;
  if (hr == 2 && vr == 2 && cw > 2) return HC_UPSAMPLE_FANCY_H2V2;
  return HC_UPSAMPLE_REPLICATE;
}

/* The upsampled sample at output column x, row y. */
HC_FN hc_i32 hc_upsample_at(HC_GLOBAL const hc_u8* plane, hc_u32 stride, hc_i32 cw, hc_i32 ch,
                            hc_i32 hr, hc_i32 vr, int method, hc_i32 x, hc_i32 y) {
  if (method == HC_UPSAMPLE_REPLICATE) return plane[(hc_u32)(y / vr) * stride + (hc_u32)(x / hr)];
  if (method == HC_UPSAMPLE_FANCY_H2V1) {
    HC_GLOBAL const hc_u8* row = plane + (hc_u32)y * stride;
    hc_i32 cx = x >> 1;
    hc_i32 v = row[cx];
    if ((x & 1) == 0) return cx == 0 ? v : (v * 3 + row[cx - 1] + 1) >> 2;
    return cx == cw - 1 ? v : (v * 3 + row[cx + 1] + 2) >> 2;
  }
  {
    /* Vertical filters: the nearer input row weighs 3, the farther (above for the upper output
     * row of a pair, below for the lower) weighs 1. */
    hc_i32 cy = y >> 1;
    hc_i32 fy = (y & 1) ? (cy + 1 < ch ? cy + 1 : cy) : (cy > 0 ? cy - 1 : 0);
    HC_GLOBAL const hc_u8* near_row = plane + (hc_u32)cy * stride;
    HC_GLOBAL const hc_u8* far_row = plane + (hc_u32)fy * stride;
    if (method == HC_UPSAMPLE_FANCY_H1V2)
      return (near_row[x] * 3 + far_row[x] + ((y & 1) ? 2 : 1)) >> 2;
    {
      hc_i32 cx = x >> 1;
      hc_i32 sum = near_row[cx] * 3 + far_row[cx];
      if ((x & 1) == 0) {
        if (cx == 0) return (sum * 4 + 8) >> 4;
        return (sum * 3 + near_row[cx - 1] * 3 + far_row[cx - 1] + 8) >> 4;
      }
      if (cx == cw - 1) return (sum * 4 + 7) >> 4;
      return (sum * 3 + near_row[cx + 1] * 3 + far_row[cx + 1] + 7) >> 4;
    }
  }
}

#endif /* HETCODEC_PORTABLE_JPEG_UPSAMPLE_H */
