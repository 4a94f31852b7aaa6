// PNG decode, the CPU side (core/png/reader.h): every PngSuite file against libpng read with
// png_set_expand, the refusal of every broken PngSuite file, limits, decompression bombs,
// damaged input, and the segment-parallel inflate of files our parallel mode writes.
#include <doctest/doctest.h>

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/png/checksum.h"
#include "core/png/filter.h"
#include "core/png/reader.h"
#include "core/png/writer.h"
#include "core/portable/png_inflate.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

fs::path suite_dir() { return fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "pngsuite"; }

std::vector<fs::path> suite_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(suite_dir()))
    if (e.path().extension() == ".png") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

png::Raster decode_cpu(const std::vector<std::uint8_t>& f, std::vector<std::string>* w = nullptr,
                       png::DecodeLimits limits = {}) {
  std::vector<std::string> warnings;
  auto r = png::decode(f.data(), f.size(), limits, warnings);
  if (w) *w = warnings;
  return r;
}

void put32(std::vector<std::uint8_t>& v, std::uint32_t x) {
  for (int s = 24; s >= 0; s -= 8) v.push_back(std::uint8_t(x >> s));
}

void chunk(std::vector<std::uint8_t>& f, const char* type, const std::vector<std::uint8_t>& data) {
  put32(f, std::uint32_t(data.size()));
  const std::size_t at = f.size();
  f.insert(f.end(), type, type + 4);
  f.insert(f.end(), data.begin(), data.end());
  put32(f, png::crc32(0, f.data() + at, data.size() + 4));
}

std::vector<std::uint8_t> zlib_compress(const std::vector<std::uint8_t>& in) {
  uLongf n = compressBound(uLong(in.size()));
  std::vector<std::uint8_t> out(n);
  REQUIRE(compress2(out.data(), &n, in.data(), uLong(in.size()), 9) == Z_OK);
  out.resize(n);
  return out;
}

// A PNG from its parts: IHDR fields, the filtered image data, and extra chunks before IDAT.
std::vector<std::uint8_t> make_png(
    std::uint32_t w, std::uint32_t h, int depth, int color,
    const std::vector<std::uint8_t>& filtered,
    const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& extra = {}) {
  std::vector<std::uint8_t> f = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> ihdr;
  put32(ihdr, w);
  put32(ihdr, h);
  ihdr.insert(ihdr.end(), {std::uint8_t(depth), std::uint8_t(color), 0, 0, 0});
  chunk(f, "IHDR", ihdr);
  for (const auto& [t, d] : extra) chunk(f, t.c_str(), d);
  chunk(f, "IDAT", zlib_compress(filtered));
  chunk(f, "IEND", {});
  return f;
}

}  // namespace

TEST_CASE("png decode: every valid PngSuite file equals libpng's expanded samples") {
  int checked = 0;
  for (const auto& p : suite_files()) {
    const std::string name = p.filename().string();
    if (name[0] == 'x') continue;
    INFO(name);
    const auto f = read_bytes(p);
    const png::Raster ref = test::libpng_decode_expanded(f);
    const png::Raster ours = decode_cpu(f);
    CHECK(ours.width == ref.width);
    CHECK(ours.height == ref.height);
    CHECK(ours.channels == ref.channels);
    CHECK(ours.bit_depth == ref.bit_depth);
    CHECK(ours.samples == ref.samples);
    ++checked;
  }
  CHECK(checked >= 150);
}

TEST_CASE("png decode: every broken PngSuite file is refused, saying what is wrong") {
  const std::map<std::string, std::string> expect = {
      {"xs1n0g01.png", "signature"},      {"xs2n0g01.png", "signature"},
      {"xs4n0g01.png", "signature"},      {"xs7n0g01.png", "signature"},
      {"xcrn0g04.png", "signature"},      {"xlfn0g04.png", "signature"},
      {"xhdn0g08.png", "IHDR chunk CRC"}, {"xc1n0g08.png", "colour type 1"},
      {"xc9n2c08.png", "colour type 9"},  {"xd0n2c08.png", "bit depth 0"},
      {"xd3n2c08.png", "bit depth 3"},    {"xd9n2c08.png", "bit depth 99"},
      {"xdtn0g01.png", "no image data"},  {"xcsn0g01.png", "IDAT chunk CRC"}};
  int seen = 0;
  for (const auto& p : suite_files()) {
    const std::string name = p.filename().string();
    if (name[0] != 'x') continue;
    INFO(name);
    ++seen;
    const auto f = read_bytes(p);
    CHECK_THROWS(test::libpng_decode_expanded(f));
    try {
      decode_cpu(f);
      FAIL("decoded a broken file");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidData);
      REQUIRE(expect.count(name));
      CHECK(std::string(e.what()).find(expect.at(name)) != std::string::npos);
    }
  }
  CHECK(seen == int(expect.size()));
}

