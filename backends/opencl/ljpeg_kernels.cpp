// Lossless JPEG stages on OpenCL: the entry points of kernels_cl/ljpeg.cl enqueued with the
// geometry of backends/launch_plan.h.
#include <mutex>

#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"

namespace hetcodec::opencl {
namespace {

class ClLjpegKernels : public LjpegKernels {
 public:
  explicit ClLjpegKernels(ClDevice& device)
      : residuals_(make_kernel(device.program("ljpeg"), "ljpeg_residuals")),
        first_column_(make_kernel(device.program("ljpeg"), "ljpeg_first_column")),
        row_sums_(make_kernel(device.program("ljpeg"), "ljpeg_row_sums")),
        column_sums_(make_kernel(device.program("ljpeg"), "ljpeg_column_sums")),
        clear_(make_kernel(device.program("ljpeg"), "ljpeg_clear")),
        bands_(make_kernel(device.program("ljpeg"), "ljpeg_bands")),
        tiles_(make_kernel(device.program("ljpeg"), "ljpeg_tiles")),
        unpack_(make_kernel(device.program("ljpeg"), "ljpeg_unpack")) {}

  void run_residuals(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& file,
                     DeviceBuffer& planes, DeviceBuffer& status,
                     const LjpegScanInfo& info) override {
    // A kernel object is not safe to set from two threads at once.
    std::lock_guard<std::mutex> lock(mutex_);
    HC_CL_CHECK(residuals_.setArg(0, mem_of(job)));
    HC_CL_CHECK(residuals_.setArg(1, mem_of(file)));
    HC_CL_CHECK(residuals_.setArg(2, cl_uint(info.scan)));
    HC_CL_CHECK(residuals_.setArg(3, mem_of(planes)));
    HC_CL_CHECK(residuals_.setArg(4, cl_ulong(info.plane_offset)));
    HC_CL_CHECK(residuals_.setArg(5, mem_of(status)));
    HC_CL_CHECK(residuals_.setArg(6, cl_ulong(info.status_offset / 4)));
    queue_cast(queue).launch(residuals_, plan_ljpeg_residuals(info.coded_rows()), "ljpeg_residuals");
  }

  void run_reconstruct(Queue& queue, DeviceBuffer& planes, DeviceBuffer& scratch,
                       const LjpegScanInfo& info, Wavefront order) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ClQueue& q = queue_cast(queue);
    auto set_plane = [&](cl::Kernel& k) {
      HC_CL_CHECK(k.setArg(0, mem_of(planes)));
      HC_CL_CHECK(k.setArg(1, cl_ulong(info.plane_offset)));
      HC_CL_CHECK(k.setArg(2, cl_uint(info.height)));
      HC_CL_CHECK(k.setArg(3, cl_uint(info.width)));
      HC_CL_CHECK(k.setArg(4, cl_uint(info.comps)));
    };
    const PngDefilterInfo e = ljpeg_wavefront_info(info);
    auto set_pass = [&](cl::Kernel& k) {
      HC_CL_CHECK(k.setArg(0, mem_of(planes)));
      HC_CL_CHECK(k.setArg(1, cl_ulong(e.offset)));
      HC_CL_CHECK(k.setArg(2, cl_uint(e.height)));
      HC_CL_CHECK(k.setArg(3, cl_uint(e.row_bytes)));
      HC_CL_CHECK(k.setArg(4, cl_uint(e.bpp)));
    };
    for (const LjpegPass& pass : plan_ljpeg_reconstruct(info, order)) {
      switch (pass.kind) {
        case LjpegPassKind::FirstColumn:
          set_plane(first_column_);
          q.launch(first_column_, pass.launch, "ljpeg_first_column");
          continue;
        case LjpegPassKind::FirstRowSums:
          set_plane(row_sums_);
          HC_CL_CHECK(row_sums_.setArg(5, cl_int(pass.kind == LjpegPassKind::FirstRowSums)));
          q.launch(row_sums_, pass.launch, "ljpeg_row_sums");
          continue;
        case LjpegPassKind::ColumnSums:
          set_plane(column_sums_);
          q.launch(column_sums_, pass.launch, "ljpeg_column_sums");
          continue;
        case LjpegPassKind::Wavefront:
          break;
      }
      const DefilterPass& w = pass.wavefront;
      switch (w.kernel) {
        case DefilterKernel::Clear:
          HC_CL_CHECK(clear_.setArg(0, mem_of(scratch)));
          HC_CL_CHECK(clear_.setArg(1, cl_uint(w.clear_words)));
          q.launch(clear_, w.launch, "ljpeg_clear");
          break;
        case DefilterKernel::Bands:
          set_pass(bands_);
          q.launch(bands_, w.launch, "ljpeg_bands");
          break;
        case DefilterKernel::Tiles:
          set_pass(tiles_);
          HC_CL_CHECK(tiles_.setArg(5, cl_uint(w.tiles_x)));
          HC_CL_CHECK(tiles_.setArg(6, cl_uint(w.tiles_y)));
          HC_CL_CHECK(tiles_.setArg(7, cl_int(w.diagonal)));
          HC_CL_CHECK(tiles_.setArg(8, mem_of(scratch)));
          q.launch(tiles_, w.launch, "ljpeg_tiles");
          break;
        case DefilterKernel::Rows:
          break;
      }
    }
  }

  void run_unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                  DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                  std::uint32_t height) override {
    std::lock_guard<std::mutex> lock(mutex_);
    HC_CL_CHECK(unpack_.setArg(0, mem_of(job)));
    HC_CL_CHECK(unpack_.setArg(1, mem_of(planes)));
    HC_CL_CHECK(unpack_.setArg(2, mem_of(out)));
    HC_CL_CHECK(unpack_.setArg(3, cl_ulong(out_offset)));
    queue_cast(queue).launch(unpack_, plan_ljpeg_unpack(width, height), "ljpeg_unpack");
  }

 private:
  cl::Kernel residuals_, first_column_, row_sums_, column_sums_, clear_, bands_, tiles_, unpack_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<LjpegKernels> make_ljpeg_kernels(ClDevice& device) {
  return std::make_unique<ClLjpegKernels>(device);
}

}  // namespace hetcodec::opencl
