/* The JPEG decode stages' bodies, one for CUDA (kernels_cu/jpeg_decode.cu), OpenCL
 * (kernels_cl/jpeg_decode.cl) and the CPU reference (backends/cpu/jpeg_kernels.cpp), as
 * core/portable/kernel.h describes, on a job (core/portable/jpeg_job.h): the token scatter, the
 * fused decode + dequantise + IDCT of a group of 64 blocks (8x8 samples a block, or 4x4, 2x2, 1x1
 * in scaled decoding), the same as two stages, and upsampling + colour conversion of output
 * pixels, for one job or the jobs of a chunk table. */
#ifndef HETCODEC_PORTABLE_JPEG_DECODE_H
#define HETCODEC_PORTABLE_JPEG_DECODE_H

#include "core/portable/kernel.h"
#include "core/portable/jpeg_color.h"
#include "core/portable/jpeg_idct_reduced.h"
#include "core/portable/jpeg_job.h"
#include "core/portable/jpeg_upsample.h"

/* Shorts per block in a work-group's tile of 64 blocks: 33 words, so that 32 threads reading
 * the same coefficient of consecutive blocks hit 32 different local-memory banks. */
#define HC_TILE_STRIDE 66
#define HC_JPEG_GROUP_LANES 64  /* the decode stages' work-group: a lane per block of a group */
#define HC_JPEG_IDCT_LANES 128  /* the separate IDCT's work-group: a block per lane */
#define HC_JPEG_PIXEL_LANES 256 /* the colour stage's work-group (HC_CHUNK_TILE for a chunk) */

/* The fused stage's local memory: a group's 64 blocks of coefficients. */
typedef struct hc_jpeg_group_local {
  hc_i16 tile[64 * HC_TILE_STRIDE];
} hc_jpeg_group_local;

/* The header of the job whose words start at `job`. */
HC_FN HC_GLOBAL const hc_jpeg_job* hc_jpeg_header(HC_GLOBAL const hc_u32* job) {
  return (HC_GLOBAL const hc_jpeg_job*)job;
}

/* Whether a job's samples are 12-bit. */
HC_FN int hc_jpeg_twelve(HC_GLOBAL const hc_u32* job) {
  return hc_jpeg_header(job)->precision == 12u;
}

/* The record of the component whose groups include global group g. */
HC_FN HC_GLOBAL const hc_jpeg_component* hc_job_component_of_group(HC_GLOBAL const hc_u32* job,
                                                                   hc_u32 g) {
  HC_GLOBAL const hc_jpeg_job* h = hc_jpeg_header(job);
  hc_u32 c = 0, i;
  for (i = 1; i < h->components; i++)
    if (g >= h->component[i].first_group) c = i;
  return &h->component[c];
}

/* The n x n samples `px` (row-major) to `dst`, rows `stride` bytes apart, as bytes or, when
 * `wide`, as 16-bit samples. Called with constants n and wide, so that the loops unroll and `px`
 * stays in registers. */
HC_FN void hc_jpeg_put_block(const hc_u16* px, hc_u32 n, HC_GLOBAL hc_u8* dst, hc_u32 stride,
                             int wide) {
  hc_u32 r, k;
  if (wide) {
    for (r = 0; r < n; r++)
      for (k = 0; k < n; k++) ((HC_GLOBAL hc_u16*)(dst + r * stride))[k] = px[n * r + k];
  } else {
    for (r = 0; r < n; r++)
      for (k = 0; k < n; k++) dst[r * stride + k] = (hc_u8)px[n * r + k];
  }
}

