// OpenCL devices, buffers, pinned buffers (the AHP pattern) and queues (DESIGN.md §2).
#include "backends/opencl/opencl_backend.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend_util.h"
#include "backends/opencl/embedded.h"

namespace hetcodec::opencl {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  s.erase(0, s.find_first_not_of(' '));
  return s;
}

// PoCL's CPU driver (5.0 at least) keeps the compiled variants of a kernel in one cache for the
// process (per local size, and a new variant whenever a launch is wider than every variant of it
// in the cache), most recently used first. When a launch starts running it counts itself on the
// first variant that fits it, but a finished launch is uncounted from the first variant with its
// kernel and local size, whichever that is by then. Once another launch of the kernel has made a
// new variant, or moved an older one to the front, a launch still running is uncounted from the
// wrong variant, and PoCL aborts on an assertion in pocl_release_dlhandle_cache (a batch whose
// chunks grow, images of growing sizes did it). Waiting only before a launch wider than every
// earlier one is not enough: the variant is chosen when a launch starts, and a narrower launch
// enqueued later on another queue can start first (the batch test still aborted in 3 of 6 runs).
// Only a launch of the same kernel reorders its variants, and PoCL uncounts a launch before its
// event completes; so on PoCL a launch of a kernel first waits for the previous launch of that
// kernel. Launches of different kernels still overlap.
class PoclLaunchGuard {
 public:
  cl_int launch(const std::string& kernel, const std::function<cl_int(cl::Event*)>& enqueue) {
    Kernel* k;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      k = &kernels_[kernel];  // map nodes stay where they are
    }
    std::lock_guard<std::mutex> lock(k->mutex);
    if (k->last()) k->last.wait();  // a failure surfaces through the launch's own queue
    cl::Event e;
    const cl_int err = enqueue(&e);
    k->last = err == CL_SUCCESS ? e : cl::Event();
    return err;
  }

 private:
  struct Kernel {
    std::mutex mutex;
    cl::Event last;  // the kernel's latest launch
  };
  std::mutex mutex_;
  std::map<std::string, Kernel> kernels_;
};

PoclLaunchGuard& pocl_launch_guard() {
  static PoclLaunchGuard guard;
  return guard;
}

std::string platform_name(const cl::Device& device) {
  cl_platform_id platform = nullptr;
  if (device.getInfo(CL_DEVICE_PLATFORM, &platform) != CL_SUCCESS) return {};
  return cl::Platform(platform, true).getInfo<CL_PLATFORM_NAME>();
}

bool is_oclgrind(const cl::Device& device) {
  return platform_name(device).find("Oclgrind") != std::string::npos;
}

bool is_pocl(const cl::Device& device) {
  return platform_name(device).find("Portable Computing Language") != std::string::npos;
}

// Pinned host memory the AHP way: a CL_MEM_ALLOC_HOST_PTR buffer, mapped once for its whole
// life. Transfers write from (or read into) the mapped pointer, which the driver knows is
// page-locked, so they run at DMA speed without a staging copy.
class ClPinned : public PinnedBuffer {
 public:
  ClPinned(const cl::Context& context, cl::CommandQueue& map_queue, std::size_t size)
      : PinnedBuffer(nullptr, size), queue_(map_queue) {
    cl_int err = CL_SUCCESS;
    buffer_ = cl::Buffer(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                         std::max<std::size_t>(size, 1), nullptr, &err);
    HC_CL_CHECK_ERR(err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    void* p = queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                      std::max<std::size_t>(size, 1), nullptr, nullptr, &err);
    HC_CL_CHECK_ERR(err, "clEnqueueMapBuffer(pinned)");
    data_ = static_cast<std::uint8_t*>(p);
  }
  ~ClPinned() override {
    // Destructors never throw: an unmap failure at teardown has nobody left to report to.
    if (data_) {
      queue_.enqueueUnmapMemObject(buffer_, data_);
      queue_.finish();
    }
  }

 private:
  cl::CommandQueue& queue_;
  cl::Buffer buffer_;
};

class ClEvent : public Event {
 public:
  explicit ClEvent(cl::Event e) : event_(std::move(e)) {}
  void wait() override { HC_CL_CHECK(event_.wait()); }
  cl::Event& handle() { return event_; }

 private:
  cl::Event event_;
};

}  // namespace

