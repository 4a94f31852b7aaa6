// Builds the device job of one JPEG decode (core/portable/jpeg_job.h): header words, the
// quantisation tables, then the token stream, in one buffer that is copied to the device at once.
#ifndef HETCODEC_CORE_JPEG_JOB_H
#define HETCODEC_CORE_JPEG_JOB_H

#include <cstddef>
#include <cstdint>

#include "core/jpeg/entropy.h"
#include "core/jpeg/layout.h"

namespace hetcodec::jpeg {

// Byte offset of the token stream inside a job.
std::size_t job_stream_offset();

// Bytes of a job whose token stream has `stream_bytes` bytes.
std::size_t job_bytes(std::size_t stream_bytes);

// Writes the header and quantisation tables (job_stream_offset() bytes) to `out`, which must be
// 4-byte aligned; the token stream goes at out + job_stream_offset().
// `quant`: each component's quantisation table in natural order (EntropyDecoder::quant(),
// CoefficientDecoder::quant()).
void write_job_header(const Layout& layout, const std::vector<std::array<std::int32_t, 64>>& quant,
                      std::uint8_t* out);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_JOB_H
