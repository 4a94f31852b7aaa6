// The JPEG options shared by `encode`, `transcode` and `bench jpeg-encode` (jpeg_options.h).
#include "tools/jpeg_options.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hetcodec::tools {
namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

void check_range(const char* option, int value, int lo, int hi) {
  if (value < lo || value > hi)
    bad(std::string(option) + " " + std::to_string(value) + " is not " + std::to_string(lo) + ".." +
        std::to_string(hi));
}

JpegSampling parse_sampling(const std::string& s) {
  if (s == "444") return JpegSampling::S444;
  if (s == "422") return JpegSampling::S422;
  if (s == "420") return JpegSampling::S420;
  if (s == "440") return JpegSampling::S440;
  if (s == "gray") return JpegSampling::Gray;
  bad("--sampling " + s + " is not 444, 422, 420, 440 or gray");
}

}  // namespace

bool JpegCliOptions::any_given() const { return !first_given().empty(); }

std::string JpegCliOptions::first_given() const {
  for (const CLI::Option* opt : given)
    if (opt->count() > 0) return opt->get_name();
  return {};
}

void add_jpeg_options(CLI::App& cmd, JpegCliOptions& o, bool entropy) {
  const char* group = "JPEG output";
  o.given.push_back(cmd.add_option("--quality", o.quality,
                                   "1..100, scaling the quantisation tables as cjpeg -quality "
                                   "(libjpeg's jpeg_set_quality with force_baseline)")
                        ->check(CLI::Range(1, 100))
                        ->capture_default_str()
                        ->group(group));
  o.given.push_back(
      cmd.add_option("--sampling", o.sampling,
                     "chroma subsampling, as cjpeg -sample: 444 (1x1), 422 (2x1), 420 (2x2),\n"
                     "440 (1x2), or gray (the luma alone, as cjpeg -grayscale); a gray input\n"
                     "always writes one component")
          ->check(CLI::IsMember({"444", "422", "420", "440", "gray"}))
          ->capture_default_str()
          ->group(group));
  o.given.push_back(cmd.add_flag("--optimize", o.optimize,
                                 "optimal Huffman tables from the image's symbol counts, as "
                                 "cjpeg -optimize (smaller, a little slower)")
                        ->group(group));
  CLI::Option* restart =
      cmd.add_option("--restart", o.restart,
                     "a restart marker every N MCUs (0: none; libjpeg's restart_interval, cjpeg\n"
                     "-restart Nb). Note: cjpeg -restart N counts MCU rows: --restart-rows N")
          ->check(CLI::Range(0, 65535))
          ->type_name("N")
          ->group(group);
  CLI::Option* rows =
      cmd.add_option("--restart-rows", o.restart_rows,
                     "a restart marker every N MCU rows (as cjpeg -restart N; at most 65535\n"
                     "MCUs an interval)")
          ->check(CLI::Range(0, 65535))
          ->type_name("N")
          ->group(group);
  rows->excludes(restart);
  o.given.push_back(restart);
  o.given.push_back(rows);
  o.given.push_back(
      cmd.add_option("--quant-table", o.quant_table,
                     "base quantisation tables from FILE, in cjpeg -qtables' format: integers\n"
                     "1..32767, 64 per table in natural (row-major, not zigzag) order, '#'\n"
                     "comments; one table (the luma's; the chroma keeps the standard table, as\n"
                     "in cjpeg) or two (luma, chroma); scaled by --quality as cjpeg scales them")
          ->type_name("FILE")
          ->group(group));
  if (entropy)
    o.given.push_back(
        cmd.add_option("--entropy", o.entropy,
                       "where the Huffman coding runs (the same bytes either way): device,\n"
                       "host threads, or auto (the device, except on the CPU reference)")
            ->check(CLI::IsMember({"auto", "device", "host"}))
            ->capture_default_str()
            ->group(group));
}

std::vector<std::array<std::uint16_t, 64>> read_quant_tables(const std::string& path) {
  const std::string who = "--quant-table " + path + ": ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) bad(who + "is a directory");
  std::ifstream f(path);
  if (!f) bad(who + "cannot be read");
  std::vector<long> values;
  std::string line;
  for (int line_no = 1; std::getline(f, line); ++line_no) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      std::size_t used = 0;
      long v = -1;
      try {
        v = std::stol(w, &used, 10);
      } catch (const std::exception&) {
        used = 0;
      }
      const bool number = used == w.size() && w[0] != '+' && w[0] != '-';
      if (!number || v < 1 || v > 32767) {
        std::string what = who;
        what += "line " + std::to_string(line_no) + ": ";
        what += number ? w + " is not 1..32767" : "'" + w + "' is not a number";
        bad(what);
      }
      values.push_back(v);
    }
  }
  if (values.empty() || values.size() % 64 != 0 || values.size() > 128)
    bad(who + std::to_string(values.size()) + " values (64 per table: one table or two are read)");
  std::vector<std::array<std::uint16_t, 64>> tables(values.size() / 64);
  for (std::size_t i = 0; i < values.size(); ++i) tables[i / 64][i % 64] = std::uint16_t(values[i]);
  return tables;
}

JpegEncodeOptions jpeg_encode_options(const JpegCliOptions& o) {
  check_range("--quality", o.quality, 1, 100);
  check_range("--restart", o.restart, 0, 65535);
  check_range("--restart-rows", o.restart_rows, 0, 65535);
  if (o.restart > 0 && o.restart_rows > 0) bad("--restart and --restart-rows: give one");
  JpegEncodeOptions e;
  e.quality = o.quality;
  e.sampling = parse_sampling(o.sampling);
  e.optimize = o.optimize;
  e.restart_interval = o.restart;
  e.restart_rows = o.restart_rows;
  if (!o.quant_table.empty()) e.quant_tables = read_quant_tables(o.quant_table);
  if (o.entropy == "auto")
    e.entropy = JpegEntropy::Auto;
  else if (o.entropy == "device")
    e.entropy = JpegEntropy::Device;
  else if (o.entropy == "host")
    e.entropy = JpegEntropy::Host;
  else
    bad("--entropy " + o.entropy + " is not auto, device or host");
  return e;
}

const char* sampling_name(JpegSampling s) {
  switch (s) {
    case JpegSampling::S444:
      return "4:4:4";
    case JpegSampling::S422:
      return "4:2:2";
    case JpegSampling::S420:
      return "4:2:0";
    case JpegSampling::S440:
      return "4:4:0";
    default:
      return "gray";
  }
}

std::string describe(const JpegEncodeOptions& o) {
  std::string s = "q" + std::to_string(o.quality) + " " + sampling_name(o.sampling);
  if (o.optimize) s += ", optimized";
  if (o.restart_rows > 0)
    s += ", restart " + std::to_string(o.restart_rows) + " rows";
  else if (o.restart_interval > 0)
    s += ", restart " + std::to_string(o.restart_interval) + " MCUs";
  if (!o.quant_tables.empty())
    s += ", " + std::to_string(o.quant_tables.size()) + " table" +
         (o.quant_tables.size() == 1 ? "" : "s") + " of --quant-table";
  return s;
}

bool jpeg_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".jpg" || ext == ".jpeg" || ext == ".jpe" || ext == ".jfif";
}

}  // namespace hetcodec::tools
