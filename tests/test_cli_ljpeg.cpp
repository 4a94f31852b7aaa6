// `hetcodec decode` and `hetcodec info` on lossless JPEG files (tests/data/ljpeg), the real
// binary as a djpeg, dcmtk or netpbm user runs it: Netpbm outputs of maxval 2^P - 1 whose samples
// hash to libjpeg-turbo 3's digests (manifest.txt), PNG outputs read back through libpng with
// sBIT honoured (png_set_shift), row table sidecars written and read, and info's fields against
// the manifest and the decoder's own report.
#include <doctest/doctest.h>
#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/hash.h"
#include "hetcodec/jpeg.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

#ifdef HETCODEC_TEST_CLI
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kDir = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "ljpeg";

using hetcodec::test::bytes_of;
using hetcodec::test::cli;
using hetcodec::test::put;
using hetcodec::test::Run;
using hetcodec::test::Scratch;

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }


using Entry = hetcodec::test::LjpegEntry;

// The manifest by file name.
std::map<std::string, Entry> manifest() {
  std::map<std::string, Entry> out;
  for (const Entry& e : hetcodec::test::ljpeg_manifest()) out[e.name] = e;
  return out;
}

std::string digest(const std::vector<std::uint8_t>& samples) {
  return hetcodec::Fnv1a64().add(samples.data(), samples.size()).hex();
}

using hetcodec::test::Netpbm;
using hetcodec::test::read_netpbm;

unsigned sample_at(const std::vector<std::uint8_t>& s, std::size_t i, int bytes) {
  return bytes == 2 ? unsigned(s[2 * i]) << 8 | s[2 * i + 1] : s[i];
}

// The samples as the library's decoder gives them (the CPU reference).
hetcodec::Image api_decode(const std::vector<std::uint8_t>& file) {
  hetcodec::JpegDecoder decoder("cpu");
  return decoder.decode(file);
}

// A Netpbm file of a lossless image: its header and samples as netpbm's convention asks
// (maxval 2^P - 1, one byte a sample below 256, else two big-endian), equal to libjpeg-turbo 3's.
void check_netpbm(const Netpbm& n, const Entry& e, int depth) {
  INFO(e.name);
  CHECK(n.width == e.width);
  CHECK(n.height == e.height);
  CHECK(n.depth == depth);
  CHECK(n.maxval == (1 << e.precision) - 1);
  const int bytes = n.maxval < 256 ? 1 : 2;
  REQUIRE(n.samples.size() ==
          std::size_t(e.width) * std::size_t(e.height) * std::size_t(depth) * std::size_t(bytes));
  unsigned top = 0;
  for (std::size_t i = 0; i < n.samples.size() / std::size_t(bytes); ++i)
    top = std::max(top, sample_at(n.samples, i, bytes));
  CHECK(top <= unsigned(n.maxval));
}

// A PNG file read through libpng's C API: as stored, and with png_set_shift(sBIT) as a reader
// that honours sBIT gets it.
struct Png {
  int width = 0, height = 0, channels = 0, bit_depth = 0;
  bool has_sbit = false;
  png_color_8 sbit{};
  std::vector<std::uint8_t> stored, shifted;
};

std::vector<std::uint8_t> png_rows(const std::vector<std::uint8_t>& file, bool shift, Png* out) {
  struct Source {
    const std::vector<std::uint8_t>* b;
    std::size_t at;
  } src{&file, 0};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  std::vector<std::uint8_t> rows;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    FAIL("libpng refused the file");
    return rows;
  }
  png_set_read_fn(png, &src, [](png_structp p, png_bytep data, png_size_t n) {
    auto* s = static_cast<Source*>(png_get_io_ptr(p));
    if (s->at + n > s->b->size()) png_error(p, "truncated");
    std::copy_n(s->b->data() + s->at, n, data);
    s->at += n;
  });
  png_read_info(png, info);
  out->width = int(png_get_image_width(png, info));
  out->height = int(png_get_image_height(png, info));
  out->channels = png_get_channels(png, info);
  out->bit_depth = png_get_bit_depth(png, info);
  png_color_8p sbit = nullptr;
  out->has_sbit = png_get_sBIT(png, info, &sbit) != 0;
  if (out->has_sbit) out->sbit = *sbit;
  if (shift && out->has_sbit) png_set_shift(png, sbit);
  png_read_update_info(png, info);
  const std::size_t row = png_get_rowbytes(png, info);
  rows.resize(row * std::size_t(out->height));
  for (int y = 0; y < out->height; ++y)
    png_read_row(png, rows.data() + row * std::size_t(y), nullptr);
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return rows;
}

