// Helpers the three backends share: checked downcasts of the interface objects, so a buffer of
// one device handed to another is a clear error rather than undefined behaviour.
#ifndef HETCODEC_BACKENDS_BACKEND_UTIL_H
#define HETCODEC_BACKENDS_BACKEND_UTIL_H

#include <string>
#include <typeinfo>

#include "backends/backend.h"

namespace hetcodec {

template <class Derived, class Base>
Derived& backend_cast(Base& object, const char* backend) {
  auto* derived = dynamic_cast<Derived*>(&object);
  if (!derived) {
    throw Error(ErrorCode::InvalidArgument, std::string(backend) +
                                                ": object belongs to another backend (" +
                                                typeid(object).name() + ")");
  }
  return *derived;
}

// Throws InvalidArgument unless [offset, offset + bytes) lies inside a buffer of `size` bytes.
void check_range(const char* what, std::size_t offset, std::size_t bytes, std::size_t size);

// Bytes copied from device memory to the host by every queue of the process (each backend's
// Queue::read counts them), so that a test can check that a chain of stages kept its pixels
// on the device.
void count_device_to_host(std::size_t bytes);
std::uint64_t device_to_host_bytes();

// Throws LimitExceeded, naming the device, when a buffer of `bytes` is over the device's largest
// single allocation (DeviceInfo::max_alloc_bytes), before the runtime is asked for it.
void check_alloc(const DeviceInfo& info, std::size_t bytes, const char* what);

// The largest single allocation a device reports, capped by $HETCODEC_MAX_ALLOC (bytes) where
// that is set: a device with a smaller limit, for testing how batches are split.
std::uint64_t capped_max_alloc(std::uint64_t reported);

// Where hetcodec caches files (OpenCL program binaries, the private ICD directory):
// $HETCODEC_CACHE_DIR, else $XDG_CACHE_HOME/hetcodec, else $HOME/.cache/hetcodec; created on
// demand. Empty when none of these is set or the directory cannot be created.
std::string cache_directory();

// HETCODEC_SYNC=1: synchronise after every kernel launch, to localise a fault to its kernel.
bool sync_each_launch();

// HETCODEC_KERNEL_LOG=FILE: the entry point of every kernel launched is appended to FILE, a line
// for each the first time this process launches it (the OpenCL kernel's function name, the CUDA
// kernel's mangled name), so that tests/kernel_coverage.sh can check that a run under a checking
// tool (Oclgrind, compute-sanitizer) launched every kernel of the build.
bool kernel_log_enabled();
void log_kernel(const std::string& name);

}  // namespace hetcodec

#endif  // HETCODEC_BACKENDS_BACKEND_UTIL_H
