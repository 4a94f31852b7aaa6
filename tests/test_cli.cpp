// The `hetcodec` command line as a djpeg, cjpeg or pngcrush user meets it: the real binary, run
// on files in a scratch directory, its outputs compared with libjpeg-turbo's and libpng's.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/support/libjpeg_oracle.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

#ifdef HETCODEC_TEST_CLI
namespace {

namespace fs = std::filesystem;
using hetcodec::test::Raster;

using hetcodec::test::bytes_of;
using hetcodec::test::cli;
using hetcodec::test::put;
using hetcodec::test::Run;
using hetcodec::test::Scratch;

fs::path data(const std::string& rel) { return fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / rel; }


using hetcodec::test::Netpbm;
using hetcodec::test::read_netpbm;

// An RGB JPEG of photo-like content, made by libjpeg.
std::vector<std::uint8_t> some_jpeg(unsigned seed = 3) {
  return hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(45, 29, seed),
                                           hetcodec::test::EncodeParams{});
}

}  // namespace

TEST_CASE("cli: global options before or after the command name") {
  Scratch s("options");
  put(s.dir / "in.jpg", some_jpeg());
  const Run before = cli(s.dir, "-d cpu decode in.jpg a.ppm");
  const Run after = cli(s.dir, "decode -d cpu in.jpg b.ppm");
  const Run quiet = cli(s.dir, "decode in.jpg c.ppm -q -d cpu");
  const Run quiet_first = cli(s.dir, "--quiet -d cpu decode in.jpg d.ppm");
  for (const Run* r : {&before, &after, &quiet, &quiet_first}) {
    INFO(r->log);
    CHECK(r->status == 0);
  }
  CHECK(before.says("-> a.ppm"));
  CHECK(after.says("-> b.ppm"));
  CHECK(quiet.log.empty());
  CHECK(quiet_first.log.empty());
  const auto a = bytes_of(s.dir / "a.ppm");
  for (const char* f : {"b.ppm", "c.ppm", "d.ppm"}) CHECK(bytes_of(s.dir / f) == a);
  // A one-device command given two devices says so and writes nothing.
  const Run two = cli(s.dir, "decode -d cpu in.jpg e.ppm -d opencl:0");
  if (two.says("matches nothing") || two.says("no device")) return;  // no OpenCL device here
  CHECK(two.status == 1);
  CHECK(two.says("runs on one device"));
  CHECK(!fs::exists(s.dir / "e.ppm"));
}

TEST_CASE("cli: a batch writes every file it can and names each one it cannot") {
  Scratch s("batch");
  const auto jpeg = some_jpeg();
  put(s.dir / "x.jpg", jpeg);
  fs::copy_file(data("pngsuite/basn6a08.png"), s.dir / "x.png");     // RGBA
  fs::copy_file(data("pngsuite/basn0g16.png"), s.dir / "deep.png");  // 16-bit gray
  fs::create_directories(s.dir / "adir");
  put(s.dir / "empty.jpg", {});
  put(s.dir / "elf.png", {0x7F, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0});
  put(s.dir / "image.jpg", {'P', '6', '\n', '1', ' ', '1', '\n', '2', '5', '5', '\n', 1, 2, 3});
  const Run r = cli(s.dir,
                    "-d cpu decode -o out x.jpg x.png deep.png adir missing.jpg empty.jpg elf.png "
                    "image.jpg");
  INFO(r.log);
  CHECK(r.status == 1);
  CHECK(r.says("adir: is a directory"));
  CHECK(r.says("missing.jpg: No such file or directory"));
  CHECK(r.says("empty.jpg: empty file"));
  CHECK(r.says("elf.png: not a JPEG or PNG file: an ELF executable"));
  CHECK(r.says("image.jpg: not a JPEG or PNG file (a PNM or PAM image"));
  CHECK(!r.says("jpeg:"));  // no file was taken for a JPEG by its name
  CHECK(r.says("3 decoded, 5 failed"));
  // x.jpg and x.png keep their extensions; each gets the format that holds it.
  const Netpbm from_jpeg = read_netpbm(bytes_of(s.dir / "out" / "x.jpg.pnm"));
  const Raster ref = hetcodec::test::libjpeg_decode_default(jpeg);
  CHECK(from_jpeg.kind == '6');
  CHECK(from_jpeg.samples == ref.samples);
  const Netpbm rgba = read_netpbm(bytes_of(s.dir / "out" / "x.png.pam"));
  const auto png_ref =
      hetcodec::test::libpng_decode_expanded(bytes_of(data("pngsuite/basn6a08.png")));
  CHECK(rgba.tuple == "RGB_ALPHA");
  CHECK(rgba.samples == png_ref.samples);
  const Netpbm deep = read_netpbm(bytes_of(s.dir / "out" / "deep.pam"));
  CHECK(deep.maxval == 65535);
  CHECK(deep.tuple == "GRAYSCALE");
  CHECK(std::distance(fs::directory_iterator(s.dir / "out"), fs::directory_iterator()) == 3);
}

