// PNG decode on every device: PngSuite, libpng's and ImageMagick's files equal to libpng; the
// wavefront engine (tiles in both orders, bands, independent rows) on images whose rows use
// every filter and span many tiles; pieces, the device inflate, iDOT, bad filter types, the CLI,
// batches and the device-image path.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/png/reader.h"
#include "core/png/writer.h"
#include "core/portable/png_filter.h"
#include "core/portable/wavefront.h"
#include "hetcodec/png.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
using hetcodec::test::for_each_device;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Rows filtered with a random filter each (all five types), for `im`.
// Rows filtered with random types (None or Sub only with sub_only); with bands, the rows at
// multiples of 32 take None or Sub and the others Up, Average or Paeth, so that every tile row
// of the wavefront engine after the first starts a band and no other row does.
std::vector<std::uint8_t> filter_randomly(const png::Raster& im, unsigned seed, bool sub_only,
                                          bool bands = false) {
  const std::size_t rb = im.row_bytes();
  const std::uint32_t bpp = std::uint32_t(im.channels * im.bit_depth / 8);
  const auto choice = test::random_bytes(std::size_t(im.height), seed);
  std::vector<std::uint8_t> out;
  for (int y = 0; y < im.height; ++y) {
    const std::uint8_t* row = im.samples.data() + std::size_t(y) * rb;
    int type = sub_only ? choice[std::size_t(y)] % 2 : choice[std::size_t(y)] % 5;
    if (bands) type = y % 32 == 0 ? choice[std::size_t(y)] % 2 : 2 + choice[std::size_t(y)] % 3;
    out.push_back(std::uint8_t(type));
    for (std::size_t i = 0; i < rb; ++i)
      out.push_back(
          hc_png_filter_byte(type, row, y ? row - rb : row, y > 0, std::uint32_t(i), bpp));
  }
  return out;
}

png::Raster random_image(int w, int h, int channels, int depth, unsigned seed) {
  png::Raster im;
  im.width = w;
  im.height = h;
  im.channels = channels;
  im.bit_depth = depth;
  const auto r = test::random_bytes(im.row_bytes() * std::size_t(h), seed);
  im.samples.assign(r.begin(), r.end());
  // Some smooth areas too, where Paeth and Average predict well.
  for (std::size_t i = 0; i < im.samples.size() / 3; ++i) im.samples[i] = std::uint8_t(i / 7);
  return im;
}

bool emulator(Device& dev) { return dev.info().is_emulator; }

}  // namespace

TEST_CASE("png decode on every device: PngSuite equals libpng") {
  std::vector<fs::path> files;
  for (const auto& e :
       fs::directory_iterator(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "pngsuite"))
    if (e.path().extension() == ".png" && e.path().filename().string()[0] != 'x')
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 150);
  for_each_device([&](Device& dev) {
    PngDecoder decoder(open_device(dev.info().spec));
    std::size_t k = 0;
    for (const auto& p : files) {
      // The emulator takes one file in four (all colour types and depths still occur).
      if (emulator(dev) && (k++ % 4) != 0) continue;
      INFO(p.filename().string());
      const auto f = read_bytes(p);
      const png::Raster ref = test::libpng_decode_expanded(f);
      const Image ours = decoder.decode(f.data(), f.size());
      CHECK(ours.width == ref.width);
      CHECK(ours.height == ref.height);
      CHECK(ours.channels() == ref.channels);
      CHECK(ours.bit_depth == ref.bit_depth);
      CHECK(ours.pixels == ref.samples);
    }
  });
}

