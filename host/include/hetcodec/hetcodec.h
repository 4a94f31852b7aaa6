// hetcodec public API. Image codecs whose pipelines run unchanged on a CUDA GPU, any OpenCL
// device (NVIDIA, AMD, Intel, PoCL on CPUs, the Oclgrind simulator) or a CPU reference,
// chosen at run time.
//
//   #include <hetcodec/hetcodec.h>
//   auto device = hetcodec::open_device("auto");   // or "cpu", "cuda:0", "opencl:pocl", ...
//   std::puts(device->info().name.c_str());
//
// Every failure is a hetcodec::Error with a code (core/error.h). The library never prints.
#ifndef HETCODEC_HETCODEC_H
#define HETCODEC_HETCODEC_H

#include "backends/backend.h"
#include "core/error.h"
#include "core/image.h"
#include "hetcodec/jpeg.h"
#include "hetcodec/png.h"

namespace hetcodec {

// The library version, "MAJOR.MINOR.PATCH".
const char* version();

// Pipelines: JpegDecoder (hetcodec/jpeg.h). JpegEncoder, PngDecoder, PngEncoder, LjpegDecoder
// and Filters are declared here as they land.

}  // namespace hetcodec

#endif  // HETCODEC_HETCODEC_H
