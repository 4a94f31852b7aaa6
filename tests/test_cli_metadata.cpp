// The command-line tool, run as a program: `encode` and `decode` carry a file's metadata into
// the PNG they write unless --strip is given, and `info` describes PNG, JPEG, PNM and PAM files,
// found by their bytes; its JSON is checked against libpng's and libjpeg's own reading of the
// same files (tests/support/metadata_oracle.h).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/png/metadata.h"
#include "core/png/writer.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/metadata_oracle.h"
#include "tests/support/test_support.h"

#ifdef HETCODEC_TEST_CLI

namespace fs = std::filesystem;
using namespace hetcodec;

namespace {

fs::path data_dir() { return fs::path(HETCODEC_TEST_SOURCE_DIR) / "data"; }

std::vector<std::uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

void write_file(const fs::path& p, const std::vector<std::uint8_t>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

void write_file(const fs::path& p, const std::string& s) {
  write_file(p, std::vector<std::uint8_t>(s.begin(), s.end()));
}

// A fresh directory for one test case, removed at its end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path operator/(const std::string& f) const { return path / f; }
};

std::string run(const std::string& args) { return test::run_command(HETCODEC_TEST_CLI, args); }

bool exited(const std::string& log, int code) {
  return log.size() >= 6 && log.substr(log.rfind("\nexit ") + 6) == std::to_string(code);
}

// `hetcodec info --json FILES`: the array it prints.
nlohmann::json info_json(const std::vector<fs::path>& files) {
  std::string args = "info --json";
  for (const auto& f : files) args += " " + f.string();
  std::string log = run(args);
  INFO(log);
  REQUIRE(exited(log, 0));
  log.resize(log.rfind("\nexit "));
  return nlohmann::json::parse(log);
}

bool has_carried_chunk(const std::vector<std::uint8_t>& png) {
  const auto types = test::chunk_types(png);
  return std::any_of(types.begin(), types.end(), png::carried_chunk);
}

}  // namespace

TEST_CASE("hetcodec encode keeps a PNG's and a JPEG's metadata; --strip leaves it out") {
  const TempDir dir("hetcodec-meta-encode");
  test::PngMetadataParams pp;
  pp.icc = test::icc_profile(4000, "RGB ", 11);
  pp.exif = test::exif_block(30);
  const auto png_in = test::libpng_file(pp);
  write_file(dir / "in.png", png_in);
  test::JpegMetadataParams jp;
  jp.icc = test::icc_profile(100000, "RGB ", 12);
  jp.exif = test::exif_block(80);
  const auto jpeg_in = test::libjpeg_file(jp);
  write_file(dir / "in.jpg", jpeg_in);
  const test::LibpngMetadata png_src = test::libpng_metadata(png_in);
  const auto jpeg_pixels = test::libjpeg_decode_default(jpeg_in).samples;
  for (const std::string mode : {"compatible", "parallel"}) {
    INFO(mode);
    const std::string encode = "-d cpu encode -q --png-mode " + mode + " ";
    std::string log = run(encode + (dir / "in.png").string() + " " + (dir / "a.png").string());
    INFO(log);
    REQUIRE(exited(log, 0));
    const auto a = read_file(dir / "a.png");
    test::LibpngMetadata back = test::libpng_metadata(a);
    CHECK(back.samples == png_src.samples);
    CHECK(back.icc == pp.icc);
    CHECK(back.icc_name == png_src.icc_name);
    CHECK(back.exif == pp.exif);
    CHECK(back.gama == png_src.gama);
    CHECK(back.has_chrm);
    CHECK(back.phys_y == 3780);
    CHECK(back.text.size() == 3);
    CHECK(test::chunk_data(a, "iCCP") == test::chunk_data(png_in, "iCCP"));

    log = run(encode + (dir / "in.jpg").string() + " " + (dir / "b.png").string());
    REQUIRE(exited(log, 0));
    back = test::libpng_metadata(read_file(dir / "b.png"));
    CHECK(back.samples == jpeg_pixels);
    CHECK(back.icc == jp.icc);
    CHECK(back.exif == jp.exif);

    for (const std::string in : {"in.png", "in.jpg"}) {
      log = run(encode + "--strip " + (dir / in).string() + " " + (dir / "c.png").string());
      REQUIRE(exited(log, 0));
      const auto c = read_file(dir / "c.png");
      CHECK(!has_carried_chunk(c));
      CHECK(test::libpng_metadata(c).samples == (in == "in.png" ? png_src.samples : jpeg_pixels));
    }
  }
}

