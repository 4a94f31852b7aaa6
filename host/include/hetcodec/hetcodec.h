// hetcodec public API. Image codecs whose pipelines run unchanged on a CUDA GPU, any OpenCL
// device (NVIDIA, AMD, Intel, PoCL on CPUs, the Oclgrind simulator) or a CPU reference,
// chosen at run time.
//
//   #include <hetcodec/hetcodec.h>
//   hetcodec::JpegDecoder decoder("auto");   // or "cpu", "cuda:0", "opencl:pocl", ...
//   hetcodec::Image image = decoder.decode(bytes);
//   std::puts(hetcodec::device_info(decoder.device()).name.c_str());
//
// Headers: hetcodec/device.h (devices), hetcodec/image.h (images, batch inputs and errors),
// hetcodec/jpeg.h (JpegDecoder), hetcodec/png.h (PngDecoder, PngEncoder), hetcodec/filters.h
// (Filters). The pipelines share
// their conventions: a decoder's info() gives the size and format before decoding, warnings
// come in the image, batches take Inputs and report BatchErrors, and stage_times() returns the
// pipeline's StageTimes. Every failure is a hetcodec::Error with a code (core/error.h). The
// library never prints.
#ifndef HETCODEC_HETCODEC_H
#define HETCODEC_HETCODEC_H

#include "core/error.h"
#include "core/image.h"
#include "hetcodec/debug.h"
#include "hetcodec/device.h"
#include "hetcodec/filters.h"
#include "hetcodec/image.h"
#include "hetcodec/jpeg.h"
#include "hetcodec/jpeg_encode.h"
#include "hetcodec/png.h"

namespace hetcodec {

// The library version, "MAJOR.MINOR.PATCH".
const char* version();

}  // namespace hetcodec

#endif  // HETCODEC_HETCODEC_H
