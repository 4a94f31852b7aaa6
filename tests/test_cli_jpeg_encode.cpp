// `hetcodec encode ... x.jpg`, `hetcodec transcode` and `hetcodec bench jpeg-encode` as a cjpeg
// user meets them: the real binary on files in a scratch directory, each JPEG it writes compared
// byte for byte with libjpeg-turbo's for the same settings (its C API, called here: jpeg_set_quality
// with force_baseline, JDCT_ISLOW, the same sampling, restart interval, optimize_coding, tables
// and markers), on every test device; bad options fail with status 1 naming the option.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <csetjmp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/cli_run.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/metadata_oracle.h"
#include "tests/support/test_support.h"

// jpeglib.h uses size_t and FILE without including their headers: it must come after them.
// clang-format off
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
// clang-format on

#ifdef HETCODEC_TEST_CLI
namespace {

namespace fs = std::filesystem;
using hetcodec::test::bytes_of;
using hetcodec::test::cli;
using hetcodec::test::put;
using hetcodec::test::Raster;
using hetcodec::test::Run;
using hetcodec::test::Scratch;

// What the encoder is asked for, as libjpeg-turbo's parameters.
struct Settings {
  int quality = 75;
  int h = 2, v = 2;   // luma sampling factors
  bool gray = false;  // jpeg_set_colorspace(JCS_GRAYSCALE)
  int restart = 0;    // restart_interval (MCUs)
  int rows = 0;       // restart_in_rows
  bool optimize = false;
  std::vector<std::array<unsigned, 64>> tables;  // jpeg_add_quant_table: slot 0, then 1
  std::vector<std::uint8_t> icc, exif;
};

struct JpegError {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
};
void on_error(j_common_ptr c) { std::longjmp(reinterpret_cast<JpegError*>(c->err)->jump, 1); }

// libjpeg-turbo's file of `in` (gray or RGB): cjpeg -dct int with `s`.
std::vector<std::uint8_t> libjpeg_compress(const Raster& in, const Settings& s) {
  jpeg_compress_struct c{};
  JpegError err{};
  c.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&c);
    std::free(out);
    throw std::runtime_error("libjpeg compress failed");
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, &out, &size);
  c.image_width = JDIMENSION(in.width);
  c.image_height = JDIMENSION(in.height);
  c.input_components = in.components;
  c.in_color_space = in.components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  if (s.gray) jpeg_set_colorspace(&c, JCS_GRAYSCALE);
  jpeg_set_quality(&c, s.quality, TRUE);
  for (std::size_t t = 0; t < s.tables.size(); ++t)
    jpeg_add_quant_table(&c, int(t), s.tables[t].data(), jpeg_quality_scaling(s.quality), TRUE);
  c.dct_method = JDCT_ISLOW;
  if (c.num_components == 3) {
    c.comp_info[0].h_samp_factor = s.h;
    c.comp_info[0].v_samp_factor = s.v;
  }
  c.restart_interval = unsigned(s.restart);
  c.restart_in_rows = s.rows;
  c.optimize_coding = s.optimize ? TRUE : FALSE;
  jpeg_start_compress(&c, TRUE);
  if (!s.exif.empty()) {
    std::vector<std::uint8_t> app1 = {'E', 'x', 'i', 'f', 0, 0};
    app1.insert(app1.end(), s.exif.begin(), s.exif.end());
    jpeg_write_marker(&c, JPEG_APP0 + 1, app1.data(), unsigned(app1.size()));
  }
  if (!s.icc.empty()) jpeg_write_icc_profile(&c, s.icc.data(), unsigned(s.icc.size()));
  const std::size_t row = std::size_t(in.width) * std::size_t(in.components);
  while (c.next_scanline < c.image_height) {
    JSAMPROW r = const_cast<JSAMPROW>(in.samples.data() + c.next_scanline * row);
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  std::vector<std::uint8_t> bytes(out, out + size);
  jpeg_destroy_compress(&c);
  std::free(out);
  return bytes;
}

