/* Filters on device-resident images (DESIGN.md §3 "Filters"): AForge.NET's AdaptiveSmoothing,
 * its PerlinNoise (as an image, and blended into one as its Texturer does) and the Mandelbrot
 * set, one body for the CPU reference, CUDA and OpenCL.
 *
 * The arithmetic is float32 spelled so that every backend rounds alike, and so gives the same
 * bytes (DESIGN.md §4):
 * - every product and sum is one IEEE operation, never contracted into a fused multiply-add:
 *   HC_FMUL/HC_FADD/HC_FSUB are CUDA's __fmul_rn/__fadd_rn/__fsub_rn, which nvcc never fuses;
 *   OpenCL C compiles this file with FP_CONTRACT OFF; the CPU backend's file is compiled with
 *   -ffp-contract=off;
 * - no division (OpenCL's float division need not be correctly rounded) and no library exp or
 *   cos (each platform's differ in the last bits): hc_exp_neg and hc_cos_pi below use sums and
 *   products alone, and a quotient is found by bisection on products;
 * - no denormal values (OpenCL devices may flush them to zero): hc_exp_neg gives 0 below
 *   e^-87, and every value it gives is at least 2^-126.
 * Constants are written as literals (hexadecimal where a power of two), never folded from
 * divisions. Conversions between integers and floats round to nearest (int to float) or truncate (float
 * to int) on every backend. */
#ifndef HETCODEC_PORTABLE_FILTERS_H
#define HETCODEC_PORTABLE_FILTERS_H

#include "core/portable/kernel.h"

#if defined(__OPENCL_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#endif

#if defined(__CUDA_ARCH__)
#define HC_FMUL(a, b) __fmul_rn((a), (b))
#define HC_FADD(a, b) __fadd_rn((a), (b))
#define HC_FSUB(a, b) __fsub_rn((a), (b))
#else
#define HC_FMUL(a, b) ((a) * (b))
#define HC_FADD(a, b) ((a) + (b))
#define HC_FSUB(a, b) ((a) - (b))
#endif

/* The filters' kernels (backends: FilterKernels::run). */
#define HC_FILTER_SMOOTH 0
#define HC_FILTER_PERLIN 1
#define HC_FILTER_TEXTURE 2
#define HC_FILTER_MANDELBROT 3
#define HC_FILTER_KINDS 4

/* Adaptive smoothing: output tiles of HC_SMOOTH_TILE x HC_SMOOTH_TILE pixels, a work-group each,
 * read with their 2-pixel border into local memory once. */
#define HC_SMOOTH_TILE 16
#define HC_SMOOTH_HALO (HC_SMOOTH_TILE + 4)
#define HC_SMOOTH_LANES 256
/* The per-pixel kernels' work-group size. */
#define HC_FILTER_ITEM_LANES 256

/* Perlin noise output (hc_filter_params.mode). */
#define HC_PERLIN_U8 0  /* 8-bit gray: (v / 2 + 1/2) clamped to [0, 1], times 255, truncated */
#define HC_PERLIN_F32 1 /* the noise value itself, float32 */
/* Mandelbrot output (hc_filter_params.mode). */
#define HC_MANDEL_GRAY 0 /* 8-bit gray: 255 i / iterations, 0 inside the set */
#define HC_MANDEL_FIRE 1 /* RGB: that level through a black-red-yellow-white ramp */

/* A launch's parameters, passed by value (every field 4 bytes, so C++, CUDA and OpenCL C lay it
 * out alike). Which fields a kernel reads is said at each body. */
typedef struct hc_filter_params {
  hc_u32 width, height;
  hc_u32 channels; /* samples per pixel of the image */
  hc_u32 colours;  /* of which the first `colours` are filtered (the rest, alpha, kept) */
  hc_u32 tiles_x;  /* smoothing: tiles across */
  hc_u32 octaves;  /* Perlin */
  hc_u32 iterations;
  hc_u32 mode;
  float k;         /* smoothing: -1 / (8 factor^2); Perlin: persistence */
  float frequency; /* Perlin: initial frequency */
  float amplitude; /* Perlin: initial amplitude */
  float preserve;  /* texture: the share of the pixel kept */
  float filter;    /* texture: the share scaled by the texture */
  float cx, cy;    /* Mandelbrot: the centre of the view */
  float step;      /* Mandelbrot: the plane's distance between pixels */
} hc_filter_params;

