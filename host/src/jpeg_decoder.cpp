// The JPEG decode pipeline (DESIGN.md §3), written once against backends/backend.h:
//   CPU threads: parse -> layout -> Huffman decode into the token stream -> job buffer (written
//   straight into pinned memory in a batch) -> asynchronous copy -> decode_idct (or decode_tokens + idct)
//   -> upsample_color -> asynchronous copy back (or the image stays on the device).
// Four device slots, each with its own queue, pinned buffers and device buffers, take images in
// turn, so the copy of image N+1 overlaps the kernels of image N while CPU threads are already
// decoding the Huffman data of the images after it; a slot is reused only when its previous
// image is complete.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include "core/jpeg/entropy.h"
#include "core/jpeg/job.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "core/jpeg/token_stream.h"
#include "hetcodec/jpeg.h"
#include "host/src/parallel.h"

namespace hetcodec {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int hardware_threads() { return std::max(1, int(std::thread::hardware_concurrency())); }

using detail::parallel_for;

// The CPU stage's product for one image.
struct Prepared {
  bool ok = false;
  ErrorCode code = ErrorCode::InvalidData;
  std::string error;
  // The job buffer (core/portable/jpeg_job.h): in `job`, or, where the caller asked for it,
  // written straight into pinned memory (`pinned`), so the feeding thread copies nothing.
  std::vector<std::uint32_t> job;
  std::unique_ptr<PinnedBuffer> pinned;
  JpegJobInfo info;
  PixelFormat format = PixelFormat::RGB;
  std::vector<std::string> warnings;
  double seconds = 0;
};

// Entropy-coded data per piece below which a scan is not split across threads.
constexpr std::size_t kMinSplitBytes = 32 << 10;

// `results` is scratch the caller keeps from image to image (its capacity is reused).
// `pinned_for(bytes)`, when given, supplies pinned memory for the job instead of out.job.
void prepare(const std::uint8_t* data, std::size_t size, const JpegDecodeOptions& options,
             int threads, Prepared& out, std::vector<jpeg::EntropyResult>& results,
             const std::function<std::unique_ptr<PinnedBuffer>(std::size_t)>& pinned_for = {},
             detail::WorkerPool* pool = nullptr) {
  const auto t0 = Clock::now();
  try {
    jpeg::Limits limits;
    limits.max_pixels = options.max_pixels;
    const jpeg::Header header = jpeg::parse(data, size, limits);
    const jpeg::Layout layout = jpeg::make_layout(header);
    const jpeg::EntropyDecoder decoder(data, size, header, layout);
    const auto tasks = decoder.tasks(threads);
    // One scan without restart markers: its pieces are decoded at once where there are
    // threads for it (the tokens are the same either way). Splitting about doubles the CPU
    // work, so it pays from four threads on.
    const bool split =
        tasks.size() == 1 && threads >= 4 &&
        decoder.run_split(threads, kMinSplitBytes, [threads, pool](std::size_t count, const std::function<void(std::size_t)>& fn) {
          parallel_for(count, threads, fn, pool);
        }, results);
    if (!split) {
      if (results.size() < tasks.size()) results.resize(tasks.size());
      for (auto& r : results) r.clear();
      results.resize(tasks.size());
      // One task: its tokens go straight to their groups' buckets.
      if (tasks.size() == 1) decoder.use_groups(results[0]);
      parallel_for(
          tasks.size(), threads, [&](std::size_t i) { decoder.run(tasks[i], results[i]); }, pool);
    }
    const std::size_t stream = decoder.stream_bytes(results);
    const std::size_t bytes = jpeg::job_bytes(stream);
    std::uint8_t* job;
    if (pinned_for) {
      out.pinned = pinned_for(bytes);
      job = static_cast<std::uint8_t*>(out.pinned->data());
    } else {
      out.job.resize(bytes / 4);
      job = reinterpret_cast<std::uint8_t*>(out.job.data());
    }
    jpeg::write_job_header(layout, decoder, job);
    decoder.write_stream(results, job + jpeg::job_stream_offset(),
                         [threads, pool](std::size_t count, const std::function<void(std::size_t)>& fn) {
                           parallel_for(count, threads, fn, pool);
                         });
    out.info.job_bytes = bytes;
    out.info.groups = layout.groups;
    out.info.blocks = layout.blocks;
    out.info.plane_bytes = layout.plane_bytes;
    out.info.width = std::uint32_t(layout.width);
    out.info.height = std::uint32_t(layout.height);
    out.info.channels = std::uint32_t(channels(layout.format));
    out.format = layout.format;
    out.warnings = header.warnings;
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
  out.seconds = seconds_since(t0);
}

// Width, height and component count from the frame header, without reading further.
bool peek_frame(const std::uint8_t* d, std::size_t n, int& w, int& h, int& comps) {
  if (n < 4 || d[0] != 0xFF || d[1] != 0xD8) return false;
  std::size_t pos = 2;
  while (pos + 4 <= n) {
    if (d[pos] != 0xFF) return false;
    int m = d[pos + 1];
    if (m == 0xFF) {
      ++pos;
      continue;
    }
    std::size_t len = std::size_t(d[pos + 2]) << 8 | d[pos + 3];
    if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
      if (pos + 10 > n || len < 8) return false;
      h = d[pos + 5] << 8 | d[pos + 6];
      w = d[pos + 7] << 8 | d[pos + 8];
      comps = d[pos + 9];
      return true;
    }
    if (m == 0xDA || m == 0xD9) return false;
    pos += 2 + len;
  }
  return false;
}

std::size_t grown(std::size_t n) { return std::max<std::size_t>(n + n / 4, 4096); }

}  // namespace