// A binary PPM, PGM or PAM (RGB_ALPHA) of `r`.
std::vector<std::uint8_t> netpbm(const Raster& r) {
  const std::string dims = std::to_string(r.width) + " " + std::to_string(r.height);
  std::string head = r.components == 1 ? "P5\n" + dims + "\n255\n"
                     : r.components == 3
                         ? "P6\n" + dims + "\n255\n"
                         : "P7\nWIDTH " + std::to_string(r.width) + "\nHEIGHT " +
                               std::to_string(r.height) +
                               "\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n";
  std::vector<std::uint8_t> b(head.begin(), head.end());
  b.insert(b.end(), r.samples.begin(), r.samples.end());
  return b;
}

Raster gray_of(const Raster& rgb) {
  Raster g{rgb.width, rgb.height, 1, {}};
  for (std::size_t i = 0; i < rgb.samples.size(); i += 3)
    g.samples.push_back(
        std::uint8_t((rgb.samples[i] * 3 + rgb.samples[i + 1] * 5 + rgb.samples[i + 2]) / 9));
  return g;
}

std::array<unsigned, 64> table(unsigned seed, unsigned spread) {
  std::array<unsigned, 64> t{};
  for (unsigned i = 0; i < 64; ++i) t[i] = 1 + (i * seed + i / 8 * 3) % spread;
  return t;
}

// A cjpeg -qtables file of `tables`, with comments and uneven spacing.
std::string qtables_file(const std::vector<std::array<unsigned, 64>>& tables) {
  std::string s = "# quantisation tables, natural order\n";
  for (const auto& t : tables) {
    for (int i = 0; i < 64; ++i)
      s += std::to_string(t[std::size_t(i)]) + (i % 8 == 7 ? "  # row\n" : "\t ");
    s += "\n";
  }
  return s;
}

void put_text(const fs::path& p, const std::string& s) {
  put(p, std::vector<std::uint8_t>(s.begin(), s.end()));
}

// The devices the CLI is run on: every test device ($HETCODEC_TEST_DEVICES, or every device
// but emulators); an emulator only for the first encode case.
std::vector<hetcodec::DeviceInfo> devices() { return hetcodec::test::cli_devices(); }

}  // namespace

