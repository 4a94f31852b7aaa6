// Metadata oracles through libjpeg's and libpng's C APIs (see the header). Errors longjmp out of
// the libraries and become std::runtime_error here.
#include "tests/support/metadata_oracle.h"

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "tests/support/test_support.h"

// jpeglib.h uses size_t and FILE without including their headers: it must come after them.
// clang-format off
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
// clang-format on

namespace hetcodec::test {
namespace {

void put32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = std::uint8_t(v >> (24 - 8 * i));
}

struct JpegError {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_jpeg_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

}  // namespace

std::vector<std::uint8_t> icc_profile(std::size_t size, const char* space, unsigned seed) {
  size = std::max<std::size_t>(size, 132);
  const auto r = random_bytes(size, seed);
  std::vector<std::uint8_t> p(size, 0);
  std::copy(r.begin() + 132, r.end(), p.begin() + 132);
  put32(p.data(), std::uint32_t(size));
  put32(p.data() + 8, 0x04300000);  // version 4.3
  std::memcpy(p.data() + 12, "mntr", 4);
  std::memcpy(p.data() + 16, space, 4);
  std::memcpy(p.data() + 20, "XYZ ", 4);
  std::memcpy(p.data() + 36, "acsp", 4);
  put32(p.data() + 68, 0x0000F6D6);  // the D50 illuminant, s15Fixed16
  put32(p.data() + 72, 0x00010000);
  put32(p.data() + 76, 0x0000D32D);
  return p;  // tag count (bytes 128-131) 0
}

std::vector<std::uint8_t> exif_block(std::size_t extra) {
  std::vector<std::uint8_t> e = {'I',  'I',  42, 0, 8, 0, 0, 0,              // header, IFD at 8
                                 1,    0,                                    // one entry
                                 0x12, 0x01, 3,  0, 1, 0, 0, 0, 6, 0, 0, 0,  // Orientation 6
                                 0,    0,    0,  0};                         // no next IFD
  const auto r = random_bytes(extra, 99);
  e.insert(e.end(), r.begin(), r.end());
  return e;
}

std::vector<std::uint8_t> libjpeg_file(const JpegMetadataParams& p) {
  jpeg_compress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_jpeg_error;
  unsigned char* out = nullptr;
  unsigned long out_size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    std::free(out);
    throw std::runtime_error(std::string("libjpeg: ") + err.message);
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &out, &out_size);
  const int comps = p.gray ? 1 : 3;
  cinfo.image_width = JDIMENSION(p.width);
  cinfo.image_height = JDIMENSION(p.height);
  cinfo.input_components = comps;
  cinfo.in_color_space = p.gray ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  if (p.rgb) jpeg_set_colorspace(&cinfo, JCS_RGB);
  if (p.progressive) jpeg_simple_progression(&cinfo);
  jpeg_start_compress(&cinfo, TRUE);
  if (!p.exif.empty()) {
    std::vector<std::uint8_t> app1 = {'E', 'x', 'i', 'f', 0, 0};
    app1.insert(app1.end(), p.exif.begin(), p.exif.end());
    jpeg_write_marker(&cinfo, JPEG_APP0 + 1, app1.data(), unsigned(app1.size()));
  }
  if (!p.icc.empty() && !p.icc_reversed && !p.icc_segment) {
    jpeg_write_icc_profile(&cinfo, p.icc.data(), unsigned(p.icc.size()));
  } else if (!p.icc.empty()) {
    const std::size_t seg = p.icc_segment ? p.icc_segment : 65519;
    const std::size_t n = (p.icc.size() + seg - 1) / seg;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t s = p.icc_reversed ? n - 1 - k : k;
      std::vector<std::uint8_t> app2(12);
      std::memcpy(app2.data(), "ICC_PROFILE", 12);
      app2.push_back(std::uint8_t(s + 1));
      app2.push_back(std::uint8_t(n));
      const std::size_t end = std::min(p.icc.size(), (s + 1) * seg);
      app2.insert(app2.end(), p.icc.begin() + std::ptrdiff_t(s * seg),
                  p.icc.begin() + std::ptrdiff_t(end));
      jpeg_write_marker(&cinfo, JPEG_APP0 + 2, app2.data(), unsigned(app2.size()));
    }
  }
  const auto pixels = random_bytes(std::size_t(p.width) * std::size_t(p.height) * comps, 7);
  std::vector<JSAMPLE> row(std::size_t(p.width) * comps);
  for (int y = 0; y < p.height; ++y) {
    for (std::size_t x = 0; x < row.size(); ++x)  // smooth rows with some noise
      row[x] = JSAMPLE((x * 3 + std::size_t(y) * 5) / 2 % 256 ^
                       (pixels[std::size_t(y) * row.size() + x] & 15));
    JSAMPROW r = row.data();
    jpeg_write_scanlines(&cinfo, &r, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::vector<std::uint8_t> file(out, out + out_size);
  std::free(out);
  return file;
}

LibjpegMetadata libjpeg_metadata(const std::vector<std::uint8_t>& jpeg) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_jpeg_error;
  err.pub.emit_message = [](j_common_ptr, int) {};  // warnings: the result says enough
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    throw std::runtime_error(std::string("libjpeg: ") + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
  jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
  jpeg_read_header(&cinfo, TRUE);
  LibjpegMetadata m;
  m.color_space = int(cinfo.jpeg_color_space);
  m.components = cinfo.num_components;
  m.width = int(cinfo.image_width);
  m.height = int(cinfo.image_height);
  m.progressive = cinfo.progressive_mode != 0;
  for (jpeg_saved_marker_ptr s = cinfo.marker_list; s; s = s->next)
    if (s->marker == JPEG_APP0 + 1 && s->data_length > 6 &&
        std::memcmp(s->data, "Exif\0\0", 6) == 0) {
      m.exif.assign(s->data + 6, s->data + s->data_length);
      break;
    }
  JOCTET* icc = nullptr;
  unsigned int icc_len = 0;
  m.has_icc = jpeg_read_icc_profile(&cinfo, &icc, &icc_len);
  if (m.has_icc) m.icc.assign(icc, icc + icc_len);
  std::free(icc);
  jpeg_destroy_decompress(&cinfo);
  return m;
}

std::string libjpeg_color_name(int cs) {
  switch (cs) {
    case JCS_GRAYSCALE:
      return "grayscale";
    case JCS_YCbCr:
      return "YCbCr";
    case JCS_RGB:
      return "RGB";
    case JCS_CMYK:
      return "CMYK";
    case JCS_YCCK:
      return "YCCK";
    default:
      return "unknown";
  }
}

namespace {

struct PngIo {
  const std::vector<std::uint8_t>* in = nullptr;
  std::size_t at = 0;
  std::vector<std::uint8_t> out;
};

void read_io(png_structp png, png_bytep data, png_size_t n) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  if (n > io->in->size() - io->at) png_error(png, "read past the end");
  std::memcpy(data, io->in->data() + io->at, n);
  io->at += n;
}

void write_io(png_structp png, png_bytep data, png_size_t n) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  io->out.insert(io->out.end(), data, data + n);
}

