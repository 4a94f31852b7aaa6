// The CUDA backend (DESIGN.md §2): runtime API, one stream per Queue, cudaHostAlloc pinned
// memory. Every call first makes the buffer's or queue's device current, so several GPUs of one
// process work side by side.
#ifndef HETCODEC_BACKENDS_CUDA_CUDA_BACKEND_H
#define HETCODEC_BACKENDS_CUDA_CUDA_BACKEND_H

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace hetcodec::cuda {

// Infos get specs "cuda:0", "cuda:1", ... equal to the CUDA ordinal.
std::vector<DeviceInfo> enumerate(std::vector<std::string>& notes);
std::shared_ptr<Device> open_device(const DeviceInfo& info, int ordinal);

class CudaBuffer : public DeviceBuffer {
 public:
  CudaBuffer(int ordinal, std::size_t size);
  ~CudaBuffer() override;
  std::uint8_t* ptr() const { return ptr_; }
  void* native_handle() const override { return ptr_; }

 private:
  int ordinal_;
  std::uint8_t* ptr_ = nullptr;
};

class CudaQueue : public Queue {
 public:
  explicit CudaQueue(int ordinal);
  ~CudaQueue() override;
  cudaStream_t stream() const { return stream_; }
  int ordinal() const { return ordinal_; }
  void write(DeviceBuffer& dst, std::size_t dst_offset, const void* src,
             std::size_t bytes) override;
  void read(void* dst, const DeviceBuffer& src, std::size_t src_offset, std::size_t bytes) override;
  void write(DeviceBuffer& dst, std::size_t dst_offset, const PinnedBuffer& src,
             std::size_t src_offset, std::size_t bytes) override;
  void read(PinnedBuffer& dst, std::size_t dst_offset, const DeviceBuffer& src,
            std::size_t src_offset, std::size_t bytes) override;
  void copy(DeviceBuffer& dst, std::size_t dst_offset, const DeviceBuffer& src,
            std::size_t src_offset, std::size_t bytes) override;
  void zero(DeviceBuffer& dst, std::size_t dst_offset, std::size_t bytes) override;
  std::unique_ptr<Event> record() override;
  void wait_for(Event& event) override;
  void finish() override;
  // Checks a launcher's status and honours HETCODEC_SYNC=1.
  void after_launch(cudaError_t launch_status, const char* name);

 private:
  int ordinal_;
  cudaStream_t stream_ = nullptr;
};

// True when `p` points into page-locked host memory the CUDA driver knows (cudaHostAlloc or
// registered); pipelines use it to choose the asynchronous path for caller memory.
bool is_pinned_host(const void* p);

CudaQueue& queue_cast(Queue& queue);
// The queue, its device made current on the calling thread (before a launch on it).
CudaQueue& current(Queue& queue);
std::uint8_t* ptr_of(const DeviceBuffer& buffer);
std::unique_ptr<JpegKernels> make_jpeg_kernels();
std::unique_ptr<PngKernels> make_png_kernels();
std::unique_ptr<LjpegKernels> make_ljpeg_kernels();
std::unique_ptr<JpegEncodeKernels> make_jpeg_encode_kernels();
std::unique_ptr<JpegEntropyKernels> make_jpeg_entropy_kernels();
std::unique_ptr<FilterKernels> make_filter_kernels();

}  // namespace hetcodec::cuda

#endif  // HETCODEC_BACKENDS_CUDA_CUDA_BACKEND_H
