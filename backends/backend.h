// The one backend interface (DESIGN.md §2): devices, device buffers, pinned host buffers, queues
// with asynchronous copies and events, and the per-codec kernel interfaces. The pipelines in
// host/ are written once against these classes; cpu/, cuda/ and opencl/ implement them.
#ifndef HETCODEC_BACKENDS_BACKEND_H
#define HETCODEC_BACKENDS_BACKEND_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "hetcodec/device.h"

struct hc_filter_params;  // core/portable/filters.h

namespace hetcodec {

// DeviceKind, DeviceInfo and the registry's functions (list_devices, open_device, ...) are
// public: hetcodec/device.h.

// Memory on a device. On the CPU reference it is ordinary host memory.
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() {
    if (in_use_) in_use_->fetch_sub(size_, std::memory_order_relaxed);
  }
  std::size_t size() const { return size_; }
  // The backend's own handle of the memory (native_memory() in hetcodec/image.h): the CUDA
  // device pointer, the CPU reference's host pointer, the OpenCL cl_mem.
  virtual void* native_handle() const = 0;

 protected:
  explicit DeviceBuffer(std::size_t size) : size_(size) {}

 private:
  friend class Device;
  std::size_t size_;
  // The device's count of bytes in buffers (Device::alloc), given back when this one goes.
  std::shared_ptr<std::atomic<std::uint64_t>> in_use_;
};

// PinnedBuffer (host memory the device's DMA engine reads and writes directly) is public:
// hetcodec/device.h.

// A point in a queue's work. complete() once everything enqueued before it has finished.
class Event {
 public:
  virtual ~Event() = default;
  virtual void wait() = 0;
};

// An in-order stream of copies and kernels.
// Copies from or to a PinnedBuffer are asynchronous: the pinned bytes must not be touched until
// an event recorded after the copy has completed (or finish() returned). Copies from or to a
// plain host pointer (pageable memory) return only when the host memory may be reused.
class Queue {
 public:
  virtual ~Queue() = default;
  virtual void write(DeviceBuffer& dst, std::size_t dst_offset, const void* src,
                     std::size_t bytes) = 0;
  virtual void read(void* dst, const DeviceBuffer& src, std::size_t src_offset,
                    std::size_t bytes) = 0;
  virtual void write(DeviceBuffer& dst, std::size_t dst_offset, const PinnedBuffer& src,
                     std::size_t src_offset, std::size_t bytes) = 0;
  virtual void read(PinnedBuffer& dst, std::size_t dst_offset, const DeviceBuffer& src,
                    std::size_t src_offset, std::size_t bytes) = 0;
  virtual void copy(DeviceBuffer& dst, std::size_t dst_offset, const DeviceBuffer& src,
                    std::size_t src_offset, std::size_t bytes) = 0;
  // Sets `bytes` of dst from dst_offset to zero.
  virtual void zero(DeviceBuffer& dst, std::size_t dst_offset, std::size_t bytes) = 0;
  // Marks the current end of the queue.
  virtual std::unique_ptr<Event> record() = 0;
  // Work enqueued after this call starts only once `event` (possibly of another queue of the
  // same device) has completed.
  virtual void wait_for(Event& event) = 0;
  virtual void finish() = 0;
};

// ---- per-codec kernel interfaces: one virtual method per stage ---------------------------------

// Sizes of one JPEG decode job (core/portable/jpeg_job.h) that the host knows and the backends
// need for launch geometry and bounds checks. The job buffer itself carries everything else.
// Jobs may lie side by side in one buffer (the batch engine copies several at once): a job
// starts `job_offset` bytes into the buffer the kernels are given, a multiple of this.
constexpr std::size_t kJpegJobAlign = 256;
struct JpegJobInfo {
  std::size_t job_bytes = 0;    // header + quantisation tables + token stream
  std::size_t job_offset = 0;   // where the job starts in its buffer (kJpegJobAlign-aligned)
  std::uint32_t groups = 0;     // 64-block groups of all components
  std::uint32_t blocks = 0;     // blocks of all components (groups * 64 at most)
  std::size_t plane_bytes = 0;  // component planes (the IDCT output)
  std::uint32_t width = 0, height = 0, channels = 0;
  std::uint32_t sample_bytes = 1;  // of the planes and the output: 2 for 12-bit JPEG
  std::size_t output_bytes() const { return std::size_t(width) * height * channels * sample_bytes; }
};

