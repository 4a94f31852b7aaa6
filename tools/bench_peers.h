// The peers' decoders that `bench jpeg` and `hetcodec demo` share.
#ifndef HETCODEC_TOOLS_BENCH_PEERS_H
#define HETCODEC_TOOLS_BENCH_PEERS_H

#include <cstdint>
#include <vector>

namespace hetcodec::tools {

// libjpeg-turbo through its C API (bench_jpeg.cpp): decodes to RGB (or gray) in `out`,
// JDCT_ISLOW, default (fancy) upsampling, what djpeg -dct int does. With `entropy_only`, decodes
// the entropy-coded data alone instead (jpeg_read_coefficients: Huffman decoding into libjpeg's
// coefficient arrays, no IDCT, upsampling or colour conversion), the part of libjpeg-turbo's
// work that our CPU stage does too, whose rate therefore bounds what any pipeline with a CPU
// Huffman stage reaches on the same threads; `out` and the sizes are then left alone. False on
// error.
bool libjpeg_decode(const std::vector<std::uint8_t>& in, std::vector<std::uint8_t>& out, int& w,
                    int& h, int& comps, bool entropy_only = false);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_BENCH_PEERS_H
