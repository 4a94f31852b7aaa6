// The PNG encoder's CPU reference in compatible mode: checksums against zlib's, the Z_RLE
// deflate stream against zlib's deflate() byte for byte, and whole files against libpng's with
// png_set_compression_strategy(Z_RLE), for every colour type the mode takes, 8 and 16 bits,
// 1x1 to images spanning many deflate blocks and window slides, flat and incompressible data,
// and a real photograph.
#include <doctest/doctest.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "core/error.h"
#include "core/png/checksum.h"
#include "core/png/reader.h"
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
