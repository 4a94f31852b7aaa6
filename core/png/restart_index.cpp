// The segment indexes a PNG file may carry (see reader.h): our hcRS chunk (docs/png-parallel.md)
// and Apple's iDOT chunk (docs/png-decode.md), each checked against the image and its IDAT
// chunks, and the segment table the device inflate reads (core/portable/png_inflate.h).
#include "core/png/reader.h"
#include "core/png/reader_parts.h"
#include "core/portable/png_inflate.h"

namespace hetcodec::png {

std::vector<std::pair<std::uint32_t, std::uint64_t>> hcrs_segments(const Info& info) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> seg;
  if (info.interlace) return seg;
  for (const Chunk& c : info.ancillary) {
    if (c.type != "hcRS") continue;
    const auto& d = c.data;
    if (d.size() < 6 || d[0] != 1) return seg;
    const std::uint32_t n = be32(d.data() + 2);
    if (n == 0 || std::uint64_t(n) * 8 + 6 != d.size()) return seg;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t row = be32(d.data() + 6 + 8 * std::size_t(k));
      const std::uint32_t off = be32(d.data() + 10 + 8 * std::size_t(k));
      if (k == 0 ? (row != 0 || off != 2) : (row <= seg.back().first || off <= seg.back().second))
        return {};
      if (row >= info.height || off >= info.idat_bytes) return {};
      seg.emplace_back(row, off);
    }
    return seg;
  }
  return seg;
}

std::vector<std::pair<std::uint32_t, std::uint64_t>> idot_segments(const Info& info) {
  // uint32 count, then per segment uint32 first row, row count and the offset of its first
  // IDAT chunk from the iDOT chunk's length field, all big-endian as every PNG integer.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> seg;
  if (info.interlace) return seg;
  for (const Chunk& c : info.ancillary) {
    if (c.type != "iDOT") continue;
    const auto& d = c.data;
    if (d.size() < 4) return seg;
    const std::uint32_t n = be32(d.data());
    if (n == 0 || std::uint64_t(n) * 12 + 4 != d.size()) return seg;
    std::uint64_t next_row = 0, joined = 0;
    std::size_t j = 0;  // the IDAT chunk looked at, and `joined` the data before it
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint8_t* e = d.data() + 4 + 12 * std::size_t(k);
      const std::uint32_t row = be32(e), rows = be32(e + 4);
      const std::uint64_t at = std::uint64_t(c.offset) + be32(e + 8);  // an IDAT's length field
      if (row != next_row || rows == 0) return {};
      next_row += rows;
      while (j < info.idat.size() && info.idat[j].first - 8 < at) joined += info.idat[j++].second;
      if (j == info.idat.size() || info.idat[j].first - 8 != at || (k == 0) != (j == 0)) return {};
      seg.emplace_back(row, k == 0 ? 2 : joined);  // the first segment starts after the zlib header
      if (k > 0 && seg[k].second <= seg[k - 1].second) return {};
    }
    if (next_row != info.height) return {};
    return seg;
  }
  return seg;
}

std::vector<std::pair<std::uint32_t, std::uint64_t>> restart_segments(const Info& info,
                                                                      std::string* kind) {
  auto seg = hcrs_segments(info);
  const char* k = "hcRS";
  if (seg.empty()) {
    seg = idot_segments(info);
    k = "iDOT";
  }
  if (kind) *kind = seg.empty() ? "" : k;
  return seg;
}

std::vector<std::uint32_t> inflate_table(const Info& info) {
  const auto seg = restart_segments(info);
  if (seg.empty() || info.idat_bytes < 6 || info.idat_bytes > 0xFFFFFFFFull ||
      inflated_bytes(info) > 0xFFFFFFFFull)
    return {};
  const std::uint64_t rb = passes(info)[0].row_bytes + 1u;
  std::vector<std::uint32_t> table(seg.size() * HC_INF_WORDS);
  for (std::size_t k = 0; k < seg.size(); ++k) {
    const bool last = k + 1 == seg.size();
    const std::uint64_t in0 = seg[k].second;
    const std::uint64_t in1 = last ? info.idat_bytes - 4 : seg[k + 1].second;  // less the Adler-32
    const std::uint64_t row1 = last ? info.height : seg[k + 1].first;
    if (in1 <= in0) return {};
    std::uint32_t* w = table.data() + k * HC_INF_WORDS;
    w[HC_INF_IN] = std::uint32_t(in0);
    w[HC_INF_IN_LEN] = std::uint32_t(in1 - in0);
    w[HC_INF_OUT] = std::uint32_t(seg[k].first * rb);
    w[HC_INF_OUT_LEN] = std::uint32_t((row1 - seg[k].first) * rb);
    w[HC_INF_ROW] = std::uint32_t(rb);
    w[HC_INF_LAST] = last ? 1u : 0u;
  }
  return table;
}

}  // namespace hetcodec::png
