// The JPEG encoder's CPU side (core/jpeg/encoder.h) against libjpeg-turbo through its C API
// (jpeg_set_defaults, jpeg_set_colorspace, jpeg_set_quality(q, TRUE), jpeg_add_quant_table, the
// sampling factors, restart_interval / restart_in_rows, optimize_coding, jpeg_write_marker and
// jpeg_write_icc_profile): whole files equal byte for byte; jpeg_gen_optimal_table's tables
// equal; the threaded entropy coder's bytes equal the single-threaded one's; bad options refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <csetjmp>
#include <cstdlib>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include <jpeglib.h>

#include "core/error.h"
#include "core/jpeg/encoder.h"
#include "tests/support/test_support.h"

// Exported by libjpeg-turbo (jchuff.c) though jpeglib.h does not declare it.
extern "C" void jpeg_gen_optimal_table(j_compress_ptr cinfo, JHUFF_TBL* htbl, long freq[]);

using namespace hetcodec;

namespace {

// libjpeg's errors longjmp out of it and become exceptions here, not an exit().
struct Failure {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
  auto* failure = reinterpret_cast<Failure*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, failure->message);
  std::longjmp(failure->jump, 1);
}

std::vector<std::uint8_t> libjpeg_encode(const std::vector<std::uint8_t>& px, int w, int h,
                                         int channels, const jpeg::EncodeOptions& o,
                                         const Metadata* metadata = nullptr) {
  std::vector<std::uint8_t> app1 = {'E', 'x', 'i', 'f', 0, 0};
  if (metadata) app1.insert(app1.end(), metadata->exif.begin(), metadata->exif.end());
  jpeg_compress_struct cinfo;
  Failure err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  jpeg_create_compress(&cinfo);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    std::free(out);
    throw std::runtime_error(std::string("libjpeg encode: ") + err.message);
  }
  jpeg_mem_dest(&cinfo, &out, &size);
  cinfo.image_width = JDIMENSION(w);
  cinfo.image_height = JDIMENSION(h);
  cinfo.input_components = channels;
  cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  if (o.gray && channels == 3) jpeg_set_colorspace(&cinfo, JCS_GRAYSCALE);
  jpeg_set_quality(&cinfo, o.quality, TRUE);
  // cjpeg -qtables: each table given replaces its slot, scaled by the quality's factor; a slot
  // not given keeps Annex K's.
  for (std::size_t t = 0; t < o.base_tables.size(); ++t) {
    const auto& base = o.base_tables[t];
    unsigned table[64];
    std::copy(base.begin(), base.end(), table);
    jpeg_add_quant_table(&cinfo, int(t), table, jpeg_quality_scaling(o.quality), TRUE);
  }
  if (cinfo.num_components == 3) {
    cinfo.comp_info[0].h_samp_factor = o.h;
    cinfo.comp_info[0].v_samp_factor = o.v;
  }
  cinfo.restart_interval = unsigned(o.restart_interval);
  cinfo.restart_in_rows = o.restart_rows;
  cinfo.optimize_coding = o.optimize ? TRUE : FALSE;
  jpeg_start_compress(&cinfo, TRUE);
  if (metadata && !metadata->exif.empty())
    jpeg_write_marker(&cinfo, JPEG_APP0 + 1, app1.data(), unsigned(app1.size()));
  if (metadata && !metadata->icc.empty())
    jpeg_write_icc_profile(&cinfo, metadata->icc.data(), unsigned(metadata->icc.size()));
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row =
        const_cast<JSAMPROW>(px.data() + std::size_t(cinfo.next_scanline) * w * channels);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  std::vector<std::uint8_t> file(out, out + size);
  jpeg_destroy_compress(&cinfo);
  std::free(out);
  return file;
}

