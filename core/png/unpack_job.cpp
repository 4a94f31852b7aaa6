// The device job of a PNG decode (see reader.h): the passes of the filtered data (the whole
// image, or Adam7's seven) and the unpack job core/portable/png_decode.h reads.
#include <cstddef>

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

// The record's layout is the same in C++, CUDA and OpenCL C only if no field is padded.
static_assert(sizeof(hc_png_pass) == 7 * 4, "hc_png_pass: seven 32-bit words");
static_assert(offsetof(hc_png_job, key) == 7 * 4 && offsetof(hc_png_job, pass) == 10 * 4 &&
                  offsetof(hc_png_job, palette) == 60 * 4 && sizeof(hc_png_job) == HC_PNG_JOB_BYTES,
              "hc_png_job: the layout the kernels read");

hc_png_job unpack_job(const Info& info) {
  hc_png_job job{};
  job.width = info.width;
  job.height = info.height;
  job.color = std::uint32_t(info.color_type);
  job.depth = std::uint32_t(info.bit_depth);
  job.out_channels = std::uint32_t(info.out_channels());
  job.interlace = std::uint32_t(info.interlace);
  const std::uint32_t mask = info.bit_depth == 16 ? 0xFFFFu : (1u << info.bit_depth) - 1u;
  if (!info.trns.empty() && info.color_type != kPalette) {
    job.trns = 1;
    // libpng compares the key masked to the depth (png_do_expand).
    for (int k = 0; k < info.samples_per_pixel(); ++k)
      job.key[k] = ((std::uint32_t(info.trns[2 * std::size_t(k)]) << 8) |
                    info.trns[2 * std::size_t(k) + 1]) &
                   mask;
  }
  const auto ps = passes(info);
  for (std::size_t p = 0; p < ps.size(); ++p)
    job.pass[p] = {ps[p].x0,
                   ps[p].y0,
                   ps[p].dx,
                   ps[p].dy,
                   ps[p].width,
                   ps[p].row_bytes,
                   std::uint32_t(ps[p].offset)};
  for (std::size_t i = 0; i < 256; ++i) {
    if (i < info.palette.size())
      for (int k = 0; k < 3; ++k)
        job.palette[4 * i + std::size_t(k)] = info.palette[i][std::size_t(k)];
    job.palette[4 * i + 3] =
        info.color_type == kPalette && i < info.trns.size() ? info.trns[i] : 255;
  }
  return job;
}

}  // namespace hetcodec::png