std::vector<std::pair<DeviceInfo, cl::Device>> enumerate(std::vector<std::string>& notes) {
  std::vector<std::pair<DeviceInfo, cl::Device>> out;
  std::vector<cl::Platform> platforms;
  cl_int err = cl::Platform::get(&platforms);
  if (err != CL_SUCCESS || platforms.empty()) {
    notes.push_back(std::string("OpenCL: no platform found (") + error_name(err) + ")");
    return out;
  }
  for (const auto& platform : platforms) {
    std::string pname = trimmed(platform.getInfo<CL_PLATFORM_NAME>());
    std::vector<cl::Device> devices;
    err = platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    if (err != CL_SUCCESS) {
      notes.push_back("OpenCL: platform '" + pname + "' lists no device (" + error_name(err) + ")");
      continue;
    }
    for (const auto& device : devices) {
      DeviceInfo info;
      info.kind = DeviceKind::OpenCL;
      info.spec = "opencl:" + std::to_string(out.size());
      info.name = trimmed(device.getInfo<CL_DEVICE_NAME>());
      info.vendor = trimmed(device.getInfo<CL_DEVICE_VENDOR>());
      info.platform = pname;
      info.driver = trimmed(device.getInfo<CL_DRIVER_VERSION>()) + " (" +
                    trimmed(device.getInfo<CL_DEVICE_VERSION>()) + ")";
      info.memory_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
      // OpenCL refuses a larger clCreateBuffer with CL_INVALID_BUFFER_SIZE.
      info.max_alloc_bytes = capped_max_alloc(device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>());
      info.compute_units = static_cast<int>(device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
      info.is_gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
      info.is_emulator = pname.find("Oclgrind") != std::string::npos;
      out.emplace_back(std::move(info), device);
    }
  }
  return out;
}

ClBuffer::ClBuffer(const cl::Context& context, std::size_t size) : DeviceBuffer(size) {
  cl_int err = CL_SUCCESS;
  // OpenCL refuses zero-sized buffers; a one-byte buffer keeps the logical size 0.
  mem_ = cl::Buffer(context, CL_MEM_READ_WRITE, std::max<std::size_t>(size, 1), nullptr, &err);
  HC_CL_CHECK_ERR(err, "clCreateBuffer");
}

ClQueue::ClQueue(const cl::Context& context, const cl::Device& device)
    : pocl_(is_pocl(device)), emulator_(is_oclgrind(device)) {
  cl_int err = CL_SUCCESS;
  queue_ = cl::CommandQueue(context, device, 0, &err);
  HC_CL_CHECK_ERR(err, "clCreateCommandQueue");
}

// The copies from and to host memory are synchronous, as the interface says, but made as a
// non-blocking copy and a wait on its event: on NVIDIA's OpenCL a blocking copy holds up the
// calls of other threads, and encoders on several threads ran well below CUDA's rate with it.
void ClQueue::write(DeviceBuffer& dst, std::size_t off, const void* src, std::size_t n) {
  check_range("opencl: write", off, n, dst.size());
  if (!n) return;
  cl::Event done;
  HC_CL_CHECK(queue_.enqueueWriteBuffer(mem_of(dst), CL_FALSE, off, n, src, nullptr, &done));
  HC_CL_CHECK(done.wait());
}

void ClQueue::read(void* dst, const DeviceBuffer& src, std::size_t off, std::size_t n) {
  check_range("opencl: read", off, n, src.size());
  count_device_to_host(n);
  if (!n) return;
  cl::Event done;
  HC_CL_CHECK(queue_.enqueueReadBuffer(mem_of(src), CL_FALSE, off, n, dst, nullptr, &done));
  HC_CL_CHECK(done.wait());
}

void ClQueue::write(DeviceBuffer& dst, std::size_t dst_off, const PinnedBuffer& src,
                    std::size_t src_off, std::size_t n) {
  check_range("opencl: write from pinned", src_off, n, src.size());
  check_range("opencl: write from pinned", dst_off, n, dst.size());
  backend_cast<const ClPinned>(src, "opencl");
  if (n)
    HC_CL_CHECK(queue_.enqueueWriteBuffer(mem_of(dst), CL_FALSE, dst_off, n, src.data() + src_off));
}

void ClQueue::read(PinnedBuffer& dst, std::size_t dst_off, const DeviceBuffer& src,
                   std::size_t src_off, std::size_t n) {
  check_range("opencl: read into pinned", dst_off, n, dst.size());
  check_range("opencl: read into pinned", src_off, n, src.size());
  backend_cast<ClPinned>(dst, "opencl");
  count_device_to_host(n);
  if (n)
    HC_CL_CHECK(queue_.enqueueReadBuffer(mem_of(src), CL_FALSE, src_off, n, dst.data() + dst_off));
}

void ClQueue::copy(DeviceBuffer& dst, std::size_t dst_off, const DeviceBuffer& src,
                   std::size_t src_off, std::size_t n) {
  check_range("opencl: copy source", src_off, n, src.size());
  check_range("opencl: copy destination", dst_off, n, dst.size());
  if (n) HC_CL_CHECK(queue_.enqueueCopyBuffer(mem_of(src), mem_of(dst), src_off, dst_off, n));
}

// Oclgrind's uninitialised-value tracking takes each store from the host as the buffer's whole
// new contents (its shadow is made anew at the store's size), so that after a fill, a store per
// pattern, all but the first byte read as uninitialised: there the zeroes go as one write.
void ClQueue::zero(DeviceBuffer& dst, std::size_t dst_off, std::size_t n) {
  check_range("opencl: zero", dst_off, n, dst.size());
  if (!n) return;
  if (emulator_) {
    const std::vector<std::uint8_t> zeroes(n);
    write(dst, dst_off, zeroes.data(), n);
    return;
  }
  HC_CL_CHECK(queue_.enqueueFillBuffer(mem_of(dst), cl_uchar(0), dst_off, n));
}

std::unique_ptr<Event> ClQueue::record() {
  cl::Event e;
  HC_CL_CHECK(queue_.enqueueMarkerWithWaitList(nullptr, &e));
  // Submitted now: another queue may wait for this event (wait_for), and OpenCL leaves a wait on
  // an event of a queue not flushed to the implementation (NVIDIA's held such waits for
  // milliseconds).
  HC_CL_CHECK(queue_.flush());
  return std::make_unique<ClEvent>(e);
}

void ClQueue::wait_for(Event& event) {
  std::vector<cl::Event> list{backend_cast<ClEvent>(event, "opencl").handle()};
  HC_CL_CHECK(queue_.enqueueBarrierWithWaitList(&list));
}

void ClQueue::finish() { HC_CL_CHECK(queue_.finish()); }

void ClQueue::launch(const cl::Kernel& kernel, std::size_t items, const char* name) {
  launch(kernel, launch_items(items, 64), name);
}

void ClQueue::launch(const cl::Kernel& kernel, const Launch& plan, const char* name) {
  if (plan.groups_x == 0 || plan.groups_y == 0) return;
  const std::size_t x = std::size_t(plan.groups_x) * plan.lanes;
  if (plan.groups_y == 1)
    enqueue_kernel(kernel, cl::NDRange(x), cl::NDRange(plan.lanes), name);
  else
    enqueue_kernel(kernel, cl::NDRange(x, plan.groups_y), cl::NDRange(plan.lanes, 1), name);
}

void ClQueue::enqueue_kernel(const cl::Kernel& kernel, const cl::NDRange& global,
                             const cl::NDRange& local, const char* name) {
  if (kernel_log_enabled()) log_kernel(kernel.getInfo<CL_KERNEL_FUNCTION_NAME>());
  cl_int err;
  if (pocl_) {
    err = pocl_launch_guard().launch(name, [&](cl::Event* e) {
      return queue_.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, e);
    });
  } else {
    err = queue_.enqueueNDRangeKernel(kernel, cl::NullRange, global, local);
  }
  HC_CL_CHECK_ERR(err, name);
  if (sync_each_launch()) HC_CL_CHECK_ERR(queue_.finish(), name);
}

