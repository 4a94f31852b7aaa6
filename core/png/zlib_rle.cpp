// What zlib's deflate_rle() and trees.c decide, re-derived from RFC 1951 and zlib's documented
// behaviour, so that the bytes match:
// - Matches: at position i > 0 with at least 3 bytes left, if data[i..i+2] all equal
//   data[i-1], a match of distance 1 whose length is the run of bytes equal to data[i-1]
//   from i, at most 258 and at most the bytes left; otherwise a literal. (While input is still
//   coming, deflate_rle() only decides with more than 258 bytes in hand, so only the end of the
//   data limits a run.)
// - Blocks: a block ends after 16383 symbols (lit_bufsize - 1 with memLevel 8) and at the end
//   of the data. Each block is stored, fixed or dynamic as _tr_flush_block() chooses from the
//   sizes its trees give; a stored block is possible only while the block's first byte is
//   still in the sliding window, which depends on how the input arrived (the window slides
//   when fill_window() runs with strstart >= 2 * wsize - 262).
// - Trees: Huffman trees built with zlib's heap (frequency, then depth, as the tie-break), its
//   bit-length overflow repair, canonical codes; the code-length code and the run-length
//   encoding of code lengths as zlib's scan_tree()/send_tree() do it.
#include "core/png/zlib_rle.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <thread>

#include "core/png/checksum.h"

namespace hetcodec::png {
namespace {

constexpr int kLiterals = 256, kLengthCodes = 29, kLCodes = kLiterals + 1 + kLengthCodes;
constexpr int kDCodes = 30, kBLCodes = 19, kHeapSize = 2 * kLCodes + 1, kMaxBits = 15;
constexpr int kMaxBLBits = 7, kEndBlock = 256, kMinMatch = 3, kMaxMatch = 258;
constexpr int kMinLookahead = kMaxMatch + kMinMatch + 1;
constexpr int kRep3_6 = 16, kRepZ3_10 = 17, kRepZ11_138 = 18;

const std::uint8_t kExtraLBits[kLengthCodes] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
const std::uint8_t kExtraDBits[kDCodes] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
const std::uint8_t kExtraBLBits[kBLCodes] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                             0, 0, 0, 0, 0, 0, 2, 3, 7};
const std::uint8_t kBLOrder[kBLCodes] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                         11, 4,  12, 3, 13, 2, 14, 1, 15};

std::uint32_t reverse_bits(std::uint32_t code, int len) {
  std::uint32_t r = 0;
  for (int i = 0; i < len; ++i, code >>= 1) r = r << 1 | (code & 1);
  return r;
}

// Length code (0..28) and base length (as len - 3) for every len - 3 in 0..255.
struct LengthCodes {
  std::uint8_t code[256];
  int base[kLengthCodes];
  LengthCodes() {
    int length = 0;
    for (int c = 0; c < kLengthCodes - 1; ++c) {
      base[c] = length;
      for (int n = 0; n < (1 << kExtraLBits[c]); ++n) code[length++] = std::uint8_t(c);
    }
    base[kLengthCodes - 1] = 0;
    code[255] = kLengthCodes - 1;  // length 258 has its own code
  }
};
const LengthCodes kLength;

struct BitWriter {
  std::vector<std::uint8_t>& out;
  std::uint64_t buf = 0;
  int n = 0;
  void put(std::uint32_t value, int len) {
    buf |= std::uint64_t(value) << n;
    n += len;
    while (n >= 8) {
      out.push_back(std::uint8_t(buf));
      buf >>= 8;
      n -= 8;
    }
  }
  void windup() {
    if (n > 0) out.push_back(std::uint8_t(buf));
    buf = 0;
    n = 0;
  }
};

struct Tree {
  std::array<std::uint32_t, kHeapSize> freq{};
  std::array<std::uint16_t, kHeapSize> len{}, code{}, dad{};
  int max_code = 0;
};

