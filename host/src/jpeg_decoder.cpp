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
#include "host/src/pinned_copy.h"

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
  // written straight into pinned memory, so the feeding thread copies nothing: at
  // info.job_offset in a chunk's arena (`arena`, which the chunk owns), or in a buffer of its
  // own (`pinned`).
  std::vector<std::uint32_t> job;
  PinnedBuffer* arena = nullptr;
  std::unique_ptr<PinnedBuffer> pinned;
  JpegJobInfo info;
  PixelFormat format = PixelFormat::RGB;
  std::vector<std::string> warnings;
  double seconds = 0;
};

// Entropy-coded data per piece below which a scan is not split across threads.
constexpr std::size_t kMinSplitBytes = 32 << 10;

// Where a job of `bytes` goes: sets out.arena and out.info.job_offset, or out.pinned, and
// returns the address to write it at.
using JobPlacer = std::function<std::uint8_t*(std::size_t bytes, Prepared& out)>;

// `results` is scratch the caller keeps from image to image (its capacity is reused).
// `place`, when given, supplies pinned memory for the job instead of out.job.
void prepare(const std::uint8_t* data, std::size_t size, const JpegDecodeOptions& options,
             int threads, Prepared& out, std::vector<jpeg::EntropyResult>& results,
             const JobPlacer& place = {}, detail::WorkerPool* pool = nullptr) {
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
    if (place) {
      job = place(bytes, out);
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
    // Pinned jobs (a chunk's arena, jobs of their own) in use until the slot's copies have run.
    std::vector<std::unique_ptr<PinnedBuffer>> staged;
    std::unique_ptr<DeviceBuffer> job, planes, coefficients, output;
    std::unique_ptr<Event> done;
    // Images whose results wait in `out` (host path): index, offset in `out`, bytes.
    struct Pending {
      std::size_t index, offset, bytes;
    };
    std::vector<Pending> pending;
  };
  // A batch goes to the device a chunk of consecutive images at a time: their jobs lie side by
  // side in one pinned arena, copied in one transfer, and the chunk's kernels run on one slot.
  // Fewer, larger copies and fewer calls per image: a copy costs the driver a fixed time on top
  // of its bytes (on NVIDIA's OpenCL about twice CUDA's), which dominates at a job's size. With
  // the fused stage one launch of each kernel decodes the whole chunk (plan_chunk).
  struct Chunk {
    std::mutex m;
    std::unique_ptr<PinnedBuffer> arena;
    std::size_t used = 0;    // bytes of the arena placed, guarded by m
    std::size_t images = 0;  // images in the chunk
  };
  // 16: on an H100, chunks of 16 fed the device in less time per image than chunks of 8, on
  // CUDA and NVIDIA OpenCL alike, and ran the kernels faster (docs/benchmarks.md run AA); the
  // planes of a chunk's images lie side by side, so 16 ImageNet-size images take about 6 MB of
  // planes per slot.
  static constexpr std::size_t kMaxChunk = 16;
  // Images per chunk for a batch of n: as the options say, else up to kMaxChunk, while every
  // slot still gets a few chunks.
  std::size_t chunk_images(std::size_t n) const {
    if (options.images_per_copy > 0)
      return std::min<std::size_t>(std::size_t(options.images_per_copy),
                                   std::max<std::size_t>(n, 1));
    return std::max<std::size_t>(1, std::min<std::size_t>(kMaxChunk, n / (4 * kSlots)));
  }
  // Memory the CPU stage reuses across images and batches, so that a batch allocates (and
  // page-faults, and returns to the kernel) almost nothing: entropy scratch per worker, and
  // pinned job buffers.
  std::vector<std::vector<jpeg::EntropyResult>> scratch;
  std::mutex pool_mutex;
  // Pinned job buffers for the batch path: workers write jobs into them, the feeding thread
  // enqueues the copy, and they come back once the slot that copied them has drained.
  std::vector<std::unique_ptr<PinnedBuffer>> pinned_pool;
  // The most arena bytes a chunk has used (guarded by pool_mutex): the size of the next arenas.
  std::size_t arena_hint = 0;
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
    if (!b) return;
    std::lock_guard<std::mutex> lock(pool_mutex);
    pinned_pool.push_back(std::move(b));
  }
  // Places a job of `bytes` in chunk c's arena (made by the first of its images to get
  // there), or, when the arena is full, in a pinned buffer of its own.
  // The arena keeps room for the chunk's table at the end of its jobs.
  std::uint8_t* place_in_chunk(Chunk& c, std::size_t bytes, Prepared& p) {
    const std::size_t need = aligned(bytes), room = table_room(c.images);
    {
      std::lock_guard<std::mutex> lock(c.m);
      if (!c.arena) {
        std::size_t hint;
        {
          std::lock_guard<std::mutex> pool_lock(pool_mutex);
          hint = arena_hint + arena_hint / 4;
        }
        c.arena = take_pinned(std::max(hint, need * c.images + need * c.images / 2) + room);
      }
      if (c.used + need + room <= c.arena->size()) {
        p.arena = c.arena.get();
        p.info.job_offset = c.used;
        c.used += need;
        return p.arena->data() + p.info.job_offset;
      }
    }
    p.pinned = take_pinned(bytes);
    return p.pinned->data();
  }
  static std::size_t aligned(std::size_t n) {
    return (n + kJpegJobAlign - 1) / kJpegJobAlign * kJpegJobAlign;
  }
  static std::size_t table_room(std::size_t images) {
    return aligned(jpeg_chunk_table_bytes(images));
  }

  static constexpr int kSlots = 4;
  Slot slots[kSlots];
  // The batch engine's threads and the split decoding of one large image run on these.
  detail::WorkerPool pool;

  Impl(std::shared_ptr<Device> d, JpegDecodeOptions o) : device(std::move(d)), options(o) {
    if (!device) throw Error(ErrorCode::InvalidArgument, "JpegDecoder: no device");
    if (options.threads <= 0) options.threads = hardware_threads();
    if (options.images_per_copy < 0)
      throw Error(ErrorCode::InvalidArgument, "JpegDecoder: images_per_copy is negative");
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

  // Waits until the slot's previous work is complete; hands back its results if it had any.
  void drain(Slot& s, std::vector<Image>* images) {
    if (s.done) {
      const auto t0 = Clock::now();
      s.done->wait();
      times.device += seconds_since(t0);
      s.done.reset();
    }
    for (auto& b : s.staged) give_pinned(std::move(b));
    s.staged.clear();
    if (images && !s.pending.empty()) {
      const auto t0 = Clock::now();
      for (const auto& r : s.pending) {
        Image& img = (*images)[r.index];
        img.pixels.resize(r.bytes);
        std::memcpy(img.pixels.data(), s.out->data() + r.offset, r.bytes);
      }
      times.transfer += seconds_since(t0);
    }
    s.pending.clear();
  }

  // Where the jobs of prepared[first, first + count) go in one device buffer: those in
  // `arena` where they lie in it (its first `arena_bytes` bytes are copied as they are), the
  // others after them. Sets their job offsets; returns the bytes the buffer needs.
  static std::size_t lay_out_jobs(std::vector<Prepared>& prepared, std::size_t first,
                                  std::size_t count, std::size_t arena_bytes) {
    std::size_t end = arena_bytes;
    for (std::size_t i = first; i < first + count; ++i) {
      Prepared& p = prepared[i];
      if (!p.ok || p.arena) continue;
      p.info.job_offset = end;
      end += aligned(p.info.job_bytes);
    }
    return end;
  }
  // How a chunk's images go to the device: where their jobs, their chunk table, their planes
  // and their pixels lie. With the fused stage, a chunk of several images is decoded by one
  // launch of each kernel, which finds each work-group's image in the chunk table; otherwise
  // each image has its launches, and the images share the planes (the queue runs them in turn).
  struct ChunkPlan {
    std::vector<JpegChunkImage> images;  // those prepared without error, in order
    std::vector<std::uint32_t> table;    // their chunk table; empty: a launch per image
    std::size_t table_offset = 0;        // where the table goes in the job buffer
    bool table_in_arena = false;         // written into the arena, after its jobs
    std::size_t arena_copy = 0;          // bytes of the arena copied (with the table there)
    std::size_t job_end = 0;             // bytes the job buffer needs
    std::size_t plane_bytes = 0;         // bytes the planes buffer needs
  };
  // Plans prepared[first, first + count), whose jobs are in `arena` (its first `arena_bytes`
  // bytes) or their own buffers; out_offsets[i - first] is where image i's pixels go. Sets the
  // job offsets of those not in the arena, and writes the table into the arena where it has
  // room (it has: place_in_chunk keeps it).
  ChunkPlan plan_chunk(std::vector<Prepared>& prepared, std::size_t first, std::size_t count,
                       PinnedBuffer* arena, std::size_t arena_bytes,
                       const std::vector<std::size_t>& out_offsets) const {
    ChunkPlan c;
    std::size_t ok = 0;
    for (std::size_t i = first; i < first + count; ++i) ok += prepared[i].ok;
    const bool one_launch = options.fused && ok > 1;
    if (one_launch) c.table.resize(jpeg_chunk_table_bytes(ok) / 4);
    const std::size_t room = aligned(c.table.size() * 4);
    c.table_in_arena = one_launch && arena && arena_bytes && arena_bytes + room <= arena->size();
    c.arena_copy = arena_bytes + (c.table_in_arena ? room : 0);
    c.table_offset = arena_bytes;
    c.job_end = lay_out_jobs(prepared, first, count, c.arena_copy);
    if (one_launch && !c.table_in_arena) {
      c.table_offset = c.job_end;
      c.job_end += room;
    }
    for (std::size_t i = first; i < first + count; ++i) {
      const Prepared& p = prepared[i];
      if (!p.ok) continue;
      c.images.push_back({p.info, one_launch ? c.plane_bytes : 0, out_offsets[i - first]});
      c.plane_bytes = one_launch ? c.plane_bytes + aligned(p.info.plane_bytes)
                                 : std::max(c.plane_bytes, p.info.plane_bytes);
    }
    if (one_launch) {
      write_jpeg_chunk_table(c.images, c.table.data());
      if (c.table_in_arena)
        std::memcpy(arena->data() + c.table_offset, c.table.data(), c.table.size() * 4);
    }
    return c;
  }
  // Enqueues the copies of a planned chunk's jobs into `job`: the arena in one copy, each
  // other pinned job in its own, and jobs in host vectors (and the table, when not in the
  // arena) through `staging`, in one copy of the range they span (the jobs of one chunk are
  // either all pinned or all in host vectors, so that range holds no pinned job). Returns the
  // number of copies.
  std::size_t copy_jobs(Queue& q, DeviceBuffer& job, const std::vector<Prepared>& prepared,
                        std::size_t first, std::size_t count, const PinnedBuffer* arena,
                        const ChunkPlan& plan, std::unique_ptr<PinnedBuffer>& staging) {
    std::size_t copies = 0;
    if (arena && plan.arena_copy) {
      q.write(job, 0, *arena, 0, plan.arena_copy);
      ++copies;
    }
    struct Staged {
      std::size_t offset;
      const void* data;
      std::size_t bytes;
    };
    std::vector<Staged> staged;
    for (std::size_t i = first; i < first + count; ++i) {
      const Prepared& p = prepared[i];
      if (!p.ok || p.arena) continue;
      if (p.pinned) {
        q.write(job, p.info.job_offset, *p.pinned, 0, p.info.job_bytes);
        ++copies;
      } else {
        staged.push_back({p.info.job_offset, p.job.data(), p.info.job_bytes});
      }
    }
    if (!plan.table.empty() && !plan.table_in_arena)
      staged.push_back({plan.table_offset, plan.table.data(), plan.table.size() * 4});
    if (staged.empty()) return copies;
    const std::size_t from = staged.front().offset;
    const std::size_t to = staged.back().offset + staged.back().bytes;
    const auto t0 = Clock::now();
    ensure(staging, to - from);
    for (const Staged& st : staged)
      detail::copy_to_pinned(staging->data() + (st.offset - from), st.data, st.bytes);
    times.transfer += seconds_since(t0);
    q.write(job, from, *staging, 0, to - from);
    return copies + 1;
  }

  // The decode stage of a planned chunk into `planes`: one launch for the chunk, or per image
  // (fused, or the two separate kernels through `coefficients`).
  void decode_chunk(Queue& q, const DeviceBuffer& job, const ChunkPlan& plan,
                    DeviceBuffer& planes, std::unique_ptr<DeviceBuffer>& coefficients) {
    JpegKernels& k = device->jpeg();
    if (!plan.table.empty()) {
      k.decode_idct_chunk(q, job, plan.table_offset, plan.images, planes);
      return;
    }
    for (const JpegChunkImage& im : plan.images) {
      if (options.fused) {
        k.decode_idct(q, job, planes, im.info);
      } else {
        ensure(coefficients, std::size_t(im.info.groups) * 64 * 128);
        k.decode_tokens(q, job, *coefficients, im.info);
        k.idct(q, job, *coefficients, planes, im.info);
      }
    }
  }
  // The colour stage of a planned chunk, each image's pixels at its offset in `out`.
  void color_chunk(Queue& q, const DeviceBuffer& job, const ChunkPlan& plan,
                   const DeviceBuffer& planes, DeviceBuffer& out) {
    JpegKernels& k = device->jpeg();
    if (!plan.table.empty()) {
      k.upsample_color_chunk(q, job, plan.table_offset, plan.images, planes, out);
      return;
    }
    for (const JpegChunkImage& im : plan.images)
      k.upsample_color(q, job, planes, out, im.out_offset, im.info);
  }

  // Enqueues prepared[first, first + count) (those prepared without error) on slot `s`, whose
  // previous work has drained; their jobs are in `arena` (its first `arena_bytes` bytes) or
  // their own buffers. With `target` null the outputs go back to the host through the slot's
  // pinned buffer (collected by drain()); otherwise each stays in `target` at its offset.
  void enqueue(Slot& s, std::vector<Prepared>& prepared, std::size_t first, std::size_t count,
               PinnedBuffer* arena, std::size_t arena_bytes, DeviceBuffer* target,
               const std::vector<std::size_t>* offsets) {
    if (!s.queue) s.queue = device->create_queue();
    Queue& q = *s.queue;
    std::vector<std::size_t> out_offsets(count, 0);
    std::size_t out_end = 0;
    for (std::size_t i = first; i < first + count; ++i) {
      const Prepared& p = prepared[i];
      if (!p.ok) continue;
      if (target) {
        out_offsets[i - first] = offsets ? (*offsets)[i] : 0;
      } else {
        // Back to back, so that the one copy back reads only bytes the kernels wrote.
        s.pending.push_back({i, out_end, p.info.output_bytes()});
        out_offsets[i - first] = out_end;
        out_end += p.info.output_bytes();
      }
    }
    const ChunkPlan plan = plan_chunk(prepared, first, count, arena, arena_bytes, out_offsets);
    if (plan.images.empty()) return;  // nothing prepared
    ensure(s.job, plan.job_end);
    ensure(s.planes, plan.plane_bytes);
    times.job_copies += copy_jobs(q, *s.job, prepared, first, count, arena, plan, s.in);
    if (!target) {
      ensure(s.output, out_end);
      ensure(s.out, out_end);
    }
    decode_chunk(q, *s.job, plan, *s.planes, s.coefficients);
    color_chunk(q, *s.job, plan, *s.planes, target ? *target : *s.output);
    if (!target && out_end) q.read(*s.out, 0, *s.output, 0, out_end);
    s.done = q.record();
  }

  // The batch engine. Every thread (this one included) prepares images, a bounded window ahead
  // of the device; the thread that has just prepared one also feeds the device, in input order,
  // with whatever chunks are complete, unless another thread is feeding (the feeder's lock is
  // only tried, never waited for). So every core does CPU-stage work, and no thread has to be
  // woken to enqueue an image. A device that must be driven from one thread (Oclgrind runs
  // enqueued work on the thread that waits for it, with state of the thread that made it) is fed
  // by this thread alone, which then prepares nothing.
  void run_batch(const std::vector<JpegInput>& inputs, std::vector<std::string>* errors,
                 std::vector<Image>* images, DeviceBuffer* target,
                 const std::vector<std::size_t>* offsets) {
    const std::size_t n = inputs.size();
    const std::size_t per_chunk = chunk_images(n);
    const std::size_t chunk_count = (n + per_chunk - 1) / per_chunk;
    std::vector<Prepared> prepared(n);
    std::unique_ptr<Chunk[]> chunks(new Chunk[chunk_count]);
    for (std::size_t c = 0; c < chunk_count; ++c)
      chunks[c].images = std::min(per_chunk, n - c * per_chunk);
    std::vector<std::size_t> ready(chunk_count, 0);  // images of each chunk prepared
    std::mutex m;  // guards ready, tickets, fed, stop, failure
    std::condition_variable cv_space, cv_done;
    std::atomic<std::size_t> next{0};
    bool stop = false;
    std::size_t fed = 0;  // chunks fed to the device (their failed images recorded), in order
    std::exception_ptr failure;
    std::mutex feed_mutex;  // held by the thread that feeds
    const bool one_feeder = device->info().is_emulator;
    std::condition_variable cv_ready;  // with one feeder: a chunk is complete
    const int workers = std::max(1, std::min<int>(options.threads, int(n)));
    // A thread takes an image only with a ticket: at most 3 x workers + 4 images, and a chunk,
    // are prepared and not yet fed (a chunk is fed once all its images are prepared).
    std::size_t tickets = std::size_t(workers) * 3 + 4 + per_chunk;
    const int per_image = std::max(1, options.threads / workers);
    if (int(scratch.size()) < workers + 1) scratch.resize(std::size_t(workers) + 1);

    // Feeds chunk c (complete, and next in order): called with feed_mutex held.
    auto feed = [&](std::size_t c) {
      const std::size_t first = c * per_chunk, count = chunks[c].images;
      for (std::size_t i = first; i < first + count; ++i) {
        Prepared& p = prepared[i];
        times.huffman += p.seconds;
        if (p.ok) continue;
        if (!errors) throw Error(p.code, "image " + std::to_string(i) + ": " + p.error);
        (*errors)[i] = p.error;
      }
      Slot& s = slots[c % kSlots];
      drain(s, images);
      std::size_t ok = 0;
      for (std::size_t i = first; i < first + count; ++i) {
        Prepared& p = prepared[i];
        if (!p.ok) continue;
        ++ok;
        if (images) {
          Image& img = (*images)[i];
          img.width = int(p.info.width);
          img.height = int(p.info.height);
          img.format = p.format;
          img.warnings = std::move(p.warnings);
        }
      }
      Chunk& chunk = chunks[c];
      const std::size_t arena_bytes = chunk.arena ? chunk.used : 0;
      if (arena_bytes) {
        std::lock_guard<std::mutex> lock(pool_mutex);
        arena_hint = std::max(arena_hint, arena_bytes);
      }
      // The pinned jobs are in use until the slot drains: the slot holds them from here,
      // whether the enqueueing succeeds or not.
      auto hand_to_slot = [&] {
        s.staged.push_back(std::move(chunk.arena));
        for (std::size_t i = first; i < first + count; ++i)
          s.staged.push_back(std::move(prepared[i].pinned));
      };
      const auto e0 = Clock::now();
      try {
        enqueue(s, prepared, first, count, chunk.arena.get(), arena_bytes, target, offsets);
      } catch (...) {
        hand_to_slot();
        throw;
      }
      hand_to_slot();
      times.enqueue += seconds_since(e0);
      times.images += ok;
    };
    // Feeds chunk c and records the outcome: the next chunk in order and tickets back, or the
    // failure that stops the batch. False on failure. Called with feed_mutex held (or by the
    // one feeder).
    auto feed_one = [&](std::size_t c) {
      try {
        feed(c);
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
        tickets += chunks[c].images;
        if (fed == chunk_count) cv_done.notify_all();
      }
      cv_space.notify_all();
      return true;
    };
    // The next chunk in order when it is complete and the batch goes on; false otherwise.
    auto next_ready = [&](std::size_t& c) {
      std::lock_guard<std::mutex> lock(m);
      if (stop || fed >= chunk_count || ready[fed] < chunks[fed].images) return false;
      c = fed;
      return true;
    };
    // Feeds every chunk that is complete in order, while this thread can take the feeder's lock.
    auto feed_ready = [&] {
      std::size_t c;
      for (;;) {
        std::unique_lock<std::mutex> feeder(feed_mutex, std::try_to_lock);
        if (!feeder.owns_lock()) return;  // the feeding thread will see what is ready
        while (next_ready(c))
          if (!feed_one(c)) return;
        feeder.unlock();
        // A chunk completed while this thread held the lock, whose last preparer found it
        // taken, is this thread's to feed.
        if (!next_ready(c)) return;
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
        Chunk& chunk = chunks[i / per_chunk];
        // One image per thread, unless the batch has fewer images than threads. With one
        // feeder the jobs stay in host memory and the feeder stages them: Oclgrind runs
        // enqueued work on the thread that waits for it, and a pinned buffer made on another
        // thread meanwhile (a mapped buffer, made and mapped through the device) has corrupted
        // images there.
        JobPlacer place;
        if (!one_feeder)
          place = [this, &chunk](std::size_t bytes, Prepared& p) {
            return place_in_chunk(chunk, bytes, p);
          };
        prepare(inputs[i].data, inputs[i].size, options, per_image, prepared[i],
                scratch[std::size_t(id)], place, &pool);
        bool complete;
        {
          std::lock_guard<std::mutex> lock(m);
          complete = ++ready[i / per_chunk] == chunk.images;
        }
        if (!complete) continue;
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
        cv_done.wait(lock, [&] { return stop || fed == chunk_count; });
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
        std::size_t c;
        {
          std::unique_lock<std::mutex> lock(m);
          cv_ready.wait(
              lock, [&] { return stop || fed >= chunk_count || ready[fed] == chunks[fed].images; });
          if (stop || fed >= chunk_count) break;
          c = fed;
        }
        if (!feed_one(c)) break;
      }
      finish();
      for (auto& t : extra) t.join();
    }
    // Arenas of chunks never fed (the batch stopped) go back to the pool.
    for (std::size_t c = 0; c < chunk_count; ++c) give_pinned(std::move(chunks[c].arena));
    for (auto& p : prepared) give_pinned(std::move(p.pinned));
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
  std::vector<Prepared> p(1);
  p[0] = impl_->prepare_one(data, size);
  std::vector<Image> images(1);
  Image& img = images[0];
  img.width = int(p[0].info.width);
  img.height = int(p[0].info.height);
  img.format = p[0].format;
  img.warnings = p[0].warnings;
  auto& s = impl_->slots[0];
  impl_->drain(s, nullptr);
  impl_->enqueue(s, p, 0, 1, nullptr, 0, nullptr, nullptr);
  ++impl_->times.images;
  impl_->drain(s, &images);
  return std::move(images[0]);
}

DeviceImage JpegDecoder::decode_to_device(const std::uint8_t* data, std::size_t size) {
  std::vector<Prepared> p(1);
  p[0] = impl_->prepare_one(data, size);
  DeviceImage img;
  img.width = int(p[0].info.width);
  img.height = int(p[0].info.height);
  img.format = p[0].format;
  img.warnings = p[0].warnings;
  img.buffer = impl_->device->alloc(std::max<std::size_t>(p[0].info.output_bytes(), 1));
  auto& s = impl_->slots[0];
  impl_->drain(s, nullptr);
  impl_->enqueue(s, p, 0, 1, nullptr, 0, img.buffer.get(), nullptr);
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
  using Impl = JpegDecoder::Impl;
  Impl& im = *impl_;
  JpegStageTimes t;
  const std::size_t n = inputs.size();
  std::vector<Prepared> prepared(n);
  // Threads per image as the batch engine gives them (all of them to a batch of one).
  const int per_image = std::max(1, im.options.threads / int(std::max<std::size_t>(n, 1)));
  // Chunks as the batch engine makes them: the jobs are written straight into the chunks'
  // pinned arenas, so the transfer below is the copies alone, one per chunk.
  const std::size_t per_chunk = im.chunk_images(n);
  const std::size_t chunk_count = (n + per_chunk - 1) / per_chunk;
  std::unique_ptr<Impl::Chunk[]> chunks(new Impl::Chunk[chunk_count]);
  // The pinned buffers go back to the pool however this ends.
  auto give_back = [&] {
    for (auto& p : prepared) im.give_pinned(std::move(p.pinned));
    for (std::size_t c = 0; c < chunk_count; ++c) im.give_pinned(std::move(chunks[c].arena));
  };
  struct GiveBack {
    std::function<void()> fn;
    ~GiveBack() { fn(); }
  } give_back_at_exit{give_back};
  // Twice, timing the second pass: the first allocates (and page-faults) the job buffers and
  // scratch that the batch engine keeps from batch to batch.
  auto t0 = Clock::now();
  for (int pass = 0; pass < 2; ++pass) {
    give_back();
    for (std::size_t c = 0; c < chunk_count; ++c) {
      chunks[c].used = 0;
      chunks[c].images = std::min(per_chunk, n - c * per_chunk);
    }
    for (auto& p : prepared) p = Prepared();
    t0 = Clock::now();
    parallel_for(n, im.options.threads, [&](std::size_t i) {
      thread_local std::vector<jpeg::EntropyResult> results;  // profiling only
      prepare(
          inputs[i].data, inputs[i].size, im.options, per_image, prepared[i], results,
          [&im, &chunks, i, per_chunk](std::size_t bytes, Prepared& p) {
            return im.place_in_chunk(chunks[i / per_chunk], bytes, p);
          },
          &im.pool);
    }, &im.pool);
  }
  t.huffman = seconds_since(t0);
  for (std::size_t i = 0; i < n; ++i)
    if (!prepared[i].ok)
      throw Error(prepared[i].code, "image " + std::to_string(i) + ": " + prepared[i].error);
  // The chunks planned as the batch engine plans them (one launch of each kernel per chunk
  // with the fused stage), their outputs back to back as on the host path.
  auto queue = im.device->create_queue();
  std::vector<std::unique_ptr<DeviceBuffer>> jobs;
  std::vector<Impl::ChunkPlan> plans;
  std::size_t max_planes = 0, max_out = 0;
  for (std::size_t c = 0; c < chunk_count; ++c) {
    const std::size_t first = c * per_chunk, count = chunks[c].images;
    std::vector<std::size_t> outs(count);
    std::size_t end = 0;
    for (std::size_t i = first; i < first + count; ++i) {
      outs[i - first] = end;
      end += prepared[i].info.output_bytes();
    }
    max_out = std::max(max_out, end);
    plans.push_back(im.plan_chunk(prepared, first, count, chunks[c].arena.get(),
                                  chunks[c].arena ? chunks[c].used : 0, outs));
    max_planes = std::max(max_planes, plans.back().plane_bytes);
    jobs.push_back(im.device->alloc(std::max<std::size_t>(plans.back().job_end, 1)));
  }
  std::unique_ptr<PinnedBuffer> staging;
  auto copy_chunk = [&](std::size_t c) {
    return im.copy_jobs(*queue, *jobs[c], prepared, c * per_chunk, chunks[c].images,
                        chunks[c].arena.get(), plans[c], staging);
  };
  auto planes = im.device->alloc(std::max<std::size_t>(max_planes, 1));
  auto out = im.device->alloc(std::max<std::size_t>(max_out, 1));
  auto decode_chunk = [&](std::size_t c) {
    im.decode_chunk(*queue, *jobs[c], plans[c], *planes, im.slots[0].coefficients);
  };
  auto color_chunk = [&](std::size_t c) {
    im.color_chunk(*queue, *jobs[c], plans[c], *planes, *out);
  };
  // Copies and kernels once untimed, so that program builds, first launches and the first use
  // of each buffer stay out, as they are from the batch engine's steady state, whose slots reuse
  // their buffers: NVIDIA's OpenCL gives a buffer its memory when it is first used (the large
  // image's kernels measured 0.37 ms against 0.21 ms with the output buffer touched, and a
  // 1 MiB copy into a buffer on its first use 2.9-3.3x the time into one used before, where
  // CUDA's took 1.0x: `hetcodec bench transfer`, docs/benchmarks.md).
  for (std::size_t c = 0; c < chunk_count; ++c) copy_chunk(c);
  decode_chunk(0);
  color_chunk(0);
  queue->finish();
  // Each device stage timed on five passes, the median kept: one pass over a large image is a
  // fraction of a millisecond, where one late wake-up of this thread would show.
  constexpr int kPasses = 5;
  std::vector<double> transfer, device, decode, color;
  std::size_t copies = 0;
  for (int pass = 0; pass < kPasses; ++pass) {
    copies = 0;
    t0 = Clock::now();
    for (std::size_t c = 0; c < chunk_count; ++c) copies += copy_chunk(c);
    queue->finish();
    transfer.push_back(seconds_since(t0));
    t0 = Clock::now();
    for (std::size_t c = 0; c < chunk_count; ++c) {
      decode_chunk(c);
      color_chunk(c);
    }
    queue->finish();
    device.push_back(seconds_since(t0));
    // The two kernel stages apart, each over all images (the colour stage reads the planes the
    // last chunk left: the same work, other values).
    t0 = Clock::now();
    for (std::size_t c = 0; c < chunk_count; ++c) decode_chunk(c);
    queue->finish();
    decode.push_back(seconds_since(t0));
    t0 = Clock::now();
    for (std::size_t c = 0; c < chunk_count; ++c) color_chunk(c);
    queue->finish();
    color.push_back(seconds_since(t0));
  }
  auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  t.job_copies = copies;
  t.transfer = median(transfer);
  t.device = median(device);
  t.device_decode = median(decode);
  t.device_color = median(color);
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
