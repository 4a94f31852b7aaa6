// Stage dumps of PNG decode and encode, lossless JPEG decode and the filters (hetcodec/debug.h):
// each pipeline's stages equal on every device and its last buffer what the codec or libpng
// makes; every device stage of a CPU dump replayed alone (and on a crop of rows, where the
// stage allows it) equal to the dump's on every device; differences located in the image.
#include <doctest/doctest.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "hetcodec/hetcodec.h"
#include "tests/support/cli_run.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/test_support.h"

namespace hetcodec {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> data_file(const std::string& name) {
  return test::bytes_of(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / name);
}

std::vector<std::string> names_of(const StageDump& d) {
  std::vector<std::string> n;
  for (const StageBuffer& s : d.stages) n.push_back(s.name);
  return n;
}

const StageBuffer& stage(const StageDump& d, const std::string& name) {
  for (const StageBuffer& s : d.stages)
    if (s.name == name) return s;
  FAIL("no stage " << name);
  throw 0;
}

StageBuffer& stage(StageDump& d, const std::string& name) {
  return const_cast<StageBuffer&>(stage(static_cast<const StageDump&>(d), name));
}

// Whether a test leaves Oclgrind out: its uninitialised-value tracking reports buffers the
// stages wrote as uninitialised once a process has released and allocated many buffers (see
// test_png_backend.cpp's device deflate case), so these tests run there in a process of their
// own (the emulator-debug test, HETCODEC_TEST_DEBUG_ALONE), not in the backend suite's.
bool emulator_elsewhere(const Device& device) {
  return device.info().is_emulator && !std::getenv("HETCODEC_TEST_DEBUG_ALONE");
}

// The same dump on every device (Oclgrind too unless `emulated` is false: a larger image).
void equal_everywhere(const StageDump& cpu,
                      const std::function<StageDump(std::shared_ptr<Device>)>& run,
                      bool emulated = true) {
  test::for_each_device([&](Device& device) {
    if (emulator_elsewhere(device) || (device.info().is_emulator && !emulated)) return;
    const StageDump got = run(test::borrowed(device));
    const auto d = first_difference(cpu, got);
    CHECK_MESSAGE(!d, (d ? d->stage + ": " + d->where + ": " + d->value_a + " / " + d->value_b
                         : std::string()));
  });
}

// A PNG of `image` with an hcRS index (the encoder's parallel mode): the device inflates it.
std::vector<std::uint8_t> indexed_png(const Image& image) {
  PngEncodeOptions o;
  o.mode = PngMode::Parallel;
  o.segments = 4;
  return PngEncoder(open_device("cpu"), o).encode(image);
}

// Every replayable stage of `dump`, replayed on every device, equals the dump's.
void replays_everywhere(const StageDump& dump, const std::vector<std::string>& expected,
                        bool emulated = true) {
  CHECK(replayable_stages(dump) == expected);
  test::for_each_device([&](Device& device) {
    if (emulator_elsewhere(device) || (device.info().is_emulator && !emulated)) return;
    auto shared = test::borrowed(device);
    for (const std::string& name : replayable_stages(dump)) {
      INFO(dump.pipeline << " " << name);
      const StageBuffer again = replay_stage(shared, dump, name);
      CHECK(again.bytes == stage(dump, name).bytes);
      CHECK(!stage_difference(dump, again));
    }
  });
}

}  // namespace

