/* PNG decode arithmetic shared by core/png (the CPU reference), backends/cpu, kernels_cu and
 * kernels_cl: reconstruction of a filtered byte, and the unpacking of one output pixel from
 * the de-filtered passes as libpng 1.6 expands it (png_set_expand). */
#ifndef HETCODEC_PORTABLE_PNG_DECODE_H
#define HETCODEC_PORTABLE_PNG_DECODE_H

#include "core/portable/common.h"
#include "core/portable/png_filter.h"

/* Byte x of a row filtered with `type`, from its reconstructed neighbours: a (left), b (up),
 * c (upper-left), each 0 outside the image. */
HC_FN hc_u8 hc_png_unfilter_byte(hc_i32 type, hc_i32 x, hc_i32 a, hc_i32 b, hc_i32 c) {
  hc_i32 pred = type == 1 ? a : type == 2 ? b : type == 3 ? (a + b) >> 1 : type == 4 ? hc_png_paeth(a, b, c) : 0;
  return (hc_u8)((x + pred) & 0xFF);
}

/* The prediction of a byte filtered with `type` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth),
 * from its reconstructed neighbours a (left), b (up) and c (upper-left): every predictor is
 * computed and one selected, so that the compiler can make it branch-free. */
HC_FN hc_u32 hc_png_predict(hc_i32 type, hc_i32 a, hc_i32 b, hc_i32 c) {
  const hc_i32 paeth = hc_png_paeth(a, b, c), average = (a + b) >> 1;
  return (hc_u32)(type == 4 ? paeth : type == 3 ? average : type == 2 ? b : type == 1 ? a : 0);
}

/* The unpack job: HC_PNG_PARAMS 32-bit words, then the palette as 256 RGBA entries (alpha from
 * tRNS, 255 past it; entries past the palette are 0, 0, 0, 255 as libpng leaves them). */
#define HC_PNG_W 0
#define HC_PNG_H 1
#define HC_PNG_COLOR 2      /* colour type */
#define HC_PNG_DEPTH 3      /* bit depth in the file */
#define HC_PNG_OUT_CH 4     /* output channels */
#define HC_PNG_INTERLACE 5
#define HC_PNG_TRNS 6       /* 1: a tRNS colour key applies (gray or RGB) */
#define HC_PNG_KEY 7        /* 3 words: gray, or red, green, blue, masked to the depth */
#define HC_PNG_PASS 10      /* 7 passes of HC_PNG_PASS_WORDS: x0, y0, dx, dy, width, row bytes, offset */
#define HC_PNG_PASS_WORDS 7
#define HC_PNG_PARAMS 60
#define HC_PNG_JOB_BYTES (HC_PNG_PARAMS * 4 + 1024)

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
HC_FN void hc_png_unpack_pixel(const HC_GLOBAL hc_u8* data, const HC_GLOBAL hc_u32* job,
                               hc_u32 x, hc_u32 y, HC_GLOBAL hc_u8* out) {
  const HC_GLOBAL hc_u8* palette = (const HC_GLOBAL hc_u8*)(job + HC_PNG_PARAMS);
  hc_u32 color = job[HC_PNG_COLOR], depth = job[HC_PNG_DEPTH], nout = job[HC_PNG_OUT_CH];
  hc_u32 p = job[HC_PNG_INTERLACE] ? hc_png_adam7_pass(x, y) : 0;
  const HC_GLOBAL hc_u32* ps = job + HC_PNG_PASS + HC_PNG_PASS_WORDS * p;
  hc_u32 px = (x - ps[0]) / ps[2], py = (y - ps[1]) / ps[3];
  const HC_GLOBAL hc_u8* row = data + ps[6] + (hc_u64)py * (ps[5] + 1u) + 1u;
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
      if (v != job[HC_PNG_KEY + i]) key = 0u;
      out[2u * i] = (hc_u8)(v >> 8);
      out[2u * i + 1u] = (hc_u8)(v & 0xFFu);
    }
    if (job[HC_PNG_TRNS]) {
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
      if (v != job[HC_PNG_KEY + i]) key = 0u;
      out[i] = (hc_u8)(v * scale);
    }
    if (job[HC_PNG_TRNS]) out[spp] = key ? 0u : 255u;
  }
}

