// Progressive JPEG decode (SOF2, and SOF9/SOF10 arithmetic-coded files, which take the same
// coefficient path) against libjpeg-turbo through its C API: the coefficients
// after every scan equal jpeg_read_coefficients(); the pixels equal jpeg_read_scanlines() on
// every device, block smoothing of incomplete files included; truncated and damaged files
// decode as libjpeg-turbo decodes them, with warnings; scan scripts it refuses are errors.
// The files are the generated corpus re-coded as jpegtran does (-progressive, -scans with
// successive approximation, -restart) and cjpeg's progressive output.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "core/error.h"
#include "core/jpeg/coefficients.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "hetcodec/jpeg.h"
#include "tests/support/jpeg_checks.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
using hetcodec::test::check_equal;
using hetcodec::test::cmyk_of;
using hetcodec::test::EncodeParams;
using hetcodec::test::gray_of;
using hetcodec::test::Raster;
using hetcodec::test::RecodeParams;
using hetcodec::test::ScanSpec;

namespace {

struct Sample {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

std::vector<std::uint8_t> baseline(const Raster& r, int h, int v, int quality) {
  EncodeParams p;
  p.h[0] = h;
  p.v[0] = v;
  p.quality = quality;
  return hetcodec::test::libjpeg_encode_ex(r, p);
}

// The progressive corpus. `small`: the few files the emulator decodes.
std::vector<Sample> corpus(bool small) {
  std::vector<Sample> out;
  struct Sampling {
    const char* name;
    int h, v;
  };
  const Sampling samplings[] = {{"444", 1, 1}, {"422", 2, 1}, {"420", 2, 2}, {"440", 1, 2}};
  if (small) {
    const Raster rgb = hetcodec::test::synthetic_rgb(19, 13, 3);
    RecodeParams sa;
    sa.scans = hetcodec::test::successive_approximation_script(3);
    out.push_back({"small-420-sa", hetcodec::test::libjpeg_recode(baseline(rgb, 2, 2, 80), sa)});
    RecodeParams simple;
    simple.progressive = true;
    simple.restart_blocks = 2;
    out.push_back(
        {"small-444-restart", hetcodec::test::libjpeg_recode(baseline(rgb, 1, 1, 60), simple)});
    RecodeParams arith;
    arith.arithmetic = true;
    out.push_back(
        {"small-420-arithmetic", hetcodec::test::libjpeg_recode(baseline(rgb, 2, 2, 70), arith)});
    return out;
  }
  const int sizes[][2] = {{1, 1}, {3, 5}, {8, 8}, {17, 9}, {33, 31}, {127, 65}};
  unsigned seed = 11;
  for (const auto& s : samplings) {
    for (const auto& wh : sizes) {
      const Raster rgb = hetcodec::test::synthetic_rgb(wh[0], wh[1], seed++);
      const int q = 10 + int(seed * 37 % 91);
      const std::string name = std::string(s.name) + "-" + std::to_string(wh[0]) + "x" +
                               std::to_string(wh[1]) + "-q" + std::to_string(q);
      const auto base = baseline(rgb, s.h, s.v, q);
      RecodeParams simple;
      simple.progressive = true;
      out.push_back({name + "-progressive", hetcodec::test::libjpeg_recode(base, simple)});
      RecodeParams sa;
      sa.scans = hetcodec::test::successive_approximation_script(3);
      out.push_back({name + "-sa", hetcodec::test::libjpeg_recode(base, sa)});
    }
  }
  const Raster photo = hetcodec::test::synthetic_rgb(203, 117, 42);
  for (int q : {5, 50, 90, 100}) {
    EncodeParams p;
    p.quality = q;
    p.h[0] = 2;
    p.v[0] = 2;
    p.progressive = true;  // cjpeg -progressive: the encoder's own progressive output
    out.push_back({"cjpeg-progressive-420-q" + std::to_string(q),
                   hetcodec::test::libjpeg_encode_ex(photo, p)});
    p.optimize = true;
    out.push_back({"cjpeg-progressive-420-optimize-q" + std::to_string(q),
                   hetcodec::test::libjpeg_encode_ex(photo, p)});
  }
  for (int restart : {1, 7, 40}) {
    RecodeParams r;
    r.progressive = true;
    r.restart_blocks = restart;
    out.push_back({"420-restart-" + std::to_string(restart),
                   hetcodec::test::libjpeg_recode(baseline(photo, 2, 2, 75), r)});
    r.progressive = false;
    r.scans = hetcodec::test::successive_approximation_script(3);
    out.push_back({"420-sa-restart-" + std::to_string(restart),
                   hetcodec::test::libjpeg_recode(baseline(photo, 2, 2, 75), r)});
  }
  {
    RecodeParams simple;
    simple.progressive = true;
    out.push_back(
        {"gray", hetcodec::test::libjpeg_recode(baseline(gray_of(photo), 1, 1, 85), simple)});
    RecodeParams sa;
    sa.scans = hetcodec::test::successive_approximation_script(1);
    out.push_back(
        {"gray-sa", hetcodec::test::libjpeg_recode(baseline(gray_of(photo), 1, 1, 85), sa)});
    out.push_back(
        {"ycck", hetcodec::test::libjpeg_recode(
                     hetcodec::test::libjpeg_encode_ex(cmyk_of(photo), EncodeParams{}), simple)});
    out.push_back({"cmyk-sa-4", [&] {
                     EncodeParams p;
                     p.keep_rgb = true;
                     RecodeParams r;
                     r.scans = hetcodec::test::successive_approximation_script(4);
                     return hetcodec::test::libjpeg_recode(
                         hetcodec::test::libjpeg_encode_ex(cmyk_of(photo), p), r);
                   }()});
    // Non-interleaved DC scans, AC bands split unevenly.
    RecodeParams odd;
    odd.scans = {{{0}, 0, 0, 0, 0},  {{1}, 0, 0, 0, 1},  {{2}, 0, 0, 0, 0},  {{0}, 1, 1, 0, 0},
                 {{0}, 2, 63, 0, 3}, {{1}, 0, 0, 1, 0},  {{0}, 2, 63, 3, 2}, {{0}, 2, 63, 2, 1},
                 {{0}, 2, 63, 1, 0}, {{1}, 1, 63, 0, 0}, {{2}, 1, 9, 0, 0},  {{2}, 10, 63, 0, 0}};
    out.push_back(
        {"420-odd-script", hetcodec::test::libjpeg_recode(baseline(photo, 2, 2, 92), odd)});
    // Arithmetic coding (SOF9, SOF10): sequential, progressive, successive approximation,
    // restarts, and libjpeg-turbo's own test image.
    RecodeParams arith;
    arith.arithmetic = true;
    out.push_back(
        {"420-arithmetic", hetcodec::test::libjpeg_recode(baseline(photo, 2, 2, 75), arith)});
    arith.restart_blocks = 5;
    out.push_back({"422-arithmetic-restart-5",
                   hetcodec::test::libjpeg_recode(baseline(photo, 2, 1, 95), arith)});
    arith.restart_blocks = 0;
    arith.progressive = true;
    out.push_back({"420-arithmetic-progressive",
                   hetcodec::test::libjpeg_recode(baseline(photo, 2, 2, 60), arith)});
    arith.progressive = false;
    arith.scans = hetcodec::test::successive_approximation_script(3);
    out.push_back(
        {"444-arithmetic-sa", hetcodec::test::libjpeg_recode(baseline(photo, 1, 1, 88), arith)});
    arith.scans = hetcodec::test::successive_approximation_script(1);
    out.push_back({"gray-arithmetic-sa",
                   hetcodec::test::libjpeg_recode(baseline(gray_of(photo), 1, 1, 50), arith)});
    out.push_back(
        {"testimgari.jpg", hetcodec::test::read_test_file(std::string(HETCODEC_TEST_SOURCE_DIR) +
                                                          "/data/jpeg/testimgari.jpg")});
    out.push_back({"testorig-progressive",
                   hetcodec::test::libjpeg_recode(
                       hetcodec::test::read_test_file(std::string(HETCODEC_TEST_SOURCE_DIR) +
                                                      "/data/jpeg/testorig.jpg"),
                       simple)});
  }
  return out;
}

const std::vector<Sample>& full_corpus() {
  static const std::vector<Sample> c = corpus(false);
  return c;
}

// The coefficient decoder run on a file: its coefficients compared with libjpeg's inside each
// component's image area. Returns whether block smoothing was applied.
bool check_coefficients(const std::vector<std::uint8_t>& file, const std::string& name) {
  INFO(name);
  const jpeg::Header h = jpeg::parse(file.data(), file.size());
  const jpeg::Layout layout = jpeg::make_layout(h);
  jpeg::CoefficientDecoder d(file.data(), file.size(), h, layout);
  std::vector<std::string> warnings;
  d.run(warnings);
  if (d.smoothed()) return true;  // smoothing changes coefficients libjpeg keeps unchanged
  const std::vector<std::int16_t> coefs = d.natural_coefficients();
  const auto ref = hetcodec::test::libjpeg_coefficients(file);
  REQUIRE(ref.blocks.size() == layout.components.size());
  for (std::size_t c = 0; c < ref.blocks.size(); ++c) {
    const auto& cl = layout.components[c];
    for (int by = 0; by < ref.height_in_blocks[c]; ++by)
      for (int bx = 0; bx < ref.width_in_blocks[c]; ++bx) {
        const std::int16_t* ours =
            coefs.data() + (std::size_t(cl.first_block) + std::size_t(by) * std::size_t(cl.grid_w) +
                            std::size_t(bx)) *
                               64;
        const std::int16_t* theirs =
            ref.blocks[c].data() +
            (std::size_t(by) * std::size_t(ref.width_in_blocks[c]) + std::size_t(bx)) * 64;
        if (std::memcmp(ours, theirs, 128) != 0) {
          int k = 0;
          while (ours[k] == theirs[k]) ++k;
          FAIL("component " << c << " block " << bx << "," << by << " coefficient " << k << ": "
                            << ours[k] << " vs libjpeg " << theirs[k]);
        }
      }
  }
  return false;
}

// Offset of the n-th SOS marker's parameters (Ss), or 0.
std::size_t sos_params(const std::vector<std::uint8_t>& f, int n) {
  for (std::size_t i = 2; i + 4 < f.size(); ++i) {
    if (f[i] == 0xFF && f[i + 1] == 0xDA && n-- == 0) {
      const int ns = f[i + 4];
      return i + 5 + 2 * std::size_t(ns);
    }
  }
  return 0;
}

}  // namespace

TEST_CASE("progressive jpeg coefficients equal libjpeg-turbo's after every scan") {
  // Both ways of decoding refinement scans: with PDEP where the CPU has it fast, and without.
  for (const bool pdep : {false, true}) {
    if (jpeg::use_pdep(pdep) != pdep) continue;
    jpeg::use_token_simd(pdep ? 2 : 0);
    INFO("pdep " << pdep);
    int checked = 0;
    for (const auto& s : full_corpus()) {
      if (!check_coefficients(s.bytes, s.name)) ++checked;
    }
    CHECK(checked == int(full_corpus().size()));  // complete files are never smoothed
  }
  jpeg::use_pdep(true);  // the defaults
  jpeg::use_token_simd(2);
}

TEST_CASE("progressive tokens are the same with and without the x86 extensions") {
  // tokenize() with each level of AVX-512 the CPU has, against the portable loop.
  const int best = jpeg::use_token_simd(2);
  for (int level = 1; level <= best; ++level)
    for (const auto& s : full_corpus()) {
      INFO(s.name << " level " << level);
      const jpeg::Header h = jpeg::parse(s.bytes.data(), s.bytes.size());
      const jpeg::Layout layout = jpeg::make_layout(h);
      jpeg::CoefficientDecoder d(s.bytes.data(), s.bytes.size(), h, layout);
      std::vector<std::string> warnings;
      d.run(warnings);
      std::vector<jpeg::EntropyResult> with, without;
      jpeg::use_token_simd(level);
      d.tokenize(3, {}, with);
      jpeg::use_token_simd(0);
      d.tokenize(3, {}, without);
      jpeg::use_token_simd(best);
      REQUIRE(with.size() == without.size());
      for (std::size_t k = 0; k < with.size(); ++k) {
        CHECK(with[k].block_ids == without[k].block_ids);
        CHECK(with[k].block_tokens == without[k].block_tokens);
        REQUIRE(with[k].tokens.size() == without[k].tokens.size());
        CHECK(std::memcmp(with[k].tokens.data(), without[k].tokens.data(),
                          with[k].tokens.size() * sizeof(jpeg::Token)) == 0);
      }
    }
}

TEST_CASE("progressive and arithmetic-coded jpeg decode equals libjpeg-turbo on every device") {
  test::for_each_device([](Device& device) {
    const bool emulator = device.info().is_emulator;
    const std::vector<Sample> small = emulator ? corpus(true) : std::vector<Sample>{};
    const std::vector<Sample>& samples = emulator ? small : full_corpus();
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegDecoder decoder(shared);
    std::vector<std::vector<std::uint8_t>> files;
    std::vector<Raster> refs;
    for (const auto& s : samples) {
      const Raster ref = hetcodec::test::libjpeg_decode_default(s.bytes);
      const Image img = decoder.decode(s.bytes);
      check_equal(img, ref, s.name);
      CHECK_MESSAGE(img.warnings.empty(), s.name);
      files.push_back(s.bytes);
      refs.push_back(ref);
    }
    if (emulator) return;
    // A batch mixing progressive and baseline files.
    files.push_back(baseline(hetcodec::test::synthetic_rgb(40, 30, 7), 2, 2, 75));
    refs.push_back(hetcodec::test::libjpeg_decode_default(files.back()));
    std::vector<Input> inputs;
    for (const auto& f : files) inputs.push_back({f.data(), f.size()});
    const std::vector<Image> batch = decoder.decode_batch(inputs);
    REQUIRE(batch.size() == refs.size());
    for (std::size_t i = 0; i < batch.size(); ++i)
      check_equal(batch[i], refs[i], "batch " + std::to_string(i));
  });
}

TEST_CASE("incomplete progressive files are block-smoothed as libjpeg-turbo smooths them") {
  const Raster photo = hetcodec::test::synthetic_rgb(75, 53, 8);
  const auto base420 = baseline(photo, 2, 2, 85);
  const auto base444 = baseline(photo, 1, 1, 40);
  struct Case {
    const char* name;
    std::vector<ScanSpec> scans;
  };
  const std::vector<Case> cases = {
      {"dc-only", {{{0, 1, 2}, 0, 0, 0, 0}}},
      {"dc-approximate", {{{0, 1, 2}, 0, 0, 0, 2}}},
      {"dc-then-first-band", {{{0, 1, 2}, 0, 0, 0, 0}, {{0}, 1, 5, 0, 0}}},
      {"bands-not-refined",
       {{{0, 1, 2}, 0, 0, 0, 1}, {{0}, 1, 63, 0, 2}, {{1}, 1, 63, 0, 1}, {{2}, 1, 63, 0, 0}}},
      {"luma-complete-chroma-dc", {{{0, 1, 2}, 0, 0, 0, 0}, {{0}, 1, 63, 0, 0}}},
      {"high-band-only", {{{0, 1, 2}, 0, 0, 0, 0}, {{0}, 10, 63, 0, 0}}},
  };
  std::vector<Sample> files;
  for (const auto* base : {&base420, &base444}) {
    for (const auto& c : cases) {
      RecodeParams r;
      r.scans = c.scans;
      files.push_back({std::string(c.name) + (base == &base420 ? "-420" : "-444"),
                       hetcodec::test::libjpeg_recode(*base, r)});
      CHECK_MESSAGE(check_coefficients(files.back().bytes, files.back().name),
                    files.back().name << ": smoothing expected");
    }
  }
  // One decoder per device for all the files (the emulator, as elsewhere, decodes a few).
  test::for_each_device([&](Device& device) {
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegDecoder decoder(shared);
    const std::size_t n = device.info().is_emulator ? 3 : files.size();
    for (std::size_t i = 0; i < n; ++i)
      check_equal(decoder.decode(files[i].bytes),
                  hetcodec::test::libjpeg_decode_default(files[i].bytes), files[i].name);
  });
}

TEST_CASE("truncated progressive files decode as libjpeg-turbo decodes them, with a warning") {
  const Raster photo = hetcodec::test::synthetic_rgb(61, 43, 5);
  RecodeParams sa;
  sa.scans = hetcodec::test::successive_approximation_script(3);
  RecodeParams restarts;
  restarts.progressive = true;
  restarts.restart_blocks = 3;
  const auto base = baseline(photo, 2, 2, 80);
  const std::vector<std::uint8_t> files[] = {
      hetcodec::test::libjpeg_recode(base, RecodeParams{true, false, {}, 0, false}),
      hetcodec::test::libjpeg_recode(base, sa), hetcodec::test::libjpeg_recode(base, restarts)};
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegDecoder decoder(shared);
    for (const auto& file : files) {
      const std::size_t step = file.size() / 23 + 1;
      for (std::size_t keep = file.size() - 2; keep > 400; keep -= std::min(keep, step)) {
        INFO("kept " << keep << " of " << file.size() << " bytes");
        const std::vector<std::uint8_t> cut(file.begin(), file.begin() + std::ptrdiff_t(keep));
        int warnings = 0;
        bool failed = false;
        const Raster ref = hetcodec::test::libjpeg_c_path(cut, warnings, failed);
        if (failed) {
          CHECK_THROWS_AS(decoder.decode(cut), Error);
          continue;
        }
        const Image img = decoder.decode(cut);
        check_equal(img, ref, "truncated");
        CHECK(warnings > 0);
        CHECK(!img.warnings.empty());
      }
    }
  });
}

