// libFuzzer target: lossless JPEG (SOF3) through decode_lossless without a row table (the row
// starts from restart markers or found by the pre-pass over the codes) and the CPU reference's
// residual and reconstruction stages. Any Error is a correct answer; a crash, a sanitizer
// report, a hang or an allocation past the limit is not.
#include <cstddef>
#include <cstdint>

#include "hetcodec/hetcodec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static hetcodec::JpegDecoder decoder("cpu", [] {
    hetcodec::JpegDecodeOptions o;
    o.max_pixels = std::uint64_t(1) << 22;  // (the fuzzer's memory limit, not the library's)
    o.threads = 2;
    return o;
  }());
  try {
    decoder.decode_lossless(data, size);
  } catch (const hetcodec::Error&) {
  }
  return 0;
}
