// libFuzzer target: PNG files through the chunk reader, inflate (whole-stream, split at block
// starts, and by a segment index) and the CPU reference de-filter and unpacking: info(), then
// decode(). Any Error is a correct answer; a crash, a sanitizer report, a hang or an allocation
// past the limits is not.
#include <cstddef>
#include <cstdint>

#include "hetcodec/hetcodec.h"

namespace {

hetcodec::PngDecodeOptions limited(std::size_t overlap, int threads) {
  hetcodec::PngDecodeOptions o;
  o.max_pixels = std::uint64_t(1) << 22;  // (the fuzzer's memory limit, not the library's)
  o.max_inflated_bytes = std::uint64_t(1) << 26;
  o.threads = threads;
  o.overlap_bytes = overlap;
  o.ignore_crc = true;  // (a warning: else nearly every mutation stops at the CRC check)
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static hetcodec::PngDecoder whole("cpu", limited(0, 2)), pieces("cpu", limited(4096, 4));
  try {
    const hetcodec::ImageInfo info = whole.info(data, size);
    const hetcodec::Image image = whole.decode(data, size);
    if (image.width != info.width || image.height != info.height) __builtin_trap();
    pieces.decode(data, size);
  } catch (const hetcodec::Error&) {
  }
  return 0;
}
