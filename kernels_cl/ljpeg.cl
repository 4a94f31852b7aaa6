/* Lossless JPEG decode entry points: the bodies of core/portable/ljpeg.h on OpenCL, each a
 * work-group of its launch plan's lanes (backends/launch_plan.h). */
#include "core/portable/ljpeg.h"

__kernel void ljpeg_residuals(__global const uint* job, __global const uchar* file, uint scan,
                              __global uchar* planes, ulong plane_offset, __global uint* status,
                              ulong status_word) {
  hc_lj_residual_row(job, file, scan, planes + plane_offset, status + status_word,
                     get_global_id(0));
}

__kernel __attribute__((reqd_work_group_size(HC_LJ_COLUMN_LANES, 1, 1))) void ljpeg_first_column(
    __global uchar* planes, ulong plane_offset, uint height, uint width, uint comps) {
  __local hc_lj_column_local loc;
  hc_lj_first_column(planes + plane_offset, height, width, comps, get_local_id(0),
                     HC_LJ_COLUMN_LANES, &loc);
}

__kernel void ljpeg_row_sums(__global uchar* planes, ulong plane_offset, uint height, uint width,
                             uint comps, int first_only) {
  hc_lj_row_sums(planes + plane_offset, height, width, comps, first_only, get_global_id(0));
}

__kernel void ljpeg_column_sums(__global uchar* planes, ulong plane_offset, uint height,
                                uint width, uint comps) {
  hc_lj_column_sums(planes + plane_offset, height, width, comps, get_global_id(0));
}

__kernel void ljpeg_clear(__global uint* words, uint n) {
  const uint i = get_global_id(0);
  if (i < n) words[i] = 0u;
}

__kernel __attribute__((reqd_work_group_size(HC_WF_ROWS, 1, 1))) void ljpeg_bands(
    __global uchar* rows, ulong offset, uint height, uint row_bytes, uint bpp) {
  __local hc_wf_band_local loc;
  hc_lj_defilter_bands(rows, offset, height, row_bytes, bpp, get_group_id(0), get_local_id(0),
                       HC_WF_ROWS, &loc);
}

__kernel __attribute__((reqd_work_group_size(HC_WF_THREADS, 1, 1))) void ljpeg_tiles(
    __global uchar* rows, ulong offset, uint height, uint row_bytes, uint bpp, uint tiles_x,
    uint tiles_y, int diagonal, __global uint* scratch) {
  __local hc_wf_tile_local loc;
  hc_lj_defilter_tiles(rows, offset, height, row_bytes, bpp, tiles_x, tiles_y, diagonal, scratch,
                       get_group_id(0), get_local_id(0), HC_WF_THREADS, &loc);
}

__kernel void ljpeg_unpack(__global const uint* job, __global const uchar* planes,
                           __global uchar* out, ulong out_offset) {
  hc_lj_unpack_column(job, planes, out + out_offset, get_global_id(0), get_group_id(1),
                      get_num_groups(1));
}
