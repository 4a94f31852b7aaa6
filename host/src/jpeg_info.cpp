// What `hetcodec info` prints about a JPEG file (jpeg_file_info), and the token stream the CPU
// stage makes of it (jpeg_token_stream, docs/token-stream.md): introspection for the CLI and the
// tests, decoded on the calling thread, apart from the decoder.
#include "host/src/jpeg_info.h"

#include <cstring>

#include "core/error.h"
#include "core/jpeg/coefficients.h"
#include "core/jpeg/entropy.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/metadata.h"
#include "core/jpeg/parser.h"
#include "core/jpeg/token_stream.h"

namespace hetcodec {
namespace {

// The token stream of a parsed file, decoded on this thread; its warnings are appended.
std::vector<std::uint8_t> token_stream_of(const std::uint8_t* data, std::size_t size,
                                          const jpeg::Header& h, const jpeg::Layout& layout,
                                          std::vector<std::string>* warnings) {
  if (h.process == jpeg::Process::ProgressiveHuffman || h.process == jpeg::Process::Arithmetic) {
    jpeg::CoefficientDecoder decoder(data, size, h, layout);
    std::vector<std::string> w;
    decoder.run(w);
    if (warnings) warnings->insert(warnings->end(), w.begin(), w.end());
    std::vector<jpeg::EntropyResult> results;
    decoder.tokenize(1, {}, results);
    std::vector<std::uint32_t> words(jpeg::token_stream_size(layout, results) / 4);
    jpeg::write_token_stream(layout, results, reinterpret_cast<std::uint8_t*>(words.data()));
    std::vector<std::uint8_t> out(words.size() * 4);
    std::memcpy(out.data(), words.data(), out.size());
    return out;
  }
  const jpeg::EntropyDecoder decoder(data, size, h, layout);
  const auto tasks = decoder.tasks(1);
  std::vector<jpeg::EntropyResult> results(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) decoder.run(tasks[i], results[i]);
  if (warnings)
    for (const auto& r : results)
      warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
  std::vector<std::uint32_t> words(decoder.stream_bytes(results) / 4);
  decoder.write_stream(results, reinterpret_cast<std::uint8_t*>(words.data()));
  std::vector<std::uint8_t> out(words.size() * 4);
  std::memcpy(out.data(), words.data(), out.size());
  return out;
}

// "4:2:0", "4:4:4", "gray", ... from the sampling factors, or "" when the pattern has no name.
std::string subsampling_name(const jpeg::Header& h) {
  if (h.components.size() == 1) return "gray";
  if (h.components.size() < 3) return "";
  const auto& y = h.components[0];
  const auto& cb = h.components[1];
  bool same_chroma = true;
  for (std::size_t c = 2; c < h.components.size(); ++c)
    same_chroma = same_chroma && h.components[c].h == cb.h && h.components[c].v == cb.v;
  if (!same_chroma || cb.h != 1 || cb.v != 1) return "";
  if (y.h == 1 && y.v == 1) return "4:4:4";
  if (y.h == 2 && y.v == 1) return "4:2:2";
  if (y.h == 2 && y.v == 2) return "4:2:0";
  if (y.h == 1 && y.v == 2) return "4:4:0";
  if (y.h == 4 && y.v == 1) return "4:1:1";
  return "";
}

// "APP0 JFIF (16 bytes)", "COM (12 bytes)": a segment and the printable start of its payload.
std::string segment_name(const std::uint8_t* data, const jpeg::Segment& s) {
  std::string name = s.marker == 0xFE ? "COM" : "APP" + std::to_string(s.marker - 0xE0);
  std::string tag;
  for (std::size_t i = 0;
       i < s.length && i < 12 && data[s.offset + i] >= 0x20 && data[s.offset + i] < 0x7F; ++i)
    tag += char(data[s.offset + i]);
  if (s.marker != 0xFE && !tag.empty()) name += " " + tag;
  return name + " (" + std::to_string(s.length) + " bytes)";
}

// libjpeg-turbo's default_decompress_parms (jdapimin.c): the colour space the file is read as,
// from its components, its JFIF and Adobe (APP14) markers and its component ids, whatever its
// coding process. Without a marker, three components with ids other than 1, 2, 3 or 'R', 'G',
// 'B' are YCbCr, except in a lossless file (SOF3, SOF7, SOF11, SOF15), which libjpeg-turbo 3
// takes as RGB.
std::string color_space(const jpeg::Header& h) {
  const auto& c = h.components;
  const bool lossless = (h.sof_marker & 3) == 3;  // SOF3, SOF7, SOF11, SOF15
  switch (c.size()) {
    case 1:
      return "grayscale";
    case 3:
      if (h.jfif) return "YCbCr";
      if (h.adobe) return h.adobe_transform == 0 ? "RGB" : "YCbCr";
      if (c[0].id == 1 && c[1].id == 2 && c[2].id == 3) return lossless ? "RGB" : "YCbCr";
      if (c[0].id == 'R' && c[1].id == 'G' && c[2].id == 'B') return "RGB";
      return lossless ? "RGB" : "YCbCr";
    case 4:
      if (!h.adobe) return "CMYK";
      return h.adobe_transform == 0 ? "CMYK" : "YCCK";
    default:
      return "unknown";
  }
}

// The token stream's statistics of a file this build decodes.
void count_tokens(const std::uint8_t* data, std::size_t size, const jpeg::Header& h,
                  JpegFileInfo& fi) {
  const jpeg::Layout layout = jpeg::make_layout(h);
  const std::vector<std::uint8_t> stream = token_stream_of(data, size, h, layout, &fi.warnings);
  fi.blocks = layout.blocks;
  fi.token_stream_bytes = stream.size();
  fi.dense_bytes = std::uint64_t(layout.blocks) * 128;
  const auto dense = jpeg::expand_token_stream(stream.data(), stream.size());
  for (std::size_t b = 0; b < dense.size() / 64; ++b) {
    std::uint64_t n = 0;
    for (std::size_t k = 0; k < 64; ++k) n += dense[64 * b + k] != 0;
    fi.coefficients += n;
    fi.nonzero_blocks += n != 0;
  }
}

}  // namespace

JpegFileInfo jpeg_file_info(const std::uint8_t* data, std::size_t size, std::uint64_t max_pixels) {
  JpegFileInfo fi;
  jpeg::Limits limits;
  limits.max_pixels = max_pixels;
  const jpeg::Header h = jpeg::parse(data, size, limits);
  fi.width = h.width;
  fi.height = h.height;
  fi.precision = h.precision;
  fi.components = int(h.components.size());
  fi.process = jpeg::to_string(h.process);
  fi.scans = int(h.scans.size());
  fi.restart_interval = h.scans.empty() ? 0 : h.scans[0].restart_interval;
  fi.warnings = h.warnings;
  for (const auto& c : h.components)
    fi.sampling.push_back(std::to_string(c.h) + "x" + std::to_string(c.v));
  fi.subsampling = subsampling_name(h);
  for (const auto& s : h.segments) fi.segments.push_back(segment_name(data, s));
  fi.color = color_space(h);
  const Metadata meta = jpeg::read_metadata(data, h, fi.warnings);
  fi.icc_profile_bytes = meta.icc.size();
  fi.exif_bytes = meta.exif.size();
  try {
    count_tokens(data, size, h, fi);
    fi.decodable = true;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Unsupported) throw;
    fi.unsupported = e.what();
  }
  return fi;
}

std::vector<std::uint8_t> jpeg_token_stream(const std::uint8_t* data, std::size_t size,
                                            std::uint64_t max_pixels) {
  jpeg::Limits limits;
  limits.max_pixels = max_pixels;
  const jpeg::Header h = jpeg::parse(data, size, limits);
  const jpeg::Layout layout = jpeg::make_layout(h);
  return token_stream_of(data, size, h, layout, nullptr);
}

}  // namespace hetcodec
