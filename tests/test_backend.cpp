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
    queue->finish();
  });
}
