// Metadata through a re-encode (core/image.h's Metadata): a JPEG's EXIF and ICC profile (in
// several APP2 segments, in any order) as libjpeg reads them; a PNG's ancillary chunks as the
// parser keeps them; and the PNG writer's chunks, read back by libpng's C API, with the samples
// unchanged. The files are made by libjpeg and libpng themselves (tests/support).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>

#include "core/jpeg/metadata.h"
#include "core/png/metadata.h"
#include "core/png/reader.h"
#include "core/png/writer.h"
#include "hetcodec/hetcodec.h"
#include "tests/support/libpng_oracle.h"
#include "tests/support/metadata_oracle.h"

using namespace hetcodec;

namespace {

// Our reading of a JPEG's metadata, checked against libjpeg's.
Metadata jpeg_metadata(const std::vector<std::uint8_t>& file, std::vector<std::string>& warnings) {
  const jpeg::Header h = jpeg::parse(file.data(), file.size());
  return jpeg::read_metadata(file.data(), h, warnings);
}

Metadata png_metadata(const std::vector<std::uint8_t>& file) {
  std::vector<std::string> warnings;
  const png::Info info = png::parse(file.data(), file.size());
  Metadata m = png::read_metadata(info, 8u << 20, warnings);
  for (const auto& w : warnings) FAIL_CHECK(w);
  return m;
}

// The raster libpng decodes from `file` (8-bit gray or RGB).
png::Raster raster_of(const test::LibpngMetadata& m) {
  png::Raster r;
  r.width = int(m.width);
  r.height = int(m.height);
  r.channels = m.color_type == 0 ? 1 : 3;
  r.bit_depth = 8;
  r.samples = m.samples;
  return r;
}

// Whether every chunk of `types` that must come before PLTE (iCCP, sRGB, gAMA, cHRM) comes
// before every other chunk between IHDR and the image data, and all of them before IDAT.
void check_order(const std::vector<std::string>& types) {
  REQUIRE(!types.empty());
  CHECK(types.front() == "IHDR");
  const auto idat = std::find(types.begin(), types.end(), "IDAT");
  REQUIRE(idat != types.end());
  bool after_palette_place = false;
  for (auto t = types.begin() + 1; t != idat; ++t) {
    const bool early = *t == "iCCP" || *t == "sRGB" || *t == "gAMA" || *t == "cHRM";
    if (!early) after_palette_place = true;
    INFO(*t << " comes after a chunk that goes after PLTE");
    CHECK(!(early && after_palette_place));
  }
  for (auto t = idat; t != types.end(); ++t) CHECK(png::carried_chunk(*t) == false);
  CHECK(!(std::count(types.begin(), types.end(), "iCCP") &&
          std::count(types.begin(), types.end(), "sRGB")));
}

}  // namespace

TEST_CASE("jpeg metadata: EXIF and an ICC profile in several segments, as libjpeg reads them") {
  const auto profile = test::icc_profile(150000, "RGB ", 1);  // three APP2 segments
  const auto exif = test::exif_block(300);
  test::JpegMetadataParams p;
  p.exif = exif;
  p.icc = profile;
  for (int order = 0; order < 3; ++order) {
    p.icc_reversed = order == 1;
    p.icc_segment = order == 2 ? 997 : 0;  // 151 segments of our own cut
    INFO("order " << order);
    const auto file = test::libjpeg_file(p);
    const test::LibjpegMetadata oracle = test::libjpeg_metadata(file);
    REQUIRE(oracle.has_icc);
    CHECK(oracle.icc == profile);
    std::vector<std::string> warnings;
    const Metadata m = jpeg_metadata(file, warnings);
    CHECK(warnings.empty());
    CHECK(m.icc == oracle.icc);
    CHECK(m.exif == oracle.exif);
    CHECK(m.exif == exif);
    CHECK(m.png_chunks.empty());
  }
  // A sequence number given twice: libjpeg gives no profile, and we warn and give none.
  p.icc_reversed = false;
  p.icc_segment = 0;
  auto file = test::libjpeg_file(p);
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i + 12 < file.size(); ++i)
    if (std::memcmp(&file[i], "ICC_PROFILE\0", 12) == 0) at.push_back(i);
  REQUIRE(at.size() == 3);
  file[at[1] + 12] = 1;
  CHECK(!test::libjpeg_metadata(file).has_icc);
  std::vector<std::string> warnings;
  const Metadata m = jpeg_metadata(file, warnings);
  CHECK(m.icc.empty());
  CHECK(warnings.size() == 1);
  CHECK(m.exif == exif);
  // No metadata at all.
  const Metadata none = jpeg_metadata(test::libjpeg_file({}), warnings);
  CHECK(none.empty());
}