TEST_CASE("damaged progressive files: refused scan scripts, and bit flips as libjpeg-turbo") {
  const Raster photo = hetcodec::test::synthetic_rgb(48, 40, 12);
  RecodeParams sa;
  sa.scans = hetcodec::test::successive_approximation_script(3);
  const auto file = hetcodec::test::libjpeg_recode(baseline(photo, 2, 2, 70), sa);
  std::shared_ptr<Device> cpu = open_device("cpu");
  JpegDecoder decoder(cpu);
  SUBCASE("scan parameters libjpeg-turbo refuses are InvalidData") {
    // scan 1 is an AC scan of component 0 (Ss=1, Se=5, Ah=0, Al=2).
    const std::size_t at = sos_params(file, 1);
    REQUIRE(at > 0);
    struct Edit {
      const char* what;
      int ss, se, ahal;
    };
    for (const Edit& e :
         {Edit{"Ss > Se", 5, 1, 0x02}, Edit{"Se > 63", 1, 64, 0x02}, Edit{"Al > 13", 1, 5, 0x0E},
          Edit{"Ah != Al + 1", 1, 5, 0x31}, Edit{"DC band with Se", 0, 5, 0x02}}) {
      INFO(e.what);
      auto bad = file;
      bad[at] = std::uint8_t(e.ss);
      bad[at + 1] = std::uint8_t(e.se);
      bad[at + 2] = std::uint8_t(e.ahal);
      int w = 0;
      bool failed = false;
      hetcodec::test::libjpeg_c_path(bad, w, failed);
      CHECK(failed);
      try {
        decoder.decode(bad);
        FAIL("decoded");
      } catch (const Error& err) {
        CHECK(err.code() == ErrorCode::InvalidData);
        CHECK(std::string(err.what()).find("byte") != std::string::npos);
      }
    }
  }
  SUBCASE("a scan that repeats a band decodes, with libjpeg-turbo's warning") {
    // The second DC refinement (Ah=1, Al=0) relabelled Ah=2, Al=1: inconsistent progression.
    auto odd = file;
    const std::size_t at = sos_params(odd, 11);
    REQUIRE(at > 0);
    REQUIRE(odd[at] == 0);
    odd[at + 2] = 0x21;
    int w = 0;
    bool failed = false;
    const Raster ref = hetcodec::test::libjpeg_c_path(odd, w, failed);
    REQUIRE(!failed);
    CHECK(w > 0);
    const Image img = decoder.decode(odd);
    check_equal(img, ref, "relabelled");
    CHECK(!img.warnings.empty());
  }
  SUBCASE("bit flips in the scans") {
    const std::size_t first = sos_params(file, 0);
    int compared = 0;
    std::string last_libjpeg_error;
    for (std::size_t pos = first + 8; pos + 2 < file.size(); pos += 13) {
      auto bad = file;
      bad[pos] ^= std::uint8_t(1u << (pos % 8));
      int w = 0;
      bool failed = false;
      const Raster ref = hetcodec::test::libjpeg_c_path(bad, w, failed, &last_libjpeg_error);
      INFO("flipped byte " << pos);
      if (failed) {
        INFO("libjpeg-turbo: " << last_libjpeg_error);
        CHECK_THROWS_AS(decoder.decode(bad), Error);
        continue;
      }
      const Image img = decoder.decode(bad);
      check_equal(img, ref, "flipped");
      INFO("libjpeg-turbo warnings: " << w << "; ours: " << img.warnings.size()
                                      << (img.warnings.empty() ? "" : " " + img.warnings[0]));
      CHECK((w > 0) == !img.warnings.empty());
      ++compared;
    }
    CHECK(compared > 20);
  }
}

