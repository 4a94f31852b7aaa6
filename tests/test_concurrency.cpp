// Many pipelines on one device from many threads at once: JPEG and PNG decoders and encoders and
// the filters, on images of mixed sizes with bad inputs among them, each thread's outputs equal
// to a serial run's, and a pipeline that failed on a bad input right again on the next good one.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "hetcodec/hetcodec.h"
#include "tests/support/test_support.h"

namespace hetcodec {
namespace {

// One unit of work: everything one image goes through, as bytes to compare (or the error code
// where the input is bad on purpose).
struct Work {
  Image image;
  bool broken = false;  // a cut JPEG file and a PNG with a broken CRC instead of good ones
};

std::vector<std::vector<std::uint8_t>> run(const Work& w, JpegEncoder& jenc, JpegDecoder& jdec,
                                           PngEncoder& penc, PngDecoder& pdec, Filters& filters) {
  std::vector<std::vector<std::uint8_t>> out;
  std::vector<std::uint8_t> jpeg = jenc.encode(w.image);
  std::vector<std::uint8_t> png = penc.encode(w.image);
  if (w.broken) {
    jpeg.resize(jpeg.size() / 3);  // (libjpeg-turbo decodes what there is, with a warning)
    png[png.size() / 2] ^= 0x40;   // a CRC mismatch somewhere: an error
  }
  out.push_back(jpeg);
  auto attempt = [&](auto&& step) {
    try {
      step();
    } catch (const Error& e) {
      out.push_back({std::uint8_t(e.code()), 0xEE});
    }
  };
  attempt([&] {
    const Image decoded = jdec.decode(jpeg);
    out.push_back(decoded.pixels);
    out.push_back({std::uint8_t(decoded.warnings.size())});
  });
  attempt([&] { out.push_back(pdec.decode(png.data(), png.size()).pixels); });
  attempt([&] {
    const DeviceImage d = jdec.decode_to_device(jpeg.data(), jpeg.size());
    out.push_back(filters.download(filters.smooth(d)).pixels);
  });
  return out;
}

}  // namespace

// [threads]: left out of compute-sanitizer's racecheck runs (tests/gpu_sanitizer.sh), which
// would take many minutes over eight threads of pipelines; racecheck looks for races inside
// kernels, which every other case drives, and memcheck (with its leak check) runs this one.
TEST_CASE(
    "pipelines on many threads at once give a serial run's bytes, errors included [threads]") {
  std::vector<Work> works;
  const int sizes[][2] = {{1, 1}, {17, 9}, {64, 48}, {333, 211}, {8, 640}, {500, 375}, {96, 96}};
  for (int i = 0; i < 21; ++i) {
    const auto* s = sizes[i % 7];
    works.push_back({test::photo(s[0], s[1], unsigned(i)), i % 5 == 3});
  }
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (many threads of large images: too slow there)
    auto shared = test::borrowed(device);
    // The serial run.
    std::vector<std::vector<std::vector<std::uint8_t>>> serial;
    {
      JpegEncoder jenc(shared);
      JpegDecoder jdec(shared);
      PngEncoder penc(shared);
      PngDecoder pdec(shared);
      Filters filters(shared);
      for (const Work& w : works) serial.push_back(run(w, jenc, jdec, penc, pdec, filters));
    }
    // Eight threads, each with its own pipelines, each taking works in turn from a shared
    // counter twice over (so each pipeline meets bad inputs between good ones).
    constexpr int kThreads = 8;
    std::atomic<std::size_t> next{0};
    std::atomic<int> mismatches{0}, failures{0};
    std::vector<std::string> first_problem(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        try {
          JpegEncoder jenc(shared);
          JpegDecoder jdec(shared);
          PngEncoder penc(shared);
          PngDecoder pdec(shared);
          Filters filters(shared);
          for (std::size_t k; (k = next.fetch_add(1)) < 2 * works.size();) {
            const std::size_t i = k % works.size();
            if (run(works[i], jenc, jdec, penc, pdec, filters) != serial[i]) {
              if (mismatches.fetch_add(1) == 0) first_problem[t] = "work " + std::to_string(i);
            }
          }
        } catch (const std::exception& e) {
          failures.fetch_add(1);
          first_problem[t] = e.what();
        }
      });
    for (auto& th : threads) th.join();
    INFO(device.info().spec);
    for (const auto& p : first_problem)
      if (!p.empty()) MESSAGE("first problem: " << p);
    CHECK(failures.load() == 0);
    CHECK(mismatches.load() == 0);
  });
}

}  // namespace hetcodec
