// JpegEncoder on every device (DESIGN.md §4 "JPEG encode"): whole files equal to libjpeg-turbo's
// through its C API (jpeg_set_quality(q, TRUE), JDCT_ISLOW, the same sampling, restart interval
// and optimize_coding) for the device's Huffman coding and the host's, from host images, raw
// layouts (BGR, RGBA, gray + alpha) and device-resident images; bad arguments are Errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "hetcodec/hetcodec.h"
#include "host/src/pinned_registry.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

namespace {

Image image_of(const test::Raster& r) {
  Image img;
  img.width = r.width;
  img.height = r.height;
  img.format = r.components == 1 ? PixelFormat::Gray : PixelFormat::RGB;
  img.pixels = r.samples;
  return img;
}

// The rasters' samples in one new buffer of `device`, each at a 16-byte boundary past the last,
// as DeviceImages; the buffer's size in *total.
std::vector<DeviceImage> upload_all(Device& device, const std::vector<const test::Raster*>& rs,
                                    std::size_t* total = nullptr) {
  std::size_t size = 0;
  std::vector<std::size_t> at;
  for (const auto* r : rs) {
    at.push_back(size);
    size = (size + r->samples.size() + 31) / 16 * 16;
  }
  std::shared_ptr<DeviceBuffer> buffer(device.alloc(size));
  auto queue = device.create_queue();
  std::vector<DeviceImage> images;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    queue->write(*buffer, at[i], rs[i]->samples.data(), rs[i]->samples.size());
    DeviceImage d;
    d.width = rs[i]->width;
    d.height = rs[i]->height;
    d.format = image_of(*rs[i]).format;
    d.buffer = buffer;
    d.offset = at[i];
    images.push_back(d);
  }
  queue->finish();
  if (total) *total = size;
  return images;
}

test::Raster gray_of(const test::Raster& rgb) {
  test::Raster g{rgb.width, rgb.height, 1, {}};
  for (std::size_t i = 0; i < rgb.samples.size(); i += 3)
    g.samples.push_back(std::uint8_t((rgb.samples[i] * 3 + rgb.samples[i + 1] * 5) / 8));
  return g;
}

struct Case {
  JpegSampling sampling;
  int h, v;
};
const Case kSamplings[] = {{JpegSampling::S420, 2, 2},
                           {JpegSampling::S422, 2, 1},
                           {JpegSampling::S440, 1, 2},
                           {JpegSampling::S444, 1, 1}};

std::vector<std::uint8_t> oracle(const test::Raster& r, const JpegEncodeOptions& o, int h, int v) {
  test::EncodeParams p;
  p.quality = o.quality;
  if (r.components == 3) {
    p.h[0] = h;
    p.v[0] = v;
  }
  p.restart_blocks = o.restart_interval;
  p.restart_rows = o.restart_rows;
  p.optimize = o.optimize;
  p.grayscale = r.components == 3 && o.sampling == JpegSampling::Gray;
  return test::libjpeg_encode_ex(r, p);
}

}  // namespace

