// Lossless JPEG decode on every device: the files of tests/data/ljpeg (imagecodecs'
// libjpeg-turbo 3, a T.81 writer for restarts, point transforms and split scans, FFmpeg, DICOM)
// equal libjpeg-turbo 3's samples (digests made by tests/data/ljpeg/make_ljpeg.py); every
// reconstruction order, every way of having the row table, damaged files as libjpeg-turbo 3
// treats them, and device images.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/hash.h"
#include "core/jpeg/lossless.h"
#include "core/jpeg/parser.h"
#include "core/portable/ljpeg.h"
#include "hetcodec/jpeg.h"
#include "tests/support/test_support.h"
#include "tools/ljpeg_encode.h"

using namespace hetcodec;
using hetcodec::test::for_each_device;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "ljpeg";

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "cannot read " << p);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

using Entry = hetcodec::test::LjpegEntry;
std::vector<Entry> manifest() { return hetcodec::test::ljpeg_manifest(); }

struct Bad {
  std::string name, outcome, digest;
};

std::vector<Bad> bad_files() {
  std::ifstream f(kDir / "bad.txt");
  REQUIRE(f.good());
  std::vector<Bad> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    Bad b;
    in >> b.name >> b.outcome >> b.digest;
    out.push_back(b);
  }
  REQUIRE(out.size() > 10);
  return out;
}

std::string digest(const std::vector<std::uint8_t>& pixels) {
  return Fnv1a64().add(pixels.data(), pixels.size()).hex();
}

// Files whose sampling factors this decoder refuses although libjpeg-turbo 3 decodes them (all
// components sampled 1x2 in one interleaved scan): docs/ljpeg-decode.md.
bool refused_sampling(const std::string&) { return false; }

// On the emulator, the small files only (Oclgrind runs every work-item in turn).
bool small_enough(const Device& d, const Entry& e) {
  return !d.info().is_emulator || std::int64_t(e.width) * e.height * e.components <= 2200;
}

std::vector<std::uint8_t> download(Device& d, const DeviceImage& im) {
  std::vector<std::uint8_t> out(im.bytes());
  auto q = d.create_queue();
  q->read(out.data(), *im.buffer, im.offset, out.size());
  q->finish();
  return out;
}

}  // namespace

TEST_CASE("ljpeg decode on every device: every file equals libjpeg-turbo 3") {
  const std::vector<Entry> files = manifest();
  for_each_device([&](Device& d) {
    std::shared_ptr<Device> dev(&d, [](Device*) {});
    JpegDecoder decoder(dev);
    int checked = 0;
    for (const Entry& e : files) {
      if (!small_enough(d, e)) continue;
      CAPTURE(e.name);
      const std::vector<std::uint8_t> bytes = read_bytes(kDir / e.name);
      if (e.digest == "unsupported" || refused_sampling(e.name)) {
        try {
          decoder.decode(bytes.data(), bytes.size());
          FAIL("decoded a file with subsampled components");
        } catch (const Error& err) {
          CHECK(err.code() == ErrorCode::Unsupported);
        }
        continue;
      }
      const ImageInfo info = decoder.info(bytes.data(), bytes.size());
      LosslessReport report;
      const Image im = decoder.decode_lossless(bytes.data(), bytes.size(), nullptr, &report);
      CHECK(im.width == e.width);
      CHECK(im.height == e.height);
      CHECK(im.channels() == e.components);
      CHECK(im.bit_depth == (e.precision <= 8 ? 8 : 16));
      CHECK(info.width == im.width);
      CHECK(info.format == im.format);
      CHECK(info.bit_depth == im.bit_depth);
      CHECK(report.precision == e.precision);
      CHECK(report.predictor == e.predictor);
      CHECK(report.point_transform == e.pt);
      CHECK(report.scans == e.scans);
      CHECK(digest(im.pixels) == e.digest);
      // decode() finds the file by its bytes.
      CHECK(digest(decoder.decode(bytes.data(), bytes.size()).pixels) == e.digest);
      ++checked;
    }
    CHECK(checked > (d.info().is_emulator ? 20 : 90));
  });
}

