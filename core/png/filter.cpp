// Filters as the PNG specification defines them, with the per-byte arithmetic of
// core/portable/png_filter.h that the device kernels share. The choice follows libpng's
// png_write_find_filter(): the lowest score among the allowed filters, ties to the earlier one
// (libpng's early exit from a filter already scoring higher changes nothing).
#include "core/png/filter.h"

#include "core/portable/png_filter.h"

namespace hetcodec::png {

void filter_row(int type, const std::uint8_t* row, const std::uint8_t* prev, std::size_t n, int bpp,
                std::uint8_t* out) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] =
        hc_png_filter_byte(type, row, prev ? prev : row, prev != nullptr, hc_u32(i), hc_u32(bpp));
}

unsigned libpng_filter_mask(std::uint32_t width, std::uint32_t height) {
  unsigned mask = 0x1F;
  if (height == 1) mask &= ~((1u << kUp) | (1u << kAverage) | (1u << kPaeth));
  if (width == 1) mask &= ~((1u << kSub) | (1u << kAverage) | (1u << kPaeth));
  return mask ? mask : 1u << kNone;
}

int choose_filter_libpng(const std::uint8_t* row, const std::uint8_t* prev, std::size_t n, int bpp,
                         unsigned mask, std::uint8_t* out) {
  hc_u64 s[HC_PNG_FILTERS] = {0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < n; ++i)
    for (int t = 0; t < HC_PNG_FILTERS; ++t)
      s[t] += hc_png_score(
          hc_png_filter_byte(t, row, prev ? prev : row, prev != nullptr, hc_u32(i), hc_u32(bpp)));
  const int best = hc_png_pick(s[0], s[1], s[2], s[3], s[4], mask);
  out[0] = std::uint8_t(best);
  filter_row(best, row, prev, n, bpp, out + 1);
  return best;
}

}  // namespace hetcodec::png
