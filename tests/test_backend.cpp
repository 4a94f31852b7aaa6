// Backend tests: every test body runs on every device the machine has (test_devices()), and
// kernels must give identical bytes everywhere and match the oracle library.
#include <doctest/doctest.h>

#include <cstring>
#include <map>

#include "backends/backend.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
using hetcodec::test::for_each_device;
using hetcodec::test::random_bytes;

TEST_CASE("buffers round-trip: pageable, pinned and device-to-device, at odd sizes and offsets") {
  for_each_device([](Device& device) {
    auto queue = device.create_queue();
    for (std::size_t n : {std::size_t(1), std::size_t(4099), std::size_t(3) << 20}) {
      INFO("size " << n);
      auto src = random_bytes(n, static_cast<unsigned>(n));
      auto a = device.alloc(n + 16);
      auto b = device.alloc(n + 16);
      CHECK(a->size() == n + 16);

      // pageable in at offset 5, device copy to offset 11, pageable out
      queue->write(*a, 5, src.data(), n);
      queue->copy(*b, 11, *a, 5, n);
      std::vector<unsigned char> out(n, 0xA5);
      queue->read(out.data(), *b, 11, n);
      CHECK(out == src);

      // pinned in, pinned out, asynchronous until finish()
      auto pin_in = device.alloc_pinned(n);
      auto pin_out = device.alloc_pinned(n);
      REQUIRE(pin_in->data() != nullptr);
      CHECK(pin_in->size() == n);
      std::memcpy(pin_in->data(), src.data(), n);
      std::memset(pin_out->data(), 0x5A, n);
      queue->write(*a, 0, *pin_in, 0, n);
      queue->read(*pin_out, 0, *a, 0, n);
      queue->finish();
      CHECK(std::memcmp(pin_out->data(), src.data(), n) == 0);
    }
  });
}

TEST_CASE("pinned buffers are reusable across many transfers (allocated once)") {
  for_each_device([](Device& device) {
    auto queue = device.create_queue();
    const std::size_t n = 64 << 10;
    auto pinned = device.alloc_pinned(n);
    auto dev = device.alloc(n);
    std::vector<unsigned char> back(n);
    for (unsigned round = 0; round < 8; ++round) {
      auto src = random_bytes(n, round + 100);
      std::memcpy(pinned->data(), src.data(), n);
      queue->write(*dev, 0, *pinned, 0, n);
      queue->finish();
      queue->read(back.data(), *dev, 0, n);
      CHECK(back == src);
    }
  });
}

TEST_CASE("events order work across two queues of one device") {
  for_each_device([](Device& device) {
    auto q1 = device.create_queue();
    auto q2 = device.create_queue();
    const std::size_t n = 1 << 20;
    auto src = random_bytes(n, 7);
    auto pinned = device.alloc_pinned(n);
    auto pinned_back = device.alloc_pinned(n);
    std::memcpy(pinned->data(), src.data(), n);
    auto buf = device.alloc(n);
    q1->write(*buf, 0, *pinned, 0, n);
    auto written = q1->record();
    q2->wait_for(*written);
    q2->read(*pinned_back, 0, *buf, 0, n);
    auto done = q2->record();
    done->wait();
    CHECK(std::memcmp(pinned_back->data(), src.data(), n) == 0);
  });
}

TEST_CASE("out-of-range transfers are refused with InvalidArgument, zero-sized ones are fine") {
  for_each_device([](Device& device) {
    auto queue = device.create_queue();
    auto buf = device.alloc(100);
    std::vector<unsigned char> host(200);
    CHECK_THROWS_AS(queue->write(*buf, 90, host.data(), 11), Error);
    CHECK_THROWS_AS(queue->read(host.data(), *buf, 101, 0), Error);
    CHECK_THROWS_AS(queue->copy(*buf, 0, *buf, 50, 51), Error);
    try {
      queue->write(*buf, 0, host.data(), 101);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidArgument);
    }
    queue->write(*buf, 100, host.data(), 0);
    auto empty = device.alloc(0);
    CHECK(empty->size() == 0);
    queue->read(host.data(), *empty, 0, 0);
    queue->finish();
  });
}

TEST_CASE("a buffer of one backend handed to another is refused") {
  auto cpu = open_device("cpu");
  auto cpu_buf = cpu->alloc(16);
  for_each_device([&](Device& device) {
    if (device.info().kind == DeviceKind::Cpu) return;
    auto queue = device.create_queue();
    std::vector<unsigned char> host(16);
    CHECK_THROWS_AS(queue->write(*cpu_buf, 0, host.data(), 16), Error);
  });
}

TEST_CASE(
    "jpeg_ycc_to_rgb equals libjpeg-turbo's colour conversion, identically on every backend") {
  // Oracle: libjpeg decodes one 4:4:4 JPEG twice, to YCbCr and to RGB; with no upsampling its
  // RGB output is exactly its colour conversion of that YCbCr. Our kernel must turn the first
  // into the second, byte for byte.
  auto rgb_in = test::synthetic_rgb(173, 61, 3);
  auto jpeg = test::libjpeg_encode_rgb444(rgb_in, 90);
  auto ycc = test::libjpeg_decode(jpeg, false);
  auto rgb = test::libjpeg_decode(jpeg, true);
  REQUIRE(ycc.components == 3);
  const std::uint32_t pixels = std::uint32_t(ycc.width) * ycc.height;
  std::vector<std::uint8_t> planar(3 * std::size_t(pixels));
  for (std::uint32_t i = 0; i < pixels; ++i) {
    for (int c = 0; c < 3; ++c) planar[c * std::size_t(pixels) + i] = ycc.samples[3 * i + c];
  }
  std::map<std::string, std::vector<std::uint8_t>> outputs;
  for_each_device([&](Device& device) {
    auto queue = device.create_queue();
    auto d_ycc = device.alloc(planar.size());
    auto d_rgb = device.alloc(planar.size());
    queue->write(*d_ycc, 0, planar.data(), planar.size());
    device.jpeg().ycc_to_rgb(*queue, *d_ycc, *d_rgb, pixels);
    std::vector<std::uint8_t> out(planar.size());
    queue->read(out.data(), *d_rgb, 0, out.size());
    CHECK(out == rgb.samples);
    outputs[device.info().spec] = out;
  });
  for (const auto& [spec, out] : outputs) {
    INFO(spec << " vs cpu");
    CHECK(out == outputs.begin()->second);
  }
}