/* The IDCT of one block into `dst` at its size (a constant `twelve`: see hc_jpeg_idct_store). */
HC_FN void hc_jpeg_idct_put(hc_i32* in, hc_u32 size, HC_GLOBAL hc_u8* dst, hc_u32 stride,
                            int twelve) {
  hc_u16 px[64];
  switch (size) {
    case 4u:
      hc_jpeg_idct_4x4(in, px, twelve);
      hc_jpeg_put_block(px, 4u, dst, stride, twelve);
      break;
    case 2u:
      hc_jpeg_idct_2x2(in, px, twelve);
      hc_jpeg_put_block(px, 2u, dst, stride, twelve);
      break;
    case 1u:
      px[0] = hc_jpeg_idct_1x1(in[0], twelve);
      hc_jpeg_put_block(px, 1u, dst, stride, twelve);
      break;
    default:
      hc_jpeg_idct_islow(in, px, twelve);
      hc_jpeg_put_block(px, 8u, dst, stride, twelve);
      break;
  }
}

/* Dequantised coefficients `in` (private, natural order; used as workspace) -> IDCT -> the
 * samples of block `blk` (raster index in the component's grid) of component record `rec`: 8x8,
 * or in scaled decoding the record's block size (the same for every block of a component, so a
 * work-group takes one branch) by libjpeg-turbo's reduced IDCTs; 8-bit samples, or 16-bit ones
 * holding 12 bits when `twelve` (a constant at each call). */
HC_FN void hc_jpeg_idct_store(hc_i32* in, HC_GLOBAL const hc_jpeg_component* rec, hc_u32 blk,
                              HC_GLOBAL hc_u8* planes, int twelve) {
  hc_u32 grid_w = rec->grid_w, stride = rec->stride, size = rec->block;
  /* by, bx without a / and % pair: compilers fuse such a pair with an LLVM `freeze`, which
   * Oclgrind's uninitialised-value checker cannot interpret. */
  hc_u32 by = blk / grid_w, bx = blk - by * grid_w;
  HC_GLOBAL hc_u8* dst = planes + rec->plane_offset + by * size * stride;
  hc_jpeg_idct_put(in, size, dst + ((bx * size) << twelve), stride, twelve);
}

/* The quantisation table of component record `rec` (64 int32, natural order). */
HC_FN HC_GLOBAL const hc_i32* hc_job_quant(HC_GLOBAL const hc_u32* job,
                                           HC_GLOBAL const hc_jpeg_component* rec) {
  return (HC_GLOBAL const hc_i32*)(job + HC_JOB_WORDS + 64u * rec->quant);
}

/* A sample to output position k: a byte, or when `wide` a 16-bit sample, big-endian as Image
 * holds 16-bit samples (core/image.h). */
HC_FORCE_FN void hc_jpeg_put_sample(HC_GLOBAL hc_u8* out, int wide, hc_u32 k, hc_i32 v) {
  if (wide) {
    out[2u * k] = (hc_u8)(v >> 8);
    out[2u * k + 1u] = (hc_u8)v;
  } else {
    out[k] = (hc_u8)v;
  }
}

/* The colour transform of upsampled samples s[] to output pixel i: 8-bit samples, or 12-bit
 * ones in 16 bits when `twelve` (a constant at each call). */
