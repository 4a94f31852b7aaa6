// libFuzzer target: JPEG files of every coding process the decoder takes (baseline, extended,
// progressive, arithmetic, lossless, 12-bit), through the parser, the CPU entropy stage and the
// CPU reference pipeline: info(), then decode() whole, scaled 1/2 and cropped. Any Error is a
// correct answer; a crash, a sanitizer report, a hang or an allocation past the limit is not.
#include <cstddef>
#include <cstdint>

#include "hetcodec/hetcodec.h"

namespace {

hetcodec::JpegDecodeOptions limited(int denom) {
  hetcodec::JpegDecodeOptions o;
  o.max_pixels = std::uint64_t(1) << 22;  // (the fuzzer's memory limit, not the library's)
  o.threads = 1;
  o.scale_denom = denom;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static hetcodec::JpegDecoder whole("cpu", limited(1)), half("cpu", limited(2));
  try {
    const hetcodec::ImageInfo info = whole.info(data, size);
    const hetcodec::Image image = whole.decode(data, size);
    if (image.width != info.width || image.height != info.height) __builtin_trap();
    half.decode(data, size);
    hetcodec::Input crop{
        data, size, {info.width / 4, info.height / 3, info.width / 2 + 1, info.height / 2 + 1}};
    whole.decode(crop);
  } catch (const hetcodec::Error&) {
  }
  return 0;
}