// The static trees: literal/length code lengths 8, 9, 7, 8 by range; distances 5 bits.
struct StaticTrees {
  std::array<std::uint16_t, kLCodes + 2> llen{}, lcode{};
  std::array<std::uint16_t, kDCodes> dlen{}, dcode{};
  StaticTrees() {
    int count[kMaxBits + 1] = {};
    for (int n = 0; n < kLCodes + 2; ++n) {
      llen[std::size_t(n)] = n < 144 ? 8 : n < 256 ? 9 : n < 280 ? 7 : 8;
      ++count[llen[std::size_t(n)]];
    }
    std::uint32_t next[kMaxBits + 1] = {}, c = 0;
    for (int bits = 1; bits <= kMaxBits; ++bits) next[bits] = c = (c + std::uint32_t(count[bits - 1])) << 1;
    for (int n = 0; n < kLCodes + 2; ++n)
      lcode[std::size_t(n)] = std::uint16_t(reverse_bits(next[llen[std::size_t(n)]]++, llen[std::size_t(n)]));
    for (int n = 0; n < kDCodes; ++n) {
      dlen[std::size_t(n)] = 5;
      dcode[std::size_t(n)] = std::uint16_t(reverse_bits(std::uint32_t(n), 5));
    }
  }
};
const StaticTrees kStatic;

struct Symbol {
  std::uint8_t match;  // 0: literal `value`; 1: distance 1, length value + 3
  std::uint8_t value;
};

class Deflater {
 public:
  explicit Deflater(std::vector<std::uint8_t>& out) : bits_{out} { init_block(); }

  void tally(const Symbol& s) {
    syms_.push_back(s);
    if (s.match) {
      ++l_.freq[std::size_t(kLength.code[s.value] + kLiterals + 1)];
      ++d_.freq[0];
    } else {
      ++l_.freq[s.value];
    }
  }
  std::size_t symbols() const { return syms_.size(); }

  // `stored` is null when the block's bytes have left the window.
  void flush_block(const std::uint8_t* stored, std::size_t stored_len, bool last) {
    const Plan p = plan(stored_len);
    if (p.stored_fits && stored) {
      emit_stored(bits_, stored, stored_len, last);
    } else {
      emit_coded(p, last);
    }
    init_block();
    if (last) bits_.windup();
  }

  // The choice _tr_flush_block() makes from the block's trees (built here).
  struct Plan {
    bool stored_fits = false;  // a stored block is no larger (when its bytes are at hand)
    bool fixed = false;        // otherwise: the fixed codes, or the dynamic trees
    int max_blindex = 0;
  };
  Plan plan(std::size_t stored_len) {
    build_tree(l_, kLCodes, kStatic.llen.data(), kExtraLBits, kLiterals + 1, kMaxBits);
    build_tree(d_, kDCodes, kStatic.dlen.data(), kExtraDBits, 0, kMaxBits);
    Plan p;
    p.max_blindex = build_bl_tree();
    std::uint64_t opt_lenb = (opt_len_ + 3 + 7) >> 3;
    const std::uint64_t static_lenb = (static_len_ + 3 + 7) >> 3;
    if (static_lenb <= opt_lenb) opt_lenb = static_lenb;
    p.stored_fits = stored_len + 4 <= opt_lenb;
    p.fixed = static_lenb == opt_lenb;
    return p;
  }
  static void emit_stored(BitWriter& bits, const std::uint8_t* data, std::size_t len, bool last) {
    bits.put(last ? 1 : 0, 3);
    bits.windup();
    bits.out.push_back(std::uint8_t(len));
    bits.out.push_back(std::uint8_t(len >> 8));
    bits.out.push_back(std::uint8_t(~len));
    bits.out.push_back(std::uint8_t(~len >> 8));
    bits.out.insert(bits.out.end(), data, data + len);
  }
  // A fixed or dynamic block, from its header bits to its end-of-block code.
  void emit_coded(const Plan& p, bool last) {
    if (p.fixed) {
      bits_.put((1u << 1) + (last ? 1 : 0), 3);
      compress(kStatic.lcode.data(), kStatic.llen.data(), kStatic.dcode.data(), kStatic.dlen.data());
    } else {
      bits_.put((2u << 1) + (last ? 1 : 0), 3);
      send_all_trees(l_.max_code + 1, d_.max_code + 1, p.max_blindex + 1);
      compress(l_.code.data(), l_.len.data(), d_.code.data(), d_.len.data());
    }
  }
  // The bits written so far: whole bytes in the output vector, then `tail` bits (0..7) in a
  // last byte that is appended.
  int close_bits() {
    const int tail = bits_.n;
    bits_.windup();
    return tail;
  }
  // An empty stored block that is not the last (what zlib's Z_SYNC_FLUSH and Z_FULL_FLUSH
  // write): the stream is byte-aligned after it.
  void sync_flush() {
    bits_.put(0, 3);
    bits_.windup();
    bits_.out.insert(bits_.out.end(), {0x00, 0x00, 0xFF, 0xFF});
  }

