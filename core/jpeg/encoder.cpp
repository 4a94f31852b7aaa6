// The CPU reference JPEG encoder (encoder.h): libjpeg-turbo's arithmetic step by step.
#include "core/jpeg/encoder.h"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "core/jpeg/standard_tables.h"
#include "core/portable/jpeg_zigzag.h"

namespace hetcodec::jpeg {
namespace {

const int kLuma[64] = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                       14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                       18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                       49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
const int kChroma[64] = {17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
                         24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
                         99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
                         99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

// jfdctint.c's jpeg_fdct_islow, in place, natural order.
void fdct_islow(int* d) {
  constexpr int kConst = 13, kPass1 = 2;
  auto descale = [](long x, int n) { return int((x + (1L << (n - 1))) >> n); };
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 8; ++i) {
      int* p = pass == 0 ? d + 8 * i : d + i;
      const int s = pass == 0 ? 1 : 8;
      const long t0 = p[0] + p[7 * s], t7 = p[0] - p[7 * s], t1 = p[s] + p[6 * s],
                 t6 = p[s] - p[6 * s], t2 = p[2 * s] + p[5 * s], t5 = p[2 * s] - p[5 * s],
                 t3 = p[3 * s] + p[4 * s], t4 = p[3 * s] - p[4 * s];
      const long t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
      const int out = pass == 0 ? kConst - kPass1 : kConst + kPass1;
      if (pass == 0) {
        p[0] = int((t10 + t11) << kPass1);
        p[4 * s] = int((t10 - t11) << kPass1);
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

struct Writer {
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int n = 0;
  void byte(int b) {
    out.push_back(std::uint8_t(b));
    if (b == 0xFF) out.push_back(0);
  }
  void bits(std::uint32_t code, int len) {
    for (int i = len - 1; i >= 0; --i) {
      acc = acc << 1 | ((code >> i) & 1u);
      if (++n == 8) {
        byte(int(acc & 0xFF));
        acc = 0;
        n = 0;
      }
    }
  }
  void flush() {
    while (n != 0) bits(1, 1);
  }
};

struct Codes {
  std::array<std::uint32_t, 256> code{};
  std::array<int, 256> len{};
};

Codes derive(const HuffmanTable& t) {
  Codes c;
  std::uint32_t code = 0;
  std::size_t k = 0;
  for (int l = 1; l <= 16; ++l) {
    for (int i = 0; i < t.counts[l]; ++i, ++k) {
      c.code[t.symbols[k]] = code++;
      c.len[t.symbols[k]] = l;
    }
    code <<= 1;
  }
  return c;
}

int nbits(int v) {
  int n = 0;
  for (v = std::abs(v); v; v >>= 1) ++n;
  return n;
}

void put16(std::vector<std::uint8_t>& o, int v) {
  o.push_back(std::uint8_t(v >> 8));
  o.push_back(std::uint8_t(v & 0xFF));
}

}  // namespace

std::vector<std::uint8_t> encode_reference(const std::uint8_t* px, int W, int H, int channels,
                                           const EncodeOptions& o) {
  const int nc = channels == 1 ? 1 : 3;
  const int hs[3] = {nc == 1 ? 1 : o.h, 1, 1}, vs[3] = {nc == 1 ? 1 : o.v, 1, 1};
  const int hmax = hs[0], vmax = vs[0];
  // Quantisation tables (jcparam.c), natural order.
  const int q = std::clamp(o.quality, 1, 100);
  const int scale = q < 50 ? 5000 / q : 200 - 2 * q;
  int qt[2][64];
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < 64; ++i)
      qt[t][i] = std::clamp(((t ? kChroma : kLuma)[i] * scale + 50) / 100, 1, 255);
  // Colour conversion (jccolor.c) into full-size planes.
  const auto ncomp = static_cast<std::size_t>(nc);
  std::vector<std::vector<int>> full(ncomp, std::vector<int>(std::size_t(W) * H));
  for (std::size_t i = 0; i < std::size_t(W) * H; ++i) {
    if (channels == 1) {
      full[0][i] = px[i];
      continue;
    }
    const int r = px[3 * i], g = px[3 * i + 1], b = px[3 * i + 2];
    full[0][i] = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16;
    full[1][i] = (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16;
    full[2][i] = (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16;
  }
  // Downsampling with libjpeg's edge padding (jcprepct.c, jcsample.c).
  const int imcu_rows = (H + vmax * 8 - 1) / (vmax * 8);
  std::vector<std::vector<int>> plane(ncomp);
  int wib[3], hib[3];
  for (int c = 0; c < nc; ++c) {
    wib[c] = (W * hs[c] + hmax * 8 - 1) / (hmax * 8);
    hib[c] = (H * vs[c] + vmax * 8 - 1) / (vmax * 8);
    const int hx = hmax / hs[c], vx = vmax / vs[c];
    const int cols = wib[c] * 8, rows = imcu_rows * 8 * vs[c];
    std::vector<int>& p = plane[std::size_t(c)];
    p.assign(std::size_t(cols) * rows, 0);
    auto at = [&](int y, int x) {  // the padded full-size sample
      return full[std::size_t(c)][std::size_t(std::min(y, H - 1)) * W + std::min(x, W - 1)];
    };
    int last = -1;
    for (int g = 0; g * vmax < H; ++g)
      for (int r = 0; r < vs[c]; ++r) {
        const int oy = g * vs[c] + r;
        for (int x = 0; x < cols; ++x) {
          int v;
          if (hx == 1 && vx == 1) {
            v = at(oy, x);
          } else if (hx == 2 && vx == 1) {
            v = (at(oy, 2 * x) + at(oy, 2 * x + 1) + (x & 1)) >> 1;
          } else if (hx == 2 && vx == 2) {
            const int y0 = g * vmax + 2 * r;
            v = (at(y0, 2 * x) + at(y0, 2 * x + 1) + at(y0 + 1, 2 * x) + at(y0 + 1, 2 * x + 1) + 1 +
                 (x & 1)) >>
                2;
          } else {
            int sum = 0;
            for (int dy = 0; dy < vx; ++dy)
              for (int dx = 0; dx < hx; ++dx) sum += at(g * vmax + r * vx + dy, x * hx + dx);
            v = (sum + hx * vx / 2) / (hx * vx);
          }
          p[std::size_t(oy) * cols + x] = v;
        }
        last = oy;
      }
    for (int y = last + 1; y < rows; ++y)
      std::copy_n(p.begin() + std::ptrdiff_t(last) * cols, cols,
                  p.begin() + std::ptrdiff_t(y) * cols);
  }
  // Blocks: FDCT and quantisation (jcdctmgr.c), natural order.
  std::vector<std::vector<std::array<int, 64>>> blocks(ncomp);
  for (int c = 0; c < nc; ++c) {
    const int cols = wib[c] * 8;
    const int* t = qt[c == 0 ? 0 : 1];
    for (int by = 0; by < hib[c]; ++by)
      for (int bx = 0; bx < wib[c]; ++bx) {
        std::array<int, 64> b;
        for (int i = 0; i < 64; ++i)
          b[std::size_t(i)] =
              plane[std::size_t(c)][std::size_t(by * 8 + i / 8) * cols + bx * 8 + i % 8] - 128;
        fdct_islow(b.data());
        for (int i = 0; i < 64; ++i) {
          const int d = 8 * t[i], x = b[std::size_t(i)];
          b[std::size_t(i)] = x < 0 ? -((-x + d / 2) / d) : (x + d / 2) / d;
        }
        blocks[std::size_t(c)].push_back(b);
      }
  }
  // Headers (jcmarker.c).
  std::vector<std::uint8_t> f = {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F',
                                 0,    1,    1,    0,    0,    1,    0,   1,   0,   0};
  static const int zz[64] = HC_JPEG_NATURAL_ORDER;
  for (int t = 0; t < (nc == 1 ? 1 : 2); ++t) {
    f.insert(f.end(), {0xFF, 0xDB, 0x00, 0x43, std::uint8_t(t)});
    for (int k = 0; k < 64; ++k) f.push_back(std::uint8_t(qt[t][zz[k]]));
  }
  f.insert(f.end(), {0xFF, 0xC0});
  put16(f, 8 + 3 * nc);
  f.push_back(8);
  put16(f, H);
  put16(f, W);
  f.push_back(std::uint8_t(nc));
  for (int c = 0; c < nc; ++c)
    f.insert(f.end(),
             {std::uint8_t(c + 1), std::uint8_t(hs[c] << 4 | vs[c]), std::uint8_t(c == 0 ? 0 : 1)});
  for (int t = 0; t < (nc == 1 ? 1 : 2); ++t)
    for (int ac = 0; ac < 2; ++ac) {
      const HuffmanTable& h = standard_huffman_table(ac != 0, t);
      f.insert(f.end(), {0xFF, 0xC4});
      put16(f, 19 + int(h.symbols.size()));
      f.push_back(std::uint8_t(ac << 4 | t));
      for (int l = 1; l <= 16; ++l) f.push_back(h.counts[l]);
      f.insert(f.end(), h.symbols.begin(), h.symbols.end());
    }
  if (o.restart_interval > 0) {
    f.insert(f.end(), {0xFF, 0xDD, 0x00, 0x04});
    put16(f, o.restart_interval);
  }
  f.insert(f.end(), {0xFF, 0xDA});
  put16(f, 6 + 2 * nc);
  f.push_back(std::uint8_t(nc));
  for (int c = 0; c < nc; ++c)
    f.insert(f.end(), {std::uint8_t(c + 1), std::uint8_t(c == 0 ? 0x00 : 0x11)});
  f.insert(f.end(), {0x00, 0x3F, 0x00});
  // Entropy coding (jchuff.c), with libjpeg's dummy blocks at the right and bottom edges.
  Codes dc[2] = {derive(standard_huffman_table(false, 0)),
                 derive(standard_huffman_table(false, 1))};
  Codes ac[2] = {derive(standard_huffman_table(true, 0)), derive(standard_huffman_table(true, 1))};
  Writer w;
  int pred[3] = {0, 0, 0};
  auto encode = [&](const std::array<int, 64>& b, int c) {
    const Codes& d = dc[c == 0 ? 0 : 1];
    const Codes& a = ac[c == 0 ? 0 : 1];
    const int diff = b[0] - pred[c];
    pred[c] = b[0];
    const int s = nbits(diff);
    w.bits(d.code[std::size_t(s)], d.len[std::size_t(s)]);
    if (s) w.bits(std::uint32_t(diff < 0 ? diff - 1 : diff) & ((1u << s) - 1), s);
    int run = 0;
    for (int k = 1; k < 64; ++k) {
      const int v = b[std::size_t(zz[k])];
      if (v == 0) {
        ++run;
        continue;
      }
      for (; run >= 16; run -= 16) w.bits(a.code[0xF0], a.len[0xF0]);
      const int sz = nbits(v);
      const int sym = run << 4 | sz;
      w.bits(a.code[std::size_t(sym)], a.len[std::size_t(sym)]);
      w.bits(std::uint32_t(v < 0 ? v - 1 : v) & ((1u << sz) - 1), sz);
      run = 0;
    }
    if (run > 0) w.bits(a.code[0], a.len[0]);
  };
  const bool single = nc == 1;
  const int mcus_x = single ? wib[0] : (W + hmax * 8 - 1) / (hmax * 8);
  const int mcus_y = single ? hib[0] : (H + vmax * 8 - 1) / (vmax * 8);
  int restarts = 0;
  for (int n = 0; n < mcus_x * mcus_y; ++n) {
    if (o.restart_interval > 0 && n > 0 && n % o.restart_interval == 0) {
      w.flush();
      w.out.push_back(0xFF);
      w.out.push_back(std::uint8_t(0xD0 + (restarts++ & 7)));
      pred[0] = pred[1] = pred[2] = 0;
    }
    const int mx = n % mcus_x, my = n / mcus_x;
    for (int c = 0; c < nc; ++c) {
      const int h = single ? 1 : hs[c], v = single ? 1 : vs[c];
      int last_dc = 0;
      for (int yy = 0; yy < v; ++yy) {
        int row_last = last_dc;
        for (int xx = 0; xx < h; ++xx) {
          const int bx = mx * h + xx, by = my * v + yy;
          std::array<int, 64> b{};
          if (bx < wib[c] && by < hib[c]) {
            b = blocks[std::size_t(c)][std::size_t(by) * wib[c] + bx];
          } else if (by < hib[c]) {
            b[0] = row_last;  // right of the image: the DC of the block to its left
          } else {
            b[0] = last_dc;  // below: the DC of the last block of the row above
          }
          row_last = b[0];
          encode(b, c);
        }
        last_dc = row_last;
      }
    }
  }
  w.flush();
  f.insert(f.end(), w.out.begin(), w.out.end());
  f.insert(f.end(), {0xFF, 0xD9});
  return f;
}

}  // namespace hetcodec::jpeg
