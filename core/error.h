// hetcodec::Error, the one exception type of the library (DESIGN.md §5): a code saying what kind
// of failure it is and a message saying where and what ("jpeg: DHT at byte 1234: ...").
#ifndef HETCODEC_CORE_ERROR_H
#define HETCODEC_CORE_ERROR_H

#include <stdexcept>
#include <string>

namespace hetcodec {

enum class ErrorCode {
  InvalidData,      // the input is malformed
  Unsupported,      // valid input that this version does not handle
  LimitExceeded,    // a settable safety limit was reached
  OutOfMemory,      // host or device allocation failed
  DeviceError,      // a GPU/OpenCL runtime call failed, or the device was lost
  InvalidArgument,  // the caller asked for something impossible (bad device spec, bad option)
};

const char* to_string(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace hetcodec

#endif  // HETCODEC_CORE_ERROR_H