// Under Oclgrind each encode runs in a process of its own (the emulator-jpeg-encode tests,
// HETCODEC_TEST_JPEG_ENCODE_ALONE=1 or 2): its uninitialised-value tracking reports freshly
// written buffers as uninitialised once buffers have been released and others allocated in the
// same process (as for the PNG device deflate, test_png_backend.cpp); the encoder's buffers
// grow between images. Case 1: a batch of three in one launch (colour and gray, 4:2:0 with
// partial MCUs, restarts and optimised tables on the device); case 2: 4:2:2 with the host's
// Huffman coding and a restart per MCU row; case 3: gray 272x272 with a restart every MCU, whose
// blocks' scan takes several work-groups (each adding up the aggregates the tickets before it
// published, the last setting the packed size).
TEST_CASE("jpeg encode: one encode alone under the emulator") {
  const char* alone = std::getenv("HETCODEC_TEST_JPEG_ENCODE_ALONE");
  test::for_each_device([&](Device& device) {
    if (!device.info().is_emulator || !alone) return;
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    if (std::string(alone) == "3") {
      const test::Raster gray = gray_of(test::synthetic_rgb(272, 272, 7));
      JpegEncodeOptions o;
      o.sampling = JpegSampling::Gray;
      o.restart_interval = 1;
      o.batch_streams = 1;
      JpegEncoder encoder(shared, o);
      CHECK(encoder.encode(image_of(gray)) == oracle(gray, o, 1, 1));
      return;
    }
    const bool first = std::string(alone) == "1";
    const test::Raster rgb = test::synthetic_rgb(first ? 37 : 30, first ? 21 : 17, 11);
    JpegEncodeOptions o;
    o.quality = first ? 80 : 95;
    o.sampling = first ? JpegSampling::S420 : JpegSampling::S422;
    o.restart_interval = first ? 2 : 0;
    o.restart_rows = first ? 0 : 1;
    o.optimize = first;
    o.entropy = first ? JpegEntropy::Device : JpegEntropy::Host;
    o.batch_streams = 1;
    JpegEncoder encoder(shared, o);
    if (!first) {
      CHECK(encoder.encode(image_of(rgb)) == oracle(rgb, o, 2, 1));
      return;
    }
    const test::Raster gray = gray_of(test::synthetic_rgb(9, 5, 3));
    const test::Raster small = test::synthetic_rgb(16, 16, 5);
    const auto files = encoder.encode_batch({image_of(rgb), image_of(gray), image_of(small)});
    REQUIRE(files.size() == 3);
    CHECK(files[0] == oracle(rgb, o, 2, 2));
    CHECK(files[1] == oracle(gray, o, 1, 1));
    CHECK(files[2] == oracle(small, o, 2, 2));
  });
}

TEST_CASE("jpeg encode: files equal libjpeg-turbo's on every device") {
  const std::pair<int, int> sizes[] = {{1, 1}, {17, 9}, {33, 47}, {64, 64}, {97, 31}, {250, 130}};
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one encode per process there: above)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    for (JpegEntropy entropy : {JpegEntropy::Device, JpegEntropy::Host}) {
      JpegEncodeOptions o;
      o.entropy = entropy;
      JpegEncoder encoder(shared, o);
      int checked = 0;
      for (const auto& [w, h] : sizes) {
        const test::Raster rgb = test::synthetic_rgb(w, h, unsigned(w * 31 + h));
        for (const Case& s : kSamplings)
          for (int q : {10, 75, 95, 100})
            for (int restart : {0, 1, 5}) {
              o.quality = q;
              o.sampling = s.sampling;
              o.restart_interval = restart;
              o.optimize = (q + restart) % 2 == 1;
              encoder.set_options(o);
              CAPTURE(w);
              CAPTURE(h);
              CAPTURE(s.h);
              CAPTURE(s.v);
              CAPTURE(q);
              CAPTURE(restart);
              CAPTURE(o.optimize);
              CAPTURE(int(entropy));
              const auto ours = encoder.encode(image_of(rgb));
              const auto theirs = oracle(rgb, o, s.h, s.v);
              REQUIRE(ours.size() == theirs.size());
              CHECK(ours == theirs);
              ++checked;
            }
        // Gray input, and gray output from colour input, restarts in rows.
        const test::Raster gray = gray_of(rgb);
        for (int rows : {0, 2}) {
          o.quality = 85;
          o.sampling = JpegSampling::S420;
          o.restart_interval = 0;
          o.restart_rows = rows;
          o.optimize = rows == 2;
          encoder.set_options(o);
          CAPTURE(rows);
          CHECK(encoder.encode(image_of(gray)) == oracle(gray, o, 1, 1));
          o.sampling = JpegSampling::Gray;  // the luma alone, as cjpeg -grayscale
          encoder.set_options(o);
          const auto ours = encoder.encode(image_of(rgb));
          CHECK(ours == oracle(rgb, o, 1, 1));
          o.restart_rows = 0;
          checked += 2;
        }
      }
      CHECK(checked > 20);
    }
  });
}

