// The parts of `hetcodec info` (cmd_info.cpp): one description per file format, as JSON (what
// --json prints; the text form is printed from it).
#ifndef HETCODEC_TOOLS_INFO_H
#define HETCODEC_TOOLS_INFO_H

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hetcodec::tools {

// A PNG file: IHDR, its chunks, its segment index (hcRS or iDOT) and the metadata a re-encode
// carries (core/png/metadata.h). Error(InvalidData) for a file the decoder refuses.
nlohmann::json png_info(const std::vector<std::uint8_t>& bytes);
void print_png_info(const nlohmann::json& info);

// A lossless JPEG (SOF3): the fields `hetcodec info` adds to a JPEG's for it (predictor, point
// transform, restart rows, each scan's components, how the row table will be had, the decoded
// format, bit depth and maxval), or decodable false and `unsupported` for a file the decoder
// refuses (SOF7, SOF11, SOF15, sampling factors it does not take). Error(InvalidData) for a
// file libjpeg-turbo 3 would refuse.
nlohmann::json ljpeg_info(const std::vector<std::uint8_t>& bytes);
void print_ljpeg_info(const nlohmann::json& info);

// A Netpbm file (P1 to P6) or a PAM (P7): size, depth, maxval, tuple type, and whether the file
// holds all its samples. Error(InvalidData) for a header that does not parse.
nlohmann::json pnm_info(const std::vector<std::uint8_t>& bytes);
void print_pnm_info(const nlohmann::json& info);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_INFO_H
