// PNG decoding on the CPU side (DESIGN.md §3 "PNG decode"): the chunk parser, inflate of the
// image data (whole stream at once, or segment by segment where the file carries our hcRS
// index), and the reference de-filter and unpacking the device stages are checked against.
//
// Output samples follow libpng 1.6 read with png_set_expand() and no other transformation:
// palette images become RGB (RGBA with tRNS), gray below 8 bits is scaled to 8 bits, a tRNS
// colour key becomes an alpha channel, 16-bit samples stay 16-bit (big-endian, as stored).
//
// Made in parts: chunk_parser.cpp (parse, Info, text_chunks), restart_index.cpp (the hcRS and
// iDOT indexes, inflate_table), inflate.cpp (SegmentInflater, inflate_image), unpack_job.cpp
// (passes, unpack_job: the device job) and reference_decode.cpp (defilter, unpack, decode).
#ifndef HETCODEC_CORE_PNG_READER_H
#define HETCODEC_CORE_PNG_READER_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/png/split_inflate.h"
#include "core/portable/png_decode.h"
#include "core/png/writer.h"

namespace hetcodec::png {

struct DecodeLimits {
  std::uint64_t max_pixels = 1ull << 28;          // 268 MP, as the JPEG decoder
  std::uint64_t max_inflated_bytes = 1ull << 32;  // filtered image data (4 GiB)
  // What decoding the image takes at most: its inflated rows and its output, each on the host
  // and the device (checked at IHDR, with the channels tRNS could add).
  std::uint64_t max_memory_bytes = 4ull << 30;
  std::uint32_t max_chunk_bytes = 8u << 20;       // an ancillary chunk (libpng: 8 MB)
  std::uint32_t max_text_bytes = 1u << 20;        // a zTXt/iTXt text once inflated
  bool ignore_crc = false;  // a CRC mismatch is an error unless this is set (then a warning)
};

struct Chunk {
  std::string type;        // four letters
  std::size_t offset = 0;  // of the chunk's length field in the file
  std::vector<std::uint8_t> data;
};

// Colour types (PNG specification 11.2.2).
enum : int { kGray = 0, kRgb = 2, kPalette = 3, kGrayAlpha = 4, kRgba = 6 };

struct Info {
  std::uint32_t width = 0, height = 0;
  int bit_depth = 8, color_type = kRgb, interlace = 0;
  std::vector<std::array<std::uint8_t, 3>> palette;
  std::vector<std::uint8_t> trns;  // the tRNS chunk's data, when it applies
  std::vector<Chunk> ancillary;    // every other ancillary chunk, in file order
  std::vector<std::pair<std::size_t, std::size_t>> idat;  // offset and length of each IDAT's data
  std::uint64_t idat_bytes = 0;
  std::vector<std::string> warnings;

