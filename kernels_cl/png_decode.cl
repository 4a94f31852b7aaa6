/* PNG decode stages (core/portable/png_decode.h). Twin of kernels_cu/png_decode.cu; the CPU
 * reference is backends/cpu/png_kernels.cpp.
 *
 * png_defilter_tiles: the wavefront engine. One work-group of HC_WF_THREADS work-items per tile;
 * the tile and its halo (the row above, 8 bytes to the left) are loaded into local memory,
 * solved in HC_WF_STEPS skewed steps (work-item r does chunk s - r of its row at step s) and
 * written back in place. With diagonal < 0 a launch covers every tile: each work-group takes a
 * ticket, tickets go in wavefront order, and a tile waits on the completion flags of the tiles
 * above and to its left, which hold smaller tickets and so have started already. With
 * diagonal >= 0 a launch solves the tiles of that anti-diagonal only (the fallback, one launch
 * per diagonal, where no work-group waits on another; the emulator always takes it, since
 * Oclgrind cannot see the flags' synchronisation and reports the halo reads as races).
 * png_defilter_bands: passes whose every tile row after the first starts a band (a None or
 * Sub row): one work-group per band along the whole width (core/portable/png_decode.h).
 * png_defilter_rows: rows filtered with None or Sub only, one work-item per row.
 * png_unpack: one work-item per output pixel. */
#include "core/portable/png_decode.h"
#include "core/portable/png_inflate.h"

__kernel void png_clear(__global uint* words, uint n) {
  const uint i = get_global_id(0);
  if (i < n) words[i] = 0u;
}

__kernel void png_defilter_rows(__global uchar* rows, ulong offset, uint height, uint row_bytes,
                                uint bpp) {
  const uint y = get_global_id(0);
  if (y >= height) return;
  __global uchar* r = rows + offset + (ulong)y * ((ulong)row_bytes + 1u);
  if (r[0] != 1u) return; /* None */
  for (uint i = bpp; i < row_bytes; ++i) r[1u + i] = (uchar)(r[1u + i] + r[1u + i - bpp]);
}

/* Window k of the band's rows into its ring slot, and back (as the CUDA twins): work-item l
 * takes bytes 8l..8l+7 of every row, rows four at a time. Zeros past the row's end in,
 * nothing out. */
#if HC_BAND_SLOTS != 3
#error "png_defilter_bands loads window k + 1 into window k - 2's slot"
#endif
void band_load(__global const uchar* base, ulong stride, uint y0, uint rows, uint row_bytes,
               uint k, __local uchar* slot) {
  const uint l = get_local_id(0), x = k * HC_WF_BYTES + l * HC_WF_CHUNK;
#pragma unroll 8
  for (uint rr = 0; rr < rows; ++rr) {
    __global const uchar* g = base + (ulong)(y0 + rr) * stride + 1u + x;
    __local uchar* t = slot + (rr + 1u) * HC_WF_STRIDE + 8u + l * HC_WF_CHUNK;
    for (uint j = 0; j < HC_WF_CHUNK; ++j) t[j] = x + j < row_bytes ? g[j] : (uchar)0;
  }
}

void band_store(__global uchar* base, ulong stride, uint y0, uint rows, uint row_bytes, uint k,
                __local const uchar* slot) {
  const uint l = get_local_id(0), x = k * HC_WF_BYTES + l * HC_WF_CHUNK;
  for (uint rr = 0; rr < rows; ++rr) {
    __global uchar* g = base + (ulong)(y0 + rr) * stride + 1u + x;
    __local const uchar* t = slot + (rr + 1u) * HC_WF_STRIDE + 8u + l * HC_WF_CHUNK;
    for (uint j = 0; j < HC_WF_CHUNK; ++j)
      if (x + j < row_bytes) g[j] = t[j];
  }
}

