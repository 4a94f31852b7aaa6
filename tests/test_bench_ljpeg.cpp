// `hetcodec bench ljpeg DIR` as a user runs it: the real binary on a directory of lossless files
// made by tools/ljpeg_encode.h, a lossy JPEG skipped with a note, the JSON it writes, and a
// file the decoder refuses failing the run.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.h"
#include "tools/ljpeg_encode.h"

#ifdef HETCODEC_TEST_CLI
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path =
      fs::temp_directory_path() / ("hetcodec-bench-ljpeg-" + std::to_string(::getpid()));
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void put(const fs::path& p, const std::vector<std::uint8_t>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

std::vector<std::uint8_t> encoded(int w, int h, int comps, int precision, int predictor,
                                  int restart) {
  std::vector<std::uint16_t> s(std::size_t(w) * std::size_t(h) * std::size_t(comps));
  for (std::size_t i = 0; i < s.size(); ++i)
    s[i] = std::uint16_t((i * 2654435761u >> 7) & ((1u << precision) - 1u));
  hetcodec::tools::LjpegEncodeOptions o;
  o.precision = precision;
  o.predictor = predictor;
  o.restart_rows = restart;
  return hetcodec::tools::ljpeg_encode(s.data(), w, h, comps, o);
}

// `hetcodec ARGS`: the output (stderr joined) and the exit status.
std::pair<std::string, int> cli(const std::string& args) {
  std::string log = hetcodec::test::run_command(HETCODEC_TEST_CLI, args);
  const auto at = log.rfind("\nexit ");
  const int status = std::stoi(log.substr(at + 6));
  log.resize(at);
  return {log, status};
}

}  // namespace

TEST_CASE("bench ljpeg DIR: lossless files measured and checked, others skipped") {
  Dir dir;
  put(dir.path / "gray16.jpg", encoded(64, 48, 1, 16, 1, 1));
  put(dir.path / "rgb8.jpg", encoded(33, 17, 3, 8, 6, 0));
  fs::copy_file(
      fs::path(HETCODEC_TEST_SOURCE_DIR) / ".." / "tools" / "demo-images" / "camera-gray.jpg",
      dir.path / "lossy.jpg");
  const fs::path json = dir.path / "out.json";
  const auto [log, status] = cli("bench ljpeg '" + dir.path.string() +
                                 "' -d cpu --runs 1 --no-peers --json '" + json.string() + "'");
  INFO(log);
  REQUIRE(status == 0);
  CHECK(log.find("skipped lossy.jpg: not a lossless JPEG") != std::string::npos);
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  CHECK(doc["benchmark"] == "ljpeg-decode");
  REQUIRE(doc["files"].size() == 2);
  const auto& gray = doc["files"][0];
  CHECK(gray["name"] == "gray16");
  CHECK(gray["precision"] == 16);
  CHECK(gray["restart_rows"] == 1);
  CHECK(gray["checked_against"] == "the CPU reference");
  const auto& rgb = doc["files"][1];
  CHECK(rgb["components"] == 3);
  CHECK(rgb["predictor"] == 6);
  for (const auto& f : doc["files"]) {
    REQUIRE(f["results"].size() == 2);  // the CPU reference on 1 thread and on all
    for (const auto& r : f["results"]) {
      CHECK(r["samples_equal"] == true);
      CHECK(r["megapixels_per_s_device_resident"].get<double>() > 0);
      CHECK(r["stages_ms"]["residual"].get<double>() >= 0);
    }
  }
  CHECK(rgb["results"][0].contains("reconstruct_ms_by_order"));
  CHECK(gray["results"][0]["row_table_without_sidecar"] == "restart markers");
  // Without a row table: on the CPU reference the walk runs on host threads only (the device
  // settings are measured on devices), from the markers where every row has one.
  for (const auto& f : doc["files"])
    for (const auto& r : f["results"]) {
      const auto& w = r["without_row_table"];
      CHECK(w["host"]["megapixels_per_s_device_resident"].get<double>() > 0);
      CHECK(w["host"]["time_over_given_table"].get<double>() > 0);
      CHECK(!w.contains("device"));
    }
  CHECK(gray["results"][0]["without_row_table"]["host"]["row_table"] == "restart markers");
  CHECK(rgb["results"][0]["without_row_table"]["host"]["row_table"] == "pre-pass");
}

TEST_CASE("bench ljpeg DIR: a file the decoder refuses fails the run") {
  Dir dir;
  std::vector<std::uint8_t> bad = encoded(16, 16, 1, 8, 1, 0);
  bad[6] = 1;  // SOF3 (right after SOI)'s precision: 1 bit is not allowed
  put(dir.path / "bad.jpg", bad);
  const auto [log, status] = cli("bench ljpeg '" + dir.path.string() + "' -d cpu --runs 1");
  INFO(log);
  CHECK(status != 0);
  CHECK(log.find("bad: not measured") != std::string::npos);
}
#endif  // HETCODEC_TEST_CLI
