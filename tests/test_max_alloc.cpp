// Devices with a small largest single allocation (DeviceInfo::max_alloc_bytes: OpenCL's
// CL_DEVICE_MAX_MEM_ALLOC_SIZE): a JPEG batch whose outputs exceed it still decodes, split into
// chunks and parts that fit, to libjpeg-turbo's bytes; a buffer over the limit is refused with
// LimitExceeded naming the device. The backend-max-alloc test runs this suite's first case with
// HETCODEC_MAX_ALLOC set, which caps every device's limit; without a small limit it reports
// itself skipped. And a bench asked to measure what the device cannot hold exits non-zero.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "backends/backend.h"
#include "hetcodec/jpeg.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

namespace {

// Samplings the chunk planner sizes differently: 4:2:0, 4:4:4 and gray.
std::vector<std::vector<std::uint8_t>> photos(int count) {
  std::vector<std::vector<std::uint8_t>> files;
  for (int i = 0; i < count; ++i) {
    test::Raster rgb = test::synthetic_rgb(640 + 16 * (i % 3), 480 - 8 * (i % 4), unsigned(i + 1));
    test::EncodeParams p;
    p.quality = 80 + i % 15;
    if (i % 3 == 0) p.h[0] = p.v[0] = 2;
    if (i % 3 == 2) {
      test::Raster gray{rgb.width, rgb.height, 1, {}};
      for (std::size_t k = 0; k < rgb.samples.size(); k += 3)
        gray.samples.push_back(rgb.samples[k]);
      rgb = gray;
    }
    files.push_back(test::libjpeg_encode_ex(rgb, p));
  }
  return files;
}

}  // namespace

TEST_CASE("jpeg batches over the device's largest allocation are split, bytes unchanged") {
  test::for_each_device([](Device& device) {
    const std::uint64_t limit = device.info().max_alloc_bytes;
    REQUIRE(limit > 0);
    // Over 16 MiB, a batch over twice the limit takes too long to decode here; the emulator
    // would take hours.
    if (limit > (16u << 20) || device.info().is_emulator) {
      MESSAGE(device.info().spec << ": largest allocation " << limit
                                 << " bytes; run with HETCODEC_MAX_ALLOC=4194304 to test "
                                    "the splitting (the backend-max-alloc test does)");
      return;
    }
    // The limit is enforced, so a buffer over it would have failed the batches below.
    try {
      device.alloc(std::size_t(limit) + 1);
      FAIL("a buffer over the limit was allocated");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::LimitExceeded);
      CHECK(std::string(e.what()).find(device.info().spec) != std::string::npos);
    }
    CHECK_THROWS_AS(device.alloc_pinned(std::size_t(limit) + 1), Error);

    // Enough images that their outputs are over twice the limit.
    std::vector<std::vector<std::uint8_t>> files;
    std::uint64_t total = 0;
    std::vector<test::Raster> expected;
    for (const auto& f : photos(int(2 * limit / (640 * 480) + 4))) {
      expected.push_back(test::libjpeg_decode_default(f));
      total += expected.back().samples.size();
      files.push_back(f);
    }
    REQUIRE(total > 2 * limit);
    std::vector<Input> inputs;
    for (const auto& f : files) inputs.push_back({f.data(), f.size()});
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    // Chunks of 8 images asked for: more than the limit holds.
    for (const bool fused : {true, false}) {
      CAPTURE(fused);
      JpegDecodeOptions options;
      options.fused = fused;
      options.images_per_copy = 8;
      JpegDecoder decoder(shared, options);
      const std::vector<Image> images = decoder.decode_batch(inputs);
      REQUIRE(images.size() == files.size());
      for (std::size_t i = 0; i < files.size(); ++i) {
        CAPTURE(i);
        CHECK(images[i].pixels == expected[i].samples);
      }
      BatchErrors errors;
      std::shared_ptr<DeviceBuffer> output;
      const std::vector<DeviceImage> on_device =
          decoder.decode_batch_to_device(inputs, &errors, &output);
      auto queue = device.create_queue();
      std::set<const DeviceBuffer*> buffers;
      for (std::size_t i = 0; i < files.size(); ++i) {
        CAPTURE(i);
        CHECK(!errors[i]);
        const DeviceImage& d = on_device[i];
        REQUIRE(d.buffer);
        CHECK(d.buffer->size() <= limit);
        buffers.insert(d.buffer.get());
        std::vector<std::uint8_t> back(d.bytes());
        queue->read(back.data(), *d.buffer, d.offset, back.size());
        CHECK(back == expected[i].samples);
      }
      CHECK(buffers.size() > 2);
      CHECK(output.get() == on_device[0].buffer.get());
    }
  });
}

#ifdef HETCODEC_TEST_CLI
TEST_CASE("a bench asked to measure what the device cannot hold exits non-zero, saying what") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("hetcodec-bench-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string jpg = (dir / "large.jpg").string();
  {
    const auto bytes = test::libjpeg_encode(test::synthetic_rgb(1024, 768, 5), 90, 2, 2, 0, false);
    std::ofstream(jpg, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  const std::string cli = HETCODEC_TEST_CLI;
  const std::string capped = "HETCODEC_MAX_ALLOC=1000000 " + cli;
  // 1024x768 RGB is 2.4 MB in one buffer: more than the 1 MB cap.
  const std::string jpeg_args = "-d cpu bench jpeg " + jpg + " --batch 2 --min-time 0 --no-peers";
  std::string out = test::run_command(cli, jpeg_args);
  CHECK_MESSAGE(out.find("\nexit 0") != std::string::npos, out);
  out = test::run_command(capped, jpeg_args);
  CHECK_MESSAGE(out.find("\nexit 1") != std::string::npos, out);
  CHECK_MESSAGE(out.find("not measured") != std::string::npos, out);
  CHECK_MESSAGE(out.find("largest single allocation") != std::string::npos, out);

  const std::string transfer_args = "-d cpu bench transfer --sizes 2 --min-time 0";
  out = test::run_command(cli, transfer_args);
  CHECK_MESSAGE(out.find("\nexit 0") != std::string::npos, out);
  out = test::run_command(capped, transfer_args);
  CHECK_MESSAGE(out.find("\nexit 1") != std::string::npos, out);
  CHECK_MESSAGE(out.find("bench transfer: 1 measurement failed") != std::string::npos, out);

  const std::string encode_args =
      "-d cpu bench png-encode --crop 1024x768 --min-time 0 --streams 1 --no-peers "
      "--deflate host";
  out = test::run_command(capped, encode_args);
  CHECK_MESSAGE(out.find("\nexit 1") != std::string::npos, out);
  CHECK_MESSAGE(out.find("bench png-encode: 1 measurement failed") != std::string::npos, out);
  fs::remove_all(dir);
}
#endif
