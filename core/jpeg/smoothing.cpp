// Block smoothing of progressive files (libjpeg-turbo's jdcoefct.c smoothing_ok() and
// decompress_smooth_data()), applied to the coefficients before they become tokens: where the
// first AC coefficients of a component are not known to full precision (a file truncated
// before its last scans, or a scan script that never completes them), libjpeg-turbo estimates
// those still zero from the DC values of the 5 x 5 blocks around, and, when no AC data at all
// has arrived, the DC value too. Its output is the contract, so its edge handling is
// reproduced as it is, including where it reuses a row or column other than the true
// neighbour.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/jpeg/coefficients.h"

namespace hetcodec::jpeg {
namespace {

// Natural positions of zigzag coefficients 1..9.
constexpr int kPos[10] = {0, 1, 8, 16, 9, 2, 3, 10, 17, 24};

// libjpeg's estimate: num / (Q << 8), rounded, limited to what Al bits leave unknown.
std::int16_t estimate(std::int64_t num, std::int64_t q, int al) {
  std::int64_t pred;
  if (num >= 0) {
    pred = ((q << 7) + num) / (q << 8);
    if (al > 0 && pred >= (1 << al)) pred = (1 << al) - 1;
  } else {
    pred = ((q << 7) - num) / (q << 8);
    if (al > 0 && pred >= (1 << al)) pred = (1 << al) - 1;
    pred = -pred;
  }
  return std::int16_t(int(pred));
}

}  // namespace

bool CoefficientDecoder::smoothing_ok() const {
  bool useful = false;
  for (std::size_t c = 0; c < header_.components.size(); ++c) {
    if (!latched_[c]) return false;
    const auto& q = raw_quant_[c];
    if (q[0] == 0) return false;
    for (int i = 1; i <= 9; ++i)
      if (q[std::size_t(kPos[i])] == 0) return false;
    if (bits_[c][0] < 0) return false;
    for (int i = 1; i <= 9; ++i)
      if (bits_[c][std::size_t(i)] != 0) useful = true;
  }
  return useful;
}

void CoefficientDecoder::smooth() {
  const int last_imcu = layout_.mcus_y - 1;
  const bool several_scans = header_.scans.size() > 1;
  for (std::size_t c = 0; c < header_.components.size(); ++c) {
    const ComponentLayout& cl = layout_.components[c];
    const int v = header_.components[c].v;
    const int wb = (cl.width + 7) / 8, hb = (cl.height + 7) / 8;  // blocks inside the image
    std::int16_t* const base = coef_.data() + std::size_t(cl.first_block) * 64;
    auto block = [&](int row, int col) {
      return base + (std::size_t(row) * std::size_t(cl.grid_w) + std::size_t(col)) * 64;
    };
    // The DC values before any estimate: estimates read the stored values only.
    std::vector<int> dc(std::size_t(wb) * std::size_t(hb));
    for (int y = 0; y < hb; ++y)
      for (int x = 0; x < wb; ++x)
        dc[std::size_t(y) * std::size_t(wb) + std::size_t(x)] = block(y, x)[0];
    auto dc_at = [&](int row, int col) {
      return dc[std::size_t(row) * std::size_t(wb) + std::size_t(col)];
    };
    // coef_bits as latched: the current status, and the one before each coefficient's latest
    // scan (-1 everywhere when the file has one scan).
    std::array<int, 10> now{}, before{};
    for (int i = 1; i <= 9; ++i) {
      now[std::size_t(i)] = bits_[c][std::size_t(i)];
      before[std::size_t(i)] = several_scans ? prev_bits_[c][std::size_t(i)] : -1;
    }
    const auto& quant = raw_quant_[c];
    const std::int64_t q00 = quant[0];
    std::int64_t q[10];
    for (int i = 1; i <= 9; ++i) q[i] = quant[std::size_t(kPos[i])];
    for (int imcu = 0; imcu <= last_imcu; ++imcu) {
      const auto& bits = imcu > last_good_imcu_row_ ? before : now;
      const bool change_dc = bits[1] == -1 && bits[2] == -1 && bits[3] == -1 && bits[4] == -1 &&
                             bits[5] == -1 && bits[6] == -1 && bits[7] == -1 && bits[8] == -1 &&
                             bits[9] == -1;
      int block_rows = v;
      if (imcu == last_imcu) {
        block_rows = hb % v;
        if (block_rows == 0) block_rows = v;
      }
      for (int br = 0; br < block_rows; ++br) {
        const int row = imcu * v + br;
        if (row >= hb) break;
        const int prev = (br > 0 || imcu > 0) ? row - 1 : row;
        const int pprev = (br > 1 || imcu > 1) ? row - 2 : prev;
        const int next = (br < block_rows - 1 || imcu < last_imcu) ? row + 1 : row;
        const int nnext = (br < block_rows - 2 || imcu + 1 < last_imcu) ? row + 2 : next;
        const int rows[5] = {pprev, prev, row, next, nnext};
        // The 5 x 5 window of DC values, DC[r][x] with r the row above (0, 1), this (2) and
        // below (3, 4), x the column two left of this one to two right: libjpeg's DC01..DC25
        // sliding registers, which start as copies of column 0.
        // A cropped decode starts them at the window's first column (its first_MCU_col), as
        // if the image began there.
        const int first = std::min(cl.first_block_col, wb - 1);
        int w[5][5];
        for (int r = 0; r < 5; ++r)
          for (int x = 0; x < 5; ++x) w[r][x] = dc_at(rows[r], first);
        const int last_col = wb - 1;
        for (int col = first; col < wb; ++col) {
          std::int16_t* ws = block(row, col);  // zigzag order: ws[i] is coefficient i
          if (col == first && col < last_col)
            for (int r = 0; r < 5; ++r) w[r][3] = dc_at(rows[r], first + 1);
          if (col + 1 < last_col)
            for (int r = 0; r < 5; ++r) w[r][4] = dc_at(rows[r], col + 2);
          // Names as libjpeg's: DCnn is w[(nn - 1) / 5][(nn - 1) % 5].
          const std::int64_t DC01 = w[0][0], DC02 = w[0][1], DC03 = w[0][2], DC04 = w[0][3],
                             DC05 = w[0][4], DC06 = w[1][0], DC07 = w[1][1], DC08 = w[1][2],
                             DC09 = w[1][3], DC10 = w[1][4], DC11 = w[2][0], DC12 = w[2][1],
                             DC13 = w[2][2], DC14 = w[2][3], DC15 = w[2][4], DC16 = w[3][0],
                             DC17 = w[3][1], DC18 = w[3][2], DC19 = w[3][3], DC20 = w[3][4],
                             DC21 = w[4][0], DC22 = w[4][1], DC23 = w[4][2], DC24 = w[4][3],
                             DC25 = w[4][4];
          int al;
          if ((al = bits[1]) != 0 && ws[1] == 0)
            ws[1] = estimate(q00 * (change_dc ? (-DC01 - DC02 + DC04 + DC05 - 3 * DC06 + 13 * DC07 -
                                                 13 * DC09 + 3 * DC10 - 3 * DC11 + 38 * DC12 -
                                                 38 * DC14 + 3 * DC15 - 3 * DC16 + 13 * DC17 -
                                                 13 * DC19 + 3 * DC20 - DC21 - DC22 + DC24 + DC25)
                                              : (-7 * DC11 + 50 * DC12 - 50 * DC14 + 7 * DC15)),
                             q[1], al);
          if ((al = bits[2]) != 0 && ws[2] == 0)
            ws[2] = estimate(q00 * (change_dc ? (-DC01 - 3 * DC02 - 3 * DC03 - 3 * DC04 - DC05 -
                                                 DC06 + 13 * DC07 + 38 * DC08 + 13 * DC09 - DC10 +
                                                 DC16 - 13 * DC17 - 38 * DC18 - 13 * DC19 + DC20 +
                                                 DC21 + 3 * DC22 + 3 * DC23 + 3 * DC24 + DC25)
                                              : (-7 * DC03 + 50 * DC08 - 50 * DC18 + 7 * DC23)),
                             q[2], al);
          if ((al = bits[3]) != 0 && ws[3] == 0)
            ws[3] = estimate(
                q00 * (change_dc ? (DC03 + 2 * DC07 + 7 * DC08 + 2 * DC09 - 5 * DC12 - 14 * DC13 -
                                    5 * DC14 + 2 * DC17 + 7 * DC18 + 2 * DC19 + DC23)
                                 : (-DC03 + 13 * DC08 - 24 * DC13 + 13 * DC18 - DC23)),
                q[3], al);
          if ((al = bits[4]) != 0 && ws[4] == 0)
            ws[4] =
                estimate(q00 * (change_dc ? (-DC01 + DC05 + 9 * DC07 - 9 * DC09 - 9 * DC17 +
                                             9 * DC19 + DC21 - DC25)
                                          : (DC10 + DC16 - 10 * DC17 + 10 * DC19 - DC02 - DC20 +
                                             DC22 - DC24 + DC04 - DC06 + 10 * DC07 - 10 * DC09)),
                         q[4], al);
          if ((al = bits[5]) != 0 && ws[5] == 0)
            ws[5] = estimate(
                q00 * (change_dc ? (2 * DC07 - 5 * DC08 + 2 * DC09 + DC11 + 7 * DC12 - 14 * DC13 +
                                    7 * DC14 + DC15 + 2 * DC17 - 5 * DC18 + 2 * DC19)
                                 : (-DC11 + 13 * DC12 - 24 * DC13 + 13 * DC14 - DC15)),
                q[5], al);
          if (change_dc) {
            if ((al = bits[6]) != 0 && ws[6] == 0)
              ws[6] = estimate(q00 * (DC07 - DC09 + 2 * DC12 - 2 * DC14 + DC17 - DC19), q[6], al);
            if ((al = bits[7]) != 0 && ws[7] == 0)
              ws[7] = estimate(q00 * (DC07 - 3 * DC08 + DC09 - DC17 + 3 * DC18 - DC19), q[7], al);
            if ((al = bits[8]) != 0 && ws[8] == 0)
              ws[8] = estimate(q00 * (DC07 - DC09 - 3 * DC12 + 3 * DC14 + DC17 - DC19), q[8], al);
            if ((al = bits[9]) != 0 && ws[9] == 0)
              ws[9] = estimate(q00 * (DC07 + 2 * DC08 + DC09 - DC17 - 2 * DC18 - DC19), q[9], al);
            ws[0] = estimate(
                q00 * (-2 * DC01 - 6 * DC02 - 8 * DC03 - 6 * DC04 - 2 * DC05 - 6 * DC06 + 6 * DC07 +
                       42 * DC08 + 6 * DC09 - 6 * DC10 - 8 * DC11 + 42 * DC12 + 152 * DC13 +
                       42 * DC14 - 8 * DC15 - 6 * DC16 + 6 * DC17 + 42 * DC18 + 6 * DC19 -
                       6 * DC20 - 2 * DC21 - 6 * DC22 - 8 * DC23 - 6 * DC24 - 2 * DC25),
                q00, 0);
          }
          if (!nonzero_.empty()) {  // the progressive decoder's bitmap, for tokenize()
            std::uint64_t& nz =
                nonzero_[std::size_t(cl.first_block) + std::size_t(row) * std::size_t(cl.grid_w) +
                         std::size_t(col)];
            for (int i = 1; i <= 9; ++i)
              if (ws[i]) nz |= (std::uint64_t(1) << 63) >> i;  // bit 63 - k: coefficient k
          }
          for (int r = 0; r < 5; ++r)
            for (int x = 0; x < 4; ++x) w[r][x] = w[r][x + 1];
        }
      }
    }
  }
}

}  // namespace hetcodec::jpeg
