// hetcodec::Error (DESIGN.md §5).
#include "core/error.h"

namespace hetcodec {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidData:
      return "invalid data";
    case ErrorCode::Unsupported:
      return "unsupported";
    case ErrorCode::LimitExceeded:
      return "limit exceeded";
    case ErrorCode::OutOfMemory:
      return "out of memory";
    case ErrorCode::DeviceError:
      return "device error";
    case ErrorCode::InvalidArgument:
      return "invalid argument";
  }
  return "unknown error";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

}  // namespace hetcodec
