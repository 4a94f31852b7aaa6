// Arithmetic-coded JPEG scans (coefficients.h): the adaptive binary arithmetic decoder of ITU-T
// T.81 Annex D (D.2, the QM-decoder, with the byte stuffing and markers of D.2.6), the coding
// models of F.1.4.4 / F.2.4 for sequential scans and of G.1.3.3 / G.2 for progressive ones.
//
// Decoded as libjpeg-turbo 2.1.5 (jdarith.c) decodes them, corrupt data included: from a marker
// or the end of the data on, the decoder reads zero bytes; a magnitude or a run past the band
// (its JWRN_ARITH_BAD_CODE) leaves the rest of the restart interval as it is; every restart
// interval starts over (statistics, DC predictions, decoder) from the byte after its RSTn, as
// Scan::interval_starts places it.
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "core/error.h"
#include "core/jpeg/coefficients.h"
#include "core/portable/jpeg_zigzag.h"

namespace hetcodec::jpeg {
namespace {

// Table D.2, the probability estimation state machine: Qe, the state after an LPS and after an
// MPS, and whether an LPS exchanges the sense of the MPS. State 113 is libjpeg-turbo's fixed
// estimate of one half (T.851 10.3, Table 5), which codes AC signs and refinement bits.
struct QeState {
  std::uint16_t qe;
  std::uint8_t next_lps, next_mps, switch_mps;
};
constexpr QeState kQe[114] = {
    {0x5a1d, 1, 1, 1},     {0x2586, 14, 2, 0},    {0x1114, 16, 3, 0},    {0x080b, 18, 4, 0},
    {0x03d8, 20, 5, 0},    {0x01da, 23, 6, 0},    {0x00e5, 25, 7, 0},    {0x006f, 28, 8, 0},
    {0x0036, 30, 9, 0},    {0x001a, 33, 10, 0},   {0x000d, 35, 11, 0},   {0x0006, 9, 12, 0},
    {0x0003, 10, 13, 0},   {0x0001, 12, 13, 0},   {0x5a7f, 15, 15, 1},   {0x3f25, 36, 16, 0},
    {0x2cf2, 38, 17, 0},   {0x207c, 39, 18, 0},   {0x17b9, 40, 19, 0},   {0x1182, 42, 20, 0},
    {0x0cef, 43, 21, 0},   {0x09a1, 45, 22, 0},   {0x072f, 46, 23, 0},   {0x055c, 48, 24, 0},
    {0x0406, 49, 25, 0},   {0x0303, 51, 26, 0},   {0x0240, 52, 27, 0},   {0x01b1, 54, 28, 0},
    {0x0144, 56, 29, 0},   {0x00f5, 57, 30, 0},   {0x00b7, 59, 31, 0},   {0x008a, 60, 32, 0},
    {0x0068, 62, 33, 0},   {0x004e, 63, 34, 0},   {0x003b, 32, 35, 0},   {0x002c, 33, 9, 0},
    {0x5ae1, 37, 37, 1},   {0x484c, 64, 38, 0},   {0x3a0d, 65, 39, 0},   {0x2ef1, 67, 40, 0},
    {0x261f, 68, 41, 0},   {0x1f33, 69, 42, 0},   {0x19a8, 70, 43, 0},   {0x1518, 72, 44, 0},
    {0x1177, 73, 45, 0},   {0x0e74, 74, 46, 0},   {0x0bfb, 75, 47, 0},   {0x09f8, 77, 48, 0},
    {0x0861, 78, 49, 0},   {0x0706, 79, 50, 0},   {0x05cd, 48, 51, 0},   {0x04de, 50, 52, 0},
    {0x040f, 50, 53, 0},   {0x0363, 51, 54, 0},   {0x02d4, 52, 55, 0},   {0x025c, 53, 56, 0},
    {0x01f8, 54, 57, 0},   {0x01a4, 55, 58, 0},   {0x0160, 56, 59, 0},   {0x0125, 57, 60, 0},
    {0x00f6, 58, 61, 0},   {0x00cb, 59, 62, 0},   {0x00ab, 61, 63, 0},   {0x008f, 61, 32, 0},
    {0x5b12, 65, 65, 1},   {0x4d04, 80, 66, 0},   {0x412c, 81, 67, 0},   {0x37d8, 82, 68, 0},
    {0x2fe8, 83, 69, 0},   {0x293c, 84, 70, 0},   {0x2379, 86, 71, 0},   {0x1edf, 87, 72, 0},
    {0x1aa9, 87, 73, 0},   {0x174e, 72, 74, 0},   {0x1424, 72, 75, 0},   {0x119c, 74, 76, 0},
    {0x0f6b, 74, 77, 0},   {0x0d51, 75, 78, 0},   {0x0bb6, 77, 79, 0},   {0x0a40, 77, 48, 0},
    {0x5832, 80, 81, 1},   {0x4d1c, 88, 82, 0},   {0x438e, 89, 83, 0},   {0x3bdd, 90, 84, 0},
    {0x34ee, 91, 85, 0},   {0x2eae, 92, 86, 0},   {0x299a, 93, 87, 0},   {0x2516, 86, 71, 0},
    {0x5570, 88, 89, 1},   {0x4ca9, 95, 90, 0},   {0x44d9, 96, 91, 0},   {0x3e22, 97, 92, 0},
    {0x3824, 99, 93, 0},   {0x32b4, 99, 94, 0},   {0x2e17, 93, 86, 0},   {0x56a8, 95, 96, 1},
    {0x4f46, 101, 97, 0},  {0x47e5, 102, 98, 0},  {0x41cf, 103, 99, 0},  {0x3c3d, 104, 100, 0},
    {0x375e, 99, 93, 0},   {0x5231, 105, 102, 0}, {0x4c0f, 106, 103, 0}, {0x4639, 107, 104, 0},
    {0x415e, 103, 99, 0},  {0x5627, 105, 106, 1}, {0x50e7, 108, 107, 0}, {0x4b85, 109, 103, 0},
    {0x5597, 110, 109, 0}, {0x504f, 111, 107, 0}, {0x5a10, 110, 111, 1}, {0x5522, 112, 109, 0},
    {0x59eb, 112, 111, 1}, {0x5a1d, 113, 113, 0},
};
constexpr std::uint8_t kFixedHalf = 113;

// A statistics bin is one byte: the sense of the MPS in bit 7, the state (Table D.2) below it.
// The decoder keeps C with a floating cut point as libjpeg-turbo does: the 16-bit code register
// of D.2 is c_ >> ct_, the ct_ bits under it the next input bits.
class QmDecoder {
 public:
  // Starts the decoder on bytes [p, end); the end stands for a marker. Nothing when p == end.
  void start(const std::uint8_t* p, const std::uint8_t* end) {
    p_ = p;
    end_ = end;
    marker_ = p >= end;
    c_ = 0;
    a_ = 0;
    ct_ = -16;  // the first two bytes are read before the first decision
  }

