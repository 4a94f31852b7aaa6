// core/jpeg arithmetic decoding (T.81 Annex D, F.2.4, G.2; arithmetic.cpp) and the DAC marker:
// every coefficient equals what libjpeg-turbo's jpeg_read_coefficients() gives, on files libjpeg
// writes (sequential and progressive, every sampling, odd sizes, restart intervals, qualities
// from 5 to 100), on the conformance file testimgari.jpg, and on truncated, damaged and
// re-conditioned copies, which libjpeg-turbo decodes too (zeros from a marker on); garbage never
// crashes or hangs.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "core/jpeg/coefficients.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

namespace {

std::vector<std::uint8_t> read_file(const std::string& name) {
  std::ifstream in(std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/" + name, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Decoded {
  jpeg::Header header;
  jpeg::Layout layout;
  std::vector<std::int16_t> coef;
  std::vector<std::string> warnings;
  bool smoothed = false;
};

// Through CoefficientDecoder, as the decoder runs it.
Decoded decode(const std::vector<std::uint8_t>& file) {
  Decoded d;
  d.header = jpeg::parse(file.data(), file.size());
  d.layout = jpeg::make_layout(d.header);
  jpeg::CoefficientDecoder dec(file.data(), file.size(), d.header, d.layout);
  dec.run(d.warnings);
  d.coef = dec.natural_coefficients();
  d.smoothed = dec.smoothed();
  return d;
}

// Scan by scan through decode_arithmetic_scan() alone: no block smoothing, which
// jpeg_read_coefficients() does not apply either, for files cut short. Only for files libjpeg
// accepts (their progression parameters are valid).
Decoded decode_scans(const std::vector<std::uint8_t>& file) {
  Decoded d;
  d.header = jpeg::parse(file.data(), file.size());
  d.layout = jpeg::make_layout(d.header);
  d.coef.assign(std::size_t(d.layout.groups) * 64 * 64, 0);
  const bool progressive = d.header.sof_marker == 0xCA;
  for (const jpeg::Scan& scan : d.header.scans) {
    const jpeg::ScanGeometry g = jpeg::scan_geometry(d.header, d.layout, scan);
    jpeg::ScanOutcome outcome;
    jpeg::decode_arithmetic_scan(file.data(), file.size(), d.header, scan, g, progressive,
                                 d.coef.data(), outcome, d.warnings);
    CHECK(outcome.last_good_imcu_row == g.imcu_row(g.mcus() - 1));
  }
  jpeg::to_natural_order(d.coef);
  return d;
}

// Every block inside each component's width_in_blocks x height_in_blocks: the first difference
// is named, and the count of differing blocks must be zero.
void check_same(const Decoded& d, const test::Coefficients& ref) {
  REQUIRE(ref.blocks.size() == d.layout.components.size());
  std::size_t differ = 0;
  std::string first;
  for (std::size_t c = 0; c < ref.blocks.size(); ++c) {
    const jpeg::ComponentLayout& cl = d.layout.components[c];
    const int w = ref.width_in_blocks[c], h = ref.height_in_blocks[c];
    REQUIRE(w <= cl.grid_w);
    REQUIRE(h <= cl.grid_h);
    for (int by = 0; by < h; ++by) {
      for (int bx = 0; bx < w; ++bx) {
        const std::int16_t* ours =
            d.coef.data() + (std::size_t(cl.first_block) + std::size_t(by) * cl.grid_w + bx) * 64;
        const std::int16_t* theirs = ref.blocks[c].data() + (std::size_t(by) * w + bx) * 64;
        for (int k = 0; k < 64; ++k) {
          if (ours[k] == theirs[k]) continue;
          if (differ++ == 0) {
            std::ostringstream s;
            s << "component " << c << " block (" << bx << ", " << by << ") coefficient " << k
              << ": " << ours[k] << ", libjpeg " << theirs[k];
            first = s.str();
          }
          break;
        }
      }
    }
  }
  INFO(first);
  CHECK(differ == 0);
}

// Both sides, for a file libjpeg writes: the same coefficients, no warnings on either side.
void check_file(const std::vector<std::uint8_t>& file) {
  const Decoded d = decode(file);
  CHECK(d.header.process == jpeg::Process::Arithmetic);
  CHECK_FALSE(d.smoothed);
  check_same(d, test::libjpeg_coefficients(file));
  int libjpeg_warnings = -1;
  test::libjpeg_decode_default(file, &libjpeg_warnings);
  CHECK(libjpeg_warnings == 0);
  INFO((d.warnings.empty() ? std::string() : d.warnings.front()));
  CHECK(d.warnings.empty());
  CHECK(d.header.warnings.empty());
}

test::Raster gray(const test::Raster& rgb) {
  test::Raster g{rgb.width, rgb.height, 1, {}};
  for (std::size_t i = 0; i < rgb.samples.size(); i += 3) g.samples.push_back(rgb.samples[i]);
  return g;
}

// Noise of full swing: at q100 the largest magnitudes and the longest runs of nonzero AC
// coefficients.
test::Raster harsh(int width, int height, unsigned seed) {
  test::Raster r{width, height, 3, test::random_bytes(std::size_t(width) * height * 3, seed)};
  for (auto& s : r.samples) s = (s & 1) ? 255 : 0;
  return r;
}

struct Sampling {
  const char* name;
  int components, h, v;
};
constexpr Sampling kSamplings[] = {
    {"gray", 1, 1, 1},  {"4:4:4", 3, 1, 1}, {"4:2:0", 3, 2, 2},
    {"4:2:2", 3, 2, 1}, {"4:4:0", 3, 1, 2}, {"4:1:1", 3, 4, 1},
};

test::EncodeParams params(const Sampling& s, int quality) {
  test::EncodeParams p;
  p.quality = quality;
  p.h[0] = s.h;
  p.v[0] = s.v;
  p.arithmetic = true;
  return p;
}

test::Raster input(const Sampling& s, int width, int height, unsigned seed) {
  const test::Raster rgb = test::synthetic_rgb(width, height, seed);
  return s.components == 1 ? gray(rgb) : rgb;
}

// Where the entropy-coded data of every scan lies.
bool in_scan_data(const jpeg::Header& h, std::size_t at) {
  for (const auto& s : h.scans)
    if (at >= s.data_offset && at < s.data_end) return true;
  return false;
}

// The offsets of the DAC segments' payloads (after the length) and their lengths.
std::vector<std::pair<std::size_t, std::size_t>> dac_segments(const std::vector<std::uint8_t>& f) {
  const jpeg::Header h = jpeg::parse(f.data(), f.size());
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 2; i + 4 <= f.size(); ++i) {
    if (f[i] != 0xFF || f[i + 1] != 0xCC || in_scan_data(h, i)) continue;
    out.push_back({i + 4, (std::size_t(f[i + 2]) << 8 | f[i + 3]) - 2});
  }
  return out;
}

// Decodes a damaged copy both ways when both accept it; returns whether they did.
bool compare_damaged(const std::vector<std::uint8_t>& file) {
  test::Coefficients ref;
  try {
    ref = test::libjpeg_coefficients(file);
  } catch (const std::runtime_error&) {
    return false;
  }
  Decoded d;
  try {
    d = decode_scans(file);
  } catch (const Error&) {
    return false;
  }
  check_same(d, ref);
  return true;
}

}  // namespace

