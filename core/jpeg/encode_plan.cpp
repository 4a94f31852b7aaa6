// The encode plan (core/jpeg/encoder.h): libjpeg-turbo's parameters for an image (jcparam.c
// jpeg_set_quality and jpeg_add_quant_table with force_baseline; jcmaster.c initial_setup and
// per_scan_setup), the code tables (jchuff.c jpeg_make_c_derived_tbl) and the markers before the
// entropy-coded data (jcmarker.c write_file_header, write_frame_header, write_scan_header;
// jcapimin.c jpeg_write_marker for EXIF; jcicc.c jpeg_write_icc_profile).
#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/jpeg/encoder.h"
#include "core/jpeg/standard_tables.h"
#include "core/portable/jpeg_zigzag.h"

namespace hetcodec::jpeg {
namespace {

// T.81 Annex K.1, natural order.
const int kLuma[64] = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                       14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                       18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                       49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
const int kChroma[64] = {17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
                         24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
                         99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
                         99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, "jpeg encode: " + what);
}

void put16(std::vector<std::uint8_t>& o, std::size_t v) {
  o.push_back(std::uint8_t(v >> 8));
  o.push_back(std::uint8_t(v & 0xFF));
}

void marker(std::vector<std::uint8_t>& o, int code, std::size_t length) {
  o.push_back(0xFF);
  o.push_back(std::uint8_t(code));
  put16(o, length + 2);
}

}  // namespace

EncodePlan plan_encode(int width, int height, int channels, const EncodeOptions& o) {
  if (width < 1 || width > 65535) bad("width " + std::to_string(width) + " is not 1..65535");
  if (height < 1 || height > 65535) bad("height " + std::to_string(height) + " is not 1..65535");
  if (channels != 1 && channels != 3)
    bad("channels " + std::to_string(channels) + " is not 1 (gray) or 3 (RGB)");
  if (o.quality < 1 || o.quality > 100)
    bad("quality " + std::to_string(o.quality) + " is not 1..100");
  if (o.h < 1 || o.h > 2 || o.v < 1 || o.v > 2)
    bad("sampling " + std::to_string(o.h) + "x" + std::to_string(o.v) +
        " is not 1x1, 2x1, 2x2 or 1x2");
  if (o.restart_interval < 0 || o.restart_interval > 65535)
    bad("restart interval " + std::to_string(o.restart_interval) + " is not 0..65535 MCUs");
  if (o.restart_rows < 0 || o.restart_rows > 65535)
    bad("restart rows " + std::to_string(o.restart_rows) + " is not 0..65535");
  if (o.base_tables.size() > 2)
    bad(std::to_string(o.base_tables.size()) + " quantisation tables given (at most 2)");
  for (std::size_t t = 0; t < o.base_tables.size(); ++t)
    for (int i = 0; i < 64; ++i)
      if (o.base_tables[t][std::size_t(i)] == 0)
        bad("quantisation table " + std::to_string(t) + " entry " + std::to_string(i) + " is 0");

  EncodePlan p;
  p.width = width;
  p.height = height;
  p.comps = channels == 1 || o.gray ? 1 : 3;
  if (p.comps == 3) {
    p.h[0] = p.hmax = o.h;
    p.v[0] = p.vmax = o.v;
  }
  for (int c = 0; c < p.comps; ++c) {
    p.bw[c] = (width * p.h[c] + p.hmax * 8 - 1) / (p.hmax * 8);
    p.bh[c] = (height * p.v[c] + p.vmax * 8 - 1) / (p.vmax * 8);
  }
  if (p.comps == 1) {
    p.mcus_x = p.bw[0];
    p.mcus_y = p.bh[0];
    p.blocks_per_mcu = 1;
  } else {
    p.mcus_x = (width + p.hmax * 8 - 1) / (p.hmax * 8);
    p.mcus_y = (height + p.vmax * 8 - 1) / (p.vmax * 8);
    p.blocks_per_mcu = p.h[0] * p.v[0] + 2;
  }
  // jcmaster.c per_scan_setup: rows become MCUs, at most 65535.
  p.restart_interval =
      o.restart_rows > 0 ? std::min(o.restart_rows * p.mcus_x, 65535) : o.restart_interval;
  p.optimize = o.optimize;
  // jcparam.c: jpeg_quality_scaling, then jpeg_add_quant_table with force_baseline.
  const int scale = o.quality < 50 ? 5000 / o.quality : 200 - 2 * o.quality;
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < 64; ++i) {
      long base = t == 0 ? kLuma[i] : kChroma[i];
      if (std::size_t(t) < o.base_tables.size())
        base = o.base_tables[std::size_t(t)]
                            [std::size_t(i)];
      const long q = (base * scale + 50) / 100;
      p.quant[t][i] = int(std::clamp(q, 1L, 255L));
    }
  }
  return p;
}

