// Scaled JPEG decoding (JpegDecodeOptions::scale_denom, `hetcodec decode --scale 1/N`): on
// every device, at 1/1, 1/2, 1/4 and 1/8, the decoded bytes equal libjpeg-turbo's with
// scale_num = 1, scale_denom = N (djpeg -scale 1/N -dct int, through its C API), for every
// sampling, odd sizes, restart intervals, progressive, arithmetic-coded and non-interleaved
// files; single, batch and device-resident decoding agree. The reduced IDCTs of core/portable
// equal libjpeg-turbo's jidctred.c block by block.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "core/portable/jpeg_idct_reduced.h"
#include "hetcodec/jpeg.h"
#include "tests/support/jpeg_checks.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"
#include "tools/ljpeg_encode.h"

using namespace hetcodec;
using hetcodec::test::borrowed;
using hetcodec::test::check_equal;
using hetcodec::test::EncodeParams;
using hetcodec::test::Raster;
using hetcodec::test::read_back;

namespace {

constexpr int kScales[] = {1, 2, 4, 8};

struct Sample {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

std::string data_dir() { return std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg"; }

struct Sampling {
  const char* name;
  int h, v;
};
// Luma factors against 1x1 chroma: 4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, 4:1:0.
const Sampling kSamplings[] = {{"444", 1, 1}, {"422", 2, 1}, {"420", 2, 2},
                               {"440", 1, 2}, {"411", 4, 1}, {"410", 4, 2}};

EncodeParams sampled(const Sampling& s) {
  EncodeParams p;
  p.h[0] = s.h;
  p.v[0] = s.v;
  return p;
}

// The files every scale is checked on; `small` is the subset run inside the emulator.
std::vector<Sample> scaled_corpus(bool small) {
  std::vector<Sample> out;
  auto add = [&](std::string name, const Raster& r, const EncodeParams& p) {
    out.push_back({std::move(name), hetcodec::test::libjpeg_encode_ex(r, p)});
  };
  if (small) {
    const Raster rgb = hetcodec::test::synthetic_rgb(19, 13, 3);
    for (const auto& s : {kSamplings[1], kSamplings[2], kSamplings[3]}) {
      EncodeParams p = sampled(s);
      p.restart_blocks = 2;
      add(std::string("small-") + s.name, rgb, p);
    }
    add("small-gray", hetcodec::test::gray_of(rgb), EncodeParams{});
    return out;
  }
  // Every sampling at odd sizes: below one block, around the MCU, not multiples of 8 or 16.
  const int sizes[][2] = {{1, 1}, {3, 5}, {17, 9}, {33, 31}, {127, 65}};
  unsigned seed = 11;
  for (const auto& s : kSamplings) {
    for (const auto& wh : sizes) {
      EncodeParams p = sampled(s);
      p.quality = 10 + int(seed * 37 % 91);  // 10..100
      add(std::string(s.name) + "-" + std::to_string(wh[0]) + "x" + std::to_string(wh[1]) + "-q" +
              std::to_string(p.quality),
          hetcodec::test::synthetic_rgb(wh[0], wh[1], seed++), p);
    }
  }
  for (const auto& wh : sizes)
    add("gray-" + std::to_string(wh[0]) + "x" + std::to_string(wh[1]),
        hetcodec::test::gray_of(hetcodec::test::synthetic_rgb(wh[0], wh[1], seed++)),
        EncodeParams{});
  const Raster photo = hetcodec::test::synthetic_rgb(203, 117, 42);
  for (int q : {50, 95}) {
    EncodeParams p = sampled(kSamplings[2]);
    p.quality = q;
    add("420-203x117-q" + std::to_string(q), photo, p);
  }
  // CMYK (Adobe transform 0) and YCCK, with K subsampled too.
  for (const auto& wh : {sizes[3], sizes[4]}) {
    const Raster cmyk =
        hetcodec::test::cmyk_of(hetcodec::test::synthetic_rgb(wh[0], wh[1], seed++));
    const std::string size = std::to_string(wh[0]) + "x" + std::to_string(wh[1]);
    EncodeParams p;
    p.keep_rgb = true;
    add("cmyk-444-" + size, cmyk, p);
    p = EncodeParams{};
    add("ycck-444-" + size, cmyk, p);
    p = sampled(kSamplings[2]);
    p.h[3] = 2;
    p.v[3] = 2;
    add("ycck-420-" + size, cmyk, p);
  }
  {
    EncodeParams p;
    p.keep_rgb = true;
    add("rgb-no-transform", photo, p);
    // Chroma sampled above the luma: the "luma" is the upsampled component.
    p = EncodeParams{};
    p.h[1] = 2;
    p.v[1] = 1;
    add("odd-factors-cb21", photo, p);
    p = EncodeParams{};
    p.h[1] = 2;
    p.v[1] = 2;
    add("odd-factors-cb22", photo, p);
  }
  // Restart intervals, by rows and by MCUs, and one scan per component.
  for (const auto& s : {kSamplings[0], kSamplings[1], kSamplings[2], kSamplings[4]}) {
    EncodeParams p = sampled(s);
    p.restart_rows = 1;
    add(std::string(s.name) + "-restart-1row", photo, p);
    p.restart_rows = 0;
    p.restart_blocks = 7;
    add(std::string(s.name) + "-restart-7mcu", photo, p);
  }
  {
    EncodeParams p;
    p.restart_blocks = 5;
    add("gray-restart-5", hetcodec::test::gray_of(photo), p);
    p = sampled(kSamplings[2]);
    p.separate_scans = true;
    p.restart_blocks = 11;
    add("420-non-interleaved-restart-11", photo, p);
  }
  // Progressive and arithmetic-coded files: coefficients recoded by libjpeg (jpegtran
  // -progressive, -arithmetic).
  {
    hetcodec::test::RecodeParams rp;
    rp.progressive = true;
    for (const auto& s : {kSamplings[0], kSamplings[2], kSamplings[3]}) {
      const auto base = hetcodec::test::libjpeg_encode_ex(photo, sampled(s));
      out.push_back(
          {std::string(s.name) + "-progressive", hetcodec::test::libjpeg_recode(base, rp)});
    }
    out.push_back({"gray-progressive",
                   hetcodec::test::libjpeg_recode(
                       hetcodec::test::libjpeg_encode_ex(hetcodec::test::gray_of(photo), {}), rp)});
    hetcodec::test::RecodeParams arith;
    arith.arithmetic = true;
    out.push_back({"420-arithmetic",
                   hetcodec::test::libjpeg_recode(
                       hetcodec::test::libjpeg_encode_ex(photo, sampled(kSamplings[2])), arith)});
    rp.restart_blocks = 3;
    out.push_back({"422-progressive-restart-3",
                   hetcodec::test::libjpeg_recode(
                       hetcodec::test::libjpeg_encode_ex(photo, sampled(kSamplings[1])), rp)});
  }
  // Files from other encoders: libjpeg-turbo's test image, FFmpeg's mjpeg.
  for (const char* name :
       {"testorig.jpg", "ffmpeg-yuvj422p-64x40-q8-default.jpg",
        "ffmpeg-yuvj420p-97x61-q3-optimal.jpg", "ffmpeg-gray-45x29-q5-default.jpg"})
    out.push_back({name, hetcodec::test::read_test_file(data_dir() + "/" + name)});
  return out;
}

const std::vector<Sample>& full_corpus() {
  static const std::vector<Sample> c = scaled_corpus(false);
  return c;
}

JpegDecodeOptions scaled(int denom, bool fused = true) {
  JpegDecodeOptions o;
  o.scale_denom = denom;
  o.fused = fused;
  return o;
}

}  // namespace

TEST_CASE("scaled jpeg decode equals libjpeg-turbo's at 1/1, 1/2, 1/4, 1/8 on every device") {
  test::for_each_device([](Device& device) {
    if (device.info().is_emulator) return;  // (one case per process there: below)
    for (int denom : kScales) {
      for (bool fused : {true, false}) {
        JpegDecoder decoder(borrowed(device), scaled(denom, fused));
        for (const Sample& s : full_corpus()) {
          INFO(s.name << " at 1/" << denom << (fused ? " (fused)" : " (separate)"));
          const Raster ref = hetcodec::test::libjpeg_decode_scaled(s.bytes, denom);
          const ImageInfo info = decoder.info(s.bytes.data(), s.bytes.size());
          CHECK(info.width == ref.width);
          CHECK(info.height == ref.height);
          const Image img = decoder.decode(s.bytes);
          check_equal(img, ref, s.name);
          CHECK(img.warnings.empty());
        }
      }
    }
  });
}

TEST_CASE("scaled jpeg batches, chunks of several images and device-resident decoding agree") {
  test::for_each_device([](Device& device) {
    if (device.info().is_emulator) return;  // (one case per process there: below)
    const std::vector<Sample>& samples = full_corpus();
    std::vector<Input> inputs;
    inputs.reserve(samples.size());
    for (const auto& s : samples) inputs.push_back({s.bytes.data(), s.bytes.size()});
    for (int denom : {2, 4, 8}) {
      std::vector<Raster> refs;
      refs.reserve(samples.size());
      for (const auto& s : samples)
        refs.push_back(hetcodec::test::libjpeg_decode_scaled(s.bytes, denom));
      // Chunks of one image (a launch pair each), and of several (one launch of each kernel for
      // the chunk, from its chunk table); the separate kernels likewise.
      for (int per_copy : {1, 5}) {
        for (bool fused : {true, false}) {
          INFO("1/" << denom << ", " << per_copy << " images a copy"
                    << (fused ? " (fused)" : " (separate)"));
          JpegDecodeOptions options = scaled(denom, fused);
          options.threads = 3;
          options.images_per_copy = per_copy;
          JpegDecoder decoder(borrowed(device), options);
          const auto batch = decoder.decode_batch(inputs);
          REQUIRE(batch.size() == samples.size());
          for (std::size_t i = 0; i < samples.size(); ++i)
            check_equal(batch[i], refs[i], samples[i].name);
          const auto on_device = decoder.decode_batch_to_device(inputs);
          REQUIRE(on_device.size() == samples.size());
          for (std::size_t i = 0; i < samples.size(); ++i) {
            INFO(samples[i].name);
            CHECK(on_device[i].width == refs[i].width);
            CHECK(on_device[i].height == refs[i].height);
            CHECK(read_back(device, on_device[i]) == refs[i].samples);
          }
          const Sample& last = samples.back();
          const DeviceImage one = decoder.decode_to_device(last.bytes.data(), last.bytes.size());
          CHECK(one.width == refs.back().width);
          CHECK(read_back(device, one) == refs.back().samples);
        }
      }
    }
  });
}

// The backend-max-alloc test runs this with every device's largest allocation capped at 4 MiB
// (HETCODEC_MAX_ALLOC): a batch is split into parts by its scaled outputs, so a part holds several
// images whose full-size outputs would each need a part of its own.
TEST_CASE("scaled jpeg batches over the device's largest allocation are split by scaled size") {
  test::for_each_device([](Device& device) {
    const std::uint64_t limit = device.info().max_alloc_bytes;
    if (limit > (16u << 20) || device.info().is_emulator) return;  // (see test_max_alloc.cpp)
    const int w = 1024, h = 768, denom = 2;
    const std::uint64_t scaled_bytes = std::uint64_t(w / denom) * std::uint64_t(h / denom) * 3;
    REQUIRE(scaled_bytes * 2 <= limit);
    REQUIRE(std::uint64_t(w) * std::uint64_t(h) * 3 > limit / 2);
    std::vector<std::vector<std::uint8_t>> files;
    std::vector<Raster> expected;
    for (unsigned i = 0; files.size() * scaled_bytes <= 2 * limit; ++i) {
      EncodeParams p = sampled(kSamplings[2 + i % 2]);
      p.quality = 85;
      files.push_back(hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(w, h, i), p));
      expected.push_back(hetcodec::test::libjpeg_decode_scaled(files.back(), denom));
    }
    std::vector<Input> inputs;
    inputs.reserve(files.size());
    for (const auto& f : files) inputs.push_back({f.data(), f.size()});
    JpegDecodeOptions options = scaled(denom);
    options.images_per_copy = 8;
    JpegDecoder decoder(borrowed(device), options);
    const std::vector<Image> images = decoder.decode_batch(inputs);
    REQUIRE(images.size() == files.size());
    for (std::size_t i = 0; i < files.size(); ++i) check_equal(images[i], expected[i], "batch");
    const std::vector<DeviceImage> on_device = decoder.decode_batch_to_device(inputs);
    std::set<const DeviceBuffer*> buffers;
    for (std::size_t i = 0; i < files.size(); ++i) {
      INFO("image " << i);
      REQUIRE(on_device[i].buffer);
      CHECK(on_device[i].buffer->size() <= limit);
      buffers.insert(on_device[i].buffer.get());
      CHECK(read_back(device, on_device[i]) == expected[i].samples);
    }
    CHECK(buffers.size() > 1);
    CHECK(buffers.size() < files.size());
  });
}

// Under Oclgrind one decoder runs per process (the emulator-jpeg-scaled tests,
// HETCODEC_TEST_JPEG_SCALED_ALONE=1..4): its uninitialised-value tracking reports planes and
// coefficients a kernel has just written as uninitialised once other decoders' buffers have been
// released in the same process (as for the chunked batches, test_jpeg_decode.cpp). Cases 1, 2, 3:
// the fused kernels at 1/2, 1/4, 1/8 (4x4, 2x2, 1x1 blocks; the chroma at 8x8, 4x4, 2x2 or
// upsampled), each file alone, then all as one chunk; case 4: the separate kernels at 1/4.
TEST_CASE("scaled jpeg decode: one case alone under the emulator") {
  const char* alone = std::getenv("HETCODEC_TEST_JPEG_SCALED_ALONE");
  test::for_each_device([&](Device& device) {
    if (!device.info().is_emulator || !alone) return;
    const int which = std::atoi(alone);
    REQUIRE(which >= 1);
    REQUIRE(which <= 4);
    const int denom = which == 4 ? 4 : 1 << which;
    const std::vector<Sample> samples = scaled_corpus(true);
    JpegDecodeOptions options = scaled(denom, which != 4);
    options.threads = 1;
    options.images_per_copy = int(samples.size());
    JpegDecoder decoder(borrowed(device), options);
    std::vector<Input> inputs;
    std::vector<Raster> refs;
    for (const Sample& s : samples) {
      INFO(s.name << " at 1/" << denom);
      inputs.push_back({s.bytes.data(), s.bytes.size()});
      refs.push_back(hetcodec::test::libjpeg_decode_scaled(s.bytes, denom));
      check_equal(decoder.decode(s.bytes), refs.back(), s.name);
    }
    const auto batch = decoder.decode_batch(inputs);
    REQUIRE(batch.size() == samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i)
      check_equal(batch[i], refs[i], samples[i].name + " in a batch");
  });
}

TEST_CASE("scale_denom other than 1, 2, 4, 8 is refused, lossless files are not scaled") {
  test::for_each_device([](Device& device) {
    if (device.info().is_emulator) return;
    for (int bad : {0, -2, 3, 5, 16}) {
      INFO("scale_denom " << bad);
      try {
        JpegDecoder decoder(borrowed(device), scaled(bad));
        FAIL("a decoder was made");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidArgument);
        const std::string what = e.what();
        CHECK(what.find("scale_denom " + std::to_string(bad)) != std::string::npos);
      }
    }
    // The layout refuses it too, and gives libjpeg-turbo's sizes for the others.
    const auto file = hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(127, 65, 1),
                                                        sampled(kSamplings[2]));
    const jpeg::Header h = jpeg::parse(file.data(), file.size());
    CHECK_THROWS_AS(jpeg::make_layout(h, 3), Error);
    for (int denom : kScales) {
      const jpeg::Layout l = jpeg::make_layout(h, denom);
      const Raster ref = hetcodec::test::libjpeg_decode_scaled(file, denom);
      CHECK(l.output_width == ref.width);
      CHECK(l.output_height == ref.height);
      // 4:2:0: the chroma is transformed to twice the luma's block side (8, 4, 2), so it needs
      // no upsampling below scale 1.
      CHECK(l.components[0].block == 8 / denom);
      CHECK(l.components[1].block == (denom == 1 ? 8 : 16 / denom));
      CHECK((denom == 1 || (l.components[1].hr == 1 && l.components[1].vr == 1)));
    }
    // A lossless file: Unsupported at 1/2, from info() and from each decode path.
    std::vector<std::uint16_t> samples(std::size_t(24) * 16);
    for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = std::uint16_t(i * 7 % 251);
    const auto lossless = tools::ljpeg_encode(samples.data(), 24, 16, 1, {});
    JpegDecoder half(borrowed(device), scaled(2));
    for (int path = 0; path < 3; ++path) {
      INFO("path " << path);
      try {
        if (path == 0) half.info(lossless.data(), lossless.size());
        if (path == 1) half.decode(lossless);
        if (path == 2) half.decode_to_device(lossless.data(), lossless.size());
        FAIL("a lossless file was decoded scaled");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Unsupported);
        CHECK(std::string(e.what()).find("scale 1/2") != std::string::npos);
      }
    }
    BatchErrors errors;
    const std::vector<Input> mixed = {{lossless.data(), lossless.size()},
                                      {file.data(), file.size()}};
    const auto batch = half.decode_batch(mixed, &errors);
    REQUIRE(errors.size() == 2);
    CHECK(errors[0]);
    CHECK(!errors[1]);
    check_equal(batch[1], hetcodec::test::libjpeg_decode_scaled(file, 2), "420 at 1/2");
    // At scale 1 the same decoder settings decode it.
    JpegDecoder whole(borrowed(device), scaled(1));
    CHECK(whole.decode(lossless).width == 24);
  });
}