// One image of a chunk that one launch of each kernel decodes: its job (at info.job_offset in
// the job buffer), and where its planes and its pixels go.
struct JpegChunkImage {
  JpegJobInfo info;
  std::size_t plane_offset = 0;  // in the planes buffer
  std::size_t out_offset = 0;    // in the output buffer
};
// The chunk table (core/portable/jpeg_job.h) of `images`, in launch order: its size in bytes,
// and its words, written to `words`.
std::size_t jpeg_chunk_table_bytes(std::size_t images);
void write_jpeg_chunk_table(const std::vector<JpegChunkImage>& images, std::uint32_t* words);

// A part of one of the two-stage path's launches, for replaying a crop of a stage (hetcodec
// debug replay): its items [first, first + count), in the stage's units: groups of 64 blocks
// for decode_tokens, blocks for idct, pixels for upsample_color. count 0: every item.
struct JpegLaunchRange {
  std::uint32_t first = 0, count = 0;
};

class JpegKernels {
 public:
  virtual ~JpegKernels() = default;
  // Planar 8-bit Y, Cb, Cr (three planes of `pixels` samples, back to back in `ycc`) to
  // interleaved RGB in `rgb`, with libjpeg-turbo's fixed-point arithmetic (jdcolor.c).
  // Checks the buffer sizes (InvalidArgument), then runs the backend's stage.
  void ycc_to_rgb(Queue& queue, const DeviceBuffer& ycc, DeviceBuffer& rgb, std::uint32_t pixels);

  // The fused stage (the default): token decode into zero-filled 8x8 tiles, dequantisation and
  // the accurate integer IDCT, one work-group per 64-block group; writes the component planes.
  void decode_idct(Queue& queue, const DeviceBuffer& job, DeviceBuffer& planes,
                   const JpegJobInfo& info);
  // The same work in two stages, kept for verification: tokens -> dense quantised coefficients
  // (blocks x 64 int16, natural order), then dequantisation + IDCT -> component planes.
  // `range`: only a part of the launch (the rest of the output is left as it is).
  void decode_tokens(Queue& queue, const DeviceBuffer& job, DeviceBuffer& coefficients,
                     const JpegJobInfo& info, const JpegLaunchRange& range = {});
  void idct(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& coefficients,
            DeviceBuffer& planes, const JpegJobInfo& info, const JpegLaunchRange& range = {});
  // Upsampling (libjpeg-turbo's fancy filters) and colour conversion: component planes ->
  // interleaved output pixels (gray, RGB or CMYK) at `out` + `out_offset`.
  void upsample_color(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                      DeviceBuffer& out, std::size_t out_offset, const JpegJobInfo& info,
                      const JpegLaunchRange& range = {});
  // The fused stage and the colour stage for several jobs, one launch each: `images` lie in
  // `jobs`, their chunk table (written by write_jpeg_chunk_table from the same `images`, and
  // copied with the jobs) at `table_offset`. One launch instead of one per image saves the
  // driver's fixed cost per launch, and fills the device with the work of several images.
  void decode_idct_chunk(Queue& queue, const DeviceBuffer& jobs, std::size_t table_offset,
                         const std::vector<JpegChunkImage>& images, DeviceBuffer& planes);
  void upsample_color_chunk(Queue& queue, const DeviceBuffer& jobs, std::size_t table_offset,
                            const std::vector<JpegChunkImage>& images, const DeviceBuffer& planes,
                            DeviceBuffer& out);