 private:
  void init_block() {
    for (int n = 0; n < kLCodes; ++n) l_.freq[std::size_t(n)] = 0;
    for (int n = 0; n < kDCodes; ++n) d_.freq[std::size_t(n)] = 0;
    for (int n = 0; n < kBLCodes; ++n) bl_.freq[std::size_t(n)] = 0;
    l_.freq[kEndBlock] = 1;
    opt_len_ = static_len_ = 0;
    syms_.clear();
  }

  bool smaller(const Tree& t, int n, int m) const {
    return t.freq[std::size_t(n)] < t.freq[std::size_t(m)] ||
           (t.freq[std::size_t(n)] == t.freq[std::size_t(m)] && depth_[std::size_t(n)] <= depth_[std::size_t(m)]);
  }
  void downheap(const Tree& t, int k) {
    const int v = heap_[std::size_t(k)];
    int j = k << 1;
    while (j <= heap_len_) {
      if (j < heap_len_ && smaller(t, heap_[std::size_t(j + 1)], heap_[std::size_t(j)])) ++j;
      if (smaller(t, v, heap_[std::size_t(j)])) break;
      heap_[std::size_t(k)] = heap_[std::size_t(j)];
      k = j;
      j <<= 1;
    }
    heap_[std::size_t(k)] = v;
  }

  void build_tree(Tree& t, int elems, const std::uint16_t* stree, const std::uint8_t* extra,
                  int base, int max_length) {
    heap_len_ = 0;
    heap_max_ = kHeapSize;
    int max_code = -1;
    for (int n = 0; n < elems; ++n) {
      if (t.freq[std::size_t(n)] != 0) {
        heap_[std::size_t(++heap_len_)] = max_code = n;
        depth_[std::size_t(n)] = 0;
      } else {
        t.len[std::size_t(n)] = 0;
      }
    }
    // At least two codes of non-zero frequency (RFC 1951 wants one distance code; zlib
    // forces two so that every code has at least one bit).
    while (heap_len_ < 2) {
      const int node = heap_[std::size_t(++heap_len_)] = (max_code < 2 ? ++max_code : 0);
      t.freq[std::size_t(node)] = 1;
      depth_[std::size_t(node)] = 0;
      --opt_len_;
      if (stree) static_len_ -= stree[node];
    }
    t.max_code = max_code;
    for (int n = heap_len_ / 2; n >= 1; --n) downheap(t, n);
    int node = elems;
    do {
      const int n = heap_[1];
      heap_[1] = heap_[std::size_t(heap_len_--)];
      downheap(t, 1);
      const int m = heap_[1];
      heap_[std::size_t(--heap_max_)] = n;
      heap_[std::size_t(--heap_max_)] = m;
      t.freq[std::size_t(node)] = t.freq[std::size_t(n)] + t.freq[std::size_t(m)];
      depth_[std::size_t(node)] = std::uint8_t(
          std::max(depth_[std::size_t(n)], depth_[std::size_t(m)]) + 1);
      t.dad[std::size_t(n)] = t.dad[std::size_t(m)] = std::uint16_t(node);
      heap_[1] = node++;
      downheap(t, 1);
    } while (heap_len_ >= 2);
    heap_[std::size_t(--heap_max_)] = heap_[1];
    gen_bitlen(t, stree, extra, base, max_length);
    gen_codes(t);
  }

