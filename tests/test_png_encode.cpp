// The PNG encoder's CPU reference in compatible mode: checksums against zlib's, the Z_RLE
// deflate stream against zlib's deflate() byte for byte, and whole files against libpng's with
// png_set_compression_strategy(Z_RLE), for every colour type the mode takes, 8 and 16 bits,
// 1x1 to images spanning many deflate blocks and window slides, flat and incompressible data,
// and a real photograph.
#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "core/error.h"
#include "core/png/checksum.h"
#include "core/png/layout.h"
#include "core/png/reader.h"
#include "core/png/small_deflate.h"
#include "core/png/writer.h"
#include "core/png/zlib_rle.h"
#include "core/portable/png_crc.h"
#include "core/portable/png_deflate.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

namespace {

std::vector<std::uint8_t> bytes(std::size_t n, unsigned seed) {
  const auto r = hetcodec::test::random_bytes(n, seed);
  return std::vector<std::uint8_t>(r.begin(), r.end());
}

// Runs of random lengths (1 to 600) of random bytes: literals, short and maximal matches.
std::vector<std::uint8_t> runs(std::size_t n, unsigned seed) {
  const auto r = bytes(n, seed);
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; out.size() < n; i += 2) {
    const std::size_t len = 1 + (r[i % n] * 7u + r[(i + 1) % n]) % 600 * (r[(i + 1) % n] & 1);
    out.insert(out.end(), std::min(len + 1, n - out.size()), r[i % n]);
  }
  return out;
}

png::Raster photo(int w, int h, int channels, int depth, unsigned seed) {
  const auto rgb = hetcodec::test::synthetic_rgb(w, h, seed);
  png::Raster im;
  im.width = w;
  im.height = h;
  im.channels = channels;
  im.bit_depth = depth;
  const auto noise = bytes(std::size_t(w) * std::size_t(h), seed + 1);
  for (int i = 0; i < w * h; ++i) {
    const std::uint8_t* p = &rgb.samples[std::size_t(i) * 3];
    std::uint8_t s[4];
    int n = 0;
    if (channels <= 2) {
      s[n++] = std::uint8_t((p[0] * 2 + p[1] * 5 + p[2]) / 8);
    } else {
      s[n++] = p[0];
      s[n++] = p[1];
      s[n++] = p[2];
    }
    if (channels == 2 || channels == 4) s[n++] = std::uint8_t(i % w < w / 2 ? 255 : p[1] ^ p[2]);
    for (int k = 0; k < n; ++k) {
      im.samples.push_back(s[k]);
      if (depth == 16) im.samples.push_back(std::uint8_t(s[k] * 3 + noise[std::size_t(i)] % 5));
    }
  }
  return im;
}

}  // namespace

TEST_CASE("png checksums equal zlib's crc32 and adler32, and combine") {
  const auto data = bytes(100000, 3);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(5551), std::size_t(5552),
                        std::size_t(5553), std::size_t(100000)}) {
    INFO(n << " bytes");
    CHECK(png::crc32(0, data.data(), n) == ::crc32(0, data.data(), uInt(n)));
    CHECK(png::adler32(1, data.data(), n) == ::adler32(1, data.data(), uInt(n)));
  }
  for (std::size_t split : {std::size_t(0), std::size_t(1), std::size_t(777), std::size_t(65536),
                            std::size_t(99999), std::size_t(100000)}) {
    INFO("split at " << split);
    const std::uint32_t ca = png::crc32(0, data.data(), split);
    const std::uint32_t cb = png::crc32(0, data.data() + split, data.size() - split);
    CHECK(png::crc32_combine(ca, cb, data.size() - split) ==
          ::crc32(0, data.data(), uInt(data.size())));
    const std::uint32_t aa = png::adler32(1, data.data(), split);
    const std::uint32_t ab = png::adler32(1, data.data() + split, data.size() - split);
    CHECK(png::adler32_combine(aa, ab, data.size() - split) ==
          ::adler32(1, data.data(), uInt(data.size())));
  }
}

