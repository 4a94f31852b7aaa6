/* The PNG de-filter and unpack stages' bodies, one for CUDA (kernels_cu/png_decode.cu), OpenCL
 * (kernels_cl/png_decode.cl) and the CPU reference (backends/cpu/png_kernels.cpp), as
 * core/portable/kernel.h describes: PNG's predictor (PNG specification 9.2-9.4) plugged into
 * the wavefront engine (core/portable/wavefront_body.h: hc_png_defilter_tiles,
 * hc_png_defilter_bands), the path for passes filtered with None and Sub only
 * (hc_png_defilter_rows), the clearing of the engine's flags, and the unpacking of output pixels
 * (hc_png_unpack_pixel, core/portable/png_decode.h). */
#ifndef HETCODEC_PORTABLE_PNG_DEFILTER_H
#define HETCODEC_PORTABLE_PNG_DEFILTER_H

#include "core/portable/kernel.h"
#include "core/portable/png_decode.h"
#include "core/portable/wavefront.h"

/* Reconstructs the `n` (at most HC_WF_CHUNK = 8) bytes of a row at `cur` in place; `up` is the
 * row above at the same place. left[k] and upl[k] (k = 0..7) hold the 8 bytes just before the
 * chunk in this row (reconstructed) and in the row above, the nearest last; they are replaced by
 * the chunk's own bytes for the next one. Left and upper-left come from these registers, so the
 * only memory accesses are the chunk's own bytes and the row above it. `bpp` must be a constant
 * where this is inlined (hc_png_unfilter_chunk_any dispatches on it): the loops then unroll
 * with constant indices into registers, and byte j waits only on byte j - bpp, so the bpp samples of a pixel are
 * reconstructed side by side rather than one after another. */
HC_FN void hc_png_unfilter_chunk(hc_i32 type, const hc_u32 bpp, HC_LOCAL hc_u8* cur,
                                 const HC_LOCAL hc_u8* up, hc_u32 n, hc_u32* left, hc_u32* upl) {
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
   * after another. */
  for (j = 0; j < HC_WF_CHUNK; ++j)
    w[8u + j] = (raw[j] + hc_png_predict(type, (hc_i32)w[8u + j - bpp], (hc_i32)u[8u + j],
                                         (hc_i32)u[8u + j - bpp])) &
                0xFFu;
  for (j = 0; j < HC_WF_CHUNK; ++j)
    if (j < n && type != 0) cur[j] = (hc_u8)w[8u + j];
  for (j = 0; j < 8u; ++j) {
    left[j] = w[HC_WF_CHUNK + j];
    upl[j] = u[HC_WF_CHUNK + j];
  }
}

/* hc_png_unfilter_chunk for any bytes per pixel a PNG can have (1, 2, 3, 4, 6, 8), each with
 * its own constant: the engine's HC_WF_SOLVE. */
HC_FN void hc_png_unfilter_chunk_any(hc_i32 type, hc_u32 bpp, hc_u32 at, HC_LOCAL hc_u8* cur,
                                     const HC_LOCAL hc_u8* up, hc_u32 n, hc_u32* left,
                                     hc_u32* upl) {
  (void)at; /* PNG's predictors treat the row's start as any byte (zeros on its left) */
  switch (bpp) {
    case 1u:
      hc_png_unfilter_chunk(type, 1u, cur, up, n, left, upl);
      break;
    case 2u:
      hc_png_unfilter_chunk(type, 2u, cur, up, n, left, upl);
      break;
    case 3u:
      hc_png_unfilter_chunk(type, 3u, cur, up, n, left, upl);
      break;
    case 4u:
      hc_png_unfilter_chunk(type, 4u, cur, up, n, left, upl);
      break;
    case 6u:
      hc_png_unfilter_chunk(type, 6u, cur, up, n, left, upl);
      break;
    default:
      hc_png_unfilter_chunk(type, 8u, cur, up, n, left, upl);
      break;
  }
}


/* A row of PNG filter type 0 (None) or 1 (Sub) needs no row above. */
#define HC_PNG_NO_UP(type) ((type) <= 1u)

#define HC_WF_FN(name) hc_png_##name
#define HC_WF_SOLVE hc_png_unfilter_chunk_any
#define HC_WF_NO_UP HC_PNG_NO_UP
#include "core/portable/wavefront_body.h"

/* Word i of n, zeroed (the engine's ticket counter and flags before a ticket-order launch). */
HC_FN void hc_png_clear(HC_GLOBAL hc_u32* words, hc_u32 n, hc_u32 i) {
  if (i < n) words[i] = 0u;
}

/* Row y of a pass filtered with None and Sub only (every row independent of the one above). */
HC_FN void hc_png_defilter_rows(HC_GLOBAL hc_u8* rows, hc_u64 offset, hc_u32 height,
                                hc_u32 row_bytes, hc_u32 bpp, hc_u32 y) {
  HC_GLOBAL hc_u8* r;
  hc_u32 i;
  if (y >= height) return;
  r = rows + offset + (hc_u64)y * ((hc_u64)row_bytes + 1u);
  if (r[0] != 1u) return; /* None */
  for (i = bpp; i < row_bytes; ++i) r[1u + i] = (hc_u8)(r[1u + i] + r[1u + i - bpp]);
}

/* Output pixels (x, y) for y = y_first, y_first + y_step, ... of an image `width` wide. */
HC_FN void hc_png_unpack_column(const HC_GLOBAL hc_u8* rows, const HC_GLOBAL hc_png_job* job,
                                HC_GLOBAL hc_u8* out, hc_u32 width, hc_u32 height,
                                hc_u32 pixel_bytes, hc_u32 x, hc_u32 y_first, hc_u32 y_step) {
  hc_u32 y;
  if (x >= width) return;
  for (y = y_first; y < height; y += y_step)
    hc_png_unpack_pixel(rows, job, x, y, out + ((hc_u64)y * width + x) * pixel_bytes);
}

#endif /* HETCODEC_PORTABLE_PNG_DEFILTER_H */