ClDevice::ClDevice(const DeviceInfo& info, const cl::Device& device)
    : Device(info), device_(device) {
  cl_int err = CL_SUCCESS;
  context_ = cl::Context(device_, nullptr, nullptr, nullptr, &err);
  HC_CL_CHECK_ERR(err, "clCreateContext");
  map_queue_ = cl::CommandQueue(context_, device_, 0, &err);
  HC_CL_CHECK_ERR(err, "clCreateCommandQueue");
}

ClDevice::~ClDevice() = default;

std::unique_ptr<DeviceBuffer> ClDevice::make_buffer(std::size_t bytes) {
  return std::make_unique<ClBuffer>(context_, bytes);
}

std::unique_ptr<PinnedBuffer> ClDevice::alloc_pinned(std::size_t bytes) {
  // A pinned buffer is a CL buffer too (CL_MEM_ALLOC_HOST_PTR), under the same limit.
  check_alloc(info(), bytes, "pinned buffer");
  std::lock_guard<std::mutex> lock(mutex_);
  return std::make_unique<ClPinned>(context_, map_queue_, bytes);
}

std::unique_ptr<Queue> ClDevice::create_queue() {
  return std::make_unique<ClQueue>(context_, device_);
}

// Kernel sets are made on first use, outside the lock (making one builds programs, and
// program() takes the lock); if two threads race, the first one stored wins.
template <typename T, typename Make>
T& ClDevice::kernels_once(std::unique_ptr<T>& slot, Make make) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot) return *slot;
  }
  auto kernels = make();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!slot) slot = std::move(kernels);
  return *slot;
}

