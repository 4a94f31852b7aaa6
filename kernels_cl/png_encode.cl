/* PNG encode entry points: the bodies of core/portable/png_filter.h, png_crc.h and png_deflate.h
 * on OpenCL, each a work-group of its launch plan's lanes (backends/launch_plan.h). */
#include "core/portable/png_crc.h"
#include "core/portable/png_deflate.h"
#include "core/portable/png_filter.h"

__kernel __attribute__((reqd_work_group_size(HC_PNG_FILTER_LANES, 1, 1))) void png_filter_rows(
    __global const uchar* rows, __global uchar* out, uint row_bytes, uint bpp, uint mask,
    uint band_rows) {
  __local hc_png_filter_local loc;
  hc_png_filter_row(rows, out, row_bytes, bpp, mask, band_rows, get_group_id(0), get_local_id(0),
                    HC_PNG_FILTER_LANES, &loc);
}

/* The results go crcs_word words into `crcs` (the buffer is shared with the data). */
__kernel __attribute__((reqd_work_group_size(HC_CRC_LANES, 1, 1))) void png_crc32_pieces(
    __global const uchar* data, uint bytes, uint piece, uint skew, __global uint* crcs,
    uint crcs_word, uint count) {
  __local uint table[HC_CRC_TABLE_WORDS];
  hc_crc32_pieces(data, bytes, piece, skew, crcs + crcs_word, count, get_group_id(0),
                  get_local_id(0), HC_CRC_LANES, table);
}

/* A kernel per deflate stage (HC_DFL_STAGE_LIST): ITEM stages an item to a work-item, GROUP
 * stages an item to a work-group, their scratch in local memory. */
#define HC_DFL_KERNEL_ITEM(STAGE, NAME)                                                          \
  __kernel void NAME(__global const uchar* data, __global const uint* plan, __global uint* work, \
                     __global ushort* syms, __global uint* out, uint items) {                    \
    const uint i = get_global_id(0);                                                             \
    if (i < items) hc_dfl_run(STAGE, i, data, plan, work, syms, out, 0, 0, 1);                   \
  }
#define HC_DFL_KERNEL_GROUP(STAGE, NAME)                                                         \
  __kernel void NAME(__global const uchar* data, __global const uint* plan, __global uint* work, \
                     __global ushort* syms, __global uint* out, uint items) {                    \
    __local hc_dfl_state z;                                                                      \
    const uint i = get_group_id(0);                                                              \
    if (i < items)                                                                               \
      hc_dfl_run(STAGE, i, data, plan, work, syms, out, &z, get_local_id(0), get_local_size(0)); \
  }
#define HC_DFL_KERNEL(STAGE, NAME, KIND) HC_DFL_KERNEL_##KIND(STAGE, NAME)
HC_DFL_STAGE_LIST(HC_DFL_KERNEL)
