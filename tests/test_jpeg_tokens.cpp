// The CPU stage: the token stream the Huffman decoder writes, expanded, equals the quantised
// coefficients libjpeg's jpeg_read_coefficients() gives, block for block; the stream's format
// checks hold (docs/token-stream.md); restart-parallel decoding, and a scan without restarts
// split into speculatively decoded pieces, give the same bytes.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/jpeg/entropy.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "core/jpeg/token_stream.h"
#include "hetcodec/jpeg.h"
#include "host/src/jpeg_info.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/token_streams.h"

using namespace hetcodec;
using hetcodec::test::EncodeParams;

using hetcodec::test::stream_grouped;
using hetcodec::test::stream_with_tasks;

TEST_CASE("token stream expands to libjpeg's quantised coefficients") {
  const auto photo = hetcodec::test::synthetic_rgb(77, 45, 11);
  const int factors[][2] = {{1, 1}, {2, 1}, {2, 2}, {1, 2}, {4, 1}};
  for (const auto& f : factors) {
    for (int restart : {0, 3}) {
      EncodeParams p;
      p.h[0] = f[0];
      p.v[0] = f[1];
      p.quality = 85;
      p.restart_blocks = restart;
      const auto file = hetcodec::test::libjpeg_encode_ex(photo, p);
      INFO("sampling " << f[0] << "x" << f[1] << " restart " << restart);
      const auto stream = jpeg_token_stream(file.data(), file.size());
      const auto info = jpeg::inspect_token_stream(stream.data(), stream.size());
      const auto dense = jpeg::expand_token_stream(stream.data(), stream.size());
      const auto ref = hetcodec::test::libjpeg_coefficients(file);
      const jpeg::Header h = jpeg::parse(file.data(), file.size());
      const jpeg::Layout l = jpeg::make_layout(h);
      REQUIRE(info.components == 3);
      std::size_t base = 0;
      for (int c = 0; c < 3; ++c) {
        const auto& cl = l.components[std::size_t(c)];
        CHECK(info.blocks[std::size_t(c)] == cl.blocks);
        CHECK(info.blocks_per_row[std::size_t(c)] == std::uint32_t(cl.grid_w));
        const int w = ref.width_in_blocks[std::size_t(c)],
                  ht = ref.height_in_blocks[std::size_t(c)];
        REQUIRE(w <= cl.grid_w);
        REQUIRE(ht <= cl.grid_h);
        int mismatches = 0;
        for (int by = 0; by < ht; ++by)
          for (int bx = 0; bx < w; ++bx)
            for (int k = 0; k < 64; ++k)
              mismatches +=
                  dense[(base + std::size_t(by) * std::size_t(cl.grid_w) + std::size_t(bx)) * 64 +
                        std::size_t(k)] !=
                  ref.blocks[std::size_t(c)]
                            [(std::size_t(by) * std::size_t(w) + std::size_t(bx)) * 64 +
                             std::size_t(k)];
        CHECK_MESSAGE(mismatches == 0, "component " << c);
        base += cl.blocks;
      }
      // Splitting restart intervals across tasks changes nothing.
      if (restart) CHECK(stream_with_tasks(file, 5) == stream);
    }
  }
}

TEST_CASE("token stream format: 12-byte tokens, padding, groups, directory, size ratio") {
  const auto photo = hetcodec::test::synthetic_rgb(160, 120, 5);
  EncodeParams p;
  p.h[0] = 2;
  p.v[0] = 2;
  const auto file = hetcodec::test::libjpeg_encode_ex(photo, p);
  const auto stream = jpeg_token_stream(file.data(), file.size());
  const auto info = jpeg::inspect_token_stream(stream.data(), stream.size());
  CHECK(stream.size() == 4 * info.tokens_word + 12 * std::size_t(info.tokens));
  CHECK(info.groups ==
        (info.blocks[0] + 63) / 64 + (info.blocks[1] + 63) / 64 + (info.blocks[2] + 63) / 64);
  // Every token's positions are distinct except for padding, which repeats the last one.
  std::uint32_t padded = 0;
  for (std::uint32_t t = 0; t < info.tokens; ++t) {
    std::uint32_t w;
    std::int16_t coef[4];
    std::memcpy(coef, &stream[4 * info.tokens_word + 12 * t], 8);
    std::memcpy(&w, &stream[4 * info.tokens_word + 12 * t + 8], 4);
    int pos[4] = {int(w & 63), int(w >> 6 & 63), int(w >> 12 & 63), int(w >> 18 & 63)};
    for (int i = 1; i < 4; ++i) {
      if (pos[i] == pos[i - 1]) {
        CHECK(coef[i] == coef[i - 1]);
        ++padded;
      }
      for (int j = 0; j < i - 1; ++j) CHECK((pos[j] != pos[i] || pos[i] == pos[i - 1]));
    }
    CHECK((w >> 30) == 0);
  }
  CHECK(padded > 0);
  const JpegFileInfo fi = jpeg_file_info(file.data(), file.size());
  CHECK(fi.token_stream_bytes == stream.size());
  CHECK(fi.dense_bytes == std::uint64_t(info.blocks[0] + info.blocks[1] + info.blocks[2]) * 128);
  CHECK(fi.subsampling == "4:2:0");
  CHECK(fi.decodable);

  // A damaged stream is refused with a byte offset.
  auto bad = stream;
  bad[4 * info.directory_word] ^= 1;
  CHECK_THROWS_AS(jpeg::inspect_token_stream(bad.data(), bad.size()), Error);
  bad = stream;
  bad[0] = 'X';
  CHECK_THROWS_AS(jpeg::inspect_token_stream(bad.data(), bad.size()), Error);
  CHECK_THROWS_AS(jpeg::inspect_token_stream(stream.data(), stream.size() - 4), Error);
}

