// The PNG chunk parser, inflate and the reference de-filter and unpacking (see reader.h). The
// checks follow the PNG specification (third edition) and libpng 1.6's reading rules.
#include "core/png/reader.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>

#include "core/error.h"
#include "core/png/checksum.h"
#include "core/portable/png_decode.h"
#include "core/portable/png_inflate.h"

#if defined(HETCODEC_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

namespace hetcodec::png {
namespace {

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "png: byte " + std::to_string(at) + ": " + what);
}

std::uint32_t be32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

bool is_letter(std::uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

const std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

bool valid_depth(int color_type, int depth) {
  switch (color_type) {
    case kGray: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case kPalette: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case kRgb: case kGrayAlpha: case kRgba: return depth == 8 || depth == 16;
    default: return false;
  }
}

// Inflates `in` (pieces of one zlib stream, or of raw deflate with window_bits < 0) into at most
// out_size bytes at `out`.
struct InflateResult {
  std::size_t produced = 0;
  bool ended = false;      // the stream's end was reached
  bool left_over = false;  // it would produce more than out_size bytes
  bool trailing = false;   // input bytes follow the stream's end
  bool bad = false;        // damaged data (message says how)
  std::string message;
};

InflateResult inflate_chunks(const std::vector<std::pair<const std::uint8_t*, std::size_t>>& in,
                             std::uint8_t* out, std::size_t out_size, int window_bits) {
  InflateResult r;
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) throw Error(ErrorCode::OutOfMemory, "png: zlib init");
  std::size_t done = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (r.ended) {
      if (in[i].second) r.trailing = true;
      continue;
    }
    z.next_in = const_cast<Bytef*>(in[i].first);
    z.avail_in = uInt(in[i].second);  // a chunk holds at most 2^31 - 1 bytes
    while (z.avail_in > 0) {
      std::uint8_t spare[64];
      const bool past = done == out_size;  // the image is complete: anything more is extra
      z.next_out = past ? spare : out + done;
      z.avail_out = past ? uInt(sizeof spare) : uInt(std::min<std::size_t>(out_size - done, 1u << 30));
      const uInt before = z.avail_out;
      const int rc = inflate(&z, Z_NO_FLUSH);
      const std::size_t made = before - z.avail_out;
      if (past && made) {
        r.left_over = true;
        break;
      }
      if (!past) done += made;
      if (rc == Z_STREAM_END) {
        r.ended = true;
        if (z.avail_in) r.trailing = true;
        break;
      }
      if (rc != Z_OK) {
        r.bad = rc != Z_BUF_ERROR;
        r.message = z.msg ? z.msg : "inflate error " + std::to_string(rc);
        break;
      }
    }
    if (r.left_over || r.bad) break;
  }
  r.produced = done;
  inflateEnd(&z);
  return r;
}

}  // namespace

int Info::samples_per_pixel() const {
  switch (color_type) {
    case kRgb: return 3;
    case kGrayAlpha: return 2;
    case kRgba: return 4;
    default: return 1;
  }
}

std::uint32_t Info::bits_per_pixel() const { return std::uint32_t(samples_per_pixel() * bit_depth); }

std::uint32_t Info::filter_bpp() const { return std::max<std::uint32_t>(1, bits_per_pixel() / 8); }

int Info::out_channels() const {
  const bool key = !trns.empty();
  switch (color_type) {
    case kGray: return key ? 2 : 1;
    case kRgb: return key ? 4 : 3;
    case kPalette: return key ? 4 : 3;
    case kGrayAlpha: return 2;
    default: return 4;
  }
}

