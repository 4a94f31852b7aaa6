/* JPEG decode entry points: the bodies of core/portable/jpeg_decode.h on OpenCL, each a
 * work-group of its launch plan's lanes (backends/launch_plan.h). A job starts job_word words
 * into its buffer (the batch engine copies several jobs at once, side by side); an image's
 * pixels start out_offset bytes into the output buffer. The two-stage path's kernels run the
 * items [first, end) of their launch (a crop replayed by hetcodec debug). */
#include "core/portable/jpeg_decode.h"

__kernel __attribute__((reqd_work_group_size(HC_JPEG_GROUP_LANES, 1, 1))) void jpeg_decode_idct(
    __global const uint* job_buffer, uint job_word, __global uchar* planes) {
  __local hc_jpeg_group_local loc;
  hc_jpeg_decode_idct(job_buffer + job_word, get_group_id(0), planes, get_local_id(0),
                      HC_JPEG_GROUP_LANES, &loc);
}

__kernel __attribute__((reqd_work_group_size(HC_JPEG_GROUP_LANES, 1, 1))) void
jpeg_decode_idct_chunk(__global const uint* job_buffer, uint table_word, __global uchar* planes) {
  __local hc_jpeg_group_local loc;
  hc_jpeg_decode_idct_chunk(job_buffer, table_word, get_group_id(0), planes, get_local_id(0),
                            HC_JPEG_GROUP_LANES, &loc);
}

__kernel __attribute__((reqd_work_group_size(HC_JPEG_GROUP_LANES, 1, 1))) void jpeg_decode_tokens(
    __global const uint* job_buffer, uint job_word, __global short* coefficients,
    uint first_group) {
  hc_jpeg_decode_tokens(job_buffer + job_word, first_group + get_group_id(0), coefficients,
                        get_local_id(0), HC_JPEG_GROUP_LANES);
}

__kernel void jpeg_idct(__global const uint* job_buffer, uint job_word,
                        __global const short* coefficients, __global uchar* planes,
                        uint end_block, uint first_block) {
  hc_jpeg_idct(job_buffer + job_word, coefficients, planes, end_block,
               first_block + get_global_id(0));
#ifdef HC_TEST_RACE
  /* Test-only (built with HETCODEC_TEST_OPENCL_RACE=1): every work-item also writes the first
   * sample, a data race for the tests of hetcodec debug replay to find under Oclgrind. */
  if (first_block + get_global_id(0) < end_block) planes[0] = (uchar)get_global_id(0);
#endif
}

__kernel void jpeg_upsample_color(__global const uint* job_buffer, uint job_word,
                                  __global const uchar* planes, __global uchar* out,
                                  ulong out_offset, uint end_pixel, uint first_pixel) {
  hc_jpeg_upsample_color(job_buffer + job_word, planes, out + out_offset, end_pixel,
                         first_pixel + get_global_id(0));
}

__kernel __attribute__((reqd_work_group_size(HC_CHUNK_TILE, 1, 1))) void jpeg_upsample_color_chunk(
    __global const uint* job_buffer, uint table_word, __global const uchar* planes,
    __global uchar* out) {
  hc_jpeg_upsample_color_chunk(job_buffer, table_word, get_group_id(0), planes, out,
                               get_local_id(0));
}