TEST_CASE("jpeg arithmetic: sequential files decode to libjpeg's coefficients") {
  const int sizes[][2] = {{1, 1}, {17, 9}, {33, 47}, {67, 45}, {8, 8}, {129, 3}};
  const int qualities[] = {75, 100, 5, 30, 95};
  int n = 0;
  for (const Sampling& s : kSamplings) {
    for (const auto& size : sizes) {
      ++n;
      test::EncodeParams p = params(s, qualities[n % 5]);
      if (n % 4 == 1) p.restart_blocks = 1;
      if (n % 4 == 2) p.restart_blocks = 3;
      if (n % 4 == 3) p.restart_rows = 1;
      INFO(s.name << " " << size[0] << "x" << size[1] << " q" << p.quality << " restart "
                  << p.restart_blocks << " blocks / " << p.restart_rows << " rows");
      check_file(test::libjpeg_encode_ex(input(s, size[0], size[1], unsigned(n)), p));
    }
  }
}

TEST_CASE("jpeg arithmetic: non-interleaved scans and extreme magnitudes") {
  for (const Sampling& s : kSamplings) {
    INFO(s.name);
    test::EncodeParams p = params(s, 90);
    p.separate_scans = true;
    p.restart_blocks = 5;
    check_file(test::libjpeg_encode_ex(input(s, 45, 29, 3), p));
    if (s.components == 3) {
      test::EncodeParams q = params(s, 100);
      check_file(test::libjpeg_encode_ex(harsh(40, 24, 7), q));
      q.quality = 1;
      check_file(test::libjpeg_encode_ex(harsh(40, 24, 8), q));
    }
  }
}

