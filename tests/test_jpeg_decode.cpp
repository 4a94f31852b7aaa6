// JPEG decode exactness (DESIGN.md §4): on every device, the decoded bytes equal libjpeg-turbo's
// (JDCT_ISLOW, fancy upsampling, default output colour space, as `djpeg -dct int -pnm`), for a
// corpus generated here with libjpeg and with FFmpeg's mjpeg encoder (tests/data/jpeg), and for
// libjpeg-turbo's own test images. Fused and separate kernels, single, batch and device-resident
// decoding must all agree.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>

#include "hetcodec/jpeg.h"
#include "tests/support/jpeg_checks.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
using hetcodec::test::check_equal;
using hetcodec::test::cmyk_of;
using hetcodec::test::EncodeParams;
using hetcodec::test::gray_of;
using hetcodec::test::libjpeg_c_path;
using hetcodec::test::Raster;

namespace {

struct Sample {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

std::string data_dir() { return std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg"; }

// The file with its DHT segments removed (FFmpeg's "default" tables are T.81's standard ones).
std::vector<std::uint8_t> strip_dht(const std::vector<std::uint8_t>& in) {
  std::vector<std::uint8_t> out(in.begin(), in.begin() + 2);
  std::size_t pos = 2;
  while (pos + 4 <= in.size() && in[pos] == 0xFF && in[pos + 1] != 0xDA) {
    const std::size_t len = std::size_t(in[pos + 2]) << 8 | in[pos + 3];
    if (in[pos + 1] != 0xC4)
      out.insert(out.end(), in.begin() + std::ptrdiff_t(pos),
                 in.begin() + std::ptrdiff_t(pos + 2 + len));
    pos += 2 + len;
  }
  out.insert(out.end(), in.begin() + std::ptrdiff_t(pos), in.end());
  REQUIRE(out.size() < in.size());
  return out;
}

struct Sampling {
  const char* name;
  int h, v;
};
const Sampling kSamplings[] = {{"444", 1, 1}, {"422", 2, 1}, {"420", 2, 2},
                               {"440", 1, 2}, {"411", 4, 1}, {"410", 4, 2}};

// The generated corpus. `small` is the subset run inside the emulator.
std::vector<Sample> corpus(bool small) {
  std::vector<Sample> out;
  auto add = [&](std::string name, const Raster& r, const EncodeParams& p) {
    out.push_back({std::move(name), hetcodec::test::libjpeg_encode_ex(r, p)});
  };
  if (small) {
    const Raster rgb = hetcodec::test::synthetic_rgb(19, 13, 3);
    for (const auto& s : {kSamplings[0], kSamplings[1], kSamplings[2], kSamplings[3]}) {
      EncodeParams p;
      p.h[0] = s.h;
      p.v[0] = s.v;
      p.restart_blocks = 2;
      add(std::string("small-") + s.name, rgb, p);
    }
    add("small-gray", gray_of(rgb), EncodeParams{});
    return out;
  }
  // Every subsampling at sizes around the MCU: 1x1 up to non-multiples of 16 and 32.
  const int sizes[][2] = {{1, 1}, {2, 2},  {3, 5},   {5, 3},   {6, 7},
                          {8, 8}, {17, 9}, {33, 31}, {64, 48}, {127, 65}};
  unsigned seed = 1;
  for (const auto& s : kSamplings) {
    for (const auto& wh : sizes) {
      EncodeParams p;
      p.h[0] = s.h;
      p.v[0] = s.v;
      p.quality = 10 + int(seed * 37 % 91);  // 10..100
      add(std::string(s.name) + "-" + std::to_string(wh[0]) + "x" + std::to_string(wh[1]) + "-q" +
              std::to_string(p.quality),
          hetcodec::test::synthetic_rgb(wh[0], wh[1], seed++), p);
    }
  }
  const Raster photo = hetcodec::test::synthetic_rgb(203, 117, 42);
  for (int q : {10, 25, 50, 75, 90, 95, 100}) {
    EncodeParams p;
    p.quality = q;
    p.h[0] = 2;
    p.v[0] = 2;
    add("420-q" + std::to_string(q), photo, p);
    p.optimize = true;
    add("420-q" + std::to_string(q) + "-optimize", photo, p);
  }
  for (const auto& s : kSamplings) {
    EncodeParams p;
    p.h[0] = s.h;
    p.v[0] = s.v;
    p.restart_rows = 1;
    add(std::string(s.name) + "-restart-1row", photo, p);
    p.restart_rows = 0;
    p.restart_blocks = 7;
    add(std::string(s.name) + "-restart-7mcu", photo, p);
  }
  {
    EncodeParams p;
    add("gray-203x117", gray_of(photo), p);
    p.restart_blocks = 5;
    p.quality = 95;
    add("gray-restart-5", gray_of(photo), p);
    add("gray-1x1", gray_of(hetcodec::test::synthetic_rgb(1, 1, 9)), EncodeParams{});
    p = EncodeParams{};
    p.keep_rgb = true;
    add("rgb-no-transform", photo, p);
    p = EncodeParams{};
    add("ycck-444", cmyk_of(photo), p);
    p.keep_rgb = true;
    add("cmyk-444", cmyk_of(photo), p);
    p = EncodeParams{};
    p.h[0] = 2;
    p.v[0] = 2;
    p.h[3] = 2;
    p.v[3] = 2;
    add("ycck-420", cmyk_of(photo), p);
    // Chroma sampled at 2x2 with luma at 1x1 is legal too (libjpeg upsamples "luma").
    p = EncodeParams{};
    p.h[1] = 2;
    p.v[1] = 1;
    add("odd-factors-cb21", photo, p);
    p = EncodeParams{};
    p.jfif = false;
    add("no-jfif", photo, p);
    // Non-interleaved: one scan per component, with and without restarts and subsampling.
    for (const auto& s : {kSamplings[0], kSamplings[2], kSamplings[4]}) {
      p = EncodeParams{};
      p.h[0] = s.h;
      p.v[0] = s.v;
      p.separate_scans = true;
      add(std::string(s.name) + "-non-interleaved", photo, p);
      p.restart_blocks = 11;
      add(std::string(s.name) + "-non-interleaved-restart-11", photo, p);
    }
  }
  // Files from a second encoder: FFmpeg's mjpeg (tests/data/jpeg/ffmpeg-*.jpg).
  for (const auto& e : std::filesystem::directory_iterator(data_dir())) {
    const std::string name = e.path().filename().string();
    if (name.rfind("ffmpeg-", 0) == 0)
      out.push_back({name, hetcodec::test::read_test_file(e.path().string())});
  }
  for (const char* name : {"testorig.jpg", "testimgint.jpg"})
    out.push_back({name, hetcodec::test::read_test_file(data_dir() + "/" + name)});
  // A Motion-JPEG frame without DHT: the decoder must fall back to the standard tables.
  out.push_back({"ffmpeg-no-dht", strip_dht(hetcodec::test::read_test_file(
                                      data_dir() + "/ffmpeg-yuvj420p-160x90-q20-default.jpg"))});
  return out;
}

const std::vector<Sample>& full_corpus() {
  static const std::vector<Sample> c = corpus(false);
  return c;
}

}  // namespace

TEST_CASE("jpeg decode equals libjpeg-turbo on every device, fused and separate kernels") {
  test::for_each_device([](Device& device) {
    const bool emulator = device.info().is_emulator;
    const std::vector<Sample> small = emulator ? corpus(true) : std::vector<Sample>{};
    const std::vector<Sample>& samples = emulator ? small : full_corpus();
    REQUIRE(samples.size() > 4);
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    for (bool fused : {true, false}) {
      JpegDecodeOptions options;
      options.fused = fused;
      JpegDecoder decoder(shared, options);
      for (const auto& s : samples) {
        INFO(s.name << (fused ? " (fused)" : " (separate)"));
        const Raster ref = hetcodec::test::libjpeg_decode_default(s.bytes);
        const Image img = decoder.decode(s.bytes);
        check_equal(img, ref, s.name);
        CHECK(img.warnings.empty());
      }
    }
  });
}

TEST_CASE("jpeg batch and device-resident decoding give the single-image bytes") {
  test::for_each_device([](Device& device) {
    const bool emulator = device.info().is_emulator;
    const std::vector<Sample> samples = emulator ? corpus(true) : full_corpus();
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegDecodeOptions options;
    options.threads = 3;
    JpegDecoder decoder(shared, options);
    std::vector<Input> inputs;
    std::vector<Image> singles;
    for (const auto& s : samples) {
      inputs.push_back({s.bytes.data(), s.bytes.size()});
      singles.push_back(decoder.decode(s.bytes));
    }
    // A corrupt member fails alone when errors are collected.
    const std::vector<std::uint8_t> junk = {0xFF, 0xD8, 0xFF, 0xC0, 0x00};
    inputs.insert(inputs.begin() + 1, Input{junk.data(), junk.size()});
    BatchErrors errors;
    const auto batch = decoder.decode_batch(inputs, &errors);
    REQUIRE(batch.size() == inputs.size());
    CHECK(!errors[0]);
    CHECK(std::string(errors[1]->what()).find("byte") != std::string::npos);
    CHECK(batch[1].width == 0);
    CHECK_THROWS_AS(decoder.decode_batch(inputs), Error);

    const auto on_device = decoder.decode_batch_to_device(inputs, &errors);
    auto queue = device.create_queue();
    for (std::size_t i = 0, j = 0; i < inputs.size(); ++i) {
      if (i == 1) continue;
      INFO(samples[j].name);
      CHECK(batch[i].pixels == singles[j].pixels);
      CHECK(batch[i].width == singles[j].width);
      const DeviceImage& d = on_device[i];
      REQUIRE(d.bytes() == singles[j].pixels.size());
      CHECK(d.offset % 4096 == 0);
      std::vector<std::uint8_t> back(d.bytes());
      queue->read(back.data(), *d.buffer, d.offset, back.size());
      CHECK(back == singles[j].pixels);
      ++j;
    }
    const DeviceImage one =
        decoder.decode_to_device(samples[0].bytes.data(), samples[0].bytes.size());
    std::vector<std::uint8_t> back(one.bytes());
    queue->read(back.data(), *one.buffer, one.offset, back.size());
    CHECK(back == singles[0].pixels);
  });
}

// The batch engine copies the token streams of several images at once, from one pinned arena
// per chunk of images, and decodes a chunk with one launch of each kernel (the fused stage);
// a job that does not fit the arena goes in a buffer of its own. A tiny image first sizes the
// first arena small, so the large ones after it overflow it.
// In the emulator (where the feeding thread stages the jobs itself: one copy per chunk all the
// same) this runs in a process of its own (the emulator-jpeg-chunks test; the full emulator
// suite skips it), the images are small enough for one arena, go largest first, and one decoder
// runs: Oclgrind 21.10's uninitialised-value check reports kernel reads of device memory that a
// kernel wrote first, once buffers have been released and made again (earlier tests' decoders
// released theirs; a decoder's buffers grow when a larger chunk follows a smaller one). Each
// configuration alone runs clean there, and CPU and PoCL decode the same sequences exactly with
// the planes overwritten with garbage before every chunk.
TEST_CASE("jpeg batches copied several images at a time, overflowing arenas included") {
  test::for_each_device([](Device& device) {
    const bool emulator = device.info().is_emulator;
    if (emulator && !std::getenv("HETCODEC_TEST_JPEG_CHUNKS_ALONE")) return;
    std::vector<Sample> samples;
    auto add = [&](std::string name, const Raster& r, int quality, int h) {
      EncodeParams p;
      p.quality = quality;
      p.h[0] = h;
      p.v[0] = h;
      samples.push_back({std::move(name), hetcodec::test::libjpeg_encode_ex(r, p)});
    };
    add("tiny", hetcodec::test::synthetic_rgb(1, 1, 5), 75, 2);
    const int big = emulator ? 64 : 480;
    for (int i = 0; i < (emulator ? 3 : 9); ++i)
      add("big-" + std::to_string(i),
          hetcodec::test::synthetic_rgb(big + 8 * i, big / 2 + 3, 7 + i), i % 2 ? 100 : 90,
          1 + i % 2);
    if (emulator) std::reverse(samples.begin(), samples.end());
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    std::vector<Input> inputs;
    std::vector<Raster> refs;
    for (const auto& s : samples) {
      inputs.push_back({s.bytes.data(), s.bytes.size()});
      refs.push_back(hetcodec::test::libjpeg_decode_default(s.bytes));
    }
    for (int threads : {1, 3}) {
      for (int per_copy : {1, 3, int(samples.size())}) {
        if (emulator && (threads != 1 || per_copy != 3)) continue;
        INFO("threads " << threads << ", images per copy " << per_copy);
        JpegDecodeOptions options;
        options.threads = threads;
        options.images_per_copy = per_copy;
        JpegDecoder decoder(shared, options);
        // Twice: the second batch reuses the first one's arenas, sized from what it saw.
        for (int round = 0; round < 2; ++round) {
          decoder.reset_stage_times();
          const auto batch = decoder.decode_batch(inputs);
          // One copy per image when each is its own chunk; with one thread the tiny image comes
          // first, so the big ones overflow its arena and take copies of their own.
          const std::uint64_t copies = decoder.stage_times().job_copies;
          if (per_copy == 1) CHECK(copies == samples.size());
          if (!emulator && threads == 1 && round == 0 && per_copy == int(samples.size()))
            CHECK(copies > 1);
          CHECK(copies >= (samples.size() + per_copy - 1) / per_copy);
          CHECK(copies <= samples.size());
          REQUIRE(batch.size() == samples.size());
          for (std::size_t i = 0; i < samples.size(); ++i)
            check_equal(batch[i], refs[i], samples[i].name);
          const auto on_device = decoder.decode_batch_to_device(inputs);
          auto queue = device.create_queue();
          for (std::size_t i = 0; i < samples.size(); ++i) {
            std::vector<std::uint8_t> back(on_device[i].bytes());
            queue->read(back.data(), *on_device[i].buffer, on_device[i].offset, back.size());
            CHECK(back == batch[i].pixels);
          }
        }
      }
    }
    JpegDecodeOptions bad;
    bad.images_per_copy = -1;
    CHECK_THROWS_AS(JpegDecoder(shared, bad), Error);
  });
}

TEST_CASE("jpeg files this decoder does not handle are refused with the feature named") {
  test::for_each_device([](Device& device) {
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegDecoder decoder(shared);
    // A lossy file of 16-bit samples (T.81 has 8 and 12): monkey12.jpg with its precision
    // byte changed.
    {
      auto bytes = hetcodec::test::read_test_file(data_dir() + "/monkey12.jpg");
      for (std::size_t i = 0; i + 4 < bytes.size(); ++i) {
        if (bytes[i] == 0xFF && bytes[i + 1] == 0xC1) {
          REQUIRE(bytes[i + 4] == 12);
          bytes[i + 4] = 16;
          break;
        }
      }
      try {
        decoder.decode(bytes);
        FAIL("decoded an unsupported file");
      } catch (const Error& e) {
        INFO(std::string(e.what()));
        CHECK(e.code() == ErrorCode::Unsupported);
        CHECK(std::string(e.what()).find("16-bit") != std::string::npos);
      }
    }
    // Hierarchical (differential) and lossless arithmetic frames: a baseline file's frame
    // marker relabelled.
    for (const auto& [marker, feature] : {std::pair<int, const char*>{0xC5, "hierarchical"},
                                          {0xCD, "hierarchical"},
                                          {0xCB, "SOF11"}}) {
      auto bytes = hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(8, 8, 1), {});
      for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
        if (bytes[i] == 0xFF && bytes[i + 1] == 0xC0) {
          bytes[i + 1] = std::uint8_t(marker);
          break;
        }
      }
      INFO(std::string(feature));
      try {
        decoder.decode(bytes);
        FAIL("decoded an unsupported file");
      } catch (const Error& e) {
        INFO(std::string(e.what()));
        CHECK(e.code() == ErrorCode::Unsupported);
        CHECK(std::string(e.what()).find(feature) != std::string::npos);
      }
    }
  });
}

