// Cropped JPEG decoding (Input::crop, `hetcodec decode --crop WxH+X+Y`): on every device, the
// region's bytes equal libjpeg-turbo's for it (jpeg_crop_scanline + jpeg_skip_scanlines,
// through its C API), at every scale, for every sampling, CMYK and YCCK, progressive,
// arithmetic-coded and block-smoothed files, regions of one or two pixels' width where the
// upsampling changes method, and regions on every edge; single, batch (a region per image) and
// device-resident decoding agree; bad regions are errors naming them.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "core/portable/jpeg_upsample.h"
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
using hetcodec::test::RecodeParams;
using hetcodec::test::ScanSpec;

namespace {

struct Sample {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

EncodeParams sampled(int h, int v, int quality = 75) {
  EncodeParams p;
  p.h[0] = h;
  p.v[0] = v;
  p.quality = quality;
  return p;
}

// The files: every sampling (4:1:1 and 4:1:0 included, whose windows are 32 pixels wide), odd
// sizes, grayscale, CMYK and YCCK, restart intervals, non-interleaved, progressive,
// arithmetic-coded, and progressive files libjpeg-turbo block-smooths.
std::vector<Sample> crop_corpus(bool small) {
  std::vector<Sample> out;
  auto add = [&](std::string name, const Raster& r, const EncodeParams& p) {
    out.push_back({std::move(name), hetcodec::test::libjpeg_encode_ex(r, p)});
  };
  const Raster photo = hetcodec::test::synthetic_rgb(small ? 37 : 101, small ? 21 : 67, 5);
  add("420", photo, sampled(2, 2));
  add("422", photo, sampled(2, 1));
  add("gray", hetcodec::test::gray_of(photo), EncodeParams{});
  if (small) return out;
  add("444", photo, sampled(1, 1, 90));
  add("440", photo, sampled(1, 2));
  add("411", photo, sampled(4, 1));
  add("410", photo, sampled(4, 2));
  {
    EncodeParams p = sampled(2, 2);
    p.restart_blocks = 3;
    add("420-restart-3", photo, p);
    p.restart_blocks = 0;
    p.separate_scans = true;
    add("420-non-interleaved", photo, p);
    p = EncodeParams{};
    p.h[1] = 2;
    add("odd-factors-cb21", photo, p);
  }
  {
    const Raster cmyk = hetcodec::test::cmyk_of(photo);
    EncodeParams p;
    p.keep_rgb = true;
    add("cmyk", cmyk, p);
    p = sampled(2, 2);
    p.h[3] = 2;
    p.v[3] = 2;
    add("ycck-420", cmyk, p);
  }
  const auto base420 = hetcodec::test::libjpeg_encode_ex(photo, sampled(2, 2, 85));
  const auto base422 = hetcodec::test::libjpeg_encode_ex(photo, sampled(2, 1, 60));
  RecodeParams rp;
  rp.progressive = true;
  out.push_back({"420-progressive", hetcodec::test::libjpeg_recode(base420, rp)});
  rp.arithmetic = true;
  out.push_back({"422-progressive-arithmetic", hetcodec::test::libjpeg_recode(base422, rp)});
  RecodeParams arith;
  arith.arithmetic = true;
  out.push_back({"420-arithmetic", hetcodec::test::libjpeg_recode(base420, arith)});
  // Block smoothing (incomplete AC data), whose left neighbours at a window's first column are
  // that column's own, as at the image's edge.
  RecodeParams dc_only, first_band;
  dc_only.scans = {ScanSpec{{0, 1, 2}, 0, 0, 0, 0}};
  first_band.scans = {ScanSpec{{0, 1, 2}, 0, 0, 0, 0}, ScanSpec{{0}, 1, 5, 0, 0}};
  out.push_back({"420-smoothed-dc-only", hetcodec::test::libjpeg_recode(base420, dc_only)});
  out.push_back({"422-smoothed-first-band", hetcodec::test::libjpeg_recode(base422, first_band)});
  return out;
}

const std::vector<Sample>& full_corpus() {
  static const std::vector<Sample> c = crop_corpus(false);
  return c;
}

// Regions of a w x h output: across window edges at many offsets, one and two pixels wide (the
// upsampling's method changes below two chroma samples), on each edge, one pixel, the whole
// width with a band of rows, and the whole image.
std::vector<Region> regions(int w, int h) {
  std::vector<Region> r;
  auto add = [&](int x, int y, int rw, int rh) {
    if (x < 0 || y < 0 || rw <= 0 || rh <= 0 || x + rw > w || y + rh > h) return;
    r.push_back({x, y, rw, rh});
  };
  add(0, 0, w, h);
  add(0, 0, (w + 1) / 2, (h + 1) / 2);
  for (int x : {1, 7, 8, 9, 15, 16, 17, 31, 33}) add(x, h / 3, w - x - (x % 5), h / 2);
  for (int x : {0, 5, 16, 17, 32}) {
    add(x, 1, 1, h - 2);
    add(x, 2, 2, 3);
    add(x, 0, 3, h);
  }
  add(w - 1, h - 1, 1, 1);
  add(w - 2, 0, 2, h);
  add(w / 2, h - 3, w - w / 2, 3);
  add(0, h / 2, w, 1);
  add(3, 5, w - 6, h - 7);
  return r;
}

JpegDecodeOptions at_scale(int denom) {
  JpegDecodeOptions o;
  o.scale_denom = denom;
  return o;
}

std::string describe(const Region& r) {
  return std::to_string(r.width) + "x" + std::to_string(r.height) + "+" + std::to_string(r.x) +
         "+" + std::to_string(r.y);
}

// Whether libjpeg-turbo before 3.0 crops this file at 1/denom with the wrong downsampled width:
// its jpeg_crop_scanline leaves out the IDCT scaling of a component whose blocks are enlarged
// (chroma at twice the luma's block side) yet still upsampled 2:1 by a fancy filter, as 4:1:0
// chroma at 1/2 and 1/4, so it upsamples half the samples (and leaves the rest of the row
// unwritten). libjpeg-turbo 3 computes the width as the decoder does; its output for such
// files is kept in tests/data/jpeg/crop.
bool old_libjpeg_crop_differs(const std::vector<std::uint8_t>& file, int denom) {
  if (hetcodec::test::libjpeg_turbo_version() >= 3000000) return false;
  const jpeg::Layout l = jpeg::make_layout(jpeg::parse(file.data(), file.size()), denom);
  for (const auto& c : l.components)
    if (c.block != 8 / denom && c.hr == 2 &&
        (c.method == HC_UPSAMPLE_FANCY_H2V1 || c.method == HC_UPSAMPLE_FANCY_H2V2))
      return true;
  return false;
}

}  // namespace

TEST_CASE("cropped jpeg decode equals libjpeg-turbo's jpeg_crop_scanline on every device") {
  test::for_each_device([](Device& device) {
    if (device.info().is_emulator) return;  // (its own case below)
    for (int denom : {1, 2, 4, 8}) {
      JpegDecoder decoder(borrowed(device), at_scale(denom));
      for (const Sample& s : full_corpus()) {
        const ImageInfo info = decoder.info(s.bytes.data(), s.bytes.size());
        // Every region at 1 and 1/2; at 1/4 and 1/8 every other file.
        if (denom > 2 && (&s - full_corpus().data()) % 2) continue;
        if (old_libjpeg_crop_differs(s.bytes, denom)) continue;  // (the case below)
        for (const Region& r : regions(info.width, info.height)) {
          INFO(s.name << " at 1/" << denom << ", crop " << describe(r));
          const Raster ref =
              hetcodec::test::libjpeg_decode_cropped(s.bytes, denom, r.x, r.y, r.width, r.height);
          Input in{s.bytes.data(), s.bytes.size()};
          in.crop = r;
          check_equal(decoder.decode(in), ref, s.name);
        }
      }
    }
  });
}

TEST_CASE("cropped jpeg batches (a region per image) and device-resident decoding agree") {
  test::for_each_device([](Device& device) {
    if (device.info().is_emulator) return;
    const std::vector<Sample>& samples = full_corpus();
    for (int denom : {1, 2}) {
      std::vector<Input> inputs;
      std::vector<Raster> refs;
      std::vector<std::string> names;
      for (const Sample& s : samples) {
        if (old_libjpeg_crop_differs(s.bytes, denom)) continue;
        JpegDecoder probe(borrowed(device), at_scale(denom));
        const ImageInfo info = probe.info(s.bytes.data(), s.bytes.size());
        const std::vector<Region> rs = regions(info.width, info.height);
        for (std::size_t k = 0; k < rs.size(); k += 5) {
          Input in{s.bytes.data(), s.bytes.size()};
          in.crop = rs[k];
          inputs.push_back(in);
          refs.push_back(hetcodec::test::libjpeg_decode_cropped(s.bytes, denom, rs[k].x, rs[k].y,
                                                                rs[k].width, rs[k].height));
          names.push_back(s.name + " crop " + describe(rs[k]));
        }
        // And the same file whole, in the same batch.
        inputs.push_back({s.bytes.data(), s.bytes.size()});
        refs.push_back(hetcodec::test::libjpeg_decode_scaled(s.bytes, denom));
        names.push_back(s.name + " whole");
      }
      for (int per_copy : {1, 6}) {
        INFO("1/" << denom << ", " << per_copy << " images a copy");
        JpegDecodeOptions options = at_scale(denom);
        options.threads = 3;
        options.images_per_copy = per_copy;
        JpegDecoder decoder(borrowed(device), options);
        const auto batch = decoder.decode_batch(inputs);
        REQUIRE(batch.size() == inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i) check_equal(batch[i], refs[i], names[i]);
        const auto on_device = decoder.decode_batch_to_device(inputs);
        REQUIRE(on_device.size() == inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i) {
          INFO(names[i]);
          CHECK(on_device[i].width == refs[i].width);
          CHECK(on_device[i].height == refs[i].height);
          CHECK(read_back(device, on_device[i]) == refs[i].samples);
        }
        const DeviceImage one = decoder.decode_to_device(inputs.front());
        CHECK(read_back(device, one) == refs.front().samples);
      }
    }
  });
}

// 4:1:0 at 1/2 and 1/4 against libjpeg-turbo 3.0.4's djpeg -scale 1/N -dct int -crop WxH+X+Y
// (its rows start at the window's column; the region is their right end).
TEST_CASE("cropped 4:1:0 jpeg at 1/2 and 1/4 equals libjpeg-turbo 3's djpeg -crop") {
  const std::string dir = std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/crop/";
  const auto file = hetcodec::test::read_test_file(dir + "410-101x67.jpg");
  struct Case {
    int denom;
    Region r;
  };
  const Case cases[] = {
      {2, {3, 5, 45, 27}}, {2, {9, 11, 19, 17}}, {4, {3, 2, 13, 9}}, {4, {17, 0, 3, 16}}};
  const bool old_differs = old_libjpeg_crop_differs(file, 2) && old_libjpeg_crop_differs(file, 4);
  CHECK((hetcodec::test::libjpeg_turbo_version() >= 3000000 || old_differs));
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    for (const Case& c : cases) {
      const std::string name = "410-101x67-1-" + std::to_string(c.denom) + "-" + describe(c.r);
      INFO(name);
      const auto ppm = hetcodec::test::read_test_file(dir + name + ".ppm");
      // "P6\n<w> <h>\n255\n" then the rows of the window.
      int w = 0, h = 0, maxval = 0, header = 0;
      REQUIRE(std::sscanf(reinterpret_cast<const char*>(ppm.data()), "P6 %d %d %d%n", &w, &h,
                          &maxval, &header) == 3);
      ++header;
      REQUIRE(h == c.r.height);
      REQUIRE(w >= c.r.width);
      REQUIRE(ppm.size() == std::size_t(header) + std::size_t(w) * std::size_t(h) * 3);
      Raster ref{c.r.width, c.r.height, 3, {}};
      for (int y = 0; y < h; ++y) {
        const auto row = ppm.begin() + header + std::ptrdiff_t(y) * w * 3;
        ref.samples.insert(ref.samples.end(), row + std::ptrdiff_t(w - c.r.width) * 3,
                           row + std::ptrdiff_t(w) * 3);
      }
      JpegDecoder decoder(borrowed(device), at_scale(c.denom));
      Input in{file.data(), file.size()};
      in.crop = c.r;
      check_equal(decoder.decode(in), ref, name);
    }
  });
}