EncodeTables standard_encode_tables() {
  EncodeTables t;
  for (int s = 0; s < 2; ++s) {
    t.dc[s] = standard_huffman_table(false, s);
    t.ac[s] = standard_huffman_table(true, s);
  }
  return t;
}

std::array<std::uint32_t, 256> derive_codes(const HuffmanTable& t) {
  std::array<std::uint32_t, 256> codes{};
  std::uint32_t code = 0;
  std::size_t k = 0;
  for (std::uint32_t len = 1; len <= 16; ++len) {
    for (int i = 0; i < t.counts[len] && k < t.symbols.size(); ++i, ++k)
      codes[t.symbols[k]] = len << 16 | code++;
    code <<= 1;
  }
  return codes;
}

// jcicc.c: 65519 bytes of profile per APP2 after "ICC_PROFILE\0", the sequence number and the
// count; at most 255 markers.
constexpr std::size_t kIccPerMarker = 65533 - 14;

void check_metadata(const Metadata* metadata) {
  if (!metadata) return;
  if (metadata->exif.size() + 6 > 65533)
    bad("EXIF of " + std::to_string(metadata->exif.size()) + " bytes does not fit an APP1");
  if ((metadata->icc.size() + kIccPerMarker - 1) / kIccPerMarker > 255)
    bad("ICC profile of " + std::to_string(metadata->icc.size()) + " bytes is too large");
}

std::vector<std::uint8_t> write_headers(const EncodePlan& p, const EncodeTables& tables,
                                        const Metadata* metadata) {
  check_metadata(metadata);
  std::vector<std::uint8_t> f = {0xFF, 0xD8};
  // JFIF APP0: version 1.01, no density units, 1:1, no thumbnail (jpeg_set_defaults).
  marker(f, 0xE0, 14);
  f.insert(f.end(), {'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0});
  if (metadata && !metadata->exif.empty()) {
    static const char kExif[6] = {'E', 'x', 'i', 'f', 0, 0};
    marker(f, 0xE1, metadata->exif.size() + 6);
    f.insert(f.end(), kExif, kExif + 6);
    f.insert(f.end(), metadata->exif.begin(), metadata->exif.end());
  }
  if (metadata && !metadata->icc.empty()) {
    constexpr std::size_t kPerMarker = kIccPerMarker;
    const std::size_t n = (metadata->icc.size() + kPerMarker - 1) / kPerMarker;
    static const char kIcc[12] = {'I', 'C', 'C', '_', 'P', 'R', 'O', 'F', 'I', 'L', 'E', 0};
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = i * kPerMarker;
      const std::size_t len = std::min(kPerMarker, metadata->icc.size() - at);
      marker(f, 0xE2, len + 14);
      f.insert(f.end(), kIcc, kIcc + 12);
      f.push_back(std::uint8_t(i + 1));
      f.push_back(std::uint8_t(n));
      f.insert(f.end(), metadata->icc.begin() + std::ptrdiff_t(at),
               metadata->icc.begin() + std::ptrdiff_t(at + len));
    }
  }
  static const int zz[64] = HC_JPEG_NATURAL_ORDER;
  const int slots = p.comps == 1 ? 1 : 2;
  for (int t = 0; t < slots; ++t) {
    marker(f, 0xDB, 65);
    f.push_back(std::uint8_t(t));
    for (int k = 0; k < 64; ++k) f.push_back(std::uint8_t(p.quant[t][zz[k]]));
  }
  marker(f, 0xC0, 6 + 3 * std::size_t(p.comps));
  f.push_back(8);
  put16(f, std::size_t(p.height));
  put16(f, std::size_t(p.width));
  f.push_back(std::uint8_t(p.comps));
  for (int c = 0; c < p.comps; ++c)
    f.insert(f.end(),
             {std::uint8_t(c + 1), std::uint8_t(p.h[c] << 4 | p.v[c]), std::uint8_t(c ? 1 : 0)});
  for (int t = 0; t < slots; ++t)
    for (int ac = 0; ac < 2; ++ac) {
      const HuffmanTable& h = ac ? tables.ac[t] : tables.dc[t];
      marker(f, 0xC4, 17 + h.symbols.size());
      f.push_back(std::uint8_t(ac << 4 | t));
      for (int l = 1; l <= 16; ++l) f.push_back(h.counts[std::size_t(l)]);
      f.insert(f.end(), h.symbols.begin(), h.symbols.end());
    }
  if (p.restart_interval > 0) {
    marker(f, 0xDD, 2);
    put16(f, std::size_t(p.restart_interval));
  }
  marker(f, 0xDA, 4 + 2 * std::size_t(p.comps));
  f.push_back(std::uint8_t(p.comps));
  for (int c = 0; c < p.comps; ++c)
    f.insert(f.end(), {std::uint8_t(c + 1), std::uint8_t(c ? 0x11 : 0)});
  f.insert(f.end(), {0x00, 0x3F, 0x00});
  return f;
}

}  // namespace hetcodec::jpeg
