// Filters as the PNG specification defines them; the Paeth predictor breaks ties a, then b,
// then c. The choice follows libpng's png_write_find_filter: the score of None starts the
// minimum, each later filter replaces it only with a strictly smaller score.
#include "core/png/filter.h"

#include <cstdlib>
#include <cstring>

namespace hetcodec::png {
namespace {

inline int paeth(int a, int b, int c) {
  const int p = b - c, q = a - c;
  const int pa = std::abs(p), pb = std::abs(q), pc = std::abs(p + q);
  return (pa <= pb && pa <= pc) ? a : (pb <= pc) ? b : c;
}

inline std::uint64_t score(const std::uint8_t* v, std::size_t n) {
  std::uint64_t s = 0;
  for (std::size_t i = 0; i < n; ++i) s += v[i] < 128 ? v[i] : 256 - v[i];
  return s;
}

}  // namespace

void filter_row(int type, const std::uint8_t* row, const std::uint8_t* prev, std::size_t n,
                int bpp, std::uint8_t* out) {
  const std::size_t b = std::size_t(bpp);
  auto up = [&](std::size_t i) -> int { return prev ? prev[i] : 0; };
  switch (type) {
    case kNone:
      std::memcpy(out, row, n);
      break;
    case kSub:
      for (std::size_t i = 0; i < n; ++i) out[i] = std::uint8_t(row[i] - (i >= b ? row[i - b] : 0));
      break;
    case kUp:
      for (std::size_t i = 0; i < n; ++i) out[i] = std::uint8_t(row[i] - up(i));
      break;
    case kAverage:
      for (std::size_t i = 0; i < n; ++i)
        out[i] = std::uint8_t(row[i] - ((i >= b ? row[i - b] : 0) + up(i)) / 2);
      break;
    default:
      for (std::size_t i = 0; i < n; ++i)
        out[i] = std::uint8_t(row[i] - (i >= b ? paeth(row[i - b], up(i), up(i - b)) : up(i)));
      break;
  }
}

unsigned libpng_filter_mask(std::uint32_t width, std::uint32_t height) {
  unsigned mask = 0x1F;
  if (height == 1) mask &= ~((1u << kUp) | (1u << kAverage) | (1u << kPaeth));
  if (width == 1) mask &= ~((1u << kSub) | (1u << kAverage) | (1u << kPaeth));
  return mask ? mask : 1u << kNone;
}

int choose_filter_libpng(const std::uint8_t* row, const std::uint8_t* prev, std::size_t n,
                         int bpp, unsigned mask, std::uint8_t* out, std::uint8_t* scratch) {
  // One filter alone is used without scoring; otherwise None (when allowed) sets the first
  // minimum and each later filter must score strictly lower.
  int best = -1;
  std::uint64_t best_score = ~std::uint64_t(0);
  for (int type = kNone; type <= kPaeth; ++type) {
    if (!(mask & (1u << type))) continue;
    if (mask == (1u << type)) {
      best = type;
      filter_row(type, row, prev, n, bpp, out + 1);
      break;
    }
    filter_row(type, row, prev, n, bpp, scratch);
    const std::uint64_t s = score(scratch, n);
    if (best < 0 || s < best_score) {
      best_score = s;
      best = type;
      std::memcpy(out + 1, scratch, n);
    }
  }
  out[0] = std::uint8_t(best);
  return best;
}

}  // namespace hetcodec::png