struct JpegDecoder::Impl {
  std::shared_ptr<Device> device;
  JpegDecodeOptions options;
  JpegStageTimes times;

  struct Slot {
    std::unique_ptr<Queue> queue;
    std::unique_ptr<PinnedBuffer> in, out;
    std::unique_ptr<PinnedBuffer> staged;  // a worker's pinned job, until its copy has run
    std::unique_ptr<DeviceBuffer> job, planes, coefficients, output;
    std::unique_ptr<Event> done;
    // The image whose result waits in `out` (host path), or -1.
    std::ptrdiff_t pending = -1;
    std::size_t pending_bytes = 0;
  };
  // Memory the CPU stage reuses across images and batches, so that a batch allocates (and
  // page-faults, and returns to the kernel) almost nothing: entropy scratch per worker, and
  // pinned job buffers.
  std::vector<std::vector<jpeg::EntropyResult>> scratch;
  std::mutex pool_mutex;
  // Pinned job buffers for the batch path: workers write jobs into them, the feeding thread
  // enqueues the copy, and they come back once the slot that copied them has drained.
  std::vector<std::unique_ptr<PinnedBuffer>> pinned_pool;
  // The smallest pooled buffer that fits, else a new one. Buffers are never freed during a
  // batch: freeing pinned memory synchronises the device (cudaFreeHost does).
  std::unique_ptr<PinnedBuffer> take_pinned(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(pool_mutex);
      std::size_t best = pinned_pool.size();
      for (std::size_t i = 0; i < pinned_pool.size(); ++i)
        if (pinned_pool[i]->size() >= bytes &&
            (best == pinned_pool.size() || pinned_pool[i]->size() < pinned_pool[best]->size()))
          best = i;
      if (best < pinned_pool.size()) {
        std::unique_ptr<PinnedBuffer> b = std::move(pinned_pool[best]);
        pinned_pool[best] = std::move(pinned_pool.back());
        pinned_pool.pop_back();
        return b;
      }
    }
    // Rounded up generously, so that the buffer fits most of the images that follow.
    return device->alloc_pinned(std::max<std::size_t>(bytes + bytes / 2, std::size_t(1) << 18));
  }
  void give_pinned(std::unique_ptr<PinnedBuffer>&& b) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    pinned_pool.push_back(std::move(b));
  }

  static constexpr int kSlots = 4;
  Slot slots[kSlots];
  // The batch engine's threads and the split decoding of one large image run on these.
  detail::WorkerPool pool;

  Impl(std::shared_ptr<Device> d, JpegDecodeOptions o) : device(std::move(d)), options(o) {
    if (!device) throw Error(ErrorCode::InvalidArgument, "JpegDecoder: no device");
    if (options.threads <= 0) options.threads = hardware_threads();
  }

  void ensure(std::unique_ptr<DeviceBuffer>& b, std::size_t n) {
    if (!b || b->size() < n) {
      b.reset();
      b = device->alloc(grown(n));
    }
  }
  void ensure(std::unique_ptr<PinnedBuffer>& b, std::size_t n) {
    if (!b || b->size() < n) {
      b.reset();
      b = device->alloc_pinned(grown(n));
    }
  }

  // Waits until the slot's previous work is complete; hands back its result if it had one.
  void drain(Slot& s, std::vector<Image>* images) {
    if (s.done) {
      const auto t0 = Clock::now();
      s.done->wait();
      times.device += seconds_since(t0);
      s.done.reset();
    }
    if (s.staged) give_pinned(std::move(s.staged));
    if (s.pending >= 0 && images) {
      const auto t0 = Clock::now();
      Image& img = (*images)[std::size_t(s.pending)];
      img.pixels.resize(s.pending_bytes);
      std::memcpy(img.pixels.data(), s.out->data(), s.pending_bytes);
      times.transfer += seconds_since(t0);
    }
    s.pending = -1;
  }

  // Enqueues one prepared image on slot `s`. With `target` null the output goes back to the
  // host through the slot's pinned buffer (collected by drain()); otherwise it stays in
  // `target` at `target_offset`.
  void enqueue(Slot& s, const Prepared& p, DeviceBuffer* target, std::size_t target_offset,
               std::ptrdiff_t index) {
    if (!s.queue) s.queue = device->create_queue();
    Queue& q = *s.queue;
    JpegKernels& k = device->jpeg();
    ensure(s.job, p.info.job_bytes);
    ensure(s.planes, p.info.plane_bytes);
    if (p.pinned) {
      q.write(*s.job, 0, *p.pinned, 0, p.info.job_bytes);
    } else {
      const auto t0 = Clock::now();
      ensure(s.in, p.info.job_bytes);
      std::memcpy(s.in->data(), p.job.data(), p.info.job_bytes);
      times.transfer += seconds_since(t0);
      q.write(*s.job, 0, *s.in, 0, p.info.job_bytes);
    }
    if (options.fused) {
      k.decode_idct(q, *s.job, *s.planes, p.info);
    } else {
      ensure(s.coefficients, std::size_t(p.info.groups) * 64 * 128);
      k.decode_tokens(q, *s.job, *s.coefficients, p.info);
      k.idct(q, *s.job, *s.coefficients, *s.planes, p.info);
    }
    const std::size_t out_bytes = p.info.output_bytes();
    if (target) {
      k.upsample_color(q, *s.job, *s.planes, *target, target_offset, p.info);
    } else {
      ensure(s.output, out_bytes);
      ensure(s.out, out_bytes);
      k.upsample_color(q, *s.job, *s.planes, *s.output, 0, p.info);
      q.read(*s.out, 0, *s.output, 0, out_bytes);
      s.pending = index;
      s.pending_bytes = out_bytes;
    }
    s.done = q.record();
  }

  // The batch engine. Every thread (this one included) prepares images, a bounded window ahead
  // of the device; the thread that has just prepared one also feeds the device, in input order,
  // with whatever images are ready, unless another thread is feeding (the feeder's lock is only
  // tried, never waited for). So every core does CPU-stage work, and no thread has to be woken to
  // enqueue an image. A device that must be driven from one thread (Oclgrind runs enqueued work
  // on the thread that waits for it, with state of the thread that made it) is fed by this
  // thread alone, which then prepares nothing.
  void run_batch(const std::vector<JpegInput>& inputs, std::vector<std::string>* errors,
                 std::vector<Image>* images, DeviceBuffer* target,
                 const std::vector<std::size_t>* offsets) {
    const std::size_t n = inputs.size();
    std::vector<Prepared> prepared(n);
    std::vector<char> ready(n, 0);
    std::mutex m;  // guards ready, tickets, fed, stop, failure
    std::condition_variable cv_space, cv_done;
    std::atomic<std::size_t> next{0};
    bool stop = false;
    std::size_t fed = 0;  // images fed to the device (or failed), in order
    std::exception_ptr failure;
    std::mutex feed_mutex;  // held by the thread that feeds
    const bool one_feeder = device->info().is_emulator;
    std::condition_variable cv_ready;  // with one feeder: an image is ready
    const int workers = std::max(1, std::min<int>(options.threads, int(n)));
    // A thread takes an image only with a ticket: at most 3 x workers + 4 images are prepared
    // and not yet fed.
    std::size_t tickets = std::size_t(workers) * 3 + 4;
    const int per_image = std::max(1, options.threads / workers);
    if (int(scratch.size()) < workers + 1) scratch.resize(std::size_t(workers) + 1);

    // Feeds image i (ready, and next in order): called with feed_mutex held.
    auto feed = [&](std::size_t i) {
      Prepared& p = prepared[i];
      times.huffman += p.seconds;
      if (!p.ok) {
        if (!errors) throw Error(p.code, "image " + std::to_string(i) + ": " + p.error);
        (*errors)[i] = p.error;
        return;
      }
      Slot& s = slots[i % kSlots];
      drain(s, images);
      if (images) {
        Image& img = (*images)[i];
        img.width = int(p.info.width);
        img.height = int(p.info.height);
        img.format = p.format;
        img.warnings = std::move(p.warnings);
      }
      const auto e0 = Clock::now();
      enqueue(s, p, target, offsets ? (*offsets)[i] : 0, std::ptrdiff_t(i));
      s.staged = std::move(p.pinned);  // in use until the slot drains
      times.enqueue += seconds_since(e0);
      ++times.images;
    };
    // Feeds image i and records the outcome: the next image in order and a ticket back, or the
    // failure that stops the batch. False on failure. Called with feed_mutex held (or by the
    // one feeder).
    auto feed_one = [&](std::size_t i) {
      try {
        feed(i);
      } catch (...) {
        {
          std::lock_guard<std::mutex> lock(m);
          if (!failure) failure = std::current_exception();
          stop = true;
        }
        cv_space.notify_all();
        cv_done.notify_all();
        return false;
      }
      {
        std::lock_guard<std::mutex> lock(m);
        ++fed;
        ++tickets;
        if (fed == n) cv_done.notify_all();
      }
      cv_space.notify_one();
      return true;
    };
    // The next image in order when it is ready and the batch goes on; false otherwise.
    auto next_ready = [&](std::size_t& i) {
      std::lock_guard<std::mutex> lock(m);
      if (stop || fed >= n || !ready[fed]) return false;
      i = fed;
      return true;
    };
    // Feeds every image that is ready in order, while this thread can take the feeder's lock.
    auto feed_ready = [&] {
      std::size_t i;
      for (;;) {
        std::unique_lock<std::mutex> feeder(feed_mutex, std::try_to_lock);
        if (!feeder.owns_lock()) return;  // the feeding thread will see what is ready
        while (next_ready(i))
          if (!feed_one(i)) return;
        feeder.unlock();
        // An image that became ready while this thread held the lock, whose preparer found it
        // taken, is this thread's to feed.
        if (!next_ready(i)) return;
      }
    };
    auto worker = [&](int id) {
      for (;;) {
        if (next.load() >= n) return;  // no image left to take: no ticket to wait for
        {
          std::unique_lock<std::mutex> lock(m);
          if (!stop && tickets == 0) {
            const auto w0 = Clock::now();
            cv_space.wait(lock, [&] { return stop || tickets > 0; });
            times.wait_ticket += seconds_since(w0);
          }
          if (stop) return;
          --tickets;
        }
        const std::size_t i = next.fetch_add(1);
        if (i >= n) return;
        // One image per thread, unless the batch has fewer images than threads.
        prepare(inputs[i].data, inputs[i].size, options, per_image, prepared[i],
                scratch[std::size_t(id)],
                [this](std::size_t bytes) { return take_pinned(bytes); }, &pool);
        {
          std::lock_guard<std::mutex> lock(m);
          ready[i] = 1;
        }
        if (one_feeder) {
          cv_ready.notify_one();
        } else {
          feed_ready();
        }
      }
    };
    // Once this thread's own images are done: waits for the rest to be fed, then releases the
    // threads still waiting for a ticket.
    auto finish = [&] {
      {
        const auto w0 = Clock::now();
        std::unique_lock<std::mutex> lock(m);
        cv_done.wait(lock, [&] { return stop || fed == n; });
        times.wait_cpu += seconds_since(w0);
        stop = true;
      }
      cv_space.notify_all();
    };
    const auto b0 = Clock::now();
    if (!one_feeder) {
      // The decoder's own threads (kept from batch to batch), this one as worker 0.
      pool.run(workers, [&](int id) {
        worker(id);
        if (id == 0) finish();
      });
      times.thread_seconds += double(workers) * seconds_since(b0);
    } else {
      std::vector<std::thread> extra;
      for (int t = 1; t < workers; ++t) extra.emplace_back(worker, t);
      if (workers == 1) extra.emplace_back(worker, 0);
      for (;;) {
        std::size_t i;
        {
          std::unique_lock<std::mutex> lock(m);
          cv_ready.wait(lock, [&] { return stop || fed >= n || ready[fed]; });
          if (stop || fed >= n) break;
          i = fed;
        }
        if (!feed_one(i)) break;
      }
      finish();
      for (auto& t : extra) t.join();
    }
    if (!failure) {
      try {
        for (auto& s : slots) drain(s, images);
      } catch (...) {
        failure = std::current_exception();
      }
    }
    if (failure) {
      // Leave the slots reusable: wait for what was enqueued, drop pending results.
      for (auto& s : slots) {
        try {
          drain(s, nullptr);
        } catch (...) {
        }
      }
      std::rethrow_exception(failure);
    }
  }

  Prepared prepare_one(const std::uint8_t* data, std::size_t size) {
    Prepared p;
    if (scratch.empty()) scratch.resize(1);
    prepare(data, size, options, options.threads, p, scratch.back(), {}, &pool);
    times.huffman += p.seconds;
    if (!p.ok) throw Error(p.code, p.error);
    return p;
  }
};

