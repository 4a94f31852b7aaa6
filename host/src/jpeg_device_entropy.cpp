// The JPEG decoder's Huffman stage on the device (jpeg_device_entropy.h).
#include "host/src/jpeg_device_entropy.h"

#include <algorithm>
#include <thread>

#include "core/jpeg/job.h"
#include "core/jpeg/metadata.h"
#include "core/portable/jpeg_huffman.h"
#include "host/src/batch_engine.h"

namespace hetcodec::detail {

bool prepare_jpeg_device(const Input& input, const JpegDecodeOptions& options, JpegPrepared& out,
                         JpegDeviceSource& src) {
  if (!input.crop.whole()) return false;
  try {
    jpeg::Limits limits;
    limits.max_pixels = options.max_pixels;
    limits.max_scans = options.max_scans;
    // One large file at a time: its marker search on threads from 1 MiB of data, one per 512 KiB
    // (the batch path parses many files side by side instead).
    limits.parallel_scan_bytes = std::size_t(1) << 20;
    limits.scan_threads = int(std::clamp<std::size_t>(
        input.size >> 19, 1, std::max(1u, std::thread::hardware_concurrency())));
    src.header = jpeg::parse(input.data, input.size, limits);
    src.layout = jpeg::make_layout(src.header, options.scale_denom);
    src.decoder =
        std::make_unique<jpeg::EntropyDecoder>(input.data, input.size, src.header, src.layout);
    if (!jpeg::DeviceEntropyPlan::supports(*src.decoder)) return false;
    const jpeg::Layout& layout = src.layout;
    // The memory the CPU path counts: output on both sides and planes, and here the
    // coefficients and the file on the device.
    const std::uint64_t bytes = 2 * std::uint64_t(layout.output_bytes()) + layout.plane_bytes +
                                std::uint64_t(layout.groups) * 64 * 64 * 2 + input.size;
    if (bytes > options.max_memory_bytes) return false;
    const std::size_t stream = jpeg::token_stream_size(layout, {});
    const std::size_t job = jpeg::job_bytes(stream);
    out.job.assign(job / 4, 0);
    auto* w = reinterpret_cast<std::uint8_t*>(out.job.data());
    jpeg::write_job_header(layout, src.decoder->quant(), w);
    jpeg::write_token_stream(layout, {}, w + jpeg::job_stream_offset());
    describe_job(layout, job, out);
    out.warnings = src.header.warnings;
    out.metadata = jpeg::read_metadata(input.data, src.header, out.warnings);
    out.ok = true;
    return true;
  } catch (const Error&) {
    return false;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

bool device_entropy_chosen(JpegEntropy entropy, const DeviceInfo& info, std::size_t size,
                           std::size_t auto_bytes) {
  switch (entropy) {
    case JpegEntropy::Host:
      return false;
    case JpegEntropy::Device:
      return true;
    default:
      return info.is_gpu && !info.is_emulator && size >= auto_bytes;
  }
}

std::uint32_t device_entropy_sub_bytes(std::size_t bytes) {
  // About 16384 subsequences for a large image, from 256 to 2048 bytes each.
  const std::size_t s = bytes / 16384;
  return std::uint32_t(std::clamp<std::size_t>(s, 256, 2048));
}

void run_device_entropy(Device& device, Queue& q, jpeg::DeviceEntropyPlan& plan,
                        const DeviceBuffer& data, DeviceBuffer& coefs, std::size_t coef_bytes,
                        DeviceEntropyBuffers& b, int max_passes, int last) {
  max_passes = std::clamp(max_passes, 1, HC_JH_MAX_PASSES - 1);
  const std::vector<std::uint32_t>& words = plan.words();
  ensure(device, b.plan, words.size() * 4);
  ensure(device, b.work, std::max<std::size_t>(plan.work_words() * 4, 4));
  q.write(*b.plan, 0, words.data(), words.size() * 4);
  q.zero(*b.work, 0, plan.work_words() * 4);
  if (coef_bytes) q.zero(coefs, 0, coef_bytes);
  JpegEntropyKernels& k = device.jpeg_entropy();
  const std::uint32_t subs = plan.subsequences();
  k.stage(q, HC_JH_SPECULATE, 0, subs, *b.plan, data, *b.work, coefs);
  int pass = 0;
  for (;;) {
    ++pass;
    k.stage(q, HC_JH_SYNC, std::uint32_t(pass), subs, *b.plan, data, *b.work, coefs);
    std::uint32_t changed = 0;
    q.read(&changed, *b.work, 4 * std::size_t(HC_JH_W_CHANGED + pass), 4);
    if (changed == 0 || pass >= max_passes) break;
  }
  b.passes = pass;
  k.stage(q, HC_JH_SCAN, std::uint32_t(pass), plan.segments(), *b.plan, data, *b.work, coefs);
  k.stage(q, last, 0, subs, *b.plan, data, *b.work, coefs);
  b.status.resize(plan.status_words());
  q.read(b.status.data(), *b.work, 0, b.status.size() * 4);
}

}  // namespace hetcodec::detail
