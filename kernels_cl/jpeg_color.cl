/* JPEG colour conversion: planar YCbCr -> interleaved RGB with libjpeg-turbo's fixed-point
 * arithmetic (core/portable/jpeg_color.h). Twin of kernels_cu/jpeg_color.cu and
 * backends/cpu/jpeg_color.cpp. One work-item per pixel. */
#include "core/portable/jpeg_color.h"

__kernel void jpeg_ycc_to_rgb(__global const uchar* ycc, __global uchar* rgb, uint pixels) {
  uint i = get_global_id(0);
  if (i >= pixels) return;
  int y = ycc[i];
  int cb = ycc[pixels + i];
  int cr = ycc[2 * pixels + i];
  rgb[3 * i + 0] = (uchar)hc_ycc_red(y, cr);
  rgb[3 * i + 1] = (uchar)hc_ycc_green(y, cb, cr);
  rgb[3 * i + 2] = (uchar)hc_ycc_blue(y, cb);
}
