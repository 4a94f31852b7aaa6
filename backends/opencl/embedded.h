// The OpenCL C sources of kernels_cl/, embedded at build time (cmake/EmbedOpenCL.cmake).
#ifndef HETCODEC_BACKENDS_OPENCL_EMBEDDED_H
#define HETCODEC_BACKENDS_OPENCL_EMBEDDED_H

#include <vector>

namespace hetcodec::opencl {

struct EmbeddedSource {
  const char* name;  // file name without extension: "jpeg_color"
  const char* text;  // with its core/portable includes inlined, #line keeping each line's place
};

const std::vector<EmbeddedSource>& embedded_sources();

}  // namespace hetcodec::opencl

#endif  // HETCODEC_BACKENDS_OPENCL_EMBEDDED_H
