// The libpng and zlib oracles for the PNG encoder, called through their C APIs.
#ifndef HETCODEC_TESTS_SUPPORT_LIBPNG_ORACLE_H
#define HETCODEC_TESTS_SUPPORT_LIBPNG_ORACLE_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/png/writer.h"

namespace hetcodec::test {

// The PNG file libpng writes for `image` (png_write_row per row) with default settings and the
// given zlib strategy (png_set_compression_strategy), or with its default strategy when
// `strategy` is negative.
std::vector<std::uint8_t> libpng_encode(const png::Raster& image, int strategy);

// zlib's deflate() with level 6, memLevel 8 and the given window bits and strategy, fed the
// input in `pieces` with Z_NO_FLUSH and then Z_FINISH with no input.
std::vector<std::uint8_t> zlib_deflate(const std::vector<std::uint8_t>& input,
                                       const std::vector<std::size_t>& pieces, int window_bits,
                                       int strategy);

// Inflates a zlib stream with zlib; throws std::runtime_error when it is not a valid one.
std::vector<std::uint8_t> zlib_inflate(const std::vector<std::uint8_t>& stream);

// Decodes a PNG file with libpng to its samples as stored (16-bit big-endian, palette indices,
// rows below 8 bits packed; an interlaced image's passes put together), with its colour type,
// PLTE and tRNS (png_get_PLTE, png_get_tRNS) in the Raster's fields; a CRC error is fatal in
// every chunk.
png::Raster libpng_decode(const std::vector<std::uint8_t>& file);

// A PNG libpng writes (default settings, or the zlib strategy `strategy` when it is not
// negative) from packed rows of any colour type, bit depth and interlace: `rows` holds height
// rows of png_get_rowbytes() bytes each as PNG packs them (the whole image, libpng interlaces
// it); `palette` RGB triples; `trns` the tRNS chunk's data (palette alphas, or the gray or RGB
// key as 16-bit big-endian samples).
std::vector<std::uint8_t> libpng_write_any(int width, int height, int color_type, int bit_depth,
                                           bool interlace, const std::vector<std::uint8_t>& rows,
                                           const std::vector<std::uint8_t>& palette = {},
                                           const std::vector<std::uint8_t>& trns = {},
                                           int strategy = -1);
// The same for a Raster of any layout (its colour type, depth, samples, PLTE and tRNS), not
// interlaced.
std::vector<std::uint8_t> libpng_write_layout(const png::Raster& image, int strategy);

// Decodes a PNG file as libpng 1.6 reads it with png_set_expand() and interlace handling, and
// with a CRC error fatal in every chunk: palette to RGB(A), gray below 8 bits to 8 bits, a tRNS
// key to alpha, 16-bit samples big-endian. Throws std::runtime_error when libpng refuses it.
png::Raster libpng_decode_expanded(const std::vector<std::uint8_t>& file);

// A file laid out as Apple's encoder lays out one with an iDOT chunk: IHDR, iDOT, then for
// each segment (rows first_rows[k] up to the next) one IDAT chunk holding its part of a single
// zlib stream (level 6, the default strategy, the rows as filtered in `filtered`), the parts
// separated by a full flush, then IEND. With `flush` false the stream has no flushes and the
// IDAT chunks are cut where the segments' rows start in its output: an index that does not
// hold (a segment's data does not inflate on its own).
std::vector<std::uint8_t> idot_file(const png::Raster& image,
                                    const std::vector<std::uint8_t>& filtered,
                                    const std::vector<std::uint32_t>& first_rows,
                                    bool flush = true);

}  // namespace hetcodec::test

#endif  // HETCODEC_TESTS_SUPPORT_LIBPNG_ORACLE_H
