// Lossless JPEG (ITU-T T.81 Annex H, SOF3) in `hetcodec decode` (decode_ljpeg.cpp): Netpbm files
// of maxval 2^P - 1 and PNG files with an sBIT chunk of P for a file of precision P, and the row
// table sidecar read (--row-table) and written (--write-row-table).
#ifndef HETCODEC_TOOLS_DECODE_LJPEG_H
#define HETCODEC_TOOLS_DECODE_LJPEG_H

#include <cstdint>
#include <string>
#include <vector>

#include "hetcodec/hetcodec.h"

namespace hetcodec::tools {

// The precision P (2..16) of a lossless JPEG file (SOF3; SOF7, SOF11 and SOF15 too, which the
// decoder refuses by name), by its frame header; 0 for any other file.
int lossless_precision(const std::vector<std::uint8_t>& bytes);

// Netpbm's maxval for a decoded image: 2^P - 1 for a lossless file of precision P (`precision`
// > 0), else 255 or 65535 by its bit depth. Netpbm stores a sample in one byte below 256, in two
// big-endian bytes from there on, as Image holds it.
int netpbm_maxval(const Image& img, int precision);

// CMYK samples (Adobe's inverted CMYK) of maxval `maxval` as RGB of the same maxval and depth,
// R = C x K / maxval rounded, as djpeg writes CMYK as PPM (cmyk_as_rgb for maxval 255).
std::vector<std::uint8_t> cmyk_as_rgb(const Image& img, int maxval);

// A lossless file's image as PNG through libpng: 8-bit for P <= 8, 16-bit above, each sample
// shifted left to fill the depth with its high bits repeated into the low ones (PNG 12.5,
// "left bit replication"), and an sBIT chunk of P, so that a reader that honours sBIT
// (png_set_shift) gets the decoded samples back. CMYK is written as RGB (cmyk_as_rgb); the
// image's metadata as set_libpng_metadata writes it.
void write_lossless_png(const std::string& path, const Image& img, int precision);

// --row-table and --write-row-table: sidecar files of a lossless file's row table (where each
// coded row's codes start: little-endian 32-bit entries, 64-bit where the file holds 8 bytes a
// row; JpegDecoder::read_lossless_row_table).
struct RowTableFiles {
  std::string read, write;
  bool any() const { return !read.empty() || !write.empty(); }
};

// The one lossless file of a command line that names a sidecar: its table read from
// `files.read` and used (Error(InvalidArgument) naming the sidecar for a wrong size or a bad
// entry), the table the decoder finds written to `files.write`. `row_table` gets how the table
// was had (LosslessReport::row_table).
Image decode_with_row_table(JpegDecoder& decoder, const std::vector<std::uint8_t>& bytes,
                            const RowTableFiles& files, std::string* row_table = nullptr);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_DECODE_LJPEG_H