  void gen_bitlen(Tree& t, const std::uint16_t* stree, const std::uint8_t* extra, int base,
                  int max_length) {
    for (auto& c : bl_count_) c = 0;
    int overflow = 0;
    t.len[std::size_t(heap_[std::size_t(heap_max_)])] = 0;  // the root
    int h;
    for (h = heap_max_ + 1; h < kHeapSize; ++h) {
      const int n = heap_[std::size_t(h)];
      int bits = t.len[t.dad[std::size_t(n)]] + 1;
      if (bits > max_length) {
        bits = max_length;
        ++overflow;
      }
      t.len[std::size_t(n)] = std::uint16_t(bits);
      if (n > t.max_code) continue;  // not a leaf
      ++bl_count_[std::size_t(bits)];
      const int xbits = n >= base ? extra[n - base] : 0;
      const std::uint64_t f = t.freq[std::size_t(n)];
      opt_len_ += f * std::uint64_t(bits + xbits);
      if (stree) static_len_ += f * std::uint64_t(stree[n] + xbits);
    }
    if (overflow == 0) return;
    do {
      int bits = max_length - 1;
      while (bl_count_[std::size_t(bits)] == 0) --bits;
      --bl_count_[std::size_t(bits)];
      bl_count_[std::size_t(bits + 1)] += 2;
      --bl_count_[std::size_t(max_length)];
      overflow -= 2;
    } while (overflow > 0);
    h = kHeapSize;
    for (int bits = max_length; bits != 0; --bits) {
      int n = bl_count_[std::size_t(bits)];
      while (n != 0) {
        const int m = heap_[std::size_t(--h)];
        if (m > t.max_code) continue;
        if (t.len[std::size_t(m)] != bits) {
          opt_len_ += (std::uint64_t(bits) - t.len[std::size_t(m)]) * t.freq[std::size_t(m)];
          t.len[std::size_t(m)] = std::uint16_t(bits);
        }
        --n;
      }
    }
  }

  void gen_codes(Tree& t) {
    std::uint32_t next[kMaxBits + 1] = {}, code = 0;
    for (int bits = 1; bits <= kMaxBits; ++bits) {
      code = (code + bl_count_[std::size_t(bits - 1)]) << 1;
      next[bits] = code;
    }
    for (int n = 0; n <= t.max_code; ++n) {
      const int len = t.len[std::size_t(n)];
      if (len == 0) continue;
      t.code[std::size_t(n)] = std::uint16_t(reverse_bits(next[len]++, len));
    }
  }

  // How long the next run of equal lengths may get, and from what length it is sent as a
  // repeat: zeros up to 138 (repeats from 3); a length equal to the one before up to 6 (from
  // 3); otherwise up to 7, sending the length once first (from 4).
  static void run_limits(int curlen, int nextlen, int& max_count, int& min_count) {
    if (nextlen == 0) {
      max_count = 138, min_count = 3;
    } else if (curlen == nextlen) {
      max_count = 6, min_count = 3;
    } else {
      max_count = 7, min_count = 4;
    }
  }

  // Walks a tree's code lengths as runs, as zlib's scan_tree() and send_tree() do, calling
  // emit(length, count, previous length, min_count) for each run.
  template <typename Emit>
  void walk_runs(const Tree& t, Emit&& emit) {
    int prevlen = -1, nextlen = t.len[0], count = 0, max_count = 7, min_count = 4;
    run_limits(-1, nextlen, max_count, min_count);
    for (int n = 0; n <= t.max_code; ++n) {
      const int curlen = nextlen;
      nextlen = t.len[std::size_t(n + 1)];
      if (++count < max_count && curlen == nextlen) continue;
      emit(curlen, count, prevlen, min_count);
      count = 0;
      prevlen = curlen;
      run_limits(curlen, nextlen, max_count, min_count);
    }
  }