TEST_CASE("cli: outputs whose names meet are all written") {
  Scratch s("names");
  fs::create_directories(s.dir / "a");
  fs::create_directories(s.dir / "b");
  put(s.dir / "a" / "x.jpg", some_jpeg(1));
  put(s.dir / "b" / "x.jpg", some_jpeg(2));
  const Run r = cli(s.dir, "-d cpu decode -o out --format ppm a/x.jpg b/x.jpg");
  INFO(r.log);
  CHECK(r.status == 0);
  const auto first = bytes_of(s.dir / "out" / "x.jpg.ppm");
  const auto second = bytes_of(s.dir / "out" / "x.jpg-2.ppm");
  CHECK(read_netpbm(first).samples == hetcodec::test::libjpeg_decode_default(some_jpeg(1)).samples);
  CHECK(read_netpbm(second).samples ==
        hetcodec::test::libjpeg_decode_default(some_jpeg(2)).samples);
  // encode, likewise: x.png and x.pam both to DIR/x...png.
  fs::copy_file(data("pngsuite/basn2c08.png"), s.dir / "x.png");
  put(s.dir / "x.pam", bytes_of(s.dir / "out" / "x.jpg.ppm"));
  const Run e = cli(s.dir, "-d cpu encode -o enc x.png x.pam");
  INFO(e.log);
  CHECK(e.status == 0);
  CHECK(fs::exists(s.dir / "enc" / "x.png.png"));
  CHECK(fs::exists(s.dir / "enc" / "x.pam.png"));
}

TEST_CASE("cli: the output format is checked before anything is decoded") {
  Scratch s("format");
  put(s.dir / "x.jpg", some_jpeg());
  fs::copy_file(data("pngsuite/basn6a08.png"), s.dir / "alpha.png");
  Run r = cli(s.dir, "-d cpu decode x.jpg out.xyz");
  CHECK(r.status == 1);
  CHECK(r.says("unknown output format 'xyz'"));
  CHECK(!fs::exists(s.dir / "out.xyz"));
  r = cli(s.dir, "-d cpu decode alpha.png out.ppm");
  CHECK(r.status == 1);
  CHECK(r.says("alpha channel"));
  CHECK(!fs::exists(s.dir / "out.ppm"));
  // In a batch, the file the format cannot hold fails alone.
  r = cli(s.dir, "-d cpu decode -o out --format ppm alpha.png x.jpg");
  INFO(r.log);
  CHECK(r.status == 1);
  CHECK(r.says("alpha channel"));
  CHECK(fs::exists(s.dir / "out" / "x.ppm"));
  CHECK(!fs::exists(s.dir / "out" / "alpha.ppm"));
}

