// Baseline JPEG encoding on the host side: the parameters libjpeg-turbo derives from
// jpeg_set_defaults, jpeg_set_quality(q, TRUE), the sampling factors, restart interval and
// optimize_coding (jcparam.c, jcmaster.c), the file's markers as jcmarker.c writes them, the
// optimal Huffman tables of jchuff.c's jpeg_gen_optimal_table, and a CPU reference encoder whose
// files equal libjpeg-turbo's byte for byte (jccolor.c, jcsample.c, jcprepct.c, jfdctint.c,
// jcdctmgr.c, jchuff.c): the reference the device encoder (core/portable/jpeg_encode.h) is held
// to.
#ifndef HETCODEC_CORE_JPEG_ENCODER_H
#define HETCODEC_CORE_JPEG_ENCODER_H

#include <array>
#include <cstdint>
#include <vector>

#include "core/image.h"
#include "core/jpeg/parser.h"

namespace hetcodec::jpeg {

struct EncodeOptions {
  int quality = 75;  // 1..100, jpeg_set_quality with force_baseline
  int h = 2, v = 2;  // the luma component's sampling factors (chroma 1x1), each 1 or 2
  bool gray = false;         // one component (the luma of colour input, as cjpeg -grayscale)
  int restart_interval = 0;  // MCUs per restart interval, 0: none (at most 65535)
  int restart_rows = 0;      // MCU rows per restart interval (cjpeg -restart N); wins when > 0
  bool optimize = false;     // optimal Huffman tables (cjpeg -optimize)
  // Base quantisation tables in natural order, scaled by `quality` as cjpeg -qtables does (0:
  // luma, 1: chroma); a table not given is T.81 Annex K's, as with cjpeg.
  std::vector<std::array<std::uint16_t, 64>> base_tables;
};

// What the encode of one image needs, derived once: libjpeg's component geometry and tables.
struct EncodePlan {
  int width = 0, height = 0;
  int comps = 1;            // 1 or 3
  int hmax = 1, vmax = 1;   // the largest sampling factors
  int h[3] = {1, 1, 1}, v[3] = {1, 1, 1};  // as written in SOF
  int bw[3] = {}, bh[3] = {};  // blocks that hold samples (width_in_blocks, height_in_blocks)
  int mcus_x = 0, mcus_y = 0;  // MCUs across and down (a single component: its blocks)
  int blocks_per_mcu = 1;
  int restart_interval = 0;    // MCUs, 0: none
  bool optimize = false;
  int quant[2][64] = {};       // natural order, 1..255
  std::uint64_t mcus() const { return std::uint64_t(mcus_x) * std::uint64_t(mcus_y); }
  std::uint64_t blocks() const { return mcus() * std::uint64_t(blocks_per_mcu); }
  std::uint64_t intervals() const {
    return restart_interval > 0 ? (mcus() + std::uint64_t(restart_interval) - 1) /
                                      std::uint64_t(restart_interval)
                                : 1;
  }
  // The MCU layout's sampling factors of component c (1 x 1 for a single component).
  int mcu_h(int c) const { return comps == 1 ? 1 : h[c]; }
  int mcu_v(int c) const { return comps == 1 ? 1 : v[c]; }
};

// The plan for an image of width x height (1..65535 each) and `channels` colour samples (1 or
// 3); Error(InvalidArgument) naming the argument for anything libjpeg would refuse.
EncodePlan plan_encode(int width, int height, int channels, const EncodeOptions& options);

// The four Huffman tables a scan uses: DC and AC of slot 0 (luma) and slot 1 (chroma).
struct EncodeTables {
  HuffmanTable dc[2], ac[2];
};
EncodeTables standard_encode_tables();
// Symbol counts per table (DC 0, AC 0, DC 1, AC 1; 256 each, as HC_JENC_HIST_WORDS) to the
// optimal tables libjpeg-turbo builds from them (jpeg_gen_optimal_table); all-zero counts (a
// slot no block uses) give an empty table.
EncodeTables optimal_encode_tables(const std::uint32_t* counts);
HuffmanTable optimal_huffman_table(const std::uint32_t* counts256);

// Each symbol's code: length << 16 | code, 0 where it has none (libjpeg's ehufsi/ehufco).
std::array<std::uint32_t, 256> derive_codes(const HuffmanTable& table);

// Error(InvalidArgument) for metadata no file can carry: EXIF beyond one APP1, an ICC profile
// beyond 255 APP2 markers.
void check_metadata(const Metadata* metadata);

// The file up to the first entropy-coded byte: SOI, JFIF APP0, APP1 Exif and APP2 ICC_PROFILE
// from `metadata` when given, DQT, SOF0, DHT, DRI, SOS (jcmarker.c's order and contents);
// check_metadata's Error first.
std::vector<std::uint8_t> write_headers(const EncodePlan& plan, const EncodeTables& tables,
                                        const Metadata* metadata = nullptr);

// Bits of the entropy-coded data of a scan: the blocks in coding order, 64 coefficients each in
// zigzag order (dummy blocks included), with restart markers and 0xFF stuffing (jchuff.c).
std::vector<std::uint8_t> encode_scan(const EncodePlan& plan, const EncodeTables& tables,
                                      const std::int16_t* blocks);
// The same bytes, coded on `threads` threads (<= 0: scan_threads(plan, 0)): whole restart
// intervals per thread, or pieces of an interval joined at their bit offsets.
std::vector<std::uint8_t> encode_scan(const EncodePlan& plan, const EncodeTables& tables,
                                      const std::int16_t* blocks, int threads);
// The threads worth coding a scan on: up to `threads` (<= 0: one per hardware thread), one for
// each 2048 MCUs (a 500x375 4:2:0 image is coded on one; a thread started for a small scan
// costs more than it codes).
int scan_threads(const EncodePlan& plan, int threads);
// Symbol counts of the same blocks (the input of optimal_encode_tables).
std::vector<std::uint32_t> count_symbols(const EncodePlan& plan, const std::int16_t* blocks);

// The reference encoder: `channels` 3 (RGB, coded as YCbCr unless options.gray) or 1 (gray),
// 8-bit samples, rows without padding.
std::vector<std::uint8_t> encode_reference(const std::uint8_t* pixels, int width, int height,
                                           int channels, const EncodeOptions& options);
// The same, with the EXIF and ICC profile of `metadata` (write_headers).
std::vector<std::uint8_t> encode_reference(const std::uint8_t* pixels, int width, int height,
                                           int channels, const EncodeOptions& options,
                                           const Metadata& metadata);
// The reference encoder's coded blocks of `pixels` (channels 1 or 3) for `plan`, as
// encode_scan takes them.
std::vector<std::int16_t> reference_blocks(const std::uint8_t* pixels, int channels,
                                           const EncodePlan& plan);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_ENCODER_H