TEST_CASE("png decode: ancillary chunks are kept, text decoded, CRC errors tolerable on request") {
  const auto f = read_bytes(suite_dir() / "ct1n0g04.png");
  const png::Info info = png::parse(f.data(), f.size());
  std::vector<std::string> w;
  const auto text = png::text_chunks(info, {}, w);
  CHECK(text.size() >= 3);
  CHECK(std::any_of(text.begin(), text.end(), [](const auto& kv) { return kv.first == "Title"; }));
  const auto z = read_bytes(suite_dir() / "ctzn0g04.png");
  const auto zt = png::text_chunks(png::parse(z.data(), z.size()), {}, w);
  CHECK(std::any_of(zt.begin(), zt.end(), [](const auto& kv) {
    return kv.second.find("PngSuite") != std::string::npos || kv.second.size() > 20;
  }));
  CHECK(w.empty());
  const auto g = read_bytes(suite_dir() / "g03n0g16.png");
  const auto gi = png::parse(g.data(), g.size());
  CHECK(std::any_of(gi.ancillary.begin(), gi.ancillary.end(),
                    [](const png::Chunk& c) { return c.type == "gAMA"; }));

  // An IDAT CRC error: refused, or a warning with ignore_crc, and the samples still decode.
  const auto bad = read_bytes(suite_dir() / "xcsn0g01.png");
  png::DecodeLimits lax;
  lax.ignore_crc = true;
  std::vector<std::string> warnings;
  const auto im = decode_cpu(bad, &warnings, lax);
  CHECK(im.width == 32);
  CHECK(std::any_of(warnings.begin(), warnings.end(),
                    [](const std::string& s) { return s.find("CRC") != std::string::npos; }));
}

TEST_CASE("png decode: limits and decompression bombs") {
  // A huge IHDR over a tiny IDAT: refused by the pixel limit before anything is allocated.
  {
    const auto f = make_png(100000, 100000, 8, png::kRgb, {0, 0, 0, 0});
    try {
      decode_cpu(f);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::LimitExceeded);
    }
  }
  // Within the limits but with far too little data: an error, not a grey image.
  {
    const auto f = make_png(4000, 3000, 8, png::kRgb, std::vector<std::uint8_t>(100, 0));
    try {
      decode_cpu(f);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidData);
      CHECK(std::string(e.what()).find("ends early") != std::string::npos);
    }
  }
  // The inflated-size limit.
  {
    const auto f = make_png(2000, 2000, 16, png::kRgba, {0});
    png::DecodeLimits small;
    small.max_inflated_bytes = 1 << 20;
    CHECK_THROWS_AS(decode_cpu(f, nullptr, small), Error);
  }
  // The memory limit, at IHDR: 2 x (inflated rows + output with the alpha tRNS could add).
  {
    const std::vector<std::uint8_t> rows(3 * (1 + 300 * 3), 0);
    const auto f = make_png(300, 3, 8, png::kRgb, rows);
    const std::uint64_t need = 2 * (std::uint64_t(rows.size()) + 300 * 3 * 4);
    png::DecodeLimits limits;
    limits.max_memory_bytes = need;
    CHECK(decode_cpu(f, nullptr, limits).width == 300);
    limits.max_memory_bytes = need - 1;
    try {
      decode_cpu(f, nullptr, limits);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::LimitExceeded);
      CHECK(std::string(e.what()).find("max_memory_bytes " + std::to_string(need - 1)) !=
            std::string::npos);
    }
    // A huge IHDR within the pixel limit over a tiny IDAT: refused before the rows are made.
    limits.max_memory_bytes = 256u << 20;
    const auto bomb = make_png(16000, 16000, 8, png::kRgba, {0});
    try {
      decode_cpu(bomb, nullptr, limits);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::LimitExceeded);
      CHECK(std::string(e.what()).find("memory") != std::string::npos);
    }
  }
  // A zTXt bomb: 64 MiB of text in a small chunk. Skipped with a warning; the image decodes.
  {
    std::vector<std::uint8_t> z = {'C', 'o', 'm', 'm', 'e', 'n', 't', 0, 0};
    const auto bomb = zlib_compress(std::vector<std::uint8_t>(64u << 20, 'A'));
    CHECK(bomb.size() < 200000);
    z.insert(z.end(), bomb.begin(), bomb.end());
    const auto f = make_png(1, 1, 8, png::kGray, {0, 7}, {{"zTXt", z}});
    std::vector<std::string> w;
    const auto im = decode_cpu(f, &w);
    CHECK(im.samples == std::vector<std::uint8_t>{7});
    const auto info = png::parse(f.data(), f.size());
    const auto text = png::text_chunks(info, {}, w);
    CHECK(text.empty());
    CHECK(std::any_of(w.begin(), w.end(), [](const std::string& s) {
      return s.find("text limit") != std::string::npos;
    }));
  }
  // A filter type that does not exist.
  {
    const auto f = make_png(2, 2, 8, png::kGray, {0, 1, 2, 9, 3, 4});
    CHECK_THROWS_AS(decode_cpu(f), Error);
  }
  // Trailing image data is a warning, as in libpng.
  {
    const auto f = make_png(2, 1, 8, png::kGray, {0, 5, 6, 0, 0, 0});
    std::vector<std::string> w;
    const auto im = decode_cpu(f, &w);
    CHECK(im.samples == std::vector<std::uint8_t>{5, 6});
    CHECK(!w.empty());
  }
}

