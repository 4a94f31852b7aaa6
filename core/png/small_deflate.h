// The small mode's deflate stream: the parallel mode's segments (docs/png-parallel.md), each
// compressed by libdeflate with its full LZ77 search on a host thread, then joined. libdeflate
// ends what it writes with a final block; every segment but the last has that block's BFINAL
// bit cleared and an empty stored block appended (a sync flush), found by walking the segment's
// blocks with the inflate of core/portable/png_inflate.h. docs/png-encode.md ("Small mode").
#ifndef HETCODEC_CORE_PNG_SMALL_DEFLATE_H
#define HETCODEC_CORE_PNG_SMALL_DEFLATE_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/png/writer.h"
#include "core/png/zlib_rle.h"

namespace hetcodec::png {

// libdeflate's level for the small mode: its highest, whose near-optimal parsing makes the
// smallest streams (docs/png-encode.md says why not a lower one).
constexpr int kSmallLevel = 12;

// Whether this build has libdeflate (without it the small mode is Error(Unsupported)).
bool small_deflate_available();

// Raw deflate data that inflates on its own (`n` bytes, a final block last and nothing after
// it) turned into a segment that a later one may follow: its final block's BFINAL bit cleared,
// then an empty stored block that is not final, byte-aligned (00 00 FF FF after the header
// bits and padding). `inflated` is what the data inflates to; false, and `data` unchanged, when
// the data does not walk as such a stream.
bool unfinish_segment(std::vector<std::uint8_t>& data, std::size_t inflated);

// A zlib stream (window 2^15) over data[0, n) cut into segments at `starts` (the first 0,
// increasing), each compressed on its own by libdeflate at `level` on up to `threads` threads
// and joined as zlib_rle_segments() joins its own: every segment starts on a byte boundary with
// no reference to the one before, only the last has a final block.
SegmentedStream small_segments(const std::uint8_t* data, std::size_t n,
                               const std::vector<std::size_t>& starts, int threads,
                               int level = kSmallLevel);

// The small mode's file: the parallel mode's (assemble_parallel(): the same segments, hcRS
// chunk and IDAT chunks) with its segments compressed by small_segments().
std::vector<std::uint8_t> assemble_small(const Raster& image,
                                         const std::vector<std::uint8_t>& filtered, int segments,
                                         int threads, int level = kSmallLevel);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_SMALL_DEFLATE_H
