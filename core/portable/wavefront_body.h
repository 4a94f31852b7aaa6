/* The wavefront engine's bodies (core/portable/wavefront.h gives the geometry), written once for
 * every predictor: a stage header defines, before including this file,
 *   HC_WF_FN(name)          the name its instance of each body gets (hc_png_##name, say),
 *   HC_WF_SOLVE(type, bpp, at, cur, up, n, left, upl)
 *                           reconstructs the n (<= HC_WF_CHUNK) bytes of a row at `cur` in
 *                           place (byte `at` of the row), `up` the row above at the same place,
 *                           left and upl the 8-byte windows before them in this row and the
 *                           row above (updated for the next chunk), `type` the row's predictor
 *                           byte;
 *   HC_WF_NO_UP(type)       whether a row of that predictor needs no row above (it starts a
 *                           band, and its tile does not wait on the tile above).
 * It may be included once per predictor; the three hooks are undefined at its end.
 *
 * defilter_tiles: one work-group of HC_WF_THREADS lanes per tile; the tile and its halo (the
 * row above, 8 bytes to the left) are loaded into local memory, solved in HC_WF_STEPS skewed
 * steps (lane r does chunk s - r of its row at step s) and written back in place. With
 * diagonal < 0 a launch covers every tile: each work-group takes a ticket, tickets go in
 * wavefront order, and a tile waits on the completion flags of the tiles above and to its left,
 * which hold smaller tickets and so have started already. With diagonal >= 0 a launch solves
 * the tiles of that anti-diagonal only (one launch per diagonal, where no work-group waits on
 * another; the emulator always takes it, since Oclgrind cannot see the flags' synchronisation
 * and reports the halo reads as races).
 * defilter_bands: one work-group of HC_WF_ROWS lanes per band along the whole width. */

#if !defined(HC_WF_FN) || !defined(HC_WF_SOLVE) || !defined(HC_WF_NO_UP)
#error "define HC_WF_FN, HC_WF_SOLVE and HC_WF_NO_UP before including wavefront_body.h"
#endif
#if HC_BAND_SLOTS != 3
#error "defilter_bands loads window k + 1 into window k - 2's slot"
#endif
/* Calls that would not fit a line, under names clang-format reads as functions. */
#define HC_WF_STORE_EDGES HC_WF_FN(tile_store_edges)
#define HC_WF_STORE_REST HC_WF_FN(tile_store_rest)
#define HC_WF_BAND_STORE HC_WF_FN(band_store)

/* The tile's own filtered bytes into local memory (zeros past the image's edges). */
HC_FN void HC_WF_FN(tile_load)(const HC_GLOBAL hc_u8* base, hc_u64 stride, hc_u32 y0, hc_u32 x0,
                               hc_u32 height, hc_u32 row_bytes, HC_LOCAL hc_u8* tile, hc_u32 lane,
                               hc_u32 lanes) {
  hc_u32 k;
  HC_UNROLL(8)
  for (k = lane; k < HC_WF_ROWS * HC_WF_BYTES; k += lanes) {
    const hc_u32 row = k / HC_WF_BYTES, i = k % HC_WF_BYTES;
    const hc_u32 y = y0 + row, x = x0 + i;
    tile[(row + 1u) * HC_WF_STRIDE + 8u + i] =
        (y < height && x < row_bytes) ? base[(hc_u64)y * stride + 1u + x] : (hc_u8)0;
  }
}

/* One lane's wait for the completion flags of the tiles above (unless the tile starts a band)
 * and to the left, then the acquire fence. */
HC_FN void HC_WF_FN(tile_wait)(HC_GLOBAL hc_u32* scratch, hc_u32 tx, hc_u32 ty, hc_u32 tiles_x,
                               int band_start) {
  if (ty > 0 && !band_start)
    while (HC_ATOMIC_OR(&scratch[1u + (ty - 1u) * tiles_x + tx], 0u) == 0u) {
    }
  if (tx > 0)
    while (HC_ATOMIC_OR(&scratch[1u + ty * tiles_x + tx - 1u], 0u) == 0u) {
    }
  HC_FENCE_GLOBAL(); /* acquire: the awaited tiles' bytes are read after their flags */
}

