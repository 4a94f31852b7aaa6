/* One spelling, for kernel bodies in core/portable, of what CUDA, OpenCL C and the CPU reference
 * say differently (STYLE.md "One kernel body"): barriers, memory fences, the atomics the bodies
 * use, restrict and unrolling. A body is a function of (parameters, group, lane, lanes, local
 * scratch): the entry points in kernels_cu and kernels_cl call it with the block or work-group
 * index, the thread or work-item index and count, and their __shared__ or __local scratch; the
 * CPU backend calls it for every group with lane 0 of 1 (so a barrier is nothing there, and a body's loops
 * over its lanes' share of the work, `for (i = lane; i < n; i += lanes)`, cover all of it).
 *
 * Fences follow one model on every device: HC_FENCE_GLOBAL() orders a work-item's global writes
 * before its later ones (release, before publishing a flag) and its later global reads after
 * earlier ones (acquire, after seeing a flag): __threadfence() on CUDA, mem_fence on OpenCL, a
 * sequentially consistent fence on the CPU. */
#ifndef HETCODEC_PORTABLE_KERNEL_H
#define HETCODEC_PORTABLE_KERNEL_H

#include "core/portable/common.h"

#define HC_PRAGMA(x) _Pragma(#x)

#if defined(__OPENCL_VERSION__)
#define HC_ON_DEVICE 1
#define HC_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define HC_BARRIER_GLOBAL() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define HC_FENCE_GLOBAL() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define HC_ATOMIC_ADD(p, v) atomic_add((volatile __global uint*)(p), (v))
#define HC_ATOMIC_OR(p, v) atomic_or((volatile __global uint*)(p), (v))
#define HC_ATOMIC_XCHG(p, v) atomic_xchg((volatile __global uint*)(p), (v))
#define HC_ATOMIC_ADD_LOCAL(p, v) atomic_add((volatile __local uint*)(p), (v))
#define HC_ATOMIC_OR_LOCAL(p, v) atomic_or((volatile __local uint*)(p), (v))
#define HC_CLZ(x) clz((uint)(x))
#define HC_RESTRICT restrict
#define HC_UNROLL(n) HC_PRAGMA(unroll n)
#elif defined(__CUDA_ARCH__)
#define HC_ON_DEVICE 1
#define HC_BARRIER() __syncthreads()
#define HC_BARRIER_GLOBAL() __syncthreads()
#define HC_FENCE_GLOBAL() __threadfence()
#define HC_ATOMIC_ADD(p, v) atomicAdd((unsigned int*)(p), (unsigned int)(v))
#define HC_ATOMIC_OR(p, v) atomicOr((unsigned int*)(p), (unsigned int)(v))
#define HC_ATOMIC_XCHG(p, v) atomicExch((unsigned int*)(p), (unsigned int)(v))
#define HC_ATOMIC_ADD_LOCAL(p, v) atomicAdd((unsigned int*)(p), (unsigned int)(v))
#define HC_ATOMIC_OR_LOCAL(p, v) atomicOr((unsigned int*)(p), (unsigned int)(v))
#define HC_CLZ(x) __clz((int)(x))
#define HC_RESTRICT __restrict__
#define HC_UNROLL(n) HC_PRAGMA(unroll n)
#else
/* The CPU reference (and the host pass of nvcc, which compiles but never runs these). */
#define HC_ON_DEVICE 0
#define HC_BARRIER() ((void)0)
#define HC_BARRIER_GLOBAL() ((void)0)
#define HC_FENCE_GLOBAL() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define HC_ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define HC_ATOMIC_OR(p, v) __atomic_fetch_or((p), (v), __ATOMIC_RELAXED)
#define HC_ATOMIC_XCHG(p, v) __atomic_exchange_n((p), (v), __ATOMIC_RELAXED)
#define HC_ATOMIC_ADD_LOCAL(p, v) (*(p) += (v))
#define HC_ATOMIC_OR_LOCAL(p, v) (*(p) |= (v))
#define HC_CLZ(x) ((x) ? __builtin_clz(x) : 32) /* (leading zero bits of a 32-bit x: 32 for 0) */
#define HC_RESTRICT __restrict
#if defined(__CUDACC__)
#define HC_UNROLL(n) /* (nvcc's host pass: never runs) */
#elif defined(__clang__)
#define HC_UNROLL(n) HC_PRAGMA(unroll n)
#else
#define HC_UNROLL(n) HC_PRAGMA(GCC unroll n)
#endif
#endif

HC_FN hc_u32 hc_min_u32(hc_u32 a, hc_u32 b) { return a < b ? a : b; }

#endif /* HETCODEC_PORTABLE_KERNEL_H */
