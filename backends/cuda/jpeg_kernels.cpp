// JPEG stages on CUDA: the entry points of kernels_cu/jpeg_decode.cu and jpeg_color.cu launched
// with the geometry of backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

class CudaJpegKernels : public JpegKernels {
 public:
  void run_ycc_to_rgb(Queue& queue, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                      std::uint32_t pixels) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_jpeg_ycc_to_rgb(q.stream(), plan_jpeg_pixels(pixels), ptr_of(ycc),
                                          ptr_of(rgb), pixels),
                   "jpeg_ycc_to_rgb");
  }

  void run_decode_idct(Queue& queue, const DeviceBuffer& job, DeviceBuffer& planes,
                       const JpegJobInfo& info) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_jpeg_decode_idct(q.stream(), plan_jpeg_decode_idct(info.groups),
                                           ptr_of(job) + info.job_offset, ptr_of(planes)),
                   "jpeg_decode_idct");
  }

  void run_decode_tokens(Queue& queue, const DeviceBuffer& job, DeviceBuffer& coefficients,
                         const JpegJobInfo& info, const JpegLaunchRange& r) override {
    CudaQueue& q = current(queue);
    q.after_launch(
        launch_jpeg_decode_tokens(q.stream(), plan_jpeg_decode_idct(r.count),
                                  ptr_of(job) + info.job_offset, r.first, ptr_of(coefficients)),
        "jpeg_decode_tokens");
  }

  void run_idct(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& coefficients,
                DeviceBuffer& planes, const JpegJobInfo& info, const JpegLaunchRange& r) override {
    CudaQueue& q = current(queue);
    q.after_launch(
        launch_jpeg_idct(q.stream(), plan_jpeg_idct(r.count), ptr_of(job) + info.job_offset,
                         ptr_of(coefficients), ptr_of(planes), r.first + r.count, r.first),
        "jpeg_idct");
  }

  void run_upsample_color(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                          DeviceBuffer& out, std::size_t out_offset, const JpegJobInfo& info,
                          const JpegLaunchRange& r) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_jpeg_upsample_color(q.stream(), plan_jpeg_pixels(r.count),
                                              ptr_of(job) + info.job_offset, ptr_of(planes),
                                              ptr_of(out) + out_offset, r.first + r.count, r.first),
                   "jpeg_upsample_color");
  }

  void run_decode_idct_chunk(Queue& queue, const DeviceBuffer& jobs, std::size_t table_offset,
                             std::uint32_t groups, DeviceBuffer& planes) override {
    CudaQueue& q = current(queue);
    q.after_launch(
        launch_jpeg_decode_idct_chunk(q.stream(), plan_jpeg_decode_idct(groups), ptr_of(jobs),
                                      std::uint32_t(table_offset / 4), ptr_of(planes)),
        "jpeg_decode_idct_chunk");
  }

  void run_upsample_color_chunk(Queue& queue, const DeviceBuffer& jobs, std::size_t table_offset,
                                std::uint32_t tiles, const DeviceBuffer& planes,
                                DeviceBuffer& out) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_jpeg_upsample_color_chunk(q.stream(), plan_jpeg_color_chunk(tiles),
                                                    ptr_of(jobs), std::uint32_t(table_offset / 4),
                                                    ptr_of(planes), ptr_of(out)),
                   "jpeg_upsample_color_chunk");
  }
};

}  // namespace

std::unique_ptr<JpegKernels> make_jpeg_kernels() { return std::make_unique<CudaJpegKernels>(); }

}  // namespace hetcodec::cuda