TEST_CASE("png decode: truncated and damaged files never crash") {
  // Every truncation and many single-byte changes of a few PngSuite files: an Error or an
  // image, nothing else (the ASan build of this suite checks the memory accesses).
  for (const char* name : {"basn2c08.png", "basi3p02.png", "basn4a16.png", "tbbn0g04.png"}) {
    INFO(name);
    const auto f = read_bytes(suite_dir() / name);
    for (std::size_t n = 0; n < f.size(); n += 1 + n / 16) {
      std::vector<std::uint8_t> t(f.begin(), f.begin() + std::ptrdiff_t(n));
      try {
        decode_cpu(t);
      } catch (const Error&) {
      }
    }
    const auto noise = test::random_bytes(f.size() * 4, 99);
    png::DecodeLimits lax;
    lax.ignore_crc = true;  // so that damage reaches the inflater and the de-filter
    for (std::size_t k = 0; k + 3 < noise.size(); k += 4) {
      std::vector<std::uint8_t> m = f;
      m[(std::size_t(noise[k]) << 8 | noise[k + 1]) % m.size()] ^= noise[k + 2];
      try {
        decode_cpu(m, nullptr, lax);
      } catch (const Error&) {
      }
    }
  }
}

TEST_CASE("png decode: files of the parallel mode inflate segment by segment") {
  png::Raster im;
  im.width = 700;
  im.height = 300;
  im.channels = 3;
  const auto r = test::random_bytes(im.row_bytes() * 300, 5);
  im.samples.assign(r.begin(), r.end());
  for (std::size_t i = 0; i < im.samples.size(); i += 7) im.samples[i] = 0;  // some structure
  const auto filtered = png::filter_rows_libpng(im);
  const auto file = png::assemble_parallel(im, filtered, 9, 2);
  const png::Info info = png::parse(file.data(), file.size());
  std::vector<std::uint8_t> a(png::inflated_bytes(info)), b(a.size());
  std::vector<std::string> w;
  bool used = false;
  png::inflate_image(file.data(), info, a.data(), w, 4, &used);
  CHECK(used);
  png::inflate_image(file.data(), info, b.data(), w, 1, &used);
  CHECK(!used);
  CHECK(a == b);
  CHECK(a == filtered);
  CHECK(w.empty());
  CHECK(decode_cpu(file).samples == im.samples);

  // A damaged index (offsets swapped) is not trusted: the whole stream is inflated instead.
  auto bad = file;
  const std::size_t at =
      std::size_t(std::search(bad.begin(), bad.end(), "hcRS", "hcRS" + 4) - bad.begin());
  REQUIRE(at < bad.size());
  std::swap(bad[at + 4 + 6 + 8 + 7], bad[at + 4 + 6 + 16 + 7]);  // low bytes of offsets 1 and 2
  const std::uint32_t len = 6 + 8 * 9;
  const std::uint32_t crc = png::crc32(0, bad.data() + at, len + 4);
  for (int k = 0; k < 4; ++k)
    bad[at + 4 + len + std::size_t(k)] = std::uint8_t(crc >> (24 - 8 * k));
  const png::Info bi = png::parse(bad.data(), bad.size());
  std::vector<std::uint8_t> c(a.size());
  w.clear();
  png::inflate_image(bad.data(), bi, c.data(), w, 4, &used);
  CHECK(!used);
  CHECK(c == filtered);
}