namespace {

// A gray progressive file of one DC first scan with a restart interval of n MCUs: the DC table
// codes difference size 1 in 1 bit and size 0 in 16 bits; the first interval's last block uses
// the 16-bit code, so that it ends on a code longer than libjpeg-turbo's lookahead, and the
// second interval (one MCU) is followed by `junk` bytes before EOI.
std::vector<std::uint8_t> long_code_file(int n, const std::vector<std::uint8_t>& junk) {
  std::vector<std::uint8_t> f = {0xFF, 0xD8};
  auto segment = [&](std::uint8_t marker, const std::vector<std::uint8_t>& body) {
    const std::size_t len = body.size() + 2;
    f.insert(f.end(), {0xFF, marker, std::uint8_t(len >> 8), std::uint8_t(len)});
    f.insert(f.end(), body.begin(), body.end());
  };
  std::vector<std::uint8_t> dqt(65, 1);
  dqt[0] = 0;
  segment(0xDB, dqt);
  const int w = 8 * (n + 1);
  segment(0xC2, {8, 0, 8, std::uint8_t(w >> 8), std::uint8_t(w), 1, 1, 0x11, 0});
  std::vector<std::uint8_t> dht(1 + 16 + 2, 0);
  dht[1] = 1;   // one code of 1 bit: symbol 1
  dht[16] = 1;  // one code of 16 bits: symbol 0
  dht[17] = 1;
  dht[18] = 0;
  segment(0xC4, dht);
  segment(0xDD, {std::uint8_t(n >> 8), std::uint8_t(n)});
  segment(0xDA, {1, 1, 0x00, 0, 0, 0});
  std::string bits;
  for (int i = 0; i + 1 < n; ++i) bits += i % 2 == 0 ? "01" : "00";  // +1, -1, ...
  bits += "1" + std::string(15, '0');                                 // size 0: 16 bits
  auto put_bits = [&](std::string b) {
    while (b.size() % 8) b += '1';
    for (std::size_t i = 0; i < b.size(); i += 8) {
      const auto v = std::uint8_t(std::stoi(b.substr(i, 8), nullptr, 2));
      f.push_back(v);
      if (v == 0xFF) f.push_back(0);
    }
  };
  put_bits(bits);
  f.insert(f.end(), {0xFF, 0xD0});
  put_bits("01");
  f.insert(f.end(), junk.begin(), junk.end());
  f.insert(f.end(), {0xFF, 0xD9});
  return f;
}

}  // namespace