Png read_png(const std::vector<std::uint8_t>& file) {
  Png p;
  p.stored = png_rows(file, false, &p);
  p.shifted = png_rows(file, true, &p);
  return p;
}

}  // namespace

TEST_CASE("cli ljpeg: PGM, PPM, PNM and PAM hold the samples with maxval 2^P - 1") {
  Scratch s("ljpeg-netpbm");
  const auto m = manifest();
  struct Case {
    const char* file;
    const char* out;
    char kind;
    int depth;
    const char* tuple;
  };
  const Case cases[] = {
      {"ic-gray2-pred1-64x33.jpg", "a.pgm", '5', 1, ""},
      {"wr-gray2-pred1-64x33-pt1.jpg", "b.pnm", '5', 1, ""},
      {"ic-gray4-pred6-64x33.jpg", "c.pgm", '5', 1, ""},
      {"ic-gray8-pred3-64x33.jpg", "d.pgm", '5', 1, ""},
      {"ic-gray12-pred5-301x7.jpg", "e.pgm", '5', 1, ""},
      {"wr-gray12-pred1-37x23-pt2.jpg", "f.pnm", '5', 1, ""},
      {"ic-gray16-pred4-257x70.jpg", "g.pgm", '5', 1, ""},
      {"ic-rgb12-pred1-37x23.jpg", "h.ppm", '6', 3, ""},
      {"ic-rgb4-pred2-37x23.jpg", "i.pnm", '6', 3, ""},
      {"ic-rgb16-pred5-37x23.jpg", "j.ppm", '6', 3, ""},
      {"ic-ga12-pred2-37x23.jpg", "k.pam", '7', 2, "GRAYSCALE_ALPHA"},
      {"ic-ga8-pred7-37x23.jpg", "l.pam", '7', 2, "GRAYSCALE_ALPHA"},
      {"wr-cmyk8-pred4-37x23-2plus2scans-rst1row.jpg", "m.pam", '7', 4, "CMYK"},
      {"ic-rgba16-pred6-37x23.jpg", "n.pam", '7', 4, "CMYK"},
      {"ic-gray10-pred3-64x33.jpg", "o.pam", '7', 1, "GRAYSCALE"},
  };
  for (const Case& c : cases) {
    const Entry& e = m.at(c.file);
    INFO(c.file << " -> " << c.out);
    const Run r = cli(s.dir, "-d cpu decode " + quoted(kDir / c.file) + " " + c.out);
    INFO(r.log);
    REQUIRE(r.status == 0);
    const auto out = bytes_of(s.dir / c.out);
    const Netpbm n = read_netpbm(out);
    CHECK(n.kind == c.kind);
    CHECK(n.tuple == c.tuple);
    check_netpbm(n, e, c.depth);
    CHECK(digest(n.samples) == e.digest);  // libjpeg-turbo 3's samples
    CHECK(n.samples == api_decode(bytes_of(kDir / c.file)).pixels);
    if (e.precision != 8 && e.precision != 16)
      CHECK(r.says("(" + std::to_string(e.width) + "x" + std::to_string(e.height)));
    CHECK(r.says(", " + std::to_string(e.precision) + " bits)") == (e.precision != 8));
  }
}