// Images large enough that the scans take many work-groups (each adding up the aggregates of
// the tickets before it in runs), with noise so that the packed data holds many 0xFF bytes,
// with and without restarts (the blocks' scan padding each interval to a byte).
TEST_CASE("jpeg encode: scans of many work-groups give libjpeg-turbo's files") {
  test::Raster rgb = test::synthetic_rgb(1200, 900, 5);
  std::uint32_t x = 12345;
  for (auto& v : rgb.samples) {
    x = x * 1664525u + 1013904223u;
    v = std::uint8_t(v ^ (x >> 24 & 0x3F));
  }
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (too slow there; case 3 above takes two groups)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegEncodeOptions o;
    o.entropy = JpegEntropy::Device;
    o.quality = 100;
    o.sampling = JpegSampling::S444;
    JpegEncoder encoder(shared, o);
    for (int restart : {0, 3})
      for (bool optimize : {false, true}) {
        o.restart_interval = restart;
        o.optimize = optimize;
        encoder.set_options(o);
        CAPTURE(restart);
        CAPTURE(optimize);
        const auto ours = encoder.encode(image_of(rgb));
        const auto theirs = oracle(rgb, o, 1, 1);
        REQUIRE(ours.size() == theirs.size());
        CHECK(ours == theirs);
      }
  });
}

TEST_CASE("jpeg encode: raw layouts and device-resident images give the RGB image's file") {
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one encode per process there)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    const int w = 45, h = 29;
    const test::Raster rgb = test::synthetic_rgb(w, h, 7);
    JpegEncodeOptions o;
    o.quality = 90;
    o.restart_interval = 2;
    JpegEncoder encoder(shared, o);
    const auto want = oracle(rgb, o, 2, 2);
    std::vector<std::uint8_t> bgr, rgba, bgra;
    for (std::size_t i = 0; i < rgb.samples.size(); i += 3) {
      const std::uint8_t r = rgb.samples[i], g = rgb.samples[i + 1], b = rgb.samples[i + 2];
      bgr.insert(bgr.end(), {b, g, r});
      rgba.insert(rgba.end(), {r, g, b, std::uint8_t(i)});
      bgra.insert(bgra.end(), {b, g, r, 0x80});
    }
    CHECK(encoder.encode(bgr.data(), bgr.size(), w, h, JpegPixels::BGR) == want);
    CHECK(encoder.encode(rgba.data(), rgba.size(), w, h, JpegPixels::RGBA) == want);
    CHECK(encoder.encode(bgra.data(), bgra.size(), w, h, JpegPixels::BGRA) == want);
    const test::Raster gray = gray_of(rgb);
    std::vector<std::uint8_t> ga;
    for (std::uint8_t v : gray.samples) ga.insert(ga.end(), {v, std::uint8_t(255 - v)});
    CHECK(encoder.encode(ga.data(), ga.size(), w, h, JpegPixels::GrayAlpha) ==
          oracle(gray, o, 1, 1));

    // An image left on the device by the decoder, at an offset inside a larger buffer.
    JpegDecoder decoder(shared);
    const auto source = test::libjpeg_encode_ex(rgb, test::EncodeParams{});
    const DeviceImage on_device = decoder.decode_to_device(source.data(), source.size());
    const test::Raster decoded = test::libjpeg_decode(source, true);
    CHECK(encoder.encode(on_device) == oracle(decoded, o, 2, 2));
    auto big = device.alloc(rgb.samples.size() + 4096);
    auto queue = device.create_queue();
    queue->write(*big, 1000, rgb.samples.data(), rgb.samples.size());
    queue->finish();
    DeviceImage at_offset;
    at_offset.width = w;
    at_offset.height = h;
    at_offset.format = PixelFormat::RGB;
    at_offset.buffer = std::shared_ptr<DeviceBuffer>(std::move(big));
    at_offset.offset = 1000;
    CHECK(encoder.encode(at_offset) == want);
  });
}

