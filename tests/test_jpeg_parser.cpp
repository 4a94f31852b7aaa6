// core/jpeg parser: headers and tables equal what libjpeg's jpeg_read_header() reports, on the
// conformance files and on files libjpeg writes; malformed input is an InvalidData error with a
// byte offset (or a warning where libjpeg also only warns), never a crash.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "core/jpeg/parser.h"
#include "core/portable/jpeg_zigzag.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

namespace {

std::vector<std::uint8_t> read_file(const std::string& name) {
  std::ifstream in(std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/" + name, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void compare_with_libjpeg(const std::vector<std::uint8_t>& file) {
  jpeg::Header h = jpeg::parse(file.data(), file.size());
  test::LibjpegHeader ref = test::libjpeg_read_header(file);
  CHECK(h.width == ref.width);
  CHECK(h.height == ref.height);
  CHECK(h.precision == ref.precision);
  CHECK(int(h.components.size()) == ref.components);
  CHECK((h.process == jpeg::Process::ProgressiveHuffman) == ref.progressive);
  CHECK((h.process == jpeg::Process::Arithmetic) == ref.arithmetic);
  CHECK(h.jfif == ref.jfif);
  CHECK(h.adobe == ref.adobe);
  REQUIRE(!h.scans.empty());
  const jpeg::Scan& first = h.scans.front();
  CHECK(first.restart_interval == ref.restart_interval);
  static const int natural[64] = HC_JPEG_NATURAL_ORDER;
  for (std::size_t c = 0; c < h.components.size(); ++c) {
    CHECK(h.components[c].id == ref.ids[c]);
    CHECK(h.components[c].h == ref.h[c]);
    CHECK(h.components[c].v == ref.v[c]);
    CHECK(h.components[c].quant_table == ref.quant_table[c]);
  }
  for (int t = 0; t < 4; ++t) {
    INFO("table " << t);
    const auto& q = first.quant_tables[t];
    CHECK(q.defined == !ref.quant_natural[t].empty());
    if (q.defined) {
      for (int k = 0; k < 64; ++k) CHECK(q.values[k] == ref.quant_natural[t][natural[k]]);
    }
    for (int ac = 0; ac < 2; ++ac) {
      const auto& ours = ac ? first.ac_tables[t] : first.dc_tables[t];
      if (!ours.defined) continue;
      const auto& bits = ac ? ref.ac_bits[t] : ref.dc_bits[t];
      const auto& vals = ac ? ref.ac_vals[t] : ref.dc_vals[t];
      REQUIRE(bits.size() == 16);
      for (int l = 1; l <= 16; ++l) CHECK(ours.counts[l] == bits[l - 1]);
      CHECK(std::vector<int>(ours.symbols.begin(), ours.symbols.end()) == vals);
    }
  }
}

}  // namespace

TEST_CASE("jpeg parser agrees with libjpeg on the conformance files") {
  for (const char* name : {"testorig.jpg", "testimgint.jpg", "testimgari.jpg"}) {
    INFO(name);
    compare_with_libjpeg(read_file(name));
  }
  auto ari = read_file("testimgari.jpg");
  CHECK(jpeg::parse(ari.data(), ari.size()).process == jpeg::Process::Arithmetic);
  auto m12 = read_file("monkey12.jpg");
  CHECK(jpeg::parse(m12.data(), m12.size()).precision == 12);
}

TEST_CASE("jpeg parser agrees with libjpeg on files libjpeg writes") {
  auto rgb = test::synthetic_rgb(67, 45, 5);
  struct Case {
    int q, h, v, restart;
    bool opt;
  };
  for (Case c : {Case{75, 2, 2, 0, false}, Case{10, 2, 1, 1, true}, Case{100, 1, 2, 2, false},
                 Case{90, 4, 1, 1, false}, Case{50, 1, 1, 3, true}}) {
    INFO("q" << c.q << " " << c.h << "x" << c.v << " restart " << c.restart);
    auto file = test::libjpeg_encode(rgb, c.q, c.h, c.v, c.restart, c.opt);
    compare_with_libjpeg(file);
    jpeg::Header h = jpeg::parse(file.data(), file.size());
    REQUIRE(h.scans.size() == 1);
    const auto& s = h.scans[0];
    CHECK(s.data_end > s.data_offset);
    CHECK(file[s.data_end] == 0xFF);
    CHECK(file[s.data_end + 1] == 0xD9);  // the scan runs up to EOI
    if (c.restart) {
      // One RSTn between restart intervals: MCU rows / restart rows, minus one.
      int mcu_rows = (45 + 8 * c.v - 1) / (8 * c.v);
      CHECK(int(s.restarts.size()) == (mcu_rows + c.restart - 1) / c.restart - 1);
      for (std::size_t i = 0; i < s.restarts.size(); ++i) {
        CHECK(file[s.restarts[i]] == 0xFF);
        CHECK(file[s.restarts[i] + 1] == 0xD0 + i % 8);
      }
    } else {
      CHECK(s.restarts.empty());
    }
    CHECK(h.warnings.empty());
  }
}

TEST_CASE("jpeg parser: malformed input is an InvalidData error naming a byte offset") {
  auto good = read_file("testorig.jpg");
  auto expect_invalid = [](std::vector<std::uint8_t> bytes, const char* what) {
    INFO(what);
    try {
      jpeg::parse(bytes.data(), bytes.size());
      FAIL("parsed");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidData);
      CHECK(std::string(e.what()).find("jpeg: byte ") == 0);
    }
  };
  expect_invalid({}, "empty");
  expect_invalid({0x89, 'P', 'N', 'G'}, "not a JPEG");
  expect_invalid({0xFF, 0xD8}, "SOI only");
  expect_invalid({good.begin(), good.begin() + 300}, "truncated in the headers");
  auto bad_len = good;
  bad_len[4] = 0xFF;  // APP0 length now runs past the end
  bad_len[5] = 0xF0;
  expect_invalid(bad_len, "garbled segment length");
  // A DHT whose counts overflow the code space: find the first DHT and set all counts to 255.
  auto bad_dht = good;
  for (std::size_t i = 2; i + 20 < bad_dht.size(); ++i) {
    if (bad_dht[i] == 0xFF && bad_dht[i + 1] == 0xC4) {
      for (int l = 0; l < 16; ++l) bad_dht[i + 5 + l] = 2;
      break;
    }
  }
  expect_invalid(bad_dht, "bad Huffman table");
}

