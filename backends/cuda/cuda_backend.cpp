// CUDA devices, buffers, pinned buffers and queues (DESIGN.md §2).
#include "backends/cuda/cuda_backend.h"

#include <mutex>

#include "backends/backend_util.h"
#include "backends/cuda/cuda_check.h"

namespace hetcodec::cuda {
namespace {

// Makes `ordinal` the calling thread's current device. Cheap when it already is.
void use(int ordinal) { HC_CUDA_CHECK(cudaSetDevice(ordinal)); }

class CudaPinned : public PinnedBuffer {
 public:
  CudaPinned(int ordinal, std::size_t size) : PinnedBuffer(nullptr, size) {
    use(ordinal);
    void* p = nullptr;
    // Portable: usable by every CUDA context of the process, so one staging buffer can feed
    // any GPU.
    HC_CUDA_CHECK(cudaHostAlloc(&p, size ? size : 1, cudaHostAllocPortable));
    data_ = static_cast<std::uint8_t*>(p);
  }
  ~CudaPinned() override { cudaFreeHost(data_); }  // destructors never throw
};

class CudaEvent : public Event {
 public:
  CudaEvent(int ordinal, cudaStream_t stream) {
    use(ordinal);
    HC_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    HC_CUDA_CHECK(cudaEventRecord(event_, stream));
  }
  ~CudaEvent() override { cudaEventDestroy(event_); }
  void wait() override { HC_CUDA_CHECK(cudaEventSynchronize(event_)); }
  cudaEvent_t handle() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class CudaDevice : public Device {
 public:
  CudaDevice(const DeviceInfo& info, int ordinal) : Device(info), ordinal_(ordinal) {
    use(ordinal_);
    HC_CUDA_CHECK(cudaFree(nullptr));  // create the primary context now, not inside a timing
  }
  std::unique_ptr<PinnedBuffer> alloc_pinned(std::size_t bytes) override {
    check_alloc(info(), bytes, "pinned buffer");
    return std::make_unique<CudaPinned>(ordinal_, bytes);
  }
  std::unique_ptr<Queue> create_queue() override { return std::make_unique<CudaQueue>(ordinal_); }
  JpegKernels& jpeg() override {
    std::call_once(jpeg_once_, [this] { jpeg_ = make_jpeg_kernels(); });
    return *jpeg_;
  }
  PngKernels& png() override {
    std::call_once(png_once_, [this] { png_ = make_png_kernels(); });
    return *png_;
  }
  LjpegKernels& ljpeg() override {
    std::call_once(ljpeg_once_, [this] { ljpeg_ = make_ljpeg_kernels(); });
    return *ljpeg_;
  }
  JpegEncodeKernels& jpeg_encode() override {
    std::call_once(jpeg_encode_once_, [this] { jpeg_encode_ = make_jpeg_encode_kernels(); });
    return *jpeg_encode_;
  }
  JpegEntropyKernels& jpeg_entropy() override {
    std::call_once(jpeg_entropy_once_, [this] { jpeg_entropy_ = make_jpeg_entropy_kernels(); });
    return *jpeg_entropy_;
  }
  FilterKernels& filters() override {
    std::call_once(filters_once_, [this] { filters_ = make_filter_kernels(); });
    return *filters_;
  }
  void wait_idle() override {
    use(ordinal_);
    HC_CUDA_CHECK(cudaDeviceSynchronize());
  }

 protected:
  std::unique_ptr<DeviceBuffer> make_buffer(std::size_t bytes) override {
    return std::make_unique<CudaBuffer>(ordinal_, bytes);
  }

 private:
  int ordinal_;
  std::once_flag jpeg_once_, png_once_, ljpeg_once_, jpeg_encode_once_, jpeg_entropy_once_,
      filters_once_;
  std::unique_ptr<JpegKernels> jpeg_;
  std::unique_ptr<PngKernels> png_;
  std::unique_ptr<LjpegKernels> ljpeg_;
  std::unique_ptr<JpegEncodeKernels> jpeg_encode_;
  std::unique_ptr<JpegEntropyKernels> jpeg_entropy_;
  std::unique_ptr<FilterKernels> filters_;
};

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

}  // namespace

void fail(cudaError_t err, const char* call, const char* file, int line) {
  throw Error(err == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::DeviceError,
              std::string("cuda: ") + call + " failed: " + cudaGetErrorName(err) + " (" +
                  cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line));
}

std::vector<DeviceInfo> enumerate(std::vector<std::string>& notes) {
  std::vector<DeviceInfo> out;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    notes.push_back(std::string("CUDA: no usable device (") + cudaGetErrorName(err) + ": " +
                    cudaGetErrorString(err) + ")");
    cudaGetLastError();  // the failure above is sticky only for this query; clear it
    return out;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    DeviceInfo info;
    info.spec = "cuda:" + std::to_string(i);
    info.kind = DeviceKind::Cuda;
    info.name = prop.name;
    info.vendor = "NVIDIA Corporation";
    info.platform = "CUDA";
    info.driver = "driver " + version_text(driver) + ", runtime " + version_text(runtime) +
                  ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
    info.memory_bytes = prop.totalGlobalMem;
    // CUDA has no limit per allocation below the memory itself.
    info.max_alloc_bytes = capped_max_alloc(prop.totalGlobalMem);
    info.compute_units = prop.multiProcessorCount;
    info.is_gpu = true;
    out.push_back(info);
  }
  if (count == 0) notes.push_back("CUDA: the runtime reports no device");
  return out;
}