TEST_CASE("jpeg encode: bad arguments are errors naming them") {
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (the checks are the host's; one encode there)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegEncoder encoder(shared);
    auto code_of = [](auto&& call) {
      try {
        call();
      } catch (const Error& e) {
        return e.code();
      }
      return ErrorCode::InvalidData;  // no error: not what any case expects
    };
    Image img;
    img.width = 0;
    img.height = 4;
    CHECK(code_of([&] { encoder.encode(img); }) == ErrorCode::InvalidArgument);
    img.width = 70000;
    img.height = 1;
    img.format = PixelFormat::Gray;
    img.pixels.assign(70000, 0);
    CHECK(code_of([&] { encoder.encode(img); }) == ErrorCode::InvalidArgument);
    img.width = 10;
    img.height = 10;
    img.pixels.assign(99, 0);  // one byte short
    CHECK(code_of([&] { encoder.encode(img); }) == ErrorCode::InvalidArgument);
    img.format = PixelFormat::CMYK;
    img.pixels.assign(400, 0);
    CHECK(code_of([&] { encoder.encode(img); }) == ErrorCode::InvalidArgument);
    img.format = PixelFormat::RGB;
    img.bit_depth = 16;
    img.pixels.assign(600, 0);
    CHECK(code_of([&] { encoder.encode(img); }) == ErrorCode::InvalidArgument);
    const std::vector<std::uint8_t> px(300, 7);
    CHECK(code_of([&] { encoder.encode(px.data(), 299, 10, 10, JpegPixels::RGB); }) ==
          ErrorCode::InvalidArgument);
    CHECK(code_of([&] { encoder.encode(px.data(), 300, 10, 10, JpegPixels(42)); }) ==
          ErrorCode::InvalidArgument);
    JpegEncodeOptions o;
    for (int q : {0, 101, -5}) {
      o.quality = q;
      CHECK(code_of([&] { encoder.set_options(o); }) == ErrorCode::InvalidArgument);
    }
    o.quality = 75;
    o.sampling = JpegSampling(9);
    CHECK(code_of([&] { encoder.set_options(o); }) == ErrorCode::InvalidArgument);
    o.sampling = JpegSampling::S420;
    o.restart_interval = 65536;
    CHECK(code_of([&] { encoder.set_options(o); }) == ErrorCode::InvalidArgument);
    o.restart_interval = 0;
    o.quant_tables.assign(1, {});
    CHECK(code_of([&] { encoder.set_options(o); }) == ErrorCode::InvalidArgument);
    // The encoder still works after every refusal.
    const test::Raster rgb = test::synthetic_rgb(20, 20, 3);
    CHECK(encoder.encode(image_of(rgb)) == oracle(rgb, encoder.options(), 2, 2));
  });
}

TEST_CASE("jpeg encode: a batch on several streams gives each image's file and its errors") {
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one encode per process there)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegEncodeOptions o;
    o.quality = 88;
    o.batch_streams = 3;
    o.restart_rows = 1;
    JpegEncoder encoder(shared, o);
    std::vector<Image> images;
    std::vector<std::vector<std::uint8_t>> want;
    for (int i = 0; i < 11; ++i) {
      const test::Raster rgb = test::synthetic_rgb(20 + 13 * i, 9 + 7 * i, unsigned(i));
      images.push_back(image_of(rgb));
      want.push_back(oracle(rgb, o, 2, 2));
    }
    images[4].pixels.pop_back();  // a wrong size: that image alone fails
    images[7].metadata.exif.assign(70000, 1);  // EXIF no APP1 holds: that one too
    BatchErrors errors;
    const auto files = encoder.encode_batch(images, &errors);
    REQUIRE(files.size() == images.size());
    REQUIRE(errors.size() == images.size());
    for (std::size_t i = 0; i < images.size(); ++i) {
      CAPTURE(i);
      if (i == 4 || i == 7) {
        REQUIRE(errors[i].has_value());
        CHECK(errors[i]->code() == ErrorCode::InvalidArgument);
        CHECK(files[i].empty());
      } else {
        CHECK(!errors[i].has_value());
        CHECK(files[i] == want[i]);
      }
    }
    // Without `errors` the failure is thrown, naming the image.
    try {
      encoder.encode_batch(images);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("image 4") != std::string::npos);
    }
  });
}

