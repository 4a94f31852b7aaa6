// The PNG chunk parser (see reader.h): the signature, every chunk's length, type and CRC, the
// critical chunks' rules and contents (IHDR, PLTE, IDAT, IEND), tRNS, the other ancillary
// chunks kept, and the text of tEXt, zTXt and iTXt. The checks follow the PNG specification
// (third edition, 5.2-5.6 and 11) and libpng 1.6's reading rules.
#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/png/checksum.h"
#include "core/png/reader.h"
#include "core/png/reader_parts.h"

namespace hetcodec::png {
namespace {

bool is_letter(std::uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

const std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

bool valid_depth(int color_type, int depth) {
  switch (color_type) {
    case kGray:
      return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case kPalette:
      return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case kRgb:
    case kGrayAlpha:
    case kRgba:
      return depth == 8 || depth == 16;
    default:
      return false;
  }
}

// What the parser has seen so far.
struct Reading {
  bool seen_ihdr = false, seen_plte = false, seen_iend = false, idat_done = false;
  bool in_idat = false;
};

void check_signature(const std::uint8_t* data, std::size_t size) {
  if (size == 0) invalid(0, "empty input");
  if (size < 8 || std::memcmp(data, kSignature, 8) != 0) {
    // The signature's CR LF, LF and 0x1A catch text-mode transfers (PNG spec 5.2).
    if (size >= 4 && data[0] == 0x89 && data[1] == 'P' && data[2] == 'N' && data[3] == 'G')
      invalid(0, "corrupted PNG signature (altered by a text-mode transfer or truncated)");
    invalid(0, "not a PNG file (bad signature)");
  }
}

// The chunk at `at`: its header and length checked against the file, and its CRC (a mismatch is
// an error, or a warning in `info` with limits.ignore_crc); returns its type.
std::string check_chunk(const std::uint8_t* data, std::size_t size, std::size_t at,
                        const DecodeLimits& limits, Info& info) {
  if (size - at < 12)
    invalid(at, "truncated chunk header (" + std::to_string(size - at) + " bytes left)");
  const std::uint32_t len = be32(data + at);
  const std::uint8_t* type = data + at + 4;
  const std::string name(reinterpret_cast<const char*>(type), 4);
  if (!is_letter(type[0]) || !is_letter(type[1]) || !is_letter(type[2]) || !is_letter(type[3]))
    invalid(at, "invalid chunk type (bytes " + std::to_string(type[0]) + " " +
                    std::to_string(type[1]) + " " + std::to_string(type[2]) + " " +
                    std::to_string(type[3]) + ")");
  if (len > 0x7FFFFFFFu)
    invalid(at, name + " chunk length " + std::to_string(len) + " exceeds 2^31 - 1");
  if (std::uint64_t(len) + 12 > size - at)
    invalid(at, name + " chunk of " + std::to_string(len) + " bytes runs past the end of the file");
  const std::uint8_t* body = data + at + 8;
  const std::uint32_t crc = crc32(crc32(0, type, 4), body, len);
  if (crc != be32(body + len)) {
    if (!limits.ignore_crc) invalid(at, name + " chunk CRC mismatch (the chunk is damaged)");
    info.warnings.push_back("png: byte " + std::to_string(at) + ": " + name +
                            " chunk CRC mismatch, ignored");
  }
  return name;
}

void read_ihdr(Info& info, Reading& r, const std::uint8_t* body, std::uint32_t len, std::size_t at,
               const DecodeLimits& limits) {
  if (r.seen_ihdr) invalid(at, "a second IHDR chunk");
  if (len != 13) invalid(at, "IHDR length " + std::to_string(len) + " (must be 13)");
  r.seen_ihdr = true;
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
                "png: " + std::to_string(info.width) + "x" + std::to_string(info.height) + " is " +
                    std::to_string(pixels) + " pixels, over the limit of " +
                    std::to_string(limits.max_pixels));
  if (inflated_bytes(info) > limits.max_inflated_bytes)
    throw Error(ErrorCode::LimitExceeded,
                "png: the image data inflates to " + std::to_string(inflated_bytes(info)) +
                    " bytes, over the limit of " + std::to_string(limits.max_inflated_bytes));
  // The output's channels once expanded: a palette to RGB(A), and an alpha channel that a tRNS
  // chunk (not seen yet) may add.
  const int channels = info.color_type == kGray || info.color_type == kGrayAlpha ? 2 : 4;
  const std::uint64_t output = pixels * std::uint64_t(channels) * (info.bit_depth == 16 ? 2 : 1);
  const std::uint64_t memory = 2 * (inflated_bytes(info) + output);
  if (memory > limits.max_memory_bytes)
    throw Error(ErrorCode::LimitExceeded,
                "png: " + std::to_string(info.width) + "x" + std::to_string(info.height) +
                    " would take up to " + std::to_string(memory) +
                    " bytes of memory (its inflated rows and output, on the host and the "
                    "device), over max_memory_bytes " +
                    std::to_string(limits.max_memory_bytes));
}

void read_plte(Info& info, Reading& r, const std::uint8_t* body, std::uint32_t len,
               std::size_t at) {
  if (r.seen_plte) invalid(at, "a second PLTE chunk");
  if (r.idat_done || r.in_idat) invalid(at, "PLTE after the image data");
  if (info.color_type == kGray || info.color_type == kGrayAlpha)
    invalid(at, "PLTE in a grayscale image");
  if (len % 3 != 0 || len == 0 || len > 768)
    invalid(at, "PLTE length " + std::to_string(len) + " (must be 3 to 768, a multiple of 3)");
  r.seen_plte = true;
  if (info.color_type == kPalette) {
    const std::uint32_t n = len / 3;
    if (n > (1u << info.bit_depth))
      invalid(at, "a palette of " + std::to_string(n) + " entries for a " +
                      std::to_string(info.bit_depth) + "-bit image");
    info.palette.resize(n);
    for (std::uint32_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) info.palette[i][std::size_t(k)] = body[3 * i + std::uint32_t(k)];
  }
}

// A tRNS that does not apply is left out with a warning, as libpng does.
void read_trns(Info& info, const Reading& r, const std::uint8_t* body, std::uint32_t len) {
  if (r.in_idat || r.idat_done) {
    info.warnings.push_back("png: tRNS after the image data ignored");
  } else if (info.color_type == kGrayAlpha || info.color_type == kRgba) {
    info.warnings.push_back("png: tRNS in an image with an alpha channel ignored");
  } else if (info.color_type == kPalette && !r.seen_plte) {
    info.warnings.push_back("png: tRNS before PLTE ignored");
  } else if ((info.color_type == kGray && len != 2) || (info.color_type == kRgb && len != 6) ||
             (info.color_type == kPalette && (len == 0 || len > info.palette.size()))) {
    info.warnings.push_back("png: tRNS of invalid length " + std::to_string(len) + " ignored");
  } else {
    info.trns.assign(body, body + len);
  }
}

// One chunk's contents, by its type (the chunk itself checked by check_chunk).
void read_chunk(Info& info, Reading& r, const std::string& name, const std::uint8_t* body,
                std::uint32_t len, std::size_t at, const DecodeLimits& limits) {
  const bool critical = !(name[0] & 0x20);
  if (name == "IHDR") {
    read_ihdr(info, r, body, len, at, limits);
  } else if (name == "PLTE") {
    read_plte(info, r, body, len, at);
  } else if (name == "IDAT") {
    if (r.idat_done) invalid(at, "IDAT chunks that are not consecutive");
    if (info.color_type == kPalette && !r.seen_plte)
      invalid(at, "a palette image without PLTE before its data");
    r.in_idat = true;
    info.idat.emplace_back(at + 8, len);
    info.idat_bytes += len;
  } else if (name == "IEND") {
    r.seen_iend = true;
  } else if (critical) {
    invalid(at, "unknown critical chunk " + name);
  } else if (name == "tRNS") {
    read_trns(info, r, body, len);
  } else if (len > limits.max_chunk_bytes) {
    info.warnings.push_back("png: byte " + std::to_string(at) + ": " + name + " chunk of " +
                            std::to_string(len) + " bytes over the limit of " +
                            std::to_string(limits.max_chunk_bytes) + ", skipped");
  } else {
    info.ancillary.push_back({name, at, std::vector<std::uint8_t>(body, body + len)});
  }
}

}  // namespace

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "png: byte " + std::to_string(at) + ": " + what);
}