/* The halo row above (with 8 bytes to its left) and the left halo of each row: other tiles'
 * results, read through volatile pointers so that no stale cache line is used. */
HC_FN void HC_WF_FN(tile_load_halo)(const volatile HC_GLOBAL hc_u8* vbase, hc_u64 stride, hc_u32 y0,
                                    hc_u32 x0, hc_u32 height, hc_u32 row_bytes, int band_start,
                                    HC_LOCAL hc_u8* tile, hc_u32 lane, hc_u32 lanes) {
  hc_u32 k;
  for (k = lane; k < HC_WF_BYTES + 8u; k += lanes) {
    const int x = (int)x0 + (int)k - 8;
    hc_u8 v = 0;
    if (y0 > 0 && !band_start && x >= 0 && (hc_u32)x < row_bytes)
      v = vbase[(hc_u64)(y0 - 1u) * stride + 1u + (hc_u32)x];
    tile[k] = v;
  }
  for (k = lane; k < HC_WF_ROWS * 8u; k += lanes) {
    const hc_u32 row = k >> 3, y = y0 + row;
    const int x = (int)x0 + (int)(k & 7u) - 8;
    hc_u8 v = 0;
    if (y < height && x >= 0) v = vbase[(hc_u64)y * stride + 1u + (hc_u32)x];
    tile[(row + 1u) * HC_WF_STRIDE + (k & 7u)] = v;
  }
}

/* What the tiles below and to the right read: the tile's last row, then the last 8 bytes
 * (up to `end`) of each row. */
HC_FN void HC_WF_FN(tile_store_edges)(HC_GLOBAL hc_u8* base, hc_u64 stride, hc_u32 y0, hc_u32 x0,
                                      hc_u32 height, hc_u32 row_bytes, hc_u32 last_row, hc_u32 end,
                                      const HC_LOCAL hc_u8* tile, hc_u32 lane, hc_u32 lanes) {
  hc_u32 k;
  for (k = lane; k < HC_WF_BYTES; k += lanes)
    if (x0 + k < row_bytes)
      base[(hc_u64)last_row * stride + 1u + x0 + k] =
          tile[(last_row - y0 + 1u) * HC_WF_STRIDE + 8u + k];
  for (k = lane; k < HC_WF_ROWS * 8u; k += lanes) {
    const hc_u32 row = k >> 3, yy = y0 + row;
    const int x = (int)end - 8 + (int)(k & 7u);
    if (yy < height && x >= (int)x0)
      base[(hc_u64)yy * stride + 1u + (hc_u32)x] =
          tile[(row + 1u) * HC_WF_STRIDE + 8u + ((hc_u32)x - x0)];
  }
}

/* The tile's solved bytes back in place: all of them with `all` (a launch per diagonal), else
 * all but those tile_store_edges wrote (a waiting tile may be reading them). */
HC_FN void HC_WF_FN(tile_store_rest)(HC_GLOBAL hc_u8* base, hc_u64 stride, hc_u32 y0, hc_u32 x0,
                                     hc_u32 height, hc_u32 row_bytes, hc_u32 last_row, hc_u32 end,
                                     int all, const HC_LOCAL hc_u8* tile, hc_u32 lane,
                                     hc_u32 lanes) {
  hc_u32 k;
  HC_UNROLL(8)
  for (k = lane; k < HC_WF_ROWS * HC_WF_BYTES; k += lanes) {
    const hc_u32 row = k / HC_WF_BYTES, i = k % HC_WF_BYTES;
    const hc_u32 yy = y0 + row, x = x0 + i;
    if (yy < height && x < row_bytes && (all || (yy != last_row && x + 8u < end)))
      base[(hc_u64)yy * stride + 1u + x] = tile[(row + 1u) * HC_WF_STRIDE + 8u + i];
  }
}

/* Tile `group` of a launch (its ticket's, or diagonal's), solved in place; `scratch` holds the
 * ticket counter and one completion flag per tile (ticket order only, cleared before). */