TEST_CASE("cli jpeg: encode writes libjpeg-turbo's bytes for each option set, on every device") {
  Scratch s("jpeg-encode");
  const Raster rgb = hetcodec::test::synthetic_rgb(45, 29, 7);  // partial MCUs both ways
  const Raster gray = gray_of(rgb);
  put(s.dir / "in.ppm", netpbm(rgb));
  put(s.dir / "gray.pgm", netpbm(gray));
  const std::vector<std::array<unsigned, 64>> two = {table(7, 60), table(13, 90)};
  put_text(s.dir / "two.txt", qtables_file(two));
  put_text(s.dir / "one.txt", qtables_file({two[0]}));
  struct Case {
    std::string args;
    Settings settings;
    bool gray_input = false;
  };
  std::vector<Case> cases;
  cases.push_back({"", {}});
  {
    Settings t;
    t.quality = 92;
    t.h = t.v = 1;
    cases.push_back({"--quality 92 --sampling 444", t});
    t = {};
    t.quality = 50;
    t.h = 2;
    t.v = 1;
    t.optimize = true;
    cases.push_back({"--quality 50 --sampling 422 --optimize --entropy device", t});
    t = {};
    t.h = 1;
    t.v = 2;
    t.restart = 3;
    cases.push_back({"--sampling 440 --restart 3 --entropy host", t});
    t = {};
    t.quality = 30;
    t.rows = 1;
    t.optimize = true;
    cases.push_back({"--quality 30 --restart-rows 1 --optimize", t});
    t = {};
    t.quality = 85;
    t.gray = true;
    cases.push_back({"--sampling gray --quality 85", t});
    t = {};
    t.quality = 60;
    t.tables = two;
    cases.push_back({"--quality 60 --quant-table two.txt", t});
    t = {};
    t.tables = {two[0]};
    t.restart = 1;
    cases.push_back({"--quant-table one.txt --restart 1", t});
    t = {};
    t.quality = 95;
    cases.push_back({"--quality 95 --sampling 444", t, true});  // gray input: one component
  }
  for (const auto& d : devices()) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (d.is_emulator && i > 0) break;  // Oclgrind: thousands of times slower
      const Case& c = cases[i];
      INFO(d.spec << ": " << c.args);
      const std::string in = c.gray_input ? "gray.pgm" : "in.ppm";
      const Run r = cli(s.dir, "-d " + d.spec + " encode " + in + " out.jpg " + c.args);
      INFO(r.log);
      REQUIRE(r.status == 0);
      CHECK(bytes_of(s.dir / "out.jpg") == libjpeg_compress(c.gray_input ? gray : rgb, c.settings));
    }
  }
  // Alpha left out with a note; --format jpeg with -o DIR writes .jpg files.
  Raster rgba{rgb.width, rgb.height, 4, {}};
  for (std::size_t i = 0; i < rgb.samples.size(); i += 3) {
    rgba.samples.insert(rgba.samples.end(), rgb.samples.begin() + std::ptrdiff_t(i),
                        rgb.samples.begin() + std::ptrdiff_t(i + 3));
    rgba.samples.push_back(std::uint8_t(i));
  }
  put(s.dir / "alpha.pam", netpbm(rgba));
  const Run r = cli(s.dir, "-d cpu encode --format jpeg -o out alpha.pam in.ppm --quality 80");
  INFO(r.log);
  REQUIRE(r.status == 0);
  CHECK(r.says("alpha channel left out"));
  Settings q80;
  q80.quality = 80;
  CHECK(bytes_of(s.dir / "out" / "alpha.jpg") == libjpeg_compress(rgb, q80));
  CHECK(bytes_of(s.dir / "out" / "in.jpg") == libjpeg_compress(rgb, q80));
  // An output named .png stays PNG.
  REQUIRE(cli(s.dir, "-q -d cpu encode in.ppm out.png").status == 0);
  CHECK(hetcodec::test::libpng_decode_expanded(bytes_of(s.dir / "out.png")).samples == rgb.samples);
}

