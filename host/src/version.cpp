// hetcodec::version(), and device_info() for the opaque Device of the public API
// (hetcodec/device.h).
#include "backends/backend.h"
#include "hetcodec/hetcodec.h"

namespace hetcodec {
const char* version() { return HETCODEC_VERSION; }
const DeviceInfo& device_info(const Device& device) { return device.info(); }
}  // namespace hetcodec
