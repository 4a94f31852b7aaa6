// The CPU reference JPEG encoder (core/jpeg/encoder.h) against libjpeg-turbo through its C API
// (jpeg_set_defaults, jpeg_set_quality(q, TRUE), the sampling factors and restart interval
// set): the files must be equal byte for byte.
#include <doctest/doctest.h>

#include <cstdio>
#include <vector>

#include <jpeglib.h>

#include "core/jpeg/encoder.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

namespace {

std::vector<std::uint8_t> libjpeg_encode(const std::vector<std::uint8_t>& px, int w, int h,
                                         int channels, const jpeg::EncodeOptions& o) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr err;
  cinfo.err = jpeg_std_error(&err);
  jpeg_create_compress(&cinfo);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &out, &size);
  cinfo.image_width = JDIMENSION(w);
  cinfo.image_height = JDIMENSION(h);
  cinfo.input_components = channels;
  cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, o.quality, TRUE);
  if (channels == 3) {
    cinfo.comp_info[0].h_samp_factor = o.h;
    cinfo.comp_info[0].v_samp_factor = o.v;
  }
  cinfo.restart_interval = unsigned(o.restart_interval);
  jpeg_start_compress(&cinfo, TRUE);
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

}  // namespace

TEST_CASE("jpeg encode reference: equal to libjpeg-turbo byte for byte") {
  int checked = 0;
  for (const auto& [w, h] : {std::pair{1, 1}, {17, 5}, {37, 23}, {64, 48}, {100, 75}, {9, 31}})
    for (int channels : {3, 1}) {
      const auto noise = test::random_bytes(std::size_t(w) * h * channels, unsigned(w * 7 + h));
      std::vector<std::uint8_t> px(noise.size());
      for (std::size_t i = 0; i < px.size(); ++i) {
        const std::size_t p = i / std::size_t(channels);
        px[i] = std::uint8_t((p % std::size_t(w)) * 5 + (p / std::size_t(w)) * 3 +
                             (i % std::size_t(channels)) * 60 + noise[i] % 24);
      }
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
            const auto ours = jpeg::encode_reference(px.data(), w, h, channels, o);
            const auto theirs = libjpeg_encode(px, w, h, channels, o);
            REQUIRE(ours.size() == theirs.size());
            CHECK(ours == theirs);
            ++checked;
          }
    }
  CHECK(checked > 300);
}