TEST_CASE("cli jpeg: bad options and inputs fail with status 1, naming the option or file") {
  Scratch s("jpeg-bad");
  const Raster rgb = hetcodec::test::synthetic_rgb(16, 16, 3);
  put(s.dir / "in.ppm", netpbm(rgb));
  put_text(s.dir / "short.txt", "1 2 3\n");
  std::string zero = "0";
  for (int i = 1; i < 64; ++i) zero += " 1";
  put_text(s.dir / "zero.txt", zero + "\n");
  std::string word = qtables_file({table(3, 9)});
  word.replace(word.find('\n') + 1, 1, "x");
  put_text(s.dir / "word.txt", word);
  const std::pair<std::string, std::string> bad[] = {
      {"--quality 0", "--quality"},
      {"--quality 101", "--quality"},
      {"--sampling 411", "--sampling"},
      {"--restart -1", "--restart"},
      {"--restart 70000", "--restart"},
      {"--restart-rows 70000", "--restart-rows"},
      {"--restart 2 --restart-rows 1", "--restart"},
      {"--entropy gpu", "--entropy"},
      {"--quant-table missing.txt", "--quant-table missing.txt"},
      {"--quant-table short.txt", "--quant-table short.txt: 3 values"},
      {"--quant-table word.txt", "'x' is not a number"},
      {"--quant-table zero.txt", "0 is not 1..32767"},
      {"--png-mode small", "--png-mode is a PNG option"},
  };
  for (const auto& b : bad) {
    const Run r = cli(s.dir, "-d cpu encode in.ppm out.jpg " + b.first);
    INFO(b.first << "\n" << r.log);
    CHECK(r.status == 1);
    CHECK(r.says(b.second));
    CHECK(!fs::exists(s.dir / "out.jpg"));
  }
  Run r = cli(s.dir, "-d cpu encode in.ppm out.png --quality 90");
  CHECK(r.status == 1);
  CHECK(r.says("--quality is a JPEG option"));
  r = cli(s.dir, "-d cpu transcode in.ppm out.jpg --quality 0");
  CHECK(r.status == 1);
  CHECK(r.says("--quality"));
  // 16-bit and CMYK inputs: refused, naming the file.
  fs::copy_file(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "pngsuite" / "basn2c16.png",
                s.dir / "deep.png");
  r = cli(s.dir, "-d cpu encode deep.png deep.jpg");
  INFO(r.log);
  CHECK(r.status == 1);
  CHECK(r.says("deep.png: 16-bit"));
  Raster cmyk{8, 8, 4, hetcodec::test::random_bytes(std::size_t(8 * 8 * 4), 9)};
  put(s.dir / "cmyk.jpg", hetcodec::test::libjpeg_encode_ex(cmyk, {}));
  r = cli(s.dir, "-d cpu encode cmyk.jpg c.jpg");
  CHECK(r.status == 1);
  CHECK(r.says("cmyk.jpg: a CMYK image"));
  r = cli(s.dir, "-d cpu transcode cmyk.jpg c.jpg");
  CHECK(r.status == 1);
  CHECK(r.says("cmyk.jpg: a CMYK image"));
  // Many files to a directory (encoded a chunk at a time by encode_batch): the bad ones fail,
  // each named with its place in the list, the others are written.
  std::vector<Raster> rasters;
  std::string files;
  for (int i = 0; i < 5; ++i) {
    rasters.push_back(hetcodec::test::synthetic_rgb(9 + 11 * i, 30 - 5 * i, unsigned(i)));
    put(s.dir / ("m" + std::to_string(i) + ".ppm"), netpbm(rasters.back()));
    files += " m" + std::to_string(i) + ".ppm";
    if (i == 1) files += " deep.png";
    if (i == 3) files += " short.txt";
  }
  r = cli(s.dir, "-d cpu encode --format jpeg -o many" + files + " --quality 85");
  INFO(r.log);
  CHECK(r.status == 1);
  CHECK(r.says("[2/7] m1.ppm -> many/m1.jpg (20x25, YCbCr, "));
  CHECK(r.says("[3/7] unsupported: deep.png: 16-bit"));
  CHECK(r.says("[6/7] invalid data: short.txt"));
  CHECK(r.says("5 encoded, 2 failed"));
  Settings q85;
  q85.quality = 85;
  for (int i = 0; i < 5; ++i)
    CHECK(bytes_of(s.dir / "many" / ("m" + std::to_string(i) + ".jpg")) ==
          libjpeg_compress(rasters[std::size_t(i)], q85));
  CHECK(!fs::exists(s.dir / "many" / "deep.jpg"));
  CHECK(!fs::exists(s.dir / "many" / "short.jpg"));
  // --help explains every option.
  for (const char* cmd : {"encode", "transcode"}) {
    r = cli(s.dir, std::string(cmd) + " --help");
    CHECK(r.status == 0);
    for (const char* opt : {"--quality", "--sampling", "--optimize", "--restart ", "--restart-rows",
                            "--quant-table", "--entropy", "--strip", "--format", "alpha"})
      CHECK_MESSAGE(r.says(opt), cmd << " --help lacks " << opt);
  }
}