// Gradients with noise of amplitude `noise` (0: flat steps), interleaved.
std::vector<std::uint8_t> picture(int w, int h, int channels, int noise = 24) {
  const auto random = test::random_bytes(std::size_t(w) * h * channels, unsigned(w * 7 + h));
  std::vector<std::uint8_t> px(random.size());
  for (std::size_t i = 0; i < px.size(); ++i) {
    const std::size_t p = i / std::size_t(channels);
    px[i] = std::uint8_t((p % std::size_t(w)) * 5 + (p / std::size_t(w)) * 3 +
                         (i % std::size_t(channels)) * 60 + (noise ? random[i] % noise : 0));
  }
  return px;
}

// Where two files first differ (their common length when one is a prefix of the other).
std::size_t first_difference(const std::vector<std::uint8_t>& a,
                             const std::vector<std::uint8_t>& b) {
  return std::size_t(
      std::mismatch(a.begin(), a.begin() + std::ptrdiff_t(std::min(a.size(), b.size())), b.begin())
          .first -
      a.begin());
}

// encode_reference against libjpeg-turbo for one image and set of options.
void check_file(int w, int h, int channels, const jpeg::EncodeOptions& o, int noise = 24,
                const Metadata* metadata = nullptr) {
  const auto px = picture(w, h, channels, noise);
  const auto ours = metadata ? jpeg::encode_reference(px.data(), w, h, channels, o, *metadata)
                             : jpeg::encode_reference(px.data(), w, h, channels, o);
  const auto theirs = libjpeg_encode(px, w, h, channels, o, metadata);
  CAPTURE(first_difference(ours, theirs));
  REQUIRE(ours.size() == theirs.size());
  CHECK(ours == theirs);
}