/* e^x for x <= 0: x = n ln2 + r (Cody and Waite's two-part ln2, exact products for the n that
 * occur), e^r by its Taylor series to degree 7 (|r| <= 0.35: relative error below 1e-8 before
 * rounding), times 2^n built from exact products of powers of two. 0 below -87, where 2^n would
 * leave the normal range. */
HC_FN float hc_exp_neg(float x) {
  if (!(x >= -87.0f)) return 0.0f;
  const float v = HC_FADD(HC_FMUL(x, 1.44269504f), 0.5f);
  hc_i32 n = (hc_i32)v;
  if ((float)n > v) n -= 1; /* floor */
  const float fn = (float)n;
  const float r =
      HC_FSUB(HC_FSUB(x, HC_FMUL(fn, 0.693145751953125f)), HC_FMUL(fn, 1.428606765330187e-6f));
  float p = 1.98412698e-4f;
  p = HC_FADD(HC_FMUL(p, r), 1.38888889e-3f);
  p = HC_FADD(HC_FMUL(p, r), 8.33333333e-3f);
  p = HC_FADD(HC_FMUL(p, r), 4.16666667e-2f);
  p = HC_FADD(HC_FMUL(p, r), 0.166666667f);
  p = HC_FADD(HC_FMUL(p, r), 0.5f);
  p = HC_FADD(HC_FMUL(p, r), 1.0f);
  p = HC_FADD(HC_FMUL(p, r), 1.0f);
  /* 2^n, n in [-126, 0], by the bits of -n. */
  hc_u32 m = (hc_u32)(-n);
  float s = 1.0f;
  if (m & 64u) s = HC_FMUL(s, 0x1p-64f);
  if (m & 32u) s = HC_FMUL(s, 0x1p-32f);
  if (m & 16u) s = HC_FMUL(s, 0x1p-16f);
  if (m & 8u) s = HC_FMUL(s, 0.00390625f);
  if (m & 4u) s = HC_FMUL(s, 0.0625f);
  if (m & 2u) s = HC_FMUL(s, 0.25f);
  if (m & 1u) s = HC_FMUL(s, 0.5f);
  return HC_FMUL(p, s);
}

/* cos(pi t) for t in [0, 1]: -sin(pi (t - 1/2)), the sine by its Taylor series to degree 13
 * (error below 1e-9 on [-pi/2, pi/2] before rounding). */
HC_FN float hc_cos_pi(float t) {
  const float s = HC_FMUL(HC_FSUB(t, 0.5f), 3.14159265f);
  const float z = HC_FMUL(s, s);
  float p = -1.60590438e-10f;
  p = HC_FADD(HC_FMUL(p, z), 2.50521084e-8f);
  p = HC_FSUB(HC_FMUL(p, z), 2.75573192e-6f);
  p = HC_FADD(HC_FMUL(p, z), 1.98412698e-4f);
  p = HC_FSUB(HC_FMUL(p, z), 8.33333333e-3f);
  p = HC_FADD(HC_FMUL(p, z), 0.166666667f);
  p = HC_FSUB(HC_FMUL(p, z), 1.0f);
  return HC_FMUL(p, s); /* -(s - s^3/6 + ...) */
}

/* ---- adaptive smoothing -------------------------------------------------------------------- */

/* One sample of AForge's AdaptiveSmoothing at (x, y), 2 <= x < width - 2, 2 <= y < height - 2:
 * the 9 weights w = exp(-(Gx^2 + Gy^2) / (8 factor^2)) of the pixel and its neighbours, Gx and
 * Gy the differences of the samples two apart (AForge's "optimised" form of its formula with
 * halved gradients), and sum(w I) / sum(w) truncated to 8 bits, in AForge's order of the
 * neighbours. The weights are taken relative to the largest, e^(x - max x) (the quotient is the
 * same), so that they do not all vanish where float32's e^x would underflow and double's not;
 * where double's would (every exponent below -745.13, AForge's weightTotal == 0), the sample is
 * kept as AForge keeps it. `k` is -1 / (8 factor^2). */
#define HC_SMOOTH_TERM(j, gx, gy, v)                   \
  do {                                                 \
    const hc_i32 gx_ = (gx), gy_ = (gy);               \
    e[j] = HC_FMUL((float)(gx_ * gx_ + gy_ * gy_), k); \
    s[j] = (float)(v);                                 \
    top = e[j] > top ? e[j] : top;                     \
  } while (0)

