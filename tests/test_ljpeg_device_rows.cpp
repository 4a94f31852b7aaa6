// Lossless JPEG row tables found on the device (core/portable/jpeg_huffman.h, HC_JH_ROWS;
// docs/ljpeg-decode.md, "The row table"): on every device, the tables the device stages write
// into the job equal the host pre-pass's for every file of tests/data/ljpeg the device takes,
// cut into subsequences of 64 bytes and of 1 KiB, and for larger encoded images of every
// predictor, with and without restart intervals; the decoder with JpegEntropy::Device gives
// libjpeg-turbo 3's samples and says where its table came from; damaged files give the host's
// samples and warnings.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/hash.h"
#include "core/jpeg/entropy_device.h"
#include "core/jpeg/lossless.h"
#include "core/jpeg/parser.h"
#include "core/portable/jpeg_huffman.h"
#include "core/portable/ljpeg.h"
#include "hetcodec/jpeg.h"
#include "host/src/jpeg_device_entropy.h"
#include "tests/support/jpeg_checks.h"
#include "tests/support/test_support.h"
#include "tools/ljpeg_encode.h"

using namespace hetcodec;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "ljpeg";

// In the emulator these run with the other device entropy cases, in a process of their own
// (test_device_entropy.cpp says why).
bool skipped_here(Device& device) {
  return device.info().is_emulator && !std::getenv("HETCODEC_TEST_JPEG_ENTROPY_ALONE");
}

std::string digest(const std::vector<std::uint8_t>& pixels) {
  return Fnv1a64().add(pixels.data(), pixels.size()).hex();
}

struct DeviceRows {
  bool taken = false;  // the device stages settled every segment and found nothing wrong
  std::vector<std::vector<std::uint64_t>> starts;  // per scan, when taken
  int passes = 0;
};

// The row tables the device stages write into the job of file `f`, subsequences of `sub_bytes`.
DeviceRows device_rows(Device& device, const std::vector<std::uint8_t>& f, std::uint32_t sub_bytes,
                       int max_passes = 32) {
  const jpeg::Header h = jpeg::parse(f.data(), f.size());
  const jpeg::LosslessLayout L = jpeg::lossless_layout(h);
  DeviceRows out;
  if (!jpeg::DeviceEntropyPlan::supports_lossless(h, L)) return out;
  // A job with every entry at 0x5A5A5A5A: ROWS must write each of them.
  jpeg::RowTables placeholder;
  for (const auto& ls : L.scans) {
    jpeg::RowTable t;
    t.starts.assign(ls.coded_rows(), 0x5A5A5A5Au);
    placeholder.scans.push_back(t);
  }
  const std::vector<std::uint32_t> job = jpeg::lossless_job(h, L, placeholder);
  jpeg::DeviceEntropyPlan plan;
  CHECK(plan.add_lossless(h, L, job, f.data(), f.size(), 0, sub_bytes) == 0);
  auto q = device.create_queue();
  auto data = device.alloc(f.size());
  auto job_buffer = device.alloc(job.size() * 4);
  q->write(*data, 0, f.data(), f.size());
  q->write(*job_buffer, 0, job.data(), job.size() * 4);
  detail::DeviceEntropyBuffers b;
  detail::run_device_entropy(device, *q, plan, *data, *job_buffer, 0, b, max_passes, HC_JH_ROWS);
  out.passes = b.passes;
  std::vector<std::string> warnings;
  if (!plan.outcome(0, b.status.data(), f.data(), f.size(), warnings)) return out;
  CHECK(warnings.empty());
  std::vector<std::uint32_t> back(job.size());
  q->read(back.data(), *job_buffer, 0, back.size() * 4);
  q->finish();
  out.taken = true;
  for (std::size_t s = 0; s < L.scans.size(); ++s) {
    const std::uint32_t* r = back.data() + back[HC_LJ_H_SCAN_AT + s];
    const std::uint32_t* rows = back.data() + r[HC_LJ_S_ROWS_AT];
    out.starts.emplace_back(rows, rows + L.scans[s].coded_rows());
  }
  return out;
}

std::vector<std::vector<std::uint64_t>> prepass_rows(const std::vector<std::uint8_t>& f) {
  const jpeg::Header h = jpeg::parse(f.data(), f.size());
  const jpeg::LosslessLayout L = jpeg::lossless_layout(h);
  const jpeg::RowTables t = jpeg::row_tables_prepass(f.data(), f.size(), h, L, 2);
  std::vector<std::vector<std::uint64_t>> out;
  for (const auto& s : t.scans) out.push_back(s.starts);
  return out;
}

// Noise over a gradient, `components` samples a pixel below 2^precision, each component's noise
// of its own amplitude (so that each has a Huffman table of its own).
std::vector<std::uint16_t> noisy(int width, int height, int components, int precision,
                                 std::uint32_t seed) {
  std::vector<std::uint16_t> v(std::size_t(width) * height * components);
  const std::uint32_t mask = (1u << precision) - 1u;
  for (std::size_t i = 0; i < v.size(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    const std::uint32_t x = std::uint32_t(i / components) % std::uint32_t(width);
    const int c = int(i % std::size_t(components));
    v[i] =
        std::uint16_t(((x << (precision > 8 ? precision - 8 : 0)) + (seed >> (26 - 2 * c))) & mask);
  }
  return v;
}

}  // namespace

