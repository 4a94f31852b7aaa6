// What the debugging tools' pipelines share (hetcodec/debug.h): buffers read back, a dump's
// stages and parameters looked up and checked, and each pipeline's dump, replay and location
// of an element (debug_stages.cpp: JPEG decode and encode; debug_pipelines.cpp: PNG decode and
// encode, lossless JPEG, the filters).
#ifndef HETCODEC_HOST_DEBUG_COMMON_H
#define HETCODEC_HOST_DEBUG_COMMON_H

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "hetcodec/debug.h"

namespace hetcodec::detail {

// `bytes` of a buffer from `offset`, once the queue is done.
inline std::vector<std::uint8_t> read_back(Queue& q, const DeviceBuffer& b, std::size_t bytes,
                                           std::size_t offset = 0) {
  std::vector<std::uint8_t> out(bytes);
  if (bytes) q.read(out.data(), b, offset, bytes);
  q.finish();
  return out;
}

// A device buffer of at least one byte holding `bytes` (written).
inline std::unique_ptr<DeviceBuffer> upload_bytes(Device& d, Queue& q,
                                                  const std::vector<std::uint8_t>& bytes) {
  auto b = d.alloc(std::max<std::size_t>(bytes.size(), 1));
  if (!bytes.empty()) q.write(*b, 0, bytes.data(), bytes.size());
  return b;
}

// A zeroed device buffer of at least one byte.
inline std::unique_ptr<DeviceBuffer> zeroed(Device& d, Queue& q, std::size_t bytes) {
  auto b = d.alloc(std::max<std::size_t>(bytes, 1));
  q.zero(*b, 0, b->size());
  return b;
}

inline const StageBuffer& stage_of(const StageDump& d, const std::string& name) {
  for (const StageBuffer& s : d.stages)
    if (s.name == name) return s;
  throw Error(ErrorCode::InvalidArgument, "debug: the dump has no stage " + name);
}

inline bool has_stage(const StageDump& d, const std::string& name) {
  for (const StageBuffer& s : d.stages)
    if (s.name == name) return true;
  return false;
}

inline std::uint64_t parameter(const StageDump& d, const std::string& name) {
  for (const auto& [key, value] : d.parameters)
    if (key == name) return value;
  throw Error(ErrorCode::InvalidArgument, "debug: the dump has no parameter " + name);
}

// A parameter the dump may lack: `fallback` then.
inline std::uint64_t parameter_or(const StageDump& d, const std::string& name,
                                  std::uint64_t fallback) {
  for (const auto& [key, value] : d.parameters)
    if (key == name) return value;
  return fallback;
}

// A crop's rows within an image of `height` rows (Error(InvalidArgument) otherwise).
inline void check_band(const ReplayCrop& crop, std::uint64_t height) {
  if (crop.first_row >= height || crop.rows > height - crop.first_row)
    throw Error(ErrorCode::InvalidArgument, "debug: rows " + std::to_string(crop.first_row) + ".." +
                                                std::to_string(crop.first_row + crop.rows - 1) +
                                                " of an image of " + std::to_string(height));
}

// Sample `element` of rows x `width` columns x `channels` samples, in words.
inline std::string pixel_of(std::size_t element, std::uint64_t width, std::uint64_t channels) {
  return "pixel (" + std::to_string(element / channels % width) + ", " +
         std::to_string(element / channels / width) + "), channel " +
         std::to_string(element % channels);
}

// A parameter that must be at most `most`.
inline std::uint32_t parameter32(const StageDump& d, const std::string& name,
                                 std::uint64_t most = 0xFFFFFFFFu) {
  const std::uint64_t v = parameter(d, name);
  if (v > most)
    throw Error(ErrorCode::InvalidArgument, "debug: the dump's parameter " + name + " (" +
                                                std::to_string(v) + ") is above " +
                                                std::to_string(most));
  return std::uint32_t(v);
}

// A stage's input that must hold `bytes` bytes.
inline const StageBuffer& input_of(const StageDump& d, const std::string& name, std::size_t bytes) {
  const StageBuffer& s = stage_of(d, name);
  if (s.bytes.size() != bytes)
    throw Error(ErrorCode::InvalidArgument, "debug: stage " + name + " holds " +
                                                std::to_string(s.bytes.size()) + " bytes, not " +
                                                std::to_string(bytes));
  return s;
}

// 32-bit words of a stage (its bytes a multiple of 4).
inline std::vector<std::uint32_t> words_of(const StageBuffer& s) {
  if (s.bytes.size() % 4)
    throw Error(ErrorCode::InvalidArgument, "debug: stage " + s.name + " is not 32-bit words");
  std::vector<std::uint32_t> w(s.bytes.size() / 4);
  if (!w.empty()) std::memcpy(w.data(), s.bytes.data(), s.bytes.size());
  return w;
}

inline StageDump dump_on(const std::shared_ptr<Device>& device, const char* pipeline) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "debug: no device");
  StageDump d;
  d.pipeline = pipeline;
  d.device = device->info().spec;
  d.device_name = device->info().name;
  return d;
}

[[noreturn]] inline void no_crop(const std::string& pipeline, const std::string& stage) {
  throw Error(ErrorCode::InvalidArgument,
              "debug: stage " + stage + " of " + pipeline + " is replayed whole (no crop)");
}

// debug_pipelines.cpp's pipelines: png-decode, png-encode, ljpeg-decode, smooth, texture,
// perlin, mandelbrot.
bool other_pipeline(const std::string& pipeline);
std::vector<std::string> other_replayable(const StageDump& dump);
StageBuffer other_replay(const std::shared_ptr<Device>& device, const StageDump& dump,
                         const std::string& stage, const ReplayCrop& crop);
// Element `element` of stage `s` in the image's terms, with the dump's parameters.
std::string other_locate(const StageDump& dump, const StageBuffer& s, std::size_t element);

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_DEBUG_COMMON_H