TEST_CASE("CRC-32 in pieces (core/portable/png_crc.h) and IDAT chunks whose CRCs come from them") {
  std::vector<hc_u32> table(HC_CRC_TABLE_WORDS);
  for (hc_u32 e = 0; e < HC_CRC_TABLE_WORDS; ++e) table[e] = hc_crc32_table_entry(e);
  const auto data = bytes(70000, 9);
  for (const std::uint32_t piece : {1u, 7u, 4096u, 65536u, 100000u}) {
    for (const std::uint32_t skew : {0u, 2u, 5u}) {
      INFO("pieces of " << piece << ", skew " << skew);
      const std::uint32_t n = std::uint32_t(data.size());
      const std::uint32_t count = (n + skew + piece - 1) / piece;
      std::uint32_t whole = 0, covered = 0;
      for (std::uint32_t j = 0; j < count; ++j) {
        const std::uint64_t s = std::uint64_t(j) * piece, e = s + piece;
        const std::uint32_t a = std::uint32_t(std::min<std::uint64_t>(s > skew ? s - skew : 0, n));
        const std::uint32_t b = std::uint32_t(std::min<std::uint64_t>(e > skew ? e - skew : 0, n));
        const std::uint32_t c = hc_crc32_piece(data.data(), n, piece, skew, j, table.data());
        CHECK(c == ::crc32(0, data.data() + a, uInt(b - a)));
        whole = png::crc32_combine(whole, c, b - a);
        covered += b - a;
      }
      CHECK(covered == n);
      CHECK(whole == ::crc32(0, data.data(), uInt(n)));
    }
  }
  CHECK(png::crc32_combine_op(12345u, 678u, png::crc32_shift(4096)) ==
        png::crc32_combine(12345u, 678u, 4096));
  for (const std::uint64_t len : {1ull, 1024ull, 4096ull, 1000003ull})
    for (const std::uint32_t a : {0u, 1u, 0x80000000u, 0xDEADBEEFu})
      CHECK(png::Crc32Joiner::for_length(len).combine(a, 0x1234567u) ==
            png::crc32_combine(a, 0x1234567u, len));

  // The same file with the stream's CRCs given in pieces (as the device gives them) and without.
  png::Raster im;
  im.width = 900;
  im.height = 80;
  im.channels = 3;
  const auto px = bytes(im.row_bytes() * 80, 4);
  im.samples.assign(px.begin(), px.end());
  const auto plain = png::encode_compatible(im);
  const png::Info info = png::parse(plain.data(), plain.size());
  REQUIRE(info.idat.size() > 3);  // several 8 KiB chunks
  std::vector<std::uint8_t> z;
  for (const auto& [off, len] : info.idat)
    z.insert(z.end(), plain.begin() + std::ptrdiff_t(off),
             plain.begin() + std::ptrdiff_t(off + len));
  const std::uint32_t body = std::uint32_t(z.size() - 6), piece = 1024;
  std::vector<std::uint32_t> crc((body + 2 + piece - 1) / piece);
  for (std::uint32_t j = 0; j < crc.size(); ++j)
    crc[j] = hc_crc32_piece(z.data() + 2, body, piece, 2, j, table.data());
  png::PieceCrcs given{crc.data(), crc.size(), piece, 2};
  auto file_with = [&](const png::PieceCrcs* c) {
    return png::compatible_file(im,
                                {{z.data(), 2}, {z.data() + 2, body, c}, {z.data() + 2 + body, 4}});
  };
  CHECK(file_with(&given) == plain);
  CHECK(file_with(nullptr) == plain);
  // The pieces' CRCs are what the chunks' CRCs come from: a wrong one shows in its chunk.
  crc[12] ^= 1;
  const auto wrong = file_with(&given);
  CHECK(wrong != plain);
  CHECK(wrong.size() == plain.size());
  // (pieces cut at odd places, where no chunk cut falls on a piece boundary, are not used)
  png::PieceCrcs odd{crc.data(), crc.size(), 3000, 2};
  CHECK(file_with(&odd) == plain);
}