HC_FORCE_FN void hc_jpeg_convert(hc_u32 color, const hc_i32* s, hc_u32 i, HC_GLOBAL hc_u8* out,
                                 int twelve) {
  const hc_i32 maxv = hc_max_sample(twelve);
  switch (color) {
    case HC_COLOR_GRAY:
      hc_jpeg_put_sample(out, twelve, i, s[0]);
      break;
    case HC_COLOR_YCC_RGB:
      hc_jpeg_put_sample(out, twelve, 3u * i + 0u, hc_ycc_red_n(s[0], s[2], maxv));
      hc_jpeg_put_sample(out, twelve, 3u * i + 1u, hc_ycc_green_n(s[0], s[1], s[2], maxv));
      hc_jpeg_put_sample(out, twelve, 3u * i + 2u, hc_ycc_blue_n(s[0], s[1], maxv));
      break;
    case HC_COLOR_RGB:
      hc_jpeg_put_sample(out, twelve, 3u * i + 0u, s[0]);
      hc_jpeg_put_sample(out, twelve, 3u * i + 1u, s[1]);
      hc_jpeg_put_sample(out, twelve, 3u * i + 2u, s[2]);
      break;
    case HC_COLOR_CMYK:
      hc_jpeg_put_sample(out, twelve, 4u * i + 0u, s[0]);
      hc_jpeg_put_sample(out, twelve, 4u * i + 1u, s[1]);
      hc_jpeg_put_sample(out, twelve, 4u * i + 2u, s[2]);
      hc_jpeg_put_sample(out, twelve, 4u * i + 3u, s[3]);
      break;
    default: /* HC_COLOR_YCCK_CMYK: C, M, Y are the complements of YCbCr->RGB; K is stored */
      hc_jpeg_put_sample(out, twelve, 4u * i + 0u, maxv - hc_ycc_red_n(s[0], s[2], maxv));
      hc_jpeg_put_sample(out, twelve, 4u * i + 1u, maxv - hc_ycc_green_n(s[0], s[1], s[2], maxv));
      hc_jpeg_put_sample(out, twelve, 4u * i + 2u, maxv - hc_ycc_blue_n(s[0], s[1], maxv));
      hc_jpeg_put_sample(out, twelve, 4u * i + 3u, s[3]);
      break;
  }
}

/* Output pixel i (row-major) of the job: each component upsampled at (x, y), then the job's
 * colour transform, written to out[i * channels ...]: 8-bit samples, or by a constant `twelve`
 * 16-bit ones holding 12 bits. */
HC_FORCE_FN void hc_jpeg_pixel_of(HC_GLOBAL const hc_u32* job, HC_GLOBAL const hc_u8* planes,
                                  hc_u32 i, HC_GLOBAL hc_u8* out, int twelve) {
  HC_GLOBAL const hc_jpeg_job* h = hc_jpeg_header(job);
  hc_u32 width = h->width;
  hc_u32 row = i / width;
  /* no / and % pair: see above; (x, y) in the decoded window (the crop's origin added) */
  hc_i32 x = (hc_i32)(i - row * width + h->origin_x), y = (hc_i32)(row + h->origin_y);
  int nc = (int)h->components;
  hc_i32 s[4] = {0, 0, 0, 0};
  int c;
  for (c = 0; c < nc; c++) {
    HC_GLOBAL const hc_jpeg_component* r = &h->component[c];
    s[c] = hc_upsample_at(planes + r->plane_offset + (r->window_col << twelve), r->stride >> twelve,
                          (hc_i32)r->width, (hc_i32)r->height, (hc_i32)r->hr, (hc_i32)r->vr,
                          (int)r->method, x, y, twelve);
  }
  hc_jpeg_convert(h->color, s, i, out, twelve);
}

/* The same for a 12-bit job, out of line (see HC_NOINLINE_FN). */
HC_NOINLINE_FN void hc_jpeg_pixel12(HC_GLOBAL const hc_u32* job, HC_GLOBAL const hc_u8* planes,
                                    hc_u32 i, HC_GLOBAL hc_u8* out) {
  hc_jpeg_pixel_of(job, planes, i, out, 1);
}

/* Output pixel i of the job, at its precision. */
HC_FN void hc_jpeg_pixel(HC_GLOBAL const hc_u32* job, HC_GLOBAL const hc_u8* planes, hc_u32 i,
                         HC_GLOBAL hc_u8* out) {
  if (hc_jpeg_twelve(job))
    hc_jpeg_pixel12(job, planes, i, out);
  else
    hc_jpeg_pixel_of(job, planes, i, out, 0);
}

/* The entry of the chunk table's job whose work-groups of one launch include work-group `wg`:
 * of the decode launch (by first_group), or with `tiles` of the colour launch (by first_tile); a
 * binary search, the first work-groups rise with the entries. */
