// PNG encode stages on OpenCL: host side of kernels_cl/png_encode.cl.
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"
#include "core/portable/png_decode.h"
#include "core/portable/png_deflate.h"
#include "core/portable/png_inflate.h"

namespace hetcodec::opencl {
namespace {

class ClPngKernels : public PngKernels {
 public:
  explicit ClPngKernels(ClDevice& device)
      : filter_(make_kernel(device.program("png_encode"), "png_filter_rows")),
        clear_(make_kernel(device.program("png_decode"), "png_clear")),
        rows_(make_kernel(device.program("png_decode"), "png_defilter_rows")),
        tiles_(make_kernel(device.program("png_decode"), "png_defilter_tiles")),
        bands_(make_kernel(device.program("png_decode"), "png_defilter_bands")),
        unpack_(make_kernel(device.program("png_decode"), "png_unpack")),
        inflate_(make_kernel(device.program("png_decode"), "png_inflate")),
        crc_(make_kernel(device.program("png_encode"), "png_crc32_pieces")),
        encode_(device.program("png_encode")) {}

  void run_filter_rows(Queue& queue, const DeviceBuffer& rows, DeviceBuffer& filtered,
                       const PngFilterInfo& info) override {
    // A kernel object is not safe to set from two threads at once (see jpeg_kernels.cpp).
    std::lock_guard<std::mutex> lock(mutex_);
    HC_CL_CHECK(filter_.setArg(0, mem_of(rows)));
    HC_CL_CHECK(filter_.setArg(1, mem_of(filtered)));
    HC_CL_CHECK(filter_.setArg(2, cl_uint(info.row_bytes)));
    HC_CL_CHECK(filter_.setArg(3, cl_uint(info.bpp)));
    HC_CL_CHECK(filter_.setArg(4, cl_uint(info.mask)));
    HC_CL_CHECK(filter_.setArg(5, cl_uint(info.band_rows)));
    queue_cast(queue).launch(filter_, std::size_t(info.height) * 256, 256, "png_filter_rows");
  }

  void run_defilter(Queue& queue, DeviceBuffer& rows, DeviceBuffer& scratch,
                    const PngDefilterInfo& info, Wavefront order) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ClQueue& q = queue_cast(queue);
    // The three de-filter kernels start with the same five arguments: the pass.
    auto set_pass = [&](cl::Kernel& k) {
      HC_CL_CHECK(k.setArg(0, mem_of(rows)));
      HC_CL_CHECK(k.setArg(1, cl_ulong(info.offset)));
      HC_CL_CHECK(k.setArg(2, cl_uint(info.height)));
      HC_CL_CHECK(k.setArg(3, cl_uint(info.row_bytes)));
      HC_CL_CHECK(k.setArg(4, cl_uint(info.bpp)));
    };
    if (info.rows_independent) {
      set_pass(rows_);
      q.launch(rows_, (std::size_t(info.height) + 63) / 64 * 64, 64, "png_defilter_rows");
      return;
    }
    if (info.bands) {
      set_pass(bands_);
      q.launch(bands_, (std::size_t(info.height) + HC_WF_ROWS - 1) / HC_WF_ROWS * HC_WF_ROWS,
               HC_WF_ROWS, "png_defilter_bands");
      return;
    }
    const std::uint32_t tiles_x = (info.row_bytes + HC_WF_BYTES - 1) / HC_WF_BYTES;
    const std::uint32_t tiles_y = (info.height + HC_WF_ROWS - 1) / HC_WF_ROWS;
    set_pass(tiles_);
    HC_CL_CHECK(tiles_.setArg(5, cl_uint(tiles_x)));
    HC_CL_CHECK(tiles_.setArg(6, cl_uint(tiles_y)));
    HC_CL_CHECK(tiles_.setArg(8, mem_of(scratch)));
    if (order == Wavefront::Tickets) {
      const std::uint32_t words = 1u + tiles_x * tiles_y;
      HC_CL_CHECK(clear_.setArg(0, mem_of(scratch)));
      HC_CL_CHECK(clear_.setArg(1, cl_uint(words)));
      q.launch(clear_, (std::size_t(words) + 255) / 256 * 256, 256, "png_clear");
      HC_CL_CHECK(tiles_.setArg(7, cl_int(-1)));
      q.launch(tiles_, std::size_t(tiles_x) * tiles_y * HC_WF_THREADS, HC_WF_THREADS, "png_defilter_tiles");
      return;
    }
    for (std::uint32_t d = 0; d + 1 < tiles_x + tiles_y; ++d) {
      const std::uint32_t lo = d >= tiles_x ? d - (tiles_x - 1) : 0;
      const std::uint32_t hi = d < tiles_y ? d : tiles_y - 1;
      HC_CL_CHECK(tiles_.setArg(7, cl_int(d)));
      q.launch(tiles_, std::size_t(hi - lo + 1) * HC_WF_THREADS, HC_WF_THREADS, "png_defilter_tiles");
    }
  }