TEST_CASE("device entropy: lossless row tables equal the pre-pass's on every device") {
  const auto files = hetcodec::test::ljpeg_manifest();
  test::for_each_device([&](Device& device) {
    if (skipped_here(device)) return;
    const bool emulator = device.info().is_emulator;
    int compared = 0, handed = 0;
    for (const auto& e : files) {
      if (e.digest == "unsupported") continue;
      if (emulator && std::int64_t(e.width) * e.height * e.components > 2200) continue;
      CAPTURE(e.name);
      const std::vector<std::uint8_t> bytes = test::read_test_file((kDir / e.name).string());
      const auto ref = prepass_rows(bytes);
      for (std::uint32_t sub : {64u, 1024u}) {
        CAPTURE(sub);
        // Every file of the corpus is whole and in order; one whose codes repeat with a short
        // period (a gradient coded with one table) can stay out of step in every subsequence
        // of 64 bytes, settle one subsequence a pass and be handed over unsettled.
        const DeviceRows got = device_rows(device, bytes, sub);
        if (!got.taken) {
          CHECK(sub == 64u);
          ++handed;
          continue;
        }
        CHECK(got.starts == ref);
        ++compared;
      }
    }
    CHECK(compared > (emulator ? 40 : 180));
    CHECK(handed * 20 < compared);
    // Larger images: every predictor, 1 to 4 components, restart intervals of 1, 3 or no rows,
    // 8 to 16 bits; subsequences of 64 bytes hold a handful of samples each.
    const int w = emulator ? 23 : 157, hgt = emulator ? 9 : 61;
    int n = 0;
    for (int predictor = 1; predictor <= 7; ++predictor)
      for (int restart : {0, 1, 3}) {
        const int comps = 1 + (n % 4), precision = 8 + (n * 3) % 9;
        ++n;
        tools::LjpegEncodeOptions o;
        o.predictor = predictor;
        o.precision = precision;
        o.restart_rows = restart;
        o.optimal_tables = (n % 2) == 0;
        const auto samples = noisy(w, hgt, comps, precision, std::uint32_t(n));
        const auto f = tools::ljpeg_encode(samples.data(), w, hgt, comps, o);
        CAPTURE(predictor);
        CAPTURE(restart);
        CAPTURE(comps);
        const DeviceRows got = device_rows(device, f, 64);
        REQUIRE(got.taken);
        CHECK(got.starts == prepass_rows(f));
      }
  });
}

TEST_CASE("device entropy: lossless decoding with the row table from the device") {
  const auto files = hetcodec::test::ljpeg_manifest();
  test::for_each_device([&](Device& device) {
    if (skipped_here(device)) return;
    const bool emulator = device.info().is_emulator;
    JpegDecodeOptions on_device, on_host;
    on_device.entropy = JpegEntropy::Device;
    on_host.entropy = JpegEntropy::Host;
    JpegDecoder d(test::borrowed(device), on_device), host(test::borrowed(device), on_host);
    int found = 0;
    for (const auto& e : files) {
      if (e.digest == "unsupported") continue;
      if (emulator && std::int64_t(e.width) * e.height * e.components > 600) continue;
      CAPTURE(e.name);
      const std::vector<std::uint8_t> bytes = test::read_test_file((kDir / e.name).string());
      LosslessReport r, rh;
      const Image im = d.decode_lossless(bytes.data(), bytes.size(), nullptr, &r);
      CHECK(digest(im.pixels) == e.digest);
      CHECK(im.warnings.empty());
      host.decode_lossless(bytes.data(), bytes.size(), nullptr, &rh);
      // Where the host would walk the codes, the device found the table.
      if (rh.row_table == "pre-pass") {
        CHECK(r.row_table == "device");
        ++found;
      } else {
        CHECK(r.row_table == rh.row_table);
      }
    }
    CHECK(found > (emulator ? 5 : 40));
    // Damaged files: the device finds them so and hands them to the pre-pass, whose samples and
    // warnings (libjpeg-turbo 3's) they get.
    std::ifstream list(kDir / "bad.txt");
    REQUIRE(list.good());
    std::string line;
    int damaged = 0;
    while (std::getline(list, line)) {
      if (line.empty() || line[0] == '#' || line.find(" decodes ") == std::string::npos) continue;
      const std::string name = line.substr(0, line.find(' '));
      CAPTURE(name);
      const std::vector<std::uint8_t> bytes = test::read_test_file((kDir / name).string());
      LosslessReport r;
      const Image a = d.decode_lossless(bytes.data(), bytes.size(), nullptr, &r);
      const Image b = host.decode(bytes.data(), bytes.size());
      CHECK(a.pixels == b.pixels);
      CHECK(a.warnings == b.warnings);
      CHECK(!a.warnings.empty());
      CHECK(r.row_table != "device");
      ++damaged;
    }
    CHECK(damaged >= 3);
  });
}