HC_FN HC_GLOBAL const hc_jpeg_chunk_entry* hc_chunk_entry(HC_GLOBAL const hc_u32* table, int tiles,
                                                          hc_u32 wg) {
  HC_GLOBAL const hc_jpeg_chunk_entry* e =
      (HC_GLOBAL const hc_jpeg_chunk_entry*)(table + sizeof(hc_jpeg_chunk) / 4u);
  hc_u32 lo = 0, hi = ((HC_GLOBAL const hc_jpeg_chunk*)table)->jobs;
  while (hi - lo > 1u) {
    hc_u32 mid = lo + (hi - lo) / 2u;
    if ((tiles ? e[mid].first_tile : e[mid].first_group) <= wg)
      lo = mid;
    else
      hi = mid;
  }
  return e + lo;
}

/* A 64-bit byte offset from its low and high words. */
HC_FN hc_u64 hc_chunk_offset(hc_u32 lo, hc_u32 hi) { return (hc_u64)lo | ((hc_u64)hi << 32); }

/* Group g's tokens: their count, and the first at *tokens. */
HC_FN hc_u32 hc_jpeg_group_tokens(HC_GLOBAL const hc_u32* job, hc_u32 g,
                                  HC_GLOBAL const hc_u32** tokens) {
  const hc_u32 dir = hc_jpeg_header(job)->directory + 2u * g;
  *tokens = job + hc_jpeg_header(job)->tokens + 3u * job[dir];
  return job[dir + 1u];
}

/* Token t's four coefficients: their places in a tile of 64 blocks `stride` shorts apart, and
 * their values. A token's four go to four positions of one block; a padding token repeats a
 * position with the same value. The scatter writes them one token per lane at a time (a loop
 * for a local tile and one for a global tile: OpenCL 1.2 has no pointer to either). */
HC_FN void hc_jpeg_token(HC_GLOBAL const hc_u32* tok, hc_u32 t, hc_u32 stride, hc_u32* at,
                         hc_i16* value) {
  const hc_u32 c01 = tok[3u * t], c23 = tok[3u * t + 1u], w = tok[3u * t + 2u];
  const hc_u32 b = ((w >> 24) & 63u) * stride;
  at[0] = b + (w & 63u);
  at[1] = b + ((w >> 6) & 63u);
  at[2] = b + ((w >> 12) & 63u);
  at[3] = b + ((w >> 18) & 63u);
  value[0] = (hc_i16)(c01 & 0xFFFFu);
  value[1] = (hc_i16)(c01 >> 16);
  value[2] = (hc_i16)(c23 & 0xFFFFu);
  value[3] = (hc_i16)(c23 >> 16);
}

/* Whether block `blk` lies in the component grid of record `rec` (a group's last blocks may
 * not). */
HC_FN int hc_jpeg_has_block(HC_GLOBAL const hc_jpeg_component* rec, hc_u32 blk) {
  return blk < rec->grid_w * rec->grid_h;
}

/* Coefficients `in` (natural order) of block `blk` of record `rec` dequantised in place, then
 * inverse-transformed into `planes` (8- or 12-bit samples by a constant `twelve`). */
HC_FN void hc_jpeg_dequant_store(HC_GLOBAL const hc_u32* job,
                                 HC_GLOBAL const hc_jpeg_component* rec, hc_u32 blk, hc_i32* in,
                                 HC_GLOBAL hc_u8* planes, int twelve) {
  HC_GLOBAL const hc_i32* q = hc_job_quant(job, rec);
  int k;
  HC_UNROLL(64)
  for (k = 0; k < 64; k++) in[k] *= q[k];
  hc_jpeg_idct_store(in, rec, blk, planes, twelve);
}

/* Block `blk` of record `rec`, whose 64 coefficients start at `at` (in a work-group's tile, or
 * in global memory: two functions, as OpenCL C 1.2 has no pointer to either), dequantised and
 * inverse-transformed into `planes` as 12-bit samples: out of line, so that the kernels' 8-bit
 * path keeps its registers. */