TEST_CASE("ljpeg decode on every device: every reconstruction order, device images") {
  const std::vector<Entry> files = manifest();
  for_each_device([&](Device& d) {
    std::shared_ptr<Device> dev(&d, [](Device*) {});
    for (Wavefront order : {Wavefront::Tickets, Wavefront::Diagonals}) {
      JpegDecodeOptions o;
      o.lossless_order = order;
      JpegDecoder decoder(dev, o);
      int checked = 0;
      for (const Entry& e : files) {
        if (e.digest == "unsupported" || refused_sampling(e.name) || !small_enough(d, e)) continue;
        // The engine's tiles are 256 bytes by 32 rows: the larger files cross several.
        if (e.width * e.height < 2000 && !d.info().is_emulator) continue;
        // Oclgrind cannot see the ticket order's synchronisation between work-groups: there,
        // tickets on images of one tile (one work-group), whose every kernel it checks.
        if (d.info().is_emulator && order == Wavefront::Tickets &&
            (e.width * e.components * (e.precision > 8 ? 2 : 1) > 256 || e.height > 32))
          continue;
        CAPTURE(e.name);
        CAPTURE(int(order));
        const std::vector<std::uint8_t> bytes = read_bytes(kDir / e.name);
        const DeviceImage im = decoder.decode_to_device(bytes.data(), bytes.size());
        CHECK(im.bit_depth == (e.precision <= 8 ? 8 : 16));
        CHECK(digest(download(d, im)) == e.digest);
        ++checked;
      }
      CHECK(checked > (d.info().is_emulator && order == Wavefront::Tickets ? 0 : 10));
    }
  });
}

TEST_CASE("ljpeg decode on every device: the row table from markers, the pre-pass and a caller") {
  const std::vector<Entry> files = manifest();
  for_each_device([&](Device& d) {
    std::shared_ptr<Device> dev(&d, [](Device*) {});
    JpegDecoder decoder(dev);
    int markers = 0, given = 0;
    for (const Entry& e : files) {
      if (e.digest == "unsupported" || refused_sampling(e.name) || !small_enough(d, e)) continue;
      CAPTURE(e.name);
      const std::vector<std::uint8_t> bytes = read_bytes(kDir / e.name);
      const jpeg::Header h = jpeg::parse(bytes.data(), bytes.size());
      const jpeg::LosslessLayout L = jpeg::lossless_layout(h);
      const jpeg::RowTables from_markers =
          jpeg::row_tables_from_markers(bytes.data(), bytes.size(), h, L);
      const jpeg::RowTables prepass = jpeg::row_tables_prepass(bytes.data(), bytes.size(), h, L, 3);
      REQUIRE(prepass.scans.size() == L.scans.size());
      CHECK(prepass.warnings.empty());
      if (!from_markers.scans.empty()) {
        // One row per interval: the markers say where each starts, as the pre-pass finds.
        for (std::size_t s = 0; s < L.scans.size(); ++s)
          CHECK(from_markers.scans[s].starts == prepass.scans[s].starts);
        LosslessReport r;
        decoder.decode_lossless(bytes.data(), bytes.size(), nullptr, &r);
        CHECK(r.row_table == "restart markers");
        ++markers;
      }
      // The pre-pass's table written as a sidecar, read back and given.
      const std::vector<std::uint8_t> sidecar =
          decoder.lossless_row_table(bytes.data(), bytes.size());
      const std::vector<std::uint64_t> table = decoder.read_lossless_row_table(
          bytes.data(), bytes.size(), sidecar.data(), sidecar.size());
      LosslessReport r;
      const Image im = decoder.decode_lossless(bytes.data(), bytes.size(), &table, &r);
      CHECK(r.row_table == "given");
      CHECK(digest(im.pixels) == e.digest);
      ++given;
    }
    CHECK(markers >= 3);
    CHECK(given > 20);
  });
}

TEST_CASE("ljpeg decode on every device: a bad row table is refused") {
  const std::vector<std::uint8_t> bytes = read_bytes(kDir / "ic-gray16-pred6-64x33.jpg");
  for_each_device([&](Device& d) {
    std::shared_ptr<Device> dev(&d, [](Device*) {});
    JpegDecoder decoder(dev);
    const std::vector<std::uint8_t> sidecar =
        decoder.lossless_row_table(bytes.data(), bytes.size());
    std::vector<std::uint64_t> table =
        decoder.read_lossless_row_table(bytes.data(), bytes.size(), sidecar.data(), sidecar.size());
    REQUIRE(table.size() == 33);
    auto refused = [&](const std::vector<std::uint64_t>& t) {
      try {
        decoder.decode_lossless(bytes.data(), bytes.size(), &t);
      } catch (const Error& e) {
        return e.code() == ErrorCode::InvalidArgument;
      }
      return false;
    };
    std::vector<std::uint64_t> t = table;
    t[5] = std::uint64_t(bytes.size()) * 8 + 100;  // past the data
    CHECK(refused(t));
    t = table;
    std::swap(t[7], t[8]);  // out of order
    CHECK(refused(t));
    t = table;
    t.pop_back();  // a row short
    CHECK(refused(t));
    CHECK_THROWS_AS(decoder.read_lossless_row_table(bytes.data(), bytes.size(), sidecar.data(),
                                                    sidecar.size() - 1),
                    Error);
  });
}

