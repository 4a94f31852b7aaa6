// The CPU stage of JPEG files whose scans cannot go straight to tokens: progressive Huffman
// (SOF2) and arithmetic-coded (SOF9 sequential, SOF10 progressive) files. Every scan is decoded
// into one buffer of quantised coefficients for the whole frame, as libjpeg-turbo's
// multi-scan coefficient controller keeps them (jdcoefct.c); then, where libjpeg-turbo would
// apply it, block smoothing estimates the AC coefficients an incomplete file lacks; then the
// buffer is packed into the token stream (docs/token-stream.md), so every device stage after
// the CPU is the sequential decoder's.
//
// Corrupt data is decoded as libjpeg-turbo decodes it: bits past the end of a segment read as
// zeros, and once a segment has run out the rest of its MCUs are left as they are; scan
// scripts that break the progression rules libjpeg-turbo only warns about are decoded with a
// warning, those it refuses are Error(InvalidData).
#ifndef HETCODEC_CORE_JPEG_COEFFICIENTS_H
#define HETCODEC_CORE_JPEG_COEFFICIENTS_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/jpeg/entropy.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"

namespace hetcodec::jpeg {

// The blocks one scan codes and in which order (T.81 A.2): an interleaved scan codes MCUs of
// the frame's MCU grid, a scan of one component that component's blocks inside its own area
// (ceil(width / 8) x ceil(height / 8) of its downsampled size), one block per MCU.
struct ScanGeometry {
  struct Block {
    int component = 0;   // index into Header::components
    int slot = 0;        // index of the component inside the scan
    int h = 1, v = 1;    // blocks of the component in an MCU: across, down (1 x 1 when alone)
    int dx = 0, dy = 0;  // this block's place inside them
  };
  std::vector<Block> mcu;  // the blocks of one MCU, in coding order
  int mcus_x = 0, mcus_y = 0;
  int restart = 0;  // MCUs per restart interval; 0: none
  const Layout* layout = nullptr;
  int mcus() const { return mcus_x * mcus_y; }
  // Global block index (the token stream's numbering) of block `b` of MCU `m`.
  std::uint32_t block(int m, const Block& b) const {
    const ComponentLayout& cl = layout->components[std::size_t(b.component)];
    const int mx = m % mcus_x, my = m / mcus_x;
    return cl.first_block + std::uint32_t(my * b.v + b.dy) * std::uint32_t(cl.grid_w) +
           std::uint32_t(mx * b.h + b.dx);
  }
  // The frame's iMCU row (libjpeg's input_iMCU_row) that MCU `m` lies in.
  int imcu_row(int m) const { return m / mcus_x / rows_per_imcu; }
  int rows_per_imcu = 1;  // MCU rows per iMCU row: 1, or a lone component's v
};

ScanGeometry scan_geometry(const Header& header, const Layout& layout, const Scan& scan);

// Blocks of 64 coefficients from zigzag to natural order, in place.
void to_natural_order(std::vector<std::int16_t>& blocks);

// libjpeg's progression status (coef_bits): for each component and coefficient, the Al of the
// last scan that coded it, -1 when none has.
using CoefBits = std::vector<std::array<int, 64>>;

// What decoding one scan leaves for block smoothing: the last iMCU row whose MCUs started with
// data left (libjpeg's master->last_good_iMCU_row after the scan).
struct ScanOutcome {
  int last_good_imcu_row = 0;
  // Progressive Huffman scans: `exact` follows libjpeg-turbo's bit reader byte by byte, for
  // its warnings of extraneous data; without it the scan runs faster and sets needs_exact
  // where such a warning could arise (data left unread in an interval), for a second pass.
  bool exact = false;
  bool needs_exact = false;
};

// One arithmetic-coded scan (T.81 Annex D and F.2.4 for sequential, G.2 for progressive;
// libjpeg-turbo's jdarith.c) into `coef`: the frame's blocks, 64 int16 each in zigzag order,
// at global block indices. `progressive` selects the progressive procedures (Ss, Se, Ah, Al of
// the scan). In arithmetic.cpp.
void decode_arithmetic_scan(const std::uint8_t* data, std::size_t size, const Header& header,
                            const Scan& scan, const ScanGeometry& geometry, bool progressive,
                            std::int16_t* coef, ScanOutcome& outcome,
                            std::vector<std::string>& warnings);

// One progressive Huffman scan (T.81 G.2; libjpeg-turbo's jdphuff.c), likewise. `nonzero`
// holds one word per block, bit 63 - k set when AC coefficient k (zigzag order) is non-zero: kept up to date
// here from scan to scan (zero before the first), it lets a refinement find the coefficients
// that need a correction bit without looking at the others. In progressive.cpp.
void decode_progressive_scan(const std::uint8_t* data, std::size_t size, const Header& header,
                             const Scan& scan, const ScanGeometry& geometry, std::int16_t* coef,
                             std::uint64_t* nonzero, ScanOutcome& outcome,
                             std::vector<std::string>& warnings);

// Whether progressive refinement scans use the PDEP instruction; on by default where the CPU
// runs it fast (x86-64: Intel since Haswell, AMD since Zen 3). Tests turn it off to check the
// portable path; a request for it where it is slow or missing leaves it off. Returns whether it
// is on now.
bool use_pdep(bool on);
// Likewise for the AVX-512 instructions tokenize() uses (with BMI2's PEXT): level 2 with VBMI2's
// 16- and 8-bit compress, 1 with AVX-512 F and BW alone, 0 for none. A level the CPU lacks is
// lowered to the best it has; returns the level now in use.
int use_token_simd(int level);

class CoefficientDecoder {
 public:
  // Checks what can be checked before decoding: tables each scan needs, scan parameters.
  CoefficientDecoder(const std::uint8_t* data, std::size_t size, const Header& header,
                     const Layout& layout);
  ~CoefficientDecoder();
  CoefficientDecoder(const CoefficientDecoder&) = delete;
  CoefficientDecoder& operator=(const CoefficientDecoder&) = delete;

