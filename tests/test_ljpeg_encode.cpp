// The lossless JPEG encoder of `hetcodec bench ljpeg` (tools/ljpeg_encode.h): its files decode
// with the project's decoder on the CPU reference (whose samples equal libjpeg-turbo 3's,
// tests/test_ljpeg.cpp) to the source samples, for every predictor, precisions 2/8/12/16, 1 to 4
// components, restart intervals and odd sizes; and its optimal tables keep to 16-bit codes
// where the image's statistics would give longer ones.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hetcodec/jpeg.h"
#include "tools/ljpeg_encode.h"

using namespace hetcodec;
using hetcodec::tools::ljpeg_encode;
using hetcodec::tools::LjpegEncodeOptions;

namespace {

// Smooth ramps with noise, some full-range jumps, and the extremes, all below 2^precision.
std::vector<std::uint16_t> test_samples(int w, int h, int comps, int precision, unsigned seed) {
  std::mt19937 rng(seed);
  const unsigned max = (1u << precision) - 1u;
  std::vector<std::uint16_t> s(std::size_t(w) * std::size_t(h) * std::size_t(comps));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < comps; ++c) {
        unsigned v = (unsigned(x * 7 + y * 3 + c * 11) * (max / 64 + 1) + rng() % 5) & max;
        if (rng() % 17 == 0) v = rng() & max;
        if ((x + y + c) % 29 == 0) v = (x & 1) ? max : 0;
        s[(std::size_t(y) * std::size_t(w) + std::size_t(x)) * std::size_t(comps) +
          std::size_t(c)] = std::uint16_t(v);
      }
  return s;
}

// The decoder's samples (8-bit, or 16-bit big-endian above 8 bits of precision) as uint16.
std::vector<std::uint16_t> decoded_samples(const Image& img) {
  std::vector<std::uint16_t> out;
  if (img.bit_depth == 8) {
    out.assign(img.pixels.begin(), img.pixels.end());
  } else {
    for (std::size_t i = 0; i + 1 < img.pixels.size(); i += 2)
      out.push_back(std::uint16_t(img.pixels[i] << 8 | img.pixels[i + 1]));
  }
  return out;
}

void round_trip(JpegDecoder& decoder, int w, int h, int comps, const LjpegEncodeOptions& o,
                const std::vector<std::uint16_t>& s) {
  CAPTURE(w);
  CAPTURE(h);
  CAPTURE(comps);
  CAPTURE(o.predictor);
  CAPTURE(o.precision);
  CAPTURE(o.restart_rows);
  CAPTURE(o.optimal_tables);
  const std::vector<std::uint8_t> file = ljpeg_encode(s.data(), w, h, comps, o);
  LosslessReport report;
  const Image img = decoder.decode_lossless(file.data(), file.size(), nullptr, &report);
  CHECK(img.warnings.empty());
  CHECK(img.width == w);
  CHECK(img.height == h);
  CHECK(report.predictor == o.predictor);
  CHECK(report.precision == o.precision);
  CHECK(report.restart_interval == o.restart_rows * w);
  CHECK(decoded_samples(img) == s);
}

}  // namespace

TEST_CASE("ljpeg encoder: every predictor, precision and restart decodes to the source") {
  JpegDecoder decoder("cpu");
  unsigned seed = 1;
  for (const int comps : {1, 3})
    for (const int precision : {2, 8, 12, 16})
      for (int predictor = 1; predictor <= 7; ++predictor)
        for (const int restart : {0, 1, 3}) {
          const int w = 37, h = 23;
          LjpegEncodeOptions o;
          o.predictor = predictor;
          o.precision = precision;
          o.restart_rows = restart;
          round_trip(decoder, w, h, comps, o, test_samples(w, h, comps, precision, seed++));
        }
}

TEST_CASE("ljpeg encoder: odd sizes, 2 and 4 components, the fixed table") {
  JpegDecoder decoder("cpu");
  unsigned seed = 100;
  const std::pair<int, int> sizes[] = {{1, 1}, {1, 9}, {13, 1}, {2, 2}, {65, 3}, {3, 65}};
  for (const auto& [w, h] : sizes)
    for (const int comps : {1, 2, 3, 4})
      for (const bool optimal : {true, false}) {
        LjpegEncodeOptions o;
        o.predictor = 1 + int(seed % 7);
        o.precision = comps == 2 ? 16 : 8 + int(seed % 3) * 2;
        o.restart_rows = int(seed % 2) * 2;
        o.optimal_tables = optimal;
        round_trip(decoder, w, h, comps, o, test_samples(w, h, comps, o.precision, seed++));
      }
}

TEST_CASE("ljpeg encoder: category 16 and codes limited to 16 bits (T.81 K.2)") {
  // One 16-bit row whose differences (predictor 1) fall in category k about 1.8^k times: an
  // unlimited Huffman code for these counts would be 17 bits long.
  std::vector<int> cats;
  double count = 1;
  for (int k = 0; k <= 16; ++k, count *= 1.8)
    for (long n = 0; n < std::lround(count); ++n) cats.push_back(k);
  std::shuffle(cats.begin(), cats.end(), std::mt19937(7));
  std::vector<std::uint16_t> s;
  unsigned v = 1u << 15;  // the prediction of the first sample
  for (const int k : cats) {
    v = (v + (k == 0 ? 0u : 1u << (k - 1))) & 0xFFFFu;
    s.push_back(std::uint16_t(v));
  }
  const int w = int(s.size());
  LjpegEncodeOptions o;
  o.precision = 16;
  const std::vector<std::uint8_t> file = ljpeg_encode(s.data(), w, 1, 1, o);
  // The one DHT segment: BITS counts 17 codes of 16 bits at most.
  std::size_t dht = 0;
  while (dht + 1 < file.size() && !(file[dht] == 0xFF && file[dht + 1] == 0xC4)) ++dht;
  REQUIRE(dht + 21 < file.size());
  int codes = 0;
  for (int i = 0; i < 16; ++i) codes += file[dht + 5 + std::size_t(i)];
  CHECK(codes == 17);
  CHECK(file[dht + 5 + 15] > 0);  // the limit was needed: some codes are 16 bits long
  JpegDecoder decoder("cpu");
  const Image img = decoder.decode_lossless(file.data(), file.size());
  CHECK(decoded_samples(img) == s);
}

TEST_CASE("ljpeg encoder: parameters it cannot write are refused") {
  const std::vector<std::uint16_t> s(64, 300);
  LjpegEncodeOptions o;
  CHECK_THROWS_AS(ljpeg_encode(s.data(), 8, 8, 1, o), Error);  // 300 needs 9 bits
  o.precision = 9;
  CHECK_NOTHROW(ljpeg_encode(s.data(), 8, 8, 1, o));
  o.predictor = 8;
  CHECK_THROWS_AS(ljpeg_encode(s.data(), 8, 8, 1, o), Error);
  o.predictor = 1;
  o.restart_rows = 9000;  // 72000 MCUs per interval
  CHECK_THROWS_AS(ljpeg_encode(s.data(), 8, 8, 1, o), Error);
}