TEST_CASE("jpeg parser: absurd declared sizes hit the pixel limit") {
  auto file = test::libjpeg_encode(test::synthetic_rgb(16, 16, 1), 75, 2, 2, 0, false);
  for (std::size_t i = 2; i + 9 < file.size(); ++i) {
    if (file[i] == 0xFF && file[i + 1] == 0xC0) {
      file[i + 5] = file[i + 6] = file[i + 7] = file[i + 8] = 0xFF;  // 65535 x 65535
      break;
    }
  }
  try {
    jpeg::parse(file.data(), file.size());
    FAIL("parsed");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::LimitExceeded);
  }
  jpeg::Limits big;
  big.max_pixels = 1ull << 33;
  CHECK(jpeg::parse(file.data(), file.size(), big).width == 65535);
}

TEST_CASE("jpeg parser: every truncation and many flipped bytes fail cleanly or parse") {
  auto good = read_file("testorig.jpg");
  std::size_t errors = 0, parsed = 0;
  for (std::size_t n = 0; n < good.size(); n += 7) {
    try {
      jpeg::parse(good.data(), n);
      ++parsed;
    } catch (const Error&) {
      ++errors;
    }
  }
  auto noise = test::random_bytes(4000, 9);
  for (std::size_t k = 0; k + 2 < noise.size(); k += 2) {
    auto bytes = good;
    bytes[2 + (std::size_t(noise[k]) << 8 | noise[k + 1]) % (bytes.size() - 2)] ^= noise[k + 2] | 1;
    try {
      jpeg::parse(bytes.data(), bytes.size());
      ++parsed;
    } catch (const Error&) {
      ++errors;
    }
  }
  CHECK(errors > 0);
  CHECK(parsed > 0);  // truncations inside the scan still parse, with a warning
}

