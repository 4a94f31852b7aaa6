// The stored layout of a PNG file and the samples of an expanded image mapped back to it (see
// layout.h).
#include "core/png/layout.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "core/error.h"

namespace hetcodec::png {
namespace {

std::uint32_t be16(const std::uint8_t* p) { return std::uint32_t(p[0]) << 8 | p[1]; }

[[noreturn]] void cannot_hold(int x, int y, const std::string& what) {
  throw Error(ErrorCode::InvalidArgument,
              "png: pixel (" + std::to_string(x) + ", " + std::to_string(y) + "): " + what);
}

// Sample `v` of `depth` bits (1, 2, 4 or 8) at pixel x of a packed row.
void put_packed(std::uint8_t* row, int x, int depth, std::uint32_t v) {
  const std::size_t bit = std::size_t(x) * std::size_t(depth);
  row[bit / 8] |= std::uint8_t(v << (8 - depth - int(bit % 8)));
}

std::string describe(const Image& im, std::size_t at, int n, int bytes) {
  std::string s;
  for (int k = 0; k < n; ++k) {
    const std::uint8_t* p = im.pixels.data() + at + std::size_t(k * bytes);
    s += (k ? " " : "") + std::to_string(bytes == 2 ? be16(p) : p[0]);
  }
  return s;
}

void pack_palette(const Image& im, Raster& out) {
  const int n = im.channels();  // 3, or 4 with tRNS
  std::unordered_map<std::uint32_t, std::uint32_t> index;
  for (std::size_t i = 0; i < out.plte.size() / 3; ++i) {
    const std::uint32_t alpha = i < out.trns.size() ? out.trns[i] : 255u;
    const std::uint8_t* c = &out.plte[3 * i];
    index.emplace(
        std::uint32_t(c[0]) << 24 | std::uint32_t(c[1]) << 16 | std::uint32_t(c[2]) << 8 | alpha,
        std::uint32_t(i));  // the first entry of a colour wins
  }
  const std::size_t rb = out.row_bytes();
  std::uint32_t last_key = 0, last_index = 0;
  bool have_last = false;
  for (int y = 0; y < im.height; ++y) {
    std::uint8_t* row = out.samples.data() + std::size_t(y) * rb;
    for (int x = 0; x < im.width; ++x) {
      const std::size_t at = (std::size_t(y) * std::size_t(im.width) + std::size_t(x)) * n;
      const std::uint8_t* p = im.pixels.data() + at;
      const std::uint32_t key = std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 |
                                std::uint32_t(p[2]) << 8 | (n == 4 ? p[3] : 255u);
      if (!have_last || key != last_key) {
        const auto it = index.find(key);
        if (it == index.end())
          cannot_hold(
              x, y,
              (n == 4 ? "RGBA " : "RGB ") + describe(im, at, n, 1) + " is not in the palette");
        last_key = key;
        last_index = it->second;
        have_last = true;
      }
      put_packed(row, x, out.bit_depth, last_index);
    }
  }
}

// Gray of 1, 2 or 4 bits: the 8-bit levels v * 255 / (2^d - 1), with the key's alpha.
void pack_low_gray(const Image& im, Raster& out) {
  const int d = out.bit_depth, n = im.channels();
  const std::uint32_t scale = 255u / ((1u << d) - 1u);
  const bool keyed = !out.trns.empty();
  const std::uint32_t key = keyed ? be16(out.trns.data()) : 0;
  const std::size_t rb = out.row_bytes();
  for (int y = 0; y < im.height; ++y) {
    std::uint8_t* row = out.samples.data() + std::size_t(y) * rb;
    for (int x = 0; x < im.width; ++x) {
      const std::size_t at = (std::size_t(y) * std::size_t(im.width) + std::size_t(x)) * n;
      const std::uint32_t v = im.pixels[at];
      if (v % scale != 0)
        cannot_hold(x, y,
                    "gray " + std::to_string(v) + " is not one of the " + std::to_string(1u << d) +
                        " levels of " + std::to_string(d) + " bits (multiples of " +
                        std::to_string(scale) + ")");
      const std::uint32_t s = v / scale;
      if (keyed) {
        const std::uint32_t alpha = im.pixels[at + 1], want = s == key ? 0u : 255u;
        if (alpha != want)
          cannot_hold(x, y,
                      "alpha " + std::to_string(alpha) + " where the tRNS key gives " +
                          std::to_string(want));
      }
      put_packed(row, x, d, s);
    }
  }
}

// 8 or 16 bits: the samples as they are, less the alpha a tRNS key gives.
void pack_samples(const Image& im, Raster& out) {
  const std::size_t b = std::size_t(out.bit_depth / 8), keep = std::size_t(out.channels) * b;
  if (out.trns.empty()) {
    std::memcpy(out.samples.data(), im.pixels.data(), im.pixels.size());
    return;
  }
  const std::uint32_t most = b == 2 ? 0xFFFFu : 0xFFu;
  const std::size_t pixels = std::size_t(im.width) * std::size_t(im.height);
  for (std::size_t i = 0; i < pixels; ++i) {
    const std::uint8_t* p = im.pixels.data() + i * (keep + b);
    bool is_key = true;
    for (int k = 0; k < out.channels; ++k) {
      const std::uint32_t v = b == 2 ? be16(p + 2 * k) : p[k];
      if (v != be16(out.trns.data() + 2 * k)) is_key = false;
    }
    const std::uint32_t alpha = b == 2 ? be16(p + keep) : p[keep], want = is_key ? 0u : most;
    if (alpha != want)
      cannot_hold(
          int(i % std::size_t(im.width)), int(i / std::size_t(im.width)),
          "alpha " + std::to_string(alpha) + " where the tRNS key gives " + std::to_string(want));
    std::memcpy(out.samples.data() + i * keep, p, keep);
  }
}

}  // namespace

Raster stored_layout(const Info& info) {
  Raster r;
  r.width = int(info.width);
  r.height = int(info.height);
  r.indexed = info.color_type == kPalette;
  r.channels = info.samples_per_pixel();
  r.bit_depth = info.bit_depth;
  if (r.indexed)
    for (const auto& e : info.palette) r.plte.insert(r.plte.end(), e.begin(), e.end());
  r.trns = info.trns;
  if (!r.indexed && !r.trns.empty()) {
    const std::uint32_t mask = r.bit_depth == 16 ? 0xFFFFu : (1u << r.bit_depth) - 1u;
    for (std::size_t k = 0; k + 1 < r.trns.size(); k += 2) {
      const std::uint32_t v = be16(&r.trns[k]) & mask;
      r.trns[k] = std::uint8_t(v >> 8);
      r.trns[k + 1] = std::uint8_t(v);
    }
  }
  return r;
}

PixelFormat expanded_format(const Raster& layout) {
  const int colour = layout.indexed ? 3 : layout.channels;
  return png_format(colour + (layout.trns.empty() ? 0 : 1));
}

int expanded_depth(const Raster& layout) { return layout.bit_depth == 16 ? 16 : 8; }

void pack_expanded(const Image& im, Raster& out) {
  out.width = im.width;
  out.height = im.height;
  check_layout(out);
  const PixelFormat want = expanded_format(out);
  const int depth = expanded_depth(out);
  if (im.format != want || im.bit_depth != depth)
    throw Error(ErrorCode::InvalidArgument,
                std::string("png: a ") + to_string(im.format) + " image of " +
                    std::to_string(im.bit_depth) + " bits for colour type " +
                    std::to_string(out.color_type()) + " at " + std::to_string(out.bit_depth) +
                    " bits" + (out.trns.empty() ? "" : " with tRNS") + ", which holds " +
                    to_string(want) + " of " + std::to_string(depth) + " bits");
  check_shape(im.width, im.height, im.channels(), im.bit_depth, im.pixels.size());
  out.samples.assign(out.row_bytes() * std::size_t(out.height), 0);
  if (out.indexed)
    pack_palette(im, out);
  else if (out.bit_depth < 8)
    pack_low_gray(im, out);
  else
    pack_samples(im, out);
}

}  // namespace hetcodec::png