TEST_CASE("cli ljpeg: gray to PPM, the standard streams and a batch keep maxval") {
  Scratch s("ljpeg-streams");
  const auto m = manifest();
  const Entry& g12 = m.at("ic-gray12-pred3-64x33.jpg");
  const Entry& g2 = m.at("ic-gray2-pred7-64x33.jpg");
  const Entry& rgb8 = m.at("ic-rgb8-pred4-37x23.jpg");
  fs::copy_file(kDir / g12.name, s.dir / "ct.dcm");  // found by its bytes, not its name
  fs::copy_file(kDir / g2.name, s.dir / "two.jpg");
  fs::copy_file(kDir / rgb8.name, s.dir / "rgb.jpg");

  // Gray as PPM: each sample three times, maxval kept.
  REQUIRE(cli(s.dir, "-q -d cpu decode ct.dcm gray.ppm").status == 0);
  const Netpbm ppm = read_netpbm(bytes_of(s.dir / "gray.ppm"));
  CHECK(ppm.maxval == 4095);
  const Netpbm pgm_ref = [&] {
    REQUIRE(cli(s.dir, "-q -d cpu decode ct.dcm ref.pgm").status == 0);
    return read_netpbm(bytes_of(s.dir / "ref.pgm"));
  }();
  CHECK(digest(pgm_ref.samples) == g12.digest);
  REQUIRE(ppm.samples.size() == 3 * pgm_ref.samples.size());
  bool tripled = true;
  for (std::size_t i = 0; i < pgm_ref.samples.size() / 2; ++i)
    for (std::size_t c = 0; c < 3; ++c)
      tripled &= ppm.samples[6 * i + 2 * c] == pgm_ref.samples[2 * i] &&
                 ppm.samples[6 * i + 2 * c + 1] == pgm_ref.samples[2 * i + 1];
  CHECK(tripled);

  // Standard input to standard output: PNM.
  const Run piped = cli(s.dir, "-q -d cpu decode - - < two.jpg > piped.pnm");
  INFO(piped.log);
  REQUIRE(piped.status == 0);
  const Netpbm p = read_netpbm(bytes_of(s.dir / "piped.pnm"));
  check_netpbm(p, g2, 1);
  CHECK(p.kind == '5');
  CHECK(p.maxval == 3);
  CHECK(digest(p.samples) == g2.digest);

  // A batch: PAM for the 16-bit image, PNM for the others, each with its maxval.
  const Run batch = cli(s.dir, "-d cpu decode -o out ct.dcm two.jpg rgb.jpg");
  INFO(batch.log);
  REQUIRE(batch.status == 0);
  const Netpbm a = read_netpbm(bytes_of(s.dir / "out" / "ct.pam"));
  const Netpbm b = read_netpbm(bytes_of(s.dir / "out" / "two.pnm"));
  const Netpbm c = read_netpbm(bytes_of(s.dir / "out" / "rgb.pnm"));
  check_netpbm(a, g12, 1);
  check_netpbm(b, g2, 1);
  check_netpbm(c, rgb8, 3);
  CHECK(digest(a.samples) == g12.digest);
  CHECK(digest(b.samples) == g2.digest);
  CHECK(digest(c.samples) == rgb8.digest);
}

TEST_CASE("cli ljpeg: CMYK to PPM as djpeg converts it, at the file's maxval") {
  Scratch s("ljpeg-cmyk");
  for (const char* name :
       {"wr-cmyk8-pred4-37x23-2plus2scans-rst1row.jpg", "ic-rgba16-pred6-37x23.jpg"}) {
    INFO(name);
    REQUIRE(cli(s.dir, "-q -d cpu decode " + quoted(kDir / name) + " a.pam").status == 0);
    REQUIRE(cli(s.dir, "-q -d cpu decode " + quoted(kDir / name) + " a.ppm").status == 0);
    const Netpbm pam = read_netpbm(bytes_of(s.dir / "a.pam"));
    const Netpbm ppm = read_netpbm(bytes_of(s.dir / "a.ppm"));
    CHECK(ppm.kind == '6');
    CHECK(ppm.maxval == pam.maxval);
    const int bytes = pam.maxval < 256 ? 1 : 2;
    const std::size_t pixels = std::size_t(pam.width) * std::size_t(pam.height);
    REQUIRE(ppm.samples.size() == pixels * 3 * std::size_t(bytes));
    bool same = true;
    for (std::size_t i = 0; i < pixels; ++i) {
      const double k = sample_at(pam.samples, 4 * i + 3, bytes);
      for (std::size_t c = 0; c < 3; ++c) {
        const double v = sample_at(pam.samples, 4 * i + c, bytes);
        same &= sample_at(ppm.samples, 3 * i + c, bytes) == unsigned(v * k / pam.maxval + 0.5);
      }
    }
    CHECK(same);
  }
}