TEST_CASE("kernel stages refuse buffers too small for their arguments") {
  for_each_device([](Device& device) {
    auto queue = device.create_queue();
    auto small = device.alloc(3 * 10 - 1);
    auto ok = device.alloc(3 * 10);
    CHECK_THROWS_AS(device.jpeg().ycc_to_rgb(*queue, *small, *ok, 10), Error);
    CHECK_THROWS_AS(device.jpeg().ycc_to_rgb(*queue, *ok, *small, 10), Error);
    device.jpeg().ycc_to_rgb(*queue, *ok, *ok, 0);  // nothing to do is not an error

    // The chunk stages check every image of the chunk, and the table's place, before a launch.
    auto jobs = device.alloc(4096);
    auto planes = device.alloc(1000);
    auto out = device.alloc(3 * 100);
    JpegChunkImage a, b;
    a.info.job_bytes = b.info.job_bytes = 1024;
    b.info.job_offset = 1024;
    a.info.groups = b.info.groups = 1;
    a.info.plane_bytes = b.info.plane_bytes = 500;
    b.plane_offset = 500;
    a.info.width = b.info.width = 10;
    a.info.height = b.info.height = 5;
    a.info.channels = b.info.channels = 3;
    b.out_offset = 150;
    const std::size_t table = 2048;
    // Each case breaks one thing of a chunk {a, b} whose arguments are otherwise in bounds (the
    // jobs are not real jobs: a stage that accepted them would run on garbage).
    auto refused = [&](JpegChunkImage x, JpegChunkImage y, std::size_t table_offset, bool decode) {
      const std::vector<JpegChunkImage> images = {x, y};
      try {
        if (decode)
          device.jpeg().decode_idct_chunk(*queue, *jobs, table_offset, images, *planes);
        else
          device.jpeg().upsample_color_chunk(*queue, *jobs, table_offset, images, *planes, *out);
      } catch (const Error& e) {
        return e.code() == ErrorCode::InvalidArgument;
      }
      return false;
    };
    for (bool decode : {true, false}) {
      INFO((decode ? "decode_idct_chunk" : "upsample_color_chunk"));
      JpegChunkImage bad = b;
      bad.plane_offset = 501;  // planes end past the buffer
      CHECK(refused(a, bad, table, decode));
      bad = b;
      bad.info.job_offset = 1000;  // not a multiple of kJpegJobAlign
      CHECK(refused(a, bad, table, decode));
      bad.info.job_offset = 3328;  // the job ends past the buffer
      CHECK(refused(bad, b, table, decode));
      CHECK(refused(a, b, 4096 - jpeg_chunk_table_bytes(2) + 4, decode));  // table past the end
      CHECK(refused(a, b, table + 2, decode));  // table offset not in words
    }
    JpegChunkImage bad = b;
    bad.out_offset = 151;  // pixels end past the buffer
    CHECK(refused(a, bad, table, false));
    // Nothing to do is not an error (and launches nothing: the jobs here are not real jobs).
    device.jpeg().decode_idct_chunk(*queue, *jobs, table, {}, *planes);
    device.jpeg().upsample_color_chunk(*queue, *jobs, table, {}, *planes, *out);
    queue->finish();
  });
}

TEST_CASE("a chunk table lists its jobs' launch positions and 64-bit offsets") {
  std::vector<JpegChunkImage> images(3);
  images[0].info.job_offset = 0;
  images[0].info.groups = 5;
  images[0].info.width = 16;
  images[0].info.height = 16;  // 256 pixels: one tile
  images[1].info.job_offset = 512;
  images[1].info.groups = 2;
  images[1].info.width = 17;
  images[1].info.height = 16;  // 272 pixels: two tiles
  images[1].plane_offset = 4096;
  images[1].out_offset = std::size_t(5) << 32 | 768;
  images[2].info.job_offset = 1024;
  images[2].info.groups = 1;
  images[2].info.width = 1;
  images[2].info.height = 1;
  images[2].plane_offset = 8192;
  std::vector<std::uint32_t> w(jpeg_chunk_table_bytes(images.size()) / 4, 0xDEADBEEF);
  REQUIRE(w.size() == 4 + 3 * 8);
  write_jpeg_chunk_table(images, w.data());
  CHECK(w[0] == 3);
  CHECK(w[1] == 8);  // groups of the decode launch
  CHECK(w[2] == 4);  // tiles of 256 pixels of the colour launch
  const std::vector<std::uint32_t> e1(w.begin() + 12, w.begin() + 20);
  CHECK(e1 == std::vector<std::uint32_t>{128, 5, 1, 4096, 0, 768, 5, 0});
  const std::vector<std::uint32_t> e2(w.begin() + 20, w.end());
  CHECK(e2 == std::vector<std::uint32_t>{256, 7, 3, 8192, 0, 0, 0, 0});
}