// Golden vectors for the reduced IDCTs of core/portable, and the C reduced IDCTs of
// libjpeg-turbo (jidctred.c, exported by libjpeg.so.62) on random blocks.
TEST_CASE("reduced IDCTs equal libjpeg-turbo's jpeg_idct_4x4, _2x2, _1x1") {
  // One horizontal cosine (coefficient 1, dequantised 100): the four column pairs' averages of
  // 128 + 100 * sqrt(2) / 8 * cos((2x + 1) pi / 16), rounded as jidctred.c rounds them.
  {
    hc_i32 in[64] = {};
    hc_u16 out[16];
    in[1] = 100;
    hc_jpeg_idct_4x4(in, out, 0);
    const hc_u8 row[4] = {144, 135, 121, 112};
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 4; ++k) CHECK(int(out[4 * r + k]) == int(row[k]));
    hc_i32 dc[64] = {};
    dc[0] = -1000;  // 128 - 125, the 1x1 and 2x2 average alike
    hc_jpeg_idct_2x2(dc, out, 0);
    for (int k = 0; k < 4; ++k) CHECK(int(out[k]) == 3);
    CHECK(int(hc_jpeg_idct_1x1(-1000, 0)) == 3);
  }
  // Random blocks: coefficients as conforming files give them (dequantised within +-2047), and
  // sparse blocks whose zero columns take jidctred.c's shortcut.
  unsigned state = 12345;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    std::int16_t coef[64];
    std::uint16_t quant[64];
    const bool sparse = trial % 3 == 0;
    for (int k = 0; k < 64; ++k) {
      quant[k] = std::uint16_t(1 + next() % (trial % 2 ? 255 : 16));
      const int limit = 2047 / quant[k];
      const bool zero = sparse ? next() % 8 != 0 : next() % 3 == 0;
      coef[k] = std::int16_t(zero ? 0 : int(next() % unsigned(2 * limit + 1)) - limit);
    }
    for (int size : {4, 2, 1}) {
      INFO("trial " << trial << ", " << size << "x" << size);
      hc_i32 in[64];
      for (int k = 0; k < 64; ++k) in[k] = hc_i32(coef[k]) * hc_i32(quant[k]);
      hc_u16 out[64];
      if (size == 4) hc_jpeg_idct_4x4(in, out, 0);
      if (size == 2) hc_jpeg_idct_2x2(in, out, 0);
      if (size == 1) out[0] = hc_jpeg_idct_1x1(in[0], 0);
      const std::vector<std::uint8_t> ref = hetcodec::test::libjpeg_idct_reduced(coef, quant, size);
      const std::size_t n = std::size_t(size) * std::size_t(size);
      REQUIRE(ref.size() == n);
      CHECK(std::vector<std::uint8_t>(out, out + n) == ref);  // (every sample below 256)
    }
  }
  // Blocks of a DC alone, of any value (damaged data, 16-bit tables): every column takes the
  // shortcut, so the samples equal the C code's whatever the magnitudes (the quantisation value
  // taken as a 16-bit multiplier, as the decoder's job carries it).
  for (int trial = 0; trial < 2000; ++trial) {
    std::int16_t coef[64] = {};
    std::uint16_t quant[64];
    for (auto& q : quant) q = std::uint16_t(1 + next() % 65535);
    coef[0] = std::int16_t(next());
    for (int size : {4, 2, 1}) {
      INFO("DC " << coef[0] << " x " << quant[0] << ", " << size << "x" << size);
      hc_i32 in[64] = {};
      in[0] = hc_i32(coef[0]) * hc_i32(std::int16_t(quant[0]));
      hc_u16 out[16];
      if (size == 4) hc_jpeg_idct_4x4(in, out, 0);
      if (size == 2) hc_jpeg_idct_2x2(in, out, 0);
      if (size == 1) out[0] = hc_jpeg_idct_1x1(in[0], 0);
      const std::vector<std::uint8_t> ref = hetcodec::test::libjpeg_idct_reduced(coef, quant, size);
      CHECK(std::vector<std::uint8_t>(out, out + std::size_t(size) * std::size_t(size)) == ref);
    }
  }
}