/* ---- The wavefront engine's geometry (DESIGN.md §3 "The wavefront engine") ----------------
 * A tile is HC_WF_ROWS rows of HC_WF_BYTES bytes, solved by HC_WF_ROWS work-items, one per
 * row (the work-group has HC_WF_THREADS, which all take part in the loads and stores, so that
 * many global accesses are in flight at once); a work-item takes HC_WF_CHUNK bytes per step, one step behind the row above (the chunk
 * is at least the 8 bytes a pixel can have, so left, up and upper-left are always done). In
 * local memory a tile row has 8 bytes of left halo and 4 of padding: with a stride of
 * HC_WF_STRIDE the skewed accesses of one step fall in different banks. Row 0 of the local tile
 * is the halo row above. */
#define HC_WF_ROWS 32
#define HC_WF_THREADS 128 /* per tile: all load and store, the first HC_WF_ROWS solve */
#define HC_WF_BYTES 256
#define HC_WF_CHUNK 8
#define HC_WF_STRIDE (HC_WF_BYTES + 12)
#define HC_WF_LOCAL ((HC_WF_ROWS + 1) * HC_WF_STRIDE)
#define HC_WF_STEPS (HC_WF_BYTES / HC_WF_CHUNK + HC_WF_ROWS - 1)

/* The band path of the wavefront engine, for passes whose every tile row after the first starts
 * with a row filtered with None or Sub (a band, which needs no row above; our parallel mode
 * writes one every 32 rows). One work-group of HC_WF_ROWS work-items per band, with no wait on
 * any other: work-item r solves row r along the whole width, HC_WF_CHUNK bytes a step, a step
 * behind row r - 1. The rows pass through a ring of HC_BAND_SLOTS windows of HC_WF_BYTES bytes
 * in local memory (each with the zero row above a band's first, as the tile's halo row): at the
 * start of each window's HC_WF_BYTES / HC_WF_CHUNK steps the work-group stores the window its
 * last row finished, then loads into that slot the window after the one its first row starts
 * (each work-item's loads of all rows in flight together). Left and upper left stay in
 * registers from window to window, as from chunk to chunk. Three slots: 26.5 KB, under the
 * 32 KB of local memory every OpenCL device has. */
#define HC_BAND_SLOTS 3
#define HC_BAND_SLOT ((HC_WF_ROWS + 1) * HC_WF_STRIDE)
#define HC_BAND_LOCAL (HC_BAND_SLOTS * HC_BAND_SLOT)

/* Reconstructs the `n` (at most HC_WF_CHUNK = 8) bytes of a row at `cur` in place; `up` is the
 * row above at the same place. left[k] and upl[k] (k = 0..7) hold the 8 bytes just before the
 * chunk in this row (reconstructed) and in the row above, the nearest last; they are replaced by
 * the chunk's own bytes for the next one. Left and upper-left come from these registers, so the
 * only memory accesses are the chunk's own bytes and the row above it. `bpp` must be a constant
 * where this is inlined (hc_png_unfilter_chunk_any dispatches on it): the loops then unroll
 * with constant indices into registers, and byte j waits only on byte j - bpp, so the bpp samples of a pixel are
 * reconstructed side by side rather than one after another. */
