/* PNG decode entry points: the bodies of core/portable/png_defilter.h and png_inflate.h on
 * OpenCL, each a work-group of its launch plan's lanes (backends/launch_plan.h). */
#include "core/portable/png_defilter.h"
#include "core/portable/png_inflate.h"

__kernel void png_clear(__global uint* words, uint n) { hc_png_clear(words, n, get_global_id(0)); }

__kernel void png_defilter_rows(__global uchar* rows, ulong offset, uint height, uint row_bytes,
                                uint bpp) {
  hc_png_defilter_rows(rows, offset, height, row_bytes, bpp, get_global_id(0));
}

__kernel __attribute__((reqd_work_group_size(HC_WF_ROWS, 1, 1))) void png_defilter_bands(
    __global uchar* rows, ulong offset, uint height, uint row_bytes, uint bpp) {
  __local hc_wf_band_local loc;
  hc_png_defilter_bands(rows, offset, height, row_bytes, bpp, get_group_id(0), get_local_id(0),
                        HC_WF_ROWS, &loc);
}

__kernel __attribute__((reqd_work_group_size(HC_WF_THREADS, 1, 1))) void png_defilter_tiles(
    __global uchar* rows, ulong offset, uint height, uint row_bytes, uint bpp, uint tiles_x,
    uint tiles_y, int diagonal, __global uint* scratch) {
  __local hc_wf_tile_local loc;
  hc_png_defilter_tiles(rows, offset, height, row_bytes, bpp, tiles_x, tiles_y, diagonal, scratch,
                        get_group_id(0), get_local_id(0), HC_WF_THREADS, &loc);
}

__kernel void png_unpack(__global const uchar* rows, __global const hc_png_job* job,
                         __global uchar* out, uint width, uint height, uint pixel_bytes,
                         ulong out_offset) {
  hc_png_unpack_column(rows, job, out + out_offset, width, height, pixel_bytes, get_global_id(0),
                       get_group_id(1), get_num_groups(1));
}

__kernel void png_inflate(__global const uchar* compressed, __global const uint* segments,
                          __global uchar* rows, __global uint* results, uint count) {
  hc_inflate_item(compressed, segments, rows, results, count, get_global_id(0));
}