TEST_CASE("the Z_RLE deflate stream equals zlib's deflate() byte for byte") {
  struct Case {
    std::string what;
    std::vector<std::uint8_t> data;
  };
  std::vector<Case> cases = {
      {"empty", {}},
      {"one byte", {7}},
      {"four equal bytes", {9, 9, 9, 9}},
      {"random 70000 (stored blocks)", bytes(70000, 11)},
      {"runs 400000 (many blocks, window slides)", runs(400000, 12)},
      {"zeros 300000 (maximal matches)", std::vector<std::uint8_t>(300000, 0)},
      {"runs 20000", runs(20000, 13)},
  };
  // A random/runs mix: blocks that are stored, fixed and dynamic in turn.
  {
    auto mix = runs(60000, 14);
    const auto r = bytes(60000, 15);
    mix.insert(mix.end(), r.begin(), r.end());
    const auto tail = runs(90000, 16);
    mix.insert(mix.end(), tail.begin(), tail.end());
    cases.push_back({"mix", mix});
    // Larger ones, for the threaded path: noise (stored blocks, after the window has slid) in
    // runs, and a photo-like filtered image.
    auto big = runs(300000, 17);
    const auto noise = bytes(400000, 18);
    big.insert(big.end(), noise.begin(), noise.end());
    const auto more = runs(200000, 19);
    big.insert(big.end(), more.begin(), more.end());
    cases.push_back({"runs, noise, runs 900000", big});
    cases.push_back({"photo rows", png::filter_rows_libpng(photo(420, 300, 3, 8, 4))});
  }
  for (const auto& c : cases) {
    for (int wbits : {9, 12, 15}) {
      for (std::size_t piece : {std::size_t(0), std::size_t(1001), std::size_t(65536)}) {
        INFO(c.what << ", window bits " << wbits << ", pieces of " << piece);
        std::vector<std::size_t> pieces;
        if (piece == 0) {
          pieces.push_back(c.data.size());
        } else {
          for (std::size_t at = 0; at < c.data.size(); at += piece)
            pieces.push_back(std::min(piece, c.data.size() - at));
        }
        const auto ours = png::zlib_rle_compress(c.data.data(), c.data.size(), pieces, wbits);
        const auto ref = hetcodec::test::zlib_deflate(c.data, pieces, wbits, Z_RLE);
        CHECK(ours.size() == ref.size());
        CHECK(ours == ref);
        CHECK(hetcodec::test::zlib_inflate(ours) == c.data);
        // Spread over threads (inputs of 256 KiB or more): the same bytes.
        CHECK(png::zlib_rle_compress(c.data.data(), c.data.size(), pieces, wbits, 4) == ref);
      }
    }
  }
}

TEST_CASE("compatible-mode PNG files equal libpng's with Z_RLE") {
  struct Case {
    int w, h, channels, depth;
  };
  const Case cases[] = {{1, 1, 3, 8},     {1, 1, 1, 16},    {1, 37, 3, 8},    {53, 1, 4, 8},
                        {64, 64, 1, 8},   {61, 47, 2, 8},   {97, 61, 3, 8},   {83, 59, 4, 8},
                        {45, 33, 1, 16},  {39, 28, 2, 16},  {71, 44, 3, 16},  {33, 29, 4, 16},
                        {1, 20, 1, 16},   {30, 1, 1, 8},    {1, 9, 2, 8},     {17, 1, 4, 16},
                        {300, 200, 3, 8}, {640, 480, 3, 8}, {257, 190, 4, 16}};
  for (const auto& c : cases) {
    INFO(c.w << "x" << c.h << ", " << c.channels << " channels, " << c.depth << " bits");
    const png::Raster im = photo(c.w, c.h, c.channels, c.depth, unsigned(c.w * 31 + c.h));
    const auto ours = png::encode_compatible(im);
    const auto ref = hetcodec::test::libpng_encode(im, Z_RLE);
    CHECK(ours.size() == ref.size());
    CHECK(ours == ref);
    const png::Raster back = hetcodec::test::libpng_decode(ours);
    CHECK(back.samples == im.samples);
  }
  // Flat (long runs) and noise (incompressible: stored blocks).
  for (bool noise : {false, true}) {
    INFO((noise ? "noise" : "flat"));
    png::Raster im;
    im.width = 400;
    im.height = 300;
    im.channels = 3;
    im.samples = noise ? bytes(400 * 300 * 3, 21) : std::vector<std::uint8_t>(400 * 300 * 3, 200);
    CHECK(png::encode_compatible(im) == hetcodec::test::libpng_encode(im, Z_RLE));
  }
  // A real photograph: libjpeg-turbo's test image, decoded.
  {
    const std::string path = std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/testorig.jpg";
    std::ifstream f(path, std::ios::binary);
    REQUIRE(f.good());
    const std::vector<std::uint8_t> jpeg(std::istreambuf_iterator<char>(f), {});
    const auto rgb = hetcodec::test::libjpeg_decode_default(jpeg);
    png::Raster im;
    im.width = rgb.width;
    im.height = rgb.height;
    im.channels = 3;
    im.samples = rgb.samples;
    CHECK(png::encode_compatible(im) == hetcodec::test::libpng_encode(im, Z_RLE));
  }
}