TEST_CASE("truncated jpeg files decode as libjpeg-turbo decodes them, with a warning") {
  test::for_each_device([](Device& device) {
    if (device.info().is_emulator) return;
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    JpegDecoder decoder(shared);
    EncodeParams p;
    p.h[0] = 2;
    p.v[0] = 2;
    const auto full =
        hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(61, 43, 5), p);
    p.restart_blocks = 3;
    const auto with_restarts =
        hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(61, 43, 5), p);
    for (const auto* file : {&full, &with_restarts}) {
      for (std::size_t keep = file->size() - 2; keep > file->size() / 2; keep -= 97) {
        INFO("kept " << keep << " of " << file->size() << " bytes");
        std::vector<std::uint8_t> cut(file->begin(), file->begin() + std::ptrdiff_t(keep));
        int libjpeg_warnings = 0;
        const Raster ref = hetcodec::test::libjpeg_decode_default(cut, &libjpeg_warnings);
        const Image img = decoder.decode(cut);
        check_equal(img, ref, "truncated");
        CHECK(libjpeg_warnings > 0);
        CHECK(!img.warnings.empty());
      }
    }
  });
}

// Pins what the README promises about damaged files: a bit flipped in the entropy-coded data
// gives libjpeg-turbo's C code path's pixels, with a warning exactly when libjpeg-turbo warns,
// and an error exactly when it fails.
TEST_CASE("bit-flipped jpeg files decode as libjpeg-turbo's C code path decodes them") {
  EncodeParams p;
  p.h[0] = 2;
  p.v[0] = 2;
  p.restart_blocks = 4;
  const std::vector<std::vector<std::uint8_t>> files = {
      hetcodec::test::read_test_file(data_dir() + "/testorig.jpg"),
      hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(75, 51, 9), p),
      hetcodec::test::read_test_file(data_dir() + "/ffmpeg-yuvj422p-64x40-q8-default.jpg"),
      hetcodec::test::libjpeg_encode_ex(hetcodec::test::synthetic_rgb(640, 480, 3),
                                        EncodeParams{})};
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    std::shared_ptr<Device> shared(&device, [](Device*) {});
    // 16 CPU threads, whatever the machine: a scan without restart markers is then decoded in
    // pieces at once (EntropyDecoder::run_split), which must warn as sequential decoding does.
    JpegDecodeOptions options;
    options.threads = 16;
    JpegDecoder decoder(shared, options);
    int warned = 0;
    for (const auto& file : files) {
      // The entropy-coded data: after the first SOS segment, before EOI.
      std::size_t sos = 2;
      while (sos + 3 < file.size() && !(file[sos] == 0xFF && file[sos + 1] == 0xDA)) ++sos;
      const std::size_t begin = sos + 2 + std::size_t(file[sos + 2] << 8 | file[sos + 3]);
      const std::size_t span = file.size() - 2 - begin;
      for (unsigned i = 0; i < 100; ++i) {
        auto bad = file;
        const std::size_t at = begin + (std::size_t(i) * 7919u) % span;
        bad[at] ^= std::uint8_t(1u << (i % 8));
        INFO("bit " << i % 8 << " of byte " << at);
        int warnings = 0;
        bool failed = false;
        const Raster ref = libjpeg_c_path(bad, warnings, failed);
        if (failed) {
          CHECK_THROWS_AS(decoder.decode(bad), Error);
          continue;
        }
        const Image img = decoder.decode(bad);
        check_equal(img, ref, "bit-flipped");
        // A warning wherever libjpeg-turbo warns. hetcodec also reports two damages that
        // libjpeg-turbo passes over silently in some of its paths: a bad Huffman code (its fast
        // path does not warn) and bytes left over after an interval's last MCU (counted only
        // when its read-ahead has not reached the marker yet). Those are the only additions.
        if (warnings > 0) CHECK(!img.warnings.empty());
        for (const auto& w : img.warnings)
          if (warnings == 0)
            CHECK_MESSAGE((w.find("extraneous bytes") != std::string::npos ||
                           w.find("bad Huffman code") != std::string::npos),
                          w);
        warned += warnings > 0;
      }
    }
    CHECK(warned > 0);  // the flips did damage something
  });
}

