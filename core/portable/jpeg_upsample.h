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
 * pitch `stride`; (cw, ch) is its downsampled size, (hr, vr) the expansion factors. The filters
 * are the same integers for 12-bit samples (libjpeg-turbo 3 compiles jdsample.c for each). */
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

/* Sample `idx` of a plane of 8-bit samples, or of 16-bit ones (12-bit JPEG) when `wide`. */
HC_FORCE_FN hc_i32 hc_plane_sample(HC_GLOBAL const hc_u8* plane, int wide, hc_u32 idx) {
  return wide ? (hc_i32)((HC_GLOBAL const hc_u16*)plane)[idx] : (hc_i32)plane[idx];
}

/* The upsampled sample at output column x, row y; `stride` counts samples, of 16 bits when
 * `wide` (a constant at each call, so the branches fold away). */
HC_FORCE_FN hc_i32 hc_upsample_at(HC_GLOBAL const hc_u8* plane, hc_u32 stride, hc_i32 cw, hc_i32 ch,
                                  hc_i32 hr, hc_i32 vr, int method, hc_i32 x, hc_i32 y, int wide) {
  if (method == HC_UPSAMPLE_REPLICATE)
    return hc_plane_sample(plane, wide, (hc_u32)(y / vr) * stride + (hc_u32)(x / hr));
  if (method == HC_UPSAMPLE_FANCY_H2V1) {
    const hc_u32 row = (hc_u32)y * stride;
    hc_i32 cx = x >> 1;
    hc_i32 v = hc_plane_sample(plane, wide, row + (hc_u32)cx);
    if ((x & 1) == 0)
      return cx == 0 ? v : (v * 3 + hc_plane_sample(plane, wide, row + (hc_u32)cx - 1u) + 1) >> 2;
    return cx == cw - 1 ? v
                        : (v * 3 + hc_plane_sample(plane, wide, row + (hc_u32)cx + 1u) + 2) >> 2;
  }
  {
    /* Vertical filters: the nearer input row weighs 3, the farther (above for the upper output
     * row of a pair, below for the lower) weighs 1. */
    hc_i32 cy = y >> 1;
    hc_i32 fy = (y & 1) ? (cy + 1 < ch ? cy + 1 : cy) : (cy > 0 ? cy - 1 : 0);
    const hc_u32 near_row = (hc_u32)cy * stride, far_row = (hc_u32)fy * stride;
    if (method == HC_UPSAMPLE_FANCY_H1V2)
      return (hc_plane_sample(plane, wide, near_row + (hc_u32)x) * 3 +
              hc_plane_sample(plane, wide, far_row + (hc_u32)x) + ((y & 1) ? 2 : 1)) >>
             2;
    {
      hc_u32 cx = (hc_u32)(x >> 1);
      hc_i32 sum = hc_plane_sample(plane, wide, near_row + cx) * 3 +
                   hc_plane_sample(plane, wide, far_row + cx);
      if ((x & 1) == 0) {
        if (cx == 0u) return (sum * 4 + 8) >> 4;
        return (sum * 3 + hc_plane_sample(plane, wide, near_row + cx - 1u) * 3 +
                hc_plane_sample(plane, wide, far_row + cx - 1u) + 8) >>
               4;
      }
      if ((hc_i32)cx == cw - 1) return (sum * 4 + 7) >> 4;
      return (sum * 3 + hc_plane_sample(plane, wide, near_row + cx + 1u) * 3 +
              hc_plane_sample(plane, wide, far_row + cx + 1u) + 7) >>
             4;
    }
  }
}

#endif /* HETCODEC_PORTABLE_JPEG_UPSAMPLE_H */