TEST_CASE("crop regions outside the output are refused by name; lossless files are not cropped") {
  const auto file =
      hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(40, 30, 2), sampled(2, 2));
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    JpegDecoder decoder(borrowed(device));
    const Region bad[] = {{0, 0, 41, 30}, {0, 0, 40, 31}, {1, 0, 40, 30}, {0, 30, 40, 1},
                          {-1, 0, 5, 5},  {0, -1, 5, 5},  {0, 0, 0, 5},   {0, 0, 5, 0},
                          {39, 29, 2, 1}, {0, 0, -3, 4}};
    for (const Region& r : bad) {
      INFO("crop " << describe(r));
      Input in{file.data(), file.size()};
      in.crop = r;
      try {
        decoder.decode(in);
        FAIL("decoded");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidArgument);
        const std::string what = e.what();
        CHECK(what.find(describe(r)) != std::string::npos);
        CHECK(what.find("40x30") != std::string::npos);
      }
      CHECK_THROWS_AS(decoder.decode_to_device(in), Error);
    }
    // At 1/2 the region is of the 20 x 15 output.
    {
      JpegDecoder half(borrowed(device), at_scale(2));
      Input in{file.data(), file.size()};
      in.crop = {10, 5, 11, 10};
      CHECK_THROWS_AS(half.decode(in), Error);
      in.crop = {10, 5, 10, 10};
      check_equal(half.decode(in), hetcodec::test::libjpeg_decode_cropped(file, 2, 10, 5, 10, 10),
                  "420 at 1/2");
    }
    // A bad region fails its image only; a lossless file with a crop is Unsupported.
    std::vector<std::uint16_t> samples(std::size_t(24) * 16);
    for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = std::uint16_t(i * 5 % 253);
    const auto lossless = tools::ljpeg_encode(samples.data(), 24, 16, 1, {});
    std::vector<Input> inputs(4, Input{file.data(), file.size()});
    inputs[0].crop = {0, 0, 50, 5};
    inputs[1].crop = {3, 4, 20, 10};
    inputs[2] = {lossless.data(), lossless.size()};
    inputs[2].crop = {0, 0, 8, 8};
    BatchErrors errors;
    const auto batch = decoder.decode_batch(inputs, &errors);
    REQUIRE(errors.size() == 4);
    REQUIRE(errors[0]);
    CHECK(errors[0]->code() == ErrorCode::InvalidArgument);
    CHECK(!errors[1]);
    REQUIRE(errors[2]);
    CHECK(errors[2]->code() == ErrorCode::Unsupported);
    CHECK(!errors[3]);
    CHECK(batch[0].width == 0);
    check_equal(batch[1], hetcodec::test::libjpeg_decode_cropped(file, 1, 3, 4, 20, 10), "crop");
    check_equal(batch[3], hetcodec::test::libjpeg_decode_default(file), "whole");
    const auto on_device = decoder.decode_batch_to_device(inputs, &errors);
    CHECK(errors[0]);
    CHECK(!errors[1]);
    CHECK(read_back(device, on_device[1]) == batch[1].pixels);
    Input lossless_in{lossless.data(), lossless.size()};
    lossless_in.crop = {0, 0, 8, 8};
    CHECK_THROWS_AS(decoder.decode(lossless_in), Error);
    CHECK_THROWS_AS(decoder.decode_to_device(lossless_in), Error);
  });
}

