// The JPEG decoder's host stage (DESIGN.md §3 "JPEG decode", first half): parse, layout, Huffman
// decoding on CPU threads into the token stream, and the job buffer the device stages read
// (core/portable/jpeg_job.h), written into host memory or straight into pinned memory.
#ifndef HETCODEC_HOST_JPEG_PREPARE_H
#define HETCODEC_HOST_JPEG_PREPARE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/image.h"
#include "core/jpeg/entropy.h"
#include "core/jpeg/layout.h"
#include "hetcodec/jpeg.h"
#include "host/src/parallel.h"

namespace hetcodec::detail {

// The host stage's product for one image.
struct JpegPrepared {
  bool ok = false;
  ErrorCode code = ErrorCode::InvalidData;
  std::string error;
  // The job buffer: in `job`, or, where the caller asked for it, written straight into pinned
  // memory, so the feeding thread copies nothing: at info.job_offset in a chunk's arena
  // (`arena`, which the chunk owns), or in a buffer of its own (`pinned`).
  std::vector<std::uint32_t> job;
  PinnedBuffer* arena = nullptr;
  std::unique_ptr<PinnedBuffer> pinned;
  JpegJobInfo info;
  PixelFormat format = PixelFormat::RGB;
  std::vector<std::string> warnings;
  Metadata metadata;  // EXIF and ICC profile (core/jpeg/metadata.h)
  double seconds = 0;
};

// Fills out.info (a job of `job_bytes` for this layout) and out.format.
void describe_job(const jpeg::Layout& layout, std::size_t job_bytes, JpegPrepared& out);

// Where a job of `bytes` goes: sets out.arena and out.info.job_offset, or out.pinned, and
// returns the address to write it at.
using JobPlacer = std::function<std::uint8_t*(std::size_t bytes, JpegPrepared& out)>;

// Prepares one file on up to `threads` threads (of `pool` when given). Failures are recorded in
// `out` (ok, code, error), never thrown. `results` is scratch the caller keeps from image to
// image (its capacity is reused). `place`, when given, supplies pinned memory for the job
// instead of out.job.
// `crop`: the region of the (scaled) output to decode, or whole().
void prepare_jpeg(const Input& input, const JpegDecodeOptions& options, int threads,
                  JpegPrepared& out, std::vector<jpeg::EntropyResult>& results,
                  const JobPlacer& place = {}, WorkerPool* pool = nullptr);

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_JPEG_PREPARE_H
