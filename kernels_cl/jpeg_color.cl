/* JPEG colour conversion entry point: core/portable/jpeg_decode.h's hc_jpeg_ycc_to_rgb on
 * OpenCL, a work-item per pixel. */
#include "core/portable/jpeg_decode.h"

__kernel void jpeg_ycc_to_rgb(__global const uchar* ycc, __global uchar* rgb, uint pixels) {
  hc_jpeg_ycc_to_rgb(ycc, rgb, pixels, get_global_id(0));
}
