/* PNG decode arithmetic shared by core/png (the plain reference decode) and the stage bodies of
 * core/portable/png_defilter.h: the prediction and reconstruction of a filtered byte (PNG
 * specification 9.2), the unpack job (hc_png_job), and the unpacking of one output pixel from
 * the de-filtered passes as libpng 1.6 expands it (png_set_expand). */
#ifndef HETCODEC_PORTABLE_PNG_DECODE_H
#define HETCODEC_PORTABLE_PNG_DECODE_H

#include "core/portable/common.h"
#include "core/portable/png_filter.h"

/* Byte x of a row filtered with `type`, from its reconstructed neighbours: a (left), b (up),
 * c (upper-left), each 0 outside the image. */
HC_FN hc_u8 hc_png_unfilter_byte(hc_i32 type, hc_i32 x, hc_i32 a, hc_i32 b, hc_i32 c) {
  hc_i32 pred = type == 1   ? a
                : type == 2 ? b
                : type == 3 ? (a + b) >> 1
                : type == 4 ? hc_png_paeth(a, b, c)
                            : 0;
  return (hc_u8)((x + pred) & 0xFF);
}

/* The prediction of a byte filtered with `type` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth),
 * from its reconstructed neighbours a (left), b (up) and c (upper-left): every predictor is
 * computed and one selected, so that the compiler can make it branch-free. */
HC_FN hc_u32 hc_png_predict(hc_i32 type, hc_i32 a, hc_i32 b, hc_i32 c) {
  const hc_i32 paeth = hc_png_paeth(a, b, c), average = (a + b) >> 1;
  return (hc_u32)(type == 4 ? paeth : type == 3 ? average : type == 2 ? b : type == 1 ? a : 0);
}

/* The unpack job, written by the host (core/png) and read by the unpack stage of every backend:
 * the image, the seven Adam7 passes (pass 0 alone without interlacing) and the palette as 256
 * RGBA entries (alpha from tRNS, 255 past it; entries past the palette are 0, 0, 0, 255 as
 * libpng leaves them). Fixed-width fields only: its layout is the same in C++, CUDA and OpenCL C
 * (core/png checks it with static_assert). */
typedef struct hc_png_pass {
  hc_u32 x0, y0, dx, dy; /* the pass's first pixel and its steps in the image */
  hc_u32 width, row_bytes;
  hc_u32 offset; /* of the pass's first filter byte in the de-filtered rows */
} hc_png_pass;

typedef struct hc_png_job {
  hc_u32 width, height;
  hc_u32 color; /* colour type */
  hc_u32 depth; /* bit depth in the file */
  hc_u32 out_channels;
  hc_u32 interlace;
  hc_u32 trns;   /* 1: a tRNS colour key applies (gray or RGB) */
  hc_u32 key[3]; /* gray, or red, green, blue, masked to the depth */
  hc_png_pass pass[7];
  hc_u32 reserved;
  hc_u8 palette[256 * 4];
} hc_png_job;
#define HC_PNG_JOB_BYTES 1264

/* The Adam7 pass (0-6) of pixel (x, y). */
HC_FN hc_u32 hc_png_adam7_pass(hc_u32 x, hc_u32 y) {
  hc_u32 xm = x & 7, ym = y & 7;
  if (ym & 1) return 6;
  if (xm & 1) return 5;
  if (ym & 2) return 4;
  if (xm & 2) return 3;
  if (ym & 4) return 2;
  if (xm & 4) return 1;
  return 0;
}

/* Sample `s` of pixel px in a de-filtered row at the file's depth (8-bit units for depth 16:
 * returns the 16-bit value). */
HC_FN hc_u32 hc_png_sample(const HC_GLOBAL hc_u8* row, hc_u32 depth, hc_u32 spp, hc_u32 px,
                           hc_u32 s) {
  if (depth == 8) return row[px * spp + s];
  if (depth == 16) return ((hc_u32)row[2 * (px * spp + s)] << 8) | row[2 * (px * spp + s) + 1];
  {
    hc_u32 bit = px * depth; /* depths below 8 have one sample per pixel */
    hc_u32 shift = 8u - depth - (bit & 7u);
    return ((hc_u32)row[bit >> 3] >> shift) & ((1u << depth) - 1u);
  }
}

/* Writes output pixel (x, y) (out_channels samples of 8 or 16 bits) at `out`. */
HC_FN void hc_png_unpack_pixel(const HC_GLOBAL hc_u8* data, const HC_GLOBAL hc_png_job* job,
                               hc_u32 x, hc_u32 y, HC_GLOBAL hc_u8* out) {
  const HC_GLOBAL hc_u8* palette = job->palette;
  hc_u32 color = job->color, depth = job->depth, nout = job->out_channels;
  const HC_GLOBAL hc_png_pass* ps = &job->pass[job->interlace ? hc_png_adam7_pass(x, y) : 0u];
  hc_u32 px = (x - ps->x0) / ps->dx, py = (y - ps->y0) / ps->dy;
  const HC_GLOBAL hc_u8* row = data + ps->offset + (hc_u64)py * (ps->row_bytes + 1u) + 1u;
  hc_u32 spp = color == 2 ? 3u : color == 4 ? 2u : color == 6 ? 4u : 1u;
  hc_u32 i;
  if (color == 3) {
    hc_u32 v = hc_png_sample(row, depth, 1u, px, 0u);
    for (i = 0; i < nout; ++i) out[i] = palette[4u * v + i];
    return;
  }
  if (depth == 16) {
    hc_u32 key = 1u; /* the pixel equals the tRNS key: transparent */
    for (i = 0; i < spp; ++i) {
      hc_u32 v = hc_png_sample(row, 16u, spp, px, i);
      if (i < 3u && v != job->key[i]) key = 0u;
      out[2u * i] = (hc_u8)(v >> 8);
      out[2u * i + 1u] = (hc_u8)(v & 0xFFu);
    }
    if (job->trns) {
      out[2u * spp] = key ? 0u : 0xFFu;
      out[2u * spp + 1u] = key ? 0u : 0xFFu;
    }
    return;
  }
  {
    hc_u32 key = 1u;
    hc_u32 scale = depth == 1 ? 255u : depth == 2 ? 85u : depth == 4 ? 17u : 1u;
    for (i = 0; i < spp; ++i) {
      hc_u32 v = hc_png_sample(row, depth, spp, px, i);
      if (i < 3u && v != job->key[i]) key = 0u;
      out[i] = (hc_u8)(v * scale);
    }
    if (job->trns) out[spp] = key ? 0u : 255u;
  }
}

#endif /* HETCODEC_PORTABLE_PNG_DECODE_H */