  // One binary decision with the statistics bin `st` (D.2.4, D.2.5 with conditional exchange).
  int decode(std::uint8_t& st) {
    while (a_ < 0x8000) {  // D.2.6: renormalise, reading a byte every 8 shifts
      if (--ct_ < 0) {
        c_ = c_ << 8 | next_byte();
        ct_ += 8;
        // The first byte of an interval leaves ct_ at -8; the second at 0, with A at 0x10000
        // once shifted below.
        if (ct_ < 0 && ++ct_ == 0) a_ = 0x8000;
      }
      a_ <<= 1;
    }
    int sv = st;
    const QeState& s = kQe[sv & 0x7F];
    const std::int32_t qe = s.qe;
    const int after_mps = (sv & 0x80) | s.next_mps;
    const int after_lps = (sv & 0x80) ^ (s.switch_mps << 7 | s.next_lps);
    a_ -= qe;
    const std::int64_t lower = std::int64_t(a_) << ct_;
    // Conditional exchange: whichever subinterval is the larger is the MPS's.
    if (c_ >= lower) {  // the code lies in the Qe subinterval
      c_ -= lower;
      if (a_ < qe) {
        st = std::uint8_t(after_mps);
      } else {
        st = std::uint8_t(after_lps);
        sv ^= 0x80;
      }
      a_ = qe;
    } else if (a_ < 0x8000) {  // in the other one, which needs renormalising
      if (a_ < qe) {
        st = std::uint8_t(after_lps);
        sv ^= 0x80;
      } else {
        st = std::uint8_t(after_mps);
      }
    }
    return sv >> 7;
  }

