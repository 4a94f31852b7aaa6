// `hetcodec info` for Netpbm files (info.h): PBM, PGM and PPM, plain (P1-P3) and raw (P4-P6),
// and PAM (P7), as the Netpbm specifications (netpbm.sourceforge.net/doc/pnm.html, pam.html)
// define their headers.
#include <cctype>
#include <cstdio>
#include <string>

#include "core/error.h"
#include "tools/info.h"

namespace hetcodec::tools {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorCode::InvalidData, "pnm: " + what);
}

// The header after the two-byte magic number, read token by token.
struct Header {
  const std::vector<std::uint8_t>& b;
  std::size_t at = 2;

  void skip_space() {
    for (;;) {
      while (at < b.size() && std::isspace(b[at])) ++at;
      if (at < b.size() && b[at] == '#') {
        while (at < b.size() && b[at] != '\n') ++at;
        continue;
      }
      return;
    }
  }
  std::string token() {
    skip_space();
    const std::size_t start = at;
    while (at < b.size() && !std::isspace(b[at]) && b[at] != '#') ++at;
    return std::string(b.begin() + std::ptrdiff_t(start), b.begin() + std::ptrdiff_t(at));
  }
  long number(const char* what) {
    const std::string t = token();
    if (t.empty() || t.size() > 10 || t.find_first_not_of("0123456789") != std::string::npos)
      bad(std::string(what) + " expected at byte " + std::to_string(at - t.size()) +
          (t.empty() ? "" : ", found '" + t + "'"));
    return std::stol(t);
  }
  // The rest of the line (a PAM TUPLTYPE), without its surrounding blanks.
  std::string line() {
    while (at < b.size() && (b[at] == ' ' || b[at] == '\t')) ++at;
    const std::size_t start = at;
    while (at < b.size() && b[at] != '\n') ++at;
    std::size_t end = at;
    while (end > start && std::isspace(b[end - 1])) --end;
    return std::string(b.begin() + std::ptrdiff_t(start), b.begin() + std::ptrdiff_t(end));
  }
};

}  // namespace

json pnm_info(const std::vector<std::uint8_t>& b) {
  if (b.size() < 2 || b[0] != 'P' || b[1] < '1' || b[1] > '7') bad("not a Netpbm file");
  const int kind = b[1] - '0';
  Header h{b};
  long width = -1, height = -1, depth = 1, maxval = 1;
  std::string tuple;
  if (kind == 7) {
    for (;;) {
      const std::string key = h.token();
      if (key == "ENDHDR") break;
      if (key.empty()) bad("PAM header without ENDHDR");
      if (key == "WIDTH")
        width = h.number("WIDTH");
      else if (key == "HEIGHT")
        height = h.number("HEIGHT");
      else if (key == "DEPTH")
        depth = h.number("DEPTH");
      else if (key == "MAXVAL")
        maxval = h.number("MAXVAL");
      else if (key == "TUPLTYPE")
        tuple += (tuple.empty() ? "" : " ") + h.line();
      else
        bad("unknown PAM header field '" + key + "'");
    }
    while (h.at < b.size() && b[h.at] != '\n') ++h.at;
    ++h.at;  // the newline that ends ENDHDR
    if (width < 1 || height < 1 || depth < 1 || maxval < 1 || maxval > 65535)
      bad("PAM header with WIDTH " + std::to_string(width) + ", HEIGHT " + std::to_string(height) +
          ", DEPTH " + std::to_string(depth) + ", MAXVAL " + std::to_string(maxval) +
          " (each at least 1, MAXVAL at most 65535)");
  } else {
    width = h.number("width");
    height = h.number("height");
    if (kind != 1 && kind != 4) maxval = h.number("maxval");
    ++h.at;  // the single whitespace byte before the samples
    depth = kind == 3 || kind == 6 ? 3 : 1;
    tuple = kind == 1 || kind == 4 ? "BLACKANDWHITE" : depth == 3 ? "RGB" : "GRAYSCALE";
    if (maxval < 1 || maxval > 65535) bad("maxval " + std::to_string(maxval) + " (1 to 65535)");
  }
  static const char* kNames[] = {"", "PBM", "PGM", "PPM", "PBM", "PGM", "PPM", "PAM"};
  json out = {{"format", kind == 7 ? "pam" : "pnm"},
              {"magic", std::string("P") + char('0' + kind)},
              {"kind", kNames[kind]},
              {"plain", kind <= 3},
              {"width", width},
              {"height", height},
              {"depth", depth},
              {"maxval", maxval},
              {"tuple_type", tuple}};
  std::vector<std::string> warnings;
  if (kind >= 4) {  // raw samples: their size is known
    const std::uint64_t row =
        kind == 4 ? std::uint64_t(width + 7) / 8
                  : std::uint64_t(width) * std::uint64_t(depth) * (maxval > 255 ? 2u : 1u);
    const std::uint64_t need = row * std::uint64_t(height);
    const std::uint64_t have = h.at <= b.size() ? b.size() - h.at : 0;
    out["sample_bytes"] = need;
    if (have < need)
      warnings.push_back("truncated: " + std::to_string(need) + " bytes of samples expected, " +
                         std::to_string(have) + " present");
  }
  out["warnings"] = warnings;
  return out;
}

void print_pnm_info(const json& j) {
  std::printf("  %s (%s%s), %ld x %ld, depth %ld, maxval %ld, tuple type %s\n",
              j["kind"].get<std::string>().c_str(), j["magic"].get<std::string>().c_str(),
              j["plain"].get<bool>() ? ", plain" : "", j["width"].get<long>(),
              j["height"].get<long>(), j["depth"].get<long>(), j["maxval"].get<long>(),
              j["tuple_type"].get<std::string>().empty()
                  ? "(none)"
                  : j["tuple_type"].get<std::string>().c_str());
  for (const auto& w : j["warnings"]) std::printf("  warning: %s\n", w.get<std::string>().c_str());
}

}  // namespace hetcodec::tools