  // The code-length code's frequencies.
  void scan_tree(Tree& t) {
    t.len[std::size_t(t.max_code + 1)] = 0xFFFF;  // guard
    walk_runs(t, [&](int curlen, int count, int prevlen, int min_count) {
      if (count < min_count) {
        bl_.freq[std::size_t(curlen)] += std::uint32_t(count);
      } else if (curlen != 0) {
        if (curlen != prevlen) ++bl_.freq[std::size_t(curlen)];
        ++bl_.freq[kRep3_6];
      } else if (count <= 10) {
        ++bl_.freq[kRepZ3_10];
      } else {
        ++bl_.freq[kRepZ11_138];
      }
    });
  }

  void send_code(int c, const Tree& t) { bits_.put(t.code[std::size_t(c)], t.len[std::size_t(c)]); }

  void send_tree(const Tree& t) {
    walk_runs(t, [&](int curlen, int count, int prevlen, int min_count) {
      if (count < min_count) {
        do send_code(curlen, bl_);
        while (--count != 0);
      } else if (curlen != 0) {
        if (curlen != prevlen) {
          send_code(curlen, bl_);
          --count;
        }
        send_code(kRep3_6, bl_);
        bits_.put(std::uint32_t(count - 3), 2);
      } else if (count <= 10) {
        send_code(kRepZ3_10, bl_);
        bits_.put(std::uint32_t(count - 3), 3);
      } else {
        send_code(kRepZ11_138, bl_);
        bits_.put(std::uint32_t(count - 11), 7);
      }
    });
  }

  int build_bl_tree() {
    scan_tree(l_);
    scan_tree(d_);
    build_tree(bl_, kBLCodes, nullptr, kExtraBLBits, 0, kMaxBLBits);
    int max_blindex;
    for (max_blindex = kBLCodes - 1; max_blindex >= 3; --max_blindex)
      if (bl_.len[kBLOrder[max_blindex]] != 0) break;
    opt_len_ += 3 * (std::uint64_t(max_blindex) + 1) + 5 + 5 + 4;
    return max_blindex;
  }

  void send_all_trees(int lcodes, int dcodes, int blcodes) {
    bits_.put(std::uint32_t(lcodes - 257), 5);
    bits_.put(std::uint32_t(dcodes - 1), 5);
    bits_.put(std::uint32_t(blcodes - 4), 4);
    for (int rank = 0; rank < blcodes; ++rank) bits_.put(bl_.len[kBLOrder[rank]], 3);
    send_tree(l_);
    send_tree(d_);
  }

  void compress(const std::uint16_t* lcode, const std::uint16_t* llen, const std::uint16_t* dcode,
                const std::uint16_t* dlen) {
    for (const Symbol& s : syms_) {
      if (!s.match) {
        bits_.put(lcode[s.value], llen[s.value]);
        continue;
      }
      const int c = kLength.code[s.value];
      bits_.put(lcode[c + kLiterals + 1], llen[c + kLiterals + 1]);
      if (kExtraLBits[c]) bits_.put(std::uint32_t(s.value - kLength.base[c]), kExtraLBits[c]);
      bits_.put(dcode[0], dlen[0]);  // distance 1: code 0, no extra bits
    }
    bits_.put(lcode[kEndBlock], llen[kEndBlock]);
  }

  BitWriter bits_;
  Tree l_, d_, bl_;
  std::array<int, kHeapSize> heap_{};
  std::array<std::uint8_t, kHeapSize> depth_{};
  std::array<int, kMaxBits + 1> bl_count_{};
  int heap_len_ = 0, heap_max_ = 0;
  std::uint64_t opt_len_ = 0, static_len_ = 0;
  std::vector<Symbol> syms_;
};