// Y, Cb, Cr sampled 4, 2, 1 across: a window 3 or 4 pixels wide leaves Cr one sample wide, so
// jpeg_crop_scanline runs jinit_upsampler again, which picks every component's method anew: Cb,
// two samples wide, loses its fancy filter too.
TEST_CASE("a narrow crop picks every component's upsampling anew, as jpeg_crop_scanline does") {
  EncodeParams p;
  p.h[0] = 4;
  p.h[1] = 2;
  const auto file = hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(70, 20, 9), p);
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one decoder a process there; the others cover it)
    JpegDecoder decoder(borrowed(device));
    for (const Region& r : {Region{32, 2, 3, 9}, Region{33, 0, 3, 20}, Region{0, 5, 4, 7}}) {
      INFO(describe(r));
      Input in{file.data(), file.size()};
      in.crop = r;
      check_equal(decoder.decode(in),
                  hetcodec::test::libjpeg_decode_cropped(file, 1, r.x, r.y, r.width, r.height),
                  "4:2:1 crop " + describe(r));
    }
  });
}

TEST_CASE("crop windows start on libjpeg-turbo's iMCU columns") {
  struct Case {
    const char* name;
    int h, v, components, denom, x, window_x;
  };
  const Case cases[] = {
      {"420", 2, 2, 3, 1, 17, 16}, {"420", 2, 2, 3, 1, 15, 0}, {"444", 1, 1, 3, 1, 15, 8},
      {"411", 4, 1, 3, 1, 33, 32}, {"gray", 1, 1, 1, 1, 9, 8}, {"420", 2, 2, 3, 2, 17, 16},
      {"420", 2, 2, 3, 2, 7, 0},   {"420", 2, 2, 3, 8, 5, 4},  {"gray", 1, 1, 1, 8, 5, 5},
  };
  const Raster photo = hetcodec::test::synthetic_rgb(80, 40, 3);
  for (const Case& c : cases) {
    INFO(c.name << " at 1/" << c.denom << ", x " << c.x);
    const Raster in = c.components == 1 ? hetcodec::test::gray_of(photo) : photo;
    const auto file = hetcodec::test::libjpeg_encode_ex(in, sampled(c.h, c.v));
    const jpeg::Header h = jpeg::parse(file.data(), file.size());
    jpeg::Layout l = jpeg::make_layout(h, c.denom);
    const int w = l.output_width - c.x - 1;
    jpeg::crop_layout(l, h, c.x, 2, w, 3);
    CHECK(l.window_x == c.window_x);
    int oracle_x = -1;
    hetcodec::test::libjpeg_decode_cropped(file, c.denom, c.x, 2, w, 3, &oracle_x);
    CHECK(l.window_x == oracle_x);
    CHECK(l.output_width == w);
    CHECK(l.output_height == 3);
    CHECK(l.crop_x == c.x);
    CHECK(l.crop_y == 2);
  }
}

