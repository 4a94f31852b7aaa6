// The reference PNG decode on the calling thread (see reader.h): the de-filter of each pass and
// the unpacking of its samples (through the device's own per-pixel code,
// core/portable/png_decode.h), which the device stages are checked against.
#include "core/error.h"
#include "core/png/reader.h"
#include "core/portable/png_decode.h"

namespace hetcodec::png {

void bad_filter_type(std::uint32_t row, unsigned type, bool adam7) {
  throw Error(ErrorCode::InvalidData, "png: image row " + std::to_string(row) +
                                          (adam7 ? " of an Adam7 pass" : "") + " has filter type " +
                                          std::to_string(type) + " (0 to 4 exist)");
}

void defilter(std::uint8_t* rows, std::uint32_t height, std::uint32_t row_bytes,
              std::uint32_t bpp) {
  const std::size_t stride = std::size_t(row_bytes) + 1;
  for (std::uint32_t y = 0; y < height; ++y) {
    std::uint8_t* r = rows + y * stride;
    const int type = r[0];
    if (type > 4) bad_filter_type(y, unsigned(type));
    std::uint8_t* cur = r + 1;
    const std::uint8_t* up = y ? cur - stride : nullptr;
    for (std::uint32_t i = 0; i < row_bytes; ++i) {
      const int a = i >= bpp ? cur[i - bpp] : 0;
      const int b = up ? up[i] : 0;
      const int c = (up && i >= bpp) ? up[i - bpp] : 0;
      cur[i] = hc_png_unfilter_byte(type, cur[i], a, b, c);
    }
  }
}

Raster unpack(const Info& info, const std::vector<std::uint8_t>& defiltered) {
  Raster im;
  im.width = int(info.width);
  im.height = int(info.height);
  im.channels = info.out_channels();
  im.bit_depth = info.out_depth();
  im.samples.resize(im.row_bytes() * std::size_t(im.height));
  const hc_png_job job = unpack_job(info);
  const std::size_t px_bytes = std::size_t(im.channels) * std::size_t(im.bit_depth / 8);
  for (std::uint32_t y = 0; y < info.height; ++y)
    for (std::uint32_t x = 0; x < info.width; ++x)
      hc_png_unpack_pixel(defiltered.data(), &job, x, y,
                          im.samples.data() + (std::size_t(y) * info.width + x) * px_bytes);
  return im;
}

Raster decode(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits,
              std::vector<std::string>& warnings) {
  const Info info = parse(data, size, limits);
  warnings.insert(warnings.end(), info.warnings.begin(), info.warnings.end());
  std::vector<std::uint8_t> rows(inflated_bytes(info));
  inflate_image(data, info, rows.data(), warnings);
  for (const Pass& p : passes(info))
    if (p.width && p.height)
      defilter(rows.data() + p.offset, p.height, p.row_bytes, info.filter_bpp());
  return unpack(info, rows);
}

}  // namespace hetcodec::png
