// The device job of a PNG decode (see reader.h): the passes of the filtered data (the whole
// image, or Adam7's seven) and the unpack job core/portable/png_decode.h reads.
#include "core/png/reader.h"
#include "core/png/reader_parts.h"
#include "core/portable/png_decode.h"

namespace hetcodec::png {

std::vector<Pass> passes(const Info& info) {
  std::vector<Pass> out;
  const std::uint64_t bits = info.bits_per_pixel();
  auto add = [&](std::uint32_t x0, std::uint32_t y0, std::uint32_t dx, std::uint32_t dy,
                 std::uint64_t& offset) {
    Pass p;
    p.x0 = x0, p.y0 = y0, p.dx = dx, p.dy = dy;
    p.width = info.width > x0 ? (info.width - x0 + dx - 1) / dx : 0;
    p.height = info.height > y0 ? (info.height - y0 + dy - 1) / dy : 0;
    p.row_bytes = std::uint32_t((std::uint64_t(p.width) * bits + 7) / 8);
    p.offset = offset;
    if (p.width && p.height) offset += std::uint64_t(p.height) * (p.row_bytes + 1u);
    out.push_back(p);
  };
  std::uint64_t offset = 0;
  if (info.interlace == 0) {
    add(0, 0, 1, 1, offset);
  } else {
    add(0, 0, 8, 8, offset);
    add(4, 0, 8, 8, offset);
    add(0, 4, 4, 8, offset);
    add(2, 0, 4, 4, offset);
    add(0, 2, 2, 4, offset);
    add(1, 0, 2, 2, offset);
    add(0, 1, 1, 2, offset);
  }
  return out;
}

std::uint64_t inflated_bytes(const Info& info) {
  std::uint64_t n = 0;
  for (const Pass& p : passes(info))
    if (p.width && p.height) n += std::uint64_t(p.height) * (p.row_bytes + 1u);
  return n;
}

std::vector<std::uint32_t> unpack_job(const Info& info) {
  std::vector<std::uint32_t> job(HC_PNG_JOB_BYTES / 4, 0);
  job[HC_PNG_W] = info.width;
  job[HC_PNG_H] = info.height;
  job[HC_PNG_COLOR] = std::uint32_t(info.color_type);
  job[HC_PNG_DEPTH] = std::uint32_t(info.bit_depth);
  job[HC_PNG_OUT_CH] = std::uint32_t(info.out_channels());
  job[HC_PNG_INTERLACE] = std::uint32_t(info.interlace);
  const std::uint32_t mask = info.bit_depth == 16 ? 0xFFFFu : (1u << info.bit_depth) - 1u;
  if (!info.trns.empty() && info.color_type != kPalette) {
    job[HC_PNG_TRNS] = 1;
    // libpng compares the key masked to the depth (png_do_expand).
    for (int k = 0; k < info.samples_per_pixel(); ++k)
      job[HC_PNG_KEY + k] = be32(std::vector<std::uint8_t>{0, 0, info.trns[2 * std::size_t(k)],
                                                           info.trns[2 * std::size_t(k) + 1]}
                                     .data()) & mask;
  }
  const auto ps = passes(info);
  for (std::size_t p = 0; p < ps.size(); ++p) {
    std::uint32_t* w = job.data() + HC_PNG_PASS + HC_PNG_PASS_WORDS * p;
    w[0] = ps[p].x0, w[1] = ps[p].y0, w[2] = ps[p].dx, w[3] = ps[p].dy;
    w[4] = ps[p].width, w[5] = ps[p].row_bytes, w[6] = std::uint32_t(ps[p].offset);
  }
  auto* pal = reinterpret_cast<std::uint8_t*>(job.data() + HC_PNG_PARAMS);
  for (std::size_t i = 0; i < 256; ++i) {
    if (i < info.palette.size())
      for (int k = 0; k < 3; ++k) pal[4 * i + std::size_t(k)] = info.palette[i][std::size_t(k)];
    pal[4 * i + 3] = info.color_type == kPalette && i < info.trns.size() ? info.trns[i] : 255;
  }
  return job;
}

}  // namespace hetcodec::png