std::optional<ErrorCode> plan_error(int w, int h, int channels, const jpeg::EncodeOptions& o) {
  try {
    jpeg::plan_encode(w, h, channels, o);
  } catch (const Error& e) {
    return e.code();
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("jpeg encode reference: equal to libjpeg-turbo byte for byte") {
  int checked = 0;
  for (const auto& [w, h] : {std::pair{1, 1}, {17, 5}, {37, 23}, {64, 48}, {100, 75}, {9, 31}})
    for (int channels : {3, 1})
      for (const auto& [hs, vs] : {std::pair{2, 2}, {2, 1}, {1, 2}, {1, 1}})
        for (int q : {10, 50, 75, 95, 100})
          for (int ri : {0, 1, 3}) {
            if (channels == 1 && (hs != 2 || vs != 2)) continue;
            jpeg::EncodeOptions o;
            o.quality = q;
            o.h = hs;
            o.v = vs;
            o.restart_interval = ri;
            CAPTURE(w);
            CAPTURE(h);
            CAPTURE(channels);
            CAPTURE(hs);
            CAPTURE(vs);
            CAPTURE(q);
            CAPTURE(ri);
            check_file(w, h, channels, o);
            ++checked;
          }
  CHECK(checked > 300);
}

TEST_CASE("jpeg encode reference: optimize_coding equal to libjpeg-turbo") {
  for (const auto& [w, h] : {std::pair{1, 1}, {8, 8}, {17, 5}, {33, 47}, {100, 75}, {300, 200}})
    for (const auto& [hs, vs] : {std::pair{2, 2}, {2, 1}, {1, 2}, {1, 1}})
      for (int q : {3, 50, 90, 100})
        for (int ri : {0, 2, 7}) {
          if (w * h > 10000 && (ri == 2 || q == 50)) continue;  // keep the big image's share small
          jpeg::EncodeOptions o;
          o.quality = q;
          o.h = hs;
          o.v = vs;
          o.restart_interval = ri;
          o.optimize = true;
          CAPTURE(w);
          CAPTURE(h);
          CAPTURE(hs);
          CAPTURE(vs);
          CAPTURE(q);
          CAPTURE(ri);
          check_file(w, h, 3, o);
          if (hs == 2 && vs == 2) check_file(w, h, 1, o);
        }
  // Flat and noisy extremes: few symbols (1-bit codes), and many.
  jpeg::EncodeOptions o;
  o.optimize = true;
  check_file(64, 16, 1, o, 0);
  check_file(45, 29, 3, o, 0);
  o.quality = 100;
  check_file(61, 43, 3, o, 256 - 1);
}

TEST_CASE("jpeg encode reference: custom base tables as cjpeg -qtables") {
  const auto random = test::random_bytes(128, 99);
  std::vector<std::array<std::uint16_t, 64>> tables(2);
  for (int i = 0; i < 128; ++i)  // 1..2000, past 255 before scaling
    tables[std::size_t(i / 64)][std::size_t(i % 64)] =
        std::uint16_t(1 + (random[std::size_t(i)] * 7919u + unsigned(i) * 31u) % 2000u);
  tables[0][0] = 1;
  for (std::size_t n : {std::size_t(2), std::size_t(1)})
    for (int q : {1, 25, 50, 80, 100})
      for (bool optimize : {false, true}) {
        jpeg::EncodeOptions o;
        o.quality = q;
        o.optimize = optimize;
        o.base_tables.assign(tables.begin(), tables.begin() + std::ptrdiff_t(n));
        CAPTURE(n);
        CAPTURE(q);
        CAPTURE(optimize);
        check_file(53, 35, 3, o);
        check_file(23, 19, 1, o);
        o.gray = true;
        check_file(30, 21, 3, o);
      }
}

TEST_CASE("jpeg encode reference: restart interval in MCU rows") {
  for (const auto& [w, h] : {std::pair{1, 1}, {40, 33}, {123, 77}})
    for (int rows : {1, 2, 5})
      for (bool optimize : {false, true}) {
        jpeg::EncodeOptions o;
        o.restart_rows = rows;
        o.restart_interval = 3;  // restart_in_rows wins
        o.optimize = optimize;
        CAPTURE(w);
        CAPTURE(h);
        CAPTURE(rows);
        CAPTURE(optimize);
        check_file(w, h, 3, o);
        o.h = 2;
        o.v = 1;
        check_file(w, h, 3, o);
        check_file(w, h, 1, o);
      }
  // 8188 MCUs a row (65500 is libjpeg's JPEG_MAX_DIMENSION): 9 rows are more than 65535 MCUs,
  // which libjpeg clamps.
  jpeg::EncodeOptions o;
  o.restart_rows = 9;
  CHECK(jpeg::plan_encode(65500, 8, 1, o).restart_interval == 65535);
  check_file(65500, 8, 1, o, 0);
}

TEST_CASE("jpeg encode reference: gray files from RGB and gray input") {
  for (const auto& [w, h] : {std::pair{1, 1}, {7, 9}, {16, 16}, {81, 45}, {299, 199}})
    for (int q : {20, 75, 100})
      for (bool optimize : {false, true})
        for (int ri : {0, 4}) {
          jpeg::EncodeOptions o;
          o.quality = q;
          o.optimize = optimize;
          o.restart_interval = ri;
          o.gray = true;
          CAPTURE(w);
          CAPTURE(h);
          CAPTURE(q);
          CAPTURE(optimize);
          CAPTURE(ri);
          check_file(w, h, 3, o);
          check_file(w, h, 1, o);
        }
}

TEST_CASE("jpeg encode reference: EXIF and ICC profile markers as libjpeg writes them") {
  Metadata exif_only;
  exif_only.exif = {'I', 'I', '*', 0, 8, 0, 0, 0};
  const auto tail = test::random_bytes(300, 5);
  exif_only.exif.insert(exif_only.exif.end(), tail.begin(), tail.end());
  Metadata icc_only;
  icc_only.icc = test::random_bytes(3000, 6);
  Metadata both = exif_only;
  both.icc = test::random_bytes(65519 + 4481, 7);  // two APP2 markers
  Metadata exact = icc_only;
  exact.icc = test::random_bytes(std::size_t(2) * 65519, 8);  // two full ones
  for (const Metadata* m : {&exif_only, &icc_only, &both, &exact})
    for (bool gray : {false, true}) {
      jpeg::EncodeOptions o;
      o.gray = gray;
      o.optimize = gray;
      o.restart_rows = gray ? 1 : 0;
      CAPTURE(m->exif.size());
      CAPTURE(m->icc.size());
      CAPTURE(gray);
      check_file(31, 17, 3, o, 24, m);
    }
  jpeg::EncodeOptions o;
  const auto px = picture(16, 16, 3);
  const auto file = jpeg::encode_reference(px.data(), 16, 16, 3, o, both);
  int app2 = 0;
  for (std::size_t i = 0; i + 1 < file.size(); ++i)
    if (file[i] == 0xFF && file[i + 1] == 0xE2 &&
        std::equal(file.begin() + std::ptrdiff_t(i) + 4, file.begin() + std::ptrdiff_t(i) + 15,
                   "ICC_PROFILE"))
      ++app2;
  CHECK(app2 == 2);
}

TEST_CASE("jpeg encode: optimal Huffman tables equal jpeg_gen_optimal_table's") {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr err;
  cinfo.err = jpeg_std_error(&err);
  jpeg_create_compress(&cinfo);
  std::vector<std::vector<std::uint32_t>> cases;
  for (unsigned seed = 1; seed <= 20; ++seed) {  // random counts, some symbols unused
    const auto r = test::random_bytes(512, seed);
    std::vector<std::uint32_t> c(256);
    for (int i = 0; i < 256; ++i)
      c[std::size_t(i)] = r[std::size_t(i)] % 4 == 0 ? 0u : r[std::size_t(i) + 256] * seed;
    cases.push_back(c);
  }
  std::vector<std::uint32_t> fib(256, 0), one(256, 0), ties(256, 3);
  std::uint32_t a = 1, b = 1;
  for (int i = 0; i < 25; ++i, b = a + b, a = b - a) fib[std::size_t(i) * 7] = a;  // lengths > 16
  one[17] = 5;
  cases.push_back(fib);
  cases.push_back(one);
  cases.push_back(ties);
  for (std::size_t n = 0; n < cases.size(); ++n) {
    CAPTURE(n);
    long freq[257] = {};
    std::copy(cases[n].begin(), cases[n].end(), freq);
    JHUFF_TBL* theirs = jpeg_alloc_huff_table(reinterpret_cast<j_common_ptr>(&cinfo));
    jpeg_gen_optimal_table(&cinfo, theirs, freq);
    const jpeg::HuffmanTable ours = jpeg::optimal_huffman_table(cases[n].data());
    int total = 0;
    for (int l = 1; l <= 16; ++l) {
      CHECK(ours.counts[std::size_t(l)] == theirs->bits[l]);
      total += theirs->bits[l];
    }
    REQUIRE(ours.symbols.size() == std::size_t(total));
    CHECK(std::equal(ours.symbols.begin(), ours.symbols.end(), theirs->huffval));
  }
  jpeg_destroy_compress(&cinfo);
  CHECK(jpeg::optimal_huffman_table(std::vector<std::uint32_t>(256, 0).data()).symbols.empty());
}

TEST_CASE("jpeg encode: threaded entropy coding gives the single-threaded bytes") {
  struct Case {
    int w, h, channels, hs, vs, ri, rows, noise;
    bool optimize;
  };
  const Case cases[] = {
      {300, 200, 3, 2, 2, 0, 0, 24, false},    {300, 200, 3, 2, 2, 0, 0, 24, true},
      {300, 200, 3, 2, 1, 100, 0, 255, false}, {257, 131, 3, 1, 2, 5, 0, 24, true},
      {211, 97, 3, 1, 1, 1, 0, 24, false},     {160, 120, 3, 2, 2, 0, 1, 24, false},
      {64, 16, 1, 2, 2, 0, 0, 0, true},        {128, 64, 3, 2, 2, 0, 0, 0, true},
      {150, 90, 1, 2, 2, 0, 0, 24, true},      {150, 90, 1, 2, 2, 700, 0, 24, false},
      {40, 24, 3, 2, 2, 0, 0, 24, false},
  };
  for (const Case& c : cases) {
    jpeg::EncodeOptions o;
    o.h = c.hs;
    o.v = c.vs;
    o.restart_interval = c.ri;
    o.restart_rows = c.rows;
    o.optimize = c.optimize;
    CAPTURE(c.w);
    CAPTURE(c.h);
    CAPTURE(c.channels);
    CAPTURE(c.ri);
    CAPTURE(c.optimize);
    const auto px = picture(c.w, c.h, c.channels, c.noise);
    const jpeg::EncodePlan plan = jpeg::plan_encode(c.w, c.h, c.channels, o);
    const auto blocks = jpeg::reference_blocks(px.data(), c.channels, plan);
    const jpeg::EncodeTables tables =
        c.optimize ? jpeg::optimal_encode_tables(jpeg::count_symbols(plan, blocks.data()).data())
                   : jpeg::standard_encode_tables();
    const auto one = jpeg::encode_scan(plan, tables, blocks.data());
    auto file = jpeg::write_headers(plan, tables);
    file.insert(file.end(), one.begin(), one.end());
    file.insert(file.end(), {0xFF, 0xD9});
    CHECK(file == libjpeg_encode(px, c.w, c.h, c.channels, o));
    for (int threads : {1, 2, 3, 8, 0}) {
      CAPTURE(threads);
      const auto many = jpeg::encode_scan(plan, tables, blocks.data(), threads);
      CAPTURE(first_difference(one, many));
      CHECK(many == one);
    }
  }
}

TEST_CASE("jpeg encode: plan_encode refuses what libjpeg refuses") {
  const jpeg::EncodeOptions good;
  CHECK(!plan_error(1, 1, 3, good));
  CHECK(!plan_error(65535, 1, 1, good));
  CHECK(plan_error(0, 10, 3, good) == ErrorCode::InvalidArgument);
  CHECK(plan_error(65536, 10, 3, good) == ErrorCode::InvalidArgument);
  CHECK(plan_error(10, 0, 3, good) == ErrorCode::InvalidArgument);
  CHECK(plan_error(10, 65536, 3, good) == ErrorCode::InvalidArgument);
  CHECK(plan_error(10, 10, 2, good) == ErrorCode::InvalidArgument);
  auto with = [&](auto change) {
    jpeg::EncodeOptions o;
    change(o);
    return plan_error(10, 10, 3, o);
  };
  CHECK(with([](jpeg::EncodeOptions& o) { o.quality = 0; }) == ErrorCode::InvalidArgument);
  CHECK(with([](jpeg::EncodeOptions& o) { o.quality = 101; }) == ErrorCode::InvalidArgument);
  CHECK(with([](jpeg::EncodeOptions& o) { o.h = 3, o.v = 1; }) == ErrorCode::InvalidArgument);
  CHECK(with([](jpeg::EncodeOptions& o) { o.v = 0; }) == ErrorCode::InvalidArgument);
  CHECK(with([](jpeg::EncodeOptions& o) { o.restart_interval = -1; }) ==
        ErrorCode::InvalidArgument);
  CHECK(with([](jpeg::EncodeOptions& o) { o.restart_interval = 65536; }) ==
        ErrorCode::InvalidArgument);
  CHECK(with([](jpeg::EncodeOptions& o) { o.restart_rows = -1; }) == ErrorCode::InvalidArgument);
  CHECK(with([](jpeg::EncodeOptions& o) { o.base_tables.resize(3); }) ==
        ErrorCode::InvalidArgument);
  CHECK(with([](jpeg::EncodeOptions& o) { o.base_tables.resize(1); }) ==
        ErrorCode::InvalidArgument);  // entries of 0
}
