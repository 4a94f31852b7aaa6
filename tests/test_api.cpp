// The conventions the public API keeps across codecs (hetcodec/hetcodec.h): a decoder's info()
// gives the size and format decode() will give, or fails as decode() does, with an Error code;
// and the CLI reads --device one way, refusing several devices where a command runs on one.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "hetcodec/hetcodec.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
namespace fs = std::filesystem;

namespace {

fs::path data_dir() { return fs::path(HETCODEC_TEST_SOURCE_DIR) / "data"; }

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "cannot read " << p);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// The query's answer is the decoded image's size and format.
void check_info_describes(const ImageInfo& info, const Image& image) {
  CHECK(info.width == image.width);
  CHECK(info.height == image.height);
  CHECK(info.format == image.format);
  CHECK(info.bit_depth == image.bit_depth);
  CHECK(info.bytes() == image.pixels.size());
}

}  // namespace

// JpegDecoder::info, the query before decoding: for every file of tests/data/jpeg, the size and
// format it gives are those of the image decode() returns, or the query fails with the code the
// decode fails with; damaged headers fail with InvalidData and a limit with LimitExceeded.
TEST_CASE("jpeg info: the decoded size and format before decoding") {
  JpegDecoder decoder("cpu");
  int queried = 0;
  for (const auto& e : fs::directory_iterator(data_dir() / "jpeg")) {
    if (e.path().extension() != ".jpg") continue;
    INFO(e.path().filename().string());
    const auto file = read_bytes(e.path());
    ErrorCode query_code = ErrorCode::InvalidArgument, decode_code = ErrorCode::InvalidArgument;
    ImageInfo info;
    bool query_ok = false, decode_ok = false;
    try {
      info = decoder.info(file.data(), file.size());
      query_ok = true;
    } catch (const Error& err) {
      query_code = err.code();
    }
    Image image;
    try {
      image = decoder.decode(file);
      decode_ok = true;
    } catch (const Error& err) {
      decode_code = err.code();
    }
    REQUIRE(query_ok == decode_ok);
    if (!query_ok) {
      CHECK(query_code == decode_code);
      continue;
    }
    ++queried;
    check_info_describes(info, image);
  }
  CHECK(queried >= 7);

  const auto file = read_bytes(data_dir() / "jpeg" / "testorig.jpg");
  // Cut inside the frame header, or before it: InvalidData, as decode() says.
  for (std::size_t cut : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(30)}) {
    INFO("cut at " << cut);
    try {
      decoder.info(file.data(), cut);
      FAIL("no error");
    } catch (const Error& err) {
      CHECK(err.code() == ErrorCode::InvalidData);
    }
  }
  const std::vector<std::uint8_t> junk = {0xFF, 0xD8, 0xFF, 0xC0, 0x00};
  CHECK_THROWS_AS(decoder.info(junk.data(), junk.size()), Error);
  JpegDecodeOptions small;
  small.max_pixels = 100;
  JpegDecoder limited("cpu", small);
  try {
    limited.info(file.data(), file.size());
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(err.code() == ErrorCode::LimitExceeded);
  }
}

// PngDecoder::info, the query before decoding: for every PngSuite file, the size and format it
// gives are those of the image decode() returns (bytes included), or the query fails as the
// decode does; damaged files fail with InvalidData, and a limit with LimitExceeded.
TEST_CASE("png info: the decoded size and format before decoding") {
  PngDecoder decoder("cpu");
  int queried = 0, refused = 0;
  for (const auto& e : fs::directory_iterator(data_dir() / "pngsuite")) {
    if (e.path().extension() != ".png") continue;
    INFO(e.path().filename().string());
    const auto file = read_bytes(e.path());
    std::optional<Error> query_error, decode_error;
    ImageInfo info;
    try {
      info = decoder.info(file.data(), file.size());
    } catch (const Error& err) {
      query_error = err;
    }
    Image image;
    try {
      image = decoder.decode(file.data(), file.size());
    } catch (const Error& err) {
      decode_error = err;
    }
    if (query_error) {
      // The query reads every chunk with decode()'s checks: what it refuses, decode refuses.
      REQUIRE(decode_error);
      CHECK(query_error->code() == decode_error->code());
      ++refused;
      continue;
    }
    if (decode_error) continue;  // damaged image data, which only the decode reads
    ++queried;
    check_info_describes(info, image);
  }
  CHECK(queried >= 100);
  CHECK(refused >= 5);

  const auto file = read_bytes(data_dir() / "pngsuite" / "basn2c08.png");
  for (std::size_t cut : {std::size_t(0), std::size_t(7), std::size_t(20)}) {
    INFO("cut at " << cut);
    try {
      decoder.info(file.data(), cut);
      FAIL("no error");
    } catch (const Error& err) {
      CHECK(err.code() == ErrorCode::InvalidData);
    }
  }
  PngDecodeOptions small;
  small.max_pixels = 100;
  PngDecoder limited("cpu", small);
  try {
    limited.info(file.data(), file.size());
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(err.code() == ErrorCode::LimitExceeded);
  }
}

#ifdef HETCODEC_TEST_CLI
// --device is read one way by every command: a command that runs on one device refuses several
// (two specs, or `all` where the machine has several devices) with a message naming them, and
// writes nothing; `devices` lists what the specs select.
TEST_CASE("hetcodec --device: several devices where a command takes one are an error") {
  const fs::path dir =
      fs::temp_directory_path() / ("hetcodec-device-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path in = data_dir() / "pngsuite" / "basn2c08.png";
  std::vector<std::string> specs;  // the devices `all` selects
  for (const auto& d : list_devices())
    if (!d.is_emulator) specs.push_back(d.spec);
  for (const std::string command : {"decode", "encode"}) {
    INFO(command);
    const fs::path out = dir / (command + ".png");
    // One device, named twice, is one device.
    std::string log = test::run_command(
        HETCODEC_TEST_CLI, "-d cpu -d cpu " + command + " " + in.string() + " " + out.string());
    CHECK(log.find("exit 0") != std::string::npos);
    fs::remove(out);
    if (specs.size() < 2) continue;  // no second device here
    for (const std::string devices :
         {"-d " + specs[0] + " -d " + specs[1], std::string("-d all")}) {
      log = test::run_command(HETCODEC_TEST_CLI,
                              devices + " " + command + " " + in.string() + " " + out.string());
      INFO(log);
      CHECK(log.find("runs on one device") != std::string::npos);
      CHECK(log.find(specs[1]) != std::string::npos);
      CHECK(log.find("invalid argument") != std::string::npos);
      CHECK(log.find("exit 1") != std::string::npos);
      CHECK(!fs::exists(out));
    }
  }
  // `all` selects every device the command's own process finds (a child process may find fewer
  // OpenCL drivers than this one where an ICD was registered for this process only).
  auto specs_of = [](const std::string& args) {
    std::string log = test::run_command(HETCODEC_TEST_CLI, args);
    log.resize(log.rfind("\nexit "));
    const nlohmann::json listing = nlohmann::json::parse(log);
    std::vector<std::string> out;
    for (const auto& d : listing["devices"])
      if (!d["emulator"].get<bool>()) out.push_back(d["spec"].get<std::string>());
    return out;
  };
  const std::vector<std::string> all = specs_of("devices --json");
  CHECK(!all.empty());
  CHECK(specs_of("-d cpu -d all devices --json") == all);
  const std::string log = test::run_command(HETCODEC_TEST_CLI, "-d cpu -d all devices --json");
  CHECK(log.find("exit 0") != std::string::npos);
  fs::remove_all(dir);
}
#endif