TEST_CASE("cli jpeg: transcode gives libjpeg-turbo's decode then encode, on every device") {
  Scratch s("jpeg-transcode");
  const Raster rgb = hetcodec::test::synthetic_rgb(37, 21, 5);
  hetcodec::test::EncodeParams p;
  p.quality = 90;
  p.h[0] = 2;
  p.v[0] = 1;  // 4:2:2 in, 4:2:0 out
  const auto jpeg = hetcodec::test::libjpeg_encode_ex(rgb, p);
  put(s.dir / "in.jpg", jpeg);
  const Raster decoded = hetcodec::test::libjpeg_decode_default(jpeg);
  put(s.dir / "in.ppm", netpbm(rgb));
  for (const auto& d : devices()) {
    // Oclgrind: its encode is the first case's; a decode and an encode there take minutes.
    if (d.is_emulator) continue;
    INFO(d.spec);
    Run r = cli(s.dir, "-d " + d.spec + " transcode in.jpg out.jpg --quality 80 --optimize");
    INFO(r.log);
    REQUIRE(r.status == 0);
    Settings t;
    t.quality = 80;
    t.optimize = true;
    CHECK(bytes_of(s.dir / "out.jpg") == libjpeg_compress(decoded, t));
    // PNG in (decoded on the device too), and PNG out.
    REQUIRE(cli(s.dir, "-q -d cpu encode in.ppm in.png").status == 0);
    r = cli(s.dir, "-d " + d.spec + " transcode in.png png.jpg --sampling 444");
    REQUIRE(r.status == 0);
    t = {};
    t.h = t.v = 1;
    CHECK(bytes_of(s.dir / "png.jpg") == libjpeg_compress(rgb, t));
    r = cli(s.dir, "-d " + d.spec + " transcode in.jpg out.png");
    REQUIRE(r.status == 0);
    CHECK(hetcodec::test::libpng_decode_expanded(bytes_of(s.dir / "out.png")).samples ==
          decoded.samples);
  }
  // A batch (JPEG files decoded together, all encoded together): the files that fail are
  // named with their places, the others written; status 1.
  put(s.dir / "bad.jpg", {0xFF, 0xD8, 0xFF, 0xD9});
  put(s.dir / "rgb.ppm", netpbm(rgb));
  REQUIRE(cli(s.dir, "-q -d cpu encode in.ppm in.png").status == 0);  // (whatever ran above)
  std::vector<Raster> more;
  for (int i = 0; i < 3; ++i) {
    const Raster r = hetcodec::test::synthetic_rgb(13 + 17 * i, 40 - 9 * i, unsigned(20 + i));
    const auto j = hetcodec::test::libjpeg_encode_ex(r, p);
    put(s.dir / ("more" + std::to_string(i) + ".jpg"), j);
    more.push_back(hetcodec::test::libjpeg_decode_default(j));
  }
  const Run r =
      cli(s.dir, "-d cpu transcode -o out in.jpg bad.jpg more0.jpg rgb.ppm in.png more1.jpg "
                 "more2.jpg");
  INFO(r.log);
  CHECK(r.status == 1);
  CHECK(r.says("[2/7] invalid data: bad.jpg: jpeg:"));
  CHECK(r.says("[4/7] invalid data: rgb.ppm: not a JPEG or PNG file"));
  CHECK(r.says("[5/7] in.png -> out/in.png.jpg"));  // (in.jpg and in.png share a name)
  CHECK(r.says("5 transcoded, 2 failed"));
  CHECK(bytes_of(s.dir / "out" / "in.jpg.jpg") == libjpeg_compress(decoded, Settings{}));
  CHECK(bytes_of(s.dir / "out" / "in.png.jpg") == libjpeg_compress(rgb, Settings{}));
  for (int i = 0; i < 3; ++i)
    CHECK(bytes_of(s.dir / "out" / ("more" + std::to_string(i) + ".jpg")) ==
          libjpeg_compress(more[std::size_t(i)], Settings{}));
  CHECK(!fs::exists(s.dir / "out" / "bad.jpg"));
}