TEST_CASE(
    "png decode: Apple's iDOT index: segments inflated in parallel, and refused when it does not "
    "hold") {
  png::Raster im;
  im.width = 500;
  im.height = 240;
  im.channels = 4;
  const auto r = test::random_bytes(im.row_bytes() * 240, 17);
  im.samples.assign(r.begin(), r.end());
  for (std::size_t i = 0; i < im.samples.size(); ++i)  // repeats for the matches to reach back to
    if ((i / 64) % 3 != 0) im.samples[i] = im.samples[i % 64];
  const auto filtered = png::filter_rows_libpng(im);
  for (const std::vector<std::uint32_t>& rows :
       {std::vector<std::uint32_t>{0, 120}, std::vector<std::uint32_t>{0, 1, 100, 239}}) {
    INFO(rows.size() << " segments");
    const auto file = test::idot_file(im, filtered, rows);
    REQUIRE(test::libpng_decode_expanded(file).samples == im.samples);
    const png::Info info = png::parse(file.data(), file.size());
    std::string kind;
    const auto seg = png::restart_segments(info, &kind);
    CHECK(kind == "iDOT");
    REQUIRE(seg.size() == rows.size());
    std::uint64_t joined = 0;
    for (std::size_t k = 0; k < seg.size(); ++k) {
      CHECK(seg[k].first == rows[k]);
      CHECK(seg[k].second == (k == 0 ? 2 : joined));  // each segment starts an IDAT chunk
      joined += info.idat[k].second;
    }
    std::vector<std::uint8_t> a(png::inflated_bytes(info));
    std::vector<std::string> w;
    bool used = false;
    png::inflate_image(file.data(), info, a.data(), w, 4, &used);
    CHECK(used);
    CHECK(w.empty());
    CHECK(a == filtered);
    CHECK(png::inflate_table(info).size() == rows.size() * HC_INF_WORDS);
  }

  // Indexes that do not hold are not used; the image still decodes exactly.
  auto patched = [](std::vector<std::uint8_t> f, std::size_t word, std::uint32_t v) {
    const std::size_t at =
        std::size_t(std::search(f.begin(), f.end(), "iDOT", "iDOT" + 4) - f.begin());
    const std::uint32_t n = f[at - 1];  // the data's length (under 256 bytes)
    for (int k = 0; k < 4; ++k)
      f[at + 4 + 4 * word + std::size_t(k)] = std::uint8_t(v >> (24 - 8 * k));
    const std::uint32_t crc = png::crc32(0, f.data() + at, n + 4);
    for (int k = 0; k < 4; ++k) f[at + 4 + n + std::size_t(k)] = std::uint8_t(crc >> (24 - 8 * k));
    return f;
  };
  const auto good = test::idot_file(im, filtered, {0, 120});
  const std::uint32_t second_at = [&] {
    const std::size_t at =
        std::size_t(std::search(good.begin(), good.end(), "iDOT", "iDOT" + 4) - good.begin());
    return std::uint32_t(good[at + 4 + 24]) << 24 | std::uint32_t(good[at + 4 + 25]) << 16 |
           std::uint32_t(good[at + 4 + 26]) << 8 | good[at + 4 + 27];  // word 6: the second offset
  }();
  struct Bad {
    const char* what;
    std::vector<std::uint8_t> file;
  };
  const std::vector<Bad> bad = {
      {"offset inside an IDAT chunk", patched(good, 6, second_at + 4)},
      {"offset before the first segment's", patched(good, 6, 40)},
      {"rows that do not reach the last", patched(good, 5, 119)},
      {"rows that overlap", patched(good, 4, 119)},
      {"a count that does not fit the length", patched(good, 0, 3)},
  };
  for (const Bad& b : bad) {
    INFO(b.what);
    const png::Info info = png::parse(b.file.data(), b.file.size());
    CHECK(png::idot_segments(info).empty());
    std::vector<std::uint8_t> a(png::inflated_bytes(info));
    std::vector<std::string> w;
    bool used = true;
    png::inflate_image(b.file.data(), info, a.data(), w, 4, &used);
    CHECK(!used);
    CHECK(a == filtered);
  }
  // An index that looks right over data that was not flushed where it says: the segments do not
  // inflate on their own, the whole stream is inflated, and a warning says so.
  const auto unflushed = test::idot_file(im, filtered, {0, 120}, false);
  const png::Info info = png::parse(unflushed.data(), unflushed.size());
  CHECK(png::idot_segments(info).size() == 2);
  std::vector<std::uint8_t> a(png::inflated_bytes(info));
  std::vector<std::string> w;
  bool used = true;
  png::inflate_image(unflushed.data(), info, a.data(), w, 4, &used);
  CHECK(!used);
  CHECK(a == filtered);
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("iDOT") != std::string::npos);
  CHECK(decode_cpu(unflushed).samples == im.samples);
}