TEST_CASE("jpeg arithmetic: progressive files decode to libjpeg's coefficients") {
  const int sizes[][2] = {{1, 1}, {17, 9}, {33, 47}, {67, 45}};
  int n = 0;
  for (const Sampling& s : kSamplings) {
    for (const auto& size : sizes) {
      ++n;
      INFO(s.name << " " << size[0] << "x" << size[1]);
      const test::Raster in = input(s, size[0], size[1], unsigned(100 + n));
      // jpeg_simple_progression, written directly.
      test::EncodeParams p = params(s, n % 3 ? 85 : 100);
      p.progressive = true;
      p.restart_blocks = n % 3 == 2 ? 2 : 0;
      check_file(test::libjpeg_encode_ex(in, p));
      // Successive approximation on every band, recoded from a Huffman file.
      test::EncodeParams h = params(s, n % 2 ? 60 : 10);
      h.arithmetic = false;
      const auto huffman = test::libjpeg_encode_ex(in, h);
      test::RecodeParams r;
      r.arithmetic = true;
      r.scans = test::successive_approximation_script(s.components);
      r.restart_blocks = n % 3 == 1 ? 1 : n % 3 == 2 ? 7 : 0;
      INFO("successive approximation, restart " << r.restart_blocks);
      check_file(test::libjpeg_recode(huffman, r));
      // And sequential arithmetic recoded from it.
      test::RecodeParams seq;
      seq.arithmetic = true;
      seq.restart_blocks = 4;
      check_file(test::libjpeg_recode(huffman, seq));
    }
  }
  // Magnitudes at their largest, refined bit by bit.
  test::RecodeParams r;
  r.arithmetic = true;
  r.scans = test::successive_approximation_script(3);
  test::EncodeParams h = params(kSamplings[2], 100);
  h.arithmetic = false;
  check_file(test::libjpeg_recode(test::libjpeg_encode_ex(harsh(35, 21, 4), h), r));
}

TEST_CASE("jpeg arithmetic: the conformance file testimgari.jpg") {
  const auto file = read_file("testimgari.jpg");
  check_file(file);
}

// The DAC values each scan has, and decoding under conditioning other than the defaults: the
// coded data stays as libjpeg wrote it, so the decoded values change, but as in libjpeg-turbo.
TEST_CASE("jpeg arithmetic: DAC conditioning is parsed and applied as libjpeg-turbo does") {
  test::EncodeParams p = params(kSamplings[2], 80);
  p.restart_blocks = 6;
  const auto seq = test::libjpeg_encode_ex(test::synthetic_rgb(41, 30, 11), p);
  p.progressive = true;
  const auto prog = test::libjpeg_encode_ex(test::synthetic_rgb(41, 30, 12), p);
  for (const auto* original : {&seq, &prog}) {
    const jpeg::Header h0 = jpeg::parse(original->data(), original->size());
    for (const auto& s : h0.scans) {
      for (int t = 0; t < 4; ++t) {
        CHECK(s.arith_dc_l[t] == 0);
        CHECK(s.arith_dc_u[t] == 1);
        CHECK(s.arith_ac_k[t] == 5);
      }
    }
    const auto dacs = dac_segments(*original);
    REQUIRE(!dacs.empty());
    // (L, U) and Kx, including Kx outside T.81's 1..63, which libjpeg-turbo takes as it is.
    const int settings[][3] = {{0, 0, 1}, {2, 5, 20}, {1, 1, 63}, {0, 15, 0}, {15, 15, 200}};
    for (const auto& set : settings) {
      INFO("L=" << set[0] << " U=" << set[1] << " Kx=" << set[2]);
      auto file = *original;
      for (const auto& [at, len] : dacs) {
        for (std::size_t i = at; i + 1 < at + len; i += 2) {
          file[i + 1] = std::uint8_t(file[i] < 0x10 ? set[0] | set[1] << 4 : set[2]);
        }
      }
      const jpeg::Header h = jpeg::parse(file.data(), file.size());
      for (const auto& s : h.scans) {
        const bool dc_coded = s.ss == 0 && s.ah == 0;
        if (dc_coded) {
          CHECK(s.arith_dc_l[std::size_t(s.dc_table[0])] == set[0]);
          CHECK(s.arith_dc_u[std::size_t(s.dc_table[0])] == set[1]);
        }
        if (s.se > 0) CHECK(s.arith_ac_k[std::size_t(s.ac_table[0])] == set[2]);
      }
      check_same(decode_scans(file), test::libjpeg_coefficients(file));
    }
  }
}