JpegDecoder::JpegDecoder(const std::string& spec, JpegDecodeOptions options)
    : JpegDecoder(open_device(spec), options) {}

JpegDecoder::JpegDecoder(std::shared_ptr<Device> device, JpegDecodeOptions options)
    : impl_(std::make_unique<Impl>(std::move(device), options)) {}

JpegDecoder::~JpegDecoder() {
  if (!impl_) return;
  for (auto& s : impl_->slots) {
    try {
      impl_->drain(s, nullptr);
    } catch (...) {  // a destructor reports nothing; the device error surfaced already
    }
  }
}

Device& JpegDecoder::device() { return *impl_->device; }

Image JpegDecoder::decode(const std::uint8_t* data, std::size_t size) {
  Prepared p = impl_->prepare_one(data, size);
  std::vector<Image> images(1);
  Image& img = images[0];
  img.width = int(p.info.width);
  img.height = int(p.info.height);
  img.format = p.format;
  img.warnings = p.warnings;
  auto& s = impl_->slots[0];
  impl_->drain(s, nullptr);
  impl_->enqueue(s, p, nullptr, 0, 0);
  ++impl_->times.images;
  impl_->drain(s, &images);
  return std::move(images[0]);
}

DeviceImage JpegDecoder::decode_to_device(const std::uint8_t* data, std::size_t size) {
  Prepared p = impl_->prepare_one(data, size);
  DeviceImage img;
  img.width = int(p.info.width);
  img.height = int(p.info.height);
  img.format = p.format;
  img.warnings = p.warnings;
  img.buffer = impl_->device->alloc(std::max<std::size_t>(p.info.output_bytes(), 1));
  auto& s = impl_->slots[0];
  impl_->drain(s, nullptr);
  impl_->enqueue(s, p, img.buffer.get(), 0, 0);
  ++impl_->times.images;
  impl_->drain(s, nullptr);
  return img;
}

