// Lossless JPEG outputs of `hetcodec decode` (decode_ljpeg.h): the samples a file of precision P
// decodes to (below 2^P, libjpeg-turbo 3's) kept exact in every format: Netpbm by its maxval,
// PNG by sBIT (PNG 1.2 section 12.5 and 4.2.6).
#include "tools/decode_ljpeg.h"

#include <png.h>

#include <cstdio>

#include "core/jpeg/parser.h"
#include "tools/cli.h"
#include "tools/png_metadata.h"

namespace hetcodec::tools {

int lossless_precision(const std::vector<std::uint8_t>& bytes) {
  try {
    const jpeg::Header h = jpeg::parse_frame(bytes.data(), bytes.size());
    const int m = h.sof_marker;
    return m == 0xC3 || m == 0xC7 || m == 0xCB || m == 0xCF ? h.precision : 0;
  } catch (const Error&) {
    return 0;  // not a JPEG frame header: the decoder says why
  }
}

int netpbm_maxval(const Image& img, int precision) {
  if (precision > 0) return (1 << precision) - 1;
  return img.bit_depth == 16 ? 65535 : 255;
}

namespace {

unsigned sample(const Image& img, std::size_t i) {
  return img.bit_depth == 16 ? unsigned(img.pixels[2 * i]) << 8 | img.pixels[2 * i + 1]
                             : img.pixels[i];
}

void put_sample(std::vector<std::uint8_t>& out, std::size_t i, int bit_depth, unsigned v) {
  if (bit_depth == 16) {
    out[2 * i] = std::uint8_t(v >> 8);
    out[2 * i + 1] = std::uint8_t(v);
  } else {
    out[i] = std::uint8_t(v);
  }
}

// A P-bit sample scaled to `depth` bits by left bit replication: 0 stays 0, 2^P - 1 becomes
// 2^depth - 1, and the top P bits are the sample, so a right shift by depth - P undoes it.
unsigned replicate(unsigned v, int precision, int depth) {
  unsigned out = v << (depth - precision);
  for (int filled = precision; filled < depth; filled *= 2) out |= out >> filled;
  return out;
}

}  // namespace

std::vector<std::uint8_t> cmyk_as_rgb(const Image& img, int maxval) {
  const std::size_t pixels = std::size_t(img.width) * std::size_t(img.height);
  const std::size_t bps = std::size_t(img.bit_depth / 8);
  std::vector<std::uint8_t> rgb(pixels * 3 * bps);
  for (std::size_t i = 0; i < pixels; ++i) {
    const double k = sample(img, 4 * i + 3);
    for (std::size_t c = 0; c < 3; ++c)
      put_sample(rgb, 3 * i + c, img.bit_depth,
                 unsigned(double(sample(img, 4 * i + c)) * k / double(maxval) + 0.5));
  }
  return rgb;
}

void write_lossless_png(const std::string& path, const Image& img, int precision) {
  const bool cmyk = img.format == PixelFormat::CMYK;
  const int channels = cmyk ? 3 : img.channels();
  const int depth = img.bit_depth;
  Image src;
  const Image* from = &img;
  if (cmyk) {
    src.width = img.width;
    src.height = img.height;
    src.format = PixelFormat::RGB;
    src.bit_depth = depth;
    src.pixels = cmyk_as_rgb(img, (1 << precision) - 1);
    from = &src;
  }
  std::vector<std::uint8_t> px(from->pixels.size());
  for (std::size_t i = 0; i < px.size() / std::size_t(depth / 8); ++i)
    put_sample(px, i, depth, replicate(sample(*from, i), precision, depth));

  write_png_with_libpng(path, img.width, img.height, channels, depth, precision, px, img.metadata);
}

Image decode_with_row_table(JpegDecoder& decoder, const std::vector<std::uint8_t>& bytes,
                            const RowTableFiles& files, std::string* row_table) {
  // Errors about a sidecar name it; those about the JPEG file are the decoder's own.
  auto naming = [](const std::string& path, const Error& e) {
    std::string what = e.what();
    if (what.compare(0, 7, "ljpeg: ") == 0) what.erase(0, 7);
    return Error(e.code(), path + ": " + what);
  };
  if (!files.write.empty())
    write_bytes(files.write, "", decoder.lossless_row_table(bytes.data(), bytes.size()));
  std::vector<std::uint64_t> table;
  if (!files.read.empty()) {
    const std::vector<std::uint8_t> sidecar = read_all(files.read);
    try {
      table = decoder.read_lossless_row_table(bytes.data(), bytes.size(), sidecar.data(),
                                              sidecar.size());
    } catch (const Error& e) {
      if (e.code() != ErrorCode::InvalidArgument) throw;
      throw naming(files.read, e);
    }
  }
  LosslessReport report;
  try {
    Image img = decoder.decode_lossless(bytes.data(), bytes.size(),
                                        files.read.empty() ? nullptr : &table, &report);
    if (row_table) *row_table = report.row_table;
    return img;
  } catch (const Error& e) {
    // The decoder's only InvalidArgument for a file it reads is a table entry it refuses.
    if (e.code() != ErrorCode::InvalidArgument || files.read.empty()) throw;
    throw naming(files.read, e);
  }
}

}  // namespace hetcodec::tools