 protected:
  // Backend stages: called with arguments already validated.
  virtual void run_ycc_to_rgb(Queue& queue, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                              std::uint32_t pixels) = 0;
  virtual void run_decode_idct(Queue& queue, const DeviceBuffer& job, DeviceBuffer& planes,
                               const JpegJobInfo& info) = 0;
  // `range`: checked, and count set (never 0).
  virtual void run_decode_tokens(Queue& queue, const DeviceBuffer& job, DeviceBuffer& coefficients,
                                 const JpegJobInfo& info, const JpegLaunchRange& range) = 0;
  virtual void run_idct(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& coefficients,
                        DeviceBuffer& planes, const JpegJobInfo& info,
                        const JpegLaunchRange& range) = 0;
  virtual void run_upsample_color(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                                  DeviceBuffer& out, std::size_t out_offset,
                                  const JpegJobInfo& info, const JpegLaunchRange& range) = 0;
  // `groups` and `tiles`: the work-groups of the launch (the table's header words 1 and 2).
  virtual void run_decode_idct_chunk(Queue& queue, const DeviceBuffer& jobs,
                                     std::size_t table_offset, std::uint32_t groups,
                                     DeviceBuffer& planes) = 0;
  virtual void run_upsample_color_chunk(Queue& queue, const DeviceBuffer& jobs,
                                        std::size_t table_offset, std::uint32_t tiles,
                                        const DeviceBuffer& planes, DeviceBuffer& out) = 0;
};

// ---- PNG encode stages (DESIGN.md §3 "PNG encode") -----------------------------------------

struct PngFilterInfo {
  std::uint32_t height = 0;
  std::uint32_t row_bytes = 0;  // unfiltered bytes per row, at most kMaxPngRowBytes
  std::uint32_t bpp = 1;        // bytes per complete pixel, 1..8
  std::uint32_t mask = 0x1F;    // the filters allowed: bit t for filter type t (0 None .. 4 Paeth)
  // Rows y > 0 with y % band_rows == 0 keep only None and Sub of `mask` (the parallel mode's
  // bands: hc_png_row_mask); 0: every row takes `mask`.
  std::uint32_t band_rows = 0;
  static constexpr std::uint32_t kMaxPngRowBytes = 1u << 28;
};

// One pass of filtered PNG data in device memory (a filter byte, then row_bytes bytes, per row).
struct PngDefilterInfo {
  std::uint64_t offset = 0;  // of the pass's first filter byte in the buffer
  std::uint32_t height = 0;
  std::uint32_t row_bytes = 0;  // without the filter byte
  std::uint32_t bpp = 1;        // bytes per complete pixel for the filters, 1..8
  // Every row is filtered with None or Sub: rows do not depend on each other, and a cheaper
  // row-parallel stage runs instead of the wavefront.
  bool rows_independent = false;
  // Every tile row after the first (rows HC_WF_ROWS, 2 * HC_WF_ROWS, ... of the pass) starts
  // with a row filtered with None or Sub, which needs no row above: the bands of HC_WF_ROWS
  // rows are de-filtered side by side, one work-group each along the whole width, with no
  // scratch and no wait on another (core/portable/wavefront.h, HC_BAND_SLOTS).
  bool bands = false;
};
// Wavefront (the wavefront engine's tile order) is public: hetcodec/device.h.

