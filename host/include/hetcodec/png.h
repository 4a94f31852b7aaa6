// PNG encoding (DESIGN.md §3 "PNG encode").
//
//   hetcodec::PngEncoder encoder("auto");               // or "cpu", "cuda:0", "opencl:pocl"
//   std::vector<std::uint8_t> file = encoder.encode(image);
//
// Compatible mode writes the file libpng 1.6 writes with png_set_compression_strategy(Z_RLE)
// and otherwise default settings, byte for byte: libpng's filter choice per row runs on the
// device; the Z_RLE deflate stream (on CPU threads), its checksums and the chunks are made on
// the host.
// The parallel mode (the default) cuts the filtered rows into segments that compress and
// inflate independently, listed in an hcRS chunk (docs/png-parallel.md); every decoder reads
// the file as a normal PNG. The small mode writes the same segments with a full LZ77 deflate
// (libdeflate, on host threads): smaller files, made more slowly.
//
// A palette image stays one: PngDecoder::layout reads a file's colour layout, and
// encoder.encode(image, layout) maps the decoded (expanded) samples back to it.
#ifndef HETCODEC_PNG_H
#define HETCODEC_PNG_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hetcodec/device.h"
#include "hetcodec/image.h"

namespace hetcodec {

// Compatible: libpng's bytes with Z_RLE. Parallel: segments indexed by an hcRS chunk, Z_RLE
// deflate on the device or host threads. Small: the parallel mode's segments and index, each
// segment deflated by libdeflate at its highest level on host threads (Error(Unsupported) in a
// build without libdeflate).
enum class PngMode { Compatible, Parallel, Small };

// A PNG file's colour layout as stored (PNG specification 11.2.2 IHDR, 11.2.3 PLTE, 11.3.2.1
// tRNS): what PngDecoder::layout reads from a file without decoding its image, and what
// PngEncoder::encode(image, layout) writes.
struct PngLayout {
  enum class Color { Gray = 0, RGB = 2, Palette = 3, GrayAlpha = 4, RGBA = 6 };
  Color color = Color::RGB;
  int bit_depth = 8;  // 1, 2, 4 or 8 (Palette); 1, 2, 4, 8 or 16 (Gray); 8 or 16 (the others)
  std::vector<std::array<std::uint8_t, 3>> palette;  // Palette: 1 to 2^bit_depth entries (RGB)
  // tRNS, as the chunk stores it: Palette, the alphas of the first entries (the others are
  // opaque); Gray, the key sample, and RGB, the red, green and blue key samples, each 2 bytes
  // big-endian. Empty: none.
  std::vector<std::uint8_t> trns;
  // The format and depth of the Image PngDecoder::decode gives for such a file (palette to RGB,
  // RGBA with tRNS; gray below 8 bits to 8; a key to an alpha channel): what
  // encode(image, layout) takes.
  PixelFormat expanded_format() const {
    const int colour = color == Color::Palette ? 3 : channels(color);
    return png_format(colour + (trns.empty() ? 0 : 1));
  }
  int expanded_depth() const { return bit_depth == 16 ? 16 : 8; }
  static int channels(Color c) {
    return c == Color::RGB ? 3 : c == Color::GrayAlpha ? 2 : c == Color::RGBA ? 4 : 1;
  }
};
// Where the deflate stream is made: on the device (core/portable/png_deflate.h, the same
// bytes), or from the filtered rows on host threads. Auto: the device, except on the CPU
// reference and on emulators, where host threads make the same bytes sooner.
enum class PngDeflate { Auto, Host, Device };

struct PngEncodeOptions {
  PngMode mode = PngMode::Parallel;
  // Parallel and small modes: segments (at most one per row). 0: one per compute unit of the
  // device.
  int segments = 0;
  // CPU threads for the host stages of a large image (the deflate stream; in the small mode its
  // segments). 0: one per hardware thread.
  int threads = 0;
  PngDeflate deflate = PngDeflate::Auto;
  // Time each step (waiting for the device after each, which costs a little): stage_times().
  bool profile = false;
};

namespace detail {
struct PngEncoderAccess;  // (the debugging tools' view, hetcodec/debug.h)
}

class PngEncoder {
 public:
  // Seconds spent per step, summed over the images encoded with PngEncodeOptions::profile on.
  struct StageTimes {
    double upload = 0;                   // the samples to the device
    double filter = 0;                   // the filter choice and the filtered rows
    double deflate = 0;                  // the device deflate, all its stages
    std::vector<double> deflate_stages;  // each stage of it (core/portable/png_deflate.h order)
    double download = 0;  // the deflate data (or, for the host deflate, the filtered rows)
    double host = 0;      // the host's part: the stream (host deflate), chunks and CRCs
    std::uint64_t images = 0;
  };