// Under Oclgrind one decoder in its own process (emulator-jpeg-crop): a few regions of the small
// files as one batch, then each alone. (In that order: Oclgrind's uninitialised-value tracking
// reports a batch's planes as uninitialised once the buffers of smaller single decodes before it
// were released, as test_jpeg_scaled.cpp describes.)
TEST_CASE("cropped jpeg decode: alone under the emulator") {
  test::for_each_device([&](Device& device) {
    if (!device.info().is_emulator || !std::getenv("HETCODEC_TEST_JPEG_CROP_ALONE")) return;
    const std::vector<Sample> samples = crop_corpus(true);
    JpegDecodeOptions options;
    options.threads = 1;
    options.images_per_copy = 8;
    JpegDecoder decoder(borrowed(device), options);
    std::vector<Input> inputs;
    std::vector<Raster> refs;
    std::vector<std::string> names;
    for (const Sample& s : samples) {
      const ImageInfo info = decoder.info(s.bytes.data(), s.bytes.size());
      for (const Region& r : {Region{17, 3, 2, 9}, Region{9, 0, info.width - 10, info.height}}) {
        Input in{s.bytes.data(), s.bytes.size()};
        in.crop = r;
        inputs.push_back(in);
        refs.push_back(
            hetcodec::test::libjpeg_decode_cropped(s.bytes, 1, r.x, r.y, r.width, r.height));
        names.push_back(s.name + " crop " + describe(r));
      }
    }
    const auto batch = decoder.decode_batch(inputs);
    REQUIRE(batch.size() == inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) check_equal(batch[i], refs[i], names[i]);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      check_equal(decoder.decode(inputs[i]), refs[i], names[i] + " alone");
  });
}