  // Whether a marker (or the end of the data) has been read: the rest is zeros.
  bool at_marker() const { return marker_; }
  const std::uint8_t* position() const { return p_; }

 private:
  // The next byte of entropy-coded data: FF 00 is FF, FF before anything else a marker.
  int next_byte() {
    if (marker_) return 0;
    if (p_ < end_) {
      const int b = *p_++;
      if (b != 0xFF) return b;
      while (p_ < end_ && *p_ == 0xFF) ++p_;  // fill bytes
      if (p_ < end_ && *p_++ == 0) return 0xFF;
    }
    marker_ = true;
    return 0;
  }

  const std::uint8_t* p_ = nullptr;
  const std::uint8_t* end_ = nullptr;
  bool marker_ = true;
  std::int64_t c_ = 0;
  std::int32_t a_ = 0;
  int ct_ = -16;
};

// The bytes libjpeg-turbo's next_marker discards (and counts) before the marker at or after p:
// one for each data byte, two for each FF 00.
std::size_t bytes_before_marker(const std::uint8_t* p, const std::uint8_t* end) {
  std::size_t n = 0;
  while (p < end) {
    if (*p != 0xFF) {
      ++n, ++p;
      continue;
    }
    const std::uint8_t* q = p;
    while (q < end && *q == 0xFF) ++q;
    if (q == end || *q != 0) break;
    n += 2;
    p = q + 1;
  }
  return n;
}

std::string marker_name(int m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02x", m);
  return buf;
}

class ScanDecoder {
 public:
  ScanDecoder(const std::uint8_t* data, std::size_t size, const Scan& scan, const ScanGeometry& g,
              bool progressive, std::int16_t* coef, std::vector<std::string>& warnings)
      : data_(data), size_(size), scan_(scan), g_(g), coef_(coef), warnings_(warnings) {
    if (!progressive)
      mode_ = Mode::Sequential;
    else if (scan.ss == 0)
      mode_ = scan.ah == 0 ? Mode::DcFirst : Mode::DcRefine;
    else
      mode_ = scan.ah == 0 ? Mode::AcFirst : Mode::AcRefine;
  }

  void run() {
    const int mcus = g_.mcus();
    start_interval(0);
    for (int m = 0; m < mcus; ++m) {
      if (g_.restart > 0 && m > 0 && m % g_.restart == 0) {
        finish_interval(m / g_.restart - 1);
        start_interval(m / g_.restart);
      }
      // libjpeg-turbo's ct == -1: nothing more until the next restart. A DC refinement never
      // fails, and libjpeg-turbo does not check there.
      if (failed_) continue;
      if (!decode_mcu(m)) {
        failed_ = true;
        warnings_.push_back("corrupt JPEG data: bad arithmetic code (scan at byte " +
                            std::to_string(scan_.data_offset) + ", MCU " + std::to_string(m) + ")");
      }
    }
    finish_interval(g_.restart > 0 ? (mcus - 1) / g_.restart : 0);
  }

 private:
  enum class Mode { Sequential, DcFirst, DcRefine, AcFirst, AcRefine };

