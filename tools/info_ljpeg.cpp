// `hetcodec info` on a lossless JPEG (ITU-T T.81 Annex H, SOF3): the predictor, point transform
// and restart interval of each scan, its components, how the decoder will learn where each row's
// codes start (restart markers or a pre-pass, core/jpeg/lossless.h) and the image it decodes to.
#include <cstdio>

#include "core/error.h"
#include "core/image.h"
#include "core/jpeg/lossless.h"
#include "core/jpeg/parser.h"
#include "tools/info.h"

namespace hetcodec::tools {

using nlohmann::json;

json ljpeg_info(const std::vector<std::uint8_t>& b) {
  const jpeg::Header h = jpeg::parse(b.data(), b.size());
  const int n = int(h.components.size());
  json out = {{"decodable", false}};
  try {
    const jpeg::LosslessLayout L = jpeg::lossless_layout(h);
    json scans = json::array();
    for (const jpeg::LosslessScan& ls : L.scans) {
      json ids = json::array();
      for (int c : ls.components) ids.push_back(h.components[std::size_t(c)].id);
      scans.push_back({{"components", ids},
                       {"predictor", ls.predictor},
                       {"point_transform", ls.pt},
                       {"restart_interval", h.scans[std::size_t(ls.scan)].restart_interval},
                       {"restart_rows", ls.restart_rows * int(ls.mcu_v)}});
    }
    // Restart markers give the table when every row starts an interval; else a pre-pass over
    // the codes finds it (what decode_lossless reports as LosslessReport::row_table).
    bool markers = false;
    try {
      markers = !jpeg::row_tables_from_markers(b.data(), b.size(), h, L).scans.empty();
    } catch (const Error&) {
      markers = false;  // damaged markers: the pre-pass resynchronises as libjpeg-turbo does
    }
    const jpeg::LosslessScan& first = L.scans.front();
    out = {{"decodable", true},
           {"predictor", first.predictor},
           {"point_transform", first.pt},
           {"restart_rows", first.restart_rows * int(first.mcu_v)},
           {"row_table", markers ? "restart markers" : "pre-pass"},
           {"scan_list", scans},
           {"decoded_format", hetcodec::to_string(n == 1   ? PixelFormat::Gray
                                                  : n == 2 ? PixelFormat::GrayAlpha
                                                  : n == 3 ? PixelFormat::RGB
                                                           : PixelFormat::CMYK)},
           {"decoded_bit_depth", h.precision <= 8 ? 8 : 16},
           {"decoded_maxval", (1 << h.precision) - 1}};
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Unsupported) throw;
    out["unsupported"] = e.what();
  }
  return out;
}

void print_ljpeg_info(const json& j) {
  if (!j["decodable"]) return;
  const int rows = j["restart_rows"];
  std::printf("  predictor %d, point transform %d, restart interval %s\n",
              j["predictor"].get<int>(), j["point_transform"].get<int>(),
              rows ? (std::to_string(rows) + " row" + (rows == 1 ? "" : "s")).c_str() : "none");
  int k = 0;
  for (const auto& s : j["scan_list"]) {
    std::string ids;
    for (const auto& c : s["components"]) ids += (ids.empty() ? "" : ",") + std::to_string(int(c));
    std::printf("  scan %d: components %s, predictor %d, point transform %d\n", ++k, ids.c_str(),
                s["predictor"].get<int>(), s["point_transform"].get<int>());
  }
  std::printf("  row table: %s\n", j["row_table"] == "restart markers"
                                       ? "restart markers (every row starts an interval)"
                                       : "pre-pass over the codes (no restart marker a row)");
  std::printf("  decoded as %s, %d bits a sample, maxval %d\n",
              j["decoded_format"].get<std::string>().c_str(), j["decoded_bit_depth"].get<int>(),
              j["decoded_maxval"].get<int>());
}

}  // namespace hetcodec::tools
