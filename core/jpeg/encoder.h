// A baseline JPEG encoder on the CPU whose files equal libjpeg-turbo's byte for byte (jccolor.c,
// jcsample.c, jcprepct.c, jfdctint.c, jcdctmgr.c, jchuff.c, jcmarker.c with jpeg_set_defaults
// and jpeg_set_quality(q, TRUE)): the reference the device encoder is held to.
#ifndef HETCODEC_CORE_JPEG_ENCODER_H
#define HETCODEC_CORE_JPEG_ENCODER_H

#include <cstdint>
#include <vector>

namespace hetcodec::jpeg {

struct EncodeOptions {
  int quality = 75;          // 1..100, jpeg_set_quality with force_baseline
  int h = 2, v = 2;          // the luma component's sampling factors (chroma 1x1)
  int restart_interval = 0;  // MCUs per restart interval, 0: none
};

// `channels` 3 (RGB, coded as YCbCr) or 1 (gray), 8-bit samples, rows without padding.
std::vector<std::uint8_t> encode_reference(const std::uint8_t* pixels, int width, int height,
                                           int channels, const EncodeOptions& options);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_ENCODER_H