TEST_CASE("jpeg encode: batches share launches, each image's file libjpeg-turbo's") {
  // Colour and gray images of odd sizes mixed in launches of several images (their blocks,
  // restart intervals and packed bytes numbered across the launch), from the host and from the
  // device, with and without restarts and optimised tables, both Huffman codings.
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one encode per process there: above)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    std::vector<test::Raster> rasters;
    const std::pair<int, int> sizes[] = {{1, 1},  {17, 9},  {8, 8},  {33, 47}, {2, 70},
                                         {70, 2}, {97, 31}, {16, 16}, {250, 13}};
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
      const test::Raster rgb =
          test::synthetic_rgb(sizes[i].first, sizes[i].second, unsigned(i * 7 + 1));
      rasters.push_back(i % 3 == 1 ? gray_of(rgb) : rgb);
    }
    std::vector<Image> images;
    for (const auto& r : rasters) images.push_back(image_of(r));
    // The same samples in one device buffer.
    std::vector<const test::Raster*> all;
    for (const auto& r : rasters) all.push_back(&r);
    std::size_t total = 0;
    std::vector<DeviceImage> on_device = upload_all(device, all, &total);
    struct Setting {
      JpegSampling sampling;
      int h, v, restart, rows;
      bool optimize;
      JpegEntropy entropy;
      int per, streams;
    };
    const Setting settings[] = {
        {JpegSampling::S420, 2, 2, 0, 0, false, JpegEntropy::Device, 0, 2},
        {JpegSampling::S422, 2, 1, 3, 0, true, JpegEntropy::Device, 4, 2},
        {JpegSampling::S444, 1, 1, 0, 1, true, JpegEntropy::Device, 9, 1},
        {JpegSampling::S440, 1, 2, 1, 0, false, JpegEntropy::Device, 5, 3},
        {JpegSampling::S420, 2, 2, 2, 0, true, JpegEntropy::Host, 4, 2},
        {JpegSampling::Gray, 1, 1, 0, 2, false, JpegEntropy::Device, 3, 2},
    };
    for (const Setting& st : settings) {
      JpegEncodeOptions o;
      o.quality = 83;
      o.sampling = st.sampling;
      o.restart_interval = st.restart;
      o.restart_rows = st.rows;
      o.optimize = st.optimize;
      o.entropy = st.entropy;
      o.batch_images = st.per;
      o.batch_streams = st.streams;
      JpegEncoder encoder(shared, o);
      CAPTURE(st.h);
      CAPTURE(st.v);
      CAPTURE(st.per);
      const auto from_host = encoder.encode_batch(images);
      const auto from_device = encoder.encode_batch(on_device);
      REQUIRE(from_host.size() == rasters.size());
      REQUIRE(from_device.size() == rasters.size());
      for (std::size_t i = 0; i < rasters.size(); ++i) {
        CAPTURE(i);
        const bool gray = rasters[i].components == 1;
        const auto want = oracle(rasters[i], o, gray ? 1 : st.h, gray ? 1 : st.v);  // (Gray: 1, 1)
        CHECK(from_host[i] == want);
        CHECK(from_device[i] == want);
      }
    }
    // A device image past its buffer fails its checks alone, before any launch; the images
    // around it are coded.
    JpegEncodeOptions o;
    o.batch_images = 4;
    JpegEncoder encoder(shared, o);
    on_device[2].offset = total;
    BatchErrors errors;
    const auto files = encoder.encode_batch(on_device, &errors);
    REQUIRE(errors.size() == on_device.size());
    for (std::size_t i = 0; i < on_device.size(); ++i) {
      CAPTURE(i);
      CHECK(errors[i].has_value() == (i == 2));
      const bool gray = rasters[i].components == 1;
      if (i != 2) CHECK(files[i] == oracle(rasters[i], o, gray ? 1 : 2, gray ? 1 : 2));
    }
  });
}

