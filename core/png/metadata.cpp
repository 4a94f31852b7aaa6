// PNG metadata read from a file's chunks and written into a new one (metadata.h). The reading
// rules follow libpng 1.6's png_handle_iCCP and png_handle_eXIf; the placement, the PNG
// specification's chunk ordering (third edition, 5.6).
#include "core/png/metadata.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "core/png/checksum.h"
#include "core/png/reader.h"

namespace hetcodec::png {
namespace {

// Chunks of which a file holds at most one (the PNG specification's ordering table).
bool single(const std::string& type) {
  return type == "iCCP" || type == "sRGB" || type == "gAMA" || type == "cHRM" || type == "pHYs" ||
         type == "eXIf";
}

bool before_palette(const std::string& type) {
  return type == "iCCP" || type == "sRGB" || type == "gAMA" || type == "cHRM";
}

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(std::uint8_t(v >> s));
}

void put_chunk(std::vector<std::uint8_t>& out, const std::string& type,
               const std::vector<std::uint8_t>& data) {
  put32(out, std::uint32_t(data.size()));
  const std::size_t at = out.size();
  out.insert(out.end(), type.begin(), type.end());
  out.insert(out.end(), data.begin(), data.end());
  put32(out, crc32(0, out.data() + at, data.size() + 4));
}

// The zlib stream `in` inflated, or false when it is damaged, has no end, or inflates past
// `limit` bytes.
bool inflate_all(const std::uint8_t* in, std::size_t n, std::size_t limit,
                 std::vector<std::uint8_t>& out) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return false;
  z.next_in = const_cast<Bytef*>(in);
  z.avail_in = uInt(std::min<std::size_t>(n, 0xFFFFFFFFu));
  out.assign(std::min<std::size_t>(limit, std::max<std::size_t>(4 * n, 1024)), 0);
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (z.total_out == out.size()) {
      if (out.size() >= limit) break;
      out.resize(std::min(limit, out.size() * 2));
    }
    z.next_out = out.data() + z.total_out;
    z.avail_out = uInt(out.size() - z.total_out);
    rc = inflate(&z, Z_NO_FLUSH);
  }
  out.resize(z.total_out);
  inflateEnd(&z);
  return rc == Z_STREAM_END;
}

// An iCCP chunk's profile name and inflated profile; false when it has no valid name, an
// unknown compression method, or a profile that does not inflate within `limit`.
bool read_iccp(const std::vector<std::uint8_t>& d, std::size_t limit, Metadata& m) {
  const auto nul = std::find(d.begin(), d.end(), 0);
  const std::size_t name = std::size_t(nul - d.begin());
  if (nul == d.end() || name == 0 || name > 79 || name + 2 > d.size() || d[name + 1] != 0)
    return false;
  if (!inflate_all(d.data() + name + 2, d.size() - name - 2, limit, m.icc)) return false;
  m.icc_name.assign(d.begin(), nul);
  return true;
}

bool tiff_byte_order(const std::vector<std::uint8_t>& d) {
  return d.size() >= 2 && d[0] == d[1] && (d[0] == 'I' || d[0] == 'M');
}

// The iCCP chunk's data for a profile: its name (icc_name when it is a valid keyword, else
// "ICC profile"), compression method 0 and the zlib stream.
std::vector<std::uint8_t> iccp_data(const Metadata& m) {
  const bool valid_name =
      !m.icc_name.empty() && m.icc_name.size() <= 79 && m.icc_name.find('\0') == std::string::npos;
  const std::string name = valid_name ? m.icc_name : "ICC profile";
  std::vector<std::uint8_t> out(name.begin(), name.end());
  out.push_back(0);
  out.push_back(0);
  uLongf n = compressBound(uLong(m.icc.size()));
  std::vector<std::uint8_t> z(n);
  if (compress2(z.data(), &n, m.icc.data(), uLong(m.icc.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
    return {};
  out.insert(out.end(), z.begin(), z.begin() + std::ptrdiff_t(n));
  return out;
}

}  // namespace

bool carried_chunk(const std::string& type) {
  return single(type) || type == "tEXt" || type == "zTXt" || type == "iTXt";
}

std::string icc_color_space(const std::vector<std::uint8_t>& profile) {
  if (profile.size() < 128) return "";
  return std::string(profile.begin() + 16, profile.begin() + 20);
}

bool icc_fits(const std::vector<std::uint8_t>& profile, int channels) {
  const std::string space = icc_color_space(profile);
  return channels >= 3 ? space == "RGB " : space == "GRAY";
}

Metadata read_metadata(const Info& info, std::size_t max_profile_bytes,
                       std::vector<std::string>& warnings) {
  Metadata m;
  std::vector<std::string> seen;
  for (const Chunk& c : info.ancillary) {
    if (!carried_chunk(c.type)) continue;
    const std::string where = "png: " + c.type + " chunk at byte " + std::to_string(c.offset);
    if (single(c.type)) {
      if (std::find(seen.begin(), seen.end(), c.type) != seen.end()) {
        warnings.push_back(where + ": a second one, left out");
        continue;
      }
      seen.push_back(c.type);
    }
    if (c.type == "iCCP" && !read_iccp(c.data, max_profile_bytes, m)) {
      m.icc.clear();
      warnings.push_back(where + ": no valid name, or a profile that does not inflate within " +
                         std::to_string(max_profile_bytes) + " bytes; left out");
      continue;
    }
    if (c.type == "eXIf") {
      if (!tiff_byte_order(c.data)) {
        warnings.push_back(where + ": not EXIF data (no II or MM byte order); left out");
        continue;
      }
      m.exif = c.data;
    }
    m.png_chunks.push_back({c.type, c.data});
  }
  return m;
}

void write_metadata(std::vector<std::uint8_t>& out, const Metadata* m, int channels,
                    MetadataPlace place) {
  if (!m || m->empty()) return;
  const bool first = place == MetadataPlace::BeforePalette;
  auto has = [m](const char* type) {
    return std::any_of(m->png_chunks.begin(), m->png_chunks.end(),
                       [type](const MetadataChunk& c) { return c.type == type; });
  };
  // A profile for other samples (a CMYK one, an RGB one on gray) is left out, as libpng refuses
  // to write or read it; `icc` is the iCCP chunk's profile when there is one.
  const bool fits = icc_fits(m->icc, channels);
  const bool keep_iccp = has("iCCP") && fits, make_iccp = !has("iCCP") && fits;
  const bool iccp = keep_iccp || make_iccp;
  if (first && make_iccp) {
    const std::vector<std::uint8_t> data = iccp_data(*m);
    if (!data.empty()) put_chunk(out, "iCCP", data);
  }
  std::vector<std::string> written;
  for (const MetadataChunk& c : m->png_chunks) {
    if (!carried_chunk(c.type) || before_palette(c.type) != first) continue;
    if ((c.type == "sRGB" && iccp) || (c.type == "iCCP" && !keep_iccp)) continue;
    if (single(c.type)) {
      if (std::find(written.begin(), written.end(), c.type) != written.end()) continue;
      written.push_back(c.type);
    }
    put_chunk(out, c.type, c.data);
  }
  if (!first && !has("eXIf") && tiff_byte_order(m->exif)) put_chunk(out, "eXIf", m->exif);
}

}  // namespace hetcodec::png