void quiet(png_structp, png_const_charp) {}

}  // namespace

LibpngMetadata libpng_metadata(const std::vector<std::uint8_t>& file) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, quiet);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error("libpng refused the file");
  }
  PngIo io;
  io.in = &file;
  png_set_read_fn(png, &io, read_io);
  png_read_info(png, info);
  LibpngMetadata m;
  m.width = png_get_image_width(png, info);
  m.height = png_get_image_height(png, info);
  m.bit_depth = png_get_bit_depth(png, info);
  m.color_type = png_get_color_type(png, info);
  m.interlace = png_get_interlace_type(png, info);
  png_set_expand(png);
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const std::size_t row = png_get_rowbytes(png, info);
  m.samples.resize(row * m.height);
  for (int pass = 0; pass < passes; ++pass)
    for (std::uint32_t y = 0; y < m.height; ++y) png_read_row(png, &m.samples[y * row], nullptr);
  png_read_end(png, info);
  png_charp name = nullptr;
  int method = 0;
  png_bytep profile = nullptr;
  png_uint_32 len = 0;
  if (png_get_iCCP(png, info, &name, &method, &profile, &len)) {
    m.has_iccp = true;
    m.icc_name = name;
    m.icc.assign(profile, profile + len);
  }
  png_uint_32 exif_len = 0;
  png_bytep exif = nullptr;
  if (png_get_eXIf_1(png, info, &exif_len, &exif)) m.exif.assign(exif, exif + exif_len);
  m.has_srgb = png_get_sRGB(png, info, &m.srgb_intent) != 0;
  png_fixed_point g = 0;
  m.has_gama = png_get_gAMA_fixed(png, info, &g) != 0;
  m.gama = std::uint32_t(g);
  png_fixed_point c[8];
  m.has_chrm =
      png_get_cHRM_fixed(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]) != 0;
  for (int k = 0; k < 8; ++k) m.chrm[k] = m.has_chrm ? c[k] : 0;
  png_uint_32 px = 0, py = 0;
  int unit = 0;
  m.has_phys = png_get_pHYs(png, info, &px, &py, &unit) != 0;
  m.phys_x = px;
  m.phys_y = py;
  m.phys_unit = m.has_phys ? unit : -1;
  png_textp text = nullptr;
  const int n = png_get_text(png, info, &text, nullptr);
  for (int k = 0; k < n; ++k)
    m.text.push_back({text[k].compression, text[k].key,
                      std::string(text[k].text, text[k].compression >= PNG_ITXT_COMPRESSION_NONE
                                                    ? text[k].itxt_length
                                                    : text[k].text_length)});
  png_destroy_read_struct(&png, &info, nullptr);
  return m;
}