TEST_CASE("png metadata: the carried chunks in file order, the profile inflated") {
  test::PngMetadataParams p;
  p.icc = test::icc_profile(3000, "RGB ", 2);
  p.exif = test::exif_block(40);
  const auto file = test::libpng_file(p);
  const Metadata m = png_metadata(file);
  std::vector<std::string> expected, got;
  for (const auto& t : test::chunk_types(file))
    if (png::carried_chunk(t)) expected.push_back(t);
  for (const auto& c : m.png_chunks) got.push_back(c.type);
  CHECK(got == expected);
  CHECK(got.size() == 8);  // iCCP, gAMA, cHRM, pHYs, eXIf, tEXt, zTXt, iTXt
  for (const auto& c : m.png_chunks) CHECK(c.data == test::chunk_data(file, c.type));
  CHECK(m.icc == p.icc);
  CHECK(m.icc_name == "test profile");
  CHECK(m.exif == p.exif);
  // Chunks that describe the stored samples or the file are not carried.
  for (const char* t : {"bKGD", "sBIT", "hIST", "tIME", "sPLT", "hcRS", "iDOT", "tRNS"})
    CHECK(!png::carried_chunk(t));
}

TEST_CASE("png encode: a PNG's metadata chunks as they were, read back by libpng") {
  for (int channels : {1, 3}) {
    INFO("channels " << channels);
    test::PngMetadataParams p;
    p.channels = channels;
    p.icc = test::icc_profile(5000, channels == 1 ? "GRAY" : "RGB ", 3);
    p.exif = test::exif_block(64);
    const auto source = test::libpng_file(p);
    const test::LibpngMetadata in = test::libpng_metadata(source);
    REQUIRE(in.has_iccp);
    png::Raster raster = raster_of(in);
    const Metadata meta = png_metadata(source);
    raster.metadata = &meta;
    for (bool parallel : {false, true}) {
      INFO("parallel " << parallel);
      const auto out = parallel
                           ? png::assemble_parallel(raster, png::filter_rows_libpng(raster), 3, 1)
                           : png::encode_compatible(raster);
      const test::LibpngMetadata back = test::libpng_metadata(out);
      CHECK(back.samples == in.samples);
      CHECK(back.has_iccp);
      CHECK(back.icc_name == in.icc_name);
      CHECK(back.icc == p.icc);
      CHECK(back.exif == p.exif);
      CHECK(back.has_gama);
      CHECK(back.gama == in.gama);
      CHECK(back.has_chrm);
      CHECK(std::equal(back.chrm, back.chrm + 8, in.chrm));
      CHECK(back.has_phys);
      CHECK(back.phys_x == 2835);
      CHECK(back.phys_y == 3780);
      CHECK(back.phys_unit == in.phys_unit);
      REQUIRE(back.text.size() == 3);
      for (std::size_t k = 0; k < 3; ++k) {
        CHECK(back.text[k].compression == in.text[k].compression);
        CHECK(back.text[k].key == in.text[k].key);
        CHECK(back.text[k].text == in.text[k].text);
      }
      // Not recompressed: the chunks' bytes are the source's.
      for (const char* t : {"iCCP", "zTXt", "iTXt", "eXIf"})
        CHECK(test::chunk_data(out, t) == test::chunk_data(source, t));
      check_order(test::chunk_types(out));
    }
    // Without metadata the compatible mode is libpng's file, as before.
    const Metadata empty;
    raster.metadata = &empty;
    CHECK(png::encode_compatible(raster) == test::libpng_encode(raster, 3 /* Z_RLE */));
  }
}