#ifdef HETCODEC_TEST_CLI
TEST_CASE("hetcodec decode --scale 1/N writes what djpeg -scale 1/N -dct int -pnm writes") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("hetcodec-cli-scale-" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto cli = [](const std::string& args) {
    return hetcodec::test::run_command(HETCODEC_TEST_CLI, args);
  };
  const std::string colour = data_dir() + "/testorig.jpg";
  const std::string gray = (dir / "gray.jpg").string();
  {
    const auto bytes = hetcodec::test::libjpeg_encode_ex(
        hetcodec::test::gray_of(hetcodec::test::synthetic_rgb(31, 17, 2)), EncodeParams{});
    std::ofstream(gray, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  for (const std::string& in : {colour, gray}) {
    for (int denom : kScales) {
      const std::string out = (dir / ("out-" + std::to_string(denom) + ".pnm")).string();
      const std::string log =
          cli("-d cpu decode --scale 1/" + std::to_string(denom) + " " + in + " " + out);
      INFO(in << " at 1/" << denom << ": " << log);
      REQUIRE(log.find("exit 0") != std::string::npos);
      const Raster ref =
          hetcodec::test::libjpeg_decode_scaled(hetcodec::test::read_test_file(in), denom);
      const std::string magic = std::string(ref.components == 1 ? "P5\n" : "P6\n") +
                                std::to_string(ref.width) + " " + std::to_string(ref.height) +
                                "\n255\n";
      const auto written = hetcodec::test::read_test_file(out);
      REQUIRE(written.size() == magic.size() + ref.samples.size());
      CHECK(std::string(written.begin(), written.begin() + std::ptrdiff_t(magic.size())) == magic);
      CHECK(std::equal(ref.samples.begin(), ref.samples.end(),
                       written.begin() + std::ptrdiff_t(magic.size())));
    }
  }
  // Bad scales are refused before any file is read; a PNG is not scaled.
  for (const char* bad : {"1/3", "2/1", "1/16", "half"}) {
    const std::string log = cli("-d cpu decode --scale " + std::string(bad) + " " + colour + " " +
                                (dir / "bad.pnm").string());
    INFO(log);
    CHECK(log.find("--scale") != std::string::npos);
    CHECK(log.find("exit 0") == std::string::npos);
    CHECK(!fs::exists(dir / "bad.pnm"));
  }
  const std::string png = std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/pngsuite/basn2c08.png";
  const std::string log =
      cli("-d cpu decode --scale 1/2 " + png + " " + (dir / "png.ppm").string());
  INFO(log);
  CHECK(log.find("scales JPEG files only") != std::string::npos);
  CHECK(log.find("exit 0") == std::string::npos);
  const std::string help = cli("decode --help");
  CHECK(help.find("--scale") != std::string::npos);
  CHECK(help.find("djpeg -scale 1/N") != std::string::npos);
  fs::remove_all(dir);
}
#endif