TEST_CASE("the PNG encoder refuses what PNG cannot hold") {
  png::Raster im;
  im.width = 0;
  im.height = 1;
  CHECK_THROWS_AS(png::encode_compatible(im), Error);
  im = photo(4, 4, 3, 8, 1);
  im.bit_depth = 4;
  CHECK_THROWS_AS(png::encode_compatible(im), Error);
  im = photo(4, 4, 3, 8, 1);
  im.samples.pop_back();
  CHECK_THROWS_AS(png::encode_compatible(im), Error);
  im = photo(4, 4, 3, 8, 1);
  im.channels = 5;
  CHECK_THROWS_AS(png::encode_compatible(im), Error);
}

namespace {

// The zlib stream of a PNG file: its IDAT chunks' data joined.
std::vector<std::uint8_t> idat_stream(const std::vector<std::uint8_t>& f) {
  std::vector<std::uint8_t> z;
  for (std::size_t at = 8; at + 12 <= f.size();) {
    const std::size_t len = std::size_t(f[at]) << 24 | std::size_t(f[at + 1]) << 16 |
                            std::size_t(f[at + 2]) << 8 | f[at + 3];
    if (std::memcmp(&f[at + 4], "IDAT", 4) == 0)
      z.insert(z.end(), f.begin() + std::ptrdiff_t(at + 8),
               f.begin() + std::ptrdiff_t(at + 8 + len));
    at += 12 + len;
  }
  return z;
}

// Raw-inflates data[a, b) on its own; `final`: it holds the stream's last block.
std::vector<std::uint8_t> inflate_segment(const std::vector<std::uint8_t>& z, std::size_t a,
                                          std::size_t b, bool final) {
  z_stream s{};
  REQUIRE(inflateInit2(&s, -15) == Z_OK);
  std::vector<std::uint8_t> out(1 << 22);
  s.next_in = const_cast<Bytef*>(z.data() + a);
  s.avail_in = uInt(b - a);
  s.next_out = out.data();
  s.avail_out = uInt(out.size());
  const int ret = inflate(&s, Z_SYNC_FLUSH);
  CHECK(ret == (final ? Z_STREAM_END : Z_OK));
  CHECK(s.avail_in == 0);
  out.resize(out.size() - s.avail_out);
  inflateEnd(&s);
  return out;
}

}  // namespace