Info parse(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  Info info;
  if (size == 0) invalid(0, "empty input");
  if (size < 8 || std::memcmp(data, kSignature, 8) != 0) {
    // The signature's CR LF, LF and 0x1A catch text-mode transfers (PNG spec 5.2).
    if (size >= 4 && data[0] == 0x89 && data[1] == 'P' && data[2] == 'N' && data[3] == 'G')
      invalid(0, "corrupted PNG signature (altered by a text-mode transfer or truncated)");
    invalid(0, "not a PNG file (bad signature)");
  }
  std::size_t at = 8;
  bool seen_ihdr = false, seen_plte = false, seen_iend = false, idat_done = false;
  bool in_idat = false;
  while (at < size) {
    if (size - at < 12) invalid(at, "truncated chunk header (" + std::to_string(size - at) + " bytes left)");
    const std::uint32_t len = be32(data + at);
    const std::uint8_t* type = data + at + 4;
    const std::string name(reinterpret_cast<const char*>(type), 4);
    if (!is_letter(type[0]) || !is_letter(type[1]) || !is_letter(type[2]) || !is_letter(type[3]))
      invalid(at, "invalid chunk type (bytes " + std::to_string(type[0]) + " " +
                      std::to_string(type[1]) + " " + std::to_string(type[2]) + " " +
                      std::to_string(type[3]) + ")");
    if (len > 0x7FFFFFFFu) invalid(at, name + " chunk length " + std::to_string(len) + " exceeds 2^31 - 1");
    if (std::uint64_t(len) + 12 > size - at)
      invalid(at, name + " chunk of " + std::to_string(len) + " bytes runs past the end of the file");
    const std::uint8_t* body = data + at + 8;
    const std::uint32_t crc = crc32(crc32(0, type, 4), body, len);
    if (crc != be32(body + len)) {
      if (!limits.ignore_crc) invalid(at, name + " chunk CRC mismatch (the chunk is damaged)");
      info.warnings.push_back("png: byte " + std::to_string(at) + ": " + name +
                              " chunk CRC mismatch, ignored");
    }
    const bool critical = !(type[0] & 0x20);
    if (!seen_ihdr && name != "IHDR") invalid(at, "the first chunk is " + name + ", not IHDR");
    if (seen_iend) {
      info.warnings.push_back("png: byte " + std::to_string(at) + ": data after IEND ignored");
      break;
    }
    if (in_idat && name != "IDAT") {
      in_idat = false;
      idat_done = true;
    }
    if (name == "IHDR") {
      if (seen_ihdr) invalid(at, "a second IHDR chunk");
      if (len != 13) invalid(at, "IHDR length " + std::to_string(len) + " (must be 13)");
      seen_ihdr = true;
      info.width = be32(body);
      info.height = be32(body + 4);
      info.bit_depth = body[8];
      info.color_type = body[9];
      info.interlace = body[12];
      if (info.width == 0 || info.height == 0 || info.width > 0x7FFFFFFFu || info.height > 0x7FFFFFFFu)
        invalid(at, "image size " + std::to_string(info.width) + "x" + std::to_string(info.height) +
                        " (each side must be 1 to 2^31 - 1)");
      if (info.color_type != kGray && info.color_type != kRgb && info.color_type != kPalette &&
          info.color_type != kGrayAlpha && info.color_type != kRgba)
        invalid(at, "invalid colour type " + std::to_string(info.color_type));
      if (!valid_depth(info.color_type, info.bit_depth))
        invalid(at, "invalid bit depth " + std::to_string(info.bit_depth) + " for colour type " +
                        std::to_string(info.color_type));
      if (body[10] != 0) invalid(at, "unknown compression method " + std::to_string(body[10]));
      if (body[11] != 0) invalid(at, "unknown filter method " + std::to_string(body[11]));
      if (info.interlace > 1) invalid(at, "unknown interlace method " + std::to_string(info.interlace));
      const std::uint64_t pixels = std::uint64_t(info.width) * info.height;
      if (pixels > limits.max_pixels)
        throw Error(ErrorCode::LimitExceeded,
                    "png: " + std::to_string(info.width) + "x" + std::to_string(info.height) +
                        " is " + std::to_string(pixels) + " pixels, over the limit of " +
                        std::to_string(limits.max_pixels));
      if (inflated_bytes(info) > limits.max_inflated_bytes)
        throw Error(ErrorCode::LimitExceeded,
                    "png: the image data inflates to " + std::to_string(inflated_bytes(info)) +
                        " bytes, over the limit of " + std::to_string(limits.max_inflated_bytes));
    } else if (name == "PLTE") {
      if (seen_plte) invalid(at, "a second PLTE chunk");
      if (idat_done || in_idat) invalid(at, "PLTE after the image data");
      if (info.color_type == kGray || info.color_type == kGrayAlpha)
        invalid(at, "PLTE in a grayscale image");
      if (len % 3 != 0 || len == 0 || len > 768)
        invalid(at, "PLTE length " + std::to_string(len) + " (must be 3 to 768, a multiple of 3)");
      seen_plte = true;
      if (info.color_type == kPalette) {
        const std::uint32_t n = len / 3;
        if (n > (1u << info.bit_depth))
          invalid(at, "a palette of " + std::to_string(n) + " entries for a " +
                          std::to_string(info.bit_depth) + "-bit image");
        info.palette.resize(n);
        for (std::uint32_t i = 0; i < n; ++i)
          for (int k = 0; k < 3; ++k) info.palette[i][std::size_t(k)] = body[3 * i + std::uint32_t(k)];
      }
    } else if (name == "IDAT") {
      if (idat_done) invalid(at, "IDAT chunks that are not consecutive");
      if (info.color_type == kPalette && !seen_plte) invalid(at, "a palette image without PLTE before its data");
      in_idat = true;
      info.idat.emplace_back(at + 8, len);
      info.idat_bytes += len;
    } else if (name == "IEND") {
      seen_iend = true;
    } else if (critical) {
      invalid(at, "unknown critical chunk " + name);
    } else if (name == "tRNS") {
      if (in_idat || idat_done) {
        info.warnings.push_back("png: tRNS after the image data ignored");
      } else if (info.color_type == kGrayAlpha || info.color_type == kRgba) {
        info.warnings.push_back("png: tRNS in an image with an alpha channel ignored");
      } else if (info.color_type == kPalette && !seen_plte) {
        info.warnings.push_back("png: tRNS before PLTE ignored");
      } else if ((info.color_type == kGray && len != 2) || (info.color_type == kRgb && len != 6) ||
                 (info.color_type == kPalette && (len == 0 || len > info.palette.size()))) {
        info.warnings.push_back("png: tRNS of invalid length " + std::to_string(len) + " ignored");
      } else {
        info.trns.assign(body, body + len);
      }
    } else if (len > limits.max_chunk_bytes) {
      info.warnings.push_back("png: byte " + std::to_string(at) + ": " + name + " chunk of " +
                              std::to_string(len) + " bytes over the limit of " +
                              std::to_string(limits.max_chunk_bytes) + ", skipped");
    } else {
      info.ancillary.push_back({name, at, std::vector<std::uint8_t>(body, body + len)});
    }
    at += 12 + std::size_t(len);
  }
  if (!seen_ihdr) invalid(8, "no IHDR chunk");
  if (info.idat.empty()) invalid(at, "no image data (IDAT chunk)");
  if (!seen_iend) info.warnings.push_back("png: no IEND chunk (the file may be truncated)");
  return info;
}