/* The samples of one channel in local memory: row stride `rs`, sample stride `ps`, `c` the
 * centre's index. */
HC_FN hc_u32 hc_smooth_sample(const HC_LOCAL hc_u8* t, hc_i32 c, hc_i32 ps, hc_i32 rs, float k) {
#define S(dx, dy) ((hc_i32)t[c + (dx)*ps + (dy)*rs])
  float e[9], s[9], top = -3.0e38f;
  HC_SMOOTH_TERM(0, S(0, -1) - S(-2, -1), S(-1, 0) - S(-1, -2), S(-1, -1));
  HC_SMOOTH_TERM(1, S(1, -1) - S(-1, -1), S(0, 0) - S(0, -2), S(0, -1));
  HC_SMOOTH_TERM(2, S(2, -1) - S(0, -1), S(1, 0) - S(1, -2), S(1, -1));
  HC_SMOOTH_TERM(3, S(0, 0) - S(-2, 0), S(-1, 1) - S(-1, -1), S(-1, 0));
  HC_SMOOTH_TERM(4, S(1, 0) - S(-1, 0), S(0, 1) - S(0, -1), S(0, 0));
  HC_SMOOTH_TERM(5, S(2, 0) - S(0, 0), S(1, 1) - S(1, -1), S(1, 0));
  HC_SMOOTH_TERM(6, S(0, 1) - S(-2, 1), S(-1, 2) - S(-1, 0), S(-1, 1));
  HC_SMOOTH_TERM(7, S(1, 1) - S(-1, 1), S(0, 2) - S(0, 0), S(0, 1));
  HC_SMOOTH_TERM(8, S(2, 1) - S(0, 1), S(1, 2) - S(1, 0), S(1, 1));
  if (top < -745.13f) return (hc_u32)S(0, 0);
#undef S
  float total = 0.0f, weights = 0.0f;
  for (int j = 0; j < 9; ++j) {
    const float w = hc_exp_neg(HC_FSUB(e[j], top));
    total = HC_FADD(total, HC_FMUL(w, s[j]));
    weights = HC_FADD(weights, w);
  }
  /* min(total / weights, 255), truncated: the largest q <= 255 with q weights <= total. */
  hc_u32 q = 0;
  for (hc_u32 bit = 128u; bit != 0u; bit >>= 1)
    if (HC_FMUL((float)(q + bit), weights) <= total) q += bit;
  return q;
}

typedef struct {
  hc_u8 px[HC_SMOOTH_HALO * HC_SMOOTH_HALO * 4];
} hc_smooth_local;

/* GROUP body: the output tile `group` (tiles_x across), its pixels read with a 2-pixel border
 * into local memory (samples outside the image read as the nearest edge's, and never used),
 * then each pixel of the tile by a lane: the 2-pixel frame of the image and the samples past
 * `colours` copied, the others smoothed. Reads width, height, channels, colours, tiles_x, k. */
HC_FN void hc_filter_smooth(const HC_GLOBAL hc_u8* src, HC_GLOBAL hc_u8* dst, hc_filter_params p,
                            hc_u32 group, hc_u32 lane, hc_u32 lanes,
                            HC_LOCAL hc_smooth_local* loc) {
  const hc_i32 w = (hc_i32)p.width, h = (hc_i32)p.height, ch = (hc_i32)p.channels;
  /* (Quotients and remainders as a division and a product: compilers pair a / with its % through
   * an LLVM `freeze`, which Oclgrind cannot run.) */
  const hc_u32 tile_row = group / p.tiles_x;
  const hc_i32 x0 = (hc_i32)(group - tile_row * p.tiles_x) * HC_SMOOTH_TILE;
  const hc_i32 y0 = (hc_i32)tile_row * HC_SMOOTH_TILE;
  for (hc_u32 i = lane; i < HC_SMOOTH_HALO * HC_SMOOTH_HALO; i += lanes) {
    const hc_u32 row = i / HC_SMOOTH_HALO;
    hc_i32 x = x0 - 2 + (hc_i32)(i - row * HC_SMOOTH_HALO), y = y0 - 2 + (hc_i32)row;
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    const HC_GLOBAL hc_u8* s = src + ((hc_u64)y * (hc_u64)w + (hc_u64)x) * (hc_u64)ch;
    for (hc_i32 c = 0; c < ch; ++c) loc->px[i * 4u + (hc_u32)c] = s[c];
  }
  HC_BARRIER();
  for (hc_u32 i = lane; i < HC_SMOOTH_TILE * HC_SMOOTH_TILE; i += lanes) {
    const hc_i32 tx = (hc_i32)(i % HC_SMOOTH_TILE), ty = (hc_i32)(i / HC_SMOOTH_TILE);
    const hc_i32 x = x0 + tx, y = y0 + ty;
    if (x >= w || y >= h) continue;
    const hc_i32 centre = ((ty + 2) * HC_SMOOTH_HALO + tx + 2) * 4;
    const int inside = x >= 2 && y >= 2 && x < w - 2 && y < h - 2;
    HC_GLOBAL hc_u8* d = dst + ((hc_u64)y * (hc_u64)w + (hc_u64)x) * (hc_u64)ch;
    for (hc_i32 c = 0; c < ch; ++c)
      d[c] = (inside && c < (hc_i32)p.colours)
                 ? (hc_u8)hc_smooth_sample(loc->px, centre + c, 4, HC_SMOOTH_HALO * 4, p.k)
                 : loc->px[centre + c];
  }
}