TEST_CASE("ljpeg decode on every device: damaged files as libjpeg-turbo 3 treats them") {
  for_each_device([&](Device& d) {
    std::shared_ptr<Device> dev(&d, [](Device*) {});
    JpegDecoder decoder(dev);
    for (const Bad& b : bad_files()) {
      CAPTURE(b.name);
      const std::vector<std::uint8_t> bytes = read_bytes(kDir / b.name);
      if (b.outcome == "error") {
        try {
          decoder.decode(bytes.data(), bytes.size());
          FAIL("decoded a file libjpeg-turbo refuses");
        } catch (const Error& e) {
          CHECK(std::string(e.what()).size() > 10);
        }
        continue;
      }
      REQUIRE(b.outcome == "decodes");
      const Image im = decoder.decode(bytes.data(), bytes.size());
      CHECK(digest(im.pixels) == b.digest);
      CHECK(!im.warnings.empty());
    }
  });
}

TEST_CASE("ljpeg decode: a batch of lossless and baseline files keeps its order") {
  const std::vector<std::uint8_t> a = read_bytes(kDir / "ic-gray16-pred1-64x33.jpg");
  const std::vector<std::uint8_t> b = read_bytes(kDir / "bad-predictor-8.jpg");
  const std::vector<std::uint8_t> c =
      read_bytes(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "jpeg" / "testorig.jpg");
  JpegDecoder decoder("cpu");
  BatchErrors errors;
  const std::vector<Image> out = decoder.decode_batch(
      {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), c.size()}}, &errors);
  REQUIRE(out.size() == 3);
  CHECK(out[0].bit_depth == 16);
  CHECK(digest(out[0].pixels) == digest(decoder.decode(a.data(), a.size()).pixels));
  CHECK(errors[1].has_value());
  CHECK(!errors[0].has_value());
  CHECK(!errors[2].has_value());
  CHECK(out[2].width == 227);
  CHECK_THROWS_AS(decoder.decode_batch({{b.data(), b.size()}}), Error);
}

TEST_CASE("ljpeg decode: every truncation fails cleanly or decodes with a warning") {
  // Runs under AddressSanitizer in the robust suite too: no read past the file.
  const std::vector<std::uint8_t> bytes = read_bytes(kDir / "wr-rgb8-pred7-64x33-rst3rows.jpg");
  JpegDecoder decoder("cpu");
  for (std::size_t n = 0; n < bytes.size(); n += 7) {
    CAPTURE(n);
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
    try {
      const Image im = decoder.decode(cut.data(), cut.size());
      CHECK(im.width == 64);
    } catch (const Error& e) {
      CHECK(std::string(e.what()).size() > 5);
    }
  }
}

TEST_CASE("ljpeg decode: flipped bits decode or fail cleanly, the same on the given table") {
  // Runs under AddressSanitizer in the robust suite too. A damaged file's samples depend on the
  // row table only through libjpeg-turbo's rules, which the pre-pass follows: the decode with
  // the table it wrote, given back, equals the decode that made it.
  JpegDecoder decoder("cpu");
  for (const char* name : {"ic-gray16-pred6-64x33.jpg", "wr-rgb8-pred7-64x33-rst3rows.jpg",
                           "wr-gray12-pred4-37x23-rst1row.jpg"}) {
    const std::vector<std::uint8_t> bytes = read_bytes(kDir / name);
    const std::vector<unsigned char> r = hetcodec::test::random_bytes(400, 7);
    for (int i = 0; i < 200; ++i) {
      std::vector<std::uint8_t> bad = bytes;
      const std::size_t at = (std::size_t(r[2 * i]) << 8 | r[2 * i + 1]) % bad.size();
      bad[at] ^= std::uint8_t(1u << (r[2 * i] % 8));
      CAPTURE(name);
      CAPTURE(at);
      try {
        const Image im = decoder.decode(bad.data(), bad.size());
        const std::vector<std::uint8_t> sidecar =
            decoder.lossless_row_table(bad.data(), bad.size());
        const std::vector<std::uint64_t> table =
            decoder.read_lossless_row_table(bad.data(), bad.size(), sidecar.data(), sidecar.size());
        const Image again = decoder.decode_lossless(bad.data(), bad.size(), &table);
        CHECK(again.pixels == im.pixels);
      } catch (const Error& e) {
        CHECK(std::string(e.what()).size() > 5);
      }
    }
  }
}