std::vector<Image> JpegDecoder::decode_batch(const std::vector<JpegInput>& inputs,
                                             std::vector<std::string>* errors) {
  std::vector<Image> images(inputs.size());
  if (errors) errors->assign(inputs.size(), std::string());
  impl_->run_batch(inputs, errors, &images, nullptr, nullptr);
  return images;
}

std::vector<DeviceImage> JpegDecoder::decode_batch_to_device(
    const std::vector<JpegInput>& inputs, std::vector<std::string>* errors,
    std::shared_ptr<DeviceBuffer>* output) {
  // Sizes from the frame headers, so one buffer can hold every image.
  std::vector<std::size_t> offsets(inputs.size(), 0);
  std::vector<DeviceImage> images(inputs.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    int w = 0, h = 0, c = 0;
    offsets[i] = total;
    if (peek_frame(inputs[i].data, inputs[i].size, w, h, c) &&
        std::uint64_t(w) * std::uint64_t(h) <= impl_->options.max_pixels && c >= 1 && c <= 4) {
      total += (std::size_t(w) * std::size_t(h) * std::size_t(c) + 4095) / 4096 * 4096;
    }
  }
  std::shared_ptr<DeviceBuffer> buffer;
  if (output && *output && (*output)->size() >= total) buffer = *output;
  if (!buffer) buffer = impl_->device->alloc(std::max<std::size_t>(total, 1));
  if (output) *output = buffer;
  if (errors) errors->assign(inputs.size(), std::string());
  std::vector<Image> meta(inputs.size());
  // Headers the peek misjudged (a frame header it could not read) would overrun the space
  // reserved; the batch engine checks each write against the buffer, so such an image fails
  // with InvalidArgument instead of overwriting its neighbour.
  impl_->run_batch(inputs, errors, &meta, buffer.get(), &offsets);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    images[i].width = meta[i].width;
    images[i].height = meta[i].height;
    images[i].format = meta[i].format;
    images[i].warnings = std::move(meta[i].warnings);
    images[i].buffer = buffer;
    images[i].offset = offsets[i];
  }
  return images;
}

