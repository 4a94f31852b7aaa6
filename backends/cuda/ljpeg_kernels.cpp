// Lossless JPEG stages on CUDA: the entry points of kernels_cu/ljpeg.cu launched with the geometry
// of backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

std::uint32_t* words(const DeviceBuffer& b) { return reinterpret_cast<std::uint32_t*>(ptr_of(b)); }

class CudaLjpegKernels : public LjpegKernels {
 public:
  void run_residuals(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& file,
                     DeviceBuffer& planes, DeviceBuffer& status,
                     const LjpegScanInfo& info) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_ljpeg_residuals(q.stream(), info, words(job), ptr_of(file),
                                          ptr_of(planes), words(status)),
                   "ljpeg_residuals");
  }

  void run_reconstruct(Queue& queue, DeviceBuffer& planes, DeviceBuffer& scratch,
                       const LjpegScanInfo& info, Wavefront order) override {
    CudaQueue& q = current(queue);
    for (const LjpegPass& pass : plan_ljpeg_reconstruct(info, order))
      q.after_launch(
          launch_ljpeg_reconstruct(q.stream(), pass, info, ptr_of(planes), words(scratch)),
          "ljpeg_reconstruct");
  }

  void run_unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& planes,
                  DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                  std::uint32_t height) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_ljpeg_unpack(q.stream(), words(job), ptr_of(planes),
                                       ptr_of(out) + out_offset, width, height),
                   "ljpeg_unpack");
  }
};

}  // namespace

std::unique_ptr<LjpegKernels> make_ljpeg_kernels() { return std::make_unique<CudaLjpegKernels>(); }

}  // namespace hetcodec::cuda
