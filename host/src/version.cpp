// hetcodec::version(), and device_info() and the memory limit for the opaque Device of the
// public API (hetcodec/device.h).
#include "backends/backend.h"
#include "hetcodec/hetcodec.h"

namespace hetcodec {
const char* version() { return HETCODEC_VERSION; }
const DeviceInfo& device_info(const Device& device) { return device.info(); }
void limit_device_memory(Device& device, std::uint64_t bytes) { device.set_memory_limit(bytes); }
std::uint64_t device_memory_limit(const Device& device) { return device.memory_limit(); }
std::uint64_t device_memory_in_use(const Device& device) { return device.memory_in_use(); }
void wait_idle(Device& device) { device.wait_idle(); }
}  // namespace hetcodec