class PngKernels {
 public:
  virtual ~PngKernels() = default;
  // Words of scratch defilter() needs for a pass (a ticket counter and a flag per tile).
  static std::size_t defilter_scratch_bytes(const PngDefilterInfo& info);
  // Reconstructs the filtered rows of a pass in place (the filter bytes stay). The filter types
  // must have been checked (0..4). Checks the sizes (InvalidArgument).
  void defilter(Queue& queue, DeviceBuffer& rows, DeviceBuffer& scratch,
                const PngDefilterInfo& info, Wavefront order = Wavefront::Auto);
  // The output pixels (core/portable/png_decode.h) from the de-filtered passes in `rows` and
  // the unpack job (HC_PNG_JOB_BYTES), pixel_bytes per pixel, at out + out_offset.
  void unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& rows, DeviceBuffer& out,
              std::size_t out_offset, std::uint32_t width, std::uint32_t height,
              std::uint32_t pixel_bytes);
  // Per row, the filter libpng 1.6 chooses among those in info.mask (core/portable/png_filter.h)
  // and the filtered row: `rows` holds height rows of row_bytes, `filtered` receives height rows
  // of a filter byte and row_bytes filtered bytes. Checks the arguments (InvalidArgument).
  void filter_rows(Queue& queue, const DeviceBuffer& rows, DeviceBuffer& filtered,
                   const PngFilterInfo& info);
  // Inflates `count` segments of a zlib stream, one work-item each (core/portable/png_inflate.h):
  // `segments` holds HC_INF_WORDS words per segment, `compressed` the joined IDAT data, `rows`
  // receives the filtered rows, `results` HC_INF_RESULT_WORDS words per segment. The caller
  // has checked every segment's ranges against the buffers; this checks the tables' sizes
  // (InvalidArgument).
  void inflate(Queue& queue, const DeviceBuffer& compressed, const DeviceBuffer& segments,
               DeviceBuffer& rows, DeviceBuffer& results, std::uint32_t count);
  // One stage (HC_DFL_COUNT .. HC_DFL_PACK) of the device deflate of core/portable/png_deflate.h
  // over `items` items: `data` holds the filtered rows (its size a multiple of 8: the stages
  // read 8-byte words, the bytes past the rows ignored), `plan` the host's plan
  // (core/png/deflate_plan.h, which also sizes `work`, `syms` and `out`). Checks the stage and
  // that the plan is there (InvalidArgument).
  void deflate(Queue& queue, int stage, std::uint32_t items, const DeviceBuffer& data,
               const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms, DeviceBuffer& out);
  // CRC-32 of `count` pieces of the first `bytes` bytes of `data` (core/portable/png_crc.h:
  // piece j is [j * piece - skew, (j + 1) * piece - skew) clipped to the bytes), one work-item
  // each, as count words into `crcs` from byte crcs_offset (a multiple of 4; the same buffer
  // as `data` past its bytes, so that one read brings both back). Checks the sizes
  // (InvalidArgument).
  void crc32_pieces(Queue& queue, const DeviceBuffer& data, std::uint32_t bytes,
                    std::uint32_t piece, std::uint32_t skew, DeviceBuffer& crcs,
                    std::size_t crcs_offset, std::uint32_t count);

 protected:
  virtual void run_filter_rows(Queue& queue, const DeviceBuffer& rows, DeviceBuffer& filtered,
                               const PngFilterInfo& info) = 0;
  virtual void run_defilter(Queue& queue, DeviceBuffer& rows, DeviceBuffer& scratch,
                            const PngDefilterInfo& info, Wavefront order) = 0;
  virtual void run_unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& rows,
                          DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                          std::uint32_t height, std::uint32_t pixel_bytes) = 0;
  virtual void run_inflate(Queue& queue, const DeviceBuffer& compressed,
                           const DeviceBuffer& segments, DeviceBuffer& rows, DeviceBuffer& results,
                           std::uint32_t count) = 0;
  virtual void run_deflate(Queue& queue, int stage, std::uint32_t items, const DeviceBuffer& data,
                           const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms,
                           DeviceBuffer& out) = 0;
  virtual void run_crc32_pieces(Queue& queue, const DeviceBuffer& data, std::uint32_t bytes,
                                std::uint32_t piece, std::uint32_t skew, DeviceBuffer& crcs,
                                std::size_t crcs_offset, std::uint32_t count) = 0;
};

// ---- lossless JPEG decode stages (DESIGN.md §3 "Lossless JPEG decode") ------------------------

// One scan of a lossless JPEG job (core/jpeg/lossless.h, core/portable/ljpeg.h): its plane at
// plane_offset in the planes buffer (height rows of a type byte and width x comps 16-bit
// samples), its status words (HC_LJ_STATUS_WORDS per row) at status_offset in the status buffer.
struct LjpegScanInfo {
  std::uint32_t scan = 0;  // index in the job
  std::uint64_t plane_offset = 0;
  std::uint32_t width = 0, height = 0, comps = 1;
  std::uint32_t predictor = 1;
  std::uint32_t restart_rows = 0;  // plane rows per restart interval, 0: none
  std::uint32_t mcu_v = 1;         // plane rows per coded row (a residual work-item)
  std::size_t status_offset = 0;   // bytes
  // The CPU reference only: threads for the rows of the residual stage (0: one per hardware
  // thread).
  int cpu_threads = 0;
  std::uint32_t row_bytes() const { return 2u * width * comps; }
  std::uint32_t coded_rows() const { return height / mcu_v; }
  std::uint64_t plane_bytes() const { return std::uint64_t(height) * (row_bytes() + 1u); }
};