JpegStageTimes JpegDecoder::profile_stages(const std::vector<JpegInput>& inputs) {
  Impl& im = *impl_;
  JpegStageTimes t;
  const std::size_t n = inputs.size();
  std::vector<Prepared> prepared(n);
  // Threads per image as the batch engine gives them (all of them to a batch of one).
  const int per_image = std::max(1, im.options.threads / int(std::max<std::size_t>(n, 1)));
  // Twice, timing the second pass: the first allocates (and page-faults) the job buffers and
  // scratch that the batch engine keeps from batch to batch. As in the batch engine, the jobs
  // are written straight into pinned buffers, so the transfer below is the copies alone.
  auto pinned_for = [&im](std::size_t bytes) { return im.take_pinned(bytes); };
  auto t0 = Clock::now();
  for (int pass = 0; pass < 2; ++pass) {
    for (auto& p : prepared)
      if (p.pinned) im.give_pinned(std::move(p.pinned));
    t0 = Clock::now();
    parallel_for(n, im.options.threads, [&](std::size_t i) {
      thread_local std::vector<jpeg::EntropyResult> results;  // profiling only
      prepare(inputs[i].data, inputs[i].size, im.options, per_image, prepared[i], results,
              pinned_for, &im.pool);
    }, &im.pool);
  }
  t.huffman = seconds_since(t0);
  // The pinned buffers go back to the pool however this ends.
  struct GiveBack {
    Impl& im;
    std::vector<Prepared>& prepared;
    ~GiveBack() {
      for (auto& p : prepared)
        if (p.pinned) im.give_pinned(std::move(p.pinned));
    }
  } give_back{im, prepared};
  std::size_t max_planes = 0, max_out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!prepared[i].ok)
      throw Error(prepared[i].code, "image " + std::to_string(i) + ": " + prepared[i].error);
    max_planes = std::max(max_planes, prepared[i].info.plane_bytes);
    max_out = std::max(max_out, prepared[i].info.output_bytes());
  }
  auto queue = im.device->create_queue();
  std::vector<std::unique_ptr<DeviceBuffer>> jobs;
  for (const auto& p : prepared) jobs.push_back(im.device->alloc(p.info.job_bytes));
  auto planes = im.device->alloc(std::max<std::size_t>(max_planes, 1));
  auto out = im.device->alloc(std::max<std::size_t>(max_out, 1));
  JpegKernels& k = im.device->jpeg();
  // Kernels once untimed, so that program builds, first launches and the first use of each
  // buffer stay out (NVIDIA's OpenCL maps a buffer's memory when a kernel first writes it: the
  // large image's kernels measured 0.37 ms against 0.21 ms with the output buffer touched).
  queue->write(*jobs[0], 0, *prepared[0].pinned, 0, prepared[0].info.job_bytes);
  k.decode_idct(*queue, *jobs[0], *planes, prepared[0].info);
  k.upsample_color(*queue, *jobs[0], *planes, *out, 0, prepared[0].info);
  queue->finish();
  t0 = Clock::now();
  for (std::size_t i = 0; i < n; ++i)
    queue->write(*jobs[i], 0, *prepared[i].pinned, 0, prepared[i].info.job_bytes);
  queue->finish();
  t.transfer = seconds_since(t0);
  t0 = Clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    if (im.options.fused) {
      k.decode_idct(*queue, *jobs[i], *planes, prepared[i].info);
    } else {
      im.ensure(im.slots[0].coefficients, std::size_t(prepared[i].info.groups) * 64 * 128);
      k.decode_tokens(*queue, *jobs[i], *im.slots[0].coefficients, prepared[i].info);
      k.idct(*queue, *jobs[i], *im.slots[0].coefficients, *planes, prepared[i].info);
    }
    k.upsample_color(*queue, *jobs[i], *planes, *out, 0, prepared[i].info);
  }
  queue->finish();
  t.device = seconds_since(t0);
  // The two kernel stages apart, each over all images (the colour stage reads the planes the
  // last image left: the same work, other values).
  t0 = Clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    if (im.options.fused) {
      k.decode_idct(*queue, *jobs[i], *planes, prepared[i].info);
    } else {
      k.decode_tokens(*queue, *jobs[i], *im.slots[0].coefficients, prepared[i].info);
      k.idct(*queue, *jobs[i], *im.slots[0].coefficients, *planes, prepared[i].info);
    }
  }
  queue->finish();
  t.device_decode = seconds_since(t0);
  t0 = Clock::now();
  for (std::size_t i = 0; i < n; ++i)
    k.upsample_color(*queue, *jobs[i], *planes, *out, 0, prepared[i].info);
  queue->finish();
  t.device_color = seconds_since(t0);
  t.images = n;
  return t;
}