TEST_CASE("cli ljpeg: PNG scaled to its depth with sBIT = P, read back exactly by libpng") {
  Scratch s("ljpeg-png");
  const auto m = manifest();
  for (const char* name :
       {"ic-gray2-pred1-64x33.jpg", "wr-gray2-pred1-64x33-pt1.jpg", "ic-gray4-pred1-64x33.jpg",
        "ic-gray8-pred5-64x33.jpg", "ic-gray10-pred3-64x33.jpg", "ic-gray12-pred2-64x33.jpg",
        "ic-gray14-pred5-64x33.jpg", "ic-gray16-pred6-64x33.jpg", "ic-rgb4-pred2-37x23.jpg",
        "ic-rgb12-pred4-37x23.jpg", "ic-ga12-pred2-37x23.jpg", "ff-bgr24-pred2-64x33.jpg"}) {
    const Entry& e = m.at(name);
    INFO(name);
    const Run r = cli(s.dir, "-q -d cpu decode " + quoted(kDir / name) + " out.png");
    INFO(r.log);
    REQUIRE(r.status == 0);
    const Png p = read_png(bytes_of(s.dir / "out.png"));
    const int depth = e.precision <= 8 ? 8 : 16;
    CHECK(p.width == e.width);
    CHECK(p.height == e.height);
    CHECK(p.channels == e.components);
    CHECK(p.bit_depth == depth);
    REQUIRE(p.has_sbit);
    const int sig = e.components >= 3 ? p.sbit.red : p.sbit.gray;
    CHECK(sig == e.precision);
    if (e.components == 2) CHECK(int(p.sbit.alpha) == e.precision);
    if (e.components == 3) CHECK((p.sbit.green == sig && p.sbit.blue == sig));
    // Honouring sBIT gives the decoded samples back: libjpeg-turbo 3's.
    CHECK(digest(p.shifted) == e.digest);
    // As stored, each sample fills the depth: its P bits on top, repeated below (PNG's left bit
    // replication), so 2^P - 1 is white.
    const int bytes = depth / 8;
    bool replicated = true;
    for (std::size_t i = 0; i < p.stored.size() / std::size_t(bytes); ++i) {
      const unsigned v = sample_at(p.stored, i, bytes), d = sample_at(p.shifted, i, bytes);
      for (int b = 0; b < depth; ++b) {
        const int from = e.precision - 1 - (depth - 1 - b) % e.precision;
        replicated &= ((v >> b) & 1u) == ((d >> from) & 1u);
      }
    }
    CHECK(replicated);
  }
}

TEST_CASE("cli ljpeg: a row table written, then given, decodes the same; a bad one is refused") {
  Scratch s("ljpeg-rows");
  for (const char* name : {"wr-gray16-pred7-64x33-noise-rst1row.jpg", "ic-gray12-pred5-301x7.jpg",
                           "wr-rgb8-pred1-2-3-64x33-3scans.jpg"}) {
    INFO(name);
    const auto file = bytes_of(kDir / name);
    fs::copy_file(kDir / name, s.dir / "in.jpg", fs::copy_options::overwrite_existing);
    const Run w = cli(s.dir, "-d cpu decode in.jpg a.pam --write-row-table t.rows");
    INFO(w.log);
    REQUIRE(w.status == 0);
    const auto table = bytes_of(s.dir / "t.rows");
    hetcodec::JpegDecoder decoder("cpu");
    CHECK(table == decoder.lossless_row_table(file.data(), file.size()));
    const auto entries =
        decoder.read_lossless_row_table(file.data(), file.size(), table.data(), table.size());
    CHECK(table.size() == 4 * entries.size());

    const Run g = cli(s.dir, "-d cpu decode in.jpg b.pam --row-table t.rows");
    INFO(g.log);
    REQUIRE(g.status == 0);
    CHECK(bytes_of(s.dir / "b.pam") == bytes_of(s.dir / "a.pam"));

    // A table of the wrong size.
    put(s.dir / "short.rows", std::vector<std::uint8_t>(table.begin(), table.end() - 1));
    const Run sh = cli(s.dir, "-d cpu decode in.jpg c.pam --row-table short.rows");
    CHECK(sh.status == 1);
    CHECK(sh.says("short.rows: a row table of " + std::to_string(table.size() - 1) + " bytes"));
    CHECK(!fs::exists(s.dir / "c.pam"));

    // An entry past the scan's data.
    auto bad = table;
    for (std::size_t k = 4; k < 8; ++k) bad[k] = 0x7F;
    put(s.dir / "bad.rows", bad);
    const Run b = cli(s.dir, "-d cpu decode in.jpg d.pam --row-table bad.rows");
    CHECK(b.status == 1);
    CHECK(b.says("bad.rows: row table entry 1 (scan 0, row 1)"));
    CHECK(b.says("past the scan's"));
    CHECK(!fs::exists(s.dir / "d.pam"));
  }
  // A missing sidecar is named.
  const Run missing = cli(s.dir, "-d cpu decode in.jpg e.pam --row-table nothing.rows");
  CHECK(missing.status == 1);
  CHECK(missing.says("nothing.rows"));
  CHECK(!fs::exists(s.dir / "e.pam"));
}

