// The inflate of an unindexed zlib stream in pieces (core/png/split_inflate.h): block starts
// found exactly where zlib put them, pieces that give zlib's output, and damaged, truncated or
// unsplittable streams refused so that the caller inflates them whole.
#include <doctest/doctest.h>
#include <zlib.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/png/reader.h"
#include "core/png/split_inflate.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

namespace {

// Image-like bytes: a gradient with noise and rows that repeat their neighbours in places, so
// that zlib makes dynamic blocks with copies reaching far back.
std::vector<std::uint8_t> image_like(std::size_t width, std::size_t height, unsigned seed) {
  const std::size_t row = width * 3;
  const auto noise = test::random_bytes(row * height, seed);
  std::vector<std::uint8_t> v(row * height);
  for (std::size_t y = 0; y < height; ++y)
    for (std::size_t i = 0; i < row; ++i)
      v[y * row + i] = y % 7 == 3 && y > 0
                           ? v[(y - 1) * row + i]
                           : std::uint8_t(i / 5 + y * 2 + (noise[y * row + i] & 15));
  return v;
}

// The bit position (in the raw deflate data after the 2-byte zlib header) of every block start
// but the first, found by zlib's inflate stopping at each block's end (Z_BLOCK); `dynamic` says
// which of them are dynamic-Huffman, non-final blocks.
std::vector<std::uint64_t> block_starts(const std::vector<std::uint8_t>& zlib_stream,
                                        std::vector<bool>& dynamic) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) throw std::runtime_error("inflateInit2");
  std::vector<std::uint8_t> sink(1 << 20);
  z.next_in = const_cast<Bytef*>(zlib_stream.data() + 2);
  z.avail_in = uInt(zlib_stream.size() - 6);
  std::vector<std::uint64_t> starts;
  for (;;) {
    z.next_out = sink.data();
    z.avail_out = uInt(sink.size());
    const int rc = inflate(&z, Z_BLOCK);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK) throw std::runtime_error("inflate");
    if ((z.data_type & 128) && !(z.data_type & 64)) {  // at a block's end, not the last one's
      const std::uint64_t at = std::uint64_t(z.total_in) * 8 - std::uint64_t(z.data_type & 7);
      const std::uint8_t* d = zlib_stream.data() + 2;
      const std::size_t n = zlib_stream.size() - 6, i = std::size_t(at / 8);
      const unsigned two = d[i] | (i + 1 < n ? unsigned(d[i + 1]) << 8 : 0u);
      const unsigned head = (two >> (at % 8)) & 7;  // BFINAL, BTYPE
      starts.push_back(at);
      dynamic.push_back(head == 4);
    }
  }
  inflateEnd(&z);
  return starts;
}

std::vector<std::uint8_t> zlib_compress(const std::vector<std::uint8_t>& data, int level) {
  uLongf n = compressBound(uLong(data.size()));
  std::vector<std::uint8_t> out(n);
  if (compress2(out.data(), &n, data.data(), uLong(data.size()), level) != Z_OK)
    throw std::runtime_error("compress2");
  out.resize(n);
  return out;
}

}  // namespace

TEST_CASE("png split inflate: block starts are found exactly where zlib put them") {
  const auto data = image_like(600, 400, 3);
  const auto stream = zlib_compress(data, 6);
  const std::uint8_t* raw = stream.data() + 2;
  const std::size_t n = stream.size() - 6;
  std::vector<bool> dynamic;
  const auto starts = block_starts(stream, dynamic);
  REQUIRE(starts.size() > 10);
  int checked = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    if (!dynamic[i]) continue;
    const std::uint64_t s = starts[i], before = i ? starts[i - 1] + 1 : 1;
    CAPTURE(s);
    // From anywhere inside the block before, the first find is this block's start: nothing in
    // compressed data passes for a header.
    CHECK(png::find_dynamic_block(raw, n, before, s + 1) == std::int64_t(s));
    CHECK(png::find_dynamic_block(raw, n, s, s + 1) == std::int64_t(s));
    ++checked;
  }
  CHECK(checked > 10);
  // The end of the data and empty ranges find nothing, without reading past the end.
  CHECK(png::find_dynamic_block(raw, n, n * 8 - 3, n * 8 + 100) == -1);
  CHECK(png::find_dynamic_block(raw, n, 100, 100) == -1);
}