TEST_CASE("png decode on every device: the wavefront engine, both orders, every filter") {
  struct Case {
    int w, h, channels, depth;
    bool sub_only;
    bool bands = false;
  };
  // Sizes around the tile (32 rows x 256 bytes): one tile, edges, many tiles; bpp 1 to 8.
  const std::vector<Case> cases = {
      {1, 1, 1, 8, false},           {3, 70, 3, 8, false},          {300, 33, 3, 8, false},
      {129, 65, 4, 16, false},       {700, 97, 1, 8, false},        {257, 31, 2, 8, false},
      {400, 64, 3, 16, false},       {300, 40, 4, 8, false},        {520, 50, 3, 8, true},
      {700, 200, 3, 8, false, true}, {90, 100, 2, 16, false, true}, {40, 30, 3, 8, false}};
  for_each_device([&](Device& dev) {
    for (const Wavefront order : {Wavefront::Tickets, Wavefront::Diagonals}) {
      PngDecodeOptions o;
      o.wavefront = order;
      PngDecoder decoder(open_device(dev.info().spec), o);
      unsigned seed = 1;
      for (const Case& c : cases) {
        if (emulator(dev) && c.w * c.h > 20000) continue;
        // Oclgrind cannot see the ticket order's synchronisation between work-groups: there,
        // tickets on images of one tile (one work-group), whose every kernel it checks.
        if (emulator(dev) && order == Wavefront::Tickets &&
            (c.w * c.channels * c.depth / 8 > 256 || c.h > 32))
          continue;
        INFO(c.w << "x" << c.h << " channels " << c.channels << " depth " << c.depth
                 << (order == Wavefront::Tickets ? " tickets" : " diagonals"));
        const png::Raster im = random_image(c.w, c.h, c.channels, c.depth, seed++);
        const auto file =
            png::assemble_compatible(im, filter_randomly(im, seed, c.sub_only, c.bands));
        const Image ours = decoder.decode(file.data(), file.size());
        CHECK(ours.pixels == im.samples);
        CHECK(ours.pixels == test::libpng_decode_expanded(file).samples);
      }
    }
  });
}

TEST_CASE("png defilter on every device: the band path equals the reference") {
  // Filtered rows whose every 32nd row is None or Sub (the rest any filter), de-filtered by
  // PngKernels::defilter with PngDefilterInfo::bands set, against the reference de-filter:
  // every bytes-per-pixel, widths from under one chunk to many windows of the ring (a window is
  // 256 bytes, the ring 4 of them), heights with a short last band; at an offset in the buffer.
  struct Case {
    std::uint32_t row_bytes, height, bpp;
  };
  const std::vector<Case> cases = {{5, 1, 1},     {7, 40, 1},    {256, 32, 2},  {257, 33, 3},
                                   {513, 64, 4},  {1030, 70, 6}, {2100, 65, 3}, {1800, 31, 8},
                                   {6120, 96, 3}, {4000, 100, 8}};
  for_each_device([&](Device& dev) {
    unsigned seed = 300;
    for (const Case& c : cases) {
      if (emulator(dev) && c.row_bytes * c.height > 40000) continue;
      INFO(c.row_bytes << " bytes x " << c.height << " rows, bpp " << c.bpp);
      const std::size_t stride = c.row_bytes + 1u, offset = 24;
      std::vector<std::uint8_t> filtered = test::random_bytes(offset + stride * c.height, seed++);
      const auto types = test::random_bytes(c.height, seed++);
      for (std::uint32_t y = 0; y < c.height; ++y)
        filtered[offset + y * stride] = std::uint8_t(y % 32 == 0 ? types[y] % 2 : types[y] % 5);
      std::vector<std::uint8_t> expected = filtered;
      png::defilter(expected.data() + offset, c.height, c.row_bytes, c.bpp);
      auto rows = dev.alloc(filtered.size());
      auto scratch = dev.alloc(4);
      auto q = dev.create_queue();
      q->write(*rows, 0, filtered.data(), filtered.size());
      PngDefilterInfo d;
      d.offset = offset;
      d.height = c.height;
      d.row_bytes = c.row_bytes;
      d.bpp = c.bpp;
      d.bands = true;
      dev.png().defilter(*q, *rows, *scratch, d, Wavefront::Tickets);
      std::vector<std::uint8_t> back(filtered.size());
      q->read(back.data(), *rows, 0, back.size());
      q->finish();
      CHECK(back == expected);
    }
  });
}