TEST_CASE("cli: '-' reads standard input and writes standard output") {
  Scratch s("stdio");
  put(s.dir / "x.jpg", some_jpeg());
  Run r = cli(s.dir, "-q -d cpu decode x.jpg file.ppm");
  REQUIRE(r.status == 0);
  r = cli(s.dir, "-q -d cpu decode - - < x.jpg > piped.ppm");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(bytes_of(s.dir / "piped.ppm") == bytes_of(s.dir / "file.ppm"));
  r = cli(s.dir, "-q -d cpu encode - - < file.ppm > piped.png");
  CHECK(r.status == 0);
  const auto png = hetcodec::test::libpng_decode_expanded(bytes_of(s.dir / "piped.png"));
  CHECK(png.samples == read_netpbm(bytes_of(s.dir / "file.ppm")).samples);
}

TEST_CASE("cli: exit status as djpeg's, and --strict") {
  Scratch s("status");
  const auto jpeg = some_jpeg();
  put(s.dir / "good.jpg", jpeg);
  // Cut in the entropy-coded data: libjpeg-turbo decodes it with a warning.
  put(s.dir / "cut.jpg", std::vector<std::uint8_t>(jpeg.begin(), jpeg.end() - 40));
  int libjpeg_warnings = 0;
  const Raster ref =
      hetcodec::test::libjpeg_decode_default(bytes_of(s.dir / "cut.jpg"), &libjpeg_warnings);
  REQUIRE(libjpeg_warnings > 0);
  CHECK(cli(s.dir, "-d cpu decode good.jpg good.ppm").status == 0);
  Run r = cli(s.dir, "-d cpu decode cut.jpg cut.ppm");
  INFO(r.log);
  CHECK(r.status == 2);
  CHECK(r.says("warning: corrupt JPEG data"));
  CHECK(read_netpbm(bytes_of(s.dir / "cut.ppm")).samples == ref.samples);
  r = cli(s.dir, "decode --strict -d cpu cut.jpg strict.ppm");
  CHECK(r.status == 1);
  CHECK(r.says("--strict"));
  CHECK(!fs::exists(s.dir / "strict.ppm"));
  // A batch: a failure outranks a warning.
  r = cli(s.dir, "-d cpu decode -o out good.jpg cut.jpg");
  CHECK(r.status == 2);
  r = cli(s.dir, "-d cpu decode -o out good.jpg cut.jpg missing.jpg");
  CHECK(r.status == 1);
  // encode reports its inputs' warnings the same way.
  r = cli(s.dir, "-d cpu encode cut.jpg cut.png");
  CHECK(r.status == 2);
  CHECK(cli(s.dir, "-d cpu encode good.jpg good.png").status == 0);
}

TEST_CASE("cli: CMYK is converted as djpeg converts it, never taken for RGBA") {
  Scratch s("cmyk");
  // A CMYK JPEG (libjpeg writes Adobe YCCK from CMYK samples).
  Raster cmyk{23, 17, 4, {}};
  cmyk.samples = hetcodec::test::random_bytes(23 * 17 * 4, 5);
  put(s.dir / "cmyk.jpg", hetcodec::test::libjpeg_encode_ex(cmyk, hetcodec::test::EncodeParams{}));
  Run r = cli(s.dir, "-d cpu decode cmyk.jpg decoded.png");
  REQUIRE(r.status == 0);
  r = cli(s.dir, "-d cpu encode cmyk.jpg encoded.png");
  INFO(r.log);
  REQUIRE(r.status == 0);
  const auto decoded = hetcodec::test::libpng_decode_expanded(bytes_of(s.dir / "decoded.png"));
  const auto encoded = hetcodec::test::libpng_decode_expanded(bytes_of(s.dir / "encoded.png"));
  CHECK(decoded.channels == 3);
  CHECK(encoded.channels == 3);
  CHECK(encoded.samples == decoded.samples);
  // A PAM of TUPLTYPE CMYK: RGB by djpeg's formula (libjpeg-turbo's cmyk.h).
  r = cli(s.dir, "-d cpu decode cmyk.jpg cmyk.pam");
  REQUIRE(r.status == 0);
  const Netpbm pam = read_netpbm(bytes_of(s.dir / "cmyk.pam"));
  CHECK(pam.tuple == "CMYK");
  r = cli(s.dir, "-d cpu encode cmyk.pam from_pam.png");
  CHECK(r.status == 0);
  CHECK(r.says("CMYK converted to RGB"));
  const auto from_pam = hetcodec::test::libpng_decode_expanded(bytes_of(s.dir / "from_pam.png"));
  REQUIRE(from_pam.channels == 3);
  std::vector<std::uint8_t> expect;
  for (std::size_t i = 0; i < pam.samples.size(); i += 4)
    for (int c = 0; c < 3; ++c)
      expect.push_back(
          std::uint8_t(double(pam.samples[i + std::size_t(c)]) * pam.samples[i + 3] / 255.0 + 0.5));
  CHECK(from_pam.samples == expect);
  CHECK(from_pam.samples == decoded.samples);
  // A tuple type that does not fit the depth is refused, not guessed.
  auto bad = bytes_of(s.dir / "cmyk.pam");
  const std::string header(bad.begin(), bad.begin() + 64);
  const auto at = header.find("CMYK");
  REQUIRE(at != std::string::npos);
  bad.erase(bad.begin() + std::ptrdiff_t(at), bad.begin() + std::ptrdiff_t(at + 4));
  bad.insert(bad.begin() + std::ptrdiff_t(at), {'R', 'G', 'B'});
  put(s.dir / "bad.pam", bad);
  r = cli(s.dir, "-d cpu encode bad.pam bad.png");
  CHECK(r.status == 1);
  CHECK(r.says("TUPLTYPE RGB with DEPTH 4"));
}