TEST_CASE("jpeg arithmetic: malformed DAC segments are InvalidData errors naming the byte") {
  const auto original =
      test::libjpeg_encode_ex(test::synthetic_rgb(16, 16, 1), params(kSamplings[1], 75));
  const auto dacs = dac_segments(original);
  REQUIRE(!dacs.empty());
  const std::size_t at = dacs.front().first;
  auto expect_error = [&](std::vector<std::uint8_t> file, const char* what) {
    INFO(what);
    try {
      jpeg::parse(file.data(), file.size());
      FAIL("parsed");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidData);
      CHECK(std::string(e.what()).find("byte " + std::to_string(at)) != std::string::npos);
      CHECK(std::string(e.what()).find("DAC") != std::string::npos);
    }
    CHECK_THROWS(test::libjpeg_coefficients(file));  // libjpeg-turbo refuses it too
  };
  auto bad = original;
  bad[at] = 0x20;  // class 2
  expect_error(bad, "table class 2");
  bad = original;
  bad[at] = 0x00;
  bad[at + 1] = 0x12;  // L = 2 > U = 1
  expect_error(bad, "L above U");
  // Table 4..15 and Kx 0 are legal for libjpeg-turbo: accepted and (table 4..15) not kept.
  auto odd = original;
  odd[at] = 0x1B;
  odd[at + 1] = 0;
  CHECK_NOTHROW(jpeg::parse(odd.data(), odd.size()));
  CHECK_NOTHROW(test::libjpeg_coefficients(odd));
}

// Cut short anywhere, or with damaged bytes in the entropy-coded data: libjpeg-turbo feeds the
// arithmetic decoder zeros from the first marker (or the end) on, and abandons an interval at a
// code it cannot decode; the coefficients are the same here.
TEST_CASE("jpeg arithmetic: truncated and damaged files decode as libjpeg-turbo decodes them") {
  test::EncodeParams p = params(kSamplings[2], 75);
  p.restart_blocks = 2;
  const auto seq = test::libjpeg_encode_ex(test::synthetic_rgb(37, 29, 21), p);
  test::EncodeParams h = params(kSamplings[3], 90);
  h.arithmetic = false;
  test::RecodeParams r;
  r.arithmetic = true;
  r.scans = test::successive_approximation_script(3);
  r.restart_blocks = 3;
  const auto prog =
      test::libjpeg_recode(test::libjpeg_encode_ex(test::synthetic_rgb(29, 37, 22), h), r);
  r.restart_blocks = 0;
  const auto prog_plain =
      test::libjpeg_recode(test::libjpeg_encode_ex(test::synthetic_rgb(29, 37, 23), h), r);
  auto noise = test::random_bytes(6000, 31);
  std::size_t k = 0;
  for (const auto* original : {&seq, &prog, &prog_plain}) {
    const jpeg::Header h0 = jpeg::parse(original->data(), original->size());
    const std::size_t first = h0.scans.front().data_offset;
    int compared = 0;
    for (std::size_t n = first; n < original->size(); n += 3) {
      INFO("cut at " << n);
      compared += compare_damaged({original->begin(), original->begin() + std::ptrdiff_t(n)});
    }
    CHECK(compared > 20);
    compared = 0;
    for (int t = 0; t < 300; ++t, k += 3) {
      auto file = *original;
      std::size_t at =
          first + (std::size_t(noise[k]) << 8 | noise[k + 1]) % (file.size() - first - 2);
      while (!in_scan_data(h0, at)) ++at;  // entropy-coded bytes only
      file[at] ^= std::uint8_t(noise[k + 2]);
      INFO("byte " << at << " ^ " << int(noise[k + 2]));
      compared += compare_damaged(file);
    }
    CHECK(compared > 100);
  }
}

// Cut inside a DAC segment: libjpeg-turbo reads the segment on from the FF D9 bytes its source
// manager supplies past the end, which it mostly refuses (table class 0xF); accepted or refused
// alike here.
TEST_CASE("jpeg arithmetic: a DAC segment cut short is refused or accepted as by libjpeg-turbo") {
  test::EncodeParams p = params(kSamplings[2], 70);
  p.progressive = true;
  const auto prog = test::libjpeg_encode_ex(test::synthetic_rgb(24, 24, 71), p);
  int accepted = 0;
  for (const auto& [at, len] : dac_segments(prog)) {
    for (std::size_t n = at - 3; n <= at + len; ++n) {
      INFO("cut at " << n << " in the DAC segment at " << at - 4);
      const std::vector<std::uint8_t> cut(prog.begin(), prog.begin() + std::ptrdiff_t(n));
      bool theirs = true, ours = true;
      try {
        test::libjpeg_coefficients(cut);
      } catch (const std::runtime_error&) {
        theirs = false;
      }
      try {
        jpeg::parse(cut.data(), cut.size());
      } catch (const Error&) {
        ours = false;
      }
      CHECK(ours == theirs);
      if (ours && theirs) accepted += compare_damaged(cut);
    }
  }
  CHECK(accepted > 0);
}

