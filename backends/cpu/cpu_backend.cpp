// The CPU reference backend (DESIGN.md §2).
#include "backends/cpu/cpu_backend.h"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <mutex>
#include <new>
#include <thread>

#include "backends/backend_util.h"

namespace hetcodec::cpu {
namespace {

std::unique_ptr<std::uint8_t[]> allocate(std::size_t size) {
  std::unique_ptr<std::uint8_t[]> p(new (std::nothrow) std::uint8_t[size ? size : 1]);
  if (!p) {
    throw Error(ErrorCode::OutOfMemory, "cpu: cannot allocate " + std::to_string(size) + " bytes");
  }
  return p;
}

class Pinned : public PinnedBuffer {
 public:
  explicit Pinned(std::size_t size) : PinnedBuffer(nullptr, size), storage_(allocate(size)) {
    data_ = storage_.get();
  }

 private:
  std::unique_ptr<std::uint8_t[]> storage_;
};

class DoneEvent : public Event {
 public:
  void wait() override {}
};

class CpuQueue : public Queue {
 public:
  void write(DeviceBuffer& dst, std::size_t off, const void* src, std::size_t n) override {
    check_range("cpu: write", off, n, dst.size());
    if (n) std::memcpy(buf(dst).data() + off, src, n);
  }
  void read(void* dst, const DeviceBuffer& src, std::size_t off, std::size_t n) override {
    check_range("cpu: read", off, n, src.size());
    count_device_to_host(n);
    if (n) std::memcpy(dst, buf(src).data() + off, n);
  }
  void write(DeviceBuffer& dst, std::size_t dst_off, const PinnedBuffer& src, std::size_t src_off,
             std::size_t n) override {
    check_range("cpu: write from pinned", src_off, n, src.size());
    write(dst, dst_off, src.data() + src_off, n);
  }
  void read(PinnedBuffer& dst, std::size_t dst_off, const DeviceBuffer& src, std::size_t src_off,
            std::size_t n) override {
    check_range("cpu: read into pinned", dst_off, n, dst.size());
    read(dst.data() + dst_off, src, src_off, n);  // (counted there)
  }
  void copy(DeviceBuffer& dst, std::size_t dst_off, const DeviceBuffer& src, std::size_t src_off,
            std::size_t n) override {
    check_range("cpu: copy source", src_off, n, src.size());
    check_range("cpu: copy destination", dst_off, n, dst.size());
    if (n) std::memmove(buf(dst).data() + dst_off, buf(src).data() + src_off, n);
  }
  void zero(DeviceBuffer& dst, std::size_t dst_off, std::size_t n) override {
    check_range("cpu: zero", dst_off, n, dst.size());
    if (n) std::memset(buf(dst).data() + dst_off, 0, n);
  }
  std::unique_ptr<Event> record() override { return std::make_unique<DoneEvent>(); }
  void wait_for(Event&) override {}
  void finish() override {}

 private:
  static Buffer& buf(DeviceBuffer& b) { return backend_cast<Buffer>(b, "cpu"); }
  static const Buffer& buf(const DeviceBuffer& b) { return backend_cast<const Buffer>(b, "cpu"); }
};

class CpuDevice : public Device {
 public:
  explicit CpuDevice(const DeviceInfo& info) : Device(info) {}
  std::unique_ptr<PinnedBuffer> alloc_pinned(std::size_t bytes) override {
    check_alloc(info(), bytes, "pinned buffer");
    return std::make_unique<Pinned>(bytes);
  }
  std::unique_ptr<Queue> create_queue() override { return std::make_unique<CpuQueue>(); }
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

 protected:
  std::unique_ptr<DeviceBuffer> make_buffer(std::size_t bytes) override {
    return std::make_unique<Buffer>(bytes);
  }

 private:
  std::once_flag jpeg_once_, png_once_, ljpeg_once_, jpeg_encode_once_, jpeg_entropy_once_,
      filters_once_;
  std::unique_ptr<JpegKernels> jpeg_;
  std::unique_ptr<PngKernels> png_;
  std::unique_ptr<LjpegKernels> ljpeg_;
  std::unique_ptr<JpegEncodeKernels> jpeg_encode_;
  std::unique_ptr<JpegEntropyKernels> jpeg_entropy_;
  std::unique_ptr<FilterKernels> filters_;
};

std::string cpuinfo_field(const char* key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return {};
}

}  // namespace

Buffer::Buffer(std::size_t size) : DeviceBuffer(size), data_(allocate(size)) {}

DeviceInfo device_info() {
  DeviceInfo info;
  info.spec = "cpu";
  info.kind = DeviceKind::Cpu;
  std::string model = cpuinfo_field("model name");
  info.name = "CPU reference" + (model.empty() ? std::string() : " (" + model + ")");
  info.vendor = cpuinfo_field("vendor_id");
  info.platform = "host";
  info.driver = "hetcodec " HETCODEC_VERSION;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  info.memory_bytes = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
  info.compute_units = static_cast<int>(std::thread::hardware_concurrency());
  // Host memory has no limit per buffer below the memory itself.
  info.max_alloc_bytes = capped_max_alloc(info.memory_bytes);
  return info;
}

std::shared_ptr<Device> open_device(const DeviceInfo& info) {
  return std::make_shared<CpuDevice>(info);
}

}  // namespace hetcodec::cpu