TEST_CASE("cli: --fallback-cpu covers a device that is absent") {
  Scratch s("fallback");
  put(s.dir / "x.jpg", some_jpeg());
  Run r = cli(s.dir, "-d opencl:no-such-platform decode x.jpg a.ppm");
  CHECK(r.status == 1);
  CHECK(!fs::exists(s.dir / "a.ppm"));
  r = cli(s.dir, "decode x.jpg b.ppm -d opencl:no-such-platform --fallback-cpu");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("falling back to the CPU reference"));
  CHECK(r.says("on cpu"));
  CHECK(read_netpbm(bytes_of(s.dir / "b.ppm")).samples ==
        hetcodec::test::libjpeg_decode_default(some_jpeg()).samples);
}

TEST_CASE("cli: a device out of memory fails the file, or with --fallback-cpu the CPU decodes it") {
  std::string spec;
  for (const auto& d : hetcodec::test::cli_devices())
    if (d.kind != hetcodec::DeviceKind::Cpu && !d.is_emulator) spec = d.spec;
  if (spec.empty()) {
    MESSAGE("no device but the CPU reference: nothing to fall back from");
    return;
  }
  INFO(spec);
  Scratch s("device-memory");
  const auto jpeg = hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(640, 480, 5),
                                                      hetcodec::test::EncodeParams{});
  put(s.dir / "x.jpg", jpeg);
  put(s.dir / "small.jpg", some_jpeg());
  // 640x480 needs more than 64 KiB of device memory.
  Run r = cli(s.dir, "-d " + spec + " --device-memory 64KiB decode x.jpg x.ppm");
  INFO(r.log);
  CHECK(r.status == 1);
  CHECK(r.says("out of memory"));
  CHECK(r.says("device memory limit of 65536 bytes"));
  CHECK(!fs::exists(s.dir / "x.ppm"));
  r = cli(s.dir,
          "-d " + spec + " --device-memory 64KiB --fallback-cpu decode -o back x.jpg small.jpg");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("x.jpg: out of memory"));
  CHECK(r.says("decoding it on the CPU reference"));
  CHECK(read_netpbm(bytes_of(s.dir / "back" / "small.pnm")).samples ==
        hetcodec::test::libjpeg_decode_default(some_jpeg()).samples);
  CHECK(read_netpbm(bytes_of(s.dir / "back" / "x.pnm")).samples ==
        hetcodec::test::libjpeg_decode_default(jpeg).samples);
}
#endif