// Restart markers renumbered, replaced by TEM or a reserved marker, or removed: libjpeg-turbo
// resynchronises (jpeg_resync_to_restart) and leaves intervals empty or skips data; so does
// Scan::interval_starts, and the decoder reads each interval from where it says.
TEST_CASE("jpeg arithmetic: damaged restart markers resynchronise as in libjpeg-turbo") {
  test::EncodeParams p = params(kSamplings[1], 80);
  p.restart_blocks = 1;
  const auto seq = test::libjpeg_encode_ex(test::synthetic_rgb(40, 24, 61), p);
  p.progressive = true;
  p.restart_blocks = 2;
  const auto prog = test::libjpeg_encode_ex(test::synthetic_rgb(40, 24, 62), p);
  int compared = 0;
  for (const auto* original : {&seq, &prog}) {
    const jpeg::Header h0 = jpeg::parse(original->data(), original->size());
    for (const auto& scan : h0.scans) {
      for (std::size_t r = 0; r < scan.restarts.size(); r += 3) {
        const std::size_t at = scan.restarts[r];
        for (int change : {1, 2, 3, 6, 7, -1, -2, -3}) {
          auto file = *original;
          if (change > 0) {
            file[at + 1] = std::uint8_t(0xD0 + (file[at + 1] - 0xD0 + change) % 8);
          } else if (change == -1) {
            file[at + 1] = 0x01;  // TEM
          } else if (change == -2) {
            file[at + 1] = 0x00;  // no marker: FF 00 is data
          } else {
            file[at] = 0x5A;  // no marker: two data bytes
            file[at + 1] = 0xA5;
          }
          INFO("scan at " << scan.data_offset << ", marker at " << at << ", change " << change);
          compared += compare_damaged(file);
        }
      }
    }
  }
  CHECK(compared > 100);
}

// Random bytes in place of the data, in every kind of scan: decoded or refused, never a crash,
// a read out of bounds or a hang; where libjpeg-turbo decodes them, to its coefficients.
TEST_CASE("jpeg arithmetic: garbage fails cleanly or decodes") {
  test::EncodeParams p = params(kSamplings[2], 50);
  p.progressive = true;
  p.restart_blocks = 3;
  const auto prog = test::libjpeg_encode_ex(test::synthetic_rgb(48, 40, 41), p);
  p.progressive = false;
  const auto seq = test::libjpeg_encode_ex(test::synthetic_rgb(48, 40, 42), p);
  std::size_t decoded = 0, refused = 0;
  int compared = 0;
  unsigned seed = 50;
  for (const auto* original : {&seq, &prog}) {
    const jpeg::Header h0 = jpeg::parse(original->data(), original->size());
    for (int t = 0; t < 40; ++t) {
      auto file = *original;
      const auto noise = test::random_bytes(file.size(), seed++);
      // Every data byte, every other one, data with stuffed FF 00 and restart markers in
      // unexpected places; then everything from the first scan on.
      const int mode = t % 4;
      for (std::size_t i = h0.scans.front().data_offset; i + 1 < file.size(); ++i) {
        // The restart markers (and stuffed FF 00) stay where they are, but in the last mode.
        if (mode < 3 &&
            (!in_scan_data(h0, i) || (*original)[i] == 0xFF || (*original)[i - 1] == 0xFF))
          continue;
        if (mode == 1 && i % 2) continue;
        file[i] = mode < 3 && noise[i] == 0xFF ? 0xFE : noise[i];
        if (mode == 2 && noise[i] % 16 == 0 && in_scan_data(h0, i + 1)) {
          file[i] = 0xFF;
          file[i + 1] = noise[i] % 4 ? 0x00 : std::uint8_t(0xD0 + noise[i] % 8);
          ++i;
        }
      }
      try {
        Decoded d = decode(file);
        CHECK(d.coef.size() == std::size_t(d.layout.groups) * 64 * 64);
        ++decoded;
      } catch (const Error&) {
        ++refused;
      }
      if (mode < 3) compared += compare_damaged(file);
    }
  }
  MESSAGE("garbage: decoded " << decoded << ", refused " << refused);
  CHECK(decoded > 0);
  CHECK(compared > 40);  // and where libjpeg-turbo decodes it, to the same coefficients
}