// parse_headers (up to the first scan) and parse_frame (the frame header alone) read the frame
// as parse() does, on every file; cut before the frame header, both fail with InvalidData, and
// both apply the pixel limit.
TEST_CASE("jpeg parser: parse_headers and parse_frame read the frame as parse does") {
  for (const char* name :
       {"testorig.jpg", "testimgint.jpg", "testimgari.jpg", "monkey12.jpg",
        "ffmpeg-gray-45x29-q5-default.jpg", "ffmpeg-yuvj422p-64x40-q8-default.jpg"}) {
    INFO(name);
    const auto file = read_file(name);
    const jpeg::Header whole = jpeg::parse(file.data(), file.size());
    for (const jpeg::Header& h : {jpeg::parse_headers(file.data(), file.size()),
                                  jpeg::parse_frame(file.data(), file.size())}) {
      CHECK(h.width == whole.width);
      CHECK(h.height == whole.height);
      CHECK(h.precision == whole.precision);
      CHECK(h.sof_marker == whole.sof_marker);
      REQUIRE(h.components.size() == whole.components.size());
      for (std::size_t c = 0; c < h.components.size(); ++c) {
        CHECK(h.components[c].h == whole.components[c].h);
        CHECK(h.components[c].v == whole.components[c].v);
      }
      CHECK(h.scans.empty());
    }
    const jpeg::Header headers = jpeg::parse_headers(file.data(), file.size());
    CHECK(headers.jfif == whole.jfif);
    CHECK(headers.adobe == whole.adobe);
  }
  const auto file = read_file("testorig.jpg");
  for (std::size_t cut : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(30)}) {
    INFO("cut at " << cut);
    for (int mode = 0; mode < 2; ++mode) {
      try {
        if (mode == 0) jpeg::parse_headers(file.data(), cut);
        if (mode == 1) jpeg::parse_frame(file.data(), cut);
        FAIL("no error");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidData);
      }
    }
  }
  jpeg::Limits small;
  small.max_pixels = 100;
  CHECK_THROWS_AS(jpeg::parse_frame(file.data(), file.size(), small), Error);
  CHECK_THROWS_AS(jpeg::parse_headers(file.data(), file.size(), small), Error);
}

// The marker search of a large scan runs on threads (Limits::parallel_scan_bytes): forced onto
// small files cut into many chunks, it must find what the one-thread search finds on every file,
// damaged ones included (restart markers, their resynchronisation, fill bytes, reserved
// markers, the end of the scan).
TEST_CASE("jpeg parser: the parallel marker search finds what the serial one finds") {
  namespace fs = std::filesystem;
  std::vector<std::vector<std::uint8_t>> files;
  for (const char* dir : {"jpeg", "ljpeg"})
    for (const auto& e : fs::directory_iterator(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / dir))
      if (e.path().extension() == ".jpg") {
        std::ifstream f(e.path(), std::ios::binary);
        files.push_back({std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()});
      }
  REQUIRE(files.size() > 100);
  // Damaged copies: bytes turned into 0xFF, RSTn markers and stuffing removed.
  const auto noise = test::random_bytes(3000, 21);
  for (std::size_t k = 0; k + 3 < noise.size(); k += 3) {
    auto bytes = files[noise[k] % files.size()];
    const std::size_t at = 2 + (std::size_t(noise[k + 1]) << 8 | noise[k + 2]) % (bytes.size() - 2);
    bytes[at] = noise[k] & 1 ? 0xFF : std::uint8_t(0xD0 + noise[k + 1] % 8);
    files.push_back(bytes);
  }
  jpeg::Limits serial, parallel;
  serial.parallel_scan_bytes = ~std::size_t(0);
  parallel.parallel_scan_bytes = 0;
  int compared = 0;
  for (const auto& file : files)
    for (int threads : {1, 3, 8}) {
      parallel.scan_threads = threads;
      std::string want, got;
      jpeg::Header a, b;
      try {
        a = jpeg::parse(file.data(), file.size(), serial);
      } catch (const Error& e) {
        want = e.what();
      }
      try {
        b = jpeg::parse(file.data(), file.size(), parallel);
      } catch (const Error& e) {
        got = e.what();
      }
      REQUIRE(got == want);
      REQUIRE(a.scans.size() == b.scans.size());
      for (std::size_t s = 0; s < a.scans.size(); ++s) {
        CHECK(a.scans[s].data_end == b.scans[s].data_end);
        CHECK(a.scans[s].restarts == b.scans[s].restarts);
        REQUIRE(a.scans[s].interval_starts.size() == b.scans[s].interval_starts.size());
        for (std::size_t i = 0; i < a.scans[s].interval_starts.size(); ++i) {
          CHECK(a.scans[s].interval_starts[i].begin == b.scans[s].interval_starts[i].begin);
          CHECK(a.scans[s].interval_starts[i].found == b.scans[s].interval_starts[i].found);
        }
      }
      CHECK(a.warnings == b.warnings);
      ++compared;
    }
  CHECK(compared > 3000);
}
