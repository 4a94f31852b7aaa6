// The lossless JPEG encoder of ljpeg_encode.h, after ITU-T T.81 Annex H (prediction, H.1.2.1;
// difference coding, H.1.2.2), Annex K.2 (optimal Huffman tables) and Annex C (canonical codes).
// Two passes over the image: the categories' frequencies per component, then the codes.
#include "tools/ljpeg_encode.h"

#include <array>
#include <string>

#include "core/error.h"

namespace hetcodec::tools {
namespace {

constexpr int kSymbols = 17;  // SSSS 0..16 (T.81 Table H.2)

struct HuffTable {
  std::array<std::uint8_t, 17> bits{};  // bits[n]: codes of length n, 1..16
  std::vector<std::uint8_t> values;     // HUFFVAL, by code length then symbol
  std::array<std::uint16_t, kSymbols> code{};
  std::array<std::uint8_t, kSymbols> size{};
};

// The category of a difference taken modulo 2^16 as a signed 16-bit value; -32768 is category
// 16, which has no extra bits (H.1.2.2).
int category(int diff) {
  if (diff == -32768) return 16;
  unsigned a = unsigned(diff < 0 ? -diff : diff);
  int n = 0;
  while (a) {
    ++n;
    a >>= 1;
  }
  return n;
}

// T.81 Table H.1, in int arithmetic with arithmetic right shifts (as libjpeg-turbo's jlossls.h).
int predict(int predictor, int ra, int rb, int rc) {
  switch (predictor) {
    case 1:
      return ra;
    case 2:
      return rb;
    case 3:
      return rc;
    case 4:
      return ra + rb - rc;
    case 5:
      return ra + ((rb - rc) >> 1);
    case 6:
      return rb + ((ra - rc) >> 1);
    default:
      return (ra + rb) >> 1;
  }
}

// Calls visit(component, difference, row, column) for every sample in coding order. The first
// row of the image and of each restart interval predicts from the left (its first sample from
// 2^(P-1)); the first column of the other rows from above (H.1.2.1).
template <class Visit>
void for_each_difference(const std::uint16_t* s, int width, int height, int comps,
                         const LjpegEncodeOptions& o, Visit&& visit) {
  const std::size_t stride = std::size_t(width) * std::size_t(comps);
  const int start = 1 << (o.precision - 1);
  for (int y = 0; y < height; ++y) {
    const std::uint16_t* row = s + std::size_t(y) * stride;
    const std::uint16_t* up = row - stride;
    const bool first_row = o.restart_rows > 0 ? y % o.restart_rows == 0 : y == 0;
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < comps; ++c) {
        const std::size_t i = std::size_t(x) * std::size_t(comps) + std::size_t(c);
        int pred;
        if (first_row) {
          pred = x == 0 ? start : row[i - std::size_t(comps)];
        } else if (x == 0) {
          pred = up[i];
        } else {
          pred =
              predict(o.predictor, row[i - std::size_t(comps)], up[i], up[i - std::size_t(comps)]);
        }
        visit(c, int(std::int16_t(std::uint16_t(unsigned(row[i]) - unsigned(pred)))), y, x);
      }
    }
  }
}