/* ---- Perlin noise -------------------------------------------------------------------------- */

/* AForge's Noise(x, y): an integer hash mapped to (-1, 1]. C#'s int arithmetic wraps; here it
 * is unsigned, which wraps alike. */
HC_FN float hc_perlin_noise(hc_i32 x, hc_i32 y) {
  hc_u32 n = (hc_u32)x + (hc_u32)y * 57u;
  n = (n << 13) ^ n;
  const hc_u32 t = (n * (n * n * 15731u + 789221u) + 1376312589u) & 0x7fffffffu;
  return HC_FSUB(1.0f, HC_FMUL((float)(hc_i32)t, 0x1p-30f)); /* / 2^30 */
}

/* AForge's CosineInterpolate(a, b, t). */
HC_FN float hc_perlin_cosine(float a, float b, float t) {
  const float f = HC_FMUL(HC_FSUB(1.0f, hc_cos_pi(t)), 0.5f);
  return HC_FADD(HC_FMUL(a, HC_FSUB(1.0f, f)), HC_FMUL(b, f));
}

/* AForge's SmoothedNoise(x, y) for x, y >= 0 (C#'s (int) truncates, as here). */
HC_FN float hc_perlin_smoothed(float x, float y) {
  const hc_i32 xi = (hc_i32)x, yi = (hc_i32)y;
  const float xf = HC_FSUB(x, (float)xi), yf = HC_FSUB(y, (float)yi);
  const float v1 = hc_perlin_cosine(hc_perlin_noise(xi, yi), hc_perlin_noise(xi + 1, yi), xf);
  const float v2 =
      hc_perlin_cosine(hc_perlin_noise(xi, yi + 1), hc_perlin_noise(xi + 1, yi + 1), xf);
  return hc_perlin_cosine(v1, v2, yf);
}

/* AForge's Function2D(x, y): the octaves' smoothed noise, the frequency doubled and the
 * amplitude times the persistence from one to the next. Reads octaves, frequency, amplitude and
 * k (the persistence). */
HC_FN float hc_perlin_2d(hc_filter_params p, float x, float y) {
  float frequency = p.frequency, amplitude = p.amplitude, sum = 0.0f;
  for (hc_u32 i = 0; i < p.octaves; ++i) {
    sum = HC_FADD(
        sum, HC_FMUL(hc_perlin_smoothed(HC_FMUL(x, frequency), HC_FMUL(y, frequency)), amplitude));
    frequency = HC_FMUL(frequency, 2.0f);
    amplitude = HC_FMUL(amplitude, p.k);
  }
  return sum;
}

/* A noise value as a texture level in [0, 1], as AForge's textures map it: v / 2 + 1/2. */
HC_FN float hc_perlin_level(float v) {
  const float t = HC_FADD(HC_FMUL(v, 0.5f), 0.5f);
  return t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
}

/* ITEM body: the noise at pixel `i` (x, y its column and row), written as mode says: an 8-bit
 * level, or the float32 value (4 bytes, the host's byte order). Reads width, height, mode and
 * hc_perlin_2d's fields. */
