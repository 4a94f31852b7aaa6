// A zlib stream (RFC 1950/1951) whose bytes equal what zlib's deflate() writes with strategy
// Z_RLE (run-length matches at distance 1 only), level 6 and memLevel 8, for input given to it
// in pieces with Z_NO_FLUSH and then a Z_FINISH call with no input (as libpng feeds it, one
// filtered row per call). The CPU reference of the PNG encoder's compatible mode.
#ifndef HETCODEC_CORE_PNG_ZLIB_RLE_H
#define HETCODEC_CORE_PNG_ZLIB_RLE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetcodec::png {

// `pieces` are the sizes of the successive deflate() calls' inputs (summing to n; empty: one
// piece). `window_bits` 8..15 (8 becomes 9, as deflateInit2 makes it). With `threads` > 1 the
// work of inputs of 256 KiB or more is spread over that many threads (the same bytes).
std::vector<std::uint8_t> zlib_rle_compress(const std::uint8_t* data, std::size_t n,
                                            const std::vector<std::size_t>& pieces, int window_bits,
                                            int threads = 1);

// The parallel mode's stream: one zlib stream (window 2^15) whose data is cut into segments
// starting at the byte offsets `starts` (the first 0, increasing). Each segment is coded as if
// it began the data (no match reaches back into the segment before) with zlib's Z_RLE rules
// for matches, blocks and trees, and ends with an empty stored block (a sync flush; the last
// segment ends with the final block instead), so every segment starts on a byte boundary and
// inflates on its own with a raw inflater. Segments are made on up to `threads` threads.
struct SegmentedStream {
  std::vector<std::uint8_t> stream;  // zlib header, segments, Adler-32
  std::vector<std::size_t> offsets;  // where each segment starts in `stream`
};
// The two-byte zlib header zlib writes for a window of 2^window_bits with the Z_RLE strategy.
void zlib_header(std::vector<std::uint8_t>& out, int window_bits);

// The zlib stream of segments deflated each on its own: `header` (CMF and FLG), the parts in
// order, then the Adler-32 of all `n` bytes of data, combined from each segment's (segment k
// is the data from starts[k] to the next start, or to n).
SegmentedStream join_segments(const std::vector<std::uint8_t>& header,
                              const std::vector<std::vector<std::uint8_t>>& parts,
                              const std::vector<std::uint32_t>& adler,
                              const std::vector<std::size_t>& starts, std::size_t n);

SegmentedStream zlib_rle_segments(const std::uint8_t* data, std::size_t n,
                                  const std::vector<std::size_t>& starts, int threads);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_ZLIB_RLE_H
