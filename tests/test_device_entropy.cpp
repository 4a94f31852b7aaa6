// Huffman decoding on the device (core/portable/jpeg_huffman.h, docs/device-entropy.md): on every
// device, the coefficients the device stages write equal the CPU stage's token stream expanded,
// for files of every sampling, with and without restart markers, non-interleaved, 12-bit and
// from a second encoder, cut into subsequences small enough that nearly every block boundary is
// found by synchronisation; the decoder with its Huffman stage on the device gives libjpeg-turbo's
// pixels; a file built to delay synchronisation is settled or handed to the CPU; corrupt data
// gives the CPU stage's pixels and warnings.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/jpeg/entropy.h"
#include "core/jpeg/entropy_device.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "core/jpeg/token_stream.h"
#include "core/portable/jpeg_huffman.h"
#include "hetcodec/jpeg.h"
#include "host/src/jpeg_device_entropy.h"
#include "host/src/jpeg_info.h"
#include "tests/support/jpeg_checks.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
using hetcodec::test::EncodeParams;
using hetcodec::test::Raster;

namespace {

struct Sample {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

// In the emulator these cases run in a process of their own (the emulator-jpeg-entropy test,
// HETCODEC_TEST_JPEG_ENTROPY_ALONE), not in the backend suite's: after their decoders have
// released their buffers, Oclgrind 21.10's uninitialised-value tracking reports reads of device
// memory that a kernel wrote first in the test cases that follow them.
bool skipped_here(Device& device) {
  return device.info().is_emulator && !std::getenv("HETCODEC_TEST_JPEG_ENTROPY_ALONE");
}

std::string data_dir() { return std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg"; }

std::vector<Sample> samples(bool small) {
  std::vector<Sample> out;
  const Raster photo = small ? hetcodec::test::synthetic_rgb(40, 24, 5)
                             : hetcodec::test::synthetic_rgb(203, 117, 42);
  auto add = [&](std::string name, const Raster& r, const EncodeParams& p) {
    out.push_back({std::move(name), hetcodec::test::libjpeg_encode_ex(r, p)});
  };
  const int factors[][2] = {{1, 1}, {2, 1}, {2, 2}, {1, 2}, {4, 1}};
  for (const auto& f : factors) {
    EncodeParams p;
    p.h[0] = f[0];
    p.v[0] = f[1];
    p.quality = 90;
    const std::string name = std::to_string(f[0]) + "x" + std::to_string(f[1]);
    add(name, photo, p);
    if (small) continue;
    p.restart_blocks = 7;
    add(name + "-restart-7", photo, p);
    p.restart_blocks = 0;
    p.separate_scans = true;
    add(name + "-non-interleaved", photo, p);
    p.optimize = true;
    add(name + "-non-interleaved-optimize", photo, p);
  }
  EncodeParams p;
  add("gray", hetcodec::test::gray_of(photo), p);
  if (small) return out;
  p.quality = 20;
  add("cmyk", hetcodec::test::cmyk_of(photo), p);
  for (const char* name :
       {"testorig.jpg", "testimgint.jpg", "ffmpeg-yuvj420p-160x90-q20-default.jpg",
        "ffmpeg-yuvj444p-33x17-q2-optimal.jpg", "ffmpeg-gray-45x29-q5-default.jpg",
        "twelve/rgb420-q98.jpg", "twelve/gray-q85.jpg", "twelve/rgb420-restart.jpg"})
    out.push_back({name, hetcodec::test::read_test_file(data_dir() + "/" + name)});
  return out;
}

// The device stages' coefficients for a file (subsequences of `sub_bytes`), or an empty vector
// when the stages hand it to the CPU; `passes` gets the SYNC passes.
std::vector<std::int16_t> device_coefficients(Device& device, const std::vector<std::uint8_t>& f,
                                              std::uint32_t sub_bytes, int max_passes,
                                              int* passes = nullptr) {
  const jpeg::Header h = jpeg::parse(f.data(), f.size());
  const jpeg::Layout l = jpeg::make_layout(h);
  const jpeg::EntropyDecoder d(f.data(), f.size(), h, l);
  REQUIRE(jpeg::DeviceEntropyPlan::supports(d));
  jpeg::DeviceEntropyPlan plan;
  CHECK(plan.add(d, 0, 0, sub_bytes) == 0);
  auto q = device.create_queue();
  auto data = device.alloc(f.size());
  q->write(*data, 0, f.data(), f.size());
  const std::size_t coef_bytes = std::size_t(l.groups) * 64 * 64 * 2;
  auto coefs = device.alloc(coef_bytes);
  detail::DeviceEntropyBuffers b;
  detail::run_device_entropy(device, *q, plan, *data, *coefs, coef_bytes, b, max_passes);
  if (passes) *passes = b.passes;
  std::vector<std::string> warnings;
  if (!plan.outcome(0, b.status.data(), f.data(), f.size(), warnings)) return {};
  std::vector<std::int16_t> out(coef_bytes / 2);
  q->read(out.data(), *coefs, 0, coef_bytes);
  return out;
}

// The CPU stage's token stream expanded, laid out as the device's coefficients (component c's
// blocks from block first_block of c).
std::vector<std::int16_t> cpu_coefficients(const std::vector<std::uint8_t>& f) {
  const jpeg::Header h = jpeg::parse(f.data(), f.size());
  const jpeg::Layout l = jpeg::make_layout(h);
  const auto stream = jpeg_token_stream(f.data(), f.size());
  const auto dense = jpeg::expand_token_stream(stream.data(), stream.size());
  std::vector<std::int16_t> out(std::size_t(l.groups) * 64 * 64, 0);
  std::size_t from = 0;
  for (const auto& c : l.components) {
    const std::size_t n = std::size_t(c.blocks) * 64;
    REQUIRE(from + n <= dense.size());
    std::memcpy(out.data() + std::size_t(c.first_block) * 64, dense.data() + from, n * 2);
    from += n;
  }
  return out;
}

// The first coefficient that differs, as "block B position K: A vs B", or "".
std::string first_difference(const std::vector<std::int16_t>& a,
                             const std::vector<std::int16_t>& b) {
  if (a.size() != b.size())
    return "sizes " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return "block " + std::to_string(i / 64) + " position " + std::to_string(i % 64) + ": " +
             std::to_string(a[i]) + " vs " + std::to_string(b[i]);
  return "";
}

// A 4:4:4 colour image of one flat colour: every MCU after the first codes the same 14 bits
// (with the standard tables), so a decoding that starts in the wrong place can stay out of step.
std::vector<std::uint8_t> flat_file(int width, int height) {
  Raster r{width, height, 3, std::vector<std::uint8_t>(std::size_t(width) * height * 3)};
  for (std::size_t i = 0; i < r.samples.size(); i += 3) {
    r.samples[i] = 200;
    r.samples[i + 1] = 60;
    r.samples[i + 2] = 90;
  }
  return hetcodec::test::libjpeg_encode_ex(r, EncodeParams{});
}

}  // namespace

TEST_CASE("device entropy: the coefficients of the CPU stage on every device") {
  test::for_each_device([](Device& device) {
    if (skipped_here(device)) return;
    const bool small = device.info().is_emulator;
    for (const auto& s : samples(small)) {
      INFO(s.name);
      const auto ref = cpu_coefficients(s.bytes);
      // Subsequences of 256 bytes: the files' data cut in many places, most not on a block.
      for (std::uint32_t sub : {256u, 4096u}) {
        INFO("subsequences of " << sub << " bytes");
        int passes = 0;
        const auto got = device_coefficients(device, s.bytes, sub, 32, &passes);
        REQUIRE(!got.empty());
        CHECK(first_difference(got, ref) == "");
        CHECK(passes >= 1);
      }
    }
  });
}

TEST_CASE("device entropy: the decoder gives libjpeg-turbo's pixels and says where it decoded") {
  test::for_each_device([](Device& device) {
    if (skipped_here(device)) return;
    const bool small = device.info().is_emulator;
    for (bool fused : {true, false}) {
      JpegDecodeOptions o;
      o.entropy = JpegEntropy::Device;
      o.fused = fused;
      JpegDecoder decoder(test::borrowed(device), o);
      JpegDecodeOptions h = o;
      h.entropy = JpegEntropy::Host;
      JpegDecoder host(test::borrowed(device), h);
      for (const auto& s : samples(small)) {
        INFO(s.name);
        const auto before = decoder.stage_times().device_entropy_images;
        const Image img = decoder.decode(s.bytes);
        if (device.info().is_emulator) CHECK(test::take_emulator_log() == "");
        // libjpeg-turbo 2.1.5 decodes 8-bit files; 12-bit ones are checked against the CPU
        // stage's decoding, which test_jpeg_twelve.cpp checks against libjpeg-turbo 3.
        if (img.bit_depth == 8)
          hetcodec::test::check_equal(img, hetcodec::test::libjpeg_decode_default(s.bytes), s.name);
        else
          CHECK(img.pixels == host.decode(s.bytes).pixels);
        CHECK(img.warnings.empty());
        CHECK(decoder.stage_times().device_entropy_images == before + 1);
        if (device.info().is_emulator) CHECK(test::take_emulator_log() == "");
        const DeviceImage on_device = decoder.decode_to_device(s.bytes.data(), s.bytes.size());
        CHECK(test::read_back(device, on_device) == img.pixels);
        if (device.info().is_emulator) CHECK(test::take_emulator_log() == "");
      }
    }
    // Host, and Auto on anything but a GPU, keep the CPU stage. (Not under Oclgrind: there the
    // CPU stage's path is the rest of this suite's.)
    if (small) return;
    for (JpegEntropy e : {JpegEntropy::Host, JpegEntropy::Auto}) {
      JpegDecodeOptions o;
      o.entropy = e;
      JpegDecoder decoder(test::borrowed(device), o);
      const auto s = samples(true).front();
      decoder.decode(s.bytes);
      const bool device_expected =
          e == JpegEntropy::Auto && device.info().is_gpu && s.bytes.size() >= (1u << 20);
      CHECK(decoder.stage_times().device_entropy_images == (device_expected ? 1u : 0u));
    }
  });
}

TEST_CASE("device entropy: files built to delay synchronisation are settled or handed over") {
  test::for_each_device([](Device& device) {
    if (skipped_here(device)) return;
    const bool small = device.info().is_emulator;
    // A flat colour: every MCU after the first codes the same 14 bits, one code repeated.
    const auto flat = flat_file(small ? 96 : 512, small ? 64 : 256);
    const auto flat_ref = cpu_coefficients(flat);
    const auto got = device_coefficients(device, flat, 64, 63);
    if (!got.empty()) CHECK(first_difference(got, flat_ref) == "");
    // Noise at quality 100, one component a scan: blocks of about 300 bits, so that
    // subsequences of 64 bytes hold one or two block starts and seldom fall into step inside
    // one: one SYNC pass leaves most of them unsettled, and the scan reports them rather than
    // writing wrong coefficients.
    EncodeParams p;
    p.quality = 100;
    p.separate_scans = true;
    const auto noise = hetcodec::test::libjpeg_encode_ex(
        hetcodec::test::synthetic_rgb(small ? 32 : 203, small ? 16 : 117, 42), p);
    CHECK(device_coefficients(device, noise, 64, 1).empty());
    int passes = 0;
    const auto settled = device_coefficients(device, noise, 64, 63, &passes);
    INFO("passes " << passes);
    CHECK(passes > 1);
    if (!settled.empty()) CHECK(first_difference(settled, cpu_coefficients(noise)) == "");
    JpegDecodeOptions o;
    o.entropy = JpegEntropy::Device;
    JpegDecoder decoder(test::borrowed(device), o);
    for (const auto* f : {&flat, &noise})
      hetcodec::test::check_equal(decoder.decode(*f), hetcodec::test::libjpeg_decode_default(*f),
                                  "delayed");
  });
}

TEST_CASE("device entropy: corrupt data gives the CPU stage's pixels and warnings") {
  test::for_each_device([](Device& device) {
    if (skipped_here(device)) return;
    const auto good = samples(true).front().bytes;
    std::vector<std::vector<std::uint8_t>> bad;
    bad.push_back(std::vector<std::uint8_t>(good.begin(),
                                            good.begin() + std::ptrdiff_t(good.size() * 2 / 3)));
    auto flipped = good;
    for (std::size_t i = flipped.size() / 2; i < flipped.size() / 2 + 24; ++i) flipped[i] ^= 0x5A;
    bad.push_back(flipped);
    auto extra = good;  // whole bytes of data after the last block
    extra.insert(extra.end() - 2, {0x12, 0x34, 0x56});
    bad.push_back(extra);
    JpegDecodeOptions on_device, on_host;
    on_device.entropy = JpegEntropy::Device;
    on_host.entropy = JpegEntropy::Host;
    JpegDecoder d(test::borrowed(device), on_device), h(test::borrowed(device), on_host);
    for (std::size_t i = 0; i < bad.size(); ++i) {
      INFO("case " << i);
      const Image a = d.decode(bad[i]), b = h.decode(bad[i]);
      CHECK(a.pixels == b.pixels);
      CHECK(a.warnings == b.warnings);
      CHECK(!b.warnings.empty());
    }
    // The extraneous bytes are found by the device itself.
    CHECK(d.stage_times().device_entropy_images >= 1);
  });
}