TEST_CASE("parallel-mode PNG files: valid for libpng, segments inflate on their own, size") {
  struct Case {
    int w, h, channels, depth, segments;
  };
  const Case cases[] = {{1, 1, 3, 8, 4},     {1, 9, 1, 16, 3},  {33, 20, 2, 8, 20},
                        {97, 61, 3, 8, 1},   {97, 61, 3, 8, 7}, {64, 40, 4, 16, 64},
                        {300, 200, 3, 8, 16}};
  for (const auto& c : cases) {
    INFO(c.w << "x" << c.h << ", " << c.channels << " channels, " << c.depth << " bits, "
             << c.segments << " segments");
    const png::Raster im = photo(c.w, c.h, c.channels, c.depth, unsigned(c.w + c.h));
    const auto filtered = png::filter_rows_libpng(im);
    const auto file = png::assemble_parallel(im, filtered, c.segments, 3);
    CHECK(png::assemble_parallel(im, filtered, c.segments, 1) == file);
    CHECK(hetcodec::test::libpng_decode(file).samples == im.samples);
    const png::RestartIndex index = png::read_restart_index(file);
    const std::size_t count = std::size_t(std::min(c.segments, c.h));
    REQUIRE(index.first_row.size() == count);
    const auto z = idat_stream(file);
    CHECK(hetcodec::test::zlib_inflate(z) == filtered);
    const std::size_t stride = im.row_bytes() + 1;
    for (std::size_t k = 0; k < count; ++k) {
      CHECK(index.first_row[k] == std::uint32_t(std::size_t(c.h) * k / count));
      const bool last = k + 1 == count;
      const std::size_t end = last ? z.size() - 4 : index.offset[k + 1];
      const auto rows = inflate_segment(z, index.offset[k], end, last);
      const std::size_t r1 = last ? std::size_t(c.h) : index.first_row[k + 1];
      CHECK(rows == std::vector<std::uint8_t>(
                        filtered.begin() + std::ptrdiff_t(index.first_row[k] * stride),
                        filtered.begin() + std::ptrdiff_t(r1 * stride)));
    }
  }
  // The size cost of the segments on a photo: within 3% of the compatible mode's.
  const png::Raster im = photo(640, 480, 3, 8, 77);
  const auto compatible = png::encode_compatible(im);
  const auto parallel = png::assemble_parallel(im, png::filter_rows_libpng(im), 16, 4);
  CHECK(double(parallel.size()) <= 1.03 * double(compatible.size()));
}

TEST_CASE("device deflate helpers: bit reversal, length codes, run symbols") {
  // (core/portable/png_deflate.h, here compiled for the host)
  for (hc_u32 len = 1; len <= 16; ++len)
    for (hc_u32 code = 0; code < (1u << len); code += (len > 12 ? 7 : 1)) {
      hc_u32 want = 0;
      for (hc_u32 i = 0; i < len; ++i) want |= ((code >> i) & 1u) << (len - 1 - i);
      REQUIRE(hc_dfl_reverse(code, len) == want);
    }
  // Every match length 3..258 has the RFC 1951 code whose base and extra bits cover it.
  for (hc_u32 l = 0; l < 256; ++l) {
    const hc_u32 c = hc_dfl_length_code(l);
    REQUIRE(c < 29);
    CHECK(l >= hc_dfl_length_base(c));
    CHECK(l - hc_dfl_length_base(c) < (1u << hc_dfl_length_extra(c)));
  }
  CHECK(hc_dfl_length_code(255) == 28);  // length 258
  CHECK(hc_dfl_length_code(254) == 27);  // length 257: 5 extra bits
  // A run of n equal bytes: a literal, then matches of 258, then a match of 3+ or 1-2 literals.
  CHECK(hc_dfl_run_symbols(1) == 1);
  CHECK(hc_dfl_run_symbols(3) == 3);
  CHECK(hc_dfl_run_symbols(4) == 2);
  CHECK(hc_dfl_run_symbols(259) == 2);
  CHECK(hc_dfl_run_symbols(260) == 3);
  CHECK(hc_dfl_run_symbols(262) == 3);  // 1 + 258 + match of 3
}

// ---- stored layouts (palette, gray below 8 bits, tRNS) and the small mode --------------------

namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE(f.good());
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// PngSuite's files that are valid PNG (its x*.png are broken on purpose), in name order.
std::vector<fs::path> suite_files() {
  std::vector<fs::path> out;
  for (const auto& e :
       fs::directory_iterator(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "pngsuite"))
    if (e.path().extension() == ".png" && e.path().filename().string()[0] != 'x')
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The bits past a packed row's last sample set to zero (libpng reads them as the file has them).
void clear_padding(png::Raster& r) {
  const std::size_t bits = std::size_t(r.width) * std::size_t(r.channels * r.bit_depth);
  if (bits % 8 == 0) return;
  const std::uint8_t keep = std::uint8_t(0xFF00u >> (bits % 8));
  for (int y = 0; y < r.height; ++y) r.samples[std::size_t(y) * r.row_bytes() + bits / 8] &= keep;
}

Image image_of(const png::Raster& r) {
  Image im;
  im.width = r.width;
  im.height = r.height;
  im.format = png_format(r.channels);
  im.bit_depth = r.bit_depth;
  im.pixels = r.samples;
  return im;
}

// Raw deflate of `data` by zlib at `level`, ending in a final block.
std::vector<std::uint8_t> raw_deflate(const std::vector<std::uint8_t>& data, int level) {
  z_stream s{};
  REQUIRE(deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::vector<std::uint8_t> out(deflateBound(&s, uLong(data.size())) + 16);
  s.next_in = const_cast<Bytef*>(data.data());
  s.avail_in = uInt(data.size());
  s.next_out = out.data();
  s.avail_out = uInt(out.size());
  REQUIRE(deflate(&s, Z_FINISH) == Z_STREAM_END);
  out.resize(out.size() - s.avail_out);
  deflateEnd(&s);
  return out;
}

}  // namespace

TEST_CASE("PngSuite layouts: libpng's indices and samples, and libpng's Z_RLE file") {
  int palette = 0, low_gray = 0;
  for (const fs::path& path : suite_files()) {
    INFO(path.filename().string());
    const auto bytes = read_file(path);
    const png::Info info = png::parse(bytes.data(), bytes.size());
    png::Raster stored = png::stored_layout(info);
    png::Raster oracle = hetcodec::test::libpng_decode(bytes);  // as stored, with PLTE and tRNS
    clear_padding(oracle);
    CHECK(stored.color_type() == oracle.color_type());
    CHECK(stored.bit_depth == oracle.bit_depth);
    CHECK(stored.plte == oracle.plte);
    CHECK(stored.trns == oracle.trns);
    std::vector<std::string> warnings;
    const png::Raster expanded = png::decode(bytes.data(), bytes.size(), {}, warnings);
    CHECK(png::expanded_format(stored) == png_format(expanded.channels));
    CHECK(png::expanded_depth(stored) == expanded.bit_depth);
    png::pack_expanded(image_of(expanded), stored);
    // The same palette indices and low-depth samples as libpng reads from the file.
    CHECK(stored.samples == oracle.samples);
    // Compatible: libpng's file for that layout with Z_RLE (filter None on palette and low-depth
    // rows, PLTE and tRNS).
    const auto file = png::encode_compatible(stored);
    CHECK(file == hetcodec::test::libpng_write_layout(stored, Z_RLE));
    // Parallel and small: libpng reads back the stored and the expanded samples.
    const auto filtered = png::filter_rows_libpng(stored, png::kParallelBandRows);
    std::vector<std::vector<std::uint8_t>> files = {png::assemble_parallel(stored, filtered, 3, 1)};
    if (png::small_deflate_available())
      files.push_back(png::assemble_small(stored, filtered, 3, 2));
    for (const auto& f : files) {
      const png::Raster back = hetcodec::test::libpng_decode(f);
      CHECK(back.samples == stored.samples);
      CHECK(back.plte == stored.plte);
      CHECK(back.trns == stored.trns);
      CHECK(hetcodec::test::libpng_decode_expanded(f).samples == expanded.samples);
    }
    palette += stored.indexed;
    low_gray += !stored.indexed && stored.bit_depth < 8;
  }
  CHECK(palette >= 40);  // (the suite was found, with its palette and low-depth files)
  CHECK(low_gray >= 10);
}

TEST_CASE("a layout refuses an image it cannot hold, naming the first pixel") {
  png::Raster layout;
  layout.indexed = true;
  layout.channels = 1;
  layout.bit_depth = 2;
  layout.plte = {0, 0, 0, 255, 0, 0, 0, 255, 0};
  layout.trns = {0};
  Image im;
  im.width = 3;
  im.height = 2;
  im.format = PixelFormat::RGBA;
  im.pixels = {0, 0,   0, 0,   255, 0, 0, 255, 0, 255, 0, 255,
               0, 255, 0, 255, 0,   0, 0, 255, 0, 0,   0, 0};  // (0, 0, 0) opaque: not an entry
  png::Raster out = layout;
  const auto message = [&](png::Raster r, const Image& i) -> std::string {
    try {
      png::pack_expanded(i, r);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidArgument);
      return e.what();
    }
    return "accepted";
  };
  CHECK(message(layout, im).find("pixel (1, 1): RGBA 0 0 0 255 is not in the palette") !=
        std::string::npos);
  im.pixels[19] = 0;
  png::pack_expanded(im, out);  // now every pixel is an entry: 2 bits each, packed
  CHECK(out.samples == std::vector<std::uint8_t>{0x18, 0x80});
  // Gray of 4 bits: levels of 17; a tRNS key's alpha.
  png::Raster gray;
  gray.channels = 1;
  gray.bit_depth = 4;
  Image g;
  g.width = 2;
  g.height = 1;
  g.format = PixelFormat::Gray;
  g.pixels = {34, 35};
  CHECK(message(gray, g).find("pixel (1, 0): gray 35") != std::string::npos);
  gray.trns = {0, 2};
  g.format = PixelFormat::GrayAlpha;
  g.pixels = {34, 255, 51, 255};
  CHECK(message(gray, g).find("pixel (0, 0): alpha 255 where the tRNS key gives 0") !=
        std::string::npos);
  // RGB 16 with a key.
  png::Raster rgb;
  rgb.channels = 3;
  rgb.bit_depth = 16;
  rgb.trns = {0, 1, 0, 2, 0, 3};
  Image c;
  c.width = 1;
  c.height = 1;
  c.format = PixelFormat::RGBA;
  c.bit_depth = 16;
  c.pixels = {0, 1, 0, 2, 0, 3, 0, 0};
  png::Raster rgb_out = rgb;
  png::pack_expanded(c, rgb_out);
  CHECK(rgb_out.samples == std::vector<std::uint8_t>{0, 1, 0, 2, 0, 3});
  c.pixels[7] = 1;
  CHECK(message(rgb, c).find("alpha 1 where the tRNS key gives 0") != std::string::npos);
  // An image of another format than the layout decodes to.
  c.format = PixelFormat::RGB;
  c.pixels.resize(6);
  CHECK(message(rgb, c).find("which holds rgba of 16 bits") != std::string::npos);
  // Layouts PNG does not allow.
  png::Raster bad = layout;
  bad.bit_depth = 16;
  CHECK(message(bad, im).find("does not define") != std::string::npos);
  bad = layout;
  bad.plte.resize(15);  // 5 entries for 2 bits
  CHECK(message(bad, im).find("a PLTE of 15 bytes") != std::string::npos);
  bad = layout;
  bad.trns = {1, 2, 3, 4};
  CHECK(message(bad, im).find("a tRNS of 4 alphas for 3 palette entries") != std::string::npos);
  bad = gray;
  bad.trns = {0, 16};
  CHECK(message(bad, g).find("a tRNS key sample of 16 (at most 15)") != std::string::npos);
  bad = rgb;
  bad.channels = 2;
  CHECK(message(bad, c).find("a tRNS of 6 bytes") != std::string::npos);
}