  explicit PngEncoder(const std::string& device_spec = "", PngEncodeOptions options = {});
  PngEncoder(std::shared_ptr<Device> device, PngEncodeOptions options = {});
  ~PngEncoder();
  PngEncoder(const PngEncoder&) = delete;
  PngEncoder& operator=(const PngEncoder&) = delete;

  Device& device();
  // The PNG file: gray, gray + alpha, RGB or RGBA samples of 8 or 16 bits, with the image's
  // metadata (core/image.h's Metadata; none when it is empty). Error(InvalidArgument)
  // for an image PNG cannot hold (no pixels, more than 2^31 - 1 either way, CMYK, a depth other
  // than 8 or 16, samples of the wrong size).
  std::vector<std::uint8_t> encode(const Image& image);
  // The PNG file in `layout`: `image` is in the layout's expanded format and depth (as
  // PngDecoder decoded it from a file of that layout) and its pixels are mapped back to palette
  // indices, gray of 1, 2 or 4 bits, or samples whose alpha a tRNS key gives; PLTE and tRNS are
  // written. Palette and sub-8-bit rows are filtered with None, as libpng does, and the
  // compatible mode's file equals libpng's writing that layout with Z_RLE. Error(InvalidArgument)
  // for a layout PNG does not allow, an image of another format, or naming the first pixel the
  // layout cannot hold.
  std::vector<std::uint8_t> encode(const Image& image, const PngLayout& layout);
  // An image already in this encoder's device memory (from JpegDecoder::decode_to_device or
  // PngDecoder::decode_to_device): it is filtered where it is. CMYK, an empty buffer or a buffer
  // of another device: Error(InvalidArgument).
  std::vector<std::uint8_t> encode(const DeviceImage& image);
  // Whether the last encode made its deflate stream on the device. It falls back to the host
  // when the device path cannot make zlib's bytes (a compatible-mode block that zlib would
  // store only if its window still held the bytes), the data is too large for its 32-bit
  // offsets, or the device has too little memory for its buffers.
  bool last_deflated_on_device() const;
  const StageTimes& stage_times() const;
  void reset_stage_times();

