// `hetcodec info` for PNG files (info.h): the header, the chunk list, the segment index and the
// metadata, read with the decoder's own parser (core/png/reader.h), so what it reports is what
// a decode sees.
#include <cstdio>
#include <string>

#include "core/png/metadata.h"
#include "core/png/reader.h"
#include "core/png/reader_parts.h"
#include "tools/info.h"

namespace hetcodec::tools {
namespace {

using nlohmann::json;

const char* color_type_name(int t) {
  switch (t) {
    case png::kGray:
      return "grayscale";
    case png::kRgb:
      return "RGB";
    case png::kPalette:
      return "palette";
    case png::kGrayAlpha:
      return "grayscale + alpha";
    default:
      return "RGBA";
  }
}

// Every chunk up to IEND, in file order (parse() has checked each one).
json chunk_list(const std::vector<std::uint8_t>& b) {
  json out = json::array();
  for (std::size_t at = 8; at + 12 <= b.size();) {
    const std::uint32_t len = png::be32(b.data() + at);
    const std::string type(b.begin() + std::ptrdiff_t(at + 4), b.begin() + std::ptrdiff_t(at + 8));
    out.push_back({{"type", type}, {"offset", at}, {"length", len}});
    if (type == "IEND" || len > b.size() - at - 12) break;
    at += 12 + std::size_t(len);
  }
  return out;
}

// The metadata a re-encode carries, each chunk's fields decoded where it has the size PNG gives
// it (libpng ignores the others too).
json metadata_of(const png::Info& info, std::vector<std::string>& warnings) {
  const png::DecodeLimits limits;
  const Metadata m = png::read_metadata(info, limits.max_chunk_bytes, warnings);
  json out = json::object();
  if (!m.icc.empty()) {
    std::string space = png::icc_color_space(m.icc);
    while (!space.empty() && space.back() == ' ') space.pop_back();
    out["icc_profile"] = {{"name", m.icc_name}, {"bytes", m.icc.size()}, {"color_space", space}};
  }
  for (const MetadataChunk& c : m.png_chunks) {
    const std::uint8_t* d = c.data.data();
    if (c.type == "sRGB" && c.data.size() == 1) {
      out["srgb_intent"] = d[0];
    } else if (c.type == "gAMA" && c.data.size() == 4) {
      out["gamma"] = png::be32(d);
    } else if (c.type == "cHRM" && c.data.size() == 32) {
      json xy = json::array();
      for (int k = 0; k < 8; ++k) xy.push_back(png::be32(d + 4 * k));
      out["chromaticities"] = {{"white", {xy[0], xy[1]}},
                               {"red", {xy[2], xy[3]}},
                               {"green", {xy[4], xy[5]}},
                               {"blue", {xy[6], xy[7]}}};
    } else if (c.type == "pHYs" && c.data.size() == 9) {
      out["pixels_per_unit"] = {
          {"x", png::be32(d)}, {"y", png::be32(d + 4)}, {"unit", d[8] == 1 ? "metre" : "unknown"}};
    } else if (c.type == "eXIf") {
      out["exif_bytes"] = c.data.size();
    }
  }
  json text = json::array();
  for (const auto& [key, value] : png::text_chunks(info, limits, warnings))
    text.push_back({{"keyword", key}, {"text", value}});
  if (!text.empty()) out["text"] = text;
  return out;
}

}  // namespace

json png_info(const std::vector<std::uint8_t>& b) {
  const png::Info info = png::parse(b.data(), b.size());
  std::vector<std::string> warnings = info.warnings;
  json out = {{"format", "png"},
              {"width", info.width},
              {"height", info.height},
              {"color_type", info.color_type},
              {"color", color_type_name(info.color_type)},
              {"bit_depth", info.bit_depth},
              {"interlace", info.interlace ? "Adam7" : "none"},
              {"palette_entries", info.palette.size()},
              {"transparency", !info.trns.empty()},
              {"decoded_channels", info.out_channels()},
              {"decoded_bit_depth", info.out_depth()},
              {"idat_chunks", info.idat.size()},
              {"idat_bytes", info.idat_bytes},
              {"chunks", chunk_list(b)}};
  std::string kind;
  const auto segments = png::restart_segments(info, &kind);
  out["segment_index"] =
      kind.empty() ? json(nullptr) : json{{"kind", kind}, {"segments", segments.size()}};
  out["metadata"] = metadata_of(info, warnings);
  out["warnings"] = warnings;
  return out;
}

void print_png_info(const json& j) {
  std::printf(
      "  PNG %u x %u, %s (colour type %d), %d-bit, %s; decoded as %d channel%s of %d bits\n",
      j["width"].get<unsigned>(), j["height"].get<unsigned>(),
      j["color"].get<std::string>().c_str(), j["color_type"].get<int>(), j["bit_depth"].get<int>(),
      j["interlace"] == "none" ? "not interlaced" : "interlaced (Adam7)",
      j["decoded_channels"].get<int>(), j["decoded_channels"] == 1 ? "" : "s",
      j["decoded_bit_depth"].get<int>());
  // Chunks in order, a run of IDAT chunks as one entry.
  std::string list;
  const json& chunks = j["chunks"];
  for (std::size_t i = 0; i < chunks.size();) {
    const std::string type = chunks[i]["type"];
    std::size_t end = i + 1;
    std::uint64_t bytes = chunks[i]["length"];
    while (type == "IDAT" && end < chunks.size() && chunks[end]["type"] == "IDAT")
      bytes += chunks[end++]["length"].get<std::uint64_t>();
    list += (list.empty() ? "" : ", ") + type +
            (end - i > 1 ? " x" + std::to_string(end - i) : "") + " (" + std::to_string(bytes) +
            ")";
    i = end;
  }
  std::printf("  chunks (data bytes): %s\n", list.c_str());
  if (!j["segment_index"].is_null())
    std::printf("  segment index: %s, %zu segments\n",
                j["segment_index"]["kind"].get<std::string>().c_str(),
                j["segment_index"]["segments"].get<std::size_t>());
  const json& m = j["metadata"];
  if (m.contains("icc_profile"))
    std::printf("  ICC profile \"%s\", %zu bytes, colour space %s\n",
                m["icc_profile"]["name"].get<std::string>().c_str(),
                m["icc_profile"]["bytes"].get<std::size_t>(),
                m["icc_profile"]["color_space"].get<std::string>().c_str());
  if (m.contains("srgb_intent"))
    std::printf("  sRGB, rendering intent %d\n", m["srgb_intent"].get<int>());
  if (m.contains("gamma")) std::printf("  gamma %.5f\n", m["gamma"].get<double>() / 100000.0);
  if (m.contains("chromaticities")) {
    std::printf("  chromaticities");
    for (const char* c : {"white", "red", "green", "blue"})
      std::printf(" %s %.5f,%.5f", c, m["chromaticities"][c][0].get<double>() / 100000.0,
                  m["chromaticities"][c][1].get<double>() / 100000.0);
    std::printf("\n");
  }
  if (m.contains("pixels_per_unit"))
    std::printf(m["pixels_per_unit"]["unit"] == "metre" ? "  pixels per metre %u x %u\n"
                                                        : "  pixel aspect ratio %u : %u\n",
                m["pixels_per_unit"]["x"].get<unsigned>(),
                m["pixels_per_unit"]["y"].get<unsigned>());
  if (m.contains("exif_bytes"))
    std::printf("  EXIF, %zu bytes\n", m["exif_bytes"].get<std::size_t>());
  if (m.contains("text"))
    for (const auto& t : m["text"]) {
      std::string text = t["text"];  // its lines indented under the first
      for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 5)
        text.insert(at + 1, "    ");
      std::printf("  text %s: %s\n", t["keyword"].get<std::string>().c_str(), text.c_str());
    }
  for (const auto& w : j["warnings"]) std::printf("  warning: %s\n", w.get<std::string>().c_str());
}

}  // namespace hetcodec::tools