TEST_CASE("png split inflate: pieces give zlib's output on every thread count") {
  const auto data = image_like(700, 500, 11);
  const auto stream = zlib_compress(data, 6);
  REQUIRE(stream.size() > 4 * (64u << 10));
  CHECK(png::split_parts(stream.size(), 2) == 1);  // 2 threads gain nothing
  CHECK(png::split_parts(stream.size(), 3) == 2);
  for (int threads : {3, 4, 7, 16}) {
    CAPTURE(threads);
    std::vector<std::uint8_t> out(data.size(), 0xEE);
    const int pieces =
        png::split_inflate(stream.data(), stream.size(), out.data(), out.size(), threads);
    CHECK(pieces == png::split_parts(stream.size(), threads));
    CHECK(out == data);
  }
  // On a pool of threads given by the caller, twice (its scratch is kept between calls).
  int calls = 0;
  png::ParallelRun run = [&](int n, const std::function<void(int)>& fn) {
    ++calls;
    std::vector<std::thread> t;
    for (int i = 1; i < n; ++i) t.emplace_back(fn, i);
    fn(0);
    for (auto& th : t) th.join();
  };
  for (int rep = 0; rep < 2; ++rep) {
    std::vector<std::uint8_t> out(data.size());
    CHECK(png::split_inflate(stream.data(), stream.size(), out.data(), out.size(), 8, run) > 1);
    CHECK(out == data);
  }
  CHECK(calls >= 2);
}

TEST_CASE("png split inflate: damaged, truncated and unsplittable streams are refused") {
  const auto data = image_like(700, 500, 12);
  const auto stream = zlib_compress(data, 6);
  std::vector<std::uint8_t> out(data.size());
  // A flipped bit in a later piece: its output or the Adler-32 no longer holds.
  for (std::size_t at : {stream.size() / 2 + 100, stream.size() - 2000, stream.size() - 2}) {
    CAPTURE(at);
    auto bad = stream;
    bad[at] ^= 0x10;
    CHECK(png::split_inflate(bad.data(), bad.size(), out.data(), out.size(), 8) == 0);
  }
  // The wrong size of output, either way.
  std::vector<std::uint8_t> more(data.size() + 1);
  CHECK(png::split_inflate(stream.data(), stream.size(), more.data(), more.size(), 8) == 0);
  CHECK(png::split_inflate(stream.data(), stream.size(), out.data(), out.size() - 1, 8) == 0);
  // Cut short (the last four bytes still where an Adler-32 would be).
  std::vector<std::uint8_t> cut(stream.begin(),
                                stream.begin() + std::ptrdiff_t(stream.size() * 3 / 4));
  CHECK(png::split_inflate(cut.data(), cut.size(), out.data(), out.size(), 8) == 0);
  // Not a zlib header; a preset dictionary.
  auto hdr = stream;
  hdr[0] = 0x79;
  CHECK(png::split_inflate(hdr.data(), hdr.size(), out.data(), out.size(), 8) == 0);
  // Stored blocks only: whatever looks like a header in the raw bytes must not pass.
  const auto stored = zlib_compress(data, 0);
  std::vector<std::uint8_t> s(data.size());
  const int pieces = png::split_inflate(stored.data(), stored.size(), s.data(), s.size(), 8);
  if (pieces) CHECK(s == data);
  // Too short to split.
  const std::vector<std::uint8_t> small(data.begin(), data.begin() + 100000);
  const auto z = zlib_compress(small, 6);
  std::vector<std::uint8_t> o(small.size());
  CHECK(png::split_inflate(z.data(), z.size(), o.data(), o.size(), 16) == 0);
}

TEST_CASE("png decode: a file without an index inflates in pieces, equal to the whole inflate") {
  png::Raster im;
  im.width = 640;
  im.height = 480;
  im.channels = 3;
  im.samples = image_like(640, 480, 21);
  const auto file = test::libpng_encode(im, -1);  // libpng's defaults: several IDAT chunks
  const png::Info info = png::parse(file.data(), file.size());
  REQUIRE(info.idat.size() > 1);
  std::vector<std::uint8_t> a(png::inflated_bytes(info)), b(a.size());
  std::vector<std::string> w;
  bool used = true;
  int pieces = -1;
  png::inflate_image(file.data(), info, a.data(), w, 8, &used, {}, &pieces);
  CHECK(!used);
  CHECK(pieces == png::split_parts(info.idat_bytes, 8));
  CHECK(pieces > 1);
  png::inflate_image(file.data(), info, b.data(), w, 1, &used, {}, &pieces);
  CHECK(pieces == 0);
  CHECK(a == b);
  CHECK(w.empty());
  CHECK(test::libpng_decode(file).samples == png::decode(file.data(), file.size(), {}, w).samples);

  // A damaged stream fails the same way whether or not pieces were tried.
  auto bad = file;
  bad[info.idat[info.idat.size() / 2].first + 50] ^= 0x40;
  const png::Info bi = png::parse(bad.data(), bad.size(), [] {
    png::DecodeLimits l;
    l.ignore_crc = true;
    return l;
  }());
  // (the same error, or the same output and warnings).
  auto outcome = [&](int threads) {
    std::vector<std::uint8_t> o(a.size());
    std::vector<std::string> warn;
    std::string error;
    try {
      png::inflate_image(bad.data(), bi, o.data(), warn, threads);
    } catch (const std::exception& e) {
      error = e.what();
      o.clear();
    }
    return std::make_tuple(error, warn, o);
  };
  const auto one = outcome(1);
  CHECK(!(std::get<0>(one).empty() && std::get<1>(one).empty()));  // it is noticed
  CHECK(outcome(8) == one);
}
