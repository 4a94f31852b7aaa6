// Kernel debugging across devices (docs/debugging.md): a pipeline run stage by stage on one
// device, every buffer that passes between its stages brought back to the host, and the first
// difference between two such runs located in the image.
//
//   auto cpu = hetcodec::dump_jpeg_decode_stages(hetcodec::open_device("cpu"), data, size);
//   auto gpu = hetcodec::dump_jpeg_decode_stages(hetcodec::open_device("cuda"), data, size);
//   if (auto d = hetcodec::first_difference(cpu, gpu)) std::puts(d->where.c_str());
#ifndef HETCODEC_DEBUG_H
#define HETCODEC_DEBUG_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetcodec/device.h"
#include "hetcodec/filters.h"
#include "hetcodec/image.h"
#include "hetcodec/jpeg_encode.h"

namespace hetcodec {

// One buffer between two stages, as the device left it.
struct StageBuffer {
  std::string name;                  // the stage that wrote it: "job", "coefficients", ...
  std::string element;               // "u8", "u16", "i16" or "u32" (little-endian)
  std::vector<std::uint64_t> shape;  // outermost first
  std::string layout;                // what the shape's dimensions are, in words
  std::vector<std::uint8_t> bytes;
};

// A pipeline's stages on one device, in order.
struct StageDump {
  std::string pipeline;     // "jpeg-decode"
  std::string device;       // the device's spec, and its name
  std::string device_name;
  std::vector<StageBuffer> stages;
  // The sizes the stages were run with, by name (jpeg-decode: job_bytes, groups, blocks,
  // plane_bytes, width, height, channels, sample_bytes): what replay_stage needs besides the
  // buffers.
  std::vector<std::pair<std::string, std::uint64_t>> parameters;
};

// JPEG decoding (baseline, extended, progressive, arithmetic; 8- and 12-bit; not lossless)
// stage by stage, each stage waited for and read back: "job" (the host's Huffman stage: the
// job header, quantisation tables and token stream, docs/token-stream.md), "coefficients"
// (the token decode: each block's 64 quantised coefficients, natural order), "planes" (the
// dequantisation and IDCT: each component's samples) and "image" (upsampling and colour
// conversion: the output pixels). The two-kernel path, whose middle buffer the fused kernel
// of the batch path keeps in local memory: its planes and pixels equal the fused path's.
StageDump dump_jpeg_decode_stages(const std::shared_ptr<Device>& device, const std::uint8_t* data,
                                  std::size_t size);

// JPEG encoding on the device (entropy coding there whatever options.entropy says; one image,
// one launch) with each device stage's output brought back: "blocks" (the blocks stage: each
// coded block's 64 quantised coefficients in zigzag order, blocks in coding order: each MCU's
// blocks component by component), "positions" (the blocks' scan: each block's first bit in
// the packed data, a restart interval's end padded to a byte, then the total), "packed" (the
// pack stage: the entropy-coded bytes without stuffing or markers), "stuffing" (the 0xFF
// scan: the 0xFF bytes before each 32-byte chunk of the packed bytes, then the total) and
// "file" (the JPEG file the encoder returns).
StageDump dump_jpeg_encode_stages(const std::shared_ptr<Device>& device, const Image& image,
                                  JpegEncodeOptions options = {});

// PNG decoding stage by stage: "compressed" (only for a file whose hcRS or iDOT index lets the
// device inflate it: the segment table's words, then the joined IDAT data), "inflated" (the
// filtered rows of every pass, each row its filter byte and bytes: the device's inflate with an
// index, the host's otherwise), "job" (the host's unpack job, hc_png_job), "defiltered" (the
// de-filter, in place: the reconstructed rows, filter bytes kept) and "image" (the unpack: the
// output pixels, 16-bit samples big-endian).
StageDump dump_png_decode_stages(const std::shared_ptr<Device>& device, const std::uint8_t* data,
                                 std::size_t size);

// PNG encoding in the parallel mode with the deflate on the device (whatever the device; the
// CPU reference runs the device stages), in `segments` segments (a fixed count, so that every
// device makes the same stream): "samples" (the image's rows as uploaded), "filtered" (each
// row's filter byte, libpng's choice, and its filtered bytes), "plan" (the host's deflate plan:
// the pieces, chunks, segments and block indices, core/portable/png_deflate_plan.h), "symbols"
// (after the emit stage: the deflate symbols, 16-bit, a literal or 256 + length - 3),
// "blocks" (after the layout stage: each block index's record, HC_DFL_BI_WORDS words),
// "deflate" (the packed deflate data of every segment, back to back), "crcs" (the CRC-32 of
// each 1024-byte piece of the zlib stream) and "file" (the PNG file the encoder returns).
StageDump dump_png_encode_stages(const std::shared_ptr<Device>& device, const Image& image,
                                 int segments = 4);

// Lossless JPEG (SOF3) decoding: "file" (the file's bytes, which the residual stage reads),
// "job" (the host's job: scan records, Huffman tables and row tables, core/portable/ljpeg.h),
// "residuals" (each scan's plane: a type byte and 16-bit differences per row), "row-status"
// (HC_LJ_STATUS_WORDS words per coded row), "samples" (the planes reconstructed) and "image"
// (the output pixels, 16-bit samples big-endian).
StageDump dump_ljpeg_decode_stages(const std::shared_ptr<Device>& device, const std::uint8_t* data,
                                   std::size_t size);

// The filters (hetcodec/filters.h), one kernel each: "source" (smooth, texture: the input
// image) and "output" (the filtered or generated samples). The kernel's parameters are the
// dump's (their float fields as their bits).
StageDump dump_smooth_stages(const std::shared_ptr<Device>& device, const Image& image,
                             const SmoothOptions& options = {});
StageDump dump_texture_stages(const std::shared_ptr<Device>& device, const Image& image,
                              const TextureOptions& options = {});
StageDump dump_perlin_stages(const std::shared_ptr<Device>& device, int width, int height,
                             const PerlinOptions& options = {});
StageDump dump_mandelbrot_stages(const std::shared_ptr<Device>& device, int width, int height,
                                 const MandelbrotOptions& options = {});

// Where two dumps of the same pipeline and input first differ.
struct StageDifference {
  std::string stage;                // the first stage whose buffers differ
  std::size_t byte_offset = 0;      // of the first differing byte in the stage's buffer
  std::size_t differing_bytes = 0;  // in that stage, over the whole buffer
  std::string where;                // the element in the image's terms (component, block, ...)
  std::string value_a, value_b;     // the element on each side
};

// The first stage, in order, whose buffers differ (their sizes, or a byte), located in the
// image with the job's layout; nothing when every stage is equal. Error(InvalidArgument) for
// dumps of different pipelines or stages.
std::optional<StageDifference> first_difference(const StageDump& a, const StageDump& b);

// Where stage `replayed` (a stage of `dump`'s, made again) first differs from the dump's, located
// as first_difference locates it; nothing when equal.
std::optional<StageDifference> stage_difference(const StageDump& dump, const StageBuffer& replayed);

// The stages of a dump that ran on its device (jpeg-decode: coefficients, planes, image; the
// job is the host's), which replay_stage runs alone.
std::vector<std::string> replayable_stages(const StageDump& dump);

// A part of a stage to replay instead of the whole stage (the emulator is slow): a band of the
// image's rows [first_row, first_row + rows), or, for jpeg-decode's coefficients and planes, a
// range of the job's blocks [first_block, first_block + blocks), numbered as first_difference
// names them ("block N of the job"). A stage takes one kind (crop_unit); both 0: the whole stage.
struct ReplayCrop {
  std::uint64_t first_row = 0, rows = 0;
  std::uint64_t first_block = 0, blocks = 0;
  bool whole() const { return rows == 0 && blocks == 0; }
};
// How a stage crops: "rows" (png-decode's defiltered and image of a non-interlaced image,
// jpeg-decode's and ljpeg-decode's image, smooth's output), "blocks" (jpeg-decode's
// coefficients and planes), or "" (replayed whole).
std::string crop_unit(const StageDump& dump, const std::string& stage);
bool crop_replayable(const StageDump& dump, const std::string& stage);  // crop_unit not ""

// One device stage of a dump run alone on `device` from the dump's buffers before it, as it ran
// in the pipeline (its output buffer zeroed first), and brought back. Compare it with the dump's
// (stage_difference) to see whether the stage alone makes the same bytes on another device, or
// under Oclgrind with its checks on. Error(InvalidArgument) for a stage the dump lacks or that
// is not a device stage, or a dump whose buffers or parameters do not fit together. png-encode's
// symbols, blocks and deflate stages run the deflate's kernels from the first to the one that
// leaves that buffer, from the dump's filtered rows and plan.
// With a crop (crop_replayable stages), only the crop's rows or blocks run, from the dump's
// buffers (and the rows next to them the stage reads); the buffer returned is the dump's with
// those rows or blocks made again (jpeg-decode's token decode runs the whole groups of 64 blocks
// that hold them, and only the blocks asked for are kept).
StageBuffer replay_stage(const std::shared_ptr<Device>& device, const StageDump& dump,
                         const std::string& stage, const ReplayCrop& crop = {});

// Oclgrind's reports (the text it writes to OCLGRIND_LOG) summed up: one entry per message,
// kernel and source line, with the first work-item it names and the number of such reports.
struct EmulatorReport {
  std::string message;   // the report's first line, without its memory address
  std::string kernel;    // "jpeg_idct"
  std::string entity;    // the first work-item: "Global(3,0,0) Local(3,0,0) Group(0,0,0)"
  std::string location;  // "kernels_cl/jpeg_decode.cl:33" (the kernels' #line files)
  std::string source;    // that line of the kernel program, where hetcodec has its text
  std::size_t count = 0;
};
std::vector<EmulatorReport> summarise_emulator_log(const std::string& log);

}  // namespace hetcodec

#endif  // HETCODEC_DEBUG_H