  // process_restart (and start_pass): the statistics, the DC predictions and contexts, the
  // decoder, on the interval's own bytes.
  void start_interval(int k) {
    for (auto& s : dc_stats_) s.fill(0);
    for (auto& s : ac_stats_) s.fill(0);
    last_dc_.fill(0);
    dc_context_.fill(0);
    failed_ = false;
    const std::size_t end = std::min(scan_.data_end, size_);
    std::size_t begin = scan_.data_offset;
    if (k > 0) {
      const auto& starts = scan_.interval_starts;
      // Past the last entry the marker that ended the scan is still unread: libjpeg-turbo
      // finds it again at every restart (one warning here for them all).
      const bool past = std::size_t(k - 1) >= starts.size();
      const Scan::IntervalStart s =
          past
              ? Scan::IntervalStart{Scan::kEmptyInterval, starts.empty() ? -1 : starts.back().found}
              : starts[std::size_t(k - 1)];
      if (s.found >= 0 && (!past || std::size_t(k - 1) == starts.size()))
        warnings_.push_back("corrupt JPEG data: found marker " + marker_name(s.found) +
                            " instead of RST" + std::to_string((k - 1) & 7) + " (scan at byte " +
                            std::to_string(scan_.data_offset) + ", restart interval " +
                            std::to_string(k) + (past ? " and after" : "") + ")");
      begin = s.begin;
    }
    if (begin > end) begin = end;  // an empty interval, or one past the data: zeros
    qm_.start(data_ + begin, data_ + end);
  }

  // What libjpeg-turbo's marker reader skips after an interval whose data the decoder did not
  // read to its marker.
  void finish_interval(int k) {
    if (qm_.at_marker()) return;
    const std::size_t left =
        bytes_before_marker(qm_.position(), data_ + std::min(scan_.data_end, size_));
    if (left)
      warnings_.push_back("corrupt JPEG data: " + std::to_string(left) +
                          " extraneous bytes before marker (scan at byte " +
                          std::to_string(scan_.data_offset) + ", restart interval " +
                          std::to_string(k) + ")");
  }

  bool decode_mcu(int m) {
    for (const ScanGeometry::Block& b : g_.mcu) {
      std::int16_t* block = coef_ + std::size_t(g_.block(m, b)) * 64;
      const std::size_t slot = std::size_t(b.slot);
      switch (mode_) {
        case Mode::Sequential:
          if (!dc_diff(slot)) return false;
          block[0] = std::int16_t(last_dc_[slot]);
          if (!ac_first(std::size_t(scan_.ac_table[slot]), 1, 63, 0, block)) return false;
          break;
        case Mode::DcFirst:
          if (!dc_diff(slot)) return false;
          block[0] = std::int16_t(std::uint32_t(last_dc_[slot]) << scan_.al);
          break;
        case Mode::DcRefine:
          if (qm_.decode(fixed_)) block[0] = std::int16_t(block[0] | 1 << scan_.al);
          break;
        case Mode::AcFirst:
          if (!ac_first(std::size_t(scan_.ac_table[slot]), scan_.ss, scan_.se, scan_.al, block))
            return false;
          break;
        case Mode::AcRefine:
          if (!ac_refine(std::size_t(scan_.ac_table[slot]), block)) return false;
          break;
      }
    }
    return true;
  }

  // Figure F.19 with F.21 to F.24: one DC difference into the component's predictor, with the
  // conditioning of F.1.4.4.1. False when the magnitude overflows.
  bool dc_diff(std::size_t slot) {
    const std::size_t tbl = std::size_t(scan_.dc_table[slot]);
    std::uint8_t* const stats = dc_stats_[tbl].data();
    std::uint8_t* st = stats + dc_context_[slot];
    if (!qm_.decode(*st)) {
      dc_context_[slot] = 0;
      return true;
    }
    const int sign = qm_.decode(st[1]);
    st += 2 + sign;
    int m = qm_.decode(*st);
    if (m) {
      st = stats + 20;  // X1 (Table F.4)
      while (qm_.decode(*st)) {
        if ((m <<= 1) == 0x8000) return false;
        ++st;
      }
    }
    if (m < (1 << scan_.arith_dc_l[tbl]) >> 1)
      dc_context_[slot] = 0;
    else if (m > (1 << scan_.arith_dc_u[tbl]) >> 1)
      dc_context_[slot] = 12 + 4 * sign;
    else
      dc_context_[slot] = 4 + 4 * sign;
    int v = m;
    st += 14;
    while (m >>= 1)
      if (qm_.decode(*st)) v |= m;
    v += 1;
    last_dc_[slot] = (last_dc_[slot] + (sign ? -v : v)) & 0xFFFF;
    return true;
  }