HC_FN void hc_png_unfilter_chunk(hc_i32 type, const hc_u32 bpp, HC_LOCAL hc_u8* cur,
                                 const HC_LOCAL hc_u8* up, hc_u32 n, hc_u32* left,
                                 hc_u32* upl) {
  hc_u32 raw[HC_WF_CHUNK], w[8 + HC_WF_CHUNK], u[8 + HC_WF_CHUNK];
  hc_u32 j;
  /* All loads first, whatever n is (a tile row holds HC_WF_BYTES bytes, zero past the image),
   * so that they are in flight together and the chain below is arithmetic only. */
  for (j = 0; j < 8u; ++j) {
    w[j] = left[j];
    u[j] = upl[j];
  }
  for (j = 0; j < HC_WF_CHUNK; ++j) {
    raw[j] = cur[j];
    u[8u + j] = up[j];
  }
  /* Every predictor is computed and the row's one selected, without a branch: the rows of a
   * tile are solved by one warp, whose lanes would otherwise take the four filters' paths one
   * after another (1.7 times the solve time, measured on CUDA). */
  for (j = 0; j < HC_WF_CHUNK; ++j)
    w[8u + j] = (raw[j] + hc_png_predict(type, (hc_i32)w[8u + j - bpp], (hc_i32)u[8u + j],
                                         (hc_i32)u[8u + j - bpp])) & 0xFFu;
  for (j = 0; j < HC_WF_CHUNK; ++j)
    if (j < n && type != 0) cur[j] = (hc_u8)w[8u + j];
  for (j = 0; j < 8u; ++j) {
    left[j] = w[HC_WF_CHUNK + j];
    upl[j] = u[HC_WF_CHUNK + j];
  }
}

/* hc_png_unfilter_chunk for any bytes per pixel a PNG can have (1, 2, 3, 4, 6, 8), each with
 * its own constant. */
HC_FN void hc_png_unfilter_chunk_any(hc_i32 type, hc_u32 bpp, HC_LOCAL hc_u8* cur,
                                     const HC_LOCAL hc_u8* up, hc_u32 n, hc_u32* left,
                                     hc_u32* upl) {
  switch (bpp) {
    case 1u: hc_png_unfilter_chunk(type, 1u, cur, up, n, left, upl); break;
    case 2u: hc_png_unfilter_chunk(type, 2u, cur, up, n, left, upl); break;
    case 3u: hc_png_unfilter_chunk(type, 3u, cur, up, n, left, upl); break;
    case 4u: hc_png_unfilter_chunk(type, 4u, cur, up, n, left, upl); break;
    case 6u: hc_png_unfilter_chunk(type, 6u, cur, up, n, left, upl); break;
    default: hc_png_unfilter_chunk(type, 8u, cur, up, n, left, upl); break;
  }
}

/* The 8 bytes before position 0 of a local tile row (its left halo), the nearest last. */
HC_FN void hc_png_window(const HC_LOCAL hc_u8* row_start, hc_u32* window) {
  hc_u32 k;
  for (k = 0; k < 8u; ++k) window[k] = row_start[k];
}

/* Tile (tx, ty) of ticket t when tickets go diagonal by diagonal (tx + ty ascending), each
 * diagonal from its top tile down: every tile a tile depends on has a smaller ticket. */
HC_FN void hc_wf_tile_of(hc_u32 t, hc_u32 tiles_x, hc_u32 tiles_y, hc_u32* tx, hc_u32* ty) {
  hc_u32 d = 0;
  for (;;) {
    hc_u32 lo = d >= tiles_x ? d - (tiles_x - 1u) : 0u;
    hc_u32 hi = d < tiles_y ? d : tiles_y - 1u;
    hc_u32 n = hi - lo + 1u;
    if (t < n) {
      *ty = lo + t;
      *tx = d - *ty;
      return;
    }
    t -= n;
    ++d;
  }
}

/* Tile `g` of diagonal d (launch-per-diagonal fallback). */
HC_FN void hc_wf_tile_on_diagonal(hc_u32 d, hc_u32 g, hc_u32 tiles_x, hc_u32* tx, hc_u32* ty) {
  hc_u32 lo = d >= tiles_x ? d - (tiles_x - 1u) : 0u;
  *ty = lo + g;
  *tx = d - *ty;
}

#endif /* HETCODEC_PORTABLE_PNG_DECODE_H */