 private:
  friend struct detail::PngEncoderAccess;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- PNG decode (DESIGN.md §3 "PNG decode") -----------------------------------------------------
//
//   hetcodec::PngDecoder decoder("auto");
//   hetcodec::Image image = decoder.decode(bytes.data(), bytes.size());
//
// Every PNG: all colour types and bit depths, palettes, tRNS, Adam7. The chunks are parsed and
// the image data inflated on the host (its segments on several threads when the file carries
// the hcRS index our encoder writes, or Apple's iDOT); the rows are de-filtered on the device by
// the wavefront engine and unpacked there. The samples equal libpng 1.6's read with
// png_set_expand(): palette to RGB or RGBA, gray below 8 bits scaled to 8, a tRNS colour key
// to an alpha channel, 16-bit kept (big-endian).

enum class PngInflate { Auto, Host, Device };

struct PngDecodeOptions {
  std::uint64_t max_pixels = 1ull << 28;                // LimitExceeded past it
  std::uint64_t max_inflated_bytes = (1ull << 32) - 1;  // filtered image data
  // What one image may take at most, on the host and the device together: its inflated rows and
  // its output (with the alpha a tRNS chunk may add), checked at IHDR before anything is
  // allocated; LimitExceeded past it. 4 GiB takes 8-bit RGBA up to about 16000 x 16000 and
  // 16-bit RGBA up to about 134 MP; larger ones under max_pixels need more (and then
  // max_inflated_bytes, 4 GiB, may be the limit that refuses them).
  std::uint64_t max_memory_bytes = 4ull << 30;
  std::uint32_t max_chunk_bytes = 8u << 20;  // ancillary chunks past it are skipped (a warning)
  bool ignore_crc = false;  // a CRC mismatch is an error unless set (then a warning)
  int threads = 0;          // host threads for segment-parallel inflate; 0: hardware threads
  // decode_batch: images decoded at once, each on its own host thread and device queue (the
  // host inflate of one overlaps the device work of another). 8 gave more throughput than 4
  // (docs/benchmarks.md).
  int batch_streams = 8;
  // Tile order of the de-filter (hetcodec/device.h). Auto: tickets on a GPU, one launch per
  // diagonal on CPU devices and the emulator.
  Wavefront wavefront = Wavefront::Auto;
  // Where the segments of a file with an hcRS index (our parallel mode) or an iDOT index
  // (Apple's) are inflated: on host
  // threads, or on the device, one work-item per segment (core/portable/png_inflate.h); a
  // device inflate that fails for any reason falls back to the host, which then reports what
  // is wrong. Auto: the host (faster: docs/benchmarks.md).
  PngInflate inflate = PngInflate::Auto;
  // A non-interlaced file with an index whose segments the host inflates is decoded in pieces
  // of about this many inflated bytes, cut before rows filtered with None or Sub (which need no
  // row above; our parallel mode starts one every 32 rows): each piece is uploaded,
  // de-filtered, unpacked and downloaded on the device while the host inflates the pieces
  // after it. 0, an image under two pieces, or fewer than 4 `threads` (a decoder sharing the
  // host with others, whose images overlap one another already): no pieces, each stage waited
  // for in turn.
  std::size_t overlap_bytes = std::size_t(1) << 20;
};

class PngDecoder {
 public:
  // Seconds spent by a decoder's calls so far.
  struct StageTimes {
    double inflate = 0;   // parse (CRCs included), inflate and the filter-type check on the host
    double upload = 0;    // the inflated rows to the device
    double kernels = 0;   // de-filter and unpack
    double download = 0;  // a host image's samples back into its vector
    bool used_index = false;          // the last file was inflated segment by segment
    bool inflated_on_device = false;  // ... and its segments on the device
    int split_pieces = 0;  // the last file had no index and was inflated in this many pieces cut
                           // at block starts, on host threads (0: whole, or it had an index)
    // The last file was decoded in overlapping pieces (PngDecodeOptions::overlap_bytes): its
    // inflate time then covers the pieces' upload and kernels that ran meanwhile, and upload and
    // kernels count only the device time waited for after the inflate.
    bool overlapped = false;
    std::uint64_t images = 0;  // decoded since the decoder was made or its times were reset
    double device() const { return upload + kernels + download; }
  };

  explicit PngDecoder(const std::string& device_spec = "", PngDecodeOptions options = {});
  PngDecoder(std::shared_ptr<Device> device, PngDecodeOptions options = {});
  ~PngDecoder();
  PngDecoder(const PngDecoder&) = delete;
  PngDecoder& operator=(const PngDecoder&) = delete;

  Device& device();
  // The size and format decode() will give: the chunks are read and checked as decode() reads
  // them (CRCs, IHDR, PLTE, tRNS), the image data is not inflated. Error(InvalidData) with the
  // byte offset for a damaged or invalid file, LimitExceeded past max_pixels.
  ImageInfo info(const std::uint8_t* data, std::size_t size) const;
  // The colour layout of the file as stored, read and checked as info() reads it (the image
  // data is not inflated): the colour type, depth, palette and the tRNS that applies (a key
  // masked to the depth, as decoding compares it). Interlacing is not part of it.
  PngLayout layout(const std::uint8_t* data, std::size_t size) const;
  // Error(InvalidData) with the byte offset for a damaged or invalid file, LimitExceeded past
  // a limit. Warnings (a damaged ancillary chunk when CRCs are ignored, extra data) are in the
  // image's `warnings`.
  Image decode(const std::uint8_t* data, std::size_t size);
  // The same into `out`, whose sample vector keeps its capacity from call to call (no page
  // faults on a fresh allocation when images of one size are decoded in a loop).
  void decode(const std::uint8_t* data, std::size_t size, Image& out);
  // Many files: `batch_streams` at once. With `errors`, a file that fails leaves its image
  // empty and its Error in errors[i], and the others go on; without, the first failure throws.
  std::vector<Image> decode_batch(const std::vector<Input>& inputs, BatchErrors* errors = nullptr);
  DeviceImage decode_to_device(const std::uint8_t* data, std::size_t size);
  const StageTimes& stage_times() const;
  void reset_stage_times();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetcodec

#endif  // HETCODEC_PNG_H