JpegKernels& ClDevice::jpeg() {
  return kernels_once(jpeg_, [this] { return make_jpeg_kernels(*this); });
}

PngKernels& ClDevice::png() {
  return kernels_once(png_, [this] { return make_png_kernels(*this); });
}

LjpegKernels& ClDevice::ljpeg() {
  return kernels_once(ljpeg_, [this] { return make_ljpeg_kernels(*this); });
}

JpegEncodeKernels& ClDevice::jpeg_encode() {
  return kernels_once(jpeg_encode_, [this] { return make_jpeg_encode_kernels(*this); });
}

JpegEntropyKernels& ClDevice::jpeg_entropy() {
  return kernels_once(jpeg_entropy_, [this] { return make_jpeg_entropy_kernels(*this); });
}

FilterKernels& ClDevice::filters() {
  return kernels_once(filters_, [this] { return make_filter_kernels(*this); });
}

std::string ClDevice::build_options() const {
  // -cl-std=CL1.2: the kernels are OpenCL C 1.2, the common floor of NVIDIA, PoCL and Oclgrind.
  // No -cl-fast-relaxed-math or -cl-mad-enable anywhere: every backend must compute the same
  // bits as the CPU reference (DESIGN.md §4).
  // HETCODEC_TEST_OPENCL_RACE=1 (tests only) builds kernels_cl's deliberate data race in
  // (HC_TEST_RACE), for the tests of hetcodec debug replay under Oclgrind.
  const char* race = std::getenv("HETCODEC_TEST_OPENCL_RACE");
  if (race && std::string(race) == "1") return "-cl-std=CL1.2 -DHC_TEST_RACE=1";
  return "-cl-std=CL1.2";
}

const cl::Program& ClDevice::program(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = programs_.find(name);
  if (it != programs_.end()) return it->second;
  for (const auto& src : embedded_sources()) {
    if (name == src.name) {
      auto built = build_cached(context_, device_, name, src.text, build_options());
      return programs_.emplace(name, std::move(built)).first->second;
    }
  }
  throw Error(ErrorCode::InvalidArgument, "opencl: no embedded program named '" + name + "'");
}

std::vector<std::string> ClDevice::kernel_names() {
  std::vector<std::string> names;
  for (const auto& src : embedded_sources()) {
    std::vector<cl::Kernel> kernels;
    cl::Program built = program(src.name);  // (a handle: createKernels is not const)
    HC_CL_CHECK(built.createKernels(&kernels));
    for (const cl::Kernel& k : kernels) names.push_back(k.getInfo<CL_KERNEL_FUNCTION_NAME>());
  }
  return names;
}

cl::Program ClDevice::build(const std::string& name, const std::string& source) {
  return build_cached(context_, device_, name, source, build_options());
}

ClQueue& queue_cast(Queue& queue) { return backend_cast<ClQueue>(queue, "opencl"); }

const cl::Buffer& mem_of(const DeviceBuffer& buffer) {
  return backend_cast<const ClBuffer>(buffer, "opencl").mem();
}

cl::Kernel make_kernel(const cl::Program& program, const char* name) {
  cl_int err = CL_SUCCESS;
  cl::Kernel kernel(program, name, &err);
  HC_CL_CHECK_ERR(err, name);
  return kernel;
}

}  // namespace hetcodec::opencl