  // Figure F.20 with F.21 to F.24 over the band ss..se (zigzag), each value shifted up by al.
  // False when a run passes se or a magnitude overflows.
  bool ac_first(std::size_t tbl, int ss, int se, int al, std::int16_t* block) {
    std::uint8_t* const stats = ac_stats_[tbl].data();
    for (int k = ss; k <= se; ++k) {
      std::uint8_t* st = stats + 3 * (k - 1);
      if (qm_.decode(*st)) break;  // end of block
      while (!qm_.decode(st[1])) {
        st += 3;
        if (++k > se) return false;
      }
      const int sign = qm_.decode(fixed_);
      st += 2;
      int m = qm_.decode(*st);
      if (m && qm_.decode(*st)) {
        m <<= 1;
        st = stats + (k <= scan_.arith_ac_k[tbl] ? 189 : 217);  // X2 for low or high k
        while (qm_.decode(*st)) {
          if ((m <<= 1) == 0x8000) return false;
          ++st;
        }
      }
      int v = m;
      st += 14;
      while (m >>= 1)
        if (qm_.decode(*st)) v |= m;
      v += 1;
      block[k] = std::int16_t(std::uint32_t(sign ? -v : v) << al);
    }
    return true;
  }

  // G.1.3.3 (libjpeg-turbo's decode_mcu_AC_refine): the next bit of the band's coefficients
  // already nonzero, and the coefficients that become nonzero with it. False when a run passes
  // Se.
  bool ac_refine(std::size_t tbl, std::int16_t* block) {
    std::uint8_t* const stats = ac_stats_[tbl].data();
    const int p1 = 1 << scan_.al, m1 = int(~0u << scan_.al);
    int eob = scan_.se;  // the previous scans' end of block
    while (eob > 0 && !block[eob]) --eob;
    for (int k = scan_.ss; k <= scan_.se; ++k) {
      std::uint8_t* st = stats + 3 * (k - 1);
      if (k > eob && qm_.decode(*st)) break;
      for (;;) {
        std::int16_t& c = block[k];
        if (c) {
          if (qm_.decode(st[2])) c = std::int16_t(c + (c < 0 ? m1 : p1));
          break;
        }
        if (qm_.decode(st[1])) {
          c = std::int16_t(qm_.decode(fixed_) ? m1 : p1);
          break;
        }
        st += 3;
        if (++k > scan_.se) return false;
      }
    }
    return true;
  }

  const std::uint8_t* data_;
  std::size_t size_;
  const Scan& scan_;
  const ScanGeometry& g_;
  std::int16_t* coef_;
  std::vector<std::string>& warnings_;
  Mode mode_ = Mode::Sequential;
  QmDecoder qm_;
  // Per table slot: 49 DC and 245 AC bins are used (F.1.4.4); libjpeg-turbo's sizes.
  std::array<std::array<std::uint8_t, 64>, 4> dc_stats_{};
  std::array<std::array<std::uint8_t, 256>, 4> ac_stats_{};
  std::uint8_t fixed_ = kFixedHalf;
  std::array<int, 4> last_dc_{}, dc_context_{};  // per component of the scan
  bool failed_ = false;
};

}  // namespace

void decode_arithmetic_scan(const std::uint8_t* data, std::size_t size, const Header&,
                            const Scan& scan, const ScanGeometry& geometry, bool progressive,
                            std::int16_t* coef, ScanOutcome& outcome,
                            std::vector<std::string>& warnings) {
  // CoefficientDecoder refuses such a scan first (libjpeg-turbo's JERR_BAD_PROGRESSION); here
  // only because the band would index past the block and the statistics.
  if (progressive && scan.ss > 0 && (scan.se < scan.ss || scan.se > 63))
    throw Error(ErrorCode::InvalidData, "jpeg: byte " + std::to_string(scan.data_offset) +
                                            ": arithmetic scan of band " + std::to_string(scan.ss) +
                                            ".." + std::to_string(scan.se));
  ScanDecoder(data, size, scan, geometry, progressive, coef, warnings).run();
  // libjpeg-turbo's arithmetic decoder never runs out of data (it reads zeros instead).
  outcome.last_good_imcu_row = geometry.mcus() > 0 ? geometry.imcu_row(geometry.mcus() - 1) : 0;
}

}  // namespace hetcodec::jpeg