TEST_CASE("jpeg encode: real photos equal libjpeg-turbo's on every device") {
  // The demo photos (tools/demo-images: scikit-image's test photos, gray and colour), decoded by
  // libjpeg-turbo, then encoded by both with several settings.
  const std::filesystem::path dir =
      std::filesystem::path(HETCODEC_TEST_SOURCE_DIR) / ".." / "tools" / "demo-images";
  std::vector<test::Raster> photos;
  for (const char* name : {"astronaut-420.jpg", "camera-gray.jpg", "coffee-422.jpg"}) {
    std::ifstream f(dir / name, std::ios::binary);
    REQUIRE_MESSAGE(f.good(), "cannot read " << (dir / name));
    const std::vector<std::uint8_t> bytes(std::istreambuf_iterator<char>(f), {});
    photos.push_back(test::libjpeg_decode_default(bytes));
  }
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one encode per process there)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegEncoder encoder(shared);
    for (const test::Raster& photo : photos)
      for (int k = 0; k < 3; ++k) {
        JpegEncodeOptions o;
        o.quality = k == 0 ? 75 : (k == 1 ? 92 : 50);
        o.sampling = k == 1 ? JpegSampling::S444 : JpegSampling::S420;
        o.optimize = k == 2;
        o.restart_rows = k == 2 ? 3 : 0;
        o.entropy = k == 1 ? JpegEntropy::Host : JpegEntropy::Auto;
        encoder.set_options(o);
        CAPTURE(photo.width);
        CAPTURE(photo.components);
        CAPTURE(k);
        const int h = photo.components == 3 && k != 1 ? 2 : 1;
        CHECK(encoder.encode(image_of(photo)) == oracle(photo, o, h, h));
      }
  });
}

// Under a small largest allocation (the backend-max-alloc test sets HETCODEC_MAX_ALLOC to
// 4 MiB): a launch of several images whose buffers go over it is tried again image by image, so
// every image that fits alone is coded, and an image too large alone fails by itself.
TEST_CASE("jpeg encode: a batch over the device's largest allocation is retried image by image") {
  test::for_each_device([](Device& device) {
    const std::uint64_t limit = device.info().max_alloc_bytes;
    if (limit > (4u << 20) || device.info().is_emulator) {
      MESSAGE(device.info().spec << ": largest allocation " << limit
                                 << " bytes; run with HETCODEC_MAX_ALLOC=4194304 to test the "
                                    "retry (the backend-max-alloc test does)");
      return;
    }
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    // Eight 256x256 images in one buffer (1.5 MiB), one launch at 4:4:4: 24576 blocks, whose
    // room for packed data (some 5 MiB) is over the limit, where an image's alone is 0.6 MiB.
    // And one 1024x1024 image in a buffer of its own, whose blocks alone take 6 MiB.
    std::vector<test::Raster> rasters;
    for (unsigned i = 0; i < 8; ++i) rasters.push_back(test::synthetic_rgb(256, 256, 40 + i));
    const test::Raster big = test::synthetic_rgb(1024, 1024, 7);
    std::vector<const test::Raster*> small;
    for (const auto& r : rasters) small.push_back(&r);
    std::vector<DeviceImage> images = upload_all(device, small);
    images.push_back(upload_all(device, {&big})[0]);
    JpegEncodeOptions o;
    o.quality = 85;
    o.sampling = JpegSampling::S444;
    o.entropy = JpegEntropy::Device;
    o.batch_images = 8;
    o.batch_streams = 1;
    JpegEncoder encoder(shared, o);
    BatchErrors errors;
    const auto files = encoder.encode_batch(images, &errors);
    REQUIRE(files.size() == 9);
    REQUIRE(errors.size() == 9);
    for (std::size_t i = 0; i < 8; ++i) {
      CAPTURE(i);
      CHECK(!errors[i].has_value());
      CHECK(files[i] == oracle(rasters[i], o, 1, 1));
    }
    REQUIRE(errors[8].has_value());
    CHECK(errors[8]->code() == ErrorCode::LimitExceeded);
    CHECK(files[8].empty());
  });
}