TEST_CASE("hetcodec decode to PNG keeps a JPEG's EXIF and ICC profile; --strip leaves them out") {
  const TempDir dir("hetcodec-meta-decode");
  test::JpegMetadataParams jp;
  jp.icc = test::icc_profile(70000, "RGB ", 13);
  jp.exif = test::exif_block(10);
  const auto jpeg_in = test::libjpeg_file(jp);
  write_file(dir / "in.jpg", jpeg_in);
  std::string log =
      run("-d cpu decode -q " + (dir / "in.jpg").string() + " " + (dir / "out.png").string());
  INFO(log);
  REQUIRE(exited(log, 0));
  test::LibpngMetadata back = test::libpng_metadata(read_file(dir / "out.png"));
  CHECK(back.samples == test::libjpeg_decode_default(jpeg_in).samples);
  CHECK(back.icc == jp.icc);
  CHECK(back.exif == jp.exif);
  log = run("-d cpu decode -q --strip " + (dir / "in.jpg").string() + " " +
            (dir / "strip.png").string());
  REQUIRE(exited(log, 0));
  CHECK(!has_carried_chunk(read_file(dir / "strip.png")));
  // PNG to PNG goes through the encoder: the chunks as they were.
  test::PngMetadataParams pp;
  pp.icc = test::icc_profile(800, "GRAY", 14);
  pp.channels = 1;
  const auto png_in = test::libpng_file(pp);
  write_file(dir / "in.png", png_in);
  log = run("-d cpu decode -q " + (dir / "in.png").string() + " " + (dir / "re.png").string());
  REQUIRE(exited(log, 0));
  const auto re = read_file(dir / "re.png");
  for (const char* t : {"iCCP", "gAMA", "cHRM", "pHYs", "tEXt", "zTXt", "iTXt"})
    CHECK(test::chunk_data(re, t) == test::chunk_data(png_in, t));
  CHECK(test::libpng_metadata(re).samples == test::libpng_metadata(png_in).samples);
  log = run("-d cpu decode -q --strip " + (dir / "in.png").string() + " " +
            (dir / "re2.png").string());
  REQUIRE(exited(log, 0));
  CHECK(!has_carried_chunk(read_file(dir / "re2.png")));
}

TEST_CASE("hetcodec info: PNG files as libpng reads them, found by their bytes") {
  const TempDir dir("hetcodec-info-png");
  const fs::path suite = data_dir() / "pngsuite";
  std::vector<fs::path> files = {suite / "basn2c08.png", suite / "basi0g08.png",
                                 suite / "ct1n0g04.png", suite / "ccwn2c08.png",
                                 suite / "cdun2c08.png", suite / "exif2c08.png",
                                 suite / "basi3p02.png"};
  test::PngMetadataParams pp;
  pp.icc = test::icc_profile(6000, "RGB ", 15);
  write_file(dir / "png-named.jpg", test::libpng_file(pp));  // the name says JPEG
  files.push_back(dir / "png-named.jpg");
  // A file of our parallel mode: its hcRS segment index.
  std::string log = run("-d cpu encode -q --segments 4 " + (suite / "basn2c08.png").string() + " " +
                        (dir / "parallel.png").string());
  REQUIRE(exited(log, 0));
  files.push_back(dir / "parallel.png");
  const nlohmann::json all = info_json(files);
  REQUIRE(all.size() == files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const nlohmann::json& j = all[i];
    INFO(files[i].string());
    const auto bytes = read_file(files[i]);
    const test::LibpngMetadata m = test::libpng_metadata(bytes);
    CHECK(j["format"] == "png");
    CHECK(j["file"] == files[i].string());
    CHECK(j["width"] == m.width);
    CHECK(j["height"] == m.height);
    CHECK(j["bit_depth"] == m.bit_depth);
    CHECK(j["color_type"] == m.color_type);
    CHECK(j["interlace"] == (m.interlace ? "Adam7" : "none"));
    std::vector<std::string> types;
    for (const auto& c : j["chunks"]) types.push_back(c["type"]);
    CHECK(types == test::chunk_types(bytes));
    const nlohmann::json& md = j["metadata"];
    CHECK(md.contains("gamma") == m.has_gama);
    if (m.has_gama) CHECK(md["gamma"] == m.gama);
    CHECK(md.contains("chromaticities") == m.has_chrm);
    if (m.has_chrm) {
      CHECK(md["chromaticities"]["white"][0] == m.chrm[0]);
      CHECK(md["chromaticities"]["blue"][1] == m.chrm[7]);
    }
    CHECK(md.contains("pixels_per_unit") == m.has_phys);
    if (m.has_phys) {
      CHECK(md["pixels_per_unit"]["x"] == m.phys_x);
      CHECK(md["pixels_per_unit"]["y"] == m.phys_y);
      CHECK(md["pixels_per_unit"]["unit"] == (m.phys_unit == 1 ? "metre" : "unknown"));
    }
    CHECK(md.contains("exif_bytes") == !m.exif.empty());
    if (!m.exif.empty()) CHECK(md["exif_bytes"] == m.exif.size());
    CHECK(md.contains("icc_profile") == m.has_iccp);
    if (m.has_iccp) {
      CHECK(md["icc_profile"]["bytes"] == m.icc.size());
      CHECK(md["icc_profile"]["name"] == m.icc_name);
    }
    std::size_t texts = md.contains("text") ? md["text"].size() : 0;
    REQUIRE(texts == m.text.size());
    for (std::size_t k = 0; k < texts; ++k) {
      CHECK(md["text"][k]["keyword"] == m.text[k].key);
      CHECK(md["text"][k]["text"] == m.text[k].text);
    }
    const bool ours = files[i].filename() == "parallel.png";
    CHECK(j["segment_index"].is_null() == !ours);
    if (ours) {
      CHECK(j["segment_index"]["kind"] == "hcRS");
      CHECK(j["segment_index"]["segments"] == png::read_restart_index(bytes).first_row.size());
    }
  }
  CHECK(all[6]["palette_entries"] == 4);
  // The text form names the interlace and the chunks.
  log = run("info " + (suite / "basi0g08.png").string());
  CHECK(exited(log, 0));
  CHECK(log.find("interlaced (Adam7)") != std::string::npos);
  CHECK(log.find("gAMA (4)") != std::string::npos);
}

