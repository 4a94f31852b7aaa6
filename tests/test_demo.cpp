// `hetcodec demo` (docs/demo.md), run as a user runs it: on the shipped photos it passes and
// writes files that equal what libpng writes and reads; a photo the decoder refuses makes it
// fail, naming the file and the device.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <zlib.h>

#include "tests/support/libjpeg_oracle.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/test_support.h"

#ifdef HETCODEC_TEST_CLI
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "cannot read " << p);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

const fs::path kImages = fs::path(HETCODEC_TEST_SOURCE_DIR) / "../tools/demo-images";

}  // namespace

TEST_CASE("hetcodec demo passes on its photos and writes libpng's files") {
  const fs::path out =
      fs::temp_directory_path() / ("hetcodec-demo-test-" + std::to_string(getpid()));
  const std::string log = hetcodec::test::run_command(
      HETCODEC_TEST_CLI, "-d cpu demo --min-time 0 --out " + out.string());
  CHECK_MESSAGE(log.find("\nexit 0") != std::string::npos, log);
  CHECK_MESSAGE(log.find("checks passed") != std::string::npos, log);
  CHECK_MESSAGE(log.find("PNG encode") != std::string::npos, log);
  // Each PNG photo, as libpng reads it, re-encoded in compatible mode: libpng's Z_RLE file.
  int checked = 0;
  for (const auto& e : fs::directory_iterator(kImages)) {
    if (e.path().extension() != ".png") continue;
    CAPTURE(e.path());
    const auto samples = hetcodec::test::libpng_decode_expanded(read_file(e.path()));
    const auto written = read_file(out / "cpu/png-encode" / e.path().filename());
    CHECK(written == hetcodec::test::libpng_encode(samples, Z_RLE));
    ++checked;
  }
  CHECK(checked >= 4);
  // Each JPEG photo decoded, written as PNG: libjpeg-turbo's pixels, as libpng reads them.
  for (const auto& e : fs::directory_iterator(kImages)) {
    if (e.path().extension() != ".jpg") continue;
    CAPTURE(e.path());
    const auto expected = hetcodec::test::libjpeg_decode_default(read_file(e.path()));
    const auto written = hetcodec::test::libpng_decode_expanded(
        read_file(out / "cpu/jpeg-decode" / (e.path().stem().string() + ".png")));
    CHECK(written.samples == expected.samples);
    ++checked;
  }
  CHECK(checked >= 8);
  fs::remove_all(out);
}

TEST_CASE("hetcodec demo names the file and device it could not match") {
  const fs::path dir =
      fs::temp_directory_path() / ("hetcodec-demo-bad-" + std::to_string(getpid()));
  fs::create_directories(dir / "images");
  fs::copy_file(kImages / "chelsea-rgb.png", dir / "images/chelsea-rgb.png");
  // A file of two components, which libjpeg-turbo decodes (no colour space) and hetcodec
  // refuses.
  hetcodec::test::Raster two{40, 24, 2, std::vector<std::uint8_t>(40 * 24 * 2, 77)};
  const auto bytes = hetcodec::test::libjpeg_encode_ex(two, {});
  std::ofstream(dir / "images/two-components.jpg", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  const std::string log = hetcodec::test::run_command(
      HETCODEC_TEST_CLI, "-d cpu demo --min-time 0 --images " + (dir / "images").string() +
                             " --out " + (dir / "out").string());
  CHECK_MESSAGE(log.find("\nexit 1") != std::string::npos, log);
  CHECK_MESSAGE(log.find("two-components.jpg on cpu: not decoded") != std::string::npos, log);
  fs::remove_all(dir);
}
#endif