std::vector<std::uint8_t> compress_sequential(const std::uint8_t* data, std::size_t n,
                                              const std::vector<std::size_t>& pieces,
                                              int window_bits) {
  std::vector<std::uint8_t> out;
  out.reserve(n / 2 + 64);
  zlib_header(out, window_bits);

  const std::size_t wsize = std::size_t(1) << window_bits, window_size = 2 * wsize;
  const std::size_t max_dist = wsize - kMinLookahead;
  const std::size_t sym_limit = (std::size_t(1) << (8 + 6)) - 1;  // lit_bufsize - 1
  Deflater z(out);
  // Window state, as fill_window() keeps it: the window's first byte is input byte `base`.
  std::size_t base = 0, strstart = 0, lookahead = 0, block_start = 0;  // block_start: global
  std::size_t avail_in = 0;
  auto fill_window = [&] {
    do {
      std::size_t more = window_size - lookahead - strstart;
      if (strstart >= wsize + max_dist) {
        base += wsize;
        strstart -= wsize;
        more += wsize;
      }
      if (avail_in == 0) break;
      const std::size_t k = std::min(avail_in, more);
      lookahead += k;
      avail_in -= k;
    } while (lookahead < std::size_t(kMinLookahead) && avail_in != 0);
  };
  auto flush = [&](bool last) {
    const std::size_t g = base + strstart;
    const std::uint8_t* stored = block_start >= base ? data + block_start : nullptr;
    z.flush_block(stored, g - block_start, last);
    block_start = g;
  };
  // One deflate_rle() run; returns when it needs more input (finish: at the end of the data).
  auto run = [&](bool finish) {
    for (;;) {
      if (lookahead <= std::size_t(kMaxMatch)) {
        fill_window();
        if (lookahead <= std::size_t(kMaxMatch) && !finish) return;
        if (lookahead == 0) break;
      }
      const std::size_t g = base + strstart;
      std::size_t len = 0;
      if (lookahead >= std::size_t(kMinMatch) && strstart > 0) {
        const std::uint8_t prev = data[g - 1];
        if (data[g] == prev && data[g + 1] == prev && data[g + 2] == prev) {
          const std::size_t limit = std::min<std::size_t>(kMaxMatch, lookahead);
          len = 3;
          while (len < limit && data[g + len] == prev) ++len;
        }
      }
      if (len >= std::size_t(kMinMatch)) {
        z.tally({1, std::uint8_t(len - kMinMatch)});
        lookahead -= len;
        strstart += len;
      } else {
        z.tally({0, data[g]});
        --lookahead;
        ++strstart;
      }
      if (z.symbols() == sym_limit) flush(false);
    }
    flush(true);
  };
  std::vector<std::size_t> sizes = pieces;
  if (sizes.empty()) sizes.push_back(n);
  for (std::size_t piece : sizes) {
    avail_in = piece;
    // libpng calls deflate() again while input is left; each call runs deflate_rle().
    run(false);  // returns with the piece consumed (fill_window() reads while it can)
  }
  run(true);
  const std::uint32_t adler = adler32(1, data, n);
  for (int s = 24; s >= 0; s -= 8) out.push_back(std::uint8_t(adler >> s));
  return out;
}


// The symbols of data[a, b), where a and b start runs of equal bytes (or are 0 and n): the
// parse of a run never leaves it, so pieces cut there parse independently.
void parse(const std::uint8_t* data, std::size_t n, std::size_t a, std::size_t b,
           std::vector<Symbol>& out) {
  out.clear();
  out.reserve(b - a);
  std::size_t g = a;
  while (g < b) {
    std::size_t len = 0;
    if (g > 0 && n - g >= std::size_t(kMinMatch)) {
      const std::uint8_t prev = data[g - 1];
      if (data[g] == prev && data[g + 1] == prev && data[g + 2] == prev) {
        const std::size_t limit = std::min<std::size_t>(kMaxMatch, n - g);
        len = 3;
        while (len < limit && data[g + len] == prev) ++len;
      }
    }
    if (len >= std::size_t(kMinMatch)) {
      out.push_back({1, std::uint8_t(len - kMinMatch)});
      g += len;
    } else {
      out.push_back({0, data[g]});
      ++g;
    }
  }
}

