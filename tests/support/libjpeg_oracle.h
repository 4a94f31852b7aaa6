// The libjpeg(-turbo) oracle, called through its C API (never its command-line tools), so the
// same test binary runs on any machine that has the library.
#ifndef HETCODEC_TESTS_SUPPORT_LIBJPEG_ORACLE_H
#define HETCODEC_TESTS_SUPPORT_LIBJPEG_ORACLE_H

#include <cstdint>
#include <vector>

namespace hetcodec::test {

struct Raster {
  int width = 0, height = 0, components = 0;
  std::vector<std::uint8_t> samples;  // interleaved, row-major
};

// Compresses interleaved 8-bit RGB with libjpeg: JDCT_ISLOW, the given quality, 4:4:4.
std::vector<std::uint8_t> libjpeg_encode_rgb444(const Raster& rgb, int quality);

// Decompresses with libjpeg: JDCT_ISLOW, default (fancy) upsampling. `rgb` true: RGB output;
// false: the YCbCr samples libjpeg converts from (out_color_space = JCS_YCbCr).
Raster libjpeg_decode(const std::vector<std::uint8_t>& jpeg, bool rgb);

// What libjpeg's jpeg_read_header() reports, for comparison with our parser.
struct LibjpegHeader {
  int width = 0, height = 0, precision = 0, components = 0, restart_interval = 0;
  bool progressive = false, arithmetic = false, jfif = false, adobe = false;
  int adobe_transform = 0;
  std::vector<int> ids, h, v, quant_table;
  std::vector<std::vector<int>> quant_natural;  // [table][natural index], empty if undefined
  std::vector<std::vector<int>> dc_bits, ac_bits, dc_vals, ac_vals;  // bits[1..16], symbols
};
LibjpegHeader libjpeg_read_header(const std::vector<std::uint8_t>& jpeg);

// Compresses interleaved RGB with libjpeg: the given quality, luma sampling factors (h, v) and
// restart interval in MCU rows (0: none), optionally with optimised Huffman tables.
std::vector<std::uint8_t> libjpeg_encode(const Raster& rgb, int quality, int h, int v,
                                         int restart_rows, bool optimize);

// Everything the corpus varies, for libjpeg_encode_ex.
struct EncodeParams {
  int quality = 75;
  // Sampling factors per component; the component count follows `input` (1: grayscale,
  // 2: two components of no colour space, 3: RGB -> YCbCr, or RGB kept when `keep_rgb`; 4: CMYK written as YCCK or, with keep_rgb,
  // as plain CMYK).
  int h[4] = {1, 1, 1, 1}, v[4] = {1, 1, 1, 1};
  int restart_rows = 0, restart_blocks = 0;  // restart interval in MCU rows or in MCUs
  bool optimize = false;
  bool keep_rgb = false;
  bool grayscale = false;  // RGB input written as one component, its luma (cjpeg -grayscale)
  bool jfif = true;  // write the JFIF APP0 marker (libjpeg's default)
  // Sequential but non-interleaved: one scan per component (libjpeg's scan_info).
  bool separate_scans = false;
  // Progressive (jpeg_simple_progression).
  bool progressive = false;
  // Arithmetic coding instead of Huffman (cinfo.arith_code).
  bool arithmetic = false;
};
std::vector<std::uint8_t> libjpeg_encode_ex(const Raster& input, const EncodeParams& params);

// Decompresses as djpeg does by default: JDCT_ISLOW, fancy upsampling, the default output
// colour space (grayscale for 1 component, RGB for YCbCr and RGB, CMYK for CMYK and YCCK).
// Warnings libjpeg emitted are returned in `warnings` when not null.
Raster libjpeg_decode_default(const std::vector<std::uint8_t>& jpeg, int* warnings = nullptr);

// The same at scale 1/scale_denom (scale_num = 1), as djpeg -scale 1/N -dct int: libjpeg's
// output_width x output_height, its reduced IDCTs (jidctred.c) and upsampling from the scaled
// component sizes.
Raster libjpeg_decode_scaled(const std::vector<std::uint8_t>& jpeg, int scale_denom);

// The region of `width` x `height` pixels at (x, y) of that decode at 1/scale_denom, as
// libjpeg-turbo decodes it alone: jpeg_crop_scanline (which widens the region leftwards to
// *window_x, an iMCU column, when not the whole width) and jpeg_skip_scanlines; the columns
// left of x are dropped from its rows.
// LIBJPEG_TURBO_VERSION_NUMBER of the libjpeg-turbo the oracle was built against (2001005 for
// 2.1.5), 0 for another libjpeg.
int libjpeg_turbo_version();

Raster libjpeg_decode_cropped(const std::vector<std::uint8_t>& jpeg, int scale_denom, int x, int y,
                              int width, int height, int* window_x = nullptr);

// libjpeg-turbo's C reduced IDCT (jpeg_idct_4x4, _2x2 or _1x1 of jidctred.c, which
// libjpeg.so.62 exports) on one block: `coefficients` (64, natural order) dequantised by `quant`
// (64, natural order, taken as the library's 16-bit multipliers); size * size samples, row-major.
std::vector<std::uint8_t> libjpeg_idct_reduced(const std::int16_t* coefficients,
                                               const std::uint16_t* quant, int size);

// The quantised DCT coefficients libjpeg's jpeg_read_coefficients() gives: per component,
// width_in_blocks x height_in_blocks blocks of 64 values in natural order, row-major.
struct Coefficients {
  std::vector<int> width_in_blocks, height_in_blocks;
  std::vector<std::vector<std::int16_t>> blocks;
};
Coefficients libjpeg_coefficients(const std::vector<std::uint8_t>& jpeg);

// One scan of a scan script, as libjpeg's jpeg_scan_info: components (indices), Ss, Se, Ah, Al.
struct ScanSpec {
  std::vector<int> components;
  int ss = 0, se = 63, ah = 0, al = 0;
};

// What a recoding changes (jpegtran through the C API: jpeg_read_coefficients, then
// jpeg_write_coefficients with the source's critical parameters).
struct RecodeParams {
  bool progressive = false;     // jpeg_simple_progression
  bool arithmetic = false;      // arith_code
  std::vector<ScanSpec> scans;  // a scan script of one's own (progressive when any Ss/Ah/Al
                                // is set, as jpegtran -scans)
  int restart_blocks = 0;       // restart interval in MCUs
  bool optimize = false;
};
// Recodes a file losslessly, as jpegtran -progressive / -arithmetic / -scans / -restart do.
std::vector<std::uint8_t> libjpeg_recode(const std::vector<std::uint8_t>& jpeg,
                                         const RecodeParams& params);

// The scan script of jpeg_simple_progression() for YCbCr, and one that uses successive
// approximation on every band (DC refined twice, AC bands in two or three passes), for
// `components` components.
std::vector<ScanSpec> successive_approximation_script(int components);

// A photo-like test image: gradients, edges and noise, so every colour path is exercised.
Raster synthetic_rgb(int width, int height, unsigned seed);

}  // namespace hetcodec::test

#endif  // HETCODEC_TESTS_SUPPORT_LIBJPEG_ORACLE_H
