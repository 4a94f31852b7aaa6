// The JPEG decoder's host stage (jpeg_prepare.h): core/jpeg parses the markers (T.81 Annex B),
// lays out the planes and decodes the Huffman data (T.81 F.2.2) into the token stream
// (docs/token-stream.md); the job header and the stream are written where the caller says.
#include "host/src/jpeg_prepare.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <string>

#include "core/jpeg/coefficients.h"
#include "core/jpeg/job.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/metadata.h"
#include "core/jpeg/parser.h"

namespace hetcodec::detail {
namespace {

// Entropy-coded data per piece below which a scan is not split across threads.
constexpr std::size_t kMinSplitBytes = 32 << 10;

// The Huffman decoding of one file into `results`: the file's tasks (restart intervals) on
// threads, or, for one scan without restart markers, its pieces at once where there are
// threads for it (the tokens are the same either way). Splitting about doubles the CPU work,
// so it pays from four threads on.
void decode_entropy(const jpeg::EntropyDecoder& decoder, int threads, WorkerPool* pool,
                    std::vector<jpeg::EntropyResult>& results) {
  const auto tasks = decoder.tasks(threads);
  auto run_on_threads = [threads, pool](std::size_t count,
                                        const std::function<void(std::size_t)>& fn) {
    parallel_for(count, threads, fn, pool);
  };
  const bool split = tasks.size() == 1 && threads >= 4 &&
                     decoder.run_split(threads, kMinSplitBytes, run_on_threads, results);
  if (split) return;
  if (results.size() < tasks.size()) results.resize(tasks.size());
  for (auto& r : results) r.clear();
  results.resize(tasks.size());
  // One task: its tokens go straight to their groups' buckets.
  if (tasks.size() == 1) decoder.use_groups(results[0]);
  parallel_for(
      tasks.size(), threads, [&](std::size_t i) { decoder.run(tasks[i], results[i]); }, pool);
}

// Files whose scans are decoded into a coefficient buffer first: progressive and
// arithmetic-coded ones.
bool uses_coefficients(const jpeg::Header& h) {
  return h.process == jpeg::Process::ProgressiveHuffman || h.process == jpeg::Process::Arithmetic;
}

// JpegDecodeOptions::max_memory_bytes: Error(LimitExceeded) when `bytes` (what the image takes,
// `what` saying of what) pass it.
void check_memory(const JpegDecodeOptions& options, std::uint64_t bytes, const std::string& what) {
  if (bytes > options.max_memory_bytes)
    throw Error(ErrorCode::LimitExceeded,
                "jpeg: the image would take " + std::to_string(bytes) + " bytes of memory (" +
                    what + "), over max_memory_bytes " + std::to_string(options.max_memory_bytes));
}

}  // namespace

void describe_job(const jpeg::Layout& layout, std::size_t job_bytes, JpegPrepared& out) {
  out.info.job_bytes = job_bytes;
  out.info.groups = layout.groups;
  out.info.blocks = layout.blocks;
  out.info.plane_bytes = layout.plane_bytes;
  out.info.width = std::uint32_t(layout.output_width);
  out.info.height = std::uint32_t(layout.output_height);
  out.info.channels = std::uint32_t(channels(layout.format));
  out.info.sample_bytes = std::uint32_t(layout.sample_bytes());
  out.format = layout.format;
}

void prepare_jpeg(const Input& input, const JpegDecodeOptions& options, int threads,
                  JpegPrepared& out, std::vector<jpeg::EntropyResult>& results,
                  const JobPlacer& place, WorkerPool* pool) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint8_t* const data = input.data;
  const std::size_t size = input.size;
  try {
    jpeg::Limits limits;
    limits.max_pixels = options.max_pixels;
    limits.max_scans = options.max_scans;
    const jpeg::Header header = jpeg::parse(data, size, limits);
    jpeg::Layout layout = jpeg::make_layout(header, options.scale_denom);
    if (!input.crop.whole())
      jpeg::crop_layout(layout, header, input.crop.x, input.crop.y, input.crop.width,
                        input.crop.height);
    auto parallel = [threads, pool](std::size_t count, const std::function<void(std::size_t)>& fn) {
      parallel_for(count, threads, fn, pool);
    };
    // The memory the image takes whatever its data: the output on the device and the host, the
    // planes, and the coefficients where the scans are decoded into them.
    const bool coefficients = uses_coefficients(header);
    const std::uint64_t coefficient_bytes =
        coefficients ? std::uint64_t(layout.groups) * 64 * 64 * sizeof(std::int16_t) : 0;
    const std::uint64_t fixed =
        2 * std::uint64_t(layout.output_bytes()) + layout.plane_bytes + coefficient_bytes;
    check_memory(options, fixed,
                 coefficients ? "output, planes and coefficients" : "output and planes");
    std::vector<std::string> coef_warnings;
    std::vector<std::array<std::int32_t, 64>> quant;
    if (coefficients) {
      // Progressive and arithmetic-coded files: every scan into one coefficient buffer, then
      // tokens (docs/token-stream.md, "Progressive and arithmetic-coded files").
      jpeg::CoefficientDecoder decoder(data, size, header, layout);
      decoder.run(coef_warnings);
      decoder.tokenize(std::max(1, std::min(threads, int(layout.groups / 64) + 1)), parallel,
                       results);
      quant = decoder.quant();
    } else {
      const jpeg::EntropyDecoder decoder(data, size, header, layout);
      decode_entropy(decoder, threads, pool, results);
      quant = decoder.quant();
    }
    const std::size_t tokens = jpeg::token_count(results);
    if (tokens > options.max_tokens)
      throw Error(ErrorCode::LimitExceeded, "jpeg: " + std::to_string(tokens) +
                                                " tokens (non-zero coefficients, four a "
                                                "token) are over max_tokens " +
                                                std::to_string(options.max_tokens));
    const std::size_t stream = jpeg::token_stream_size(layout, results);
    const std::size_t bytes = jpeg::job_bytes(stream);
    check_memory(options, fixed + 2 * std::uint64_t(bytes),
                 "output, planes, " + std::string(coefficients ? "coefficients, " : "") +
                     "and its token stream on the host and the device");
    std::uint8_t* job;
    if (place) {
      job = place(bytes, out);
    } else {
      out.job.resize(bytes / 4);
      job = reinterpret_cast<std::uint8_t*>(out.job.data());
    }
    jpeg::write_job_header(layout, quant, job);
    jpeg::write_token_stream(layout, results, job + jpeg::job_stream_offset(), parallel);
    describe_job(layout, bytes, out);
    out.warnings = header.warnings;
    out.warnings.insert(out.warnings.end(), coef_warnings.begin(), coef_warnings.end());
    out.metadata = jpeg::read_metadata(data, header, out.warnings);
    for (const auto& r : results)
      out.warnings.insert(out.warnings.end(), r.warnings.begin(), r.warnings.end());
    out.ok = true;
  } catch (const Error& e) {
    out.ok = false;
    out.code = e.code();
    out.error = e.what();
  } catch (const std::bad_alloc&) {
    out.ok = false;
    out.code = ErrorCode::OutOfMemory;
    out.error = "jpeg: out of host memory";
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace hetcodec::detail
