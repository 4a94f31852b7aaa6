// JPEG stages on OpenCL: the entry points of kernels_cl/jpeg_color.cl and jpeg_decode.cl enqueued
// with the geometry of backends/launch_plan.h.
#include <map>
#include <mutex>
#include <string>

#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"

namespace hetcodec::opencl {
namespace {

class ClJpegKernels : public JpegKernels {
 public:
  explicit ClJpegKernels(ClDevice& device)
      : color_(device.program("jpeg_color")), decode_(device.program("jpeg_decode")) {}

  void run_ycc_to_rgb(Queue& queue, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                      std::uint32_t pixels) override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl::Kernel& k = kernel(color_, "jpeg_ycc_to_rgb");
    HC_CL_CHECK(k.setArg(0, mem_of(ycc)));
    HC_CL_CHECK(k.setArg(1, mem_of(rgb)));
    HC_CL_CHECK(k.setArg(2, cl_uint(pixels)));
    queue_cast(queue).launch(k, plan_jpeg_pixels(pixels), "jpeg_ycc_to_rgb");
  }

  void run_decode_idct(Queue& queue, const DeviceBuffer& job, DeviceBuffer& planes,
                       const JpegJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl::Kernel& k = kernel(decode_, "jpeg_decode_idct");
    set_job(k, job, info);
    HC_CL_CHECK(k.setArg(2, mem_of(planes)));
    queue_cast(queue).launch(k, plan_jpeg_decode_idct(info.groups), "jpeg_decode_idct");
  }

  void run_decode_tokens(Queue& queue, const DeviceBuffer& job, DeviceBuffer& coefficients,
                         const JpegJobInfo& info, const JpegLaunchRange& r) override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl::Kernel& k = kernel(decode_, "jpeg_decode_tokens");
    set_job(k, job, info);
    HC_CL_CHECK(k.setArg(2, mem_of(coefficients)));
    HC_CL_CHECK(k.setArg(3, cl_uint(r.first)));
    queue_cast(queue).launch(k, plan_jpeg_decode_idct(r.count), "jpeg_decode_tokens");
  }

  void run_idct(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& coefficients,
                DeviceBuffer& planes, const JpegJobInfo& info, const JpegLaunchRange& r) override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl::Kernel& k = kernel(decode_, "jpeg_idct");
    set_job(k, job, info);
    HC_CL_CHECK(k.setArg(2, mem_of(coefficients)));
    HC_CL_CHECK(k.setArg(3, mem_of(planes)));
    HC_CL_CHECK(k.setArg(4, cl_uint(r.first + r.count)));
    HC_CL_CHECK(k.setArg(5, cl_uint(r.first)));
    queue_cast(queue).launch(k, plan_jpeg_idct(r.count), "jpeg_idct");
  }

  void run_upsample_color(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                          DeviceBuffer& out, std::size_t out_offset, const JpegJobInfo& info,
                          const JpegLaunchRange& r) override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl::Kernel& k = kernel(decode_, "jpeg_upsample_color");
    set_job(k, job, info);
    HC_CL_CHECK(k.setArg(2, mem_of(planes)));
    // The image's place in `out` goes as an argument, not as a sub-buffer: one object fewer
    // to create and release per image, and no alignment asked of the offset.
    HC_CL_CHECK(k.setArg(3, mem_of(out)));
    HC_CL_CHECK(k.setArg(4, cl_ulong(out_offset)));
    HC_CL_CHECK(k.setArg(5, cl_uint(r.first + r.count)));
    HC_CL_CHECK(k.setArg(6, cl_uint(r.first)));
    queue_cast(queue).launch(k, plan_jpeg_pixels(r.count), "jpeg_upsample_color");
  }

  void run_decode_idct_chunk(Queue& queue, const DeviceBuffer& jobs, std::size_t table_offset,
                             std::uint32_t groups, DeviceBuffer& planes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl::Kernel& k = kernel(decode_, "jpeg_decode_idct_chunk");
    HC_CL_CHECK(k.setArg(0, mem_of(jobs)));
    HC_CL_CHECK(k.setArg(1, cl_uint(table_offset / 4)));
    HC_CL_CHECK(k.setArg(2, mem_of(planes)));
    queue_cast(queue).launch(k, plan_jpeg_decode_idct(groups), "jpeg_decode_idct_chunk");
  }

  void run_upsample_color_chunk(Queue& queue, const DeviceBuffer& jobs, std::size_t table_offset,
                                std::uint32_t tiles, const DeviceBuffer& planes,
                                DeviceBuffer& out) override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl::Kernel& k = kernel(decode_, "jpeg_upsample_color_chunk");
    HC_CL_CHECK(k.setArg(0, mem_of(jobs)));
    HC_CL_CHECK(k.setArg(1, cl_uint(table_offset / 4)));
    HC_CL_CHECK(k.setArg(2, mem_of(planes)));
    HC_CL_CHECK(k.setArg(3, mem_of(out)));
    queue_cast(queue).launch(k, plan_jpeg_color_chunk(tiles), "jpeg_upsample_color_chunk");
  }

 private:
  // Arguments 0 and 1 of every decode kernel: the buffer and the job's first word in it.
  static void set_job(cl::Kernel& k, const DeviceBuffer& job, const JpegJobInfo& info) {
    HC_CL_CHECK(k.setArg(0, mem_of(job)));
    HC_CL_CHECK(k.setArg(1, cl_uint(info.job_offset / 4)));
  }

  // Kernel objects are made once and reused: creating one per launch costs more than the
  // launch. Their arguments are set and the launch enqueued under `mutex_` (a kernel object is
  // not safe to set from two threads at once; an enqueued launch keeps its own arguments).
  cl::Kernel& kernel(const cl::Program& program, const char* name) {
    auto it = kernels_.find(name);
    if (it == kernels_.end()) it = kernels_.emplace(name, make_kernel(program, name)).first;
    return it->second;
  }

  cl::Program color_, decode_;
  std::mutex mutex_;
  std::map<std::string, cl::Kernel> kernels_;
};

}  // namespace

std::unique_ptr<JpegKernels> make_jpeg_kernels(ClDevice& device) {
  return std::make_unique<ClJpegKernels>(device);
}

}  // namespace hetcodec::opencl