// T.81 K.2: code sizes by merging the two least frequent entries (Figure K.1), a reserved
// symbol so no code is all ones, lengths brought down to 16 (Figure K.3), then the values
// ordered by code size (Figure K.4) and the canonical codes (C.2).
HuffTable make_table(std::array<std::uint64_t, kSymbols> counts) {
  constexpr int kReserved = kSymbols;
  std::array<std::uint64_t, kSymbols + 1> freq{};
  std::array<int, kSymbols + 1> codesize{}, others{};
  for (int i = 0; i < kSymbols; ++i) freq[std::size_t(i)] = counts[std::size_t(i)];
  freq[kReserved] = 1;
  others.fill(-1);
  for (;;) {
    // The least frequent entry and the next, the larger symbol first on ties.
    int v1 = -1, v2 = -1;
    for (int v = 0; v <= kReserved; ++v)
      if (freq[std::size_t(v)] && (v1 < 0 || freq[std::size_t(v)] <= freq[std::size_t(v1)])) v1 = v;
    for (int v = 0; v <= kReserved; ++v)
      if (v != v1 && freq[std::size_t(v)] &&
          (v2 < 0 || freq[std::size_t(v)] <= freq[std::size_t(v2)]))
        v2 = v;
    if (v2 < 0) break;
    freq[std::size_t(v1)] += freq[std::size_t(v2)];
    freq[std::size_t(v2)] = 0;
    for (++codesize[std::size_t(v1)]; others[std::size_t(v1)] >= 0;) {
      v1 = others[std::size_t(v1)];
      ++codesize[std::size_t(v1)];
    }
    others[std::size_t(v1)] = v2;
    for (++codesize[std::size_t(v2)]; others[std::size_t(v2)] >= 0;) {
      v2 = others[std::size_t(v2)];
      ++codesize[std::size_t(v2)];
    }
  }
  std::array<int, 33> bits{};
  for (int v = 0; v <= kReserved; ++v)
    if (codesize[std::size_t(v)]) ++bits[std::size_t(codesize[std::size_t(v)])];
  for (int i = 32; i > 16; --i) {
    while (bits[std::size_t(i)] > 0) {
      int j = i - 2;
      while (bits[std::size_t(j)] == 0) --j;
      bits[std::size_t(i)] -= 2;
      bits[std::size_t(i - 1)] += 1;
      bits[std::size_t(j + 1)] += 2;
      bits[std::size_t(j)] -= 1;
    }
  }
  int longest = 16;
  while (bits[std::size_t(longest)] == 0) --longest;
  bits[std::size_t(longest)] -= 1;  // the reserved symbol's code

  HuffTable t;
  for (int i = 1; i <= 16; ++i) t.bits[std::size_t(i)] = std::uint8_t(bits[std::size_t(i)]);
  for (int len = 1; len <= 32; ++len)
    for (int v = 0; v < kSymbols; ++v)
      if (codesize[std::size_t(v)] == len) t.values.push_back(std::uint8_t(v));
  // Symbols take the lengths in BITS in the order of HUFFVAL (the limiting above may have moved
  // lengths between symbols, never the order).
  unsigned code = 0;
  std::size_t k = 0;
  for (int len = 1; len <= 16; ++len) {
    for (int n = 0; n < t.bits[std::size_t(len)]; ++n, ++k) {
      t.code[t.values[k]] = std::uint16_t(code++);
      t.size[t.values[k]] = std::uint8_t(len);
    }
    code <<= 1;
  }
  return t;
}

// Bits to bytes, a zero byte stuffed after each 0xFF (F.1.2.3).
class BitWriter {
 public:
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void put(unsigned value, int count) {
    acc_ = (acc_ << count) | (value & ((1u << count) - 1u));
    n_ += count;
    while (n_ >= 8) {
      n_ -= 8;
      emit(std::uint8_t(acc_ >> n_));
    }
  }
  // Ones up to the byte boundary (F.1.2.3), before a marker or the end.
  void pad() {
    if (n_ > 0) put(0x7fu, 8 - n_);
  }

 private:
  void emit(std::uint8_t b) {
    out_.push_back(b);
    if (b == 0xFF) out_.push_back(0);
  }
  std::vector<std::uint8_t>& out_;
  std::uint64_t acc_ = 0;
  int n_ = 0;
};

void put16(std::vector<std::uint8_t>& out, unsigned v) {
  out.push_back(std::uint8_t(v >> 8));
  out.push_back(std::uint8_t(v));
}

void check(bool ok, const std::string& what) {
  if (!ok) throw Error(ErrorCode::InvalidArgument, "ljpeg encode: " + what);
}

}  // namespace

