// The JPEG decode pipeline (DESIGN.md §3 "JPEG decode"), written once against
// backends/backend.h: the host stage (jpeg_prepare.cpp: parse, layout, Huffman decoding into the
// token stream, the job buffer, written straight into pinned memory in a batch) -> asynchronous
// copy -> decode_idct (or decode_tokens + idct) -> upsample_color -> asynchronous copy back (or
// the image stays on the device). Batches run on the batch engine (batch_engine.h), a chunk of
// images at a time (jpeg_chunks.h).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/jpeg/layout.h"
#include "core/jpeg/lossless.h"
#include "core/jpeg/parser.h"
#include "host/src/jpeg_decoder_impl.h"

namespace hetcodec {
namespace {

using Clock = std::chrono::steady_clock;
// Whether a file's frame header is a lossless one (SOF3, or SOF7/11/15, which the lossless path
// refuses by name); a file whose frame header does not parse goes the usual way, to its error.
bool lossless_file(const std::uint8_t* data, std::size_t size) {
  try {
    const int m = jpeg::parse_frame(data, size).sof_marker;
    return m == 0xC3 || m == 0xC7 || m == 0xCB || m == 0xCF;
  } catch (const Error&) {
    return false;
  }
}

// Lossless files are decoded whole (their rows are predicted from the ones before, all the way
// across).
void check_no_crop(const Input& input) {
  if (!input.crop.whole())
    throw Error(ErrorCode::Unsupported,
                "jpeg: cropped decoding of a lossless file (SOF3); decode it whole");
}

// JpegEntropy::Auto sends a single file of at least this many bytes to the device's Huffman
// stage on a GPU.
constexpr std::size_t kAutoDeviceBytes = 1 << 20;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::shared_ptr<Device> checked(std::shared_ptr<Device> d) {
  if (!d) throw Error(ErrorCode::InvalidArgument, "JpegDecoder: no device");
  return d;
}

}  // namespace

JpegDecoder::Impl::Impl(std::shared_ptr<Device> d, JpegDecodeOptions o)
    : device(checked(std::move(d))), options(o), pinned(*device) {
  if (options.threads <= 0) options.threads = std::max(1, int(std::thread::hardware_concurrency()));
  if (options.images_per_copy < 0)
    throw Error(ErrorCode::InvalidArgument, "JpegDecoder: images_per_copy is negative");
  if (!jpeg::valid_scale(options.scale_denom))
    throw Error(ErrorCode::InvalidArgument, "JpegDecoder: scale_denom " +
                                                std::to_string(options.scale_denom) +
                                                " (scale 1/N decodes with N = 1, 2, 4 or 8)");
}

std::size_t JpegDecoder::Impl::chunk_images(const std::vector<Input>& inputs) const {
  const std::size_t per = detail::jpeg_chunk_images(inputs.size(), options.images_per_copy, kSlots);
  const std::uint64_t limit = device->info().max_alloc_bytes;
  if (per <= 1 || !limit) return per;
  std::vector<std::size_t> bytes(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    bytes[i] = detail::jpeg_image_device_bytes(inputs[i].data, inputs[i].size, options.max_pixels,
                                               options.scale_denom, options.fused);
  return detail::jpeg_chunk_within(per, bytes, limit);
}

void JpegDecoder::Impl::drain(Slot& s, std::vector<Image>* images) {
  times.device += s.wait(pinned);
  if (images && !s.pending.empty()) {
    const auto t0 = Clock::now();
    // Each image's samples go into a vector of their own in one pass (assign: no zero fill
    // first), images side by side on up to 8 threads: the vectors' fresh pages are faulted in
    // as they are written, which one thread alone does far below the memory's speed.
    const int threads = std::min(8, std::max(1, options.threads));
    detail::parallel_for(
        s.pending.size(), threads,
        [&](std::size_t k) {
          const Slot::Pending& r = s.pending[k];
          const std::uint8_t* from = s.out->data() + r.offset;
          (*images)[r.index].pixels.assign(from, from + r.bytes);
        },
        &copy_pool);
    times.transfer += seconds_since(t0);
  }
  s.pending.clear();
}

void JpegDecoder::Impl::enqueue(Slot& s, std::vector<detail::JpegPrepared>& prepared,
                                std::size_t first, std::size_t count, PinnedBuffer* arena,
                                std::size_t arena_bytes, DeviceBuffer* target,
                                const std::vector<std::size_t>* offsets) {
  if (!s.queue) s.queue = device->create_queue();
  Queue& q = *s.queue;
  std::vector<std::size_t> out_offsets(count, 0);
  std::size_t out_end = 0;
  // The slot's results to hand back, once everything is enqueued: a failure on the way (a full
  // device) leaves none behind for the next drain to copy.
  std::vector<Slot::Pending> pending;
  for (std::size_t i = first; i < first + count; ++i) {
    const detail::JpegPrepared& p = prepared[i];
    if (!p.ok) continue;
    if (target) {
      out_offsets[i - first] = offsets ? (*offsets)[i] : 0;
    } else {
      // Back to back, so that the one copy back reads only bytes the kernels wrote.
      pending.push_back({i, out_end, p.info.output_bytes()});
      out_offsets[i - first] = out_end;
      out_end += p.info.output_bytes();
    }
  }
  const detail::JpegChunkPlan plan =
      detail::plan_chunk(prepared, first, count, arena, arena_bytes, out_offsets, options.fused);
  if (plan.images.empty()) return;  // nothing prepared
  detail::ensure(*device, s.job, plan.job_end);
  detail::ensure(*device, s.planes, plan.plane_bytes);
  times.job_copies += detail::copy_chunk_jobs(*device, q, *s.job, prepared, first, count, arena,
                                              plan, s.in, times.transfer);
  if (!target) {
    detail::ensure(*device, s.output, out_end);
    detail::ensure(*device, s.out, out_end);
  }
  detail::decode_color_chunk(*device, q, *s.job, plan, *s.planes, s.coefficients, options.fused,
                             target ? *target : *s.output);
  if (!target && out_end) q.read(*s.out, 0, *s.output, 0, out_end);
  s.done = q.record();
  s.pending.insert(s.pending.end(), pending.begin(), pending.end());
}

// One batch in flight: its inputs and outputs, and the chunks the engine feeds.
struct JpegDecoder::Impl::Batch {
  const std::vector<Input>& inputs;
  BatchErrors* errors;
  std::vector<Image>* images;
  DeviceBuffer* target;
  const std::vector<std::size_t>* offsets;
  std::size_t base;  // index of inputs[0] in the caller's batch, for messages
  detail::BatchPlan plan;
  std::vector<detail::JpegPrepared> prepared;
  std::unique_ptr<detail::JpegChunk[]> chunks;
};

// Feeds chunk c (complete, and next in order): its failed images recorded (or thrown, without
// `errors`), its images described, its work enqueued on the next slot.
void JpegDecoder::Impl::feed_chunk(Batch& b, std::size_t c) {
  const std::size_t first = c * b.plan.per_chunk, count = b.chunks[c].images;
  for (std::size_t i = first; i < first + count; ++i) {
    detail::JpegPrepared& p = b.prepared[i];
    times.huffman += p.seconds;
    if (p.ok) continue;
    if (!b.errors) throw Error(p.code, "image " + std::to_string(b.base + i) + ": " + p.error);
    (*b.errors)[i] = Error(p.code, p.error);
  }
  Slot& s = slots[c % kSlots];
  drain(s, b.images);
  std::size_t ok = 0;
  for (std::size_t i = first; i < first + count; ++i) {
    detail::JpegPrepared& p = b.prepared[i];
    if (!p.ok) continue;
    ++ok;
    if (b.images) {
      Image& img = (*b.images)[i];
      img.width = int(p.info.width);
      img.height = int(p.info.height);
      img.format = p.format;
      img.bit_depth = 8 * int(p.info.sample_bytes);
      img.warnings = std::move(p.warnings);
      img.metadata = std::move(p.metadata);
    }
  }
  detail::JpegChunk& chunk = b.chunks[c];
  const std::size_t arena_bytes = chunk.arena ? chunk.used : 0;
  if (arena_bytes) pinned.note_arena(arena_bytes);
  // The pinned jobs are in use until the slot drains: the slot holds them from here, whether
  // the enqueueing succeeds or not.
  auto hand_to_slot = [&] {
    s.staged.push_back(std::move(chunk.arena));
    for (std::size_t i = first; i < first + count; ++i)
      s.staged.push_back(std::move(b.prepared[i].pinned));
  };
  // After a failure, what was enqueued before it (the jobs' copies from pinned memory) is waited
  // for before the slot's pinned buffers go back.
  auto fence = [&] {
    try {
      if (s.queue) s.done = s.queue->record();
    } catch (...) {  // (the failure being reported is the one that matters)
    }
  };
  const auto e0 = Clock::now();
  try {
    enqueue(s, b.prepared, first, count, chunk.arena.get(), arena_bytes, b.target, b.offsets);
  } catch (const Error& e) {
    fence();
    hand_to_slot();
    // A device without the memory for the chunk: with `errors`, its images fail with
    // OutOfMemory and the batch goes on (a later chunk may fit), the decoder usable after it.
    if (!b.errors || e.code() != ErrorCode::OutOfMemory) throw;
    for (std::size_t i = first; i < first + count; ++i) {
      if (!b.prepared[i].ok) continue;
      (*b.errors)[i] = e;
      if (b.images) (*b.images)[i] = Image{};
    }
    return;
  } catch (...) {
    fence();
    hand_to_slot();
    throw;
  }
  hand_to_slot();
  times.enqueue += seconds_since(e0);
  times.images += ok;
}

void JpegDecoder::Impl::run_batch(const std::vector<Input>& inputs, BatchErrors* errors,
                                  std::vector<Image>* images, DeviceBuffer* target,
                                  const std::vector<std::size_t>* offsets, std::size_t base) {
  const std::size_t n = inputs.size();
  Batch b{inputs, errors, images, target, offsets, base, {}, {}, {}};
  b.plan.items = n;
  b.plan.per_chunk = chunk_images(inputs);
  b.plan.workers = std::max(1, std::min<int>(options.threads, int(n)));
  b.plan.one_feeder = device->info().is_emulator;
  b.prepared.resize(n);
  b.chunks.reset(new detail::JpegChunk[b.plan.chunks()]);
  for (std::size_t c = 0; c < b.plan.chunks(); ++c) b.chunks[c].images = b.plan.chunk_size(c);
  const int per_image = std::max(1, options.threads / b.plan.workers);
  if (int(scratch.size()) < b.plan.workers + 1) scratch.resize(std::size_t(b.plan.workers) + 1);
  // One image per thread, unless the batch has fewer images than threads. With one feeder the
  // jobs stay in host memory and the feeder stages them: Oclgrind runs enqueued work on the
  // thread that waits for it, and a pinned buffer made on another thread meanwhile (a mapped
  // buffer, made and mapped through the device) has corrupted images there.
  auto prepare = [&](std::size_t i, int worker) {
    detail::JobPlacer place;
    if (!b.plan.one_feeder)
      place = [this, &b, i](std::size_t bytes, detail::JpegPrepared& p) {
        return detail::place_in_chunk(b.chunks[i / b.plan.per_chunk], bytes, p, pinned);
      };
    detail::prepare_jpeg(inputs[i], options, per_image, b.prepared[i], scratch[std::size_t(worker)],
                         place, &engine.pool());
  };
  const detail::BatchOutcome out =
      engine.run(b.plan, prepare, [&](std::size_t c) { feed_chunk(b, c); });
  times.wait_ticket += out.wait_ticket;
  times.wait_cpu += out.wait_cpu;
  times.thread_seconds += out.thread_seconds;
  // Arenas of chunks never fed (the batch stopped) go back to the pool.
  for (std::size_t c = 0; c < b.plan.chunks(); ++c) pinned.give(std::move(b.chunks[c].arena));
  for (auto& p : b.prepared) pinned.give(std::move(p.pinned));
  std::exception_ptr failure = out.failure;
  if (!failure) {
    try {
      for (auto& s : slots) drain(s, images);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (!failure) return;
  // Leave the slots reusable: wait for what was enqueued, drop pending results.
  for (auto& s : slots) {
    try {
      drain(s, nullptr);
    } catch (...) {
    }
  }
  std::rethrow_exception(failure);
}

bool JpegDecoder::Impl::wants_device_entropy(const Input& input) const {
  // A large file on a GPU: the CPU stage's threads are the bottleneck there.
  return detail::device_entropy_chosen(options.entropy, device->info(), input.size,
                                       kAutoDeviceBytes);
}

bool JpegDecoder::Impl::decode_entropy_on_device(const Input& input, Image* out,
                                                 DeviceImage* device_out) {
  const auto t0 = Clock::now();
  detail::JpegPrepared p;
  detail::JpegDeviceSource src;
  if (!detail::prepare_jpeg_device(input, options, p, src)) return false;
  jpeg::DeviceEntropyPlan plan;
  plan.add(*src.decoder, 0, 0, detail::device_entropy_sub_bytes(input.size));
  auto& s = slots[0];
  drain(s, nullptr);
  if (!s.queue) s.queue = device->create_queue();
  Queue& q = *s.queue;
  const std::size_t coef_bytes = std::size_t(p.info.groups) * 64 * 64 * 2;
  detail::ensure(*device, device_entropy_file, std::max<std::size_t>(input.size, 4));
  detail::ensure(*device, s.job, p.info.job_bytes);
  detail::ensure(*device, s.coefficients, std::max<std::size_t>(coef_bytes, 4));
  detail::ensure(*device, s.planes, std::max<std::size_t>(p.info.plane_bytes, 4));
  q.write(*device_entropy_file, 0, input.data, input.size);
  q.write(*s.job, 0, p.job.data(), p.info.job_bytes);
  times.huffman += seconds_since(t0);
  const auto t1 = Clock::now();
  detail::run_device_entropy(*device, q, plan, *device_entropy_file, *s.coefficients, coef_bytes,
                             device_entropy);
  std::vector<std::string> warnings;
  if (!plan.outcome(0, device_entropy.status.data(), input.data, input.size, warnings)) {
    times.device += seconds_since(t1);
    return false;
  }
  p.warnings.insert(p.warnings.end(), warnings.begin(), warnings.end());
  JpegKernels& k = device->jpeg();
  // (Oclgrind 21.10 takes the planes the IDCT has just written for uninitialised once earlier
  // decoders' buffers were released and made again; in a fresh process it reports nothing
  // without this, as the other emulator workarounds of tests/CMakeLists.txt say)
  if (device->info().is_emulator) q.zero(*s.planes, 0, p.info.plane_bytes);
  k.idct(q, *s.job, *s.coefficients, *s.planes, p.info);
  const std::size_t bytes = p.info.output_bytes();
  auto describe = [&](auto& img) {
    img.width = int(p.info.width);
    img.height = int(p.info.height);
    img.format = p.format;
    img.bit_depth = 8 * int(p.info.sample_bytes);
    img.warnings = p.warnings;
    img.metadata = p.metadata;
  };
  if (device_out) {
    describe(*device_out);
    device_out->buffer = device->alloc(std::max<std::size_t>(bytes, 1));
    k.upsample_color(q, *s.job, *s.planes, *device_out->buffer, 0, p.info);
    q.finish();
  } else {
    describe(*out);
    detail::ensure(*device, s.output, std::max<std::size_t>(bytes, 1));
    k.upsample_color(q, *s.job, *s.planes, *s.output, 0, p.info);
    out->pixels.resize(bytes);
    if (bytes) q.read(out->pixels.data(), *s.output, 0, bytes);
    q.finish();
  }
  times.device += seconds_since(t1);
  ++times.images;
  ++times.device_entropy_images;
  return true;
}

detail::JpegPrepared JpegDecoder::Impl::prepare_one(const Input& input) {
  detail::JpegPrepared p;
  if (scratch.empty()) scratch.resize(1);
  detail::prepare_jpeg(input, options, options.threads, p, scratch.back(), {}, &engine.pool());
  times.huffman += p.seconds;
  if (!p.ok) throw Error(p.code, p.error);
  return p;
}

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

ImageInfo JpegDecoder::info(const std::uint8_t* data, std::size_t size) const {
  jpeg::Limits limits;
  limits.max_pixels = impl_->options.max_pixels;
  limits.max_scans = impl_->options.max_scans;
  const jpeg::Header h = jpeg::parse_headers(data, size, limits);
  ImageInfo info;
  info.width = h.width;
  info.height = h.height;
  if (lossless_file(data, size)) {
    // The checks that need the scans come with decode(); the frame's are made here.
    if (h.sof_marker != 0xC3) jpeg::lossless_layout(h);  // Unsupported, by name
    impl_->check_lossless_scale();
    info.format = h.components.size() == 1   ? PixelFormat::Gray
                  : h.components.size() == 2 ? PixelFormat::GrayAlpha
                  : h.components.size() == 3 ? PixelFormat::RGB
                                             : PixelFormat::CMYK;
    info.bit_depth = h.precision <= 8 ? 8 : 16;
    return info;
  }
  // Unsupported for what the decoder refuses.
  const jpeg::Layout layout = jpeg::make_layout(h, impl_->options.scale_denom);
  info.format = layout.format;
  info.bit_depth = 8 * layout.sample_bytes();
  info.width = layout.output_width;
  info.height = layout.output_height;
  return info;
}

Image JpegDecoder::decode(const Input& input) {
  if (lossless_file(input.data, input.size)) {
    check_no_crop(input);
    return decode_lossless(input.data, input.size);
  }
  if (impl_->wants_device_entropy(input)) {
    Image img;
    if (impl_->decode_entropy_on_device(input, &img, nullptr)) return img;
  }
  std::vector<detail::JpegPrepared> p(1);
  p[0] = impl_->prepare_one(input);
  std::vector<Image> images(1);
  Image& img = images[0];
  img.width = int(p[0].info.width);
  img.height = int(p[0].info.height);
  img.format = p[0].format;
  img.bit_depth = 8 * int(p[0].info.sample_bytes);
  img.warnings = p[0].warnings;
  img.metadata = p[0].metadata;
  auto& s = impl_->slots[0];
  impl_->drain(s, nullptr);
  impl_->enqueue(s, p, 0, 1, nullptr, 0, nullptr, nullptr);
  ++impl_->times.images;
  impl_->drain(s, &images);
  return std::move(images[0]);
}

DeviceImage JpegDecoder::decode_to_device(const Input& input) {
  if (lossless_file(input.data, input.size)) {
    check_no_crop(input);
    return decode_lossless_to_device(input.data, input.size);
  }
  if (impl_->wants_device_entropy(input)) {
    DeviceImage img;
    if (impl_->decode_entropy_on_device(input, nullptr, &img)) return img;
  }
  std::vector<detail::JpegPrepared> p(1);
  p[0] = impl_->prepare_one(input);
  DeviceImage img;
  img.width = int(p[0].info.width);
  img.height = int(p[0].info.height);
  img.format = p[0].format;
  img.bit_depth = 8 * int(p[0].info.sample_bytes);
  img.warnings = p[0].warnings;
  img.metadata = p[0].metadata;
  img.buffer = impl_->device->alloc(std::max<std::size_t>(p[0].info.output_bytes(), 1));
  auto& s = impl_->slots[0];
  impl_->drain(s, nullptr);
  impl_->enqueue(s, p, 0, 1, nullptr, 0, img.buffer.get(), nullptr);
  ++impl_->times.images;
  impl_->drain(s, nullptr);
  return img;
}

std::vector<Image> JpegDecoder::decode_batch(const std::vector<Input>& inputs,
                                             BatchErrors* errors) {
  std::vector<Image> images(inputs.size());
  if (errors) errors->assign(inputs.size(), std::nullopt);
  std::vector<std::size_t> lossless, rest;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    (lossless_file(inputs[i].data, inputs[i].size) ? lossless : rest).push_back(i);
  if (lossless.empty()) {
    impl_->run_batch(inputs, errors, &images, nullptr, nullptr);
    return images;
  }
  // Lossless files go one by one through their own pipeline, the others as a batch; failures
  // keep the caller's indices.
  std::vector<Input> others;
  for (std::size_t i : rest) others.push_back(inputs[i]);
  BatchErrors sub_errors(others.size());
  std::vector<Image> decoded(others.size());
  if (!others.empty()) impl_->run_batch(others, &sub_errors, &decoded, nullptr, nullptr);
  std::vector<std::optional<Error>> failed(inputs.size());
  for (std::size_t k = 0; k < rest.size(); ++k) {
    images[rest[k]] = std::move(decoded[k]);
    failed[rest[k]] = std::move(sub_errors[k]);
  }
  for (std::size_t i : lossless) {
    try {
      check_no_crop(inputs[i]);
      images[i] = decode_lossless(inputs[i].data, inputs[i].size);
    } catch (const Error& e) {
      failed[i] = e;
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!failed[i]) continue;
    if (!errors)
      throw Error(failed[i]->code(), "image " + std::to_string(i) + ": " + failed[i]->what());
    (*errors)[i] = std::move(failed[i]);
  }
  return images;
}

std::vector<DeviceImage> JpegDecoder::decode_batch_to_device(
    const std::vector<Input>& inputs, BatchErrors* errors, std::shared_ptr<DeviceBuffer>* output) {
  // Sizes from the frame headers (jpeg::parse_frame: the SOFn segment, the others before it
  // skipped unread), so that one buffer can hold the images; a file without a frame header that
  // parses gets no room (and fails in the batch). Where they do not fit the device's largest
  // single allocation, the batch is split into parts that do, each decoded into a buffer of its
  // own, one after another.
  const std::size_t n = inputs.size();
  std::vector<std::size_t> offsets(n, 0), part_of(n, 0), part_bytes{0};
  jpeg::Limits limits;
  limits.max_pixels = impl_->options.max_pixels;
  limits.max_scans = impl_->options.max_scans;
  const std::uint64_t limit = impl_->device->info().max_alloc_bytes;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t bytes = 0;
    try {
      const jpeg::Header h = jpeg::parse_frame(inputs[i].data, inputs[i].size, limits);
      const int denom = impl_->options.scale_denom;
      const Region& crop = inputs[i].crop;
      const bool cropped = !crop.whole() && crop.width > 0 && crop.height > 0;
      const std::size_t w = cropped ? crop.width : jpeg::scaled_size(h.width, denom);
      const std::size_t rows = cropped ? crop.height : jpeg::scaled_size(h.height, denom);
      const std::size_t sample_bytes = h.precision > 8 ? 2 : 1;
      bytes = (w * rows * h.components.size() * sample_bytes + 4095) / 4096 * 4096;
    } catch (const Error&) {
    }
    if (limit && part_bytes.back() && part_bytes.back() + bytes > limit) part_bytes.push_back(0);
    part_of[i] = part_bytes.size() - 1;
    offsets[i] = part_bytes.back();
    part_bytes.back() += bytes;
  }
  if (errors) errors->assign(n, std::nullopt);
  std::vector<DeviceImage> images(n);
  for (std::size_t part = 0, first = 0; first < n; ++part) {
    std::size_t end = first;
    while (end < n && part_of[end] == part) ++end;
    std::shared_ptr<DeviceBuffer> buffer;
    if (part == 0 && output && *output && (*output)->size() >= part_bytes[0]) buffer = *output;
    if (!buffer) buffer = impl_->device->alloc(std::max<std::size_t>(part_bytes[part], 1));
    if (part == 0 && output) *output = buffer;
    const std::vector<Input> sub(inputs.begin() + std::ptrdiff_t(first),
                                 inputs.begin() + std::ptrdiff_t(end));
    const std::vector<std::size_t> sub_offsets(offsets.begin() + std::ptrdiff_t(first),
                                               offsets.begin() + std::ptrdiff_t(end));
    BatchErrors sub_errors(sub.size());
    std::vector<Image> meta(sub.size());
    // Headers that misjudge the output (a frame header the decoder then refuses) would overrun
    // the space reserved; the batch engine checks each write against the buffer, so such an
    // image fails with InvalidArgument instead of overwriting its neighbour.
    impl_->run_batch(sub, errors ? &sub_errors : nullptr, &meta, buffer.get(), &sub_offsets, first);
    for (std::size_t k = 0; k < sub.size(); ++k) {
      DeviceImage& im = images[first + k];
      im.width = meta[k].width;
      im.height = meta[k].height;
      im.format = meta[k].format;
      im.bit_depth = meta[k].bit_depth;
      im.warnings = std::move(meta[k].warnings);
      im.metadata = std::move(meta[k].metadata);
      im.buffer = buffer;
      im.offset = sub_offsets[k];
      if (errors) (*errors)[first + k] = std::move(sub_errors[k]);
    }
    first = end;
  }
  return images;
}

const JpegDecoder::StageTimes& JpegDecoder::stage_times() const { return impl_->times; }
void JpegDecoder::reset_stage_times() { impl_->times = {}; }

}  // namespace hetcodec