HC_FN void HC_WF_FN(defilter_tiles)(HC_GLOBAL hc_u8* rows, hc_u64 offset, hc_u32 height,
                                    hc_u32 row_bytes, hc_u32 bpp, hc_u32 tiles_x, hc_u32 tiles_y,
                                    hc_i32 diagonal, HC_GLOBAL hc_u32* scratch, hc_u32 group,
                                    hc_u32 lane, hc_u32 lanes, HC_LOCAL hc_wf_tile_local* loc) {
  HC_LOCAL hc_u8* tile = loc->tile;
  const hc_u64 stride = (hc_u64)row_bytes + 1u;
  HC_GLOBAL hc_u8* base = rows + offset;
  const volatile HC_GLOBAL hc_u8* vbase = base;
  hc_u32 tx, ty, q, s;
  if (diagonal >= 0) {
    hc_wf_tile_on_diagonal((hc_u32)diagonal, group, tiles_x, &tx, &ty);
  } else {
    if (lane == 0) loc->ticket = HC_ATOMIC_ADD(&scratch[0], 1u);
    HC_BARRIER();
    hc_wf_tile_of(loc->ticket, tiles_x, tiles_y, &tx, &ty);
  }
  const hc_u32 y0 = ty * HC_WF_ROWS, x0 = tx * HC_WF_BYTES;
  /* A tile whose first row needs no row above starts a band and does not wait on the tile
   * above. */
  const int band_start = y0 > 0u && HC_WF_NO_UP(base[(hc_u64)y0 * stride]);
  /* The tile's own filtered bytes first: nothing else writes them, so they load while the
   * tiles above and to the left may still be working. */
  HC_WF_FN(tile_load)(base, stride, y0, x0, height, row_bytes, tile, lane, lanes);
  if (diagonal < 0) {
    /* Wait for the tiles above and to the left (flag 1 + tile index in scratch). */
    if (lane == 0) HC_WF_FN(tile_wait)(scratch, tx, ty, tiles_x, band_start);
    HC_BARRIER_GLOBAL();
  }
  HC_WF_FN(tile_load_halo)(vbase, stride, y0, x0, height, row_bytes, band_start, tile, lane, lanes);
  /* Lane r solves row r (on the CPU, one lane all rows): its left and upper-left bytes live in
   * two 8-byte register windows. */
  int type[HC_WF_LANE_ROWS];
  hc_u32 left[HC_WF_LANE_ROWS][8], upl[HC_WF_LANE_ROWS][8];
  for (q = 0; q < HC_WF_LANE_ROWS; ++q) {
    const hc_u32 r = lane + q * lanes, y = y0 + r;
    type[q] = (r < HC_WF_ROWS && y < height) ? base[(hc_u64)y * stride] : 0;
  }
  HC_BARRIER();
  for (q = 0; q < HC_WF_LANE_ROWS; ++q) {
    const hc_u32 r = lane + q * lanes, rr = r < HC_WF_ROWS ? r : 0u;
    hc_wf_window(tile + (rr + 1u) * HC_WF_STRIDE, left[q]);
    hc_wf_window(tile + rr * HC_WF_STRIDE, upl[q]);
  }
  for (s = 0; s < HC_WF_STEPS; ++s) {
    for (q = 0; q < HC_WF_LANE_ROWS; ++q) {
      const hc_u32 r = lane + q * lanes;
      const int c = (int)s - (int)r;
      if (r < HC_WF_ROWS && c >= 0 && c < HC_WF_BYTES / HC_WF_CHUNK && y0 + r < height) {
        const hc_u32 i = (hc_u32)c * HC_WF_CHUNK;
        if (x0 + i < row_bytes) {
          HC_LOCAL hc_u8* cur = tile + (r + 1u) * HC_WF_STRIDE + 8u + i;
          const hc_u32 n = hc_min_u32(HC_WF_CHUNK, row_bytes - x0 - i);
          HC_WF_SOLVE(type[q], bpp, x0 + i, cur, cur - HC_WF_STRIDE, n, left[q], upl[q]);
        }
      }
    }
    HC_BARRIER();
  }
  const hc_u32 last_row = hc_min_u32(y0 + HC_WF_ROWS, height) - 1u;
  const hc_u32 end = hc_min_u32(x0 + HC_WF_BYTES, row_bytes);
  if (diagonal < 0) {
    /* What the tiles below and to the right read goes out first, then the flag, then the rest:
     * the waiting tiles see the flag after a short fence rather than after the whole tile. */
    HC_WF_STORE_EDGES(base, stride, y0, x0, height, row_bytes, last_row, end, tile, lane, lanes);
    HC_FENCE_GLOBAL(); /* release: those bytes are visible before the flag */
    HC_BARRIER_GLOBAL();
    if (lane == 0) HC_ATOMIC_XCHG(&scratch[1u + ty * tiles_x + tx], 1u);
  }
  HC_WF_STORE_REST(base, stride, y0, x0, height, row_bytes, last_row, end, diagonal >= 0, tile,
                   lane, lanes);
}