TEST_CASE("debug: a PNG decode's stages are equal on every device, the image libpng's") {
  auto cpu = open_device("cpu");
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
  for (const char* name : {"basn2c08.png", "basi0g04.png", "basn3p08.png", "basn6a16.png"})
    files.emplace_back(name, data_file(std::string("pngsuite/") + name));
  files.emplace_back("indexed", indexed_png(test::photo(97, 61, 5)));
  for (const auto& [name, bytes] : files) {
    INFO(name);
    const StageDump dump = dump_png_decode_stages(cpu, bytes.data(), bytes.size());
    const bool indexed = name == "indexed";
    CHECK(names_of(dump) ==
          (indexed
               ? std::vector<std::string>{"compressed", "job", "inflated", "defiltered", "image"}
               : std::vector<std::string>{"job", "inflated", "defiltered", "image"}));
    CHECK(stage(dump, "image").bytes == test::libpng_decode_expanded(bytes).samples);
    // The filter bytes stay; the rows change where a filter other than None was used.
    CHECK(stage(dump, "inflated").bytes.size() == stage(dump, "defiltered").bytes.size());
    equal_everywhere(dump, [&, &bytes = bytes](std::shared_ptr<Device> d) {
      return dump_png_decode_stages(d, bytes.data(), bytes.size());
    });
    replays_everywhere(dump, indexed ? std::vector<std::string>{"inflated", "defiltered", "image"}
                                     : std::vector<std::string>{"defiltered", "image"});
  }
  // A difference in the de-filtered rows is located by pass, row, byte and image pixel.
  const auto& bytes = files[0].second;  // basn2c08: 32x32 RGB, 97 bytes a row
  StageDump a = dump_png_decode_stages(cpu, bytes.data(), bytes.size()), b = a;
  stage(b, "defiltered").bytes[3 * 97 + 1 + 7] ^= 1;
  auto d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->stage == "defiltered");
  CHECK(d->where == "row 3, byte 7 (pixel 2 of the row; image pixel (2, 3))");
  const auto& inter = files[1].second;  // basi0g04: 32x32 gray 4-bit, interlaced
  a = dump_png_decode_stages(cpu, inter.data(), inter.size());
  b = a;
  stage(b, "inflated").bytes.back() ^= 1;  // (the last pass's last byte)
  d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->where == "pass 7, row 15, byte 15 (pixel 30 of the row; image pixel (30, 31))");
}

TEST_CASE("debug: replaying a band of rows gives the dump's rows, and finds a change in them") {
  auto cpu = open_device("cpu");
  const auto bytes = data_file("pngsuite/basn2c08.png");  // 32 rows
  const StageDump dump = dump_png_decode_stages(cpu, bytes.data(), bytes.size());
  CHECK(crop_replayable(dump, "defiltered"));
  CHECK(crop_replayable(dump, "image"));
  CHECK_FALSE(crop_replayable(dump, "inflated"));
  const Image photo = test::photo(61, 47, 2);
  const StageDump smooth = dump_smooth_stages(cpu, photo);
  CHECK(crop_replayable(smooth, "output"));
  test::for_each_device([&](Device& device) {
    if (emulator_elsewhere(device)) return;
    auto shared = test::borrowed(device);
    for (const ReplayCrop crop : {ReplayCrop{0, 4}, ReplayCrop{5, 5}, ReplayCrop{31, 1}}) {
      INFO(device.info().spec << " rows " << crop.first_row << "+" << crop.rows);
      for (const char* name : {"defiltered", "image"})
        CHECK(replay_stage(shared, dump, name, crop).bytes == stage(dump, name).bytes);
    }
    for (const ReplayCrop crop : {ReplayCrop{0, 3}, ReplayCrop{20, 11}, ReplayCrop{44, 3}}) {
      INFO(device.info().spec << " rows " << crop.first_row << "+" << crop.rows);
      CHECK(replay_stage(shared, smooth, "output", crop).bytes == stage(smooth, "output").bytes);
    }
  });
  // A byte of row 7's filtered data changed: a band without row 7 still replays equal, one with
  // it differs from row 7 on, the first difference in row 7.
  StageDump changed = dump;
  stage(changed, "inflated").bytes[7 * 97 + 1 + 10] ^= 0x10;
  CHECK(!stage_difference(changed, replay_stage(cpu, changed, "defiltered", {0, 7})));
  const auto d = stage_difference(changed, replay_stage(cpu, changed, "defiltered", {5, 5}));
  REQUIRE(d);
  CHECK(d->stage == "defiltered");
  CHECK(d->where.rfind("row 7, byte 10 ", 0) == 0);
  // Crops where the stage cannot take one, or past the image, are refused.
  const auto inter = data_file("pngsuite/basi0g04.png");
  const StageDump interlaced = dump_png_decode_stages(cpu, inter.data(), inter.size());
  CHECK_FALSE(crop_replayable(interlaced, "defiltered"));
  CHECK_THROWS_AS(replay_stage(cpu, interlaced, "defiltered", {0, 4}), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dump, "image", {30, 3}), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dump, "inflated"), Error);  // (the host inflated it)
  StageDump taller = dump;  // (parameters that do not fit the rows: refused, not read past)
  for (auto& [key, value] : taller.parameters)
    if (key == "height") value += 100;
  CHECK_THROWS_AS(replay_stage(cpu, taller, "defiltered", {100, 20}), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dump, "job"), Error);
}