TEST_CASE("progressive scans warn of extraneous data exactly where libjpeg-turbo does") {
  // The decoder follows libjpeg-turbo's reader only when an interval leaves data unread; the
  // warnings then depend on how far that reader had read at each interval's end, long codes
  // (read one bit at a time past the first 9) included: junk in the second interval must not
  // make the first, which ends on a 16-bit code, warn.
  std::shared_ptr<Device> cpu = open_device("cpu");
  JpegDecoder decoder(cpu);
  for (int n : {3, 26, 27, 40})
    for (const std::vector<std::uint8_t>& junk :
         {std::vector<std::uint8_t>{}, std::vector<std::uint8_t>{0x12, 0x34},
          std::vector<std::uint8_t>(12, 0x5A)}) {
      INFO("interval of " << n << " MCUs, " << junk.size() << " junk bytes");
      const auto file = long_code_file(n, junk);
      int w = 0;
      bool failed = false;
      const Raster ref = hetcodec::test::libjpeg_c_path(file, w, failed);
      REQUIRE(!failed);
      const Image img = decoder.decode(file);
      check_equal(img, ref, "long codes");
      CHECK((w > 0) == !img.warnings.empty());
      for (const auto& m : img.warnings)  // (intervals are counted from 0)
        CHECK(m.find("restart interval 0)") == std::string::npos);
    }
}

