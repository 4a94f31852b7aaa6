// Kernel debugging across devices (hetcodec/debug.h, `hetcodec debug compare`): a JPEG decode's
// stages equal on every device and the last equal to the decoder's pixels; a deliberately wrong
// IDCT (the CPU reference's test-only variant) named by the tool with its stage and block; the
// dumps written with their manifest.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "hetcodec/hetcodec.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace hetcodec {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> jpeg_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg"))
    if (e.path().extension() == ".jpg") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("debug: a JPEG decode's stages are equal on every device, the image the decoder's") {
  auto cpu = open_device("cpu");
  const auto files = jpeg_files();
  REQUIRE(files.size() >= 4);
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    auto shared = test::borrowed(device);
    JpegDecoder decoder(shared);
    for (const fs::path& f : files) {
      INFO(device.info().spec << " " << f.filename().string());
      const auto bytes = test::bytes_of(f);
      StageDump got;
      try {
        got = dump_jpeg_decode_stages(shared, bytes.data(), bytes.size());
      } catch (const Error& e) {  // (lossless and damaged files: the decoder says the same)
        CHECK_THROWS(decoder.decode(bytes));
        continue;
      }
      REQUIRE(got.stages.size() == 4);
      CHECK(got.stages[0].name == "job");
      CHECK(got.stages[1].name == "coefficients");
      CHECK(got.stages[2].name == "planes");
      CHECK(got.stages[3].name == "image");
      const Image want = decoder.decode(bytes);
      CHECK(got.stages[3].bytes == want.pixels);
      CHECK(got.stages[3].shape ==
            std::vector<std::uint64_t>{std::uint64_t(want.height), std::uint64_t(want.width),
                                       std::uint64_t(want.channels())});
      const StageDump ref = dump_jpeg_decode_stages(cpu, bytes.data(), bytes.size());
      const auto d = first_difference(ref, got);
      CHECK_MESSAGE(!d, (d ? d->stage + ": " + d->where : ""));
    }
  });
}

TEST_CASE("debug: first_difference names the stage, the element and both values") {
  auto cpu = open_device("cpu");
  const auto bytes = test::bytes_of(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg/testorig.jpg");
  const StageDump a = dump_jpeg_decode_stages(cpu, bytes.data(), bytes.size());
  CHECK(!first_difference(a, a));
  // Coefficient 9 (row 1, column 1) of block 2 of the job: component 0, block (2, 0).
  StageDump b = a;
  auto* coef = reinterpret_cast<std::int16_t*>(b.stages[1].bytes.data());
  coef[2 * 64 + 9] += 5;
  auto d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->stage == "coefficients");
  CHECK(d->byte_offset == (2 * 64 + 9) * 2);
  CHECK(d->differing_bytes >= 1);
  CHECK(d->where.find("component 0, block (2, 0)") != std::string::npos);
  CHECK(d->where.find("coefficient 9 (row 1, column 1)") != std::string::npos);
  CHECK(std::stoi(d->value_b) == std::stoi(d->value_a) + 5);
  // A pixel of the image only: the stages before are equal, the pixel and channel named.
  b = a;
  const std::uint64_t w = a.stages[3].shape[1], c = a.stages[3].shape[2];
  b.stages[3].bytes[(7 * w + 5) * c + 1] ^= 1;
  d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->stage == "image");
  CHECK(d->where == "pixel (5, 7), channel 1");
  // A shorter buffer is a difference of sizes; another pipeline's dump is refused.
  b = a;
  b.stages[2].bytes.pop_back();
  d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->stage == "planes");
  CHECK(d->where.find("sizes") != std::string::npos);
  b = a;
  b.pipeline = "png-decode";
  CHECK_THROWS_AS(first_difference(a, b), Error);
}

TEST_CASE("cli: debug compare names the stage and block of a wrong IDCT, and keeps the dumps") {
  std::string other;
  for (const auto& d : test::cli_devices())
    if (d.kind != DeviceKind::Cpu && !d.is_emulator) other = d.spec;
  if (other.empty()) {
    MESSAGE("no device besides the CPU reference: debug compare left untested");
    return;
  }
  test::Scratch s("debug-compare");
  const fs::path file = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg/testorig.jpg";
  const test::Run clean = test::cli(s.dir, "debug compare '" + file.string() + "' -d cpu -d " +
                                               other + " --dump dumps");
  INFO(clean.log);
  CHECK(clean.status == 0);
  CHECK(clean.says("every stage equal"));
  for (const std::string dev : {std::string("cpu"), other}) {
    std::string name = dev;
    for (char& ch : name)
      if (ch == ':') ch = '-';
    const fs::path at = s.dir / "dumps" / name;
    const auto manifest = nlohmann::json::parse(test::bytes_of(at / "manifest.json"));
    CHECK(manifest["pipeline"] == "jpeg-decode");
    CHECK(manifest["device"] == dev);
    REQUIRE(manifest["stages"].size() == 4);
    for (const auto& st : manifest["stages"])
      CHECK(fs::file_size(at / st["file"].get<std::string>()) == st["bytes"].get<std::size_t>());
  }
  // The CPU reference's IDCT made wrong at block 70 of the job (component 0, the 71st block in
  // raster order; testorig.jpg's luma grid, 227 pixels in MCUs of 16, is 30 blocks wide: block
  // (10, 2), samples from (80, 16)). Its other stages, and the other blocks, are right.
  const test::Run wrong =
      test::cli(s.dir, "debug compare '" + file.string() + "' -d cpu -d " + other,
                "HETCODEC_TEST_WRONG_IDCT_BLOCK=70");
  INFO(wrong.log);
  CHECK(wrong.status == 1);
  CHECK(wrong.says("first difference in stage planes"));
  CHECK(wrong.says("component 0, sample (80, 16), in block (10, 2)"));
  CHECK(wrong.says("(1 byte of it differs)"));
  CHECK(wrong.says("stage coefficients: equal"));
}

}  // namespace hetcodec