/* Window k of the band's rows (HC_WF_BYTES bytes from byte k * HC_WF_BYTES of each) from global
 * memory into its ring slot: lane l takes bytes 8l..8l+7 of every row, so that a row's window is
 * one contiguous access of the work-group, the rows unrolled so that their loads are in flight
 * together. Zeros past the row's end. */
HC_FN void HC_WF_FN(band_load)(const HC_GLOBAL hc_u8* base, hc_u64 stride, hc_u32 y0, hc_u32 rows,
                               hc_u32 row_bytes, hc_u32 k, HC_LOCAL hc_u8* slot, hc_u32 lane,
                               hc_u32 lanes) {
  hc_u32 l, rr, j;
  for (l = lane; l < HC_WF_BYTES / HC_WF_CHUNK; l += lanes) {
    const hc_u32 x = k * HC_WF_BYTES + l * HC_WF_CHUNK;
    HC_UNROLL(8)
    for (rr = 0; rr < rows; ++rr) {
      const HC_GLOBAL hc_u8* HC_RESTRICT g = base + (hc_u64)(y0 + rr) * stride + 1u + x;
      HC_LOCAL hc_u8* HC_RESTRICT t = slot + (rr + 1u) * HC_WF_STRIDE + 8u + l * HC_WF_CHUNK;
      HC_UNROLL(8)
      for (j = 0; j < HC_WF_CHUNK; ++j) t[j] = x + j < row_bytes ? g[j] : (hc_u8)0;
    }
  }
}

/* Window k of the band's rows from its ring slot back to global memory (nothing past the row's
 * end). */
HC_FN void HC_WF_FN(band_store)(HC_GLOBAL hc_u8* base, hc_u64 stride, hc_u32 y0, hc_u32 rows,
                                hc_u32 row_bytes, hc_u32 k, const HC_LOCAL hc_u8* slot, hc_u32 lane,
                                hc_u32 lanes) {
  hc_u32 l, rr, j;
  for (l = lane; l < HC_WF_BYTES / HC_WF_CHUNK; l += lanes) {
    const hc_u32 x = k * HC_WF_BYTES + l * HC_WF_CHUNK;
    for (rr = 0; rr < rows; ++rr) {
      HC_GLOBAL hc_u8* g = base + (hc_u64)(y0 + rr) * stride + 1u + x;
      const HC_LOCAL hc_u8* t = slot + (rr + 1u) * HC_WF_STRIDE + 8u + l * HC_WF_CHUNK;
      HC_UNROLL(8)
      for (j = 0; j < HC_WF_CHUNK; ++j)
        if (x + j < row_bytes) g[j] = t[j];
    }
  }
}

/* Band `group` (rows group * HC_WF_ROWS ...) of a pass whose every band starts with a row that
 * needs no row above, solved in place. */