// JpegDecodeOptions::max_scans: a file of more scans is refused before decoding, named, and
// one within it decodes (the limit guards against files of many tiny scans, each a pass over
// all of the image's coefficients).
TEST_CASE("progressive files of more scans than max_scans are refused with LimitExceeded") {
  const Raster photo = hetcodec::test::synthetic_rgb(40, 24, 5);
  RecodeParams sa;
  sa.scans = hetcodec::test::successive_approximation_script(3);
  const auto file = hetcodec::test::libjpeg_recode(baseline(photo, 2, 2, 75), sa);
  std::size_t scans = 0;
  for (std::size_t i = 0; i + 1 < file.size(); ++i) scans += file[i] == 0xFF && file[i + 1] == 0xDA;
  REQUIRE(scans > 3);
  std::shared_ptr<Device> cpu = open_device("cpu");
  JpegDecodeOptions o;
  o.max_scans = int(scans);
  const Image whole = JpegDecoder(cpu, o).decode(file);
  CHECK(whole.width == 40);
  o.max_scans = int(scans) - 1;
  try {
    JpegDecoder(cpu, o).decode(file);
    FAIL("a file of " << scans << " scans decoded with max_scans " << o.max_scans);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::LimitExceeded);
    CHECK(std::string(e.what()).find("max_scans") != std::string::npos);
  }
  CHECK(JpegDecodeOptions{}.max_scans == 1000);
}

