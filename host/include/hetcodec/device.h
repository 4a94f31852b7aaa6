// Devices (DESIGN.md §2): what the machine has, and opening one by its spec. A Device is an
// opaque handle here: the pipelines (JpegDecoder, PngDecoder, PngEncoder) take one, and
// several pipelines given the same device share it (an image decoded into its memory can be
// encoded there). Its queues, buffers and kernels are the library's own business.
//
//   for (const hetcodec::DeviceInfo& d : hetcodec::list_devices()) std::puts(d.spec.c_str());
//   std::shared_ptr<hetcodec::Device> device = hetcodec::open_device("opencl:pocl");
#ifndef HETCODEC_DEVICE_H
#define HETCODEC_DEVICE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"

namespace hetcodec {

enum class DeviceKind { Cpu, Cuda, OpenCL };
const char* to_string(DeviceKind kind);

struct DeviceInfo {
  std::string spec;  // canonical spec that selects exactly this device: "cpu", "cuda:0", "opencl:2"
  DeviceKind kind = DeviceKind::Cpu;
  std::string name;
  std::string vendor;
  std::string platform;  // OpenCL platform name; "CUDA" or "host" otherwise
  std::string driver;    // driver / runtime version string
  std::uint64_t memory_bytes = 0;
  // The largest single buffer the device allocates, device or pinned memory
  // (CL_DEVICE_MAX_MEM_ALLOC_SIZE on OpenCL, the memory itself on CUDA and the CPU reference;
  // capped by $HETCODEC_MAX_ALLOC). Batches are split so that no buffer exceeds it.
  std::uint64_t max_alloc_bytes = 0;
  int compute_units = 0;
  bool is_gpu = false;
  bool is_emulator =
      false;  // Oclgrind: correct but thousands of times slower; never picked by auto
};

// How the wavefront engine orders its tiles: one launch whose work-groups take tickets and
// wait on per-tile completion flags, or one launch per tile diagonal. Auto: tickets on a GPU,
// diagonals elsewhere (on a CPU device a waiting work-group holds one of few cores).
enum class Wavefront { Auto, Tickets, Diagonals };

// Where a JPEG codec's Huffman stage runs: on the device, or on host threads (JpegEncodeOptions
// and JpegDecodeOptions say what Auto picks for each).
enum class JpegEntropy { Auto, Device, Host };

// An opened device (opaque).
class Device;
// Device memory (opaque): where a DeviceImage's samples lie.
class DeviceBuffer;

// Host memory the device's DMA engine reads and writes directly ("pinned", page-locked),
// allocated once and reused: CUDA cudaHostAlloc; OpenCL a CL_MEM_ALLOC_HOST_PTR buffer mapped
// once; ordinary memory on the CPU reference.
class PinnedBuffer {
 public:
  virtual ~PinnedBuffer() = default;
  std::uint8_t* data() { return data_; }
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 protected:
  PinnedBuffer(std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t* data_;
  std::size_t size_;
};

// `bytes` of pinned memory of `device`, for samples to encode: the encoders (JpegEncoder's raw
// encode and encode_batch of RawPixels) send samples that lie in such a buffer, while it lives,
// to the device straight from it, where samples in pageable memory are first copied into
// pinned memory on host threads (the slower of the two steps). Error(OutOfMemory) when the
// device cannot give it.
std::shared_ptr<PinnedBuffer> alloc_pinned(const std::shared_ptr<Device>& device,
                                           std::size_t bytes);

// Every device this process can use, in spec order: the CPU reference, CUDA devices, OpenCL
// devices (platform by platform). Enumerated once per process.
const std::vector<DeviceInfo>& list_devices();

// Notes gathered while enumerating (a backend left out of the build, a runtime that found no
// device and why). For `hetcodec devices` and error messages; the library itself never prints.
const std::vector<std::string>& enumeration_notes();

// The device `auto` picks: CUDA, then an OpenCL GPU, then an OpenCL CPU device (not an
// emulator), then the CPU reference.
const DeviceInfo& auto_device();

// Resolves a spec: auto, cpu, cuda, cuda:N, opencl, opencl:N,
// opencl:<platform-or-device substring>[:N]. An empty spec means $HETCODEC_DEVICE, or auto.
// Throws Error(InvalidArgument) listing the devices that exist when nothing matches.
const DeviceInfo& resolve_device(const std::string& spec);

// Opens (creates contexts and queues for) the device a spec names. Devices are shared: opening
// the same spec twice gives the same object, and an opened device lives until the process exits.
std::shared_ptr<Device> open_device(const std::string& spec = "");

// The description of an opened device.
const DeviceInfo& device_info(const Device& device);

// The most device memory this process's buffers on `device` may hold at once, 0 for no limit
// (the default; $HETCODEC_DEVICE_MEMORY, in bytes, sets it when the device is opened, and the
// command line's --device-memory). A buffer that would pass it fails with Error(OutOfMemory), as
// on a device that is full, before the runtime is asked: for sharing a GPU with other work, and
// for seeing how a pipeline meets a full device. A pipeline that gets OutOfMemory leaves the
// image undone and stays usable; its buffers stay held until it is destroyed or grows them.
// The limit covers device buffers, not pinned host memory.
void limit_device_memory(Device& device, std::uint64_t bytes);
std::uint64_t device_memory_limit(const Device& device);
// The bytes of the buffers alive on `device` now, those of every pipeline of the process.
std::uint64_t device_memory_in_use(const Device& device);

// Waits until the work that anything in the process queued on `device` is done (CUDA: every
// stream, another library's included, cudaDeviceSynchronize); returns at once on the CPU
// reference and OpenCL. Before memory that was lent to another library (DLPack) is written
// again: that library's kernels may still read it after it let go of it.
void wait_idle(Device& device);

}  // namespace hetcodec

#endif  // HETCODEC_DEVICE_H