TEST_CASE("png encode: iCCP and eXIf from a JPEG's metadata; sRGB never beside iCCP") {
  png::Raster rgb;
  rgb.width = 9;
  rgb.height = 5;
  rgb.channels = 3;
  rgb.samples.assign(9 * 5 * 3, 77);
  Metadata m;
  m.icc = test::icc_profile(70000, "RGB ", 4);
  m.exif = test::exif_block(500);
  rgb.metadata = &m;
  test::LibpngMetadata back = test::libpng_metadata(png::encode_compatible(rgb));
  CHECK(back.has_iccp);
  CHECK(back.icc_name == "ICC profile");
  CHECK(back.icc == m.icc);
  CHECK(back.exif == m.exif);
  CHECK(back.samples == rgb.samples);
  // An sRGB chunk beside a profile is left out; without a profile it stays.
  m.png_chunks.push_back({"sRGB", {0}});
  auto out = png::encode_compatible(rgb);
  check_order(test::chunk_types(out));
  back = test::libpng_metadata(out);
  CHECK(back.has_iccp);
  CHECK(!back.has_srgb);
  const Metadata srgb_only{{}, "", {}, {{"sRGB", {1}}}};
  rgb.metadata = &srgb_only;
  back = test::libpng_metadata(png::encode_compatible(rgb));
  CHECK(back.has_srgb);
  CHECK(back.srgb_intent == 1);
  CHECK(!back.has_iccp);
  // A profile for other samples (CMYK; RGB on gray) is left out, as libpng refuses it.
  Metadata cmyk;
  cmyk.icc = test::icc_profile(1000, "CMYK", 5);
  rgb.metadata = &cmyk;
  out = png::encode_compatible(rgb);
  CHECK(test::chunk_data(out, "iCCP").empty());
  png::Raster gray = rgb;
  gray.channels = 1;
  gray.samples.resize(9 * 5);
  gray.metadata = &m;
  out = png::encode_compatible(gray);
  CHECK(test::chunk_data(out, "iCCP").empty());
  CHECK(test::libpng_metadata(out).exif == m.exif);
}

TEST_CASE("decoders fill Image::metadata and the encoder writes it (CPU reference)") {
  test::JpegMetadataParams p;
  p.icc = test::icc_profile(90000, "RGB ", 6);
  p.exif = test::exif_block(100);
  const auto jpeg = test::libjpeg_file(p);
  JpegDecoder jpeg_decoder("cpu");
  PngEncoder encoder("cpu", PngEncodeOptions{PngMode::Compatible});
  const Image from_jpeg = jpeg_decoder.decode(jpeg.data(), jpeg.size());
  CHECK(from_jpeg.metadata.icc == p.icc);
  CHECK(from_jpeg.metadata.exif == p.exif);
  const auto batch = jpeg_decoder.decode_batch({{jpeg.data(), jpeg.size()}});
  CHECK(batch[0].metadata.icc == p.icc);
  test::LibpngMetadata back = test::libpng_metadata(encoder.encode(from_jpeg));
  CHECK(back.icc == p.icc);
  CHECK(back.exif == p.exif);
  CHECK(back.samples == from_jpeg.pixels);

  test::PngMetadataParams q;
  q.icc = test::icc_profile(2000, "RGB ", 7);
  const auto source = test::libpng_file(q);
  PngDecoder png_decoder("cpu");
  const Image from_png = png_decoder.decode(source.data(), source.size());
  CHECK(from_png.metadata.icc == q.icc);
  CHECK(from_png.metadata.png_chunks.size() == 7);
  CHECK(png_decoder.decode_batch({{source.data(), source.size()}})[0].metadata.png_chunks.size() ==
        7);
  const auto out = encoder.encode(from_png);
  for (const char* t : {"iCCP", "gAMA", "cHRM", "pHYs", "tEXt", "zTXt", "iTXt"})
    CHECK(test::chunk_data(out, t) == test::chunk_data(source, t));
  CHECK(test::libpng_metadata(out).samples == test::libpng_metadata(source).samples);
  Image stripped = from_png;
  stripped.metadata = {};
  CHECK(test::chunk_types(encoder.encode(stripped)) ==
        std::vector<std::string>{"IHDR", "IDAT", "IEND"});
}
