// libFuzzer target: the PNG encoder's inputs. The first 4 bytes choose the width and height
// (1..64), the format (gray, gray + alpha, RGB, RGBA), the bit depth (8, 16) and the mode
// (parallel, compatible, small); the rest are the samples, cut or padded to the image's size
// unless the fourth byte's top bit asks for them as they are (a wrong size, which must be
// refused). A file written must decode (libpng's rules, our decoder) to the same samples.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hetcodec/hetcodec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  using hetcodec::PixelFormat;
  static const PixelFormat formats[] = {PixelFormat::Gray, PixelFormat::GrayAlpha, PixelFormat::RGB,
                                        PixelFormat::RGBA};
  static const hetcodec::PngMode modes[] = {
      hetcodec::PngMode::Parallel, hetcodec::PngMode::Compatible, hetcodec::PngMode::Small};
  hetcodec::Image im;
  im.width = 1 + data[0] % 64;
  im.height = 1 + data[1] % 64;
  im.format = formats[data[2] % 4];
  im.bit_depth = (data[3] & 1) ? 16 : 8;
  const int mode = (data[3] >> 1) % 3;
  const bool as_is = (data[3] & 0x80) != 0;
  im.pixels.assign(data + 4, data + size);
  if (!as_is) im.pixels.resize(im.bytes(), 0x5a);
  static hetcodec::PngEncoder* encoders[3] = {};
  if (!encoders[mode]) {
    hetcodec::PngEncodeOptions o;
    o.mode = modes[mode];
    o.threads = 1;
    encoders[mode] = new hetcodec::PngEncoder("cpu", o);
  }
  static hetcodec::PngDecoder decoder("cpu");
  std::vector<std::uint8_t> file;
  try {
    file = encoders[mode]->encode(im);
  } catch (const hetcodec::Error&) {
    if (!as_is || im.pixels.size() == im.bytes()) __builtin_trap();  // a good image refused
    return 0;
  }
  if (as_is && im.pixels.size() != im.bytes()) __builtin_trap();  // a wrong size accepted
  const hetcodec::Image back = decoder.decode(file.data(), file.size());
  if (back.pixels != im.pixels || back.format != im.format || back.bit_depth != im.bit_depth)
    __builtin_trap();
  return 0;
}
