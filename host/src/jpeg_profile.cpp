// JpegDecoder::profile_stages, for `hetcodec bench jpeg`: the decoder's stages measured one
// after another on the same chunks the batch engine would make (jpeg_chunks.h): the CPU stage
// of all images, then the copies of all jobs, then the kernels, each timed to completion.
#include <algorithm>
#include <chrono>
#include <functional>

#include "host/src/jpeg_decoder_impl.h"

namespace hetcodec {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double>& v) {
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The chunks of a profiled batch on one queue: their plans, job buffers, shared planes and
// outputs, and the device stages of each.
struct ProfiledChunks {
  Device& device;
  bool fused;
  std::unique_ptr<DeviceBuffer>& coefficients;  // the separate stages' (a slot's)
  double& staging_seconds;                      // the decoder's transfer time
  std::vector<detail::JpegPrepared>& prepared;
  detail::JpegChunk* chunks;
  std::size_t per_chunk, count;
  std::unique_ptr<Queue> queue;
  std::vector<std::unique_ptr<DeviceBuffer>> jobs;
  std::vector<detail::JpegChunkPlan> plans;
  std::unique_ptr<DeviceBuffer> planes, out;
  std::unique_ptr<PinnedBuffer> staging;

  // Plans every chunk as the batch engine does (one launch of each kernel per chunk with the
  // fused stage), their outputs back to back as on the host path.
  void plan() {
    queue = device.create_queue();
    std::size_t max_planes = 0, max_out = 0;
    for (std::size_t c = 0; c < count; ++c) {
      const std::size_t first = c * per_chunk, n = chunks[c].images;
      std::vector<std::size_t> outs(n);
      std::size_t end = 0;
      for (std::size_t i = first; i < first + n; ++i) {
        outs[i - first] = end;
        end += prepared[i].info.output_bytes();
      }
      max_out = std::max(max_out, end);
      plans.push_back(detail::plan_chunk(prepared, first, n, chunks[c].arena.get(),
                                         chunks[c].arena ? chunks[c].used : 0, outs, fused));
      max_planes = std::max(max_planes, plans.back().plane_bytes);
      jobs.push_back(device.alloc(std::max<std::size_t>(plans.back().job_end, 1)));
    }
    planes = device.alloc(std::max<std::size_t>(max_planes, 1));
    out = device.alloc(std::max<std::size_t>(max_out, 1));
  }
  std::size_t copy(std::size_t c) {
    const std::size_t copies =
        detail::copy_chunk_jobs(device, *queue, *jobs[c], prepared, c * per_chunk, chunks[c].images,
                                chunks[c].arena.get(), plans[c], staging, staging_seconds);
    return copies;
  }
  void decode(std::size_t c) {
    detail::decode_chunk(device, *queue, *jobs[c], plans[c], *planes, coefficients, fused);
  }
  void color(std::size_t c) {
    detail::color_chunk(device, *queue, *jobs[c], plans[c], *planes, *out);
  }
  // fn on every chunk, then the queue finished; the seconds it took.
  double timed(const std::function<void(std::size_t)>& fn) {
    const auto t0 = Clock::now();
    for (std::size_t c = 0; c < count; ++c) fn(c);
    queue->finish();
    return seconds_since(t0);
  }
};

// The device stages of `pc`, each over all chunks, on five passes, the median kept (one pass
// over a large image is a fraction of a millisecond, where one late wake-up of this thread
// would show).
void time_device_stages(ProfiledChunks& pc, JpegDecoder::StageTimes& t) {
  constexpr int kPasses = 5;
  std::vector<double> transfer, device, decode, color;
  std::size_t copies = 0;
  for (int pass = 0; pass < kPasses; ++pass) {
    copies = 0;
    transfer.push_back(pc.timed([&](std::size_t c) { copies += pc.copy(c); }));
    device.push_back(pc.timed([&](std::size_t c) {
      pc.decode(c);
      pc.color(c);
    }));
    // The two kernel stages apart, each over all images (the colour stage reads the planes the
    // last chunk left: the same work, other values).
    decode.push_back(pc.timed([&](std::size_t c) { pc.decode(c); }));
    color.push_back(pc.timed([&](std::size_t c) { pc.color(c); }));
  }
  t.job_copies = copies;
  t.transfer = median(transfer);
  t.device = median(device);
  t.device_decode = median(decode);
  t.device_color = median(color);
}

}  // namespace