#ifdef HETCODEC_TEST_CLI
namespace {
std::string run_cli(const std::string& args) {
  return hetcodec::test::run_command(HETCODEC_TEST_CLI, args);
}
}  // namespace

TEST_CASE("hetcodec decode writes what djpeg -dct int -pnm writes; info describes the file") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("hetcodec-cli-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string in = data_dir() + "/testorig.jpg";
  const std::string gray_in = (dir / "gray.jpg").string();
  {
    hetcodec::test::EncodeParams p;
    const auto bytes =
        hetcodec::test::libjpeg_encode_ex(gray_of(hetcodec::test::synthetic_rgb(31, 17, 2)), p);
    std::ofstream(gray_in, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  // IN OUT, by extension: .pnm gives PPM for colour and PGM for grayscale, as djpeg -pnm.
  for (const auto& [src, out, magic] :
       {std::tuple<std::string, std::string, std::string>{in, "a.pnm", "P6\n227 149\n255\n"},
        {gray_in, "g.pnm", "P5\n31 17\n255\n"}}) {
    const std::string log = run_cli("-d cpu decode " + src + " " + (dir / out).string());
    INFO(log);
    REQUIRE(log.find("exit 0") != std::string::npos);
    const auto written = hetcodec::test::read_test_file((dir / out).string());
    const Raster ref = hetcodec::test::libjpeg_decode_default(hetcodec::test::read_test_file(src));
    REQUIRE(written.size() == magic.size() + ref.samples.size());
    CHECK(std::string(written.begin(), written.begin() + std::ptrdiff_t(magic.size())) == magic);
    CHECK(std::equal(ref.samples.begin(), ref.samples.end(),
                     written.begin() + std::ptrdiff_t(magic.size())));
  }
  // --output-dir with --format, a missing input reported while the others are written.
  const std::string log =
      run_cli("-d cpu decode -q --output-dir " + (dir / "out").string() + " --format pam " + in +
              " " + gray_in + " " + (dir / "missing.jpg").string());
  INFO(log);
  CHECK(log.find("missing.jpg") != std::string::npos);
  CHECK(log.find("exit 1") != std::string::npos);
  CHECK(fs::exists(dir / "out" / "testorig.pam"));
  CHECK(fs::exists(dir / "out" / "gray.pam"));
  const std::string info = run_cli("info " + in);
  CHECK(info.find("227 x 149") != std::string::npos);
  CHECK(info.find("4:2:0") != std::string::npos);
  CHECK(info.find("token stream 26032 bytes") != std::string::npos);
  CHECK(info.find("exit 0") != std::string::npos);
  const std::string bad = run_cli("info " + data_dir() + "/LICENSE.txt");
  CHECK(bad.find("invalid data: not a JPEG, PNG, PNM or PAM file") != std::string::npos);
  CHECK(bad.find("exit 1") != std::string::npos);
  fs::remove_all(dir);
}
#endif