  // Decodes every scan in order, then applies block smoothing where libjpeg-turbo would.
  // Warnings go to `warnings`.
  void run(std::vector<std::string>& warnings);

  // Whether run() applied block smoothing (libjpeg-turbo's do_block_smoothing, on by default,
  // used for progressive files whose first AC coefficients are not all complete).
  bool smoothed() const { return smoothed_; }

  // The frame's coefficients after run(): blocks of 64 int16 in zigzag order (so that a
  // spectral band is contiguous), indexed by global block index (Layout::groups * 64 blocks).
  const std::vector<std::int16_t>& coefficients() const { return coef_; }
  // The same in natural (row-major) order, as libjpeg's jpeg_read_coefficients() gives them.
  std::vector<std::int16_t> natural_coefficients() const;

  // Packs the coefficients into tokens: `pieces` results of whole groups each, which
  // EntropyDecoder::write_stream() lays out (on threads through `parallel` when given).
  void tokenize(int pieces, const EntropyDecoder::Parallel& parallel,
                std::vector<EntropyResult>& out) const;

  // Quantisation tables in natural order as libjpeg latches them (at the first scan of each
  // component; zeros for a component no scan codes).
  const std::vector<std::array<std::int32_t, 64>>& quant() const { return quant_; }

 private:
  // One decoding of every scan (and the smoothing); false where a progressive Huffman scan
  // run without `exact` needs it (ScanOutcome::needs_exact), before the rest is decoded.
  bool pass(bool exact, std::vector<std::string>& warnings);
  // jdcoefct.c smoothing_ok() and decompress_smooth_data(), in smoothing.cpp.
  bool smoothing_ok() const;
  void smooth();

  const std::uint8_t* data_;
  std::size_t size_;
  const Header& header_;
  const Layout& layout_;
  bool progressive_ = false, arithmetic_ = false;
  std::vector<ScanGeometry> geometry_;
  std::vector<std::array<std::int32_t, 64>> quant_;
  std::vector<std::array<std::uint16_t, 64>> raw_quant_;  // as stored, natural order
  std::vector<bool> latched_;
  std::vector<std::int16_t> coef_;
  std::vector<std::uint64_t> nonzero_;  // decode_progressive_scan()'s
  // After run(): coef_bits and the copy of it libjpeg keeps from before each component's
  // latest scan (for the rows past last_good_imcu_row_).
  CoefBits bits_, prev_bits_;
  int last_good_imcu_row_ = 0;
  bool smoothed_ = false;
};

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_COEFFICIENTS_H
