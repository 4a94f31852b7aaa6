// PNG encode stages on CUDA: host side of kernels_cu/png_encode.cu.
#include "backends/backend_util.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "kernels_cu/launch.h"

namespace hetcodec::cuda {
namespace {

class CudaPngKernels : public PngKernels {
 public:
  void run_filter_rows(Queue& queue, const DeviceBuffer& rows, DeviceBuffer& filtered,
                       const PngFilterInfo& info) override {
    CudaQueue& q = queue_cast(queue);
    HC_CUDA_CHECK(cudaSetDevice(q.ordinal()));
    q.after_launch(launch_png_filter_rows(q.stream(), ptr_of(rows), ptr_of(filtered), info.height,
                                          info.row_bytes, info.bpp, info.mask, info.band_rows),
                   "png_filter_rows");
  }

  void run_defilter(Queue& queue, DeviceBuffer& rows, DeviceBuffer& scratch,
                    const PngDefilterInfo& info, Wavefront order) override {
    CudaQueue& q = queue_cast(queue);
    HC_CUDA_CHECK(cudaSetDevice(q.ordinal()));
    q.after_launch(launch_png_defilter(q.stream(), ptr_of(rows), info.offset, info.height,
                                       info.row_bytes, info.bpp, info.rows_independent, info.bands,
                                       order == Wavefront::Tickets,
                                       reinterpret_cast<std::uint32_t*>(ptr_of(scratch))),
                   "png_defilter");
  }

  void run_unpack(Queue& queue, const DeviceBuffer& job, const DeviceBuffer& rows,
                  DeviceBuffer& out, std::size_t out_offset, std::uint32_t width,
                  std::uint32_t height, std::uint32_t pixel_bytes) override {
    CudaQueue& q = queue_cast(queue);
    HC_CUDA_CHECK(cudaSetDevice(q.ordinal()));
    q.after_launch(launch_png_unpack(q.stream(), ptr_of(rows),
                                     reinterpret_cast<const std::uint32_t*>(ptr_of(job)),
                                     ptr_of(out) + out_offset, width, height, pixel_bytes),
                   "png_unpack");
  }

  void run_inflate(Queue& queue, const DeviceBuffer& compressed, const DeviceBuffer& segments,
                   DeviceBuffer& rows, DeviceBuffer& results, std::uint32_t count) override {
    CudaQueue& q = queue_cast(queue);
    HC_CUDA_CHECK(cudaSetDevice(q.ordinal()));
    q.after_launch(launch_png_inflate(q.stream(), ptr_of(compressed),
                                      reinterpret_cast<const std::uint32_t*>(ptr_of(segments)),
                                      ptr_of(rows),
                                      reinterpret_cast<std::uint32_t*>(ptr_of(results)), count),
                   "png_inflate");
  }

  void run_crc32_pieces(Queue& queue, const DeviceBuffer& data, std::uint32_t bytes,
                        std::uint32_t piece, std::uint32_t skew, DeviceBuffer& crcs,
                        std::size_t crcs_offset, std::uint32_t count) override {
    CudaQueue& q = queue_cast(queue);
    HC_CUDA_CHECK(cudaSetDevice(q.ordinal()));
    q.after_launch(launch_png_crc32_pieces(
                       q.stream(), ptr_of(data), bytes, piece, skew,
                       reinterpret_cast<std::uint32_t*>(ptr_of(crcs) + crcs_offset), count),
                   "png_crc32_pieces");
  }

  void run_deflate(Queue& queue, int stage, std::uint32_t items, const DeviceBuffer& data,
                   const DeviceBuffer& plan, DeviceBuffer& work, DeviceBuffer& syms,
                   DeviceBuffer& out) override {
    CudaQueue& q = queue_cast(queue);
    HC_CUDA_CHECK(cudaSetDevice(q.ordinal()));
    q.after_launch(launch_png_deflate(q.stream(), stage, items, ptr_of(data),
                                      reinterpret_cast<const std::uint32_t*>(ptr_of(plan)),
                                      reinterpret_cast<std::uint32_t*>(ptr_of(work)),
                                      reinterpret_cast<std::uint16_t*>(ptr_of(syms)),
                                      reinterpret_cast<std::uint32_t*>(ptr_of(out))),
                   "png_deflate");
  }
};

}  // namespace

std::unique_ptr<PngKernels> make_png_kernels() { return std::make_unique<CudaPngKernels>(); }

}  // namespace hetcodec::cuda