// The CPU stage of all images on all threads, writing each job into pinned memory as the batch
// engine does (timed on a second pass, the first having allocated); then the host-to-device
// copies of all jobs from there, one per chunk, each device buffer used once before; then the
// kernels of all images.
JpegDecoder::StageTimes JpegDecoder::profile_stages(const std::vector<Input>& inputs) {
  Impl& im = *impl_;
  StageTimes t;
  const std::size_t n = inputs.size();
  std::vector<detail::JpegPrepared> prepared(n);
  // Threads per image as the batch engine gives them (all of them to a batch of one).
  const int per_image = std::max(1, im.options.threads / int(std::max<std::size_t>(n, 1)));
  const std::size_t per_chunk = im.chunk_images(inputs);
  const std::size_t chunk_count = (n + per_chunk - 1) / per_chunk;
  std::unique_ptr<detail::JpegChunk[]> chunks(new detail::JpegChunk[chunk_count]);
  // The pinned buffers go back to the pool however this ends.
  auto give_back = [&] {
    for (auto& p : prepared) im.pinned.give(std::move(p.pinned));
    for (std::size_t c = 0; c < chunk_count; ++c) im.pinned.give(std::move(chunks[c].arena));
  };
  struct GiveBack {
    std::function<void()> fn;
    ~GiveBack() { fn(); }
  } give_back_at_exit{give_back};
  auto t0 = Clock::now();
  for (int pass = 0; pass < 2; ++pass) {
    give_back();
    for (std::size_t c = 0; c < chunk_count; ++c) {
      chunks[c].used = 0;
      chunks[c].images = std::min(per_chunk, n - c * per_chunk);
    }
    for (auto& p : prepared) p = detail::JpegPrepared();
    t0 = Clock::now();
    detail::parallel_for(
        n, im.options.threads,
        [&](std::size_t i) {
          thread_local std::vector<jpeg::EntropyResult> results;  // profiling only
          detail::prepare_jpeg(
              inputs[i], im.options, per_image, prepared[i], results,
              [&im, &chunks, i, per_chunk](std::size_t bytes, detail::JpegPrepared& p) {
                return detail::place_in_chunk(chunks[i / per_chunk], bytes, p, im.pinned);
              },
              &im.engine.pool());
        },
        &im.engine.pool());
  }
  t.huffman = seconds_since(t0);
  for (std::size_t i = 0; i < n; ++i)
    if (!prepared[i].ok)
      throw Error(prepared[i].code, "image " + std::to_string(i) + ": " + prepared[i].error);
  ProfiledChunks pc{*im.device,
                    im.options.fused,
                    im.slots[0].coefficients,
                    im.times.transfer,
                    prepared,
                    chunks.get(),
                    per_chunk,
                    chunk_count,
                    {},
                    {},
                    {},
                    {},
                    {},
                    {}};
  pc.plan();
  // Copies and kernels once untimed, so that program builds, first launches and the first use
  // of each buffer stay out, as they are from the batch engine's steady state, whose slots reuse
  // their buffers: NVIDIA's OpenCL gives a buffer its memory when it is first used
  // (`hetcodec bench transfer`, docs/benchmarks.md).
  for (std::size_t c = 0; c < chunk_count; ++c) pc.copy(c);
  pc.decode(0);
  pc.color(0);
  pc.queue->finish();
  time_device_stages(pc, t);
  t.images = n;
  return t;
}

}  // namespace hetcodec