HC_NOINLINE_FN void hc_jpeg_block12_local(HC_GLOBAL const hc_u32* job,
                                          HC_GLOBAL const hc_jpeg_component* rec, hc_u32 blk,
                                          HC_LOCAL const hc_i16* at, HC_GLOBAL hc_u8* planes) {
  hc_i32 in[64];
  int k;
  for (k = 0; k < 64; k++) in[k] = at[k];
  hc_jpeg_dequant_store(job, rec, blk, in, planes, 1);
}

HC_NOINLINE_FN void hc_jpeg_block12_global(HC_GLOBAL const hc_u32* job,
                                           HC_GLOBAL const hc_jpeg_component* rec, hc_u32 blk,
                                           HC_GLOBAL const hc_i16* at, HC_GLOBAL hc_u8* planes) {
  hc_i32 in[64];
  int k;
  for (k = 0; k < 64; k++) in[k] = at[k];
  hc_jpeg_dequant_store(job, rec, blk, in, planes, 1);
}

/* The fused stage for group g of a job, by a work-group of HC_JPEG_GROUP_LANES: zero the tile,
 * scatter the tokens, then lane b dequantises and inverse-transforms block b into `planes`. */
HC_FN void hc_jpeg_decode_idct(HC_GLOBAL const hc_u32* job, hc_u32 g, HC_GLOBAL hc_u8* planes,
                               hc_u32 lane, hc_u32 lanes, HC_LOCAL hc_jpeg_group_local* loc) {
  HC_GLOBAL const hc_jpeg_component* rec;
  hc_u32 i, first;
  for (i = lane; i < 64u * HC_TILE_STRIDE; i += lanes) loc->tile[i] = 0;
  HC_BARRIER();
  {
    HC_GLOBAL const hc_u32* tok;
    const hc_u32 n = hc_jpeg_group_tokens(job, g, &tok);
    hc_u32 t, at[4], k;
    hc_i16 v[4];
    for (t = lane; t < n; t += lanes) {
      hc_jpeg_token(tok, t, HC_TILE_STRIDE, at, v);
      for (k = 0; k < 4u; ++k) loc->tile[at[k]] = v[k];
    }
  }
  HC_BARRIER();
  rec = hc_job_component_of_group(job, g);
  first = (g - rec->first_group) * 64u;
  for (i = lane; i < 64u; i += lanes) {
    hc_i32 in[64];
    int k;
    if (!hc_jpeg_has_block(rec, first + i)) break;
    if (hc_jpeg_twelve(job)) {
      hc_jpeg_block12_local(job, rec, first + i, loc->tile + i * HC_TILE_STRIDE, planes);
      continue;
    }
    HC_UNROLL(64)
    for (k = 0; k < 64; k++) in[k] = loc->tile[i * HC_TILE_STRIDE + (hc_u32)k];
    hc_jpeg_dequant_store(job, rec, first + i, in, planes, 0);
  }
}

/* The fused stage for work-group `wg` of a chunk table's launch (core/portable/jpeg_job.h) at
 * `table` in the job buffer `jobs`: the group of the job whose groups include it. */
HC_FN void hc_jpeg_decode_idct_chunk(HC_GLOBAL const hc_u32* jobs, hc_u32 table_word, hc_u32 wg,
                                     HC_GLOBAL hc_u8* planes, hc_u32 lane, hc_u32 lanes,
                                     HC_LOCAL hc_jpeg_group_local* loc) {
  HC_GLOBAL const hc_jpeg_chunk_entry* e = hc_chunk_entry(jobs + table_word, 0, wg);
  hc_jpeg_decode_idct(jobs + e->job, wg - e->first_group,
                      planes + hc_chunk_offset(e->planes_lo, e->planes_hi), lane, lanes, loc);
}