TEST_CASE("png defilter on every device: tiles in ticket order, one tile and several") {
  // PngKernels::defilter in ticket order (its flags cleared by png_clear first) against the
  // reference de-filter: one tile (one work-group: the emulator checks it too, as it cannot see
  // the tickets' synchronisation between work-groups) and, off the emulator, 3 x 3 tiles.
  struct Case {
    std::uint32_t row_bytes, height, bpp;
  };
  const std::vector<Case> cases = {{200, 30, 3}, {700, 90, 4}};
  for_each_device([&](Device& dev) {
    unsigned seed = 900;
    for (const Case& c : cases) {
      if (emulator(dev) && (c.row_bytes > 256 || c.height > 32)) continue;
      INFO(c.row_bytes << " bytes x " << c.height << " rows, bpp " << c.bpp);
      const std::size_t stride = c.row_bytes + 1u;
      std::vector<std::uint8_t> filtered = test::random_bytes(stride * c.height, seed++);
      const auto types = test::random_bytes(c.height, seed++);
      for (std::uint32_t y = 0; y < c.height; ++y) filtered[y * stride] = types[y] % 5;
      std::vector<std::uint8_t> expected = filtered;
      png::defilter(expected.data(), c.height, c.row_bytes, c.bpp);
      PngDefilterInfo d;
      d.height = c.height;
      d.row_bytes = c.row_bytes;
      d.bpp = c.bpp;
      const std::uint32_t tiles = hc_wf_tiles_x(c.row_bytes) * hc_wf_tiles_y(c.height);
      auto rows = dev.alloc(filtered.size());
      auto scratch = dev.alloc(4 * (1 + tiles));
      auto q = dev.create_queue();
      q->write(*rows, 0, filtered.data(), filtered.size());
      dev.png().defilter(*q, *rows, *scratch, d, Wavefront::Tickets);
      std::vector<std::uint8_t> back(filtered.size());
      q->read(back.data(), *rows, 0, back.size());
      q->finish();
      CHECK(back == expected);
    }
  });
}

TEST_CASE("png decode on every device: parallel-mode files and device images") {
  png::Raster im = random_image(600, 200, 3, 8, 42);
  for_each_device([&](Device& dev) {
    if (emulator(dev)) return;  // covered by the cases above at a size the emulator can take
    auto device = open_device(dev.info().spec);
    PngEncoder encoder(device);
    Image raw;
    raw.width = im.width;
    raw.height = im.height;
    raw.format = PixelFormat::RGB;
    raw.pixels = im.samples;
    const auto file = encoder.encode(raw);
    PngDecodeOptions o;
    o.threads = 4;
    PngDecoder decoder(device, o);
    const Image back = decoder.decode(file.data(), file.size());
    CHECK(decoder.stage_times().used_index);
    CHECK(back.pixels == im.samples);
    const DeviceImage d = decoder.decode_to_device(file.data(), file.size());
    REQUIRE(d.buffer);
    CHECK(d.bytes() == im.samples.size());
    std::vector<std::uint8_t> bytes(d.bytes());
    auto q = device->create_queue();
    q->read(bytes.data(), *d.buffer, d.offset, bytes.size());
    q->finish();
    CHECK(bytes == im.samples);
  });
}

TEST_CASE("png decode on every device: a libpng file without an index, inflated in pieces") {
  // A gradient with noise (dynamic blocks, as a photo gives), 16-bit and 8-bit, interlaced too.
  for (const auto& [depth, interlace] : {std::pair{8, false}, {16, false}, {8, true}}) {
    const int w = 500, h = 400, channels = 3, bytes = depth / 8;
    std::vector<std::uint8_t> rows(std::size_t(w) * h * channels * bytes);
    const auto noise = test::random_bytes(rows.size(), unsigned(depth + interlace));
    for (std::size_t i = 0; i < rows.size(); ++i)
      rows[i] = std::uint8_t((i / std::size_t(channels * bytes)) % std::size_t(w) / 3 +
                             i / (std::size_t(w) * channels * bytes) + (noise[i] & 31));
    const auto file = test::libpng_write_any(w, h, png::kRgb, depth, interlace, rows);
    const png::Raster want = test::libpng_decode_expanded(file);
    const png::Info info = png::parse(file.data(), file.size());
    INFO("depth " << depth << (interlace ? ", interlaced" : "") << ", " << info.idat_bytes
                  << " bytes of zlib data");
    for_each_device([&](Device& dev) {
      if (emulator(dev)) return;  // the host side is the same; the emulator takes the small cases
      auto device = open_device(dev.info().spec);
      PngDecodeOptions o;
      o.threads = 8;
      PngDecoder decoder(device, o);
      for (int rep = 0; rep < 2; ++rep) {  // the second time on the kept threads and scratch
        const Image back = decoder.decode(file.data(), file.size());
        CHECK(!decoder.stage_times().used_index);
        CHECK(decoder.stage_times().split_pieces > 1);
        CHECK(decoder.stage_times().split_pieces <= png::split_parts(info.idat_bytes, 8));
        CHECK(back.pixels == want.samples);
      }
    });
  }
}