TEST_CASE(
    "png decode: the device inflate (core/portable/png_inflate.h) on good and damaged segments") {
  // The code every backend's png_inflate runs, here on the host: the segments of a parallel-
  // mode file give the filtered rows and the stream's Adler-32; damaged, they give a status
  // and never read or write outside their buffers (the ASan build of this suite checks that:
  // input and output are allocated to their exact sizes).
  png::Raster im;
  im.width = 300;
  im.height = 90;
  im.channels = 3;
  const auto r = test::random_bytes(im.row_bytes() * 90, 11);
  im.samples.assign(r.begin(), r.end());
  for (std::size_t i = 0; i < im.samples.size() / 2; ++i) im.samples[i] = std::uint8_t(i / 9);
  const auto filtered = png::filter_rows_libpng(im);
  const auto file = png::assemble_parallel(im, filtered, 6, 2);
  const png::Info info = png::parse(file.data(), file.size());
  const std::vector<hc_u32> table = png::inflate_table(info);
  REQUIRE(table.size() == 6 * HC_INF_WORDS);
  const std::size_t segments = table.size() / HC_INF_WORDS;
  std::vector<std::uint8_t> joined;
  for (const auto& [off, len] : info.idat)
    joined.insert(joined.end(), file.begin() + std::ptrdiff_t(off),
                  file.begin() + std::ptrdiff_t(off + len));
  auto run = [&](const std::vector<std::uint8_t>& in, std::vector<std::uint8_t>& out) {
    std::vector<hc_u32> res(segments * HC_INF_RESULT_WORDS);
    for (std::size_t k = 0; k < segments; ++k)
      hc_inflate_segment(table.data() + k * HC_INF_WORDS, in.data(), out.data(),
                         res.data() + k * HC_INF_RESULT_WORDS);
    return res;
  };
  std::vector<std::uint8_t> out(filtered.size());
  const auto res = run(joined, out);
  std::uint32_t adler = 1;
  for (std::size_t k = 0; k < segments; ++k) {
    INFO("segment " << k);
    CHECK(res[k * HC_INF_RESULT_WORDS + HC_INF_STATUS] == HC_INF_OK);
    CHECK(res[k * HC_INF_RESULT_WORDS + HC_INF_PRODUCED] ==
          table[k * HC_INF_WORDS + HC_INF_OUT_LEN]);
    adler = png::adler32_combine(adler, res[k * HC_INF_RESULT_WORDS + HC_INF_ADLER],
                                 table[k * HC_INF_WORDS + HC_INF_OUT_LEN]);
  }
  CHECK(out == filtered);
  CHECK(adler == png::adler32(1, filtered.data(), filtered.size()));

  // Damage: every status but OK is possible; a wrong result must not pass the checks above
  // unnoticed (some status fails, or the Adler-32 differs), and nothing is touched outside.
  const auto noise = test::random_bytes(4 * 3000, 23);
  std::size_t caught = 0, changed = 0;
  for (std::size_t k = 0; k + 3 < noise.size(); k += 4) {
    std::vector<std::uint8_t> bad = joined;
    bad[(std::size_t(noise[k]) << 8 | noise[k + 1]) % (bad.size() - 4)] ^=
        std::uint8_t(noise[k + 2] | 1u);
    std::vector<std::uint8_t> o(filtered.size());
    const auto rr = run(bad, o);
    bool ok = true;
    std::uint32_t a = 1;
    for (std::size_t s = 0; s < segments; ++s) {
      ok = ok && rr[s * HC_INF_RESULT_WORDS + HC_INF_STATUS] == HC_INF_OK;
      a = png::adler32_combine(a, rr[s * HC_INF_RESULT_WORDS + HC_INF_ADLER],
                               table[s * HC_INF_WORDS + HC_INF_OUT_LEN]);
    }
    if (o != filtered) {
      ++changed;
      if (!ok || a != adler) ++caught;
    }
  }
  CHECK(changed > 0);
  CHECK(caught == changed);
}