const JpegStageTimes& JpegDecoder::stage_times() const { return impl_->times; }
void JpegDecoder::reset_stage_times() { impl_->times = {}; }

namespace {
// The token stream of a parsed file, decoded on this thread; its warnings are appended.
std::vector<std::uint8_t> token_stream_of(const std::uint8_t* data, std::size_t size,
                                          const jpeg::Header& h, const jpeg::Layout& layout,
                                          std::vector<std::string>* warnings) {
  const jpeg::EntropyDecoder decoder(data, size, h, layout);
  const auto tasks = decoder.tasks(1);
  std::vector<jpeg::EntropyResult> results(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) decoder.run(tasks[i], results[i]);
  if (warnings)
    for (const auto& r : results)
      warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
  std::vector<std::uint32_t> words(decoder.stream_bytes(results) / 4);
  decoder.write_stream(results, reinterpret_cast<std::uint8_t*>(words.data()));
  std::vector<std::uint8_t> out(words.size() * 4);
  std::memcpy(out.data(), words.data(), out.size());
  return out;
}
}  // namespace

JpegFileInfo jpeg_file_info(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels) {
  JpegFileInfo fi;
  jpeg::Limits limits;
  limits.max_pixels = max_pixels;
  const jpeg::Header h = jpeg::parse(data, size, limits);
  fi.width = h.width;
  fi.height = h.height;
  fi.precision = h.precision;
  fi.components = int(h.components.size());
  fi.process = jpeg::to_string(h.process);
  fi.scans = int(h.scans.size());
  fi.restart_interval = h.scans.empty() ? 0 : h.scans[0].restart_interval;
  fi.warnings = h.warnings;
  for (const auto& c : h.components)
    fi.sampling.push_back(std::to_string(c.h) + "x" + std::to_string(c.v));
  if (h.components.size() == 1) {
    fi.subsampling = "gray";
  } else if (h.components.size() >= 3) {
    const auto& y = h.components[0];
    bool same_chroma = true;
    for (std::size_t c = 2; c < h.components.size(); ++c)
      same_chroma = same_chroma && h.components[c].h == h.components[1].h &&
                    h.components[c].v == h.components[1].v;
    const auto& cb = h.components[1];
    if (same_chroma && cb.h == 1 && cb.v == 1) {
      if (y.h == 1 && y.v == 1) fi.subsampling = "4:4:4";
      if (y.h == 2 && y.v == 1) fi.subsampling = "4:2:2";
      if (y.h == 2 && y.v == 2) fi.subsampling = "4:2:0";
      if (y.h == 1 && y.v == 2) fi.subsampling = "4:4:0";
      if (y.h == 4 && y.v == 1) fi.subsampling = "4:1:1";
    }
  }
  for (const auto& s : h.segments) {
    std::string name = s.marker == 0xFE ? "COM" : "APP" + std::to_string(s.marker - 0xE0);
    std::string tag;
    for (std::size_t i = 0;
         i < s.length && i < 12 && data[s.offset + i] >= 0x20 && data[s.offset + i] < 0x7F; ++i)
      tag += char(data[s.offset + i]);
    if (s.marker != 0xFE && !tag.empty()) name += " " + tag;
    name += " (" + std::to_string(s.length) + " bytes)";
    fi.segments.push_back(name);
  }
  try {
    const jpeg::Layout layout = jpeg::make_layout(h);
    switch (layout.color) {
      case 0:
        fi.color = "grayscale";
        break;
      case 1:
        fi.color = "YCbCr";
        break;
      case 2:
        fi.color = "RGB";
        break;
      case 3:
        fi.color = "CMYK";
        break;
      default:
        fi.color = "YCCK";
        break;
    }
    const std::vector<std::uint8_t> stream = token_stream_of(data, size, h, layout, &fi.warnings);
    fi.blocks = layout.blocks;
    fi.token_stream_bytes = stream.size();
    fi.dense_bytes = std::uint64_t(layout.blocks) * 128;
    const auto dense = jpeg::expand_token_stream(stream.data(), stream.size());
    for (std::size_t b = 0; b < dense.size() / 64; ++b) {
      std::uint64_t n = 0;
      for (std::size_t k = 0; k < 64; ++k) n += dense[64 * b + k] != 0;
      fi.coefficients += n;
      fi.nonzero_blocks += n != 0;
    }
    fi.decodable = true;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Unsupported) throw;
    fi.unsupported = e.what();
  }
  return fi;
}

std::vector<std::uint8_t> jpeg_token_stream(const std::uint8_t* data, std::size_t size,
                                            std::uint64_t max_pixels) {
  jpeg::Limits limits;
  limits.max_pixels = max_pixels;
  const jpeg::Header h = jpeg::parse(data, size, limits);
  const jpeg::Layout layout = jpeg::make_layout(h);
  return token_stream_of(data, size, h, layout, nullptr);
}

}  // namespace hetcodec
