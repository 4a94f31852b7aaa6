// Inflate of one zlib stream (RFC 1950/1951) on several threads when it carries no index: the
// stream is cut at dynamic-Huffman block starts found by searching the bits for a header a
// decoder would accept, and every piece after the first is inflated twice at once against two
// made-up windows, whose bytes say, wherever the two outputs differ, which window position a
// copy came from. Once the pieces before have been resolved those positions are filled in from
// the real output. Sizes, the exact end of every piece and the stream's Adler-32 are checked;
// anything that does not hold sends the caller back to a whole-stream inflate.
// docs/png-decode.md ("Inflate of a file without an index") explains it.
#ifndef HETCODEC_CORE_PNG_SPLIT_INFLATE_H
#define HETCODEC_CORE_PNG_SPLIT_INFLATE_H

#include <cstddef>
#include <cstdint>
#include <functional>

namespace hetcodec::png {

// Runs fn(0..n-1) each on its own thread (fn(0) on the caller's) and returns once all have
// returned: a decoder's pool of threads. Empty: threads are started for the call.
using ParallelRun = std::function<void(int n, const std::function<void(int)>& fn)>;

// Runs task(0..tasks-1), each once and in no set order, on up to `threads` threads (`run`'s, or
// started for the call when it is empty), and returns when all have run.
void run_tasks(int tasks, int threads, const ParallelRun& run,
               const std::function<void(int)>& task);

// The first bit position in [from_bit, to_bit) of the raw deflate data `data` (`bytes` long;
// bit 0 is the low bit of byte 0) where a non-final dynamic-Huffman block header starts that
// zlib's inflate would accept (field ranges, complete codes, an end-of-block code); -1 when
// there is none. A find is only a candidate: data can look like a header by chance.
std::int64_t find_dynamic_block(const std::uint8_t* data, std::size_t bytes, std::uint64_t from_bit,
                                std::uint64_t to_bit);

// The number of pieces split_inflate() aims for with `threads` threads and `zlib_bytes` of
// compressed data: 1 means it would not split.
int split_parts(std::size_t zlib_bytes, int threads);

// Inflates the zlib stream `zlib` (`zlib_bytes` long, its Adler-32 at the end) into exactly
// `total` bytes (at most 512 MiB: the pieces take about twice that in scratch memory while they
// are resolved) at `out` on up to `threads` threads. Returns the number of pieces it was
// inflated in, or 0 when it could not be split or a check failed (the contents of `out` are then
// undefined and the caller inflates the stream whole, which also reports what is wrong).
int split_inflate(const std::uint8_t* zlib, std::size_t zlib_bytes, std::uint8_t* out,
                  std::size_t total, int threads, const ParallelRun& run = {});

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_SPLIT_INFLATE_H