// Decodes `file` with `o` and says what came out: the samples and warnings, or the error.
std::string outcome(PngDecoder& decoder, const std::vector<std::uint8_t>& file,
                    std::vector<std::uint8_t>* samples = nullptr) {
  try {
    const Image im = decoder.decode(file.data(), file.size());
    if (samples) *samples = im.pixels;
    std::string s =
        "decoded " + std::to_string(im.pixels.size()) + " bytes, hash " +
        std::to_string(std::hash<std::string>()(std::string(im.pixels.begin(), im.pixels.end())));
    for (const auto& w : im.warnings) s += "; " + w;
    return s;
  } catch (const Error& e) {
    return std::string("error ") + to_string(e.code()) + ": " + e.what();
  }
}

TEST_CASE("png decode on every device: hcRS segments inflated on the device") {
  struct Case {
    int w, h, channels, depth, segments;
  };
  // Random and smooth areas (stored, fixed and dynamic blocks, matches), 8 and 16 bits, one
  // row per segment, a segment per several rows, and one image whose data spans IDAT chunks.
  const std::vector<Case> cases = {{60, 40, 3, 8, 5},
                                   {33, 20, 4, 16, 3},
                                   {1, 30, 1, 8, 30},
                                   {25, 9, 2, 8, 1},
                                   {700, 600, 3, 8, 9}};
  std::vector<std::pair<png::Raster, std::vector<std::uint8_t>>> files;
  unsigned seed = 7;
  for (const Case& c : cases) {
    png::Raster im = random_image(c.w, c.h, c.channels, c.depth, seed++);
    Image raw;
    raw.width = im.width;
    raw.height = im.height;
    raw.format = png_format(c.channels);
    raw.bit_depth = c.depth;
    raw.pixels = im.samples;
    PngEncodeOptions eo;
    eo.segments = c.segments;
    PngEncoder encoder("cpu", eo);
    files.emplace_back(im, encoder.encode(raw));
  }
  for_each_device([&](Device& dev) {
    // Under Oclgrind only in a process of its own (the emulator-png-inflate test, which sets
    // HETCODEC_TEST_PNG_INFLATE_ALONE), on the small files: after other tests have run in the
    // same process, its uninitialised-value tracking marks every byte png_inflate stores to
    // global memory as uninitialised (the kernel's reads of them, and the de-filter's, are then
    // reported), though the bytes are right; compute-sanitizer's initcheck is clean on CUDA.
    std::size_t count = files.size();
    if (emulator(dev)) {
      if (!std::getenv("HETCODEC_TEST_PNG_INFLATE_ALONE")) return;
      count = 4;
    }
    auto device = open_device(dev.info().spec);
    PngDecodeOptions o;
    o.inflate = PngInflate::Device;
    PngDecoder decoder(device, o);
    for (std::size_t i = 0; i < count; ++i) {
      const auto& [im, file] = files[i];
      INFO("case " << i << ", " << im.width << "x" << im.height);
      const Image back = decoder.decode(file.data(), file.size());
      CHECK(decoder.stage_times().inflated_on_device);
      CHECK(back.pixels == im.samples);
    }
    // Damage inside the data (CRCs ignored, so that the inflate sees it): the device inflate
    // fails or its checksum does not match, and the host path decides, as it does alone.
    PngDecodeOptions host = o;
    host.inflate = PngInflate::Host;
    host.ignore_crc = o.ignore_crc = true;
    PngDecoder on_device(device, o), on_host(device, host);
    const auto& file = files[0].second;
    for (const std::size_t at : {file.size() / 2, file.size() / 3, file.size() - 20}) {
      std::vector<std::uint8_t> bad = file;
      bad[at] ^= 0x24;
      INFO("byte " << at);
      CHECK(outcome(on_device, bad) == outcome(on_host, bad));
    }
  });
}

