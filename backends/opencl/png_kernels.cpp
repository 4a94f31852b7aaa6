// PNG stages on OpenCL: the entry points of kernels_cl/png_encode.cl and png_decode.cl enqueued
// with the geometry of backends/launch_plan.h.
#include <mutex>
#include <vector>

#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"
#include "core/portable/png_deflate.h"

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
        deflate_(device.program("png_encode"), deflate_names(), HC_DFL_STAGES) {}

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
    queue_cast(queue).launch(filter_, plan_png_filter_rows(info), "png_filter_rows");
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
    for (const DefilterPass& pass : plan_png_defilter(info, order)) {
      switch (pass.kernel) {
        case DefilterKernel::Clear:
          HC_CL_CHECK(clear_.setArg(0, mem_of(scratch)));
          HC_CL_CHECK(clear_.setArg(1, cl_uint(pass.clear_words)));
          q.launch(clear_, pass.launch, "png_clear");
          break;
        case DefilterKernel::Rows:
          set_pass(rows_);
          q.launch(rows_, pass.launch, "png_defilter_rows");
          break;
        case DefilterKernel::Bands:
          set_pass(bands_);
          q.launch(bands_, pass.launch, "png_defilter_bands");
          break;
        case DefilterKernel::Tiles:
          set_pass(tiles_);
          HC_CL_CHECK(tiles_.setArg(5, cl_uint(pass.tiles_x)));
          HC_CL_CHECK(tiles_.setArg(6, cl_uint(pass.tiles_y)));
          HC_CL_CHECK(tiles_.setArg(7, cl_int(pass.diagonal)));
          HC_CL_CHECK(tiles_.setArg(8, mem_of(scratch)));
          q.launch(tiles_, pass.launch, "png_defilter_tiles");
          break;
      }
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
    queue_cast(queue).launch(unpack_, plan_png_unpack(width, height), "png_unpack");
  }

  void run_inflate(Queue& queue, const DeviceBuffer& compressed, const DeviceBuffer& segments,
                   DeviceBuffer& rows, DeviceBuffer& results, std::uint32_t count) override {
    std::lock_guard<std::mutex> lock(mutex_);
    HC_CL_CHECK(inflate_.setArg(0, mem_of(compressed)));
    HC_CL_CHECK(inflate_.setArg(1, mem_of(segments)));
    HC_CL_CHECK(inflate_.setArg(2, mem_of(rows)));
    HC_CL_CHECK(inflate_.setArg(3, mem_of(results)));
    HC_CL_CHECK(inflate_.setArg(4, cl_uint(count)));
    queue_cast(queue).launch(inflate_, plan_png_inflate(count), "png_inflate");
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
    queue_cast(queue).launch(crc_, plan_png_crc32_pieces(count), "png_crc32_pieces");
  }

  void run_deflate(Queue& queue, int stage, std::uint32_t items, const DeviceBuffer& data,
                   const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms,
                   DeviceBuffer& out) override {
    cl::Kernel& k = deflate_.get()[std::size_t(stage)];
    HC_CL_CHECK(k.setArg(0, mem_of(data)));
    HC_CL_CHECK(k.setArg(1, mem_of(plan)));
    HC_CL_CHECK(k.setArg(2, mem_of(work)));
    HC_CL_CHECK(k.setArg(3, mem_of(syms)));
    HC_CL_CHECK(k.setArg(4, mem_of(out)));
    HC_CL_CHECK(k.setArg(5, cl_uint(items)));
    queue_cast(queue).launch(k, plan_png_deflate(stage, items), "png_deflate");
  }

 private:
  cl::Kernel filter_;
  cl::Kernel clear_, rows_, tiles_, bands_, unpack_, inflate_;
  cl::Kernel crc_;
  static const char* const* deflate_names() {
#define HC_DFL_NAME(stage, name, kind) #name,
    static const char* const kNames[HC_DFL_STAGES] = {HC_DFL_STAGE_LIST(HC_DFL_NAME)};
#undef HC_DFL_NAME
    return kNames;
  }
  // The deflate stages' kernel objects, per calling thread (an image's launches do not wait on
  // encoders of other threads).
  ThreadKernels deflate_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<PngKernels> make_png_kernels(ClDevice& device) {
  return std::make_unique<ClPngKernels>(device);
}

}  // namespace hetcodec::opencl