  int samples_per_pixel() const;         // in the file: 1, 2, 3 or 4 (palette: 1)
  std::uint32_t bits_per_pixel() const;  // in the file
  std::uint32_t filter_bpp() const;      // bytes per pixel for the filters (at least 1)
  // Output after expansion: channels (1-4) and bit depth (8 or 16).
  int out_channels() const;
  int out_depth() const { return bit_depth == 16 ? 16 : 8; }
};

// Parses and checks every chunk. Throws Error(InvalidData) naming the byte offset and what is
// wrong, Error(LimitExceeded) past a limit; returns Info with the image data's locations.
Info parse(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits = {});

// Text of the tEXt, zTXt and iTXt chunks, keyword first; a compressed text that inflates past
// limits.max_text_bytes, or does not inflate, is left out with a warning added to `warnings`.
std::vector<std::pair<std::string, std::string>> text_chunks(const Info& info,
                                                             const DecodeLimits& limits,
                                                             std::vector<std::string>& warnings);

// One sub-image of the filtered data: the whole image, or one Adam7 pass.
struct Pass {
  std::uint32_t width = 0, height = 0;           // in pixels; a pass may be empty
  std::uint32_t x0 = 0, y0 = 0, dx = 1, dy = 1;  // where its pixels go in the image
  std::uint64_t offset = 0;                      // of its first filter byte in the inflated data
  std::uint32_t row_bytes = 0;                   // bytes of one row without the filter byte
};
std::vector<Pass> passes(const Info& info);
std::uint64_t inflated_bytes(const Info& info);

// The segments of the file's hcRS index (docs/png-parallel.md), {first row, offset in the
// zlib stream}, when the index checks out against the image (non-interlaced; rows and offsets
// increasing inside the image and the data); empty otherwise.
std::vector<std::pair<std::uint32_t, std::uint64_t>> hcrs_segments(const Info& info);

// The segments of Apple's iDOT chunk (docs/png-decode.md), in the same form: its row ranges must
// follow each other from row 0 to the last row, and each segment's offset (from the start of
// the iDOT chunk) must land on the start of an IDAT chunk, in increasing order; empty
// otherwise, or for an interlaced image.
std::vector<std::pair<std::uint32_t, std::uint64_t>> idot_segments(const Info& info);

// The index a segment-parallel inflate uses: the hcRS index when it checks out, else the iDOT
// chunk's when it does; `kind` (when given) is set to "hcRS", "iDOT" or "" (none).
std::vector<std::pair<std::uint32_t, std::uint64_t>> restart_segments(const Info& info,
                                                                      std::string* kind = nullptr);

// The segment table of the device inflate (core/portable/png_inflate.h: HC_INF_WORDS words per
// segment) for the file's restart_segments(): empty when there is no usable index, a segment has no
// deflate data, or the data is too long for the table's 32-bit fields.
std::vector<std::uint32_t> inflate_table(const Info& info);

// The segments of a file with an index (restart_segments()) inflated one at a time, each into
// its own rows of the inflated data, on whichever thread calls inflate(): what inflate_image()
// runs on its threads, and what a decoder that overlaps the inflate with later stages drives
// itself. The compressed data is read from the file's IDAT chunks where they lie (nothing is
// joined first).
class SegmentInflater {
 public:
  // No segments (size() 0) when the file has no index that checks out.
  SegmentInflater(const std::uint8_t* data, const Info& info);
  std::size_t size() const { return seg_.size(); }
  const std::string& kind() const { return kind_; }  // "hcRS" or "iDOT"
  // Segment k's rows [first_row(k), end_row(k)).
  std::uint32_t first_row(std::size_t k) const { return seg_[k].first; }
  std::uint32_t end_row(std::size_t k) const {
    return k + 1 < seg_.size() ? seg_[k + 1].first : height_;
  }
  // Inflates segment k into its rows of `out` (inflated_bytes(info) bytes); false when it does
  // not inflate to exactly its rows on its own. Calls for different k may run at once.
  bool inflate(std::size_t k, std::uint8_t* out);
  // Once every segment has inflated: whether their Adler-32 sums add up to the stream's.
  bool check() const;

 private:
  // Bytes [from, to) of the joined IDAT data, as pieces of the chunks.
  std::vector<std::pair<const std::uint8_t*, std::size_t>> range(std::uint64_t from,
                                                                 std::uint64_t to) const;
  const std::uint8_t* data_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> idat_;  // offset in the file, length
  std::vector<std::uint64_t> idat_at_;  // where each chunk starts in the joined data
  std::uint64_t idat_bytes_ = 0;
  std::uint32_t height_ = 0, row_bytes_ = 0;  // row_bytes_ with the filter byte
  std::vector<std::pair<std::uint32_t, std::uint64_t>> seg_;
  std::vector<std::uint32_t> adler_;
  std::string kind_;
};

// Inflates the image data: every IDAT chunk's data as one zlib stream, into exactly
// inflated_bytes(info) bytes at `out`. Too little data is an error; data left over, or a stream
// without its end, a warning. `threads` > 1: where the file carries an index that checks out
// (restart_segments()), its segments are inflated on that many threads (`used_index` says
// whether they were); segments that do not inflate on their own, or whose Adler-32 sums do not
// add up to the stream's, leave a warning and the whole stream is inflated instead. Without
// an index, a stream long enough is inflated in pieces cut at block starts when that checks
// out (split_inflate.h; `split_pieces` gets their number, 0 when it was inflated whole).
// `run` (split_inflate.h), when given, is the pool of threads to run on.
void inflate_image(const std::uint8_t* data, const Info& info, std::uint8_t* out,
                   std::vector<std::string>& warnings, int threads = 1, bool* used_index = nullptr,
                   const ParallelRun& run = {}, int* split_pieces = nullptr);

// The InvalidData error for a row whose filter type is above 4 (`adam7`: the row is one of an
// Adam7 pass's).
[[noreturn]] void bad_filter_type(std::uint32_t row, unsigned type, bool adam7 = false);

// The reference de-filter of one pass in place: `rows` holds its filtered rows (a filter byte,
// then row_bytes bytes); the unfiltered rows are written back over the row bytes. A filter type
// above 4 is an error.
void defilter(std::uint8_t* rows, std::uint32_t height, std::uint32_t row_bytes, std::uint32_t bpp);

// The samples of the de-filtered passes, expanded as libpng expands them.
Raster unpack(const Info& info, const std::vector<std::uint8_t>& defiltered);

// The unpack job of core/portable/png_decode.h.
hc_png_job unpack_job(const Info& info);

// parse + inflate + defilter + unpack on the calling thread.
Raster decode(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits,
              std::vector<std::string>& warnings);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_READER_H