__kernel __attribute__((reqd_work_group_size(HC_WF_ROWS, 1, 1)))
void png_defilter_bands(__global uchar* rows, ulong offset, uint height, uint row_bytes, uint bpp) {
  __local uchar ring[HC_BAND_LOCAL];
  const uint r = get_local_id(0);
  const ulong stride = (ulong)row_bytes + 1u;
  __global uchar* base = rows + offset;
  const uint y0 = get_group_id(0) * HC_WF_ROWS, y = y0 + r;
  const uint band = min((uint)HC_WF_ROWS, height - y0);
  const uint chunks = (row_bytes + HC_WF_CHUNK - 1) / HC_WF_CHUNK;
  const uint windows = (row_bytes + HC_WF_BYTES - 1) / HC_WF_BYTES;
  const uint per_window = HC_WF_BYTES / HC_WF_CHUNK;
  /* The zero row above each slot's first row, and the first window. */
  /* (a loop per slot: a division and remainder of one value compile to an LLVM `freeze`,
   * which Oclgrind's uninitialised-value plugin cannot run) */
  for (uint k = 0; k < HC_BAND_SLOTS; ++k)
    for (uint i = r; i < HC_WF_STRIDE; i += HC_WF_ROWS) ring[k * HC_BAND_SLOT + i] = 0;
  band_load(base, stride, y0, band, row_bytes, 0, ring);
  const int type = y < height ? base[(ulong)y * stride] : 0;
  hc_u32 left[8], upl[8];
  for (int k = 0; k < 8; ++k) left[k] = upl[k] = 0;
  uint stored = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 0; s < chunks + band - 1u; ++s) {
    if (s % per_window == 0) {
      /* The window the last row finished two windows' steps ago goes out, and the window after
       * the first row's comes into its slot. */
      const uint k = s / per_window;
      __local uchar* slot = ring + ((k + 1) % HC_BAND_SLOTS) * HC_BAND_SLOT;
      if (k >= 2) {
        band_store(base, stride, y0, band, row_bytes, k - 2, slot);
        stored = k - 1;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (k + 1 < windows) band_load(base, stride, y0, band, row_bytes, k + 1, slot);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int c = (int)s - (int)r;
    if (r < band && c >= 0 && (uint)c < chunks) {
      const uint w = (uint)c / per_window, i = ((uint)c % per_window) * HC_WF_CHUNK;
      __local uchar* cur = ring + (w % HC_BAND_SLOTS) * HC_BAND_SLOT + (r + 1u) * HC_WF_STRIDE + 8u + i;
      const uint n = min((uint)HC_WF_CHUNK, row_bytes - (uint)c * HC_WF_CHUNK);
      hc_png_unfilter_chunk_any(type, bpp, cur, cur - HC_WF_STRIDE, n, left, upl);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint k = stored; k < windows; ++k)
    band_store(base, stride, y0, band, row_bytes, k, ring + (k % HC_BAND_SLOTS) * HC_BAND_SLOT);
}

__kernel __attribute__((reqd_work_group_size(HC_WF_THREADS, 1, 1)))
void png_defilter_tiles(__global uchar* rows, ulong offset, uint height, uint row_bytes, uint bpp,
                        uint tiles_x, uint tiles_y, int diagonal, __global uint* scratch) {
  __local uchar tile[HC_WF_LOCAL];
  __local uint shared_ticket;
  const uint r = get_local_id(0);
  const ulong stride = (ulong)row_bytes + 1u;
  __global uchar* base = rows + offset;
  volatile __global uchar* vbase = base;
  uint tx, ty;
  if (diagonal >= 0) {
    hc_wf_tile_on_diagonal((uint)diagonal, get_group_id(0), tiles_x, &tx, &ty);
  } else {
    if (r == 0) shared_ticket = atomic_inc(&scratch[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    hc_wf_tile_of(shared_ticket, tiles_x, tiles_y, &tx, &ty);
  }
  const uint y0 = ty * HC_WF_ROWS, x0 = tx * HC_WF_BYTES;
  /* A tile whose first row is None or Sub does not need the row above: it starts a band and
   * does not wait on the tile above (the parallel mode's files have one every 32 rows). */
  const int band_start = y0 > 0u && base[(ulong)y0 * stride] <= 1u;
  /* The tile's own filtered bytes first: nothing else writes them, so they load while the
   * tiles above and to the left may still be working. */
#pragma unroll 8
  for (uint k = r; k < HC_WF_ROWS * HC_WF_BYTES; k += HC_WF_THREADS) {
    const uint row = k / HC_WF_BYTES, i = k % HC_WF_BYTES;
    const uint y = y0 + row, x = x0 + i;
    tile[(row + 1u) * HC_WF_STRIDE + 8u + i] =
        (y < height && x < row_bytes) ? base[(ulong)y * stride + 1u + x] : (uchar)0;
  }
  if (diagonal < 0) {
    /* Wait for the tiles above and to the left (flag 1 + tile index in scratch). */
    if (r == 0) {
      if (ty > 0 && !band_start)
        while (atomic_or(&scratch[1u + (ty - 1u) * tiles_x + tx], 0u) == 0u) {}
      if (tx > 0)
        while (atomic_or(&scratch[1u + ty * tiles_x + tx - 1u], 0u) == 0u) {}
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
  /* The halo row above (with 8 bytes to its left) and the left halo of each row: other tiles'
   * results, read through volatile pointers so that no stale cache line is used. */
  for (uint i = r; i < HC_WF_BYTES + 8u; i += HC_WF_THREADS) {
    const int x = (int)x0 + (int)i - 8;
    uchar v = 0;
    if (y0 > 0 && !band_start && x >= 0 && (uint)x < row_bytes)
      v = vbase[(ulong)(y0 - 1u) * stride + 1u + (uint)x];
    tile[i] = v;
  }
  for (uint k = r; k < HC_WF_ROWS * 8u; k += HC_WF_THREADS) {
    const uint row = k >> 3, i = k & 7u;
    const uint y = y0 + row;
    const int x = (int)x0 + (int)i - 8;
    uchar v = 0;
    if (y < height && x >= 0) v = vbase[(ulong)y * stride + 1u + (uint)x];
    tile[(row + 1u) * HC_WF_STRIDE + i] = v;
  }
  const uint y = y0 + r;
  const int type = (r < HC_WF_ROWS && y < height) ? base[(ulong)y * stride] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Work-item r solves row r: its left and upper-left bytes live in two 8-byte register windows. */
  const uint rr = r < HC_WF_ROWS ? r : 0u;
  __local uchar* cur = tile + (rr + 1u) * HC_WF_STRIDE + 8u;
  __local uchar* up = cur - HC_WF_STRIDE;
  hc_u32 left[8], upl[8];
  hc_png_window(cur - 8, left);
  hc_png_window(up - 8, upl);
  for (uint s = 0; s < HC_WF_STEPS; ++s) {
    const int c = (int)s - (int)r;
    if (r < HC_WF_ROWS && c >= 0 && c < HC_WF_BYTES / HC_WF_CHUNK && y < height) {
      const uint i = (uint)c * HC_WF_CHUNK;
      if (x0 + i < row_bytes) {
        const uint n = min((uint)HC_WF_CHUNK, row_bytes - x0 - i);
        hc_png_unfilter_chunk_any(type, bpp, cur + i, up + i, n, left, upl);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint last_row = min(y0 + HC_WF_ROWS, height) - 1u;
  const uint end = min(x0 + HC_WF_BYTES, row_bytes);
  if (diagonal < 0) {
    /* What the tiles below and to the right read goes out first, then the flag, then the rest:
     * the waiting tiles see the flag after a short fence rather than after the whole tile. */
    for (uint i = r; i < HC_WF_BYTES; i += HC_WF_THREADS)
      if (x0 + i < row_bytes)
        base[(ulong)last_row * stride + 1u + x0 + i] =
            tile[(last_row - y0 + 1u) * HC_WF_STRIDE + 8u + i];
    for (uint k = r; k < HC_WF_ROWS * 8u; k += HC_WF_THREADS) {
      const uint row = k >> 3, yy = y0 + row;
      const int x = (int)end - 8 + (int)(k & 7u);
      if (yy < height && x >= (int)x0)
        base[(ulong)yy * stride + 1u + (uint)x] = tile[(row + 1u) * HC_WF_STRIDE + 8u + ((uint)x - x0)];
    }
    /* Release: those writes of the group are visible before the flag is. */
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (r == 0) atomic_xchg(&scratch[1u + ty * tiles_x + tx], 1u);
  }
#pragma unroll 8
  for (uint k = r; k < HC_WF_ROWS * HC_WF_BYTES; k += HC_WF_THREADS) {
    const uint row = k / HC_WF_BYTES, i = k % HC_WF_BYTES;
    const uint yy = y0 + row, x = x0 + i;
    /* (the bytes already written above are left alone: a waiting tile may be reading them) */
    if (yy < height && x < row_bytes && (diagonal >= 0 || (yy != last_row && x + 8u < end)))
      base[(ulong)yy * stride + 1u + x] = tile[(row + 1u) * HC_WF_STRIDE + 8u + i];
  }
}

__kernel void png_unpack(__global const uchar* rows, __global const uint* job, __global uchar* out,
                         uint width, uint height, uint pixel_bytes, ulong out_offset) {
  const ulong i = get_global_id(0);
  if (i >= (ulong)width * height) return;
  /* No remainder operator: LLVM turns a division and remainder pair into a `freeze`, which
   * Oclgrind cannot run. */
  const uint y = (uint)(i / width);
  const uint x = (uint)(i - (ulong)y * width);
  hc_png_unpack_pixel(rows, job, x, y, out + out_offset + i * pixel_bytes);
}

/* One work-item per segment of core/portable/png_inflate.h. */
__kernel void png_inflate(__global const uchar* compressed, __global const uint* segments,
                          __global uchar* rows, __global uint* results, uint count) {
  const uint k = get_global_id(0);
  if (k < count)
    hc_inflate_segment(segments + (ulong)k * HC_INF_WORDS, compressed, rows,
                       results + (ulong)k * HC_INF_RESULT_WORDS);
}
