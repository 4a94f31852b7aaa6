/* Device Huffman decoding entry points: the bodies of core/portable/jpeg_huffman.h on OpenCL, a
 * kernel per stage (HC_JH_STAGE_LIST): ITEM stages an item to a work-item, GROUP stages an item
 * to a work-group, its scratch in local memory. */
#include "core/portable/jpeg_huffman.h"

#define HC_JH_KERNEL_ITEM(STAGE, NAME)                                                           \
  __kernel void NAME(__global const uint* plan, __global const uchar* data, __global uint* work, \
                     __global short* coefs, uint arg, uint items) {                              \
    const uint i = get_global_id(0);                                                             \
    if (i < items) hc_jh_run(STAGE, arg, i, plan, data, work, coefs, 0, 0, 1);                   \
  }
#define HC_JH_KERNEL_GROUP(STAGE, NAME)                                                          \
  __kernel __attribute__((reqd_work_group_size(HC_JH_GROUP_LANES, 1, 1))) void NAME(             \
      __global const uint* plan, __global const uchar* data, __global uint* work,                \
      __global short* coefs, uint arg, uint items) {                                             \
    __local hc_jh_local z;                                                                       \
    const uint i = get_group_id(0);                                                              \
    if (i < items)                                                                               \
      hc_jh_run(STAGE, arg, i, plan, data, work, coefs, &z, get_local_id(0), get_local_size(0)); \
  }
#define HC_JH_KERNEL(STAGE, NAME, KIND) HC_JH_KERNEL_##KIND(STAGE, NAME)
HC_JH_STAGE_LIST(HC_JH_KERNEL)