TEST_CASE("a scan without restart markers decoded in pieces gives the same token stream") {
  const auto photo = hetcodec::test::synthetic_rgb(181, 133, 5);
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
  const int factors[][2] = {{1, 1}, {2, 1}, {2, 2}, {1, 2}, {4, 1}};
  for (const auto& f : factors) {
    for (int quality : {30, 90}) {
      EncodeParams p;
      p.h[0] = f[0];
      p.v[0] = f[1];
      p.quality = quality;
      files.emplace_back("sampling " + std::to_string(f[0]) + "x" + std::to_string(f[1]) + " q" +
                             std::to_string(quality),
                         hetcodec::test::libjpeg_encode_ex(photo, p));
    }
  }
  hetcodec::test::Raster gray{photo.width, photo.height, 1, {}};
  for (std::size_t i = 0; i < photo.samples.size(); i += 3)
    gray.samples.push_back(photo.samples[i + 1]);
  files.emplace_back("grayscale", hetcodec::test::libjpeg_encode_ex(gray, EncodeParams{}));
  const std::string dir = std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/";
  for (const char* name :
       {"testorig.jpg", "testimgint.jpg", "ffmpeg-yuvj420p-160x90-q20-default.jpg"}) {
    std::ifstream f(dir + name, std::ios::binary);
    REQUIRE_MESSAGE(f.good(), "cannot read " << dir << name);
    files.emplace_back(name, std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {}));
  }
  int split = 0;
  for (const auto& [what, file] : files) {
    const auto sequential = stream_with_tasks(file, 1);
    for (int pieces : {2, 3, 7, 16, 64}) {
      for (std::size_t min_bytes : {std::size_t(1), std::size_t(256)}) {
        INFO(what << ", " << pieces << " pieces of at least " << min_bytes << " bytes");
        bool took = false;
        CHECK(hetcodec::test::stream_split(file, pieces, min_bytes, took) == sequential);
        split += took;
      }
    }
  }
  // Every one of these files has one scan and no restart markers: all are split (a run_split()
  // that always declined would pass the comparison above).
  CHECK(split == int(files.size()) * 10);
}

TEST_CASE("grouped mode: the same blocks and tokens per group, blocks that do not fit included") {
  bool any_overflow = false;
  for (int quality : {10, 85, 100}) {
    for (int sampling : {0, 1, 2}) {
      for (int restart : {0, 2}) {
        EncodeParams p;
        p.quality = quality;
        p.restart_blocks = restart;
        p.h[0] = sampling == 0 ? 1 : 2;
        p.v[0] = sampling == 2 ? 2 : 1;
        // A flat picture with a band of noise across its top rows: the groups of those rows
        // hold many times their share of the tokens.
        auto photo = hetcodec::test::synthetic_rgb(397, 61, 5 + quality);
        std::uint32_t x = 12345;
        for (std::size_t i = 0; i < photo.samples.size(); ++i) {
          const bool band = i < std::size_t(photo.width) * 3 * 8;
          x = x * 1103515245u + 12345u;
          photo.samples[i] = band ? std::uint8_t(x >> 24) : 128;
        }
        const auto file = hetcodec::test::libjpeg_encode_ex(photo, p);
        INFO("quality " << quality << " sampling " << sampling << " restart " << restart);
        const auto plain = stream_with_tasks(file, 1);
        bool overflowed = false;
        const auto grouped = stream_grouped(file, overflowed);
        any_overflow = any_overflow || overflowed;
        REQUIRE(grouped.size() == plain.size());
        const auto a = jpeg::inspect_token_stream(plain.data(), plain.size());
        const auto b = jpeg::inspect_token_stream(grouped.data(), grouped.size());
        CHECK(a.tokens == b.tokens);
        // Header and directory are the same; inside a group blocks may come in another order.
        CHECK(std::memcmp(plain.data(), grouped.data(), 4 * a.tokens_word) == 0);
        CHECK(jpeg::expand_token_stream(plain.data(), plain.size()) ==
              jpeg::expand_token_stream(grouped.data(), grouped.size()));
      }
    }
  }
  CHECK(any_overflow);  // quality 100 overflows some buckets
}
