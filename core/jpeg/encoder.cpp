// The CPU reference JPEG encoder (core/jpeg/encoder.h): libjpeg-turbo 2.1.5's arithmetic step by
// step up to the coded blocks (colour conversion: jccolor.c rgb_ycc_convert and rgb_gray_convert;
// edge padding and downsampling: jcprepct.c, jcsample.c; the integer FDCT: jfdctint.c;
// quantisation: jcdctmgr.c; zigzag and the dummy blocks of partial MCUs: jccoefct.c, ITU-T T.81
// A.2.4), then the plan's markers (encode_plan.cpp) and the shared entropy coder
// (encode_entropy.cpp).
#include "core/jpeg/encoder.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/portable/jpeg_zigzag.h"

namespace hetcodec::jpeg {
namespace {

// jfdctint.c's jpeg_fdct_islow, in place, natural order.
void fdct_islow(int* d) {
  constexpr int kConst = 13, kPass1 = 2;
  auto descale = [](long x, int n) { return int((x + (1L << (n - 1))) >> n); };
  for (int pass = 0; pass < 2; ++pass) {
    for (std::ptrdiff_t i = 0; i < 8; ++i) {
      int* p = pass == 0 ? d + 8 * i : d + i;
      const std::ptrdiff_t s = pass == 0 ? 1 : 8;
      const long t0 = p[0] + p[7 * s], t7 = p[0] - p[7 * s], t1 = p[s] + p[6 * s],
                 t6 = p[s] - p[6 * s], t2 = p[2 * s] + p[5 * s], t5 = p[2 * s] - p[5 * s],
                 t3 = p[3 * s] + p[4 * s], t4 = p[3 * s] - p[4 * s];
      const long t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
      const int out = pass == 0 ? kConst - kPass1 : kConst + kPass1;
      if (pass == 0) {
        p[0] = int((t10 + t11) * (1 << kPass1));  // jfdctint.c LEFT_SHIFT: defined for < 0
        p[4 * s] = int((t10 - t11) * (1 << kPass1));
      } else {
        p[0] = descale(t10 + t11, kPass1);
        p[4 * s] = descale(t10 - t11, kPass1);
      }
      const long z1 = (t12 + t13) * 4433;
      p[2 * s] = descale(z1 + t13 * 6270, out);
      p[6 * s] = descale(z1 - t12 * 15137, out);
      long a1 = t4 + t7, a2 = t5 + t6, a3 = t4 + t6, a4 = t5 + t7;
      const long z5 = (a3 + a4) * 9633;
      const long b4 = t4 * 2446, b5 = t5 * 16819, b6 = t6 * 25172, b7 = t7 * 12299;
      a1 *= -7373;
      a2 *= -20995;
      a3 = a3 * -16069 + z5;
      a4 = a4 * -3196 + z5;
      p[7 * s] = descale(b4 + a1 + a3, out);
      p[5 * s] = descale(b5 + a2 + a4, out);
      p[3 * s] = descale(b6 + a2 + a3, out);
      p[s] = descale(b7 + a1 + a4, out);
    }
  }
}

using Plane = std::vector<int>;

// Full-size planes of the coded components (jccolor.c): YCbCr from RGB; for a gray file from RGB
// the luma alone (rgb_gray_convert weighs as rgb_ycc_convert's Y does); gray input as it is.
std::vector<Plane> convert(const std::uint8_t* px, int width, int height, int channels, int comps) {
  const std::size_t n = std::size_t(width) * std::size_t(height);
  std::vector<Plane> full(static_cast<std::size_t>(comps), Plane(n));
  for (std::size_t i = 0; i < n; ++i) {
    if (channels == 1) {
      full[0][i] = px[i];
      continue;
    }
    const int r = px[3 * i], g = px[3 * i + 1], b = px[3 * i + 2];
    full[0][i] = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16;
    if (comps == 1) continue;
    full[1][i] = (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16;
    full[2][i] = (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16;
  }
  return full;
}

// Component c at its sampling (jcsample.c), bw[c] * 8 samples a row, padded as jcprepct.c pads:
// the image's last column and row repeated over the last row group before downsampling, the
// last downsampled row repeated to whole iMCU rows after it.
Plane downsample(const Plane& full, const EncodePlan& p, int c) {
  const int width = p.width, height = p.height, hs = p.h[c], vs = p.v[c];
  const int hx = p.hmax / hs, vx = p.vmax / vs;
  const int cols = p.bw[c] * 8, rows = (height + p.vmax * 8 - 1) / (p.vmax * 8) * 8 * vs;
  Plane out(std::size_t(cols) * std::size_t(rows), 0);
  auto at = [&](int y, int x) {
    return full[std::size_t(std::min(y, height - 1)) * std::size_t(width) +
                std::size_t(std::min(x, width - 1))];
  };
  int last = -1;
  for (int g = 0; g * p.vmax < height; ++g)
    for (int r = 0; r < vs; ++r) {
      const int oy = g * vs + r;
      for (int x = 0; x < cols; ++x) {
        int v;
        if (hx == 1 && vx == 1) {
          v = at(oy, x);
        } else if (hx == 2 && vx == 1) {  // h2v1_downsample: alternating bias 0, 1
          v = (at(oy, 2 * x) + at(oy, 2 * x + 1) + (x & 1)) >> 1;
        } else if (hx == 2 && vx == 2) {  // h2v2_downsample: alternating bias 1, 2
          const int y0 = g * p.vmax + 2 * r;
          v = (at(y0, 2 * x) + at(y0, 2 * x + 1) + at(y0 + 1, 2 * x) + at(y0 + 1, 2 * x + 1) + 1 +
               (x & 1)) >>
              2;
        } else {  // int_downsample: rounded mean
          int sum = 0;
          for (int dy = 0; dy < vx; ++dy)
            for (int dx = 0; dx < hx; ++dx) sum += at(g * p.vmax + r * vx + dy, x * hx + dx);
          v = (sum + hx * vx / 2) / (hx * vx);
        }
        out[std::size_t(oy) * std::size_t(cols) + std::size_t(x)] = v;
      }
      last = oy;
    }
  for (int y = last + 1; y < rows; ++y)
    std::copy_n(out.begin() + std::ptrdiff_t(last) * cols, cols,
                out.begin() + std::ptrdiff_t(y) * cols);
  return out;
}

// Block (bx, by) of a plane, level-shifted, transformed and quantised (jcdctmgr.c: divided by
// 8 * q, rounded half away from zero), in zigzag order.
void code_block(const Plane& plane, int cols, int bx, int by, const int* quant, std::int16_t* out) {
  static const int natural[64] = HC_JPEG_NATURAL_ORDER;
  int b[64];
  for (int i = 0; i < 64; ++i)
    b[i] =
        plane[std::size_t(by * 8 + i / 8) * std::size_t(cols) + std::size_t(bx * 8 + i % 8)] - 128;
  fdct_islow(b);
  for (int k = 0; k < 64; ++k) {
    const int d = 8 * quant[natural[k]], x = b[natural[k]];
    out[k] = std::int16_t(x < 0 ? -((-x + d / 2) / d) : (x + d / 2) / d);
  }
}

}  // namespace

std::vector<std::int16_t> reference_blocks(const std::uint8_t* pixels, int channels,
                                           const EncodePlan& p) {
  if (!pixels) throw Error(ErrorCode::InvalidArgument, "jpeg encode: no pixels");
  if ((channels != 1 && channels != 3) || (channels == 1 && p.comps != 1))
    throw Error(ErrorCode::InvalidArgument, "jpeg encode: " + std::to_string(channels) +
                                                " channels for " + std::to_string(p.comps) +
                                                " components");
  const std::vector<Plane> full = convert(pixels, p.width, p.height, channels, p.comps);
  std::vector<Plane> planes;
  planes.reserve(std::size_t(p.comps));
  for (int c = 0; c < p.comps; ++c) planes.push_back(downsample(full[std::size_t(c)], p, c));
  std::vector<std::int16_t> out(std::size_t(p.blocks()) * 64, 0);
  std::int16_t* b = out.data();
  for (int my = 0; my < p.mcus_y; ++my)
    for (int mx = 0; mx < p.mcus_x; ++mx)
      for (int c = 0; c < p.comps; ++c)
        for (int yy = 0; yy < p.mcu_v(c); ++yy)
          for (int xx = 0; xx < p.mcu_h(c); ++xx, b += 64) {
            const int bx = mx * p.mcu_h(c) + xx, by = my * p.mcu_v(c) + yy;
            if (bx < p.bw[c] && by < p.bh[c]) {
              code_block(planes[std::size_t(c)], p.bw[c] * 8, bx, by, p.quant[c == 0 ? 0 : 1], b);
            } else {
              // jccoefct.c's dummy block: no AC, the DC of the block coded just before it in the
              // MCU (its left neighbour, or in a row below the image the last of the row above).
              b[0] = b[-64];
            }
          }
  return out;
}

std::vector<std::uint8_t> encode_reference(const std::uint8_t* pixels, int width, int height,
                                           int channels, const EncodeOptions& options) {
  return encode_reference(pixels, width, height, channels, options, Metadata{});
}

std::vector<std::uint8_t> encode_reference(const std::uint8_t* pixels, int width, int height,
                                           int channels, const EncodeOptions& options,
                                           const Metadata& metadata) {
  const EncodePlan plan = plan_encode(width, height, channels, options);
  const std::vector<std::int16_t> blocks = reference_blocks(pixels, channels, plan);
  const EncodeTables tables = plan.optimize
                                  ? optimal_encode_tables(count_symbols(plan, blocks.data()).data())
                                  : standard_encode_tables();
  std::vector<std::uint8_t> file = write_headers(plan, tables, &metadata);
  const std::vector<std::uint8_t> scan = encode_scan(plan, tables, blocks.data());
  file.insert(file.end(), scan.begin(), scan.end());
  file.insert(file.end(), {0xFF, 0xD9});
  return file;
}

}  // namespace hetcodec::jpeg