  void run_unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& rows,
                  DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                  std::uint32_t height, std::uint32_t pixel_bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    HC_CL_CHECK(unpack_.setArg(0, mem_of(rows)));
    HC_CL_CHECK(unpack_.setArg(1, mem_of(job)));
    HC_CL_CHECK(unpack_.setArg(2, mem_of(out)));
    HC_CL_CHECK(unpack_.setArg(3, cl_uint(width)));
    HC_CL_CHECK(unpack_.setArg(4, cl_uint(height)));
    HC_CL_CHECK(unpack_.setArg(5, cl_uint(pixel_bytes)));
    HC_CL_CHECK(unpack_.setArg(6, cl_ulong(out_offset)));
    const std::size_t items = std::size_t(width) * height;
    queue_cast(queue).launch(unpack_, (items + 255) / 256 * 256, 256, "png_unpack");
  }

  void run_inflate(Queue& queue, const DeviceBuffer& compressed, const DeviceBuffer& segments,
                   DeviceBuffer& rows, DeviceBuffer& results, std::uint32_t count) override {
    std::lock_guard<std::mutex> lock(mutex_);
    HC_CL_CHECK(inflate_.setArg(0, mem_of(compressed)));
    HC_CL_CHECK(inflate_.setArg(1, mem_of(segments)));
    HC_CL_CHECK(inflate_.setArg(2, mem_of(rows)));
    HC_CL_CHECK(inflate_.setArg(3, mem_of(results)));
    HC_CL_CHECK(inflate_.setArg(4, cl_uint(count)));
    queue_cast(queue).launch(inflate_, (std::size_t(count) + 31) / 32 * 32, 32, "png_inflate");
  }

  void run_crc32_pieces(Queue& queue, const DeviceBuffer& data, std::uint32_t bytes,
                        std::uint32_t piece, std::uint32_t skew, DeviceBuffer& crcs,
                        std::size_t crcs_offset, std::uint32_t count) override {
    std::lock_guard<std::mutex> lock(mutex_);
    HC_CL_CHECK(crc_.setArg(0, mem_of(data)));
    HC_CL_CHECK(crc_.setArg(1, cl_uint(bytes)));
    HC_CL_CHECK(crc_.setArg(2, cl_uint(piece)));
    HC_CL_CHECK(crc_.setArg(3, cl_uint(skew)));
    HC_CL_CHECK(crc_.setArg(4, mem_of(crcs)));
    HC_CL_CHECK(crc_.setArg(5, cl_uint(crcs_offset / 4)));
    HC_CL_CHECK(crc_.setArg(6, cl_uint(count)));
    queue_cast(queue).launch(crc_, (std::size_t(count) + 63) / 64 * 64, 64, "png_crc32_pieces");
  }

  void run_deflate(Queue& queue, int stage, std::uint32_t items, const DeviceBuffer& data,
                   const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms,
                   DeviceBuffer& out) override {
    cl::Kernel& k = deflate_kernels()[stage];
    HC_CL_CHECK(k.setArg(0, mem_of(data)));
    HC_CL_CHECK(k.setArg(1, mem_of(plan)));
    HC_CL_CHECK(k.setArg(2, mem_of(work)));
    HC_CL_CHECK(k.setArg(3, mem_of(syms)));
    HC_CL_CHECK(k.setArg(4, mem_of(out)));
    HC_CL_CHECK(k.setArg(5, cl_uint(items)));
    if (stage == HC_DFL_HIST || stage == HC_DFL_BLOCK || stage == HC_DFL_PLACE) {
      // an item to a work-group
      const std::size_t lanes = stage == HC_DFL_HIST    ? HC_DFL_HIST_LANES
                                : stage == HC_DFL_BLOCK ? HC_DFL_BLOCK_LANES
                                                        : HC_DFL_PLACE_LANES;
      queue_cast(queue).launch(k, std::size_t(items) * lanes, lanes, "png_deflate");
      return;
    }
    // (one work-item to a work-group where each item follows its own data: see
    // kernels_cu/png_encode.cu)
    const std::size_t local = stage == HC_DFL_PACK_BLOCKS ? 1 : 64;
    queue_cast(queue).launch(k, (std::size_t(items) + local - 1) / local * local, local,
                             "png_deflate");
  }

 private:
  cl::Kernel filter_;
  cl::Kernel clear_, rows_, tiles_, bands_, unpack_, inflate_;
  cl::Kernel crc_;
  // The deflate stages' kernel objects of each calling thread, made on its first call: an
  // image's launches set their arguments without waiting on encoders of other threads
  // (a kernel object is not safe to set from two threads at once).
  std::vector<cl::Kernel>& deflate_kernels() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<cl::Kernel>& set = deflate_[std::this_thread::get_id()];
    if (set.empty()) {
      static const char* const kNames[HC_DFL_STAGES] = {
          "png_deflate_clear", "png_deflate_count",  "png_deflate_scan_chunks",
          "png_deflate_scan",  "png_deflate_emit",   "png_deflate_hist",
          "png_deflate_block", "png_deflate_layout", "png_deflate_offsets",
          "png_deflate_bits",  "png_deflate_place",  "png_deflate_pack_blocks",
          "png_deflate_pack"};
      for (const char* name : kNames) set.push_back(make_kernel(encode_, name));
    }
    return set;
  }
  cl::Program encode_;
  std::map<std::thread::id, std::vector<cl::Kernel>> deflate_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<PngKernels> make_png_kernels(ClDevice& device) {
  return std::make_unique<ClPngKernels>(device);
}

}  // namespace hetcodec::opencl