class LjpegKernels {
 public:
  virtual ~LjpegKernels() = default;
  // Bytes of scratch reconstruct() needs for a scan (the wavefront engine's flags).
  static std::size_t scratch_bytes(const LjpegScanInfo& info);
  // Each row's differences from its row table entry (the job) and the file's bytes (`file`),
  // one work-item per row, into the scan's plane; each row's status into `status`. Checks the
  // sizes (InvalidArgument).
  void residuals(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& file,
                 DeviceBuffer& planes, DeviceBuffer& status, const LjpegScanInfo& info);
  // The samples from the differences, in place: predictor 1 by row sums after the first
  // column, 2 by column sums, 3..7 by the wavefront engine in `order` (Tickets or Diagonals
  // also take predictors 1 and 2 there, for comparison).
  void reconstruct(Queue& queue, DeviceBuffer& planes, DeviceBuffer& scratch,
                   const LjpegScanInfo& info, Wavefront order = Wavefront::Auto);
  // The output pixels (8-bit, or 16-bit big-endian samples) from the planes, at out + out_offset.
  void unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes, DeviceBuffer& out,
              std::size_t out_offset, std::uint32_t width, std::uint32_t height,
              std::uint32_t pixel_bytes);

 protected:
  virtual void run_residuals(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& file,
                             DeviceBuffer& planes, DeviceBuffer& status,
                             const LjpegScanInfo& info) = 0;
  virtual void run_reconstruct(Queue& queue, DeviceBuffer& planes, DeviceBuffer& scratch,
                               const LjpegScanInfo& info, Wavefront order) = 0;
  virtual void run_unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                          DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                          std::uint32_t height) = 0;
};

// ---- JPEG encode stages (DESIGN.md §3 "JPEG encode") ---------------------------------------

class JpegEncodeKernels {
 public:
  virtual ~JpegEncodeKernels() = default;
  // One stage (HC_JENC_BLOCKS .. HC_JENC_SCATTER of core/portable/jpeg_encode.h) for `items`
  // items (hc_jenc_items of the plan): `pixels` the input samples (at the image plans'
  // offsets), `plan` the host's plan of a batch of images (hc_jenc_batch, its image table and
  // the images' plans), `work` the stages' words and `data` the
  // packed data and its 0xFF counts (laid out by the plan), `coefs` the quantised blocks, `out`
  // the entropy-coded data. `arg`: the array of the scan stages (HC_JENC_SCAN_*). Checks the
  // stage and the plan's size (InvalidArgument).
  void stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
             const DeviceBuffer& pixels, const DeviceBuffer& plan, DeviceBuffer& work,
             DeviceBuffer& data, DeviceBuffer& coefs, DeviceBuffer& out);

 protected:
  virtual void run_stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                         const DeviceBuffer& pixels, const DeviceBuffer& plan, DeviceBuffer& work,
                         DeviceBuffer& data, DeviceBuffer& coefs, DeviceBuffer& out) = 0;
};

// ---- Huffman decoding of sequential JPEG on the device (core/portable/jpeg_huffman.h) -----

