// libjpeg oracle (see the header). Errors longjmp out of libjpeg and become exceptions here, on
// our side of the C boundary.
#include "tests/support/libjpeg_oracle.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tests/support/test_support.h"

// jpeglib.h uses size_t and FILE without including their headers: it must come after them.
// clang-format off
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
// clang-format on

namespace hetcodec::test {
namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

}  // namespace

std::vector<std::uint8_t> libjpeg_encode_rgb444(const Raster& rgb, int quality) {
  return libjpeg_encode(rgb, quality, 1, 1, 0, false);
}

std::vector<std::uint8_t> libjpeg_encode(const Raster& rgb, int quality, int h, int v,
                                         int restart_rows, bool optimize) {
  EncodeParams p;
  p.quality = quality;
  p.h[0] = h;
  p.v[0] = v;
  p.restart_rows = restart_rows;
  p.optimize = optimize;
  return libjpeg_encode_ex(rgb, p);
}

namespace {
void count_warnings(j_common_ptr cinfo, int level) {
  if (level < 0) ++*static_cast<int*>(cinfo->client_data);
}

// A region of the scaled output, read through jpeg_crop_scanline and jpeg_skip_scanlines.
struct Crop {
  int x, y, width, height;
  int* window_x;  // receives the window's left edge as jpeg_crop_scanline widened it
};

// Decompresses with JDCT_ISLOW and default upsampling into `out_space`, or into libjpeg's
// default output colour space when `out_space` is JCS_UNKNOWN, at scale 1/scale_denom, the whole
// image or `crop`. Counts warnings.
Raster decode_into(const std::vector<std::uint8_t>& jpeg, J_COLOR_SPACE out_space, int* warnings,
                   int scale_denom = 1, const Crop* crop = nullptr) {
  jpeg_decompress_struct cinfo{};
  ErrorManager err{};
  int count = 0;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.emit_message = count_warnings;
  cinfo.client_data = &count;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    throw std::runtime_error(std::string("libjpeg decode: ") + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_read_header(&cinfo, TRUE);
  cinfo.dct_method = JDCT_ISLOW;
  if (out_space != JCS_UNKNOWN) cinfo.out_color_space = out_space;
  cinfo.scale_num = 1;
  cinfo.scale_denom = static_cast<unsigned>(scale_denom);
  jpeg_start_decompress(&cinfo);
  Raster r;
  r.components = cinfo.output_components;
  const std::size_t comps = std::size_t(r.components);
  if (!crop) {
    r.width = static_cast<int>(cinfo.output_width);
    r.height = static_cast<int>(cinfo.output_height);
    r.samples.resize(std::size_t(r.width) * r.height * comps);
    while (cinfo.output_scanline < cinfo.output_height) {
      JSAMPROW row = r.samples.data() + std::size_t(cinfo.output_scanline) * r.width * comps;
      jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
  } else {
    JDIMENSION x0 = static_cast<JDIMENSION>(crop->x), w0 = static_cast<JDIMENSION>(crop->width);
    jpeg_crop_scanline(&cinfo, &x0, &w0);
    if (crop->window_x) *crop->window_x = static_cast<int>(x0);
    std::vector<std::uint8_t> row(std::size_t(w0) * comps);
    if (crop->y > 0) jpeg_skip_scanlines(&cinfo, static_cast<JDIMENSION>(crop->y));
    r.width = crop->width;
    r.height = crop->height;
    r.samples.resize(std::size_t(r.width) * r.height * comps);
    const std::size_t skip = (std::size_t(crop->x) - x0) * comps;
    const std::size_t out_row = std::size_t(r.width) * comps;
    for (int k = 0; k < r.height; ++k) {
      JSAMPROW p = row.data();
      jpeg_read_scanlines(&cinfo, &p, 1);
      std::copy_n(row.begin() + std::ptrdiff_t(skip), out_row,
                  r.samples.begin() + std::ptrdiff_t(std::size_t(k) * out_row));
    }
    jpeg_abort_decompress(&cinfo);
  }
  jpeg_destroy_decompress(&cinfo);
  if (warnings) *warnings = count;
  return r;
}
}  // namespace

Raster libjpeg_decode(const std::vector<std::uint8_t>& jpeg, bool rgb) {
  return decode_into(jpeg, rgb ? JCS_RGB : JCS_YCbCr, nullptr);
}

LibjpegHeader libjpeg_read_header(const std::vector<std::uint8_t>& jpeg) {
  jpeg_decompress_struct cinfo{};
  ErrorManager err{};
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    throw std::runtime_error(std::string("libjpeg read_header: ") + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_read_header(&cinfo, TRUE);
  LibjpegHeader h;
  h.width = int(cinfo.image_width);
  h.height = int(cinfo.image_height);
  h.precision = cinfo.data_precision;
  h.components = cinfo.num_components;
  h.restart_interval = int(cinfo.restart_interval);
  h.progressive = cinfo.progressive_mode;
  h.arithmetic = cinfo.arith_code;
  h.jfif = cinfo.saw_JFIF_marker;
  h.adobe = cinfo.saw_Adobe_marker;
  h.adobe_transform = cinfo.Adobe_transform;
  for (int c = 0; c < cinfo.num_components; ++c) {
    h.ids.push_back(cinfo.comp_info[c].component_id);
    h.h.push_back(cinfo.comp_info[c].h_samp_factor);
    h.v.push_back(cinfo.comp_info[c].v_samp_factor);
    h.quant_table.push_back(cinfo.comp_info[c].quant_tbl_no);
  }
  for (int t = 0; t < 4; ++t) {
    std::vector<int> q;
    if (cinfo.quant_tbl_ptrs[t])
      q.assign(cinfo.quant_tbl_ptrs[t]->quantval, cinfo.quant_tbl_ptrs[t]->quantval + 64);
    h.quant_natural.push_back(q);
    for (int ac = 0; ac < 2; ++ac) {
      JHUFF_TBL* tbl = ac ? cinfo.ac_huff_tbl_ptrs[t] : cinfo.dc_huff_tbl_ptrs[t];
      std::vector<int> bits, vals;
      if (tbl) {
        int total = 0;
        for (int l = 1; l <= 16; ++l) bits.push_back(tbl->bits[l]), total += tbl->bits[l];
        vals.assign(tbl->huffval, tbl->huffval + total);
      }
      (ac ? h.ac_bits : h.dc_bits).push_back(bits);
      (ac ? h.ac_vals : h.dc_vals).push_back(vals);
    }
  }
  jpeg_destroy_decompress(&cinfo);
  return h;
}

std::vector<std::uint8_t> libjpeg_encode_ex(const Raster& in, const EncodeParams& p) {
  jpeg_compress_struct cinfo{};
  ErrorManager err{};
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  unsigned char* out = nullptr;
  unsigned long out_size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    std::free(out);
    throw std::runtime_error(std::string("libjpeg encode: ") + err.message);
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &out, &out_size);
  cinfo.image_width = static_cast<JDIMENSION>(in.width);
  cinfo.image_height = static_cast<JDIMENSION>(in.height);
  cinfo.input_components = in.components;
  cinfo.in_color_space = in.components == 1   ? JCS_GRAYSCALE
                         : in.components == 2 ? JCS_UNKNOWN
                         : in.components == 3 ? JCS_RGB
                                              : JCS_CMYK;
  jpeg_set_defaults(&cinfo);
  if (in.components == 3 && p.keep_rgb) jpeg_set_colorspace(&cinfo, JCS_RGB);
  if (in.components == 3 && p.grayscale) jpeg_set_colorspace(&cinfo, JCS_GRAYSCALE);
  if (in.components == 4) jpeg_set_colorspace(&cinfo, p.keep_rgb ? JCS_CMYK : JCS_YCCK);
  jpeg_set_quality(&cinfo, p.quality, TRUE);
  cinfo.dct_method = JDCT_ISLOW;
  cinfo.write_JFIF_header = p.jfif ? cinfo.write_JFIF_header : FALSE;
  for (int c = 0; c < cinfo.num_components; ++c) {
    cinfo.comp_info[c].h_samp_factor = p.h[c];
    cinfo.comp_info[c].v_samp_factor = p.v[c];
  }
  cinfo.restart_in_rows = p.restart_rows;
  cinfo.restart_interval = static_cast<unsigned>(p.restart_blocks);
  cinfo.optimize_coding = p.optimize ? TRUE : FALSE;
  jpeg_scan_info scans[4] = {};
  if (p.separate_scans) {
    for (int c = 0; c < cinfo.num_components; ++c) {
      scans[c].comps_in_scan = 1;
      scans[c].component_index[0] = c;
      scans[c].Ss = 0;
      scans[c].Se = 63;
    }
    cinfo.scan_info = scans;
    cinfo.num_scans = cinfo.num_components;
  }
  if (p.progressive) jpeg_simple_progression(&cinfo);
  cinfo.arith_code = p.arithmetic ? TRUE : FALSE;
  jpeg_start_compress(&cinfo, TRUE);
  const std::size_t row_bytes = std::size_t(in.width) * in.components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(in.samples.data() + cinfo.next_scanline * row_bytes);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  std::vector<std::uint8_t> bytes(out, out + out_size);
  jpeg_destroy_compress(&cinfo);
  std::free(out);
  return bytes;
}

Raster libjpeg_decode_default(const std::vector<std::uint8_t>& jpeg, int* warnings) {
  return decode_into(jpeg, JCS_UNKNOWN, warnings);
}

Raster libjpeg_decode_scaled(const std::vector<std::uint8_t>& jpeg, int scale_denom) {
  return decode_into(jpeg, JCS_UNKNOWN, nullptr, scale_denom);
}

int libjpeg_turbo_version() {
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
  return LIBJPEG_TURBO_VERSION_NUMBER;
#else
  return 0;
#endif
}

Raster libjpeg_decode_cropped(const std::vector<std::uint8_t>& jpeg, int scale_denom, int x, int y,
                              int width, int height, int* window_x) {
  const Crop crop{x, y, width, height, window_x};
  return decode_into(jpeg, JCS_UNKNOWN, nullptr, scale_denom, &crop);
}

}  // namespace hetcodec::test

// libjpeg-turbo's reduced IDCTs (jidctred.c), exported by libjpeg.so.62 but declared only in its
// private jdct.h.
extern "C" {
void jpeg_idct_4x4(j_decompress_ptr, jpeg_component_info*, JCOEFPTR, JSAMPARRAY, JDIMENSION);
void jpeg_idct_2x2(j_decompress_ptr, jpeg_component_info*, JCOEFPTR, JSAMPARRAY, JDIMENSION);
void jpeg_idct_1x1(j_decompress_ptr, jpeg_component_info*, JCOEFPTR, JSAMPARRAY, JDIMENSION);
}

namespace hetcodec::test {

std::vector<std::uint8_t> libjpeg_idct_reduced(const std::int16_t* coefficients,
                                               const std::uint16_t* quant, int size) {
  // A decompressor started on a one-pixel file provides the range-limit table (jdmaster.c's
  // prepare_range_limit_table) and a component record to carry the multiplier table.
  Raster one{1, 1, 1, {128}};
  const std::vector<std::uint8_t> file = libjpeg_encode_ex(one, EncodeParams{});
  jpeg_decompress_struct cinfo{};
  ErrorManager err{};
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    throw std::runtime_error(std::string("libjpeg idct: ") + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, file.data(), static_cast<unsigned long>(file.size()));
  jpeg_read_header(&cinfo, TRUE);
  jpeg_start_decompress(&cinfo);
  // ISLOW_MULT_TYPE is MULTIPLIER (jmorecfg.h, defined only for the library's own sources):
  // short in a WITH_SIMD build, as Debian's is, else int.
#ifdef WITH_SIMD
  using Multiplier = short;
#else
  using Multiplier = int;
#endif
  Multiplier table[64];
  for (int i = 0; i < 64; ++i) table[i] = static_cast<Multiplier>(quant[i]);
  jpeg_component_info comp = cinfo.comp_info[0];
  comp.dct_table = table;
  JCOEF block[64];
  for (int i = 0; i < 64; ++i) block[i] = coefficients[i];
  JSAMPLE samples[8][8] = {};
  JSAMPROW rows[8];
  for (int r = 0; r < 8; ++r) rows[r] = samples[r];
  switch (size) {
    case 4:
      jpeg_idct_4x4(&cinfo, &comp, block, rows, 0);
      break;
    case 2:
      jpeg_idct_2x2(&cinfo, &comp, block, rows, 0);
      break;
    default:
      jpeg_idct_1x1(&cinfo, &comp, block, rows, 0);
      size = 1;
      break;
  }
  jpeg_abort_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  std::vector<std::uint8_t> out;
  for (int r = 0; r < size; ++r) out.insert(out.end(), samples[r], samples[r] + size);
  return out;
}

Coefficients libjpeg_coefficients(const std::vector<std::uint8_t>& jpeg) {
  jpeg_decompress_struct cinfo{};
  ErrorManager err{};
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    throw std::runtime_error(std::string("libjpeg read_coefficients: ") + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_read_header(&cinfo, TRUE);
  jvirt_barray_ptr* arrays = jpeg_read_coefficients(&cinfo);
  Coefficients out;
  for (int c = 0; c < cinfo.num_components; ++c) {
    const jpeg_component_info& comp = cinfo.comp_info[c];
    const int w = int(comp.width_in_blocks), h = int(comp.height_in_blocks);
    out.width_in_blocks.push_back(w);
    out.height_in_blocks.push_back(h);
    std::vector<std::int16_t> blocks(std::size_t(w) * h * 64);
    for (int by = 0; by < h; ++by) {
      JBLOCKARRAY row = (*cinfo.mem->access_virt_barray)(reinterpret_cast<j_common_ptr>(&cinfo),
                                                         arrays[c], JDIMENSION(by), 1, FALSE);
      for (int bx = 0; bx < w; ++bx)
        for (int k = 0; k < 64; ++k) blocks[(std::size_t(by) * w + bx) * 64 + k] = row[0][bx][k];
    }
    out.blocks.push_back(std::move(blocks));
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return out;
}

std::vector<std::uint8_t> libjpeg_recode(const std::vector<std::uint8_t>& jpeg,
                                         const RecodeParams& p) {
  jpeg_decompress_struct src{};
  jpeg_compress_struct dst{};
  ErrorManager err{};
  src.err = jpeg_std_error(&err.pub);
  dst.err = src.err;
  err.pub.error_exit = on_error;
  unsigned char* out = nullptr;
  unsigned long out_size = 0;
  std::vector<jpeg_scan_info> scans(p.scans.size());
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&dst);
    jpeg_destroy_decompress(&src);
    std::free(out);
    throw std::runtime_error(std::string("libjpeg recode: ") + err.message);
  }
  jpeg_create_decompress(&src);
  jpeg_create_compress(&dst);
  jpeg_mem_src(&src, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_read_header(&src, TRUE);
  jvirt_barray_ptr* arrays = jpeg_read_coefficients(&src);
  jpeg_copy_critical_parameters(&src, &dst);
  if (p.progressive) jpeg_simple_progression(&dst);
  if (!p.scans.empty()) {
    for (std::size_t i = 0; i < p.scans.size(); ++i) {
      const ScanSpec& s = p.scans[i];
      scans[i].comps_in_scan = int(s.components.size());
      for (std::size_t k = 0; k < s.components.size(); ++k)
        scans[i].component_index[k] = s.components[k];
      scans[i].Ss = s.ss;
      scans[i].Se = s.se;
      scans[i].Ah = s.ah;
      scans[i].Al = s.al;
    }
    dst.scan_info = scans.data();
    dst.num_scans = int(scans.size());
  }
  dst.arith_code = p.arithmetic ? TRUE : FALSE;
  dst.optimize_coding = p.optimize ? TRUE : FALSE;
  dst.restart_interval = static_cast<unsigned>(p.restart_blocks);
  jpeg_mem_dest(&dst, &out, &out_size);
  jpeg_write_coefficients(&dst, arrays);
  jpeg_finish_compress(&dst);
  jpeg_finish_decompress(&src);
  std::vector<std::uint8_t> bytes(out, out + out_size);
  jpeg_destroy_compress(&dst);
  jpeg_destroy_decompress(&src);
  std::free(out);
  return bytes;
}

std::vector<ScanSpec> successive_approximation_script(int components) {
  std::vector<ScanSpec> s;
  std::vector<int> all;
  for (int c = 0; c < components; ++c) all.push_back(c);
  s.push_back({all, 0, 0, 0, 2});  // DC, two bits short
  for (int c = 0; c < components; ++c) {
    s.push_back({{c}, 1, 5, 0, 2});
    s.push_back({{c}, 6, 63, 0, 1});
  }
  s.push_back({all, 0, 0, 2, 1});  // DC refined twice
  for (int c = 0; c < components; ++c) s.push_back({{c}, 1, 5, 2, 1});
  s.push_back({all, 0, 0, 1, 0});
  for (int c = components - 1; c >= 0; --c) {
    s.push_back({{c}, 1, 5, 1, 0});
    s.push_back({{c}, 6, 63, 1, 0});
  }
  return s;
}

Raster synthetic_rgb(int width, int height, unsigned seed) {
  Raster r{width, height, 3, {}};
  auto noise = random_bytes(std::size_t(width) * height * 3, seed);
  r.samples.resize(noise.size());
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      std::size_t i = (std::size_t(y) * width + x) * 3;
      bool edge = ((x / 7) + (y / 5)) % 3 == 0;
      int base[3] = {x * 255 / std::max(1, width - 1), y * 255 / std::max(1, height - 1),
                     edge ? 255 - (x + y) % 256 : (x * y) % 256};
      for (int c = 0; c < 3; ++c) {
        int v = base[c] + (noise[i + c] % 64) - 32;
        r.samples[i + c] = static_cast<std::uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
      }
    }
  }
  return r;
}

}  // namespace hetcodec::test
