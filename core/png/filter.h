// PNG scanline filters (PNG specification section 9) and libpng's choice of filter per row.
#ifndef HETCODEC_CORE_PNG_FILTER_H
#define HETCODEC_CORE_PNG_FILTER_H

#include <cstddef>
#include <cstdint>

namespace hetcodec::png {

enum FilterType : std::uint8_t { kNone = 0, kSub = 1, kUp = 2, kAverage = 3, kPaeth = 4 };

// Filters `n` bytes of `row` with `type` into out[0..n) (the filter byte is not written).
// `prev` is the unfiltered row above, or null for the first row (read as zeros); `bpp` is the
// bytes per complete pixel, at least 1.
void filter_row(int type, const std::uint8_t* row, const std::uint8_t* prev, std::size_t n, int bpp,
                std::uint8_t* out);

// The filters libpng 1.6 tries for an 8- or 16-bit non-palette image (its default, all five,
// less those png_write_start_row() drops: Up, Average and Paeth for an image one row high, Sub,
// Average and Paeth for one a pixel wide), as a mask of 1 << FilterType.
unsigned libpng_filter_mask(std::uint32_t width, std::uint32_t height);

// libpng 1.6's heuristic over the filters in `mask`: each filter's output is scored by the sum
// over its bytes of min(v, 256 - v), and the lowest score wins, ties going to the earlier of
// None, Sub, Up, Average, Paeth. Writes the filter byte to out[0] and the filtered row to
// out[1..n].
int choose_filter_libpng(const std::uint8_t* row, const std::uint8_t* prev, std::size_t n, int bpp,
                         unsigned mask, std::uint8_t* out);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_FILTER_H
