// A full device (limit_device_memory() set below what an image needs): the buffer that would
// pass the limit fails with OutOfMemory before the runtime is asked, each pipeline that meets it
// gives that error, and the same pipeline is right again on the images after it; no buffer is
// left behind once the pipelines are gone.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "hetcodec/hetcodec.h"
#include "tests/support/test_support.h"

namespace hetcodec {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct Pipelines {
  explicit Pipelines(const std::shared_ptr<Device>& d)
      : jenc(d), jdec(d), penc(d), pdec(d), filters(d) {}
  JpegEncoder jenc;
  JpegDecoder jdec;
  PngEncoder penc;
  PngDecoder pdec;
  Filters filters;
};

// What an image goes through, a step at a time: the encoded files, then their decodes and a
// filter on the device. The decoders take the files of `files` (those of a run without a limit).
struct Files {
  Bytes jpeg, png;
};
std::vector<std::pair<std::string, std::function<Bytes()>>> steps(Pipelines& p, const Image& im,
                                                                  const Files& files) {
  return {
      {"JpegEncoder::encode", [&p, &im] { return p.jenc.encode(im); }},
      {"PngEncoder::encode", [&p, &im] { return p.penc.encode(im); }},
      {"JpegDecoder::decode", [&p, &files] { return p.jdec.decode(files.jpeg).pixels; }},
      {"PngDecoder::decode",
       [&p, &files] { return p.pdec.decode(files.png.data(), files.png.size()).pixels; }},
      {"JpegDecoder::decode_batch",
       [&p, &files] {
         const Input in{files.jpeg.data(), files.jpeg.size()};
         return p.jdec.decode_batch({in, in}).at(1).pixels;
       }},
      {"Filters::smooth on the device",
       [&p, &files] {
         return p.filters
             .download(
                 p.filters.smooth(p.jdec.decode_to_device(files.jpeg.data(), files.jpeg.size())))
             .pixels;
       }},
  };
}

std::vector<Bytes> run_all(Pipelines& p, const Image& im, const Files& files) {
  std::vector<Bytes> out;
  for (auto& [name, step] : steps(p, im, files)) out.push_back(step());
  return out;
}

}  // namespace

// Puts a device's memory limit back as it was when the test case ends, however it ends.
struct RestoreLimit {
  Device& device;
  std::uint64_t limit = device_memory_limit(device);
  ~RestoreLimit() { limit_device_memory(device, limit); }
};

TEST_CASE("a full device gives OutOfMemory, and each pipeline is right again on the next image") {
  const Image small = test::photo(96, 64, 1), large = test::photo(512, 384, 2);
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (a megapixel image through every pipeline)
    INFO(device.info().spec);
    auto shared = test::borrowed(device);
    RestoreLimit restore{device};
    limit_device_memory(device, 0);
    const std::uint64_t before = device_memory_in_use(device);

    // Without a limit, on fresh pipelines.
    Files small_files, large_files;
    std::vector<Bytes> want_small, want_large;
    {
      Pipelines p(shared);
      small_files = {p.jenc.encode(small), p.penc.encode(small)};
      large_files = {p.jenc.encode(large), p.penc.encode(large)};
      want_small = run_all(p, small, small_files);
      want_large = run_all(p, large, large_files);
    }
    CHECK(device_memory_in_use(device) == before);  // every buffer given back

    {
      Pipelines p(shared);
      CHECK(run_all(p, small, small_files) == want_small);
      // Room for a little more than the small image's buffers: each step of the large image
      // either fails with OutOfMemory or (a pipeline that works in smaller pieces when memory
      // is short) still gives the right bytes; the decoders have no such way out.
      const std::uint64_t room = device_memory_in_use(device) + 4096;
      limit_device_memory(device, room);
      int out_of_memory = 0;
      auto large_steps = steps(p, large, large_files);
      for (std::size_t i = 0; i < large_steps.size(); ++i) {
        INFO(large_steps[i].first);
        Bytes got;
        try {
          got = large_steps[i].second();
          CHECK(got == want_large[i]);
        } catch (const Error& e) {
          INFO(e.what());
          CHECK(e.code() == ErrorCode::OutOfMemory);
          ++out_of_memory;
        }
        CHECK(device_memory_in_use(device) <= room);
      }
      CHECK(out_of_memory >= 4);  // (the decoders and the filter at least)
      // The same pipelines, the limit lifted: right on both images.
      limit_device_memory(device, 0);
      CHECK(run_all(p, small, small_files) == want_small);
      CHECK(run_all(p, large, large_files) == want_large);
    }
    CHECK(device_memory_in_use(device) == before);
  });
}

TEST_CASE("a device buffer past the memory limit is OutOfMemory naming the device and the limit") {
  auto device = open_device("cpu");
  RestoreLimit restore{*device};
  limit_device_memory(*device, device_memory_in_use(*device) + 1000);
  std::string message;
  try {
    JpegEncoder(device).encode(test::photo(256, 256, 3));
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::OutOfMemory);
    message = e.what();
  }
  CHECK(message.find("cpu") != std::string::npos);
  CHECK(message.find("device memory limit") != std::string::npos);
}

TEST_CASE("download and native_memory give a device image's samples on every device") {
  const Image im = test::photo(96, 64, 4);
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    INFO(device.info().spec);
    auto shared = test::borrowed(device);
    const Bytes file = JpegEncoder(shared).encode(im);
    JpegDecoder decoder(shared);
    const Image want = decoder.decode(file);
    const DeviceImage on_device = decoder.decode_to_device(file.data(), file.size());
    const Image got = download(shared, on_device);
    CHECK(got.width == want.width);
    CHECK(got.height == want.height);
    CHECK(got.format == want.format);
    CHECK(got.pixels == want.pixels);
    const NativeMemory m = native_memory(shared, on_device);
    CHECK(m.kind == device.info().kind);
    CHECK(m.handle != nullptr);
    CHECK(m.offset == on_device.offset);
    if (m.kind == DeviceKind::Cpu)
      CHECK(m.ordinal == 0);
    else  // (the ordinal names the same device again)
      CHECK(resolve_device(std::string(to_string(m.kind)) + ":" + std::to_string(m.ordinal)).spec ==
            device.info().spec);
    if (m.kind == DeviceKind::Cpu) {  // (the host pointer itself: the others' tests read theirs)
      const auto* p = static_cast<const std::uint8_t*>(m.handle) + m.offset;
      CHECK(Bytes(p, p + want.pixels.size()) == want.pixels);
    }
    // The second image of a batch lies at an offset in the batch's buffer.
    const Bytes file2 = JpegEncoder(shared).encode(test::photo(64, 40, 7));
    const Image want2 = decoder.decode(file2);
    const auto batch = decoder.decode_batch_to_device(
        {Input{file.data(), file.size()}, Input{file2.data(), file2.size()}});
    REQUIRE(batch.size() == 2);
    CHECK(batch[1].offset >= want.pixels.size());
    CHECK(download(shared, batch[1]).pixels == want2.pixels);
    const NativeMemory m2 = native_memory(shared, batch[1]);
    CHECK(m2.offset == batch[1].offset);
    if (m2.kind == DeviceKind::Cpu) {
      const auto* p = static_cast<const std::uint8_t*>(m2.handle) + m2.offset;
      CHECK(Bytes(p, p + want2.pixels.size()) == want2.pixels);
    }
    DeviceImage short_buffer = on_device;
    short_buffer.offset = on_device.buffer->size();
    CHECK_THROWS_AS(download(shared, short_buffer), Error);
    CHECK_THROWS_AS(native_memory(shared, DeviceImage{}), Error);
  });
}

}  // namespace hetcodec