std::vector<std::pair<std::string, std::string>> text_chunks(const Info& info,
                                                             const DecodeLimits& limits,
                                                             std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Chunk& c : info.ancillary) {
    if (c.type != "tEXt" && c.type != "zTXt" && c.type != "iTXt") continue;
    const auto& d = c.data;
    const auto nul = std::find(d.begin(), d.end(), 0);
    if (nul == d.end() || nul == d.begin()) {
      warnings.push_back("png: " + c.type + " chunk at byte " + std::to_string(c.offset) + " without a keyword");
      continue;
    }
    std::string key(d.begin(), nul);
    std::size_t p = std::size_t(nul - d.begin()) + 1;
    bool compressed = c.type == "zTXt";
    if (c.type == "zTXt") {
      ++p;  // compression method
    } else if (c.type == "iTXt") {
      if (p + 2 > d.size()) continue;
      compressed = d[p] != 0;
      p += 2;
      for (int k = 0; k < 2; ++k) {  // language tag, translated keyword
        const auto z = std::find(d.begin() + std::ptrdiff_t(std::min(p, d.size())), d.end(), 0);
        p = std::size_t(z - d.begin()) + 1;
      }
    }
    if (p > d.size()) continue;
    if (!compressed) {
      out.emplace_back(key, std::string(d.begin() + std::ptrdiff_t(p), d.end()));
      continue;
    }
    std::vector<std::uint8_t> text(std::size_t(limits.max_text_bytes));
    const auto r = inflate_chunks({{d.data() + p, d.size() - p}}, text.data(), text.size(), 15);
    if (r.bad || !r.ended || r.left_over) {  // a text over the limit is not kept in part
      warnings.push_back("png: " + c.type + " \"" + key + "\" at byte " + std::to_string(c.offset) +
                         (r.left_over ? " inflates past the text limit of " +
                                            std::to_string(limits.max_text_bytes) + " bytes"
                                      : " does not inflate") +
                         ", skipped");
      continue;
    }
    out.emplace_back(key, std::string(text.begin(), text.begin() + std::ptrdiff_t(r.produced)));
  }
  return out;
}

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