HC_FN void hc_filter_perlin(HC_GLOBAL hc_u8* dst, hc_filter_params p, hc_u32 i) {
  if (i >= p.width * p.height) return;
  const hc_u32 y = i / p.width;
  const float v = hc_perlin_2d(p, (float)(i - y * p.width), (float)y);
  if (p.mode == HC_PERLIN_F32)
    ((HC_GLOBAL float*)dst)[i] = v;
  else
    dst[i] = (hc_u8)(hc_u32)HC_FMUL(hc_perlin_level(v), 255.0f);
}

/* ITEM body: AForge's Texturer with the noise as its texture, at pixel `i`: each of the first
 * `colours` samples s becomes min(255, preserve s + filter s t), t the pixel's texture level,
 * truncated; the others are kept. Reads width, height, channels, colours, preserve, filter and
 * hc_perlin_2d's fields. */
HC_FN void hc_filter_texture(const HC_GLOBAL hc_u8* src, HC_GLOBAL hc_u8* dst, hc_filter_params p,
                             hc_u32 i) {
  if (i >= p.width * p.height) return;
  const hc_u32 y = i / p.width;
  const float t = hc_perlin_level(hc_perlin_2d(p, (float)(i - y * p.width), (float)y));
  const hc_u64 at = (hc_u64)i * (hc_u64)p.channels;
  for (hc_u32 c = 0; c < p.channels; ++c) {
    const hc_u8 s = src[at + c];
    if (c < p.colours) {
      const float fs = (float)s;
      float v = HC_FADD(HC_FMUL(p.preserve, fs), HC_FMUL(HC_FMUL(p.filter, fs), t));
      if (v > 255.0f) v = 255.0f;
      dst[at + c] = (hc_u8)(hc_u32)v;
    } else {
      dst[at + c] = s;
    }
  }
}

/* ---- Mandelbrot ---------------------------------------------------------------------------- */

/* Iterations of z <- z^2 + c from z = 0 before |z| > 2, up to `iterations`. */
HC_FN hc_u32 hc_mandelbrot_count(float cr, float ci, hc_u32 iterations) {
  float zr = 0.0f, zi = 0.0f;
  hc_u32 n = 0;
  for (; n < iterations; ++n) {
    const float zr2 = HC_FMUL(zr, zr), zi2 = HC_FMUL(zi, zi);
    if (HC_FADD(zr2, zi2) > 4.0f) break;
    zi = HC_FADD(HC_FMUL(HC_FMUL(2.0f, zr), zi), ci);
    zr = HC_FADD(HC_FSUB(zr2, zi2), cr);
  }
  return n;
}

/* ITEM body: pixel `i` of the view: c = centre + (x + 1/2 - width/2, -(y + 1/2 - height/2))
 * step, its count as an 8-bit level (255 n / iterations; 0 inside the set), gray or through the
 * fire ramp (RGB). Reads width, height, iterations, mode, cx, cy, step. */
HC_FN void hc_filter_mandelbrot(HC_GLOBAL hc_u8* dst, hc_filter_params p, hc_u32 i) {
  if (i >= p.width * p.height) return;
  const hc_u32 y = i / p.width;
  const float dx = HC_FSUB(HC_FADD((float)(i - y * p.width), 0.5f), HC_FMUL((float)p.width, 0.5f));
  const float dy = HC_FSUB(HC_FADD((float)y, 0.5f), HC_FMUL((float)p.height, 0.5f));
  const hc_u32 n = hc_mandelbrot_count(HC_FADD(p.cx, HC_FMUL(dx, p.step)),
                                       HC_FSUB(p.cy, HC_FMUL(dy, p.step)), p.iterations);
  const hc_u32 v = n >= p.iterations ? 0u : (hc_u32)(((hc_u64)n * 255u) / p.iterations);
  if (p.mode == HC_MANDEL_FIRE) {
    /* (Clamps of signed values: `r > c ? r - c : 0` compiles to a saturating subtraction that
     * Oclgrind cannot run.) */
    const hc_i32 r = (hc_i32)v * 3;
    const hc_u32 at = i * 3u;
    dst[at] = (hc_u8)hc_clamp_u8(r);
    dst[at + 1] = (hc_u8)hc_clamp_u8(r - 255);
    dst[at + 2] = (hc_u8)hc_clamp_u8(r - 510);
  } else {
    dst[i] = (hc_u8)v;
  }
}

#endif /* HETCODEC_PORTABLE_FILTERS_H */