TEST_CASE("hetcodec info: JPEG colour spaces as libjpeg reads them, progressive files included") {
  const TempDir dir("hetcodec-info-jpeg");
  std::vector<fs::path> files = {data_dir() / "jpeg" / "testimgint.jpg",
                                 data_dir() / "jpeg" / "testorig.jpg",
                                 data_dir() / "jpeg" / "testimgari.jpg"};
  struct Made {
    const char* name;
    bool progressive, rgb, gray;
  };
  for (const Made& m :
       {Made{"progressive.jpg", true, false, false}, Made{"progressive-rgb.jpg", true, true, false},
        Made{"progressive-gray.jpg", true, false, true},
        Made{"baseline-rgb.jpg", false, true, false}}) {
    test::JpegMetadataParams p;
    p.progressive = m.progressive;
    p.rgb = m.rgb;
    p.gray = m.gray;
    if (m.rgb) p.icc = test::icc_profile(500, "RGB ", 16);
    p.exif = test::exif_block(5);
    write_file(dir / m.name, test::libjpeg_file(p));
    files.push_back(dir / m.name);
  }
  const nlohmann::json all = info_json(files);
  REQUIRE(all.size() == files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    INFO(files[i].string());
    const nlohmann::json& j = all[i];
    const auto bytes = read_file(files[i]);
    const test::LibjpegMetadata m = test::libjpeg_metadata(bytes);
    CHECK(j["format"] == "jpeg");
    CHECK(j["width"] == m.width);
    CHECK(j["height"] == m.height);
    CHECK(j["components"] == m.components);
    CHECK(j["color"] == test::libjpeg_color_name(m.color_space));
    CHECK((j["process"].get<std::string>().find("progressive") != std::string::npos) ==
          m.progressive);
    CHECK(j["metadata"]["icc_profile_bytes"] == m.icc.size());
    CHECK(j["metadata"]["exif_bytes"] == m.exif.size());
  }
  CHECK(all[3]["color"] == "YCbCr");  // what the oracle says, named
  CHECK(all[4]["color"] == "RGB");
  CHECK(all[5]["color"] == "grayscale");
  const std::string log = run("info " + (dir / "progressive.jpg").string());
  CHECK(log.find("(YCbCr)") != std::string::npos);
}

TEST_CASE("hetcodec info: PNM and PAM headers; empty and unknown files named") {
  const TempDir dir("hetcodec-info-pnm");
  write_file(dir / "rgba.pam",
             "P7\nWIDTH 5\nHEIGHT 3\nDEPTH 4\nMAXVAL 65535\nTUPLTYPE RGB_ALPHA\n"
             "ENDHDR\n" +
                 std::string(5 * 3 * 4 * 2, 'x'));
  write_file(dir / "gray.pgm", "P5\n# a comment\n7 2\n255\n" + std::string(14, 'y'));
  write_file(dir / "short.ppm", "P6 4 4 255\n" + std::string(10, 'z'));
  const nlohmann::json all = info_json({dir / "rgba.pam", dir / "gray.pgm", dir / "short.ppm"});
  REQUIRE(all.size() == 3);
  CHECK(all[0]["format"] == "pam");
  CHECK(all[0]["width"] == 5);
  CHECK(all[0]["height"] == 3);
  CHECK(all[0]["depth"] == 4);
  CHECK(all[0]["maxval"] == 65535);
  CHECK(all[0]["tuple_type"] == "RGB_ALPHA");
  CHECK(all[0]["warnings"].empty());
  CHECK(all[1]["format"] == "pnm");
  CHECK(all[1]["kind"] == "PGM");
  CHECK(all[1]["width"] == 7);
  CHECK(all[1]["depth"] == 1);
  CHECK(all[1]["maxval"] == 255);
  CHECK(all[1]["tuple_type"] == "GRAYSCALE");
  CHECK(all[1]["warnings"].empty());
  CHECK(all[2]["tuple_type"] == "RGB");
  CHECK(all[2]["warnings"].size() == 1);  // 48 bytes of samples expected, 10 present

  write_file(dir / "empty.png", std::string());
  write_file(dir / "text.jpg", "hello\n");
  std::string log = run("info " + (dir / "empty.png").string());
  CHECK(exited(log, 1));
  CHECK(log.find("empty file") != std::string::npos);
  log = run("info --json " + (dir / "text.jpg").string());
  CHECK(exited(log, 1));
  CHECK(log.find("not a JPEG, PNG, PNM or PAM file") != std::string::npos);
}

#endif  // HETCODEC_TEST_CLI