TEST_CASE("cli jpeg: ICC profile and EXIF carried into the JPEG, --strip leaves them out") {
  Scratch s("jpeg-meta");
  hetcodec::test::JpegMetadataParams jp;
  jp.icc = hetcodec::test::icc_profile(70000, "RGB ", 21);  // two APP2 segments
  jp.exif = hetcodec::test::exif_block(50);
  const auto in = hetcodec::test::libjpeg_file(jp);
  put(s.dir / "in.jpg", in);
  const Raster decoded = hetcodec::test::libjpeg_decode_default(in);
  Settings with;
  with.icc = jp.icc;
  with.exif = jp.exif;
  for (const std::string cmd : {"encode", "transcode"}) {
    INFO(cmd);
    Run r = cli(s.dir, "-q -d cpu " + cmd + " in.jpg kept.jpg");
    INFO(r.log);
    REQUIRE(r.status == 0);
    const auto kept = bytes_of(s.dir / "kept.jpg");
    CHECK(kept == libjpeg_compress(decoded, with));
    const auto meta = hetcodec::test::libjpeg_metadata(kept);
    CHECK(meta.icc == jp.icc);
    CHECK(meta.exif == jp.exif);
    r = cli(s.dir, "-q -d cpu " + cmd + " --strip in.jpg stripped.jpg");
    REQUIRE(r.status == 0);
    const auto stripped = bytes_of(s.dir / "stripped.jpg");
    CHECK(stripped == libjpeg_compress(decoded, Settings{}));
    CHECK(!hetcodec::test::libjpeg_metadata(stripped).has_icc);
    CHECK(hetcodec::test::libjpeg_metadata(stripped).exif.empty());
  }
  // A PNG's iCCP and eXIf become APP2 and APP1.
  hetcodec::test::PngMetadataParams pp;
  pp.icc = hetcodec::test::icc_profile(3000, "RGB ", 22);
  pp.exif = hetcodec::test::exif_block(20);
  const auto png = hetcodec::test::libpng_file(pp);
  put(s.dir / "in.png", png);
  const Run r = cli(s.dir, "-q -d cpu encode in.png png.jpg");
  REQUIRE(r.status == 0);
  const auto meta = hetcodec::test::libjpeg_metadata(bytes_of(s.dir / "png.jpg"));
  CHECK(meta.icc == pp.icc);
  CHECK(meta.exif == pp.exif);
}

TEST_CASE("cli jpeg: bench jpeg-encode on a small directory checks and measures") {
  Scratch s("jpeg-bench");
  fs::create_directories(s.dir / "imgs");
  put(s.dir / "imgs" / "a.ppm", netpbm(hetcodec::test::synthetic_rgb(40, 24, 1)));
  put(s.dir / "imgs" / "b.ppm", netpbm(hetcodec::test::synthetic_rgb(17, 33, 2)));
  put(s.dir / "imgs" / "g.pgm", netpbm(gray_of(hetcodec::test::synthetic_rgb(8, 8, 3))));
  const Run r = cli(s.dir, "-d cpu bench jpeg-encode imgs --min-time 0 --json out.json");
  INFO(r.log);
  REQUIRE(r.status == 0);
  CHECK(r.says("skipped imgs/g.pgm: gray"));
  CHECK(r.says("differ"));
  std::ifstream f(s.dir / "out.json");
  const nlohmann::json doc = nlohmann::json::parse(f);
  CHECK(doc["benchmark"] == "jpeg-encode");
  CHECK(doc["settings"]["quality"] == 90);
  CHECK(doc["mismatches"] == 0);
  // 6 one-at-a-time rows (2 images, then 2 profiled) and 6 batch rows (an untimed pass and,
  // with --min-time 0, one timed pass of 2 images).
  CHECK(doc["checked"].get<int>() == 6 * (2 + 2) + 6 * (2 + 2));
  REQUIRE(doc["sets"].size() == 1);
  CHECK(doc["sets"][0]["images"] == 2);
  int ours = 0, batches = 0, resident = 0, pinned = 0, libjpeg = 0;
  for (const auto& row : doc["results"]) {
    if (row["kind"] == "hetcodec") {
      ++ours;
      CHECK(row["images_per_s"].get<double>() > 0);
      CHECK(row["mismatches"] == 0);
      CHECK(row["ratios"].contains("libjpeg-turbo 1 thread"));
      pinned += row["input"] == "pinned";
      if (row["batch"] == true) {  // encode_batch: host, pinned or device input, no stages
        ++batches;
        resident += row["input"] == "device";
        CHECK(row["batch_images"] == 2);
      } else {
        CHECK(row["stages_ms_per_image"].contains("transform"));
      }
    }
    if (row["kind"] == "libjpeg-turbo") ++libjpeg;
  }
  CHECK(ours == 12);  // 3 inputs, alone and in a batch; device and host entropy
  CHECK(batches == 6);
  CHECK(resident == 2);
  CHECK(pinned == 4);
  CHECK(libjpeg >= 1);
}
#endif  // HETCODEC_TEST_CLI
