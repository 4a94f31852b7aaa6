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

// The stages of a dump that ran on its device (jpeg-decode: coefficients, planes, image; the
// job is the host's), which replay_stage runs alone.
std::vector<std::string> replayable_stages(const StageDump& dump);

// One device stage of a dump run alone on `device` from the dump's buffers before it, as it ran
// in the pipeline (its output buffer zeroed first), and brought back. Compare it with the dump's
// (first_difference of the two dumps' stages) to see whether the stage alone makes the same
// bytes on another device, or under Oclgrind with its checks on. Error(InvalidArgument) for a
// stage the dump lacks or that is not a device stage, or a dump whose buffers or parameters do
// not fit together.
StageBuffer replay_stage(const std::shared_ptr<Device>& device, const StageDump& dump,
                         const std::string& stage);

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
