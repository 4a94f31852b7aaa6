// Bad input never crashes, hangs or reads out of bounds (DESIGN.md §5): truncations, bit flips,
// garbled segment lengths, broken Huffman tables, absurd sizes, empty and random files, of 8-
// and 12-bit files. Each
// either decodes (an image of the declared size, with warnings when the data was damaged) or
// throws hetcodec::Error with a code, and InvalidData errors name a byte offset. CTest runs this
// suite in a build instrumented with AddressSanitizer and UBSan (test `jpeg-robust-asan`), and
// in the normal build.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <string>

#include "hetcodec/jpeg.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"
#include "tests/support/token_streams.h"

using namespace hetcodec;

namespace {

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "cannot read " << path);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

struct Outcome {
  int decoded = 0, warned = 0, errors = 0;
};

// The CPU stage's split decoding (a scan without restart markers cut into pieces decoded at
// once) either declines a damaged file or gives the same tokens as sequential decoding.
void check_split(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint8_t> sequential;
  try {
    sequential = hetcodec::test::stream_with_tasks(bytes, 1);
  } catch (const Error&) {
    return;  // not decodable at all
  }
  for (int pieces : {2, 5}) {
    bool split = false;
    CHECK(hetcodec::test::stream_split(bytes, pieces, 1, split) == sequential);
  }
}

// One damaged input through the whole CPU pipeline.
void try_decode(JpegDecoder& decoder, const std::vector<std::uint8_t>& bytes, Outcome& o,
                const std::string& what) {
  INFO(what);
  check_split(bytes);
  try {
    const Image img = decoder.decode(bytes.data(), bytes.size());
    REQUIRE(img.width > 0);
    REQUIRE(img.height > 0);
    REQUIRE(img.pixels.size() == img.row_bytes() * std::size_t(img.height));
    ++o.decoded;
    if (!img.warnings.empty()) ++o.warned;
  } catch (const Error& e) {
    ++o.errors;
    const std::string msg = e.what();
    CHECK(!msg.empty());
    if (e.code() == ErrorCode::InvalidData)
      CHECK_MESSAGE(msg.find("byte ") != std::string::npos, msg);
    CHECK((e.code() == ErrorCode::InvalidData || e.code() == ErrorCode::Unsupported ||
           e.code() == ErrorCode::LimitExceeded));
  }
}

std::vector<std::vector<std::uint8_t>> seeds() {
  std::vector<std::vector<std::uint8_t>> out;
  const auto rgb = hetcodec::test::synthetic_rgb(53, 37, 7);
  hetcodec::test::EncodeParams p;
  p.h[0] = 2;
  p.v[0] = 2;
  p.restart_blocks = 2;
  out.push_back(hetcodec::test::libjpeg_encode_ex(rgb, p));
  p = {};
  p.optimize = true;
  p.quality = 95;
  out.push_back(hetcodec::test::libjpeg_encode_ex(rgb, p));
  out.push_back(read_file(std::string(HETCODEC_TEST_SOURCE_DIR) +
                          "/data/jpeg/ffmpeg-yuvj422p-64x40-q8-default.jpg"));
  // 12-bit: sequential with restart markers, progressive, arithmetic-coded.
  for (const char* name : {"rgb420-restart.jpg", "rgb420-prog.jpg", "rgb422-arith.jpg"})
    out.push_back(read_file(std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/twelve/" + name));
  return out;
}

}  // namespace

TEST_CASE("truncated, bit-flipped and garbled jpeg files fail cleanly or decode with warnings") {
  JpegDecoder decoder("cpu");
  Outcome o;
  unsigned seed = 1;
  for (const auto& file : seeds()) {
    for (std::size_t n = 0; n < file.size(); n += 1 + n / 16)
      try_decode(decoder, std::vector<std::uint8_t>(file.begin(), file.begin() + std::ptrdiff_t(n)),
                 o, "truncated to " + std::to_string(n));
    for (int i = 0; i < 300; ++i) {
      auto bad = file;
      const auto r = hetcodec::test::random_bytes(3, seed++);
      const std::size_t at = (std::size_t(r[0]) << 8 | r[1]) % bad.size();
      bad[at] ^= std::uint8_t(1u << (r[2] % 8));
      try_decode(decoder, bad, o, "bit flip at " + std::to_string(at));
    }
    // Every segment length set to 0, 1, 2, one less, one more and 0xFFFF.
    for (std::size_t i = 2; i + 3 < file.size(); ++i) {
      if (file[i] != 0xFF || file[i + 1] < 0xC0 || file[i + 1] == 0xFF || file[i + 1] == 0xD8 ||
          (file[i + 1] >= 0xD0 && file[i + 1] <= 0xD9))
        continue;
      const int len = file[i + 2] << 8 | file[i + 3];
      for (int garbled : {0, 1, 2, len - 1, len + 1, 0xFFFF}) {
        auto bad = file;
        bad[i + 2] = std::uint8_t(garbled >> 8 & 0xFF);
        bad[i + 3] = std::uint8_t(garbled & 0xFF);
        try_decode(decoder, bad, o,
                   "segment at " + std::to_string(i) + " length " + std::to_string(garbled));
      }
      if (file[i + 1] == 0xDA) break;
    }
    // Huffman tables: code counts that overflow the code space, and all-zero counts.
    for (std::size_t i = 2; i + 20 < file.size(); ++i) {
      if (file[i] != 0xFF || file[i + 1] != 0xC4) continue;
      auto bad = file;
      bad[i + 5 + 1] = 0xFF;  // 255 codes of length 2
      try_decode(decoder, bad, o, "DHT overfull at " + std::to_string(i));
      bad = file;
      for (int l = 0; l < 16; ++l) bad[i + 5 + std::size_t(l)] = 0;
      try_decode(decoder, bad, o, "DHT empty at " + std::to_string(i));
    }
  }
  // Absurd sizes: a 65535 x 65535 frame is over the default pixel limit; zero height is invalid.
  auto file = seeds()[0];
  for (std::size_t i = 2; i + 8 < file.size(); ++i) {
    if (file[i] == 0xFF && file[i + 1] == 0xC0) {
      auto big = file;
      big[i + 5] = big[i + 6] = big[i + 7] = big[i + 8] = 0xFF;
      try {
        decoder.decode(big);
        FAIL("a 65535 x 65535 frame decoded under the default limit");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::LimitExceeded);
      }
      JpegDecodeOptions tiny;
      tiny.max_pixels = 100;
      JpegDecoder limited("cpu", tiny);
      CHECK_THROWS_AS(limited.decode(file), Error);
      auto zero = file;
      zero[i + 5] = zero[i + 6] = 0;
      try_decode(decoder, zero, o, "zero height");
      break;
    }
  }
  for (std::size_t n : {0, 1, 2, 3, 100, 5000}) {
    auto junk = hetcodec::test::random_bytes(n, unsigned(n) + 9);
    try_decode(decoder, std::vector<std::uint8_t>(junk.begin(), junk.end()), o,
               "random " + std::to_string(n));
    if (n >= 2) {
      junk[0] = 0xFF;
      junk[1] = 0xD8;
      try_decode(decoder, std::vector<std::uint8_t>(junk.begin(), junk.end()), o,
                 "SOI + random " + std::to_string(n));
    }
  }
  MESSAGE("decoded " << o.decoded << " (" << o.warned << " with warnings), refused " << o.errors);
  CHECK(o.decoded > 0);
  CHECK(o.warned > 0);
  CHECK(o.errors > 0);
}
