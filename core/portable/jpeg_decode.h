/* The per-block and per-pixel steps of JPEG decoding that every backend runs on a job
 * (core/portable/jpeg_job.h): finding a group's component, dequantisation + IDCT of one block
 * into its component plane, and upsampling + colour conversion of one output pixel. */
#ifndef HETCODEC_PORTABLE_JPEG_DECODE_H
#define HETCODEC_PORTABLE_JPEG_DECODE_H

#include "core/portable/common.h"
#include "core/portable/jpeg_color.h"
#include "core/portable/jpeg_idct.h"
#include "core/portable/jpeg_job.h"
#include "core/portable/jpeg_upsample.h"

/* Shorts per block in a work-group's tile of 64 blocks: 33 words, so that 32 threads reading
 * the same coefficient of consecutive blocks hit 32 different local-memory banks. */
#define HC_TILE_STRIDE 66

/* Index of the component whose groups include global group g. */
HC_FN int hc_job_component_of_group(HC_GLOBAL const hc_u32* job, hc_u32 g) {
  int nc = (int)job[HC_JOB_W_COMPONENTS];
  int c = 0, i;
  for (i = 1; i < nc; i++)
    if (g >= job[HC_JOB_W_COMP0 + i * HC_JOB_COMP_WORDS + HC_JOB_C_FIRST_GROUP]) c = i;
  return c;
}

/* The component record of component c. */
HC_FN HC_GLOBAL const hc_u32* hc_job_component(HC_GLOBAL const hc_u32* job, int c) {
  return job + HC_JOB_W_COMP0 + c * HC_JOB_COMP_WORDS;
}

/* Dequantised coefficients `in` (private, natural order; used as workspace) -> IDCT -> the 8x8
 * samples of block `blk` (raster index in the component's grid) of component record `rec`. */
HC_FN void hc_jpeg_idct_store(hc_i32* in, HC_GLOBAL const hc_u32* rec, hc_u32 blk,
                              HC_GLOBAL hc_u8* planes) {
  hc_u8 px[64];
  hc_u32 grid_w = rec[HC_JOB_C_GRID_W], stride = rec[HC_JOB_C_STRIDE];
  /* by, bx without a / and % pair: compilers fuse such a pair with an LLVM `freeze`, which
   * Oclgrind's uninitialised-value checker cannot interpret. */
  hc_u32 by = blk / grid_w, bx = blk - by * grid_w;
  HC_GLOBAL hc_u8* dst = planes + rec[HC_JOB_C_PLANE_OFFSET] + by * 8u * stride + bx * 8u;
  int r, k;
  hc_jpeg_idct_islow(in, px);
  for (r = 0; r < 8; r++)
    for (k = 0; k < 8; k++) dst[(hc_u32)r * stride + (hc_u32)k] = px[8 * r + k];
}

/* The quantisation table of component record `rec` (64 int32, natural order). */
HC_FN HC_GLOBAL const hc_i32* hc_job_quant(HC_GLOBAL const hc_u32* job,
                                           HC_GLOBAL const hc_u32* rec) {
  return (HC_GLOBAL const hc_i32*)(job + HC_JOB_WORDS + 64u * rec[HC_JOB_C_QUANT]);
}

/* Output pixel i (row-major) of the job: each component upsampled at (x, y), then the job's
 * colour transform, written to out[i * channels ...]. */
HC_FN void hc_jpeg_pixel(HC_GLOBAL const hc_u32* job, HC_GLOBAL const hc_u8* planes, hc_u32 i,
                         HC_GLOBAL hc_u8* out) {
  hc_u32 width = job[HC_JOB_W_WIDTH];
  hc_u32 row = i / width;
  hc_i32 x = (hc_i32)(i - row * width), y = (hc_i32)row; /* no / and % pair: see above */
  int nc = (int)job[HC_JOB_W_COMPONENTS];
  hc_i32 s[4] = {0, 0, 0, 0};
  int c;
  for (c = 0; c < nc; c++) {
    HC_GLOBAL const hc_u32* r = hc_job_component(job, c);
    s[c] = hc_upsample_at(planes + r[HC_JOB_C_PLANE_OFFSET], r[HC_JOB_C_STRIDE],
                          (hc_i32)r[HC_JOB_C_WIDTH], (hc_i32)r[HC_JOB_C_HEIGHT],
                          (hc_i32)r[HC_JOB_C_HR], (hc_i32)r[HC_JOB_C_VR], (int)r[HC_JOB_C_METHOD],
                          x, y);
  }
  switch (job[HC_JOB_W_COLOR]) {
    case HC_COLOR_GRAY:
      out[i] = (hc_u8)s[0];
      break;
    case HC_COLOR_YCC_RGB:
      out[3 * i + 0] = (hc_u8)hc_ycc_red(s[0], s[2]);
      out[3 * i + 1] = (hc_u8)hc_ycc_green(s[0], s[1], s[2]);
      out[3 * i + 2] = (hc_u8)hc_ycc_blue(s[0], s[1]);
      break;
    case HC_COLOR_RGB:
      out[3 * i + 0] = (hc_u8)s[0];
      out[3 * i + 1] = (hc_u8)s[1];
      out[3 * i + 2] = (hc_u8)s[2];
      break;
    case HC_COLOR_CMYK:
      out[4 * i + 0] = (hc_u8)s[0];
      out[4 * i + 1] = (hc_u8)s[1];
      out[4 * i + 2] = (hc_u8)s[2];
      out[4 * i + 3] = (hc_u8)s[3];
      break;
    default: /* HC_COLOR_YCCK_CMYK: C, M, Y are the complements of YCbCr->RGB; K is stored */
      out[4 * i + 0] = (hc_u8)(255 - hc_ycc_red(s[0], s[2]));
      out[4 * i + 1] = (hc_u8)(255 - hc_ycc_green(s[0], s[1], s[2]));
      out[4 * i + 2] = (hc_u8)(255 - hc_ycc_blue(s[0], s[1]));
      out[4 * i + 3] = (hc_u8)s[3];
      break;
  }
}

/* The entry of the chunk table's job whose work-groups of one launch include work-group `wg`:
 * `field` is HC_CHUNK_E_FIRST_GROUP or HC_CHUNK_E_FIRST_TILE (a binary search; the first
 * work-groups rise with the entries). */
HC_FN HC_GLOBAL const hc_u32* hc_chunk_entry(HC_GLOBAL const hc_u32* table, int field, hc_u32 wg) {
  hc_u32 lo = 0, hi = table[HC_CHUNK_W_JOBS];
  while (hi - lo > 1u) {
    hc_u32 mid = lo + (hi - lo) / 2u;
    if (table[HC_CHUNK_WORDS + mid * HC_CHUNK_ENTRY_WORDS + (hc_u32)field] <= wg)
      lo = mid;
    else
      hi = mid;
  }
  return table + HC_CHUNK_WORDS + lo * HC_CHUNK_ENTRY_WORDS;
}

/* A 64-bit byte offset of a chunk entry (low word at `field`). */
HC_FN hc_u64 hc_chunk_offset(HC_GLOBAL const hc_u32* entry, int field) {
  return (hc_u64)entry[field] | ((hc_u64)entry[field + 1] << 32);
}

#endif /* HETCODEC_PORTABLE_JPEG_DECODE_H */