SegmentInflater::SegmentInflater(const std::uint8_t* data, const Info& info)
    : data_(data), idat_bytes_(info.idat_bytes), height_(info.height) {
  seg_ = restart_segments(info, &kind_);
  if (seg_.size() < 2 || info.idat_bytes < 6) {
    seg_.clear();
    return;
  }
  row_bytes_ = passes(info)[0].row_bytes + 1u;
  std::uint64_t at = 0;
  for (const auto& [off, len] : info.idat) {
    idat_.emplace_back(off, len);
    idat_at_.push_back(at);
    at += len;
  }
  adler_.assign(seg_.size(), 1);
}

std::vector<std::pair<const std::uint8_t*, std::size_t>> SegmentInflater::range(std::uint64_t from,
                                                                                std::uint64_t to) const {
  std::vector<std::pair<const std::uint8_t*, std::size_t>> r;
  std::size_t c = std::size_t(std::upper_bound(idat_at_.begin(), idat_at_.end(), from) - idat_at_.begin()) - 1;
  for (; from < to && c < idat_.size(); ++c) {
    const std::uint64_t end = idat_at_[c] + idat_[c].second, stop = std::min(end, to);
    if (stop > from) r.emplace_back(data_ + idat_[c].first + (from - idat_at_[c]), std::size_t(stop - from));
    from = stop;
  }
  return r;
}

bool SegmentInflater::inflate(std::size_t k, std::uint8_t* out) {
  const std::size_t n = seg_.size();
  const bool last = k + 1 == n;
  // Each segment is raw deflate from its offset to the next one's and ends on a sync flush; the
  // last one ends the stream, and the 4-byte Adler-32 follows it.
  const std::uint64_t in0 = seg_[k].second, in1 = last ? idat_bytes_ : seg_[k + 1].second;
  const std::uint64_t o0 = std::uint64_t(first_row(k)) * row_bytes_, o1 = std::uint64_t(end_row(k)) * row_bytes_;
  if (in1 <= in0 || (last && in1 - in0 < 4)) return false;
  bool good;
#if defined(HETCODEC_HAVE_LIBDEFLATE)
  // libdeflate stops only at a final block: a middle segment (which ends on a byte boundary after
  // its sync flush) gets one appended, an empty fixed-Huffman block (bits 1, 01, then the 7-bit
  // end-of-block code: bytes 03 00).
  thread_local std::vector<std::uint8_t> piece;
  piece.clear();
  for (const auto& [p, len] : range(in0, last ? in1 - 4 : in1)) piece.insert(piece.end(), p, p + len);
  if (!last) piece.insert(piece.end(), {0x03, 0x00});
  thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  std::size_t in_used = 0, produced = 0;
  good = d &&
         libdeflate_deflate_decompress_ex(d.get(), piece.data(), piece.size(), out + o0,
                                          std::size_t(o1 - o0), &in_used,
                                          &produced) == LIBDEFLATE_SUCCESS &&
         produced == o1 - o0 && in_used == piece.size();
  if (piece.capacity() > (std::size_t(16) << 20)) std::vector<std::uint8_t>().swap(piece);
#else
  // A middle segment consumes all its input without ending the stream; the last one ends it.
  const auto r = inflate_chunks(range(in0, in1), out + o0, std::size_t(o1 - o0), -15);
  good = !(r.bad || r.left_over || r.produced != o1 - o0 || (!last && r.ended) || (last && !r.ended));
#endif
  if (good) adler_[k] = adler32(1, out + o0, std::size_t(o1 - o0));
  return good;
}

bool SegmentInflater::check() const {
  std::uint8_t stored[4];
  std::size_t at = 0;
  for (const auto& [p, len] : range(idat_bytes_ - 4, idat_bytes_)) {
    std::memcpy(stored + at, p, len);
    at += len;
  }
  std::uint32_t a = adler_[0];
  for (std::size_t k = 1; k < seg_.size(); ++k)
    a = adler32_combine(a, adler_[k], std::uint64_t(end_row(k) - first_row(k)) * row_bytes_);
  return at == 4 && a == be32(stored);
}

