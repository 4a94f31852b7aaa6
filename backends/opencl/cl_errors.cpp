// OpenCL error names and the failure path of HC_CL_CHECK.
#include <string>

#include "backends/opencl/cl.h"
#include "core/error.h"

namespace hetcodec::opencl {

const char* error_name(cl_int err) {
  switch (err) {
#define HC_CASE(code) \
  case code:          \
    return #code;
    HC_CASE(CL_SUCCESS)
    HC_CASE(CL_DEVICE_NOT_FOUND) HC_CASE(CL_DEVICE_NOT_AVAILABLE) HC_CASE(CL_COMPILER_NOT_AVAILABLE)
        HC_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE) HC_CASE(CL_OUT_OF_RESOURCES) HC_CASE(
            CL_OUT_OF_HOST_MEMORY) HC_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
            HC_CASE(CL_MEM_COPY_OVERLAP) HC_CASE(CL_IMAGE_FORMAT_MISMATCH) HC_CASE(
                CL_IMAGE_FORMAT_NOT_SUPPORTED) HC_CASE(CL_BUILD_PROGRAM_FAILURE)
                HC_CASE(CL_MAP_FAILURE) HC_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET) HC_CASE(
                    CL_COMPILE_PROGRAM_FAILURE) HC_CASE(CL_LINK_PROGRAM_FAILURE)
                    HC_CASE(CL_INVALID_VALUE) HC_CASE(CL_INVALID_DEVICE_TYPE) HC_CASE(
                        CL_INVALID_PLATFORM) HC_CASE(CL_INVALID_DEVICE) HC_CASE(CL_INVALID_CONTEXT)
                        HC_CASE(CL_INVALID_QUEUE_PROPERTIES) HC_CASE(CL_INVALID_COMMAND_QUEUE)
                            HC_CASE(CL_INVALID_HOST_PTR) HC_CASE(CL_INVALID_MEM_OBJECT) HC_CASE(
                                CL_INVALID_BINARY) HC_CASE(CL_INVALID_BUILD_OPTIONS)
                                HC_CASE(CL_INVALID_PROGRAM) HC_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
                                    HC_CASE(CL_INVALID_KERNEL_NAME) HC_CASE(
                                        CL_INVALID_KERNEL_DEFINITION) HC_CASE(CL_INVALID_KERNEL)
                                        HC_CASE(CL_INVALID_ARG_INDEX) HC_CASE(CL_INVALID_ARG_VALUE)
                                            HC_CASE(CL_INVALID_ARG_SIZE) HC_CASE(
                                                CL_INVALID_KERNEL_ARGS)
                                                HC_CASE(CL_INVALID_WORK_DIMENSION) HC_CASE(
                                                    CL_INVALID_WORK_GROUP_SIZE)
                                                    HC_CASE(CL_INVALID_WORK_ITEM_SIZE) HC_CASE(
                                                        CL_INVALID_GLOBAL_OFFSET)
                                                        HC_CASE(CL_INVALID_EVENT_WAIT_LIST) HC_CASE(
                                                            CL_INVALID_EVENT)
                                                            HC_CASE(CL_INVALID_OPERATION) HC_CASE(
                                                                CL_INVALID_BUFFER_SIZE)
                                                                HC_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
#undef HC_CASE
                                                                    case -1001
        : return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL error";
  }
}

void fail(cl_int err, const char* call, const char* file, int line) {
  bool oom = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ||
             err == CL_OUT_OF_RESOURCES;
  throw Error(oom ? ErrorCode::OutOfMemory : ErrorCode::DeviceError,
              std::string("opencl: ") + call + " failed: " + error_name(err) + " (" +
                  std::to_string(err) + ") at " + file + ":" + std::to_string(line));
}

}  // namespace hetcodec::opencl
