// PNG files from raw scanlines on the host: the CPU reference of the encoder in both modes — the
// compatible mode, whose bytes equal libpng 1.6's with png_set_compression_strategy(Z_RLE) and
// otherwise default settings, and the parallel mode's segments and bands (docs/png-parallel.md).
#ifndef HETCODEC_CORE_PNG_WRITER_H
#define HETCODEC_CORE_PNG_WRITER_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/image.h"

namespace hetcodec::png {

// Samples as PNG stores them: rows top to bottom, each width * channels samples of bit_depth
// bits, 16-bit samples big-endian; a row of samples below 8 bits packed from the high bits of
// its bytes and padded with zero bits to a whole byte.
struct Raster {
  int width = 0, height = 0;
  int channels = 3;   // 1 gray (or a palette index), 2 gray + alpha, 3 RGB, 4 RGBA
  int bit_depth = 8;  // 8 or 16; 1, 2 or 4 for gray and palette images
  std::vector<std::uint8_t> samples;
  // A palette image (colour type 3, one channel: the indices) and its PLTE chunk's data, three
  // bytes (red, green, blue) an entry.
  bool indexed = false;
  std::vector<std::uint8_t> plte;
  // The tRNS chunk's data: the palette's alphas, or the gray or RGB key as 16-bit samples.
  std::vector<std::uint8_t> trns;
  // Chunks written before the image data (core/png/metadata.h); null: none. Not owned.
  const Metadata* metadata = nullptr;
  std::size_t row_bytes() const {
    return (std::size_t(width) * std::size_t(channels) * std::size_t(bit_depth) + 7) / 8;
  }
  int color_type() const {  // PNG specification 11.2.2
    static const int kType[5] = {0, 0, 4, 2, 6};
    return indexed ? 3 : kType[channels >= 1 && channels <= 4 ? channels : 0];
  }
  // Whether rows are filtered with None alone, as libpng filters palette images and those below
  // 8 bits (png_write_IHDR); bytes per pixel for the filters otherwise.
  bool none_only() const { return indexed || bit_depth < 8; }
  int filter_bpp() const { return std::max(1, channels * bit_depth / 8); }
};

// Throws Error(InvalidArgument) for a size, channel count, depth or palette PNG lacks.
std::vector<std::uint8_t> encode_compatible(const Raster& image);
// The same checks alone, on an image or on its shape and sample count (8 or 16 bits).
void check_raster(const Raster& image);
void check_shape(int width, int height, int channels, int bit_depth, std::size_t sample_bytes);
// The colour type, depth, PLTE and tRNS of `image` (its samples not read): a combination the
// PNG specification allows (11.2.2), a palette of 1 to 2^depth entries (at most 256), a tRNS of
// at most one alpha an entry, or a key of 2 (gray) or 6 (RGB) bytes whose samples fit the depth.
void check_layout(const Raster& image);

// The file from rows already filtered as libpng filters them (filter_rows_libpng(), or the
// device's filter_rows stage): `image` gives the size and format, its samples are not read.
// `threads` > 1 spreads the deflate work of large images over that many threads.
std::vector<std::uint8_t> assemble_compatible(const Raster& image,
                                              const std::vector<std::uint8_t>& filtered,
                                              int threads = 1);

// The parallel mode (docs/png-parallel.md): the rows, filtered as libpng filters them, cut into
// `segments` runs of whole rows (at most one per row; 0: one), each compressed on its own and
// ending on a byte boundary, and an hcRS chunk before the IDAT chunks listing where each
// segment's rows and data start. A valid PNG for every decoder.
std::vector<std::uint8_t> assemble_parallel(const Raster& image,
                                            const std::vector<std::uint8_t>& filtered, int segments,
                                            int threads);

// The hcRS chunk's contents parsed: the segments' first rows and their offsets in the zlib
// stream (the IDAT data joined). Empty when `file` has no valid hcRS chunk.
struct RestartIndex {
  std::vector<std::uint32_t> first_row;
  std::vector<std::uint32_t> offset;
};
RestartIndex read_restart_index(const std::vector<std::uint8_t>& file);

// Pieces of a zlib stream, joined in order when written.
// `crcs`, when given, holds the CRC-32s of the part's bytes in pieces computed elsewhere (the
// device): piece j is bytes [j * piece - skew, (j + 1) * piece - skew) clipped to the part
// (core/portable/png_crc.h). A chunk whose cuts fall on piece boundaries inside the part takes
// its CRC from them; any other stretch is checksummed from the bytes.
struct PieceCrcs {
  const std::uint32_t* crc;
  std::size_t count, piece, skew;
};
struct StreamPart {
  const std::uint8_t* data;
  std::size_t size;
  const PieceCrcs* crcs = nullptr;
};

// The compatible mode's file from its zlib stream, given in parts whose first is the two-byte
// zlib header (whose window field is rewritten here as libpng's optimize_cmf() does).
std::vector<std::uint8_t> compatible_file(const Raster& image, std::vector<StreamPart> zlib);
// The zlib window libpng asks for when it writes the image.
int compatible_window_bits(const Raster& image);

// The parallel mode's segments: first rows, and where their filtered bytes start.
struct ParallelSegments {
  std::vector<std::uint32_t> first_row;
  std::vector<std::size_t> starts;
};
ParallelSegments parallel_segments(const Raster& image, int segments);
// The parallel mode's file from its zlib stream (in parts) and the segments' offsets in it.
std::vector<std::uint8_t> parallel_file(const Raster& image,
                                        const std::vector<std::uint32_t>& first_row,
                                        const std::vector<std::size_t>& offsets,
                                        const std::vector<StreamPart>& zlib);

// libpng's filter mask for the image and its bytes per pixel.
unsigned libpng_filter_mask_of(const Raster& image);

// The parallel mode's bands (docs/png-parallel.md): every kParallelBandRows-th row after the
// first is filtered with None or Sub, whichever libpng's rule prefers of the two.
constexpr std::uint32_t kParallelBandRows = 32;

// The filtered scanlines (a filter byte, then the row) as libpng chooses them; with band_rows,
// rows y > 0 with y % band_rows == 0 choose between None and Sub only.
std::vector<std::uint8_t> filter_rows_libpng(const Raster& image, std::uint32_t band_rows = 0);

// The zlib window libpng asks for: 15 bits, less for images of at most 16384 filtered bytes.
int libpng_window_bits(std::uint64_t filtered_bytes);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_WRITER_H