template <typename Fn>
void run_parallel(std::size_t count, int threads, Fn fn) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) fn(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads && std::size_t(t) < count; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

// The same stream with the work spread over threads: the parse in pieces cut at run starts,
// then every block (trees, choice, codes) on its own, then the blocks joined at their bit
// offsets. Returns false when a block would be stored but whether its bytes are still in
// zlib's window depends on how the input arrived; the caller then runs the sequential path.
bool compress_parallel(const std::uint8_t* data, std::size_t n, int window_bits, int threads,
                       std::vector<std::uint8_t>& out) {
  const std::size_t wsize = std::size_t(1) << window_bits;
  const std::size_t sym_limit = (std::size_t(1) << (8 + 6)) - 1;
  const std::size_t pieces = std::size_t(threads) * 4;
  std::vector<std::size_t> cut(pieces + 1, n);
  cut[0] = 0;
  for (std::size_t t = 1; t < pieces; ++t) {
    std::size_t c = std::max(cut[t - 1], n / pieces * t);
    while (c < n && c > 0 && data[c] == data[c - 1]) ++c;
    cut[t] = c;
  }
  std::vector<std::vector<Symbol>> parsed(pieces);
  run_parallel(pieces, threads, [&](std::size_t t) { parse(data, n, cut[t], cut[t + 1], parsed[t]); });
  std::vector<Symbol> syms;
  std::size_t total = 0;
  for (const auto& p : parsed) total += p.size();
  syms.reserve(total);
  for (auto& p : parsed) {
    syms.insert(syms.end(), p.begin(), p.end());
    std::vector<Symbol>().swap(p);
  }
  // Blocks: full ones of sym_limit symbols, then the last (possibly empty) one.
  const std::size_t full = total / sym_limit;
  const std::size_t blocks = full + 1;
  std::vector<std::size_t> bytes(blocks, 0);
  run_parallel(blocks, threads, [&](std::size_t k) {
    const std::size_t a = k * sym_limit, b = std::min(total, a + sym_limit);
    std::size_t len = 0;
    for (std::size_t i = a; i < b; ++i) len += syms[i].match ? std::size_t(syms[i].value) + 3 : 1;
    bytes[k] = len;
  });
  std::vector<std::size_t> start(blocks + 1, 0);
  for (std::size_t k = 0; k < blocks; ++k) start[k + 1] = start[k] + bytes[k];
  // Before the window first slides (at 2 * wsize - 262 bytes) every block's bytes are at
  // hand; after, at least the last wsize - 262 bytes before the current position are.
  const bool never_slides = n < 2 * wsize - kMinLookahead;
  struct Coded {
    std::vector<std::uint8_t> bytes;
    int tail = 0;
    bool stored = false;
  };
  std::vector<Coded> coded(blocks);
  std::atomic<bool> unsure{false};
  run_parallel(blocks, threads, [&](std::size_t k) {
    Coded& c = coded[k];
    Deflater z(c.bytes);
    const std::size_t a = k * sym_limit, b = std::min(total, a + sym_limit);
    for (std::size_t i = a; i < b; ++i) z.tally(syms[i]);
    const Deflater::Plan p = z.plan(bytes[k]);
    if (p.stored_fits) {
      if (!never_slides && bytes[k] > wsize - kMinLookahead) unsure = true;
      c.stored = true;
      return;
    }
    z.emit_coded(p, k + 1 == blocks);
    c.tail = z.close_bits();
  });
  if (unsure) return false;
  out.clear();
  out.reserve(n / 2 + 64);
  zlib_header(out, window_bits);
  BitWriter bits{out};
  for (std::size_t k = 0; k < blocks; ++k) {
    const bool last = k + 1 == blocks;
    const Coded& c = coded[k];
    if (c.stored) {
      Deflater::emit_stored(bits, data + start[k], bytes[k], last);
      continue;
    }
    const std::size_t whole = c.bytes.size() - (c.tail ? 1 : 0);
    std::size_t i = 0;
    if (bits.n == 0) {
      out.insert(out.end(), c.bytes.begin(), c.bytes.begin() + std::ptrdiff_t(whole));
      i = whole;
    }
    for (; i + 4 <= whole; i += 4) {
      std::uint32_t w;
      std::memcpy(&w, c.bytes.data() + i, 4);
      bits.put(w, 32);
    }
    for (; i < whole; ++i) bits.put(c.bytes[i], 8);
    if (c.tail) bits.put(c.bytes.back() & ((1u << c.tail) - 1), c.tail);
  }
  bits.windup();
  // Adler-32 in pieces, combined.
  std::vector<std::uint32_t> adler(pieces);
  run_parallel(pieces, threads, [&](std::size_t t) {
    adler[t] = adler32(1, data + cut[t], cut[t + 1] - cut[t]);
  });
  std::uint32_t a32 = 1;
  for (std::size_t t = 0; t < pieces; ++t) a32 = adler32_combine(a32, adler[t], cut[t + 1] - cut[t]);
  for (int sh = 24; sh >= 0; sh -= 8) out.push_back(std::uint8_t(a32 >> sh));
  return true;
}

// One segment of the parallel mode: data[0, n) parsed as if it began the stream, coded in
// blocks of sym_limit symbols, then the final block (last segment) or a sync flush.
std::vector<std::uint8_t> deflate_segment(const std::uint8_t* data, std::size_t n, bool last) {
  const std::size_t sym_limit = (std::size_t(1) << (8 + 6)) - 1;
  std::vector<Symbol> syms;
  parse(data, n, 0, n, syms);
  std::vector<std::uint8_t> out;
  out.reserve(n / 2 + 16);
  Deflater z(out);
  std::size_t pos = 0, block_start = 0;
  for (const Symbol& s : syms) {
    z.tally(s);
    pos += s.match ? std::size_t(s.value) + 3 : 1;
    if (z.symbols() == sym_limit) {
      z.flush_block(data + block_start, pos - block_start, false);
      block_start = pos;
    }
  }
  if (last) {
    z.flush_block(data + block_start, pos - block_start, true);
  } else {
    if (z.symbols()) z.flush_block(data + block_start, pos - block_start, false);
    z.sync_flush();
  }
  return out;
}

}  // namespace