TEST_CASE(
    "debug: a lossless JPEG decode's stages are equal on every device, the image the decoder's") {
  auto cpu = open_device("cpu");
  for (const char* name :
       {"ff-bgr24-pred3-17x5.jpg", "dicom-JPEG-LL.jpg", "ff-bgra-pred1-37x23.jpg"}) {
    INFO(name);
    const auto bytes = data_file(std::string("ljpeg/") + name);
    const StageDump dump = dump_ljpeg_decode_stages(cpu, bytes.data(), bytes.size());
    CHECK(names_of(dump) ==
          std::vector<std::string>{"file", "job", "residuals", "row-status", "samples", "image"});
    JpegDecoder decoder(cpu);
    CHECK(stage(dump, "image").bytes == decoder.decode_lossless(bytes.data(), bytes.size()).pixels);
    const bool small = bytes.size() < 8192;  // (the DICOM file is too slow for Oclgrind)
    equal_everywhere(
        dump,
        [&](std::shared_ptr<Device> d) {
          return dump_ljpeg_decode_stages(d, bytes.data(), bytes.size());
        },
        small);
    replays_everywhere(dump, {"residuals", "row-status", "samples", "image"}, small);
  }
  // The unpack of a band of rows alone gives the dump's rows; a band past the image is refused.
  {
    const auto bytes = data_file("ljpeg/ff-bgra-pred1-37x23.jpg");
    const StageDump dump = dump_ljpeg_decode_stages(cpu, bytes.data(), bytes.size());
    CHECK(crop_replayable(dump, "image"));
    CHECK_FALSE(crop_replayable(dump, "samples"));
    test::for_each_device([&](Device& device) {
      if (emulator_elsewhere(device)) return;
      for (const ReplayCrop crop : {ReplayCrop{0, 1}, ReplayCrop{7, 9}, ReplayCrop{22, 1}})
        CHECK(replay_stage(test::borrowed(device), dump, "image", crop).bytes ==
              stage(dump, "image").bytes);
    });
    StageDump changed = dump;  // (a sample of row 10 changed: only a band with it differs)
    stage(changed, "samples").bytes[10 * (2 * 37 * 4 + 1) + 1 + 2 * 5] ^= 1;
    CHECK(!stage_difference(changed, replay_stage(cpu, changed, "image", {0, 10})));
    const auto d = stage_difference(changed, replay_stage(cpu, changed, "image", {9, 3}));
    REQUIRE(d);
    CHECK(d->where.rfind("pixel (", 0) == 0);
    CHECK_THROWS_AS(replay_stage(cpu, dump, "image", {20, 4}), Error);
    CHECK_THROWS_AS(replay_stage(cpu, dump, "samples", {0, 4}), Error);
  }
  // Located by scan, row, column and component.
  const auto bytes = data_file("ljpeg/ff-bgr24-pred3-17x5.jpg");  // 17x5, 3 components in a scan
  StageDump a = dump_ljpeg_decode_stages(cpu, bytes.data(), bytes.size()), b = a;
  const std::size_t stride = 2 * 17 * 3 + 1;
  stage(b, "samples").bytes[2 * stride + 1 + 2 * (4 * 3 + 1)] ^= 1;
  const auto d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->stage == "samples");
  CHECK(d->where == "scan 0, row 2 (coded row 2), column 4, component 1 of the scan (low byte)");
  // A JPEG that is not lossless is jpeg-decode's.
  const auto lossy = data_file("jpeg/testorig.jpg");
  CHECK_THROWS_AS(dump_ljpeg_decode_stages(cpu, lossy.data(), lossy.size()), Error);
}