TEST_CASE("png decode on every device: files with Apple's iDOT index") {
  // Two segments as Apple writes them, and five; 8-bit RGBA and 16-bit RGB; the segments are
  // inflated on host threads and, in a second pass, on the device.
  struct Case {
    int w, h, channels, depth;
    std::vector<std::uint32_t> rows;
  };
  const std::vector<Case> cases = {{320, 96, 4, 8, {0, 48}}, {150, 61, 3, 16, {0, 1, 20, 40, 60}}};
  for_each_device([&](Device& dev) {
    if (emulator(dev)) return;  // as the hcRS device-inflate test above
    auto device = open_device(dev.info().spec);
    unsigned seed = 70;
    for (const Case& c : cases) {
      const png::Raster im = random_image(c.w, c.h, c.channels, c.depth, seed++);
      const auto file = test::idot_file(im, filter_randomly(im, seed, false), c.rows);
      for (const PngInflate where : {PngInflate::Host, PngInflate::Device}) {
        INFO(c.w << "x" << c.h << ", " << c.rows.size() << " segments, inflated on the "
                 << (where == PngInflate::Host ? "host" : "device"));
        PngDecodeOptions o;
        o.threads = 4;
        o.inflate = where;
        PngDecoder decoder(device, o);
        const Image back = decoder.decode(file.data(), file.size());
        CHECK(back.warnings.empty());
        CHECK(decoder.stage_times().used_index);
        CHECK(decoder.stage_times().inflated_on_device == (where == PngInflate::Device));
        CHECK(back.pixels == im.samples);
        CHECK(back.pixels == test::libpng_decode_expanded(file).samples);
      }
    }
  });
}

TEST_CASE("png decode on every device: pieces overlapped with the inflate") {
  // Files with an index decoded in pieces (PngDecodeOptions::overlap_bytes) cut before None or
  // Sub rows: 32-row bands as our parallel mode writes, random filters (cuts wherever a None or
  // Sub row falls), Paeth on every row (no cut: one piece), 8 and 16 bits; each to a host image
  // and to a device image, against libpng.
  struct Case {
    const char* what;
    int w, h, channels, depth;
    int filters;  // 0: bands, 1: random, 2: Paeth
  };
  const std::vector<Case> cases = {{"bands", 600, 200, 3, 8, 0},
                                   {"random filters", 301, 170, 4, 16, 1},
                                   {"Paeth", 250, 90, 3, 8, 2},
                                   {"gray and alpha, 16-bit, random filters", 257, 150, 2, 16, 1}};
  for_each_device([&](Device& dev) {
    if (emulator(dev)) return;  // the emulator decodes without overlap (one host thread there)
    auto device = open_device(dev.info().spec);
    unsigned seed = 90;
    for (const Case& c : cases) {
      INFO(c.what);
      const png::Raster im = random_image(c.w, c.h, c.channels, c.depth, seed++);
      auto filtered = filter_randomly(im, seed, false, c.filters == 0);
      if (c.filters == 2) {
        const std::size_t rb = im.row_bytes();
        const std::uint32_t bpp = std::uint32_t(im.channels * im.bit_depth / 8);
        for (int y = 0; y < c.h; ++y) {
          const std::uint8_t* row = im.samples.data() + std::size_t(y) * rb;
          std::uint8_t* f = filtered.data() + std::size_t(y) * (rb + 1);
          f[0] = 4;
          for (std::size_t i = 0; i < rb; ++i)
            f[1 + i] = hc_png_filter_byte(4, row, y ? row - rb : row, y > 0, std::uint32_t(i), bpp);
        }
      }
      std::vector<std::uint32_t> rows;
      for (int y = 0; y < c.h; y += 7) rows.push_back(std::uint32_t(y));
      const auto file = test::idot_file(im, filtered, rows);
      const auto expected = test::libpng_decode_expanded(file).samples;
      REQUIRE(expected == im.samples);
      PngDecodeOptions o;
      o.threads = 4;
      o.overlap_bytes = filtered.size() / 9;
      PngDecoder decoder(device, o);
      const Image back = decoder.decode(file.data(), file.size());
      CHECK(back.warnings.empty());
      CHECK(decoder.stage_times().overlapped);
      CHECK(back.pixels == expected);
      const DeviceImage d = decoder.decode_to_device(file.data(), file.size());
      CHECK(decoder.stage_times().overlapped);
      REQUIRE(d.buffer);
      std::vector<std::uint8_t> bytes(d.bytes());
      auto q = device->create_queue();
      q->read(bytes.data(), *d.buffer, d.offset, bytes.size());
      q->finish();
      CHECK(bytes == expected);
      // The same decoder without overlap, for the same samples.
      o.overlap_bytes = 0;
      PngDecoder plain(device, o);
      CHECK(plain.decode(file.data(), file.size()).pixels == expected);
      CHECK(!plain.stage_times().overlapped);
    }

    // An index over data not flushed where it says: no overlap, the whole stream inflated, a
    // warning; and a bad filter type in a late row: the error names the row.
    const png::Raster im = random_image(500, 240, 4, 8, 5);
    const auto filtered = filter_randomly(im, 5, false, true);
    PngDecodeOptions o;
    o.threads = 4;
    o.overlap_bytes = filtered.size() / 6;
    PngDecoder decoder(device, o);
    const auto unflushed = test::idot_file(im, filtered, {0, 120, 200}, false);
    REQUIRE(png::idot_segments(png::parse(unflushed.data(), unflushed.size())).size() == 3);
    const Image unflushed_image = decoder.decode(unflushed.data(), unflushed.size());
    const std::vector<std::string>& warnings = unflushed_image.warnings;
    CHECK(unflushed_image.pixels == im.samples);
    CHECK(!decoder.stage_times().overlapped);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("iDOT") != std::string::npos);
    auto broken = filtered;
    broken[std::size_t(161) * (im.row_bytes() + 1)] = 9;
    const auto bad = test::idot_file(im, broken, {0, 120, 200});
    try {
      decoder.decode(bad.data(), bad.size());
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidData);
      CHECK(std::string(e.what()).find("row 161 has filter type 9") != std::string::npos);
    }
    // The decoder goes on after the error.
    const auto good = test::idot_file(im, filtered, {0, 120, 200});
    CHECK(decoder.decode(good.data(), good.size()).pixels == im.samples);
    CHECK(decoder.stage_times().overlapped);
  });
}

