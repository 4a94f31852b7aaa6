// 12-bit lossy JPEG (SOF1, SOF2, SOF9, SOF10 with P = 12): on every device, the 16-bit samples
// equal libjpeg-turbo 3's (Debian's 2.1.5 decodes no 12-bit file, so its output is kept in
// tests/data/jpeg/twelve, made by make.py there) for baseline, progressive, arithmetic and
// restart-marker files of every sampling and a progressive file cut short (block smoothing), at
// every scale and for a crop; the conformance file monkey12.jpg against digests of
// libjpeg-turbo 3's samples; batches that mix 8- and 12-bit files on the host and on the device;
// and the CLI's PNM, byte for byte djpeg's.
#include <doctest/doctest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hetcodec/jpeg.h"
#include "tests/support/jpeg_checks.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
using hetcodec::test::borrowed;
using hetcodec::test::Raster;
using hetcodec::test::read_back;
using hetcodec::test::read_test_file;

namespace {

const std::string kDir = std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/twelve/";

// A line of manifest.txt: a file decoded at 1/denom, whole or cropped (WxH+X+Y), and its
// reference: a PNM of libjpeg-turbo 3's output, or crc32:HEX:WxH of its big-endian samples.
struct Entry {
  std::string file;
  int denom = 1;
  Region crop;
  std::string reference;
};

std::vector<Entry> manifest() {
  std::ifstream f(kDir + "manifest.txt");
  REQUIRE(f.good());
  std::vector<Entry> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    Entry e;
    std::string crop;
    in >> e.file >> e.denom >> crop >> e.reference;
    REQUIRE(!e.reference.empty());
    if (crop != "-")
      REQUIRE(std::sscanf(crop.c_str(), "%dx%d+%d+%d", &e.crop.width, &e.crop.height, &e.crop.x,
                          &e.crop.y) == 4);
    out.push_back(e);
  }
  REQUIRE(out.size() >= 40);
  return out;
}

JpegDecodeOptions at_scale(int denom) {
  JpegDecodeOptions o;
  o.scale_denom = denom;
  return o;
}

// Whether `img` is the manifest entry's reference: its size, format and every sample.
void check_reference(const Image& img, const Entry& e, const std::string& what) {
  INFO(what);
  CHECK(img.bit_depth == 16);
  if (e.reference.rfind("crc32:", 0) == 0) {
    unsigned crc = 0;
    int w = 0, h = 0;
    REQUIRE(std::sscanf(e.reference.c_str(), "crc32:%x:%dx%d", &crc, &w, &h) == 3);
    CHECK(img.width == w);
    CHECK(img.height == h);
    CHECK(img.pixels.size() == std::size_t(w) * std::size_t(h) * 3 * 2);
    const auto got = ::crc32(0L, img.pixels.data(), uInt(img.pixels.size()));
    CHECK(got == crc);
    return;
  }
  const auto ref = hetcodec::test::read_netpbm(read_test_file(kDir + e.reference));
  REQUIRE(ref.maxval == 4095);
  CHECK(img.width == ref.width);
  CHECK(img.height == ref.height);
  CHECK(img.channels() == ref.depth);
  REQUIRE(img.pixels.size() == ref.samples.size());
  std::size_t first = img.pixels.size();
  for (std::size_t i = 0; i < img.pixels.size() && first == img.pixels.size(); ++i)
    if (img.pixels[i] != ref.samples[i]) first = i;
  INFO("first difference at byte " << first);
  CHECK(first == img.pixels.size());
}

Input input_of(const std::vector<std::uint8_t>& bytes, const Region& crop) {
  Input in{bytes.data(), bytes.size()};
  in.crop = crop;
  return in;
}

