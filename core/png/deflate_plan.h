// The host side of the device deflate (core/portable/png_deflate.h): the plan its stages read,
// the sizes of the buffers they fill and how many items each stage runs over, and the stream
// made from what they leave.
#ifndef HETCODEC_CORE_PNG_DEFLATE_PLAN_H
#define HETCODEC_CORE_PNG_DEFLATE_PLAN_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetcodec::png {

struct DeflatePlan {
  std::vector<std::uint32_t> words;  // the plan buffer (HC_DFL_* header, then its tables)
  std::uint32_t segments = 0;
  std::size_t work_words = 0;  // the work buffer, 32-bit words
  std::size_t sym_words = 0;   // the symbol buffer, 16-bit words
  std::size_t out_words = 0;   // the output buffer, 32-bit words
  std::uint32_t items(int stage) const;
  // Word offsets in the work buffer of what the host reads back: the status (word 0), then
  // the segments' offsets (segments + 1 words), then their Adler-32s (segments words).
  std::size_t seg_off_word() const;
  std::size_t seg_adler_word() const;
};

// The plan for `n` filtered bytes cut into segments at `starts` (the first 0). A block that
// would be stored with more than `stored_limit` bytes sets the status's HC_DFL_UNSURE bit
// (the compatible mode's window rule); UINT32_MAX: no limit. Returns false when the data is
// too large for the device stages' 32-bit offsets.
bool make_deflate_plan(std::size_t n, const std::vector<std::size_t>& starts,
                       std::uint32_t stored_limit, DeflatePlan& plan);

// The largest block the compatible mode may store without knowing how zlib's window was fed
// (zlib_rle.cpp, compress_parallel), for `n` filtered bytes and a window of 2^window_bits.
std::uint32_t compatible_stored_limit(std::size_t n, int window_bits);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_DEFLATE_PLAN_H
