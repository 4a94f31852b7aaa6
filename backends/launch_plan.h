// The geometry of every kernel launch, computed once for the CUDA launchers (kernels_cu/), the
// OpenCL enqueue code (backends/opencl/) and the CPU backend (backends/cpu/): how many
// work-groups, how many lanes each, and for the wavefront engine which passes. A body of
// core/portable runs as a CUDA block or an OpenCL work-group of `lanes` (GROUP bodies, with
// barriers), or as one work-item of such a group (ITEM bodies, indexed group * lanes + lane);
// the CPU runs a GROUP body once per group with lane 0 of 1, and an ITEM body for every index.
#ifndef HETCODEC_BACKENDS_LAUNCH_PLAN_H
#define HETCODEC_BACKENDS_LAUNCH_PLAN_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetcodec {

struct PngDefilterInfo;
struct LjpegScanInfo;
struct PngFilterInfo;
enum class Wavefront;

struct Launch {
  std::uint32_t groups_x = 0;  // work-groups (CUDA blocks) along x
  std::uint32_t groups_y = 1;  // and along y (the unpack stage's row groups)
  std::uint32_t lanes = 1;     // work-items (threads) per work-group
  std::uint64_t items() const { return std::uint64_t(groups_x) * groups_y * lanes; }
};

// `items` ITEM-body indices in work-groups of `lanes` (the last one partly past the end: bodies
// check their bound).
Launch launch_items(std::uint64_t items, std::uint32_t lanes);
// `groups` work-groups of `lanes`.
Launch launch_groups(std::uint32_t groups, std::uint32_t lanes);

// The wavefront engine's kernels (core/portable/wavefront_body.h, png_defilter.h).
enum class DefilterKernel { Clear, Rows, Bands, Tiles };
struct DefilterPass {
  DefilterKernel kernel;
  Launch launch;
  std::int32_t diagonal = -1;              // Tiles: the anti-diagonal, or -1 for ticket order
  std::uint32_t clear_words = 0;           // Clear: the words of scratch to zero
  std::uint32_t tiles_x = 0, tiles_y = 0;  // Tiles
};
// The passes that de-filter one pass of a PNG image in the order `order` (Auto as Tickets).
std::vector<DefilterPass> plan_png_defilter(const PngDefilterInfo& info, Wavefront order);
// Bytes of scratch the ticket order needs: the counter and a flag per tile.
std::size_t png_defilter_scratch_bytes(const PngDefilterInfo& info);

Launch plan_png_filter_rows(const PngFilterInfo& info);
Launch plan_png_unpack(std::uint32_t width, std::uint32_t height);
Launch plan_png_inflate(std::uint32_t segments);
Launch plan_png_crc32_pieces(std::uint32_t count);
Launch plan_png_deflate(int stage, std::uint32_t items);

// Lossless JPEG (core/portable/ljpeg.h): the residual stage (a work-item per row), the
// reconstruction's passes, and the unpacking of output pixels.
Launch plan_ljpeg_residuals(std::uint32_t rows);
enum class LjpegPassKind { FirstColumn, FirstRowSums, ColumnSums, Wavefront };
struct LjpegPass {
  LjpegPassKind kind;
  Launch launch;
  DefilterPass wavefront{DefilterKernel::Clear, {}};  // kind Wavefront: the engine's pass
};
// The wavefront engine's view of a scan's plane.
PngDefilterInfo ljpeg_wavefront_info(const LjpegScanInfo& info);
std::vector<LjpegPass> plan_ljpeg_reconstruct(const LjpegScanInfo& info, Wavefront order);
Launch plan_ljpeg_unpack(std::uint32_t width, std::uint32_t height);

// JPEG encode (core/portable/jpeg_encode.h): a stage's items, to work-items or work-groups.
Launch plan_jpeg_encode(int stage, std::uint32_t items);
// Device Huffman decoding (core/portable/jpeg_huffman.h): a stage's items.
Launch plan_jpeg_entropy(int stage, std::uint32_t items);
// A filter kernel (core/portable/filters.h) over a width x height image.
Launch plan_filter(int kind, std::uint32_t width, std::uint32_t height);

Launch plan_jpeg_decode_idct(std::uint32_t groups);  // also decode_tokens and the chunk form
Launch plan_jpeg_idct(std::uint32_t blocks);
Launch plan_jpeg_pixels(std::uint32_t pixels);  // upsample_color and ycc_to_rgb
Launch plan_jpeg_color_chunk(std::uint32_t tiles);

}  // namespace hetcodec

#endif  // HETCODEC_BACKENDS_LAUNCH_PLAN_H