std::shared_ptr<Device> open_device(const DeviceInfo& info, int ordinal) {
  return std::make_shared<CudaDevice>(info, ordinal);
}

CudaBuffer::CudaBuffer(int ordinal, std::size_t size) : DeviceBuffer(size), ordinal_(ordinal) {
  use(ordinal_);
  void* p = nullptr;
  HC_CUDA_CHECK(cudaMalloc(&p, size ? size : 1));
  ptr_ = static_cast<std::uint8_t*>(p);
}

CudaBuffer::~CudaBuffer() {
  // (The last owner may be another library's tensor freed on its own thread, through DLPack:
  // that thread's current device is put back as it was.)
  int previous = ordinal_;
  cudaGetDevice(&previous);
  if (previous != ordinal_) cudaSetDevice(ordinal_);
  cudaFree(ptr_);
  if (previous != ordinal_) cudaSetDevice(previous);
}

CudaQueue::CudaQueue(int ordinal) : ordinal_(ordinal) {
  use(ordinal_);
  HC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

CudaQueue::~CudaQueue() {
  cudaSetDevice(ordinal_);
  cudaStreamDestroy(stream_);
}

// Pageable copies are made synchronous: the caller may reuse its memory on return (Queue's
// contract), and CUDA stages pageable memory through its own pinned buffer anyway.
void CudaQueue::write(DeviceBuffer& dst, std::size_t off, const void* src, std::size_t n) {
  check_range("cuda: write", off, n, dst.size());
  if (!n) return;
  use(ordinal_);
  HC_CUDA_CHECK(cudaMemcpyAsync(ptr_of(dst) + off, src, n, cudaMemcpyHostToDevice, stream_));
  HC_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaQueue::read(void* dst, const DeviceBuffer& src, std::size_t off, std::size_t n) {
  check_range("cuda: read", off, n, src.size());
  count_device_to_host(n);
  if (!n) return;
  use(ordinal_);
  HC_CUDA_CHECK(cudaMemcpyAsync(dst, ptr_of(src) + off, n, cudaMemcpyDeviceToHost, stream_));
  HC_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaQueue::write(DeviceBuffer& dst, std::size_t dst_off, const PinnedBuffer& src,
                      std::size_t src_off, std::size_t n) {
  check_range("cuda: write from pinned", src_off, n, src.size());
  check_range("cuda: write from pinned", dst_off, n, dst.size());
  backend_cast<const CudaPinned>(src, "cuda");
  if (!n) return;
  use(ordinal_);
  HC_CUDA_CHECK(cudaMemcpyAsync(ptr_of(dst) + dst_off, src.data() + src_off, n,
                                cudaMemcpyHostToDevice, stream_));
}

void CudaQueue::read(PinnedBuffer& dst, std::size_t dst_off, const DeviceBuffer& src,
                     std::size_t src_off, std::size_t n) {
  check_range("cuda: read into pinned", dst_off, n, dst.size());
  check_range("cuda: read into pinned", src_off, n, src.size());
  backend_cast<CudaPinned>(dst, "cuda");
  count_device_to_host(n);
  if (!n) return;
  use(ordinal_);
  HC_CUDA_CHECK(cudaMemcpyAsync(dst.data() + dst_off, ptr_of(src) + src_off, n,
                                cudaMemcpyDeviceToHost, stream_));
}

void CudaQueue::copy(DeviceBuffer& dst, std::size_t dst_off, const DeviceBuffer& src,
                     std::size_t src_off, std::size_t n) {
  check_range("cuda: copy source", src_off, n, src.size());
  check_range("cuda: copy destination", dst_off, n, dst.size());
  if (!n) return;
  use(ordinal_);
  HC_CUDA_CHECK(cudaMemcpyAsync(ptr_of(dst) + dst_off, ptr_of(src) + src_off, n,
                                cudaMemcpyDeviceToDevice, stream_));
}

void CudaQueue::zero(DeviceBuffer& dst, std::size_t dst_off, std::size_t n) {
  check_range("cuda: zero", dst_off, n, dst.size());
  if (!n) return;
  use(ordinal_);
  HC_CUDA_CHECK(cudaMemsetAsync(ptr_of(dst) + dst_off, 0, n, stream_));
}

std::unique_ptr<Event> CudaQueue::record() {
  return std::make_unique<CudaEvent>(ordinal_, stream_);
}

void CudaQueue::wait_for(Event& event) {
  use(ordinal_);
  HC_CUDA_CHECK(cudaStreamWaitEvent(stream_, backend_cast<CudaEvent>(event, "cuda").handle(), 0));
}

void CudaQueue::finish() {
  use(ordinal_);
  HC_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaQueue::after_launch(cudaError_t status, const char* name) {
  if (status != cudaSuccess) fail(status, name, __FILE__, __LINE__);
  if (sync_each_launch()) {
    cudaError_t err = cudaStreamSynchronize(stream_);
    if (err != cudaSuccess) fail(err, name, __FILE__, __LINE__);
  }
}

bool is_pinned_host(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

CudaQueue& queue_cast(Queue& queue) { return backend_cast<CudaQueue>(queue, "cuda"); }

CudaQueue& current(Queue& queue) {
  CudaQueue& q = queue_cast(queue);
  use(q.ordinal());
  return q;
}

std::uint8_t* ptr_of(const DeviceBuffer& buffer) {
  return backend_cast<const CudaBuffer>(buffer, "cuda").ptr();
}

}  // namespace hetcodec::cuda