void inflate_image(const std::uint8_t* data, const Info& info, std::uint8_t* out,
                   std::vector<std::string>& warnings, int threads, bool* used_index,
                   const ParallelRun& run, int* split_pieces) {
  const std::uint64_t total = inflated_bytes(info);
  if (used_index) *used_index = false;
  if (split_pieces) *split_pieces = 0;
  if (threads > 1) {
    SegmentInflater segments(data, info);
    if (segments.size()) {
      std::atomic<bool> ok{true};
      run_tasks(int(segments.size()), threads, run, [&](int k) {
        if (ok && !segments.inflate(std::size_t(k), out)) ok = false;
      });
      if (ok && segments.check()) {
        if (used_index) *used_index = true;
        return;
      }
      warnings.push_back("png: the " + segments.kind() +
                         " segment index does not match the data; inflated whole");
    }
  }
  // The stream in one piece of memory (the file's own bytes when it has one IDAT chunk), for
  // the split inflate and libdeflate; zlib takes the chunks as they are.
  std::vector<std::uint8_t> joined;
  const std::uint8_t* src = data + (info.idat.empty() ? 0 : info.idat[0].first);
  auto join = [&] {
    if (info.idat.size() == 1 || !joined.empty()) return;
    joined.reserve(info.idat_bytes);
    for (const auto& [off, len] : info.idat)
      joined.insert(joined.end(), data + off, data + off + len);
    src = joined.data();
  };
  if (split_parts(info.idat_bytes, threads) > 1) {
    // No index: pieces cut at block starts found in the data, when they check out.
    join();
    const int pieces = split_inflate(src, info.idat_bytes, out, total, threads, run);
    if (split_pieces) *split_pieces = pieces;
    if (pieces) return;
  }
#if defined(HETCODEC_HAVE_LIBDEFLATE)
  {
    join();
    thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
        libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
    std::size_t in_used = 0, produced = 0;
    const auto rc = libdeflate_zlib_decompress_ex(d.get(), src, info.idat_bytes, out, total,
                                                  &in_used, &produced);
    if (rc == LIBDEFLATE_SUCCESS && produced == total) {
      if (in_used < info.idat_bytes)
        warnings.push_back("png: " + std::to_string(info.idat_bytes - in_used) +
                           " bytes after the end of the compressed image data ignored");
      return;
    }
    // Anything else (short, damaged or over-long data) goes to zlib, which says what it is.
  }
#endif
  std::vector<std::pair<const std::uint8_t*, std::size_t>> in;
  for (const auto& [off, len] : info.idat) in.emplace_back(data + off, len);
  const auto r = inflate_chunks(in, out, total, 15);
  if (r.produced < total) {
    const std::size_t at = info.idat.empty() ? 0 : info.idat[0].first;
    if (r.bad) invalid(at, "the compressed image data is damaged (" + r.message + ")");
    invalid(at, "the image data ends early: " + std::to_string(r.produced) + " of " +
                    std::to_string(total) + " bytes");
  }
  if (r.left_over) warnings.push_back("png: too much image data; the extra is ignored");
  else if (r.trailing) warnings.push_back("png: bytes after the end of the compressed image data ignored");
  else if (r.bad) warnings.push_back("png: the compressed data is damaged after the image (" + r.message + ")");
  else if (!r.ended) warnings.push_back("png: the compressed image data has no end");
}

void bad_filter_type(std::uint32_t row, unsigned type, bool adam7) {
  throw Error(ErrorCode::InvalidData, "png: image row " + std::to_string(row) +
                                          (adam7 ? " of an Adam7 pass" : "") + " has filter type " +
                                          std::to_string(type) + " (0 to 4 exist)");
}

void defilter(std::uint8_t* rows, std::uint32_t height, std::uint32_t row_bytes, std::uint32_t bpp) {
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
                    info.trns[2 * std::size_t(k) + 1]) & mask;
  }
  const auto ps = passes(info);
  for (std::size_t p = 0; p < ps.size(); ++p)
    job.pass[p] = {ps[p].x0,    ps[p].y0,        ps[p].dx,
                   ps[p].dy,    ps[p].width,     ps[p].row_bytes,
                   std::uint32_t(ps[p].offset)};
  for (std::size_t i = 0; i < 256; ++i) {
    if (i < info.palette.size())
      for (int k = 0; k < 3; ++k) job.palette[4 * i + std::size_t(k)] = info.palette[i][std::size_t(k)];
    job.palette[4 * i + 3] = info.color_type == kPalette && i < info.trns.size() ? info.trns[i] : 255;
  }
  return job;
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
    if (p.width && p.height) defilter(rows.data() + p.offset, p.height, p.row_bytes, info.filter_bpp());
  return unpack(info, rows);
}

}  // namespace hetcodec::png
