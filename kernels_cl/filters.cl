/* Filter entry points: the bodies of core/portable/filters.h on OpenCL (which compiles them with
 * FP_CONTRACT OFF), each a work-group of its launch plan's lanes (backends/launch_plan.h). The
 * kernels that read no input are given the output buffer as `src`. */
#include "core/portable/filters.h"

__kernel __attribute__((reqd_work_group_size(HC_SMOOTH_LANES, 1, 1))) void filter_smooth(
    __global const uchar* src, ulong src_offset, __global uchar* dst, ulong dst_offset,
    hc_filter_params p) {
  __local hc_smooth_local loc;
  hc_filter_smooth(src + src_offset, dst + dst_offset, p, get_group_id(0), get_local_id(0),
                   HC_SMOOTH_LANES, &loc);
}

__kernel void filter_perlin(__global const uchar* src, ulong src_offset, __global uchar* dst,
                            ulong dst_offset, hc_filter_params p) {
  hc_filter_perlin(dst + dst_offset, p, get_global_id(0));
}

__kernel void filter_texture(__global const uchar* src, ulong src_offset, __global uchar* dst,
                             ulong dst_offset, hc_filter_params p) {
  hc_filter_texture(src + src_offset, dst + dst_offset, p, get_global_id(0));
}

__kernel void filter_mandelbrot(__global const uchar* src, ulong src_offset, __global uchar* dst,
                                ulong dst_offset, hc_filter_params p) {
  hc_filter_mandelbrot(dst + dst_offset, p, get_global_id(0));
}
