/* JPEG encode entry points: the bodies of core/portable/jpeg_encode.h on OpenCL, a kernel per
 * stage (HC_JENC_STAGE_LIST): ITEM stages an item to a work-item, GROUP stages an item to a
 * work-group, their scratch in local memory. */
#include "core/portable/jpeg_encode.h"

#define HC_JENC_KERNEL_ITEM(STAGE, NAME)                                                           \
  __kernel void NAME(__global const uchar* pixels, __global const uint* plan, __global uint* work, \
                     __global uint* data, __global short* coefs, __global uchar* out, uint arg,    \
                     uint items) {                                                                 \
    const uint i = get_global_id(0);                                                               \
    if (i < items) hc_jenc_run(STAGE, arg, i, pixels, plan, work, data, coefs, out, 0, 0, 1);     \
  }
#define HC_JENC_KERNEL_GROUP(STAGE, NAME)                                                          \
  __kernel __attribute__((reqd_work_group_size(HC_JENC_GROUP_LANES, 1, 1))) void NAME(             \
      __global const uchar* pixels, __global const uint* plan, __global uint* work,                \
      __global uint* data, __global short* coefs, __global uchar* out, uint arg, uint items) {     \
    __local hc_jenc_local z;                                                                       \
    const uint i = get_group_id(0);                                                                \
    if (i < items)                                                                                 \
      hc_jenc_run(STAGE, arg, i, pixels, plan, work, data, coefs, out, &z, get_local_id(0),       \
                  get_local_size(0));                                                              \
  }
#define HC_JENC_KERNEL(STAGE, NAME, KIND) HC_JENC_KERNEL_##KIND(STAGE, NAME)
HC_JENC_STAGE_LIST(HC_JENC_KERNEL)
