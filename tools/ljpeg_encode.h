// A small lossless JPEG encoder (ITU-T T.81 Annex H: SOF3, Huffman, process 14) for the corpus
// of `hetcodec bench ljpeg` and for tests of the decoder: predictors 1..7, precision 2..16, 1..4
// components interleaved (sampling 1x1, point transform 0), restart intervals of whole rows, and
// Huffman tables optimal for the image (T.81 Annex K.2, code lengths limited to 16) or one fixed
// table for every category.
#ifndef HETCODEC_TOOLS_LJPEG_ENCODE_H
#define HETCODEC_TOOLS_LJPEG_ENCODE_H

#include <cstdint>
#include <vector>

namespace hetcodec::tools {

struct LjpegEncodeOptions {
  int predictor = 1;     // Ss, 1..7 (T.81 Table H.1)
  int precision = 8;     // P, 2..16; every sample must be below 2^P
  int restart_rows = 0;  // rows per restart interval (0: none); Ri = rows x width must fit 16 bits
  // Huffman tables from the image's own statistics, one per component (T.81 K.2); false: one
  // table giving every category 0..16 a code, the same for every component and image.
  bool optimal_tables = true;
};

// `samples`: width x height pixels of `components` interleaved samples each, row by row.
// Throws Error(InvalidArgument) for parameters outside the ranges above or a sample of more than
// `precision` bits.
std::vector<std::uint8_t> ljpeg_encode(const std::uint16_t* samples, int width, int height,
                                       int components, const LjpegEncodeOptions& options);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_LJPEG_ENCODE_H