std::vector<std::uint8_t> libpng_file(const PngMetadataParams& p) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, quiet);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("libpng failed to write");
  }
  PngIo io;
  png_set_write_fn(png, &io, write_io, nullptr);
  png_set_IHDR(png, info, png_uint_32(p.width), png_uint_32(p.height), 8,
               p.channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!p.icc.empty())
    png_set_iCCP(png, info, "test profile", PNG_COMPRESSION_TYPE_BASE, p.icc.data(),
                 png_uint_32(p.icc.size()));
  if (p.srgb) png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  if (p.gama) png_set_gAMA_fixed(png, info, 45455);
  if (p.chrm) png_set_cHRM_fixed(png, info, 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000);
  if (p.phys) png_set_pHYs(png, info, 2835, 3780, PNG_RESOLUTION_METER);
  std::string keys[3] = {"Title", "Comment", "Description"};
  std::string values[3] = {"plain text", std::string(300, 'z') + " compressed",
                           "international text, \xC3\xA9t\xC3\xA9"};
  char lang[] = "fr", lang_key[] = "Description traduite";
  png_text t[3] = {};
  const int compression[3] = {PNG_TEXT_COMPRESSION_NONE, PNG_TEXT_COMPRESSION_zTXt,
                              PNG_ITXT_COMPRESSION_NONE};
  for (int k = 0; k < 3; ++k) {
    t[k].compression = compression[k];
    t[k].key = keys[k].data();
    t[k].text = values[k].data();
    t[k].text_length = values[k].size();
  }
  t[2].lang = lang;
  t[2].lang_key = lang_key;
  if (p.text) png_set_text(png, info, t, 3);
  std::vector<std::uint8_t> exif = p.exif;
  if (!exif.empty()) png_set_eXIf_1(png, info, png_uint_32(exif.size()), exif.data());
  png_write_info(png, info);
  const auto samples = random_bytes(std::size_t(p.width) * std::size_t(p.height) * p.channels, 3);
  std::vector<std::uint8_t> row(std::size_t(p.width) * p.channels);
  for (int y = 0; y < p.height; ++y) {
    std::memcpy(row.data(), samples.data() + std::size_t(y) * row.size(), row.size());
    png_write_row(png, row.data());
  }
  // No info here: libpng 1.6.39 would write the eXIf chunk a second time after the image data.
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return io.out;
}

std::vector<std::string> chunk_types(const std::vector<std::uint8_t>& f) {
  std::vector<std::string> out;
  for (std::size_t at = 8; at + 12 <= f.size();) {
    const std::uint32_t len = std::uint32_t(f[at]) << 24 | std::uint32_t(f[at + 1]) << 16 |
                              std::uint32_t(f[at + 2]) << 8 | f[at + 3];
    out.emplace_back(f.begin() + std::ptrdiff_t(at + 4), f.begin() + std::ptrdiff_t(at + 8));
    at += 12 + std::size_t(len);
  }
  return out;
}

std::vector<std::uint8_t> chunk_data(const std::vector<std::uint8_t>& f, const std::string& type) {
  for (std::size_t at = 8; at + 12 <= f.size();) {
    const std::uint32_t len = std::uint32_t(f[at]) << 24 | std::uint32_t(f[at + 1]) << 16 |
                              std::uint32_t(f[at + 2]) << 8 | f[at + 3];
    if (std::memcmp(&f[at + 4], type.data(), 4) == 0 && len <= f.size() - at - 12)
      return std::vector<std::uint8_t>(f.begin() + std::ptrdiff_t(at + 8),
                                       f.begin() + std::ptrdiff_t(at + 8 + len));
    at += 12 + std::size_t(len);
  }
  return {};
}

}  // namespace hetcodec::test
