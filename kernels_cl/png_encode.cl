/* PNG encode stages (core/portable/png_filter.h). Twin of kernels_cu/png_encode.cu and
 * backends/cpu/png_kernels.cpp. png_filter_rows: one work-group of 256 per row; each work-item
 * scores its bytes under the five filters, the group reduces the scores, picks libpng's filter
 * and writes the filtered row. png_deflate_*: one work-item per item of a stage of the device
 * deflate (core/portable/png_deflate.h). */
#include "core/portable/png_crc.h"
#include "core/portable/png_deflate.h"
#include "core/portable/png_filter.h"

#define HC_FILTER_ITEMS 256

__kernel __attribute__((reqd_work_group_size(HC_FILTER_ITEMS, 1, 1)))
void png_filter_rows(__global const uchar* rows, __global uchar* out, uint row_bytes, uint bpp,
                     uint mask, uint band_rows) {
  __local ulong part[HC_PNG_FILTERS * HC_FILTER_ITEMS];
  __local int choice;
  const uint y = get_group_id(0), tid = get_local_id(0);
  __global const uchar* row = rows + (size_t)y * row_bytes;
  __global const uchar* prev = y ? row - row_bytes : row;
  ulong s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (uint i = tid; i < row_bytes; i += HC_FILTER_ITEMS) {
    s0 += hc_png_score(hc_png_filter_byte(0, row, prev, y > 0, i, bpp));
    s1 += hc_png_score(hc_png_filter_byte(1, row, prev, y > 0, i, bpp));
    s2 += hc_png_score(hc_png_filter_byte(2, row, prev, y > 0, i, bpp));
    s3 += hc_png_score(hc_png_filter_byte(3, row, prev, y > 0, i, bpp));
    s4 += hc_png_score(hc_png_filter_byte(4, row, prev, y > 0, i, bpp));
  }
  part[0 * HC_FILTER_ITEMS + tid] = s0;
  part[1 * HC_FILTER_ITEMS + tid] = s1;
  part[2 * HC_FILTER_ITEMS + tid] = s2;
  part[3 * HC_FILTER_ITEMS + tid] = s3;
  part[4 * HC_FILTER_ITEMS + tid] = s4;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint step = HC_FILTER_ITEMS / 2; step > 0; step >>= 1) {
    if (tid < step)
      for (int t = 0; t < HC_PNG_FILTERS; ++t)
        part[t * HC_FILTER_ITEMS + tid] += part[t * HC_FILTER_ITEMS + tid + step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0)
    choice = hc_png_pick(part[0], part[HC_FILTER_ITEMS], part[2 * HC_FILTER_ITEMS],
                         part[3 * HC_FILTER_ITEMS], part[4 * HC_FILTER_ITEMS],
                         hc_png_row_mask(mask, band_rows, y));
  barrier(CLK_LOCAL_MEM_FENCE);
  const int best = choice;
  __global uchar* o = out + (size_t)y * ((size_t)row_bytes + 1);
  if (tid == 0) o[0] = (uchar)best;
  for (uint i = tid; i < row_bytes; i += HC_FILTER_ITEMS)
    o[1 + i] = hc_png_filter_byte(best, row, prev, y > 0, i, bpp);
}

#define HC_DFL_KERNEL(NAME, STAGE)                                                          \
  __kernel void NAME(__global const uchar* data, __global const uint* plan,                 \
                     __global uint* work, __global ushort* syms, __global uint* out,       \
                     uint items) {                                                          \
    const uint i = get_global_id(0);                                                        \
    if (i < items) hc_dfl_run(STAGE, i, data, plan, work, syms, out, 0, 0, 1);              \
  }
HC_DFL_KERNEL(png_deflate_clear, HC_DFL_CLEAR)
HC_DFL_KERNEL(png_deflate_count, HC_DFL_COUNT)
HC_DFL_KERNEL(png_deflate_scan_chunks, HC_DFL_SCAN_CHUNKS)
HC_DFL_KERNEL(png_deflate_scan, HC_DFL_SCAN)
HC_DFL_KERNEL(png_deflate_emit, HC_DFL_EMIT)
HC_DFL_KERNEL(png_deflate_layout, HC_DFL_LAYOUT)
HC_DFL_KERNEL(png_deflate_offsets, HC_DFL_OFFSETS)
HC_DFL_KERNEL(png_deflate_bits, HC_DFL_BITS)
HC_DFL_KERNEL(png_deflate_pack_blocks, HC_DFL_PACK_BLOCKS)
HC_DFL_KERNEL(png_deflate_pack, HC_DFL_PACK)

/* The work-group stages (a histogram; zlib's trees; a scan): an item to a work-group, its scratch in
 * local memory. */
#define HC_DFL_GROUP_KERNEL(NAME, STAGE)                                                    \
  __kernel void NAME(__global const uchar* data, __global const uint* plan,                 \
                     __global uint* work, __global ushort* syms, __global uint* out,       \
                     uint items) {                                                          \
    __local hc_dfl_state z;                                                                 \
    const uint i = get_group_id(0);                                                         \
    if (i < items)                                                                          \
      hc_dfl_run(STAGE, i, data, plan, work, syms, out, &z, get_local_id(0),              \
                 get_local_size(0));                                                        \
  }
HC_DFL_GROUP_KERNEL(png_deflate_hist, HC_DFL_HIST)
HC_DFL_GROUP_KERNEL(png_deflate_block, HC_DFL_BLOCK)
HC_DFL_GROUP_KERNEL(png_deflate_place, HC_DFL_PLACE)

/* CRC-32 of pieces of the deflate stream (core/portable/png_crc.h), one work-item each, the
 * work-group's tables in local memory. */
__kernel void png_crc32_pieces(__global const uchar* data, uint bytes, uint piece, uint skew,
                               __global uint* crcs, uint first_word, uint count) {
  __local uint table[HC_CRC_TABLE_WORDS];
  for (uint e = get_local_id(0); e < HC_CRC_TABLE_WORDS; e += get_local_size(0))
    table[e] = hc_crc32_table_entry(e);
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint j = get_global_id(0);
  if (j < count) crcs[first_word + j] = hc_crc32_piece(data, bytes, piece, skew, j, table);
}
