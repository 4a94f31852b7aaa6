// The OpenCL backend (DESIGN.md §2): any OpenCL 1.2 device of any platform the ICD loader
// finds, the Oclgrind simulator included (see icd_setup.cpp).
#ifndef HETCODEC_BACKENDS_OPENCL_OPENCL_BACKEND_H
#define HETCODEC_BACKENDS_OPENCL_OPENCL_BACKEND_H

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/launch_plan.h"
#include "backends/opencl/cl.h"

namespace hetcodec::opencl {

// Makes extra ICDs (Oclgrind, $HETCODEC_OPENCL_ICDS) visible to the ICD loader. Must run before
// the first OpenCL call of the process; registry.cpp calls it.
void prepare_icd_environment(std::vector<std::string>& notes);

// Device list with each device's handle; infos get specs "opencl:0", "opencl:1", ...
std::vector<std::pair<DeviceInfo, cl::Device>> enumerate(std::vector<std::string>& notes);

class ClBuffer : public DeviceBuffer {
 public:
  ClBuffer(const cl::Context& context, std::size_t size);
  const cl::Buffer& mem() const { return mem_; }
  void* native_handle() const override { return mem_(); }

 private:
  cl::Buffer mem_;
};

class ClQueue : public Queue {
 public:
  ClQueue(const cl::Context& context, const cl::Device& device);
  cl::CommandQueue& handle() { return queue_; }
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
  // Enqueues a kernel with the geometry of a launch plan (backends/launch_plan.h): groups_x by
  // groups_y work-groups of `lanes` work-items; nothing for no work-groups. Honours
  // HETCODEC_SYNC=1.
  void launch(const cl::Kernel& kernel, const Launch& plan, const char* name);
  // A 1-D kernel over `items` work-items in work-groups of 64 (for tests and tools' kernels).
  void launch(const cl::Kernel& kernel, std::size_t items, const char* name);

 private:
  void enqueue_kernel(const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local,
                      const char* name);
  cl::CommandQueue queue_;
  bool pocl_;      // a PoCL device: launches go through the PoCL launch guard
  bool emulator_;  // Oclgrind: zero() writes its zeroes from the host
};

class ClDevice : public Device {
 public:
  ClDevice(const DeviceInfo& info, const cl::Device& device);
  ~ClDevice() override;
  const cl::Context& context() const { return context_; }
  const cl::Device& device() const { return device_; }

  std::unique_ptr<PinnedBuffer> alloc_pinned(std::size_t bytes) override;
  std::unique_ptr<Queue> create_queue() override;
  JpegKernels& jpeg() override;
  PngKernels& png() override;
  LjpegKernels& ljpeg() override;
  JpegEncodeKernels& jpeg_encode() override;
  JpegEntropyKernels& jpeg_entropy() override;
  FilterKernels& filters() override;
  std::vector<std::string> kernel_names() override;

  // A program from kernels_cl/ by file name, built once per device (through the disk cache).
  const cl::Program& program(const std::string& name);
  // Any OpenCL C source, built through the same cache: tests and tools use it.
  cl::Program build(const std::string& name, const std::string& source);
  // The build options for this device (device quirks live here, each with its reason).
  std::string build_options() const;

 protected:
  std::unique_ptr<DeviceBuffer> make_buffer(std::size_t bytes) override;

 private:
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue map_queue_;  // maps and unmaps pinned buffers
  std::mutex mutex_;
  std::map<std::string, cl::Program> programs_;
  std::unique_ptr<JpegKernels> jpeg_;
  std::unique_ptr<PngKernels> png_;
  std::unique_ptr<LjpegKernels> ljpeg_;
  std::unique_ptr<JpegEncodeKernels> jpeg_encode_;
  std::unique_ptr<JpegEntropyKernels> jpeg_entropy_;
  std::unique_ptr<FilterKernels> filters_;
  template <typename T, typename Make>
  T& kernels_once(std::unique_ptr<T>& slot, Make make);
};

ClQueue& queue_cast(Queue& queue);
const cl::Buffer& mem_of(const DeviceBuffer& buffer);
cl::Kernel make_kernel(const cl::Program& program, const char* name);

// The kernel objects of a list of stages, one set per calling thread, made on its first call:
// images encoded on several threads set their arguments without waiting on each other (a
// kernel object is not safe to set from two threads at once).
class ThreadKernels {
 public:
  ThreadKernels(cl::Program program, const char* const* names, int count)
      : program_(std::move(program)), names_(names), count_(count) {}
  std::vector<cl::Kernel>& get() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<cl::Kernel>& set = sets_[std::this_thread::get_id()];
    if (set.empty())
      for (int i = 0; i < count_; ++i) set.push_back(make_kernel(program_, names_[i]));
    return set;
  }

 private:
  cl::Program program_;
  const char* const* names_;
  int count_;
  std::map<std::thread::id, std::vector<cl::Kernel>> sets_;
  std::mutex mutex_;
};

std::unique_ptr<JpegKernels> make_jpeg_kernels(ClDevice& device);
std::unique_ptr<PngKernels> make_png_kernels(ClDevice& device);
std::unique_ptr<LjpegKernels> make_ljpeg_kernels(ClDevice& device);
std::unique_ptr<JpegEncodeKernels> make_jpeg_encode_kernels(ClDevice& device);
std::unique_ptr<JpegEntropyKernels> make_jpeg_entropy_kernels(ClDevice& device);
std::unique_ptr<FilterKernels> make_filter_kernels(ClDevice& device);

// Program binaries cached on disk, keyed by a hash of source, options, device and driver.
// Returns a built program; throws Error(DeviceError) with the compiler log if the build fails.
cl::Program build_cached(const cl::Context& context, const cl::Device& device,
                         const std::string& name, const std::string& source,
                         const std::string& options);

}  // namespace hetcodec::opencl

#endif  // HETCODEC_BACKENDS_OPENCL_OPENCL_BACKEND_H
