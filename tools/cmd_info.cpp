// `hetcodec info`: what a file holds, for every format the tool reads (JPEG, PNG, PNM, PAM),
// the format found from the file's first bytes, never from its name.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <memory>

#include "host/src/jpeg_info.h"
#include "tools/cli.h"
#include "tools/decode_ljpeg.h"
#include "tools/info.h"

namespace hetcodec::tools {
namespace {

nlohmann::json jpeg_json(const JpegFileInfo& fi) {
  return {
      {"format", "jpeg"},
      {"width", fi.width},
      {"height", fi.height},
      {"precision", fi.precision},
      {"components", fi.components},
      {"process", fi.process},
      {"sampling", fi.sampling},
      {"subsampling", fi.subsampling},
      {"color", fi.color},
      {"restart_interval", fi.restart_interval},
      {"scans", fi.scans},
      {"decodable", fi.decodable},
      {"unsupported", fi.unsupported},
      {"blocks", fi.blocks},
      {"nonzero_blocks", fi.nonzero_blocks},
      {"nonzero_coefficients", fi.coefficients},
      {"token_stream_bytes", fi.token_stream_bytes},
      {"dense_coefficient_bytes", fi.dense_bytes},
      {"segments", fi.segments},
      {"metadata", {{"icc_profile_bytes", fi.icc_profile_bytes}, {"exif_bytes", fi.exif_bytes}}},
      {"warnings", fi.warnings}};
}

// A JPEG file as text: its header, segments and token stream (a lossless file's own fields in
// place of the token stream, `lossless` set).
void print_jpeg_info(const JpegFileInfo& fi, const nlohmann::json* lossless = nullptr) {
  std::string sampling;
  for (const auto& s : fi.sampling) sampling += (sampling.empty() ? "" : ",") + s;
  std::printf("  %d x %d, %d-bit, %d component%s (%s), sampling %s%s%s\n", fi.width, fi.height,
              fi.precision, fi.components, fi.components == 1 ? "" : "s", fi.color.c_str(),
              sampling.c_str(), fi.subsampling.empty() ? "" : " = ", fi.subsampling.c_str());
  std::printf(
      "  %s, %d scan%s, restart interval %s\n", fi.process.c_str(), fi.scans,
      fi.scans == 1 ? "" : "s",
      fi.restart_interval ? (std::to_string(fi.restart_interval) + " MCUs").c_str() : "none");
  for (const auto& s : fi.segments) std::printf("  %s\n", s.c_str());
  if (fi.icc_profile_bytes)
    std::printf("  ICC profile, %llu bytes\n", (unsigned long long)fi.icc_profile_bytes);
  if (fi.exif_bytes) std::printf("  EXIF, %llu bytes\n", (unsigned long long)fi.exif_bytes);
  if (lossless) {
    if ((*lossless)["decodable"])
      print_ljpeg_info(*lossless);
    else
      std::printf("  not decoded by this build: %s\n",
                  (*lossless)["unsupported"].get<std::string>().c_str());
  } else if (fi.decodable) {
    std::printf("  %llu blocks, %llu non-zero, %llu non-zero coefficients (%.1f per block)\n",
                (unsigned long long)fi.blocks, (unsigned long long)fi.nonzero_blocks,
                (unsigned long long)fi.coefficients,
                fi.blocks ? double(fi.coefficients) / double(fi.blocks) : 0.0);
    std::printf(
        "  token stream %llu bytes; dense int16 coefficients %llu bytes (%.2fx)\n",
        (unsigned long long)fi.token_stream_bytes, (unsigned long long)fi.dense_bytes,
        fi.token_stream_bytes ? double(fi.dense_bytes) / double(fi.token_stream_bytes) : 0.0);
  } else {
    std::printf("  not decoded by this build: %s\n", fi.unsupported.c_str());
  }
  for (const auto& w : fi.warnings) std::printf("  warning: %s\n", w.c_str());
}

// One file described: its JSON, printed as text unless `json` is set.
nlohmann::json describe(const std::string& path, bool json) {
  const std::vector<std::uint8_t> bytes = read_all(path);
  const FileKind format = sniff(bytes);
  if (format != FileKind::Jpeg && format != FileKind::Png && format != FileKind::Netpbm)
    throw Error(ErrorCode::InvalidData, kind_problem(bytes, "a JPEG, PNG, PNM or PAM"));
  if (format == FileKind::Jpeg) {
    const JpegFileInfo fi = jpeg_file_info(bytes.data(), bytes.size());
    nlohmann::json j = {{"file", path}};
    j.update(jpeg_json(fi));
    // A lossless file has no token stream: its predictors and row table instead.
    const bool lossless = lossless_precision(bytes) > 0;
    if (lossless) {
      for (const char* k : {"blocks", "nonzero_blocks", "nonzero_coefficients", "unsupported",
                            "token_stream_bytes", "dense_coefficient_bytes"})
        j.erase(k);
      j.update(ljpeg_info(bytes));
    }
    if (!json) {
      std::printf("%s\n", path.c_str());
      print_jpeg_info(fi, lossless ? &j : nullptr);
    }
    return j;
  }
  nlohmann::json j = {{"file", path}};
  j.update(format == FileKind::Png ? png_info(bytes) : pnm_info(bytes));
  if (!json) {
    std::printf("%s\n", path.c_str());
    if (format == FileKind::Png)
      print_png_info(j);
    else
      print_pnm_info(j);
  }
  return j;
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto* info = app.add_subcommand(
      "info",
      "describe image files; the format is found from the bytes, not the name\n"
      "  JPEG: size, precision, components and their colour space (as libjpeg reads it),\n"
      "        sampling, restart interval, coding process, APPn/COM segments, ICC and EXIF\n"
      "        sizes, and the token stream's size against dense int16 coefficients; for a\n"
      "        lossless file (SOF3) the predictor, point transform, restart rows, each scan's\n"
      "        components, how the row table is found (restart markers or a pre-pass) and the\n"
      "        decoded format, bit depth and maxval\n"
      "  PNG:  size, colour type, bit depth, interlace, every chunk with its size, the segment\n"
      "        index (hetcodec's hcRS or Apple's iDOT) and the metadata a re-encode keeps\n"
      "        (ICC profile, sRGB, gamma, chromaticities, pixel size, EXIF, text)\n"
      "  PNM (P1-P6) and PAM (P7): size, depth, maxval, tuple type");
  info->add_option("files", *paths, "JPEG, PNG, PNM or PAM files")->required()->type_name("PATH");
  info->add_flag("--json", *json, "one JSON array, an object per file, instead of text");
  info->callback([paths, json] {
    nlohmann::json all = nlohmann::json::array();
    int failed = 0;
    for (const auto& p : *paths) {
      try {
        all.push_back(describe(p, *json));
      } catch (const Error& e) {
        std::fflush(stdout);  // the files before it first
        std::cerr << p << ": " << to_string(e.code()) << ": " << e.what() << "\n";
        ++failed;
      }
    }
    if (*json) std::cout << all.dump(2) << "\n";
    if (failed) throw CLI::RuntimeError(1);
  });
}

}  // namespace hetcodec::tools