TEST_CASE("a final deflate block unfinished: BFINAL cleared, an empty stored block appended") {
  // Every bit position the last code can end on (and stored blocks, level 0): the segment then
  // inflates with a sync flush at its end, and a stream that follows it inflates on.
  std::set<std::size_t> grew;  // 4 bytes (the header bits fit the padding) or 5
  const auto noise = bytes(3000, 5);
  for (int level : {0, 1, 6, 9}) {
    for (std::size_t n = 1; n < 60; ++n) {
      INFO("level " << level << ", " << n << " bytes");
      // Runs (coded blocks), or noise (stored ones) at level 0.
      std::vector<std::uint8_t> a = runs(n * 37 % 3000 + 1, unsigned(n));
      if (level == 0) a.assign(noise.begin(), noise.begin() + std::ptrdiff_t(n * 37 % 3000 + 1));
      std::vector<std::uint8_t> seg = raw_deflate(a, level);
      const std::vector<std::uint8_t> original = seg;
      REQUIRE(png::unfinish_segment(seg, a.size()));
      grew.insert(seg.size() - original.size());
      CHECK(std::vector<std::uint8_t>(seg.end() - 4, seg.end()) ==
            std::vector<std::uint8_t>{0, 0, 0xFF, 0xFF});
      // zlib sees no final block in it, and its data.
      CHECK(inflate_segment(seg, 0, seg.size(), false) == a);
      const std::vector<std::uint8_t> b = runs(500, unsigned(n));
      std::vector<std::uint8_t> joined = seg;
      const auto tail = raw_deflate(b, 6);
      joined.insert(joined.end(), tail.begin(), tail.end());
      std::vector<std::uint8_t> ab = a;
      ab.insert(ab.end(), b.begin(), b.end());
      CHECK(inflate_segment(joined, 0, joined.size(), true) == ab);
      // Data that does not inflate to the size given, or with bytes past its end, is refused.
      std::vector<std::uint8_t> same = original;
      CHECK_FALSE(png::unfinish_segment(same, a.size() + 1));
      same.push_back(0);
      CHECK_FALSE(png::unfinish_segment(same, a.size()));
      CHECK(std::vector<std::uint8_t>(same.begin(), same.end() - 1) == original);
    }
  }
  CHECK(grew == std::set<std::size_t>{4, 5});
}