int Info::samples_per_pixel() const {
  switch (color_type) {
    case kRgb:
      return 3;
    case kGrayAlpha:
      return 2;
    case kRgba:
      return 4;
    default:
      return 1;
  }
}

std::uint32_t Info::bits_per_pixel() const {
  return std::uint32_t(samples_per_pixel() * bit_depth);
}

std::uint32_t Info::filter_bpp() const { return std::max<std::uint32_t>(1, bits_per_pixel() / 8); }

int Info::out_channels() const {
  const bool key = !trns.empty();
  switch (color_type) {
    case kGray:
      return key ? 2 : 1;
    case kRgb:
      return key ? 4 : 3;
    case kPalette:
      return key ? 4 : 3;
    case kGrayAlpha:
      return 2;
    default:
      return 4;
  }
}

Info parse(const std::uint8_t* data, std::size_t size, const DecodeLimits& limits) {
  Info info;
  check_signature(data, size);
  Reading r;
  std::size_t at = 8;
  while (at < size) {
    const std::string name = check_chunk(data, size, at, limits, info);
    const std::uint32_t len = be32(data + at);
    if (!r.seen_ihdr && name != "IHDR") invalid(at, "the first chunk is " + name + ", not IHDR");
    if (r.seen_iend) {
      info.warnings.push_back("png: byte " + std::to_string(at) + ": data after IEND ignored");
      break;
    }
    if (r.in_idat && name != "IDAT") {
      r.in_idat = false;
      r.idat_done = true;
    }
    read_chunk(info, r, name, data + at + 8, len, at, limits);
    at += 12 + std::size_t(len);
  }
  if (!r.seen_ihdr) invalid(8, "no IHDR chunk");
  if (info.idat.empty()) invalid(at, "no image data (IDAT chunk)");
  if (!r.seen_iend) info.warnings.push_back("png: no IEND chunk (the file may be truncated)");
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
      warnings.push_back("png: " + c.type + " chunk at byte " + std::to_string(c.offset) +
                         " without a keyword");
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

}  // namespace hetcodec::png