HC_FN void HC_WF_FN(defilter_bands)(HC_GLOBAL hc_u8* rows, hc_u64 offset, hc_u32 height,
                                    hc_u32 row_bytes, hc_u32 bpp, hc_u32 group, hc_u32 lane,
                                    hc_u32 lanes, HC_LOCAL hc_wf_band_local* loc) {
  HC_LOCAL hc_u8* ring = loc->ring;
  const hc_u64 stride = (hc_u64)row_bytes + 1u;
  HC_GLOBAL hc_u8* base = rows + offset;
  const hc_u32 y0 = group * HC_WF_ROWS;
  const hc_u32 band = hc_min_u32(HC_WF_ROWS, height - y0);
  const hc_u32 chunks = (row_bytes + HC_WF_CHUNK - 1u) / HC_WF_CHUNK;
  const hc_u32 windows = (row_bytes + HC_WF_BYTES - 1u) / HC_WF_BYTES;
  const hc_u32 per_window = HC_WF_BYTES / HC_WF_CHUNK;
  hc_u32 k, q, s, i, stored = 0;
  /* The zero row above each slot's first row, and the first window. (A loop per slot: a
   * division and remainder of one value compile to an LLVM `freeze`, which Oclgrind's
   * uninitialised-value plugin cannot run.) */
  for (k = 0; k < HC_BAND_SLOTS; ++k)
    for (i = lane; i < HC_WF_STRIDE; i += lanes) ring[k * HC_BAND_SLOT + i] = 0;
  HC_WF_FN(band_load)(base, stride, y0, band, row_bytes, 0, ring, lane, lanes);
  int type[HC_WF_LANE_ROWS];
  hc_u32 left[HC_WF_LANE_ROWS][8], upl[HC_WF_LANE_ROWS][8];
  for (q = 0; q < HC_WF_LANE_ROWS; ++q) {
    const hc_u32 y = y0 + lane + q * lanes;
    type[q] = y < height ? base[(hc_u64)y * stride] : 0;
    for (k = 0; k < 8u; ++k) left[q][k] = upl[q][k] = 0;
  }
  HC_BARRIER();
  for (s = 0; s < chunks + band - 1u; ++s) {
    if (s % per_window == 0) {
      /* The window the last row finished two windows' steps ago goes out, and the window after
       * the first row's comes into its slot. */
      k = s / per_window;
      HC_LOCAL hc_u8* slot = ring + ((k + 1u) % HC_BAND_SLOTS) * HC_BAND_SLOT;
      if (k >= 2u) {
        HC_WF_FN(band_store)(base, stride, y0, band, row_bytes, k - 2u, slot, lane, lanes);
        stored = k - 1u;
      }
      HC_BARRIER();
      if (k + 1u < windows)
        HC_WF_FN(band_load)(base, stride, y0, band, row_bytes, k + 1u, slot, lane, lanes);
      HC_BARRIER();
    }
    for (q = 0; q < HC_WF_LANE_ROWS; ++q) {
      const hc_u32 r = lane + q * lanes;
      const int c = (int)s - (int)r;
      if (r < band && c >= 0 && (hc_u32)c < chunks) {
        const hc_u32 w = (hc_u32)c / per_window, at = ((hc_u32)c % per_window) * HC_WF_CHUNK;
        HC_LOCAL hc_u8* cur =
            ring + (w % HC_BAND_SLOTS) * HC_BAND_SLOT + (r + 1u) * HC_WF_STRIDE + 8u + at;
        const hc_u32 n = hc_min_u32(HC_WF_CHUNK, row_bytes - (hc_u32)c * HC_WF_CHUNK);
        HC_WF_SOLVE(type[q], bpp, (hc_u32)c * HC_WF_CHUNK, cur, cur - HC_WF_STRIDE, n, left[q],
                    upl[q]);
      }
    }
    HC_BARRIER();
  }
  for (k = stored; k < windows; ++k)
    HC_WF_BAND_STORE(base, stride, y0, band, row_bytes, k,
                     ring + (k % HC_BAND_SLOTS) * HC_BAND_SLOT, lane, lanes);
}

#undef HC_WF_STORE_EDGES
#undef HC_WF_STORE_REST
#undef HC_WF_BAND_STORE
#undef HC_WF_FN
#undef HC_WF_SOLVE
#undef HC_WF_NO_UP
