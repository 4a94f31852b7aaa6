/* Definitions that let core/portable compile as C++, CUDA and OpenCL C alike (DESIGN.md §1,
 * STYLE.md "shared arithmetic"). Only the common subset is used: fixed-width integer typedefs,
 * one function qualifier, no templates, no references, no standard library. */
#ifndef HETCODEC_PORTABLE_COMMON_H
#define HETCODEC_PORTABLE_COMMON_H

#if defined(__OPENCL_VERSION__)
typedef char hc_i8;
typedef uchar hc_u8;
typedef short hc_i16;
typedef ushort hc_u16;
typedef int hc_i32;
typedef uint hc_u32;
typedef ulong hc_u64;
#define HC_FN static inline
#define HC_FORCE_FN static inline
#define HC_NOINLINE_FN static inline __attribute__((noinline))
#define HC_GLOBAL __global
#define HC_LOCAL __local
#define HC_CONSTANT __constant
#else
#include <stdint.h>
typedef int8_t hc_i8;
typedef uint8_t hc_u8;
typedef int16_t hc_i16;
typedef uint16_t hc_u16;
typedef int32_t hc_i32;
typedef uint32_t hc_u32;
typedef uint64_t hc_u64;
#if defined(__CUDACC__)
#define HC_FN static __host__ __device__ __forceinline__
#define HC_FORCE_FN HC_FN
#define HC_NOINLINE_FN static inline __host__ __device__ __noinline__
#else
#define HC_FN static inline
#define HC_FORCE_FN static inline __attribute__((always_inline))
#define HC_NOINLINE_FN static inline __attribute__((noinline))
#endif
/* HC_FORCE_FN: a function inlined on the CPU too (where HC_FN leaves it to the compiler), for
 * one whose constant arguments must fold at each call, as the sample width of the JPEG colour
 * stage. HC_NOINLINE_FN: a function kept out of line, for a rare path (12-bit JPEG) whose inlined
 * body would raise the register count of the common one's kernel. */
/* Address-space qualifiers: OpenCL C needs them on pointers; C++ and CUDA use plain pointers
 * (CUDA's generic addressing reaches shared and global memory alike). */
#define HC_GLOBAL
#define HC_LOCAL
#define HC_CONSTANT const
#endif

/* Arithmetic right shift of a signed value. C, C++17 and OpenCL C leave >> on negative values
 * implementation-defined; every compiler we target (gcc, clang, nvcc, PoCL, NVIDIA OpenCL,
 * Oclgrind) shifts arithmetically, as libjpeg-turbo's RIGHT_SHIFT also assumes. */
#define HC_RIGHT_SHIFT(x, n) ((x) >> (n))

HC_FN hc_i32 hc_clamp_u8(hc_i32 v) { return v < 0 ? 0 : (v > 255 ? 255 : v); }

#endif /* HETCODEC_PORTABLE_COMMON_H */