#ifdef HETCODEC_TEST_CLI
TEST_CASE("hetcodec decode --crop WxH+X+Y writes libjpeg-turbo's pixels of the region") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("hetcodec-cli-crop-" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto cli = [](const std::string& args) {
    return hetcodec::test::run_command(HETCODEC_TEST_CLI, args);
  };
  const std::string data = std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/";
  const std::string colour = data + "testorig.jpg";  // 227 x 149, 4:2:0
  struct Case {
    int denom;
    Region r;
  };
  for (const Case& c : {Case{1, {37, 21, 100, 50}}, Case{1, {226, 0, 1, 149}},
                        Case{2, {9, 3, 40, 30}}, Case{8, {5, 1, 20, 10}}}) {
    const std::string out = (dir / "out.ppm").string();
    const std::string log = cli("-d cpu decode --scale 1/" + std::to_string(c.denom) + " --crop " +
                                describe(c.r) + " " + colour + " " + out);
    INFO(describe(c.r) << " at 1/" << c.denom << ": " << log);
    REQUIRE(log.find("exit 0") != std::string::npos);
    const Raster ref = hetcodec::test::libjpeg_decode_cropped(
        hetcodec::test::read_test_file(colour), c.denom, c.r.x, c.r.y, c.r.width, c.r.height);
    const std::string magic =
        "P6\n" + std::to_string(ref.width) + " " + std::to_string(ref.height) + "\n255\n";
    const auto written = hetcodec::test::read_test_file(out);
    REQUIRE(written.size() == magic.size() + ref.samples.size());
    CHECK(std::string(written.begin(), written.begin() + std::ptrdiff_t(magic.size())) == magic);
    CHECK(std::equal(ref.samples.begin(), ref.samples.end(),
                     written.begin() + std::ptrdiff_t(magic.size())));
  }
  // Bad regions: malformed ones before any file is read; one outside the image fails it.
  for (const char* bad :
       {"10x10", "0x5+1+1", "5x0+0+0", "10x10+-1+0", "axb+1+1", "10x10+1+1x", "70000x5+0+0"}) {
    const std::string log = cli("-d cpu decode --crop " + std::string(bad) + " " + colour + " " +
                                (dir / "bad.ppm").string());
    INFO(bad << ": " << log);
    CHECK(log.find("--crop " + std::string(bad)) != std::string::npos);
    CHECK(log.find("WxH+X+Y") != std::string::npos);
    CHECK(log.find("exit 0") == std::string::npos);
    CHECK(!fs::exists(dir / "bad.ppm"));
  }
  {
    const std::string log =
        cli("-d cpu decode --crop 10x10+220+0 " + colour + " " + (dir / "bad.ppm").string());
    INFO(log);
    CHECK(log.find("10x10+220+0 is not inside the 227x149 output") != std::string::npos);
    CHECK(log.find("exit 0") == std::string::npos);
    CHECK(!fs::exists(dir / "bad.ppm"));
  }
  const std::string png = std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/pngsuite/basn2c08.png";
  const std::string log =
      cli("-d cpu decode --crop 4x4+0+0 " + png + " " + (dir / "png.ppm").string());
  INFO(log);
  CHECK(log.find("crops JPEG files only") != std::string::npos);
  CHECK(log.find("exit 0") == std::string::npos);
  const std::string help = cli("decode --help");
  CHECK(help.find("--crop") != std::string::npos);
  CHECK(help.find("djpeg -crop WxH+X+Y") != std::string::npos);
  fs::remove_all(dir);
}
#endif