std::vector<std::uint8_t> ljpeg_encode(const std::uint16_t* samples, int width, int height,
                                       int comps, const LjpegEncodeOptions& o) {
  check(width >= 1 && width <= 65535 && height >= 1 && height <= 65535,
        "size " + std::to_string(width) + "x" + std::to_string(height) + " outside 1..65535");
  check(comps >= 1 && comps <= 4, "components must be 1..4");
  check(o.predictor >= 1 && o.predictor <= 7, "predictor must be 1..7");
  check(o.precision >= 2 && o.precision <= 16, "precision must be 2..16");
  check(o.restart_rows >= 0 && std::int64_t(o.restart_rows) * width <= 65535,
        "a restart interval of " + std::to_string(o.restart_rows) + " rows of " +
            std::to_string(width) + " samples does not fit 16 bits");
  const std::size_t count = std::size_t(width) * std::size_t(height) * std::size_t(comps);
  for (std::size_t i = 0; i < count; ++i)
    check(samples[i] >> o.precision == 0, "sample " + std::to_string(i) + " has more than " +
                                              std::to_string(o.precision) + " bits");

  std::vector<HuffTable> tables;
  if (o.optimal_tables) {
    std::vector<std::array<std::uint64_t, kSymbols>> counts(static_cast<std::size_t>(comps));
    for_each_difference(samples, width, height, comps, o, [&](int c, int diff, int, int) {
      ++counts[std::size_t(c)][std::size_t(category(diff))];
    });
    for (const auto& c : counts) tables.push_back(make_table(c));
  } else {
    std::array<std::uint64_t, kSymbols> flat;
    flat.fill(1);
    tables.push_back(make_table(flat));
  }

  std::vector<std::uint8_t> out = {0xFF, 0xD8};
  out.insert(out.end(), {0xFF, 0xC3});  // SOF3
  put16(out, 8u + 3u * unsigned(comps));
  out.push_back(std::uint8_t(o.precision));
  put16(out, unsigned(height));
  put16(out, unsigned(width));
  out.push_back(std::uint8_t(comps));
  for (int c = 0; c < comps; ++c) out.insert(out.end(), {std::uint8_t(c + 1), 0x11, 0});
  out.insert(out.end(), {0xFF, 0xC4});  // DHT
  std::size_t dht = 2;
  for (const auto& t : tables) dht += 17 + t.values.size();
  put16(out, unsigned(dht));
  for (std::size_t k = 0; k < tables.size(); ++k) {
    out.push_back(std::uint8_t(k));  // Tc = 0 (DC / lossless), Th = k
    out.insert(out.end(), tables[k].bits.begin() + 1, tables[k].bits.end());
    out.insert(out.end(), tables[k].values.begin(), tables[k].values.end());
  }
  if (o.restart_rows > 0) {
    out.insert(out.end(), {0xFF, 0xDD, 0, 4});  // DRI
    put16(out, unsigned(o.restart_rows * width));
  }
  out.insert(out.end(), {0xFF, 0xDA});  // SOS
  put16(out, 6u + 2u * unsigned(comps));
  out.push_back(std::uint8_t(comps));
  for (int c = 0; c < comps; ++c)
    out.insert(out.end(), {std::uint8_t(c + 1), std::uint8_t(tables.size() > 1 ? c << 4 : 0)});
  out.insert(out.end(), {std::uint8_t(o.predictor), 0, 0});  // Ss, Se, Ah/Al

  BitWriter bw(out);
  int interval = 0;
  for_each_difference(samples, width, height, comps, o, [&](int c, int diff, int y, int x) {
    if (o.restart_rows > 0 && x == 0 && c == 0 && y > 0 && y % o.restart_rows == 0) {
      bw.pad();
      out.insert(out.end(), {0xFF, std::uint8_t(0xD0 + interval++ % 8)});  // RSTm
    }
    const HuffTable& t = tables[tables.size() > 1 ? std::size_t(c) : 0];
    const int s = category(diff);
    bw.put(t.code[std::size_t(s)], t.size[std::size_t(s)]);
    if (s > 0 && s < 16) bw.put(unsigned(diff < 0 ? diff - 1 : diff), s);
  });
  bw.pad();
  out.insert(out.end(), {0xFF, 0xD9});
  return out;
}

}  // namespace hetcodec::tools