TEST_CASE("cli ljpeg: the row table options refuse other files and batches") {
  Scratch s("ljpeg-refuse");
  put(s.dir / "photo.jpg",
      hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(45, 29, 5),
                                        hetcodec::test::EncodeParams{}));
  fs::copy_file(kDir / "ic-gray8-pred1-64x33.jpg", s.dir / "ll.jpg");
  const Run baseline = cli(s.dir, "-d cpu decode photo.jpg a.ppm --write-row-table t.rows");
  CHECK(baseline.status == 1);
  CHECK(baseline.says("photo.jpg: --row-table and --write-row-table take a lossless JPEG"));
  CHECK(!fs::exists(s.dir / "a.ppm"));
  CHECK(!fs::exists(s.dir / "t.rows"));
  const Run batch = cli(s.dir, "-d cpu decode -o out ll.jpg photo.jpg --row-table t.rows");
  CHECK(batch.status == 1);
  CHECK(batch.says("take one file"));
  CHECK(!fs::exists(s.dir / "out"));
}

TEST_CASE("cli ljpeg: info gives each file's lossless parameters, as the decoder reports them") {
  Scratch s("ljpeg-info");
  const auto m = manifest();
  std::string files;
  for (const auto& [name, e] : m) files += " " + quoted(kDir / name);
  const Run r = cli(s.dir, "info --json" + files);
  REQUIRE(r.status == 0);
  const json all = json::parse(r.log);
  REQUIRE(all.size() == m.size());
  hetcodec::JpegDecoder decoder("cpu");
  for (const json& j : all) {
    const std::string name = fs::path(j["file"].get<std::string>()).filename().string();
    const Entry& e = m.at(name);
    INFO(name);
    CHECK(j["process"] == "lossless Huffman (SOF3)");
    CHECK(j["width"] == e.width);
    CHECK(j["height"] == e.height);
    CHECK(j["components"] == e.components);
    CHECK(j["precision"] == e.precision);
    CHECK(j["scans"] == e.scans);
    CHECK(j["restart_interval"] == e.restart);
    CHECK(!j.contains("token_stream_bytes"));
    if (e.digest == "unsupported") {
      CHECK(j["decodable"] == false);
      CHECK(!j["unsupported"].get<std::string>().empty());
      continue;
    }
    REQUIRE(j["decodable"] == true);
    CHECK(j["predictor"] == e.predictor);
    CHECK(j["point_transform"] == e.pt);
    const auto bytes = bytes_of(kDir / name);
    hetcodec::LosslessReport report;
    const hetcodec::Image im =
        decoder.decode_lossless(bytes.data(), bytes.size(), nullptr, &report);
    CHECK(j["row_table"] == report.row_table);
    CHECK(j["predictor"] == report.predictor);
    CHECK(j["decoded_format"] == hetcodec::to_string(im.format));
    CHECK(j["decoded_bit_depth"] == im.bit_depth);
    CHECK(j["decoded_maxval"] == (1 << e.precision) - 1);
    REQUIRE(j["scan_list"].size() == std::size_t(e.scans));
    CHECK(j["scan_list"][0]["predictor"] == e.predictor);
    std::size_t named = 0;
    for (const json& sc : j["scan_list"]) named += sc["components"].size();
    CHECK(named >= std::size_t(e.components));
  }

  // The text form, for a file of three scans restarting every two rows, and one whose every row
  // starts an interval.
  const Run t = cli(s.dir, "info " + quoted(kDir / "wr-rgb12-pred4-5-6-37x23-3scans-rst2rows.jpg") +
                               " " + quoted(kDir / "wr-gray12-pred4-37x23-rst1row.jpg"));
  INFO(t.log);
  REQUIRE(t.status == 0);
  CHECK(t.says("lossless Huffman (SOF3), 3 scans, restart interval 74 MCUs"));
  CHECK(t.says("predictor 4, point transform 0, restart interval 2 rows"));
  CHECK(t.says("scan 2: components 2, predictor 5, point transform 0"));
  CHECK(t.says("scan 3: components 3, predictor 6, point transform 0"));
  CHECK(t.says("row table: pre-pass"));
  CHECK(t.says("restart interval 1 row\n"));
  CHECK(t.says("row table: restart markers"));
  CHECK(t.says("decoded as rgb, 16 bits a sample, maxval 4095"));
  CHECK(t.says("decoded as gray, 16 bits a sample, maxval 4095"));
}

TEST_CASE("cli ljpeg: decode --help names lossless files, maxval and the row table options") {
  Scratch s("ljpeg-help");
  const Run r = cli(s.dir, "decode --help");
  CHECK(r.status == 0);
  for (const char* w :
       {"lossless JPEG", "maxval 2^P - 1", "sBIT", "--row-table", "--write-row-table"})
    CHECK_MESSAGE(r.says(w), w);
}

#endif  // HETCODEC_TEST_CLI
