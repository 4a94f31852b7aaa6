// The peers' decoders that `bench jpeg` and `hetcodec demo` share, and the JPEG corpus that
// `bench jpeg` and `bench jpeg-encode` share (bench_jpeg.cpp).
#ifndef HETCODEC_TOOLS_BENCH_PEERS_H
#define HETCODEC_TOOLS_BENCH_PEERS_H

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hetcodec::tools {

// libjpeg-turbo through its C API (bench_jpeg.cpp): decodes to RGB (or gray) in `out`,
// JDCT_ISLOW, default (fancy) upsampling, what djpeg -dct int does. With `entropy_only`, decodes
// the entropy-coded data alone instead (jpeg_read_coefficients: Huffman decoding into libjpeg's
// coefficient arrays, no IDCT, upsampling or colour conversion), the part of libjpeg-turbo's
// work that our CPU stage does too, whose rate therefore bounds what any pipeline with a CPU
// Huffman stage reaches on the same threads; `out` and the sizes are then left alone.
// `scale_denom` > 1 decodes at 1/scale_denom (scale_num = 1), as djpeg -scale does. False on
// error.
bool libjpeg_decode(const std::vector<std::uint8_t>& in, std::vector<std::uint8_t>& out, int& w,
                    int& h, int& comps, bool entropy_only = false, int scale_denom = 1);

// `count` photo-like synthetic images (smooth shading, edges, texture, noise) of w x h, encoded
// by libjpeg 4:2:0 at q75..95 (deterministic): the set the JPEG benches use without a corpus.
std::vector<std::vector<std::uint8_t>> builtin_jpeg_corpus(int count, int w, int h);
// Where `hetcodec corpus` caches its photos: $HETCODEC_CORPUS, else the user cache's
// hetcodec/corpus/imagenet-like ("" when neither can be named).
std::string default_jpeg_corpus_dir();
// The .jpg and .jpeg files of `paths` (directories searched recursively, files as they are),
// sorted.
std::vector<std::filesystem::path> jpeg_paths(const std::vector<std::string>& paths);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_BENCH_PEERS_H