TEST_CASE("ljpeg decode on every device: images of many tiles give their samples back") {
  // Lossless: the decoded samples are the encoded ones (tools/ljpeg_encode.cpp, whose files
  // libjpeg-turbo 3 decodes to the same samples). 1100 x 150 crosses 9 tiles of 256 bytes and
  // 5 tile rows; each predictor, with and without restarts, 1 and 3 components.
  const int w = 1100, h = 150;
  for_each_device([&](Device& d) {
    if (d.info().is_emulator) return;
    std::shared_ptr<Device> dev(&d, [](Device*) {});
    for (Wavefront order : {Wavefront::Auto, Wavefront::Tickets, Wavefront::Diagonals}) {
      JpegDecodeOptions o;
      o.lossless_order = order;
      JpegDecoder decoder(dev, o);
      for (int comps : {1, 3})
        for (int pred = 1; pred <= 7; ++pred)
          for (int restart : {0, 1, 7}) {
            // The engine's orders on every predictor without restarts; the rest in Auto (kept
            // short for compute-sanitizer's racecheck, which runs this suite on CUDA).
            if (order != Wavefront::Auto && restart != 0) continue;
            CAPTURE(comps);
            CAPTURE(pred);
            CAPTURE(restart);
            CAPTURE(int(order));
            const int precision = comps == 1 ? 16 : 12;
            std::vector<std::uint16_t> src(std::size_t(w) * h * comps);
            std::uint32_t x = 12345u + std::uint32_t(pred * 7 + restart);
            for (std::size_t i = 0; i < src.size(); ++i) {
              x = x * 1103515245u + 12345u;
              const std::size_t px = i / std::size_t(comps);
              src[i] = std::uint16_t(
                  ((px % std::size_t(w)) * 37 + (px / std::size_t(w)) * 91 + (x >> 20) % 64) &
                  ((1u << precision) - 1));
            }
            tools::LjpegEncodeOptions eo;
            eo.predictor = pred;
            eo.precision = precision;
            eo.restart_rows = restart;
            const std::vector<std::uint8_t> file = tools::ljpeg_encode(src.data(), w, h, comps, eo);
            const Image im = decoder.decode(file.data(), file.size());
            REQUIRE(im.pixels.size() == src.size() * 2);
            bool same = true;
            for (std::size_t i = 0; i < src.size() && same; ++i)
              same = (std::uint16_t(im.pixels[2 * i] << 8 | im.pixels[2 * i + 1])) == src[i];
            CHECK(same);
          }
    }
  });
}

TEST_CASE("ljpeg row table: sidecars of 32-bit and 64-bit entries read back") {
  // A scan of 512 MiB or more needs 64-bit entries; no test file is that large, so the sidecar
  // form is checked on tables marked wide.
  jpeg::RowTables t;
  jpeg::RowTable a, b;
  a.starts = {0, 77, 1234567};
  b.starts = {0, std::uint64_t(5) << 32, HC_LJ_NO_DATA, (std::uint64_t(1) << 35) - 1};
  t.scans = {a, b};
  const std::vector<std::uint8_t> narrow =
      jpeg::write_row_table_sidecar({std::vector<jpeg::RowTable>{a}, {}});
  CHECK(narrow.size() == 3 * 4);
  CHECK(jpeg::read_row_table_sidecar(narrow.data(), narrow.size(), 3) == a.starts);
  t.scans[1].wide = true;
  const std::vector<std::uint8_t> wide = jpeg::write_row_table_sidecar(t);
  REQUIRE(wide.size() == 7 * 8);
  const std::vector<std::uint64_t> back = jpeg::read_row_table_sidecar(wide.data(), wide.size(), 7);
  std::vector<std::uint64_t> want = a.starts;
  want.insert(want.end(), b.starts.begin(), b.starts.end());
  CHECK(back == want);
  CHECK_THROWS_AS(jpeg::read_row_table_sidecar(wide.data(), wide.size() - 8, 7), Error);
}