// A launch whose room for packed data (the bound of 1681 bits a block) would pass 64 MiB reads
// the packed size back before packing instead: one 2720x2560 image at 4:4:4 (326400 blocks, a
// bound of 68.6 MB) takes that path, with and without restarts.
TEST_CASE(
    "jpeg encode: an image past the packed-size bound's room equals libjpeg-turbo's [large]") {
  test::for_each_device([](Device& device) {
    if (device.info().is_emulator) return;  // (hours there)
    if (device.info().max_alloc_bytes < (256u << 20)) return;  // (the limit's own test: above)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    const test::Raster rgb = test::synthetic_rgb(2720, 2560, 23);
    for (const int restart : {0, 7}) {
      JpegEncodeOptions o;
      o.quality = 92;
      o.sampling = JpegSampling::S444;
      o.restart_interval = restart;
      o.entropy = JpegEntropy::Device;
      JpegEncoder encoder(shared, o);
      CAPTURE(restart);
      CHECK(encoder.encode(image_of(rgb)) == oracle(rgb, o, 1, 1));
    }
  });
}

// The encoder reads an image's data in the same wait as its sizes, as many bytes as the image
// before foretells, and the rest after it: a flat image after noise (foretold too many), noise
// after a flat image (too few, the host's buffer for them made anew), each file libjpeg-turbo's.
TEST_CASE("jpeg encode: data read as foretold by the image before, too many or too few") {
  auto flat = [](int w, int h) {
    return test::Raster{w, h, 3, std::vector<std::uint8_t>(w * h * 3, 77)};
  };
  auto noise = [](int w, int h, unsigned seed) {
    test::Raster r{w, h, 3, std::vector<std::uint8_t>(std::size_t(w) * h * 3)};
    for (auto& v : r.samples) v = std::uint8_t((seed = seed * 1103515245u + 12345u) >> 23);
    return r;
  };
  const test::Raster images[] = {noise(64, 48, 1), flat(300, 200),      noise(96, 80, 2),
                                 flat(40, 40),     noise(1024, 768, 3), noise(320, 240, 4)};
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one encode per process there)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegEncodeOptions o;
    o.quality = 97;
    o.entropy = JpegEntropy::Device;
    JpegEncoder encoder(shared, o);
    std::vector<const test::Raster*> rs;
    for (const test::Raster& r : images) rs.push_back(&r);
    const std::vector<DeviceImage> on_device = upload_all(device, rs);
    for (std::size_t i = 0; i < rs.size(); ++i) {  // (from the device: no staging of samples)
      CAPTURE(i);
      CHECK(encoder.encode(on_device[i]) == oracle(*rs[i], o, 2, 2));
    }
  });
}

// One image of 4 MiB or more from the host goes up in parts on a queue of its own while the
// bands of MCU rows that have arrived are made into blocks: odd sizes, every MCU height, with
// and without restarts, each file libjpeg-turbo's.
TEST_CASE("jpeg encode: a large host image made into blocks band by band as it arrives [large]") {
  const test::Raster rgb = test::synthetic_rgb(1501, 1003, 29);  // (4.5 MB)
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one encode per process there)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    for (const Case& c : kSamplings) {
      JpegEncodeOptions o;
      o.quality = 85;
      o.sampling = c.sampling;
      o.restart_rows = c.v == 2 ? 3 : 0;
      JpegEncoder encoder(shared, o);
      CAPTURE(c.h);
      CAPTURE(c.v);
      CHECK(encoder.encode(image_of(rgb)) == oracle(rgb, o, c.h, c.v));
    }
  });
}

