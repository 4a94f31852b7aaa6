// nvJPEG's encoder as a peer of `hetcodec bench jpeg-encode` (bench_jpeg_encode.cpp), loaded at
// run time as bench_nvjpeg.h loads its decoder: the entry points are declared as the nvJPEG
// documentation gives them, so the tool builds without nvjpeg.h and runs without libnvjpeg. In a
// build without CUDA the function says so and measures nothing.
#ifndef HETCODEC_TOOLS_BENCH_NVJPEG_ENCODE_H
#define HETCODEC_TOOLS_BENCH_NVJPEG_ENCODE_H

#include <cstdint>
#include <string>
#include <vector>

#include "hetcodec/hetcodec.h"

namespace hetcodec::tools {

struct NvEncodeRates {
  // img/s: host->host (each image copied from pageable host memory, encoded, its bitstream
  // retrieved to the host), device-resident (the images uploaded once), and `streams` encoder
  // states on as many CUDA streams and host threads at once (device-resident). Negative where
  // not measured, with `why`.
  double host = -1, device = -1, batched = -1;
  int streams = 0;
  std::uint64_t bytes = 0;  // the files of one pass over the images
  std::string why;
  std::vector<std::string> notes;  // settings nvJPEG could not follow
};

// nvjpegEncodeImage on `images` (8-bit RGB, NVJPEG_INPUT_RGBI from device memory) with
// nvjpegEncoderParamsSetQuality(quality), SetSamplingFactors(sampling) and
// SetOptimizedHuffman(optimize), each measurement repeated for at least `min_time` seconds after
// a warm-up pass, on the first CUDA device.
NvEncodeRates bench_nvjpeg_encode(const std::vector<const Image*>& images, int quality,
                                  JpegSampling sampling, bool optimize, int streams,
                                  double min_time);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_BENCH_NVJPEG_ENCODE_H