/* Separate stage 1: group g's tokens into its 64 dense blocks of `coefficients`. */
HC_FN void hc_jpeg_decode_tokens(HC_GLOBAL const hc_u32* job, hc_u32 g,
                                 HC_GLOBAL hc_i16* coefficients, hc_u32 lane, hc_u32 lanes) {
  HC_GLOBAL hc_i16* tile = coefficients + (hc_u64)g * 4096u;
  HC_GLOBAL const hc_u32* tok;
  const hc_u32 n = hc_jpeg_group_tokens(job, g, &tok);
  hc_u32 i, at[4], k;
  hc_i16 v[4];
  for (i = lane; i < 4096u; i += lanes) tile[i] = 0;
  HC_BARRIER_GLOBAL();
  for (i = lane; i < n; i += lanes) {
    hc_jpeg_token(tok, i, 64u, at, v);
    for (k = 0; k < 4u; ++k) tile[at[k]] = v[k];
  }
}

/* Separate stage 2: block gb (of all the job's groups' blocks) dequantised and transformed. */
HC_FN void hc_jpeg_idct(HC_GLOBAL const hc_u32* job, const HC_GLOBAL hc_i16* coefficients,
                        HC_GLOBAL hc_u8* planes, hc_u32 total_blocks, hc_u32 gb) {
  HC_GLOBAL const hc_jpeg_component* rec;
  hc_i32 in[64];
  hc_u32 blk;
  int k;
  if (gb >= total_blocks) return;
  rec = hc_job_component_of_group(job, gb >> 6);
  blk = gb - rec->first_group * 64u;
  if (!hc_jpeg_has_block(rec, blk)) return;
  if (hc_jpeg_twelve(job)) {
    hc_jpeg_block12_global(job, rec, blk, coefficients + (hc_u64)gb * 64u, planes);
    return;
  }
  HC_UNROLL(64)
  for (k = 0; k < 64; k++) in[k] = coefficients[(hc_u64)gb * 64u + (hc_u32)k];
  hc_jpeg_dequant_store(job, rec, blk, in, planes, 0);
}

/* Upsampling + colour conversion of output pixel i of a job of `pixels`. */
HC_FN void hc_jpeg_upsample_color(HC_GLOBAL const hc_u32* job, const HC_GLOBAL hc_u8* planes,
                                  HC_GLOBAL hc_u8* out, hc_u32 pixels, hc_u32 i) {
  if (i < pixels) hc_jpeg_pixel(job, planes, i, out);
}

/* The colour stage for item `lane` of work-group `wg` (HC_CHUNK_TILE pixels) of a chunk table's
 * launch: a pixel of the job whose tiles include the work-group. */
HC_FN void hc_jpeg_upsample_color_chunk(HC_GLOBAL const hc_u32* jobs, hc_u32 table_word, hc_u32 wg,
                                        const HC_GLOBAL hc_u8* planes, HC_GLOBAL hc_u8* out,
                                        hc_u32 lane) {
  HC_GLOBAL const hc_jpeg_chunk_entry* e = hc_chunk_entry(jobs + table_word, 1, wg);
  HC_GLOBAL const hc_u32* job = jobs + e->job;
  const hc_u32 i = (wg - e->first_tile) * HC_CHUNK_TILE + lane;
  if (i >= hc_jpeg_header(job)->width * hc_jpeg_header(job)->height) return;
  hc_jpeg_pixel(job, planes + hc_chunk_offset(e->planes_lo, e->planes_hi), i,
                out + hc_chunk_offset(e->out_lo, e->out_hi));
}

/* Planar YCbCr (3 planes of `pixels`) to interleaved RGB, pixel i. */
HC_FN void hc_jpeg_ycc_to_rgb(const HC_GLOBAL hc_u8* ycc, HC_GLOBAL hc_u8* rgb, hc_u32 pixels,
                              hc_u32 i) {
  hc_i32 y, cb, cr;
  if (i >= pixels) return;
  y = ycc[i];
  cb = ycc[pixels + i];
  cr = ycc[2u * pixels + i];
  rgb[3u * i + 0u] = (hc_u8)hc_ycc_red(y, cr);
  rgb[3u * i + 1u] = (hc_u8)hc_ycc_green(y, cb, cr);
  rgb[3u * i + 2u] = (hc_u8)hc_ycc_blue(y, cb);
}

#endif /* HETCODEC_PORTABLE_JPEG_DECODE_H */
