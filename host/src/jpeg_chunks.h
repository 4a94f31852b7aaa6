// The JPEG decoder's chunk planner. A batch goes to the device a chunk of consecutive images at
// a time: their jobs lie side by side in one pinned arena, copied in one transfer, and the
// chunk's kernels run on one slot. Fewer, larger copies and fewer calls per image: a copy costs
// the driver a fixed time on top of its bytes, which dominates at a job's size. With the fused
// stage one launch of each kernel decodes the whole chunk, each work-group finding its image in
// the chunk table (core/portable/jpeg_job.h); otherwise each image has its launches and the
// images share the planes (the queue runs them in turn). Here: the chunk size, the placement of
// jobs in the arena, the plan of where jobs, table, planes and pixels lie, and the copies and
// launches that carry a plan out.
#ifndef HETCODEC_HOST_JPEG_CHUNKS_H
#define HETCODEC_HOST_JPEG_CHUNKS_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/backend.h"
#include "host/src/batch_engine.h"
#include "host/src/jpeg_prepare.h"

namespace hetcodec::detail {

// 16: on an H100, chunks of 16 fed the device in less time per image than chunks of 8, on CUDA
// and NVIDIA OpenCL alike, and ran the kernels faster (docs/benchmarks.md); the planes of a
// chunk's images lie side by side, so 16 ImageNet-size images take about 6 MB of planes per slot.
constexpr std::size_t kMaxChunkImages = 16;

// Images per chunk for a batch of n on `slots` slots: images_per_copy when set, else up to
// kMaxChunkImages, while every slot still gets a few chunks.
std::size_t jpeg_chunk_images(std::size_t n, int images_per_copy, int slots);

// Device bytes one image can need in any one of a chunk's buffers: its pixels and planes at
// scale 1/scale_denom, the separate kernels' coefficients (128 bytes a block), or its job, whose
// token stream has at most 16 tokens of 12 bytes per block and, each non-zero coefficient taking
// at least two bits of entropy-coded data, at most 48 bytes per input byte. 0 for a file whose
// frame does not parse or is refused (it fails in the batch).
std::size_t jpeg_image_device_bytes(const std::uint8_t* data, std::size_t size,
                                    std::uint64_t max_pixels, int scale_denom, bool fused);

// The largest chunk size up to `per_chunk` whose chunks' images, `bytes` each, together fit one
// buffer of `max_alloc` bytes (0: no limit); at least 1 (an image over the limit alone fails in
// its allocation, naming the device).
std::size_t jpeg_chunk_within(std::size_t per_chunk, const std::vector<std::size_t>& bytes,
                              std::uint64_t max_alloc);

// A chunk's pinned arena, filled by the threads that prepare its images.
struct JpegChunk {
  std::mutex m;
  std::unique_ptr<PinnedBuffer> arena;
  std::size_t used = 0;    // bytes of the arena placed, guarded by m
  std::size_t images = 0;  // images in the chunk
};

// Places a job of `bytes` in the chunk's arena (made by the first of its images to get there,
// sized from the pool's arena hint), or, when the arena is full, in a pinned buffer of its own.
// The arena keeps room for the chunk's table at the end of its jobs.
std::uint8_t* place_in_chunk(JpegChunk& chunk, std::size_t bytes, JpegPrepared& p,
                             PinnedPool& pool);

// How a chunk's images go to the device: where their jobs, their chunk table, their planes and
// their pixels lie.
struct JpegChunkPlan {
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
// job offsets of those not in the arena, and writes the table into the arena where it has room
// (it has: place_in_chunk keeps it).
JpegChunkPlan plan_chunk(std::vector<JpegPrepared>& prepared, std::size_t first, std::size_t count,
                         PinnedBuffer* arena, std::size_t arena_bytes,
                         const std::vector<std::size_t>& out_offsets, bool fused);

// Enqueues the copies of a planned chunk's jobs into `job`: the arena in one copy, each other
// pinned job in its own, and jobs in host vectors (and the table, when not in the arena)
// through `staging`, in one copy of the range they span. Returns the number of copies; the
// time spent staging is added to `staging_seconds`.
std::size_t copy_chunk_jobs(Device& device, Queue& q, DeviceBuffer& job,
                            const std::vector<JpegPrepared>& prepared, std::size_t first,
                            std::size_t count, const PinnedBuffer* arena, const JpegChunkPlan& plan,
                            std::unique_ptr<PinnedBuffer>& staging, double& staging_seconds);

// The decode stage of a planned chunk into `planes`: one launch for the chunk, or per image
// (fused, or the two separate kernels through `coefficients`).
void decode_chunk(Device& device, Queue& q, const DeviceBuffer& job, const JpegChunkPlan& plan,
                  DeviceBuffer& planes, std::unique_ptr<DeviceBuffer>& coefficients, bool fused);
// The colour stage of a planned chunk, each image's pixels at its offset in `out`.
void color_chunk(Device& device, Queue& q, const DeviceBuffer& job, const JpegChunkPlan& plan,
                 const DeviceBuffer& planes, DeviceBuffer& out);
// Both stages of a planned chunk, as a batch runs them: the decode stage of every image, then
// the colour stage of every image where one launch of each does the chunk (their planes lie
// side by side); image by image otherwise, since the images then share the planes.
void decode_color_chunk(Device& device, Queue& q, const DeviceBuffer& job,
                        const JpegChunkPlan& plan, DeviceBuffer& planes,
                        std::unique_ptr<DeviceBuffer>& coefficients, bool fused, DeviceBuffer& out);

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_JPEG_CHUNKS_H