TEST_CASE(
    "debug: a PNG encode's stages are equal on every device, its deflate data zlib's to inflate") {
  auto cpu = open_device("cpu");
  const Image image = test::photo(97, 61, 4);
  const StageDump dump = dump_png_encode_stages(cpu, image, 3);
  CHECK(names_of(dump) == std::vector<std::string>{"samples", "filtered", "plan", "symbols",
                                                   "blocks", "deflate", "crcs", "file"});
  CHECK(stage(dump, "samples").bytes == image.pixels);
  CHECK(test::libpng_decode(stage(dump, "file").bytes).samples == image.pixels);
  // The deflate data with the file's zlib header and the rows' Adler-32 inflates to the
  // filtered rows; a CRC for every 1024 bytes of the zlib stream.
  const auto& file = stage(dump, "file").bytes;
  const auto& filtered = stage(dump, "filtered").bytes;
  const auto& deflate = stage(dump, "deflate").bytes;
  const std::string text(file.begin(), file.end());
  const std::size_t idat = text.find("IDAT");
  REQUIRE(idat != std::string::npos);
  std::vector<std::uint8_t> stream = {file[idat + 4], file[idat + 5]};  // (the zlib header)
  for (std::uint8_t byte : deflate) stream.push_back(byte);
  const uLong adler = adler32(adler32(0, nullptr, 0), filtered.data(), uInt(filtered.size()));
  for (int shift : {24, 16, 8, 0}) stream.push_back(std::uint8_t(adler >> shift));
  CHECK(test::zlib_inflate(stream) == filtered);
  CHECK(stage(dump, "crcs").bytes.size() == (deflate.size() + 2 + 1023) / 1024 * 4);
  // (Not on Oclgrind: in a process that has released and allocated buffers before, its
  // uninitialised-value tracking takes the filtered rows for uninitialised in the deflate's
  // first stage, test_png_backend.cpp's device deflate case says when; the replays below run
  // the same kernels there from the dump's rows.)
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    const auto d = first_difference(dump, dump_png_encode_stages(test::borrowed(device), image, 3));
    CHECK_MESSAGE(!d, (d ? d->stage + ": " + d->where : std::string()));
  });
  replays_everywhere(dump, {"filtered", "symbols", "blocks", "deflate", "crcs"});
  // Located: a block's record word by name, a filtered row's filter byte.
  StageDump b = dump;
  stage(b, "blocks").bytes[4 * 1] ^= 1;
  auto d = first_difference(dump, b);
  REQUIRE(d);
  CHECK(d->where == "block index 0, word 1 (type)");
  b = dump;
  stage(b, "filtered").bytes[2 * (97 * 3 + 1)] ^= 1;
  d = first_difference(dump, b);
  REQUIRE(d);
  CHECK(d->where == "row 2, its filter byte");
  CHECK_THROWS_AS(dump_png_encode_stages(cpu, image, 0), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dump, "samples"), Error);
}

TEST_CASE("debug: the filters' stages are equal on every device, the output the filters'") {
  auto cpu = open_device("cpu");
  const Image photo = test::photo(61, 47, 3);
  Filters filters(cpu);
  MandelbrotOptions m;
  m.fire = true;
  m.iterations = 64;
  const std::vector<std::pair<StageDump, std::vector<std::uint8_t>>> runs = {
      {dump_smooth_stages(cpu, photo), filters.smooth(photo).pixels},
      {dump_texture_stages(cpu, photo), filters.texture(photo).pixels},
      {dump_perlin_stages(cpu, 40, 30), filters.download(filters.perlin(40, 30)).pixels},
      {dump_mandelbrot_stages(cpu, 40, 30, m),
       filters.download(filters.mandelbrot(40, 30, m)).pixels}};
  for (const auto& [dump, want] : runs) {
    INFO(dump.pipeline);
    CHECK(stage(dump, "output").bytes == want);
    const bool has_source = dump.pipeline == "smooth" || dump.pipeline == "texture";
    CHECK(names_of(dump) == (has_source ? std::vector<std::string>{"source", "output"}
                                        : std::vector<std::string>{"output"}));
    replays_everywhere(dump, {"output"});
    // The replay takes the kernel's parameters from the dump: a changed one changes the output.
    if (dump.pipeline == "smooth") {
      StageDump other = dump;
      for (auto& [key, value] : other.parameters)
        if (key == "k_bits") value ^= 0x00400000;  // (another factor)
      CHECK(stage_difference(dump, replay_stage(cpu, other, "output")));
    }
  }
  // Parameters the filter would not have set are refused (a fire palette into one channel).
  StageDump fire = runs[3].first;
  for (auto& [key, value] : fire.parameters)
    if (key == "channels") value = 1;
  CHECK_THROWS_AS(replay_stage(cpu, fire, "output"), Error);
  equal_everywhere(runs[0].first,
                   [&](std::shared_ptr<Device> d) { return dump_smooth_stages(d, photo); });
  equal_everywhere(runs[3].first,
                   [&](std::shared_ptr<Device> d) { return dump_mandelbrot_stages(d, 40, 30, m); });
  CHECK(first_difference(runs[0].first, runs[0].first) == std::nullopt);
  CHECK_THROWS_AS(first_difference(runs[0].first, runs[1].first), Error);
}

}  // namespace hetcodec