class JpegEntropyKernels {
 public:
  virtual ~JpegEntropyKernels() = default;
  // One stage (HC_JH_SPECULATE .. HC_JH_WRITE) for `items` items (subsequences, or segments for
  // HC_JH_SCAN): `plan` the host's plan (core/jpeg/entropy_device.h), `data` the files' bytes
  // at the plan's offsets, `work` the stages' words (zeroed before SPECULATE), `coefs` the dense
  // quantised coefficients the WRITE stage fills (zeroed before it). `arg`: the SYNC pass.
  // Checks the stage (InvalidArgument).
  void stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
             const DeviceBuffer& plan, const DeviceBuffer& data, DeviceBuffer& work,
             DeviceBuffer& coefs);

 protected:
  virtual void run_stage(Queue& queue, int stage, std::uint32_t arg, std::uint32_t items,
                         const DeviceBuffer& plan, const DeviceBuffer& data, DeviceBuffer& work,
                         DeviceBuffer& coefs) = 0;
};

// ---- filters on device images (DESIGN.md §3 "Filters") --------------------------------------

class FilterKernels {
 public:
  virtual ~FilterKernels() = default;
  // One kernel (HC_FILTER_SMOOTH .. HC_FILTER_MANDELBROT of core/portable/filters.h) over an
  // image of p.width x p.height pixels: `src` at `src_offset` (p.channels samples a pixel; read
  // by smoothing and texture only, may be null otherwise) into `dst` at `dst_offset` (p.channels
  // samples a pixel, 4 bytes a pixel for float Perlin noise). Checks the kernel, the
  // parameters and the buffers' ranges (InvalidArgument).
  void run(Queue& queue, int kind, const hc_filter_params& p, const DeviceBuffer* src,
           std::size_t src_offset, DeviceBuffer& dst, std::size_t dst_offset);

 protected:
  virtual void run_kernel(Queue& queue, int kind, const hc_filter_params& p,
                          const DeviceBuffer* src, std::size_t src_offset, DeviceBuffer& dst,
                          std::size_t dst_offset) = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  const DeviceInfo& info() const { return info_; }

  // A device buffer of `bytes`: Error(LimitExceeded) past DeviceInfo::max_alloc_bytes, and
  // Error(OutOfMemory) when the buffers alive on the device would pass its memory limit
  // (limit_device_memory()) or the runtime has no memory for it.
  std::unique_ptr<DeviceBuffer> alloc(std::size_t bytes);
  // The bytes of the buffers alive on the device, and the most they may be (0: no limit).
  std::uint64_t memory_in_use() const { return in_use_->load(std::memory_order_relaxed); }
  std::uint64_t memory_limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_memory_limit(std::uint64_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }

  virtual std::unique_ptr<PinnedBuffer> alloc_pinned(std::size_t bytes) = 0;
  virtual std::unique_ptr<Queue> create_queue() = 0;
  // Kernels are built on first use (OpenCL: from the embedded sources, through the disk cache).
  virtual JpegKernels& jpeg() = 0;
  virtual PngKernels& png() = 0;
  virtual LjpegKernels& ljpeg() = 0;
  virtual JpegEncodeKernels& jpeg_encode() = 0;
  virtual JpegEntropyKernels& jpeg_entropy() = 0;
  virtual FilterKernels& filters() = 0;
  // The kernels the device's programs hold, by entry-point name, where the runtime can list
  // them (OpenCL: every embedded program built); empty elsewhere.
  virtual std::vector<std::string> kernel_names() { return {}; }
  // Waits until work that any stream of the process queued on the device (another library's,
  // through memory it was lent by DLPack) is done: CUDA waits for the device; the CPU
  // reference and OpenCL (whose memory no other library is lent) have nothing to wait for.
  virtual void wait_idle() {}

 protected:
  // The limit starts as $HETCODEC_DEVICE_MEMORY (bytes) where that is set.
  explicit Device(DeviceInfo info);
  // The backend's buffer of `bytes` (its runtime's allocation), after the checks of alloc().
  virtual std::unique_ptr<DeviceBuffer> make_buffer(std::size_t bytes) = 0;

 private:
  DeviceInfo info_;
  std::shared_ptr<std::atomic<std::uint64_t>> in_use_ =
      std::make_shared<std::atomic<std::uint64_t>>(0);
  std::atomic<std::uint64_t> limit_{0};
};

// The registry and selection (backends/registry.cpp) are declared in hetcodec/device.h.

}  // namespace hetcodec

#endif  // HETCODEC_BACKENDS_BACKEND_H