TEST_CASE("png decode on every device: a bad filter type is an error with the row") {
  png::Raster im = random_image(40, 5, 1, 8, 3);
  auto filtered = filter_randomly(im, 3, false);
  filtered[3 * 41] = 7;
  const auto file = png::assemble_compatible(im, filtered);
  for_each_device([&](Device& dev) {
    PngDecoder decoder(open_device(dev.info().spec));
    try {
      decoder.decode(file.data(), file.size());
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidData);
      CHECK(std::string(e.what()).find("row 3") != std::string::npos);
    }
  });
}

#ifdef HETCODEC_TEST_CLI
TEST_CASE("hetcodec decode: PNG to PAM keeps channels and depth; PPM refuses alpha") {
  const fs::path dir =
      fs::temp_directory_path() / ("hetcodec-png-decode-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path in = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "pngsuite" / "basn4a16.png";
  const fs::path out = dir / "a.pam";
  std::string log =
      test::run_command(HETCODEC_TEST_CLI, "-d cpu decode " + in.string() + " " + out.string());
  INFO(log);
  CHECK(log.find("exit 0") != std::string::npos);
  const png::Raster ref = test::libpng_decode_expanded(read_bytes(in));
  const std::string header =
      "P7\nWIDTH 32\nHEIGHT 32\nDEPTH 2\nMAXVAL 65535\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n";
  std::vector<std::uint8_t> expect(header.begin(), header.end());
  expect.insert(expect.end(), ref.samples.begin(), ref.samples.end());
  CHECK(read_bytes(out) == expect);
  log = test::run_command(HETCODEC_TEST_CLI,
                          "-d cpu decode " + in.string() + " " + (dir / "a.ppm").string());
  CHECK(log.find("alpha") != std::string::npos);
  CHECK(log.find("exit 1") != std::string::npos);
  fs::remove_all(dir);
}
#endif

TEST_CASE("png decode on every device: files of every type from libpng and from ImageMagick") {
  // libpng: every colour type and depth, plain and Adam7, tRNS keys and palette alphas.
  struct Kind {
    int color, depth;
    bool trns;
  };
  const std::vector<Kind> kinds = {{0, 1, false},  {0, 2, true},  {0, 4, false}, {0, 8, true},
                                   {0, 16, true},  {2, 8, true},  {2, 16, true}, {3, 1, true},
                                   {3, 2, false},  {3, 4, true},  {3, 8, true},  {4, 8, false},
                                   {4, 16, false}, {6, 8, false}, {6, 16, false}};
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
  unsigned seed = 11;
  for (const Kind& k : kinds)
    for (const bool interlace : {false, true}) {
      const int w = 29, h = 19;
      const int spp = k.color == 2 ? 3 : k.color == 4 ? 2 : k.color == 6 ? 4 : 1;
      const std::size_t rb = (std::size_t(w) * std::size_t(spp * k.depth) + 7) / 8;
      const auto r = test::random_bytes(rb * h, seed++);
      std::vector<std::uint8_t> rows(r.begin(), r.end());
      for (std::size_t i = 0; i < rows.size(); i += 5) rows[i] = 0;  // some repeated samples
      std::vector<std::uint8_t> palette, trns;
      if (k.color == 3) {
        const int n = k.depth == 8 ? 200 : 1 << k.depth;  // indices past 200 have no entry
        const auto p = test::random_bytes(std::size_t(3 * n), seed++);
        palette.assign(p.begin(), p.end());
        if (k.trns) trns.assign(p.begin(), p.begin() + n / 2);
      } else if (k.trns) {
        // The key: the first pixel's samples, so that some pixels match it.
        const std::size_t bytes = std::size_t(spp) * std::size_t(k.depth == 16 ? 2 : 1);
        for (std::size_t s = 0; s < std::size_t(spp); ++s) {
          if (k.depth == 16) {
            trns.push_back(rows[2 * s]);
            trns.push_back(rows[2 * s + 1]);
          } else {
            const unsigned v = k.depth == 8 ? rows[s] : rows[0] >> (8 - k.depth);
            trns.push_back(0);
            trns.push_back(std::uint8_t(v));
          }
        }
        (void)bytes;
      }
      files.emplace_back(
          "libpng color " + std::to_string(k.color) + " depth " + std::to_string(k.depth) +
              (interlace ? " adam7" : "") + (k.trns ? " trns" : ""),
          test::libpng_write_any(w, h, k.color, k.depth, interlace, rows, palette, trns));
    }
  for (const auto& e :
       fs::directory_iterator(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "png-imagemagick"))
    if (e.path().extension() == ".png")
      files.emplace_back("ImageMagick " + e.path().filename().string(), read_bytes(e.path()));
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 60);
  for_each_device([&](Device& dev) {
    PngDecoder decoder(open_device(dev.info().spec));
    std::size_t k = 0;
    for (const auto& [name, f] : files) {
      if (emulator(dev) && (k++ % 4) != 0) continue;
      INFO(name);
      const png::Raster ref = test::libpng_decode_expanded(f);
      const Image ours = decoder.decode(f.data(), f.size());
      CHECK(ours.channels() == ref.channels);
      CHECK(ours.bit_depth == ref.bit_depth);
      CHECK(ours.pixels == ref.samples);
    }
  });
}