// JpegDecodeOptions::max_tokens and max_memory_bytes: each refuses a file past it, named, and
// lets it through at exactly what it takes.
TEST_CASE("jpeg files past max_tokens or max_memory_bytes are refused with LimitExceeded") {
  const Raster photo = hetcodec::test::synthetic_rgb(64, 48, 9);
  std::shared_ptr<Device> cpu = open_device("cpu");
  auto refused = [&](const std::vector<std::uint8_t>& file, const JpegDecodeOptions& o,
                     const std::string& what) {
    try {
      JpegDecoder(cpu, o).decode(file);
      FAIL("decoded");
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(e.code() == ErrorCode::LimitExceeded);
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  for (const bool progressive : {false, true}) {
    INFO("progressive " << progressive);
    const auto base = baseline(photo, 2, 2, 95);
    RecodeParams simple;
    simple.progressive = true;
    const auto file = progressive ? hetcodec::test::libjpeg_recode(base, simple) : base;
    // The tokens: the non-zero coefficients of every block, four to a token.
    const auto coefs = hetcodec::test::libjpeg_coefficients(file);
    std::uint64_t tokens = 0;
    for (const auto& component : coefs.blocks)
      for (std::size_t b = 0; b < component.size() / 64; ++b) {
        int nonzero = 0;
        for (int k = 0; k < 64; ++k) nonzero += component[b * 64 + std::size_t(k)] != 0;
        tokens += std::uint64_t(nonzero + 3) / 4;
      }
    REQUIRE(tokens > 0);
    JpegDecodeOptions o;
    o.max_tokens = tokens;
    CHECK(JpegDecoder(cpu, o).decode(file).pixels ==
          hetcodec::test::libjpeg_decode_default(file).samples);
    o.max_tokens = tokens - 1;
    refused(file, o, "max_tokens " + std::to_string(tokens - 1));
    // The memory: 64x48 RGB out (twice: device and host) is 18432 bytes, the planes and the
    // token stream more; a limit below the output alone refuses the file before decoding.
    o = {};
    o.max_memory_bytes = 18431;
    refused(file, o, progressive ? "output, planes and coefficients" : "output and planes");
    o.max_memory_bytes = 128 << 10;  // room for all of it
    CHECK(JpegDecoder(cpu, o).decode(file).width == 64);
  }
  CHECK(JpegDecodeOptions{}.max_tokens == (1ull << 27));
  CHECK(JpegDecodeOptions{}.max_memory_bytes == (4ull << 30));
}
