// The JPEG decoder's chunk planner (jpeg_chunks.h): job placement in a chunk's arena, the plan
// of a chunk in device memory, and the copies and launches that carry it out.
#include "host/src/jpeg_chunks.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "host/src/pinned_copy.h"

namespace hetcodec::detail {
namespace {

std::size_t aligned(std::size_t n) {
  return (n + kJpegJobAlign - 1) / kJpegJobAlign * kJpegJobAlign;
}
std::size_t table_room(std::size_t images) { return aligned(jpeg_chunk_table_bytes(images)); }

// Where the jobs of prepared[first, first + count) go in one device buffer: those in the arena
// where they lie in it (its first `arena_bytes` bytes are copied as they are), the others after
// them. Sets their job offsets; returns the bytes the buffer needs.
std::size_t lay_out_jobs(std::vector<JpegPrepared>& prepared, std::size_t first, std::size_t count,
                         std::size_t arena_bytes) {
  std::size_t end = arena_bytes;
  for (std::size_t i = first; i < first + count; ++i) {
    JpegPrepared& p = prepared[i];
    if (!p.ok || p.arena) continue;
    p.info.job_offset = end;
    end += aligned(p.info.job_bytes);
  }
  return end;
}

}  // namespace

std::size_t jpeg_chunk_images(std::size_t n, int images_per_copy, int slots) {
  if (images_per_copy > 0)
    return std::min<std::size_t>(std::size_t(images_per_copy), std::max<std::size_t>(n, 1));
  return std::max<std::size_t>(
      1, std::min<std::size_t>(kMaxChunkImages, n / (4 * std::size_t(slots))));
}

std::size_t jpeg_image_device_bytes(const std::uint8_t* data, std::size_t size,
                                    std::uint64_t max_pixels, int scale_denom, bool fused) {
  try {
    jpeg::Limits limits;
    limits.max_pixels = max_pixels;
    const jpeg::Layout l = jpeg::make_layout(jpeg::parse_frame(data, size, limits), scale_denom);
    const std::size_t job = std::min<std::size_t>(std::size_t(l.blocks) * 16 * 12, size * 48);
    const std::size_t coefficients = fused ? 0 : std::size_t(l.groups) * 64 * 128;
    return std::max({l.output_bytes(), aligned(l.plane_bytes), coefficients,
                     aligned(job) + kJpegJobAlign * 64});
  } catch (const Error&) {
    return 0;
  }
}

std::size_t jpeg_chunk_within(std::size_t per_chunk, const std::vector<std::size_t>& bytes,
                              std::uint64_t max_alloc) {
  if (!max_alloc) return per_chunk;
  auto fits = [&](std::size_t per) {
    for (std::size_t first = 0; first < bytes.size(); first += per) {
      std::uint64_t sum = 0;
      for (std::size_t i = first; i < std::min(bytes.size(), first + per); ++i) sum += bytes[i];
      if (sum > max_alloc) return false;
    }
    return true;
  };
  while (per_chunk > 1 && !fits(per_chunk)) --per_chunk;
  return per_chunk;
}

std::uint8_t* place_in_chunk(JpegChunk& c, std::size_t bytes, JpegPrepared& p, PinnedPool& pool) {
  const std::size_t need = aligned(bytes), room = table_room(c.images);
  {
    std::lock_guard<std::mutex> lock(c.m);
    if (!c.arena) {
      const std::size_t hint = pool.arena_hint();
      const std::size_t want = std::max(hint + hint / 4, need * c.images + need * c.images / 2);
      c.arena = pool.take(within_alloc(pool.device(), want + room, need + room));
    }
    if (c.used + need + room <= c.arena->size()) {
      p.arena = c.arena.get();
      p.info.job_offset = c.used;
      c.used += need;
      return p.arena->data() + p.info.job_offset;
    }
  }
  p.pinned = pool.take(bytes);
  return p.pinned->data();
}

JpegChunkPlan plan_chunk(std::vector<JpegPrepared>& prepared, std::size_t first, std::size_t count,
                         PinnedBuffer* arena, std::size_t arena_bytes,
                         const std::vector<std::size_t>& out_offsets, bool fused) {
  JpegChunkPlan c;
  std::size_t ok = 0;
  for (std::size_t i = first; i < first + count; ++i) ok += prepared[i].ok;
  const bool one_launch = fused && ok > 1;
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
    const JpegPrepared& p = prepared[i];
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

// The jobs of one chunk are either all pinned or all in host vectors, so the range staged
// holds no pinned job.
std::size_t copy_chunk_jobs(Device& device, Queue& q, DeviceBuffer& job,
                            const std::vector<JpegPrepared>& prepared, std::size_t first,
                            std::size_t count, const PinnedBuffer* arena, const JpegChunkPlan& plan,
                            std::unique_ptr<PinnedBuffer>& staging, double& staging_seconds) {
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
    const JpegPrepared& p = prepared[i];
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
  const auto t0 = std::chrono::steady_clock::now();
  ensure(device, staging, to - from);
  for (const Staged& st : staged)
    copy_to_pinned(staging->data() + (st.offset - from), st.data, st.bytes);
  staging_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  q.write(job, from, *staging, 0, to - from);
  return copies + 1;
}

namespace {
void decode_image(Device& device, Queue& q, const DeviceBuffer& job, const JpegChunkImage& im,
                  DeviceBuffer& planes, std::unique_ptr<DeviceBuffer>& coefficients, bool fused) {
  JpegKernels& k = device.jpeg();
  if (fused) {
    k.decode_idct(q, job, planes, im.info);
  } else {
    ensure(device, coefficients, std::size_t(im.info.groups) * 64 * 128);
    k.decode_tokens(q, job, *coefficients, im.info);
    k.idct(q, job, *coefficients, planes, im.info);
  }
}
}  // namespace

void decode_chunk(Device& device, Queue& q, const DeviceBuffer& job, const JpegChunkPlan& plan,
                  DeviceBuffer& planes, std::unique_ptr<DeviceBuffer>& coefficients, bool fused) {
  if (!plan.table.empty()) {
    device.jpeg().decode_idct_chunk(q, job, plan.table_offset, plan.images, planes);
    return;
  }
  for (const JpegChunkImage& im : plan.images)
    decode_image(device, q, job, im, planes, coefficients, fused);
}

void decode_color_chunk(Device& device, Queue& q, const DeviceBuffer& job,
                        const JpegChunkPlan& plan, DeviceBuffer& planes,
                        std::unique_ptr<DeviceBuffer>& coefficients, bool fused,
                        DeviceBuffer& out) {
  if (!plan.table.empty()) {
    decode_chunk(device, q, job, plan, planes, coefficients, fused);
    color_chunk(device, q, job, plan, planes, out);
    return;
  }
  // A launch per image: the images share the planes, so each is coloured before the next one
  // is decoded over them.
  for (const JpegChunkImage& im : plan.images) {
    decode_image(device, q, job, im, planes, coefficients, fused);
    device.jpeg().upsample_color(q, job, planes, out, im.out_offset, im.info);
  }
}

void color_chunk(Device& device, Queue& q, const DeviceBuffer& job, const JpegChunkPlan& plan,
                 const DeviceBuffer& planes, DeviceBuffer& out) {
  JpegKernels& k = device.jpeg();
  if (!plan.table.empty()) {
    k.upsample_color_chunk(q, job, plan.table_offset, plan.images, planes, out);
    return;
  }
  for (const JpegChunkImage& im : plan.images)
    k.upsample_color(q, job, planes, out, im.out_offset, im.info);
}

}  // namespace hetcodec::detail