TEST_CASE("small mode: libdeflate segments joined into one zlib stream, each inflating alone") {
  if (!png::small_deflate_available()) {
    CHECK_THROWS_AS(png::small_segments(nullptr, 0, {0}, 1), Error);
    MESSAGE("built without libdeflate: the small mode is unsupported (checked)");
    return;
  }
  const png::Raster im = photo(300, 200, 3, 8, 41);
  const auto filtered = png::filter_rows_libpng(im, png::kParallelBandRows);
  const std::size_t stride = im.row_bytes() + 1;
  for (int segments : {1, 2, 7, 200}) {
    INFO(segments << " segments");
    const auto file = png::assemble_small(im, filtered, segments, 3);
    CHECK(png::assemble_small(im, filtered, segments, 1) == file);
    CHECK(hetcodec::test::libpng_decode(file).samples == im.samples);
    const auto z = idat_stream(file);
    CHECK(hetcodec::test::zlib_inflate(z) == filtered);
    const png::RestartIndex index = png::read_restart_index(file);
    REQUIRE(index.first_row.size() == std::size_t(segments));
    for (std::size_t k = 0; k < index.first_row.size(); ++k) {
      const bool last = k + 1 == index.first_row.size();
      const std::size_t end = last ? z.size() - 4 : index.offset[k + 1];
      const std::size_t r1 = last ? std::size_t(im.height) : index.first_row[k + 1];
      CHECK(
          inflate_segment(z, index.offset[k], end, last) ==
          std::vector<std::uint8_t>(filtered.begin() + std::ptrdiff_t(index.first_row[k] * stride),
                                    filtered.begin() + std::ptrdiff_t(r1 * stride)));
    }
    // hetcodec's reader inflates the segments on their own (with the index) to the same rows.
    const png::Info info = png::parse(file.data(), file.size());
    std::vector<std::uint8_t> rows(png::inflated_bytes(info));
    std::vector<std::string> warnings;
    bool used_index = false;
    png::inflate_image(file.data(), info, rows.data(), warnings, 4, &used_index);
    if (segments > 1) CHECK(used_index);
    CHECK(warnings.empty());
    CHECK(rows == filtered);
  }
  // Smaller than the parallel mode's Z_RLE stream and than libpng's default on a photo.
  const png::Raster big = photo(640, 480, 3, 8, 77);
  const auto rows = png::filter_rows_libpng(big, png::kParallelBandRows);
  const auto small = png::assemble_small(big, rows, 16, 4);
  CHECK(small.size() < png::assemble_parallel(big, rows, 16, 4).size());
  CHECK(small.size() < hetcodec::test::libpng_encode(big, -1).size());
}