// Samples in pinned memory of alloc_pinned's are found there and sent straight from it (a large
// image in parts, its bands made into blocks as they arrive; the images of a raw batch, beside
// pageable ones and a bad one); each file libjpeg-turbo's. A freed buffer is no longer found.
TEST_CASE("jpeg encode: raw pixels in pinned memory go straight from it [large]") {
  const test::Raster large = test::synthetic_rgb(1501, 1003, 31);  // (4.5 MB: banded)
  const test::Raster small = test::synthetic_rgb(67, 45, 3), other = test::synthetic_rgb(16, 9, 4);
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (one encode per process there)
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    CHECK_THROWS_AS(alloc_pinned(nullptr, 64), Error);
    CHECK_THROWS_AS(alloc_pinned(shared, 0), Error);
    std::shared_ptr<PinnedBuffer> buf = alloc_pinned(shared, large.samples.size() + 8192);
    {
      const detail::PinnedPlace found = detail::find_pinned(device, buf->data() + 100, 1000);
      CHECK(found.buffer == buf);  // (which it holds while it lives)
      CHECK(found.offset == 100);
    }
    CHECK_FALSE(detail::find_pinned(device, buf->data() + buf->size() - 10, 11).buffer);
    CHECK_FALSE(detail::find_pinned(device, small.samples.data(), 10).buffer);

    JpegEncodeOptions o;
    o.quality = 88;
    JpegEncoder encoder(shared, o);
    std::memcpy(buf->data(), large.samples.data(), large.samples.size());
    CHECK(encoder.encode(buf->data(), large.samples.size(), large.width, large.height,
                         JpegPixels::RGB) == oracle(large, o, 2, 2));
    std::uint8_t* at = buf->data() + 4001;  // (not aligned)
    std::memcpy(at, small.samples.data(), small.samples.size());
    CHECK(encoder.encode(at, small.samples.size(), small.width, small.height, JpegPixels::RGB) ==
          oracle(small, o, 2, 2));
    std::memcpy(at + 70000, other.samples.data(), other.samples.size());
    BatchErrors errors;
    const auto files = encoder.encode_batch(
        {{at, small.samples.size(), small.width, small.height, JpegPixels::RGB},
         {other.samples.data(), other.samples.size(), other.width, other.height, JpegPixels::RGB},
         {at + 70000, other.samples.size() - 1, other.width, other.height, JpegPixels::RGB},
         {at + 70000, other.samples.size(), other.width, other.height, JpegPixels::RGB}},
        &errors);
    REQUIRE(files.size() == 4);
    CHECK(files[0] == oracle(small, o, 2, 2));
    CHECK(files[1] == oracle(other, o, 2, 2));
    CHECK(files[2].empty());
    REQUIRE(errors[2]);
    CHECK(errors[2]->code() == ErrorCode::InvalidArgument);
    CHECK(files[3] == oracle(other, o, 2, 2));
    // A batch all in the pinned buffer, one after another with small gaps (kept as they lie,
    // one transfer), then the same images in the other order (not).
    std::uint8_t* run = buf->data() + 200000;
    const std::size_t a = small.samples.size(), b = other.samples.size();
    std::memcpy(run, small.samples.data(), a);
    std::memcpy(run + a + 40, other.samples.data(), b);
    std::memcpy(run + a + 40 + b + 7, small.samples.data(), a);
    const std::vector<JpegRawImage> in_order = {
        {run, a, small.width, small.height, JpegPixels::RGB},
        {run + a + 40, b, other.width, other.height, JpegPixels::RGB},
        {run + a + 40 + b + 7, a, small.width, small.height, JpegPixels::RGB}};
    JpegEncodeOptions one_launch = o;
    one_launch.batch_streams = 1;  // (the three in one launch)
    JpegEncoder together(shared, one_launch);
    for (const bool reversed : {false, true}) {
      CAPTURE(reversed);
      std::vector<JpegRawImage> batch = in_order;
      if (reversed) std::reverse(batch.begin(), batch.end());
      const auto got = together.encode_batch(batch);
      REQUIRE(got.size() == 3);
      CHECK(got[0] == oracle(small, o, 2, 2));
      CHECK(got[1] == oracle(other, o, 2, 2));
      CHECK(got[2] == oracle(small, o, 2, 2));
    }
    const std::uint8_t* gone = buf->data();
    buf.reset();
    CHECK_FALSE(detail::find_pinned(device, gone, 1).buffer);
  });
}
