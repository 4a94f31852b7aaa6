// PNG stages on CUDA: the entry points of kernels_cu/png_encode.cu and png_decode.cu launched
// with the geometry of backends/launch_plan.h.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

std::uint32_t* words(DeviceBuffer& b) { return reinterpret_cast<std::uint32_t*>(ptr_of(b)); }
const std::uint32_t* words(const DeviceBuffer& b) {
  return reinterpret_cast<const std::uint32_t*>(ptr_of(b));
}

class CudaPngKernels : public PngKernels {
 public:
  void run_filter_rows(Queue& queue, const DeviceBuffer& rows, DeviceBuffer& filtered,
                       const PngFilterInfo& info) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_png_filter_rows(q.stream(), plan_png_filter_rows(info), ptr_of(rows),
                                          ptr_of(filtered), info),
                   "png_filter_rows");
  }

  void run_defilter(Queue& queue, DeviceBuffer& rows, DeviceBuffer& scratch,
                    const PngDefilterInfo& info, Wavefront order) override {
    CudaQueue& q = current(queue);
    for (const DefilterPass& pass : plan_png_defilter(info, order))
      q.after_launch(launch_png_defilter(q.stream(), pass, ptr_of(rows), info, words(scratch)),
                     "png_defilter");
  }

  void run_unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& rows,
                  DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                  std::uint32_t height, std::uint32_t pixel_bytes) override {
    CudaQueue& q = current(queue);
    q.after_launch(
        launch_png_unpack(q.stream(), plan_png_unpack(width, height), ptr_of(rows), words(job),
                          ptr_of(out) + out_offset, width, height, pixel_bytes),
        "png_unpack");
  }

  void run_inflate(Queue& queue, const DeviceBuffer& compressed, const DeviceBuffer& segments,
                   DeviceBuffer& rows, DeviceBuffer& results, std::uint32_t count) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_png_inflate(q.stream(), plan_png_inflate(count), ptr_of(compressed),
                                      words(segments), ptr_of(rows), words(results), count),
                   "png_inflate");
  }

  void run_crc32_pieces(Queue& queue, const DeviceBuffer& data, std::uint32_t bytes,
                        std::uint32_t piece, std::uint32_t skew, DeviceBuffer& crcs,
                        std::size_t crcs_offset, std::uint32_t count) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_png_crc32_pieces(
                       q.stream(), plan_png_crc32_pieces(count), ptr_of(data), bytes, piece, skew,
                       reinterpret_cast<std::uint32_t*>(ptr_of(crcs) + crcs_offset), count),
                   "png_crc32_pieces");
  }

  void run_deflate(Queue& queue, int stage, std::uint32_t items, const DeviceBuffer& data,
                   const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms,
                   DeviceBuffer& out) override {
    CudaQueue& q = current(queue);
    q.after_launch(launch_png_deflate(q.stream(), plan_png_deflate(stage, items), stage, items,
                                      ptr_of(data), words(plan), words(work),
                                      reinterpret_cast<std::uint16_t*>(ptr_of(syms)), words(out)),
                   "png_deflate");
  }
};

}  // namespace

std::unique_ptr<PngKernels> make_png_kernels() { return std::make_unique<CudaPngKernels>(); }

}  // namespace hetcodec::cuda
