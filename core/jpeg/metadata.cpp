// EXIF and the ICC profile of a parsed JPEG file (metadata.h).
#include "core/jpeg/metadata.h"

#include <array>
#include <cstring>

namespace hetcodec::jpeg {
namespace {

constexpr std::size_t kIccOverhead = 14;  // "ICC_PROFILE\0", sequence number, count

bool is_icc(const std::uint8_t* data, const Segment& s) {
  return s.marker == 0xE2 && s.length >= kIccOverhead &&
         std::memcmp(data + s.offset, "ICC_PROFILE", 12) == 0;
}

// jpeg_read_icc_profile's reassembly; false (and a warning) where it gives up.
bool read_icc(const std::uint8_t* data, const Header& h, std::vector<std::uint8_t>& profile,
              std::vector<std::string>& warnings) {
  std::array<const Segment*, 256> part{};
  int count = 0;
  bool any = false;
  auto bogus = [&warnings](const std::string& what) {
    warnings.push_back("jpeg: corrupt ICC profile (" + what + "), left out");
    return false;
  };
  for (const Segment& s : h.segments) {
    if (!is_icc(data, s)) continue;
    const int seq = data[s.offset + 12], n = data[s.offset + 13];
    if (!any) {
      count = n;
      any = true;
    } else if (n != count) {
      return bogus("APP2 at byte " + std::to_string(s.offset) + " counts " + std::to_string(n) +
                   " segments, an earlier one " + std::to_string(count));
    }
    if (seq <= 0 || seq > count)
      return bogus("APP2 at byte " + std::to_string(s.offset) + ": sequence number " +
                   std::to_string(seq) + " of " + std::to_string(count));
    if (part[std::size_t(seq)]) return bogus("sequence number " + std::to_string(seq) + " twice");
    part[std::size_t(seq)] = &s;
  }
  if (!any || count == 0) return false;
  std::size_t total = 0;
  for (int k = 1; k <= count; ++k) {
    if (!part[std::size_t(k)])
      return bogus("segment " + std::to_string(k) + " of " + std::to_string(count) + " missing");
    total += part[std::size_t(k)]->length - kIccOverhead;
  }
  if (total == 0) return bogus("segments without profile bytes");
  profile.clear();
  profile.reserve(total);
  for (int k = 1; k <= count; ++k) {
    const Segment& s = *part[std::size_t(k)];
    const std::uint8_t* from = data + s.offset + kIccOverhead;
    profile.insert(profile.end(), from, from + (s.length - kIccOverhead));
  }
  return true;
}

}  // namespace

Metadata read_metadata(const std::uint8_t* data, const Header& h,
                       std::vector<std::string>& warnings) {
  Metadata m;
  for (const Segment& s : h.segments) {
    if (s.marker == 0xE1 && s.length > 6 && std::memcmp(data + s.offset, "Exif\0\0", 6) == 0) {
      m.exif.assign(data + s.offset + 6, data + s.offset + s.length);
      break;
    }
  }
  if (!read_icc(data, h, m.icc, warnings)) m.icc.clear();
  return m;
}

}  // namespace hetcodec::jpeg
