// The OpenCL C++ bindings (opencl.hpp) configured once for the whole backend, and the check
// macro every OpenCL call goes through (STYLE.md: checked where made, with call text and place).
#ifndef HETCODEC_BACKENDS_OPENCL_CL_H
#define HETCODEC_BACKENDS_OPENCL_CL_H

// OpenCL 1.2 is the floor: NVIDIA, PoCL and Oclgrind all provide it, and the kernels are 1.2 C.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <string>

namespace hetcodec::opencl {

const char* error_name(cl_int err);
[[noreturn]] void fail(cl_int err, const char* call, const char* file, int line);

}  // namespace hetcodec::opencl

// HC_CL_CHECK(clFoo(...)) for calls returning cl_int; HC_CL_CHECK_ERR(err, "clFoo") for calls
// that report through an out-parameter (the bindings' constructors).
#define HC_CL_CHECK(call)                                                                          \
  do {                                                                                             \
    cl_int hc_cl_err_ = (call);                                                                    \
    if (hc_cl_err_ != CL_SUCCESS) ::hetcodec::opencl::fail(hc_cl_err_, #call, __FILE__, __LINE__); \
  } while (0)
#define HC_CL_CHECK_ERR(err, what)                                                        \
  do {                                                                                    \
    if ((err) != CL_SUCCESS) ::hetcodec::opencl::fail((err), (what), __FILE__, __LINE__); \
  } while (0)

#endif  // HETCODEC_BACKENDS_OPENCL_CL_H