TEST_CASE("png decode on every device: decode_batch, with a broken file among good ones") {
  std::vector<std::vector<std::uint8_t>> files;
  for (const char* name : {"basn2c08.png", "basi3p02.png", "xcsn0g01.png", "basn4a16.png",
                           "tbbn0g04.png", "basi6a16.png"})
    files.push_back(read_bytes(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "pngsuite" / name));
  std::vector<Input> inputs;
  for (const auto& f : files) inputs.push_back({f.data(), f.size()});
  for_each_device([&](Device& dev) {
    PngDecodeOptions o;
    o.batch_streams = 3;
    PngDecoder decoder(open_device(dev.info().spec), o);
    BatchErrors errors;
    const auto images = decoder.decode_batch(inputs, &errors);
    REQUIRE(images.size() == files.size());
    REQUIRE(errors.size() == files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
      INFO("file " << i);
      if (i == 2) {
        REQUIRE(errors[i]);
        CHECK(std::string(errors[i]->what()).find("CRC") != std::string::npos);
        CHECK(images[i].pixels.empty());
        continue;
      }
      CHECK(!errors[i]);
      CHECK(images[i].pixels == test::libpng_decode_expanded(files[i]).samples);
    }
    CHECK(decoder.stage_times().images == files.size() - 1);
    // Without an error list the failure is thrown, with its code.
    try {
      decoder.decode_batch(inputs);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidData);
    }
  });
}