// The manifest's entries at 1/denom (without the conformance file under the emulator, which is
// slow), decoded one at a time (not under the emulator), as one batch with an 8-bit file on each
// side, and left on the device.
void check_scale(Device& device, const std::vector<Entry>& entries, int denom) {
  const bool emulator = device.info().is_emulator;
  const auto eight =
      read_test_file(std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/testorig.jpg");
  const Raster eight_ref = hetcodec::test::libjpeg_decode_scaled(eight, denom);
  JpegDecodeOptions options = at_scale(denom);
  if (emulator) {
    // The whole batch as one chunk: Oclgrind reports buffers a kernel has just written as
    // uninitialised once a decoder has grown (released) its buffers in the same process.
    options.threads = 1;
    options.images_per_copy = 32;
  }
  JpegDecoder decoder(borrowed(device), options);
  std::vector<const Entry*> wanted;
  for (const Entry& e : entries)
    if (e.denom == denom && !(emulator && e.file == "../monkey12.jpg")) wanted.push_back(&e);
  std::vector<std::vector<std::uint8_t>> files;
  for (const Entry* e : wanted) files.push_back(read_test_file(kDir + e->file));
  std::vector<Input> inputs{{eight.data(), eight.size()}};
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const Entry& e = *wanted[i];
    const std::string what =
        e.file + " at 1/" + std::to_string(denom) + (e.crop.whole() ? "" : " cropped");
    if (!emulator) {
      const ImageInfo info = decoder.info(files[i].data(), files[i].size());
      CHECK(info.bit_depth == 16);
      const Image img = decoder.decode(input_of(files[i], e.crop));
      check_reference(img, e, what);
      // A file cut short decodes what it has, with block smoothing, and says so.
      CHECK((e.file.find("-cut.") != std::string::npos) == !img.warnings.empty());
    }
    inputs.push_back(input_of(files[i], e.crop));
  }
  inputs.push_back({eight.data(), eight.size()});
  const auto batch = decoder.decode_batch(inputs);
  REQUIRE(batch.size() == inputs.size());
  for (std::size_t i = 0; i < wanted.size(); ++i)
    check_reference(batch[i + 1], *wanted[i], wanted[i]->file + " in a batch");
  for (std::size_t i : {std::size_t(0), inputs.size() - 1}) {
    CHECK(batch[i].bit_depth == 8);
    CHECK(batch[i].pixels == eight_ref.samples);
  }
  const auto on_device = decoder.decode_batch_to_device(inputs);
  REQUIRE(on_device.size() == inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    CHECK(on_device[i].bit_depth == batch[i].bit_depth);
    CHECK(read_back(device, on_device[i]) == batch[i].pixels);
  }
  const DeviceImage one = decoder.decode_to_device(inputs[1]);
  CHECK(one.bit_depth == 16);
  CHECK(read_back(device, one) == batch[1].pixels);
}

}  // namespace

TEST_CASE("12-bit jpeg decode equals libjpeg-turbo 3 on every device, every scale, and cropped") {
  const std::vector<Entry> entries = manifest();
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (its own case below)
    for (int denom : {1, 2, 4, 8}) {
      INFO("1/" << denom);
      check_scale(device, entries, denom);
    }
  });
}

// Under Oclgrind one scale per process (emulator-jpeg-twelve-N), as for the other JPEG decode
// cases (test_jpeg_scaled.cpp says why), the batch as one chunk.
TEST_CASE("12-bit jpeg decode: one scale under the emulator") {
  const char* alone = std::getenv("HETCODEC_TEST_JPEG_TWELVE_ALONE");
  test::for_each_device([&](Device& device) {
    if (!device.info().is_emulator || !alone) return;
    check_scale(device, manifest(), std::atoi(alone));
  });
}
#ifdef HETCODEC_TEST_CLI
TEST_CASE("hetcodec decode writes a 12-bit jpeg as djpeg does: maxval 4095, 16-bit samples") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("hetcodec-cli-twelve-" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (const char* stem : {"rgb422-q75", "gray-prog"}) {
    const std::string out = (dir / "out.pnm").string();
    const std::string log = hetcodec::test::run_command(
        HETCODEC_TEST_CLI, "-d cpu decode " + kDir + stem + ".jpg " + out);
    INFO(stem << ": " << log);
    REQUIRE(log.find("exit 0") != std::string::npos);
    CHECK(log.find("12 bits") != std::string::npos);
    CHECK(read_test_file(out) == read_test_file(kDir + stem + "-1.pnm"));
  }
  fs::remove_all(dir);
}
#endif