void zlib_header(std::vector<std::uint8_t>& out, int window_bits) {
  // Deflate, the window size, FLEVEL 0 (zlib writes 0 for the Z_RLE strategy).
  std::uint32_t header = (8u + (std::uint32_t(window_bits - 8) << 4)) << 8;
  header += 31 - header % 31;
  out.push_back(std::uint8_t(header >> 8));
  out.push_back(std::uint8_t(header));
}

std::vector<std::uint8_t> zlib_rle_compress(const std::uint8_t* data, std::size_t n,
                                            const std::vector<std::size_t>& pieces,
                                            int window_bits, int threads) {
  if (window_bits == 8) window_bits = 9;
  std::vector<std::uint8_t> out;
  if (threads > 1 && n >= (std::size_t(1) << 18) && compress_parallel(data, n, window_bits, threads, out))
    return out;
  return compress_sequential(data, n, pieces, window_bits);
}

SegmentedStream zlib_rle_segments(const std::uint8_t* data, std::size_t n,
                                  const std::vector<std::size_t>& starts, int threads) {
  SegmentedStream r;
  const std::size_t count = starts.size();
  std::vector<std::vector<std::uint8_t>> parts(count);
  std::vector<std::uint32_t> adler(count);
  run_parallel(count, std::max(1, threads), [&](std::size_t k) {
    const std::size_t a = starts[k], b = k + 1 < count ? starts[k + 1] : n;
    parts[k] = deflate_segment(data + a, b - a, k + 1 == count);
    adler[k] = adler32(1, data + a, b - a);
  });
  std::size_t total = 2 + 4;
  for (const auto& p : parts) total += p.size();
  r.stream.reserve(total);
  zlib_header(r.stream, 15);
  std::uint32_t a32 = 1;
  for (std::size_t k = 0; k < count; ++k) {
    r.offsets.push_back(r.stream.size());
    r.stream.insert(r.stream.end(), parts[k].begin(), parts[k].end());
    const std::size_t b = k + 1 < count ? starts[k + 1] : n;
    a32 = adler32_combine(a32, adler[k], b - starts[k]);
  }
  for (int sh = 24; sh >= 0; sh -= 8) r.stream.push_back(std::uint8_t(a32 >> sh));
  return r;
}

}  // namespace hetcodec::png
