/* The wavefront engine's geometry and tile order (DESIGN.md §3 "The wavefront engine"), shared
 * by its bodies (core/portable/wavefront_body.h), the launch plans (backends/launch_plan.h) and
 * the host's choice of path (host/src/png_decoder.cpp).
 *
 * The engine reconstructs rows of predicted bytes in place: every byte depends on the bytes to
 * its left, above and above-left in the same pass. A row in memory is one predictor byte (PNG's
 * filter type) and then its row_bytes bytes; rows follow one another with no gap.
 *
 * A tile is HC_WF_ROWS rows of HC_WF_BYTES bytes, solved by HC_WF_ROWS work-items, one per row
 * (the work-group has HC_WF_THREADS, which all take part in the loads and stores, so that many
 * global accesses are in flight at once); a work-item takes HC_WF_CHUNK bytes per step, one step
 * behind the row above (the chunk is at least the 8 bytes a pixel can have, so left, up and
 * upper-left are always done). In local memory a tile row has 8 bytes of left halo and 4 of
 * padding: with a stride of HC_WF_STRIDE the skewed accesses of one step fall in different
 * banks. Row 0 of the local tile is the halo row above.
 *
 * The band path, for passes whose every tile row after the first starts with a row that needs no
 * row above (a band; the PNG parallel mode writes one every 32 rows): one work-group of
 * HC_WF_ROWS work-items per band, with no wait on any other; work-item r solves row r along the
 * whole width, HC_WF_CHUNK bytes a step, a step behind row r - 1. The rows pass through a ring
 * of HC_BAND_SLOTS windows of HC_WF_BYTES bytes in local memory (each with the zero row above a
 * band's first, as the tile's halo row): at the start of each window's HC_WF_BYTES /
 * HC_WF_CHUNK steps the work-group stores the window its last row finished, then loads into that
 * slot the window after the one its first row starts. Three slots: 26.5 KB, under the 32 KB of
 * local memory every OpenCL device has. */
#ifndef HETCODEC_PORTABLE_WAVEFRONT_H
#define HETCODEC_PORTABLE_WAVEFRONT_H

#include "core/portable/kernel.h"

#define HC_WF_ROWS 32
#define HC_WF_THREADS 128 /* per tile: all load and store, the first HC_WF_ROWS solve */
#define HC_WF_BYTES 256
#define HC_WF_CHUNK 8
#define HC_WF_STRIDE (HC_WF_BYTES + 12)
#define HC_WF_LOCAL ((HC_WF_ROWS + 1) * HC_WF_STRIDE)
#define HC_WF_STEPS (HC_WF_BYTES / HC_WF_CHUNK + HC_WF_ROWS - 1)

#define HC_BAND_SLOTS 3
#define HC_BAND_SLOT ((HC_WF_ROWS + 1) * HC_WF_STRIDE)
#define HC_BAND_LOCAL (HC_BAND_SLOTS * HC_BAND_SLOT)

/* Rows a work-item solves: one on a device (the launch plans give the tile and band bodies at
 * least HC_WF_ROWS lanes), all of a tile's on the CPU reference, which runs a work-group as one
 * lane. The bodies keep each row's left and upper-left windows in registers, so this sizes
 * their arrays. */
#if HC_ON_DEVICE
#define HC_WF_LANE_ROWS 1
#else
#define HC_WF_LANE_ROWS HC_WF_ROWS
#endif

/* The local memory of a tile's work-group and of a band's. */
typedef struct hc_wf_tile_local {
  hc_u8 tile[HC_WF_LOCAL];
  hc_u32 ticket;
} hc_wf_tile_local;

typedef struct hc_wf_band_local {
  hc_u8 ring[HC_BAND_LOCAL];
} hc_wf_band_local;

/* Tiles across and down a pass of `height` rows of `row_bytes` bytes. */
HC_FN hc_u32 hc_wf_tiles_x(hc_u32 row_bytes) {
  return (row_bytes + HC_WF_BYTES - 1u) / HC_WF_BYTES;
}
HC_FN hc_u32 hc_wf_tiles_y(hc_u32 height) { return (height + HC_WF_ROWS - 1u) / HC_WF_ROWS; }

/* The first and last tile row on anti-diagonal d (tx + ty = d). */
HC_FN hc_u32 hc_wf_diagonal_first(hc_u32 d, hc_u32 tiles_x) {
  return d >= tiles_x ? d - (tiles_x - 1u) : 0u;
}
HC_FN hc_u32 hc_wf_diagonal_last(hc_u32 d, hc_u32 tiles_y) {
  return d < tiles_y ? d : tiles_y - 1u;
}

/* Tile (tx, ty) of ticket t when tickets go diagonal by diagonal (tx + ty ascending), each
 * diagonal from its top tile down: every tile a tile depends on has a smaller ticket. */
HC_FN void hc_wf_tile_of(hc_u32 t, hc_u32 tiles_x, hc_u32 tiles_y, hc_u32* tx, hc_u32* ty) {
  hc_u32 d = 0;
  for (;;) {
    hc_u32 lo = hc_wf_diagonal_first(d, tiles_x);
    hc_u32 n = hc_wf_diagonal_last(d, tiles_y) - lo + 1u;
    if (t < n) {
      *ty = lo + t;
      *tx = d - *ty;
      return;
    }
    t -= n;
    ++d;
  }
}

/* Tile `g` of diagonal d (the launch-per-diagonal order). */
HC_FN void hc_wf_tile_on_diagonal(hc_u32 d, hc_u32 g, hc_u32 tiles_x, hc_u32* tx, hc_u32* ty) {
  *ty = hc_wf_diagonal_first(d, tiles_x) + g;
  *tx = d - *ty;
}

/* The 8 bytes before position 0 of a local tile row (its left halo), the nearest last. */
HC_FN void hc_wf_window(const HC_LOCAL hc_u8* row_start, hc_u32* window) {
  hc_u32 k;
  for (k = 0; k < 8u; ++k) window[k] = row_start[k];
}

#endif /* HETCODEC_PORTABLE_WAVEFRONT_H */
