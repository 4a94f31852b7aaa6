// The encoder's entropy coding (core/jpeg/encoder.h), as libjpeg-turbo 2.1.5's jchuff.c does it:
// a baseline scan's Huffman codes (encode_one_block; ITU-T T.81 F.1.2), the 1-bit padding,
// 0xFF 0x00 stuffing and RSTn markers (flush_bits, emit_restart; F.1.2.3, B.2.4.4), the symbol
// statistics of optimize_coding (htest_one_block) and the optimal tables built from them
// (jpeg_gen_optimal_table; K.2). A scan can also be coded on several threads, by restart
// intervals or by pieces of one interval joined at bit offsets; its bytes stay the same.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.h"
#include "core/jpeg/encoder.h"

namespace hetcodec::jpeg {
namespace {

constexpr int kMaxBlocksPerMcu = 10;  // T.81 B.2.3
// The most raw bytes one block can take: at most 64 codes (DC, AC, EOB) of at most 16 bits with
// values of at most 17.
constexpr std::size_t kMaxBlockBytes = 64 * 33 / 8;
// A piece of an interval coded on its own has at least this many MCUs, so at least 16 bits (a
// block takes 2 at least: a DC code and an AC code, each 1 bit or more): the byte that ends
// one piece never reaches past the next one.
constexpr std::uint64_t kMinPieceMcus = 8;
// A thread per this many MCUs at most (scan_threads): small scans are not worth a thread.
constexpr std::uint64_t kAutoMcusPerThread = 2048;

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, "jpeg encode: " + what);
}

int nbits(unsigned magnitude) { return magnitude ? 32 - __builtin_clz(magnitude) : 0; }

// Which component each block of an MCU belongs to (T.81 A.2.3), and each component's last.
struct McuLayout {
  int comps = 0, blocks = 0;
  int comp_of[kMaxBlocksPerMcu] = {};
  int last_of[3] = {};
};

McuLayout layout_of(const EncodePlan& plan) {
  if (plan.comps != 1 && plan.comps != 3)
    bad("plan with " + std::to_string(plan.comps) + " components");
  McuLayout l;
  l.comps = plan.comps;
  for (int c = 0; c < plan.comps; ++c) {
    const int n = plan.mcu_h(c) * plan.mcu_v(c);
    if (n < 1 || l.blocks + n > kMaxBlocksPerMcu) bad("plan with more than 10 blocks per MCU");
    for (int i = 0; i < n; ++i) l.comp_of[l.blocks++] = c;
    l.last_of[c] = l.blocks - 1;
  }
  if (l.blocks != plan.blocks_per_mcu)
    bad("plan with " + std::to_string(plan.blocks_per_mcu) + " blocks per MCU for " +
        std::to_string(l.blocks) + " blocks of its sampling factors");
  return l;
}

// A scan to code: the blocks, their layout, the codes of table slot 0 (component 0) and 1.
struct ScanJob {
  const std::int16_t* blocks = nullptr;
  McuLayout layout;
  std::uint64_t mcus = 0;
  std::uint64_t interval = 1;  // MCUs per restart interval; all of them without restarts
  std::array<std::uint32_t, 256> dc[2], ac[2];
};

ScanJob scan_of(const EncodePlan& plan, const EncodeTables* tables, const std::int16_t* blocks) {
  ScanJob s;
  s.blocks = blocks;
  s.layout = layout_of(plan);
  s.mcus = plan.mcus();
  s.interval = plan.restart_interval > 0 ? std::uint64_t(plan.restart_interval)
                                         : std::max<std::uint64_t>(s.mcus, 1);
  if (s.mcus && !blocks) bad("no blocks given for a scan of " + std::to_string(s.mcus) + " MCUs");
  if (tables)
    for (int t = 0; t < 2; ++t) {
      s.dc[t] = derive_codes(tables->dc[t]);
      s.ac[t] = derive_codes(tables->ac[t]);
    }
  return s;
}

std::int16_t dc_before(const ScanJob& s, std::uint64_t mcu, int comp) {
  const std::uint64_t block =
      (mcu - 1) * std::uint64_t(s.layout.blocks) + std::uint64_t(s.layout.last_of[comp]);
  return s.blocks[block * 64];
}

// The non-zero AC coefficients of a zigzag block, bit k for coefficient k (as libjpeg-turbo's
// SIMD Huffman coders find them: compare, pack, take the sign bits).
std::uint64_t ac_mask(const std::int16_t* b) {
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  std::uint64_t zeros = 0;
  for (std::ptrdiff_t i = 0; i < 4; ++i) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * i));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * i + 8));
    const __m128i eq = _mm_packs_epi16(_mm_cmpeq_epi16(lo, zero), _mm_cmpeq_epi16(hi, zero));
    zeros |= std::uint64_t(std::uint32_t(_mm_movemask_epi8(eq))) << (16 * i);
  }
  return ~zeros & ~std::uint64_t(1);
#else
  std::uint64_t mask = 0;
  for (int k = 1; k < 64; ++k) mask |= std::uint64_t(b[k] != 0) << k;
  return mask;
#endif
}

std::uint64_t big_endian(std::uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return v;
#else
  return __builtin_bswap64(v);
#endif
}

void store_be64(std::uint8_t* p, std::uint64_t v) {
  v = big_endian(v);
  std::memcpy(p, &v, 8);
}

std::uint64_t load_be64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return big_endian(v);
}

// Raw bits, most significant first, through a 64-bit buffer whose top n_ < 8 bits are pending:
// each code is ORed in below them and the buffer stored whole, the output advanced by the
// whole bytes, so no branch per code (jchuff.c flushes its put_buffer when full; the bits are
// the same). Stuffing is a second pass (append_stuffed). Codes take at most 33 bits.
class BitWriter {
 public:
  // Makes room for `bytes` more bytes; called before each MCU.
  void room(std::size_t bytes) {
    const std::size_t used = std::size_t(at_ - buf_.get());
    if (cap_ - used >= bytes + 16) return;
    cap_ = std::max(2 * cap_, used + bytes + 16);
    std::unique_ptr<std::uint8_t[]> bigger(new std::uint8_t[cap_]);
    if (used) std::memcpy(bigger.get(), buf_.get(), used);
    buf_ = std::move(bigger);
    at_ = buf_.get() + used;
  }

  void put(std::uint64_t code, int size) {
    acc_ |= code << (63 - n_ - size) << 1;
    n_ += size;
    store_be64(at_, acc_);
    at_ += n_ >> 3;
    acc_ <<= n_ & ~7;
    n_ &= 7;
  }

  // Fills the partial byte with 1s (jchuff.c flush_bits).
  void pad() {
    if (n_) put(0xFFu >> n_, 8 - n_);
  }

  // Ends the bits: the partial byte stored with 0s after them, then 16 zero bytes (the
  // stuffing pass reads past its last byte). Returns the number of bits.
  std::uint64_t seal() {
    const std::uint64_t bits = std::uint64_t(at_ - buf_.get()) * 8 + unsigned(n_);
    room(24);
    store_be64(at_, acc_);
    std::memset(at_ + 8, 0, 16);
    return bits;
  }

  void reset() {
    at_ = buf_.get();
    acc_ = 0;
    n_ = 0;
  }

  std::uint8_t* data() { return buf_.get(); }

 private:
  std::unique_ptr<std::uint8_t[]> buf_;
  std::size_t cap_ = 0;
  std::uint8_t* at_ = nullptr;
  std::uint64_t acc_ = 0;
  int n_ = 0;
};

// Appends n bytes of the bit string `raw`, read from bit `skip` (< 8) on, with a 0x00 after each
// 0xFF (T.81 F.1.2.3). `raw` is readable 9 bytes past them.
void append_stuffed(std::vector<std::uint8_t>& out, const std::uint8_t* raw, std::size_t n,
                    unsigned skip) {
  std::size_t pos = out.size();
  out.resize(pos + 2 * n + 8);
  std::uint8_t* o = out.data() + pos;
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t w = load_be64(raw + i) << skip;
    if (skip) w |= raw[i + 8] >> (8 - skip);
    // Whether a byte may be 0xFF (exact for the lowest such byte, as jchuff.c tests it).
    if (n - i >= 8 && !(w & 0x8080808080808080u & ~(w + 0x0101010101010101u))) {
      store_be64(o, w);
      o += 8;
      continue;
    }
    for (std::size_t j = 0; j < std::min<std::size_t>(8, n - i); ++j) {
      const std::uint8_t b = std::uint8_t(w >> (56 - 8 * j));
      *o++ = b;
      if (b == 0xFF) *o++ = 0;
    }
  }
  out.resize(std::size_t(o - out.data()));
}

// One block (jchuff.c encode_one_block); false where a symbol has no code or a coefficient is
// out of baseline range, which libjpeg refuses (JERR_BAD_DCT_COEF).
bool encode_block(BitWriter& w, const std::int16_t* b, int& pred, const std::uint32_t* dc,
                  const std::uint32_t* ac) {
  const int diff = b[0] - pred;
  pred = b[0];
  const unsigned mag = unsigned(diff < 0 ? -diff : diff);
  int n = nbits(mag);
  std::uint32_t c = dc[n];
  bool ok = c >> 16 != 0 && n <= 11;
  // A negative value is sent as its ones' complement in n bits (T.81 F.1.2.1).
  std::uint64_t value = std::uint32_t(diff < 0 ? diff - 1 : diff) & ((1u << n) - 1);
  w.put(std::uint64_t(c & 0xFFFF) << n | value, int(c >> 16) + n);
  std::uint64_t mask = ac_mask(b);
  int last = 0;
  while (mask) {
    const int k = __builtin_ctzll(mask);
    mask &= mask - 1;
    int run = k - last - 1;
    last = k;
    for (; run > 15; run -= 16) {
      ok &= ac[0xF0] >> 16 != 0;
      w.put(ac[0xF0] & 0xFFFF, int(ac[0xF0] >> 16));
    }
    const int v = b[k];
    n = nbits(unsigned(v < 0 ? -v : v));
    ok &= n <= 10;
    c = ac[(run << 4 | n) & 0xFF];
    ok &= c >> 16 != 0;
    value = std::uint32_t(v < 0 ? v - 1 : v) & ((1u << n) - 1);
    w.put(std::uint64_t(c & 0xFFFF) << n | value, int(c >> 16) + n);
  }
  if (last != 63) {
    ok &= ac[0] >> 16 != 0;
    w.put(ac[0] & 0xFFFF, int(ac[0] >> 16));
  }
  return ok;
}

bool encode_mcu(const ScanJob& s, std::uint64_t mcu, int* pred, BitWriter& w) {
  const std::int16_t* b = s.blocks + mcu * std::uint64_t(s.layout.blocks) * 64;
  w.room(std::size_t(s.layout.blocks) * kMaxBlockBytes);
  bool ok = true;
  for (int j = 0; j < s.layout.blocks; ++j, b += 64) {
    const int c = s.layout.comp_of[j], t = c == 0 ? 0 : 1;
    ok &= encode_block(w, b, pred[c], s.dc[t].data(), s.ac[t].data());
  }
  return ok;
}

[[noreturn]] void bad_symbols() {
  bad("a block has a coefficient out of baseline range or a symbol the Huffman table lacks");
}

// The stuffed bytes of whole restart intervals, MCUs [begin, end): RSTn before each interval
// but the scan's first, each padded with 1s (jchuff.c encode_mcu_huff, emit_restart,
// finish_pass_huff).
std::vector<std::uint8_t> encode_intervals(const ScanJob& s, std::uint64_t begin,
                                           std::uint64_t end) {
  std::vector<std::uint8_t> out;
  out.reserve(std::size_t(end - begin) * std::size_t(s.layout.blocks) * 4 + 64);  // it grows
  BitWriter w;
  bool ok = true;
  for (std::uint64_t first = begin; first < end; first += s.interval) {
    if (first > 0)
      out.insert(out.end(), {0xFF, std::uint8_t(0xD0 + ((first / s.interval - 1) & 7))});
    int pred[3] = {0, 0, 0};
    w.reset();
    for (std::uint64_t m = first; m < std::min(end, first + s.interval); ++m)
      ok &= encode_mcu(s, m, pred, w);
    w.pad();
    append_stuffed(out, w.data(), std::size_t(w.seal() / 8), 0);
  }
  if (!ok) bad_symbols();
  return out;
}

// A piece of one restart interval: MCUs [begin, end), their raw bits, then their bytes.
struct Piece {
  std::uint64_t begin = 0, end = 0, interval = 0;
  BitWriter bits;
  std::uint64_t count = 0;   // bits
  std::uint64_t offset = 0;  // bits of the interval before this piece
  std::vector<std::uint8_t> bytes;
};

// The raw bits of a piece, DC predicted from the blocks before it in its interval.
void encode_piece(const ScanJob& s, Piece& p) {
  int pred[3] = {0, 0, 0};
  if (p.begin % s.interval != 0)
    for (int c = 0; c < s.layout.comps; ++c) pred[c] = dc_before(s, p.begin, c);
  bool ok = true;
  for (std::uint64_t m = p.begin; m < p.end; ++m) ok &= encode_mcu(s, m, pred, p.bits);
  p.count = p.bits.seal();
  if (!ok) bad_symbols();
}

// The stuffed bytes whose first bit lies in piece p: its bits from the first byte boundary
// of the interval on, the last byte completed by `next`, the 8 bits after the piece (the next
// piece's first, or the 1s that pad the interval).
void join_piece(Piece& p, std::uint8_t next) {
  const unsigned skip = unsigned(-p.offset & 7), fill = unsigned(-(p.offset + p.count) & 7);
  std::uint8_t* raw = p.bits.data();
  if (fill) {  // next's first `fill` bits at bit `count`, which may straddle two bytes
    const unsigned bits = (unsigned(next) >> (8 - fill) << (16 - fill)) >> (p.count % 8);
    raw[p.count / 8] |= std::uint8_t(bits >> 8);
    raw[p.count / 8 + 1] |= std::uint8_t(bits);
  }
  append_stuffed(p.bytes, raw, std::size_t((p.count + fill - skip) / 8), skip);
}

// Runs task(i) for i in [0, n) on up to `threads` threads; rethrows the first exception.
template <class Task>
void parallel_for(std::size_t n, int threads, const Task& task) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex lock;
  auto work = [&] {
    for (std::size_t i; (i = next++) < n;) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> hold(lock);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < std::min(n, std::size_t(threads)); ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // fewer threads: the tasks still all run
    }
  }
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// Cut point i of n over [begin, end).
std::uint64_t cut(std::uint64_t begin, std::uint64_t end, std::uint64_t i, std::uint64_t n) {
  return begin + (end - begin) * i / n;
}

// Fewer restart intervals than threads (one without restarts): each interval is cut into
// pieces coded on their own and joined at bit offsets.
std::vector<std::uint8_t> encode_pieces(const ScanJob& s, int threads) {
  const std::uint64_t intervals = (s.mcus + s.interval - 1) / s.interval;
  std::vector<Piece> pieces;
  for (std::uint64_t k = 0; k < intervals; ++k) {
    const std::uint64_t begin = k * s.interval, end = std::min(s.mcus, begin + s.interval);
    const std::uint64_t share = (std::uint64_t(threads) * (end - begin) + s.mcus - 1) / s.mcus;
    const std::uint64_t n =
        std::max<std::uint64_t>(1, std::min(share, (end - begin) / kMinPieceMcus));
    for (std::uint64_t i = 0; i < n; ++i) {
      Piece p;
      p.begin = cut(begin, end, i, n);
      p.end = cut(begin, end, i + 1, n);
      p.interval = k;
      pieces.push_back(std::move(p));
    }
  }
  parallel_for(pieces.size(), threads, [&](std::size_t i) { encode_piece(s, pieces[i]); });
  std::vector<std::uint8_t> next(pieces.size(), 0xFF);  // 1s after an interval's last piece
  for (std::size_t i = 1; i < pieces.size(); ++i)
    if (pieces[i].interval == pieces[i - 1].interval) {
      pieces[i].offset = pieces[i - 1].offset + pieces[i - 1].count;
      next[i - 1] = pieces[i].bits.data()[0];
    }
  parallel_for(pieces.size(), threads, [&](std::size_t i) { join_piece(pieces[i], next[i]); });
  std::size_t size = 2 * std::size_t(intervals);
  for (const Piece& p : pieces) size += p.bytes.size();
  std::vector<std::uint8_t> out;
  out.reserve(size);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0 && pieces[i].interval != pieces[i - 1].interval)
      out.insert(out.end(), {0xFF, std::uint8_t(0xD0 + ((pieces[i].interval - 1) & 7))});
    out.insert(out.end(), pieces[i].bytes.begin(), pieces[i].bytes.end());
  }
  return out;
}

}  // namespace

// jchuff.c jpeg_gen_optimal_table (T.81 K.2): Huffman's algorithm over the 256 symbols and a
// reserved one (256, count 1, so no real code is all 1s), each time merging the two smallest
// non-zero counts, the larger symbol on ties; lengths past 16 folded as K.2 Figure K.3 does;
// the reserved code taken from the longest length; symbols listed by their unfolded length,
// then by value, as libjpeg lists them.
HuffmanTable optimal_huffman_table(const std::uint32_t* counts256) {
  constexpr int kMaxLength = 32;  // libjpeg's MAX_CLEN
  HuffmanTable table;
  if (std::all_of(counts256, counts256 + 256, [](std::uint32_t n) { return n == 0; }))
    return table;  // a table no block uses: libjpeg never builds one
  std::int64_t freq[257];
  std::copy(counts256, counts256 + 256, freq);
  freq[256] = 1;
  int size[257] = {}, others[257];
  std::fill(others, others + 257, -1);
  for (;;) {
    // libjpeg's search starts from 10^9: a count above it is never picked.
    int c1 = -1, c2 = -1;
    std::int64_t v = 1000000000;
    for (int i = 0; i <= 256; ++i)
      if (freq[i] && freq[i] <= v) v = freq[c1 = i];
    v = 1000000000;
    for (int i = 0; i <= 256; ++i)
      if (freq[i] && freq[i] <= v && i != c1) v = freq[c2 = i];
    if (c2 < 0) break;
    freq[c1] += freq[c2];
    freq[c2] = 0;
    for (++size[c1]; others[c1] >= 0; ++size[c1]) c1 = others[c1];
    others[c1] = c2;
    for (++size[c2]; others[c2] >= 0; ++size[c2]) c2 = others[c2];
  }
  int bits[kMaxLength + 1] = {};
  for (int i = 0; i <= 256; ++i) {
    if (size[i] > kMaxLength)
      throw Error(ErrorCode::LimitExceeded, "jpeg encode: optimal Huffman code of " +
                                                std::to_string(size[i]) +
                                                " bits (jchuff.c's limit is 32)");
    if (size[i]) ++bits[size[i]];
  }
  int i = kMaxLength;
  for (; i > 16; --i)
    while (bits[i] > 0) {
      int j = i - 2;  // the next shorter length in use becomes a prefix of two codes
      while (bits[j] == 0) --j;
      bits[i] -= 2;
      ++bits[i - 1];
      bits[j + 1] += 2;
      --bits[j];
    }
  while (bits[i] == 0) --i;
  --bits[i];
  table.defined = true;
  for (int l = 1; l <= 16; ++l) table.counts[std::size_t(l)] = std::uint8_t(bits[l]);
  for (int l = 1; l <= kMaxLength; ++l)
    for (int s = 0; s < 256; ++s)
      if (size[s] == l) table.symbols.push_back(std::uint8_t(s));
  return table;
}

EncodeTables optimal_encode_tables(const std::uint32_t* counts) {
  EncodeTables t;
  for (std::ptrdiff_t s = 0; s < 2; ++s) {
    t.dc[s] = optimal_huffman_table(counts + 512 * s);
    t.ac[s] = optimal_huffman_table(counts + 512 * s + 256);
  }
  return t;
}

std::vector<std::uint32_t> count_symbols(const EncodePlan& plan, const std::int16_t* blocks) {
  const ScanJob s = scan_of(plan, nullptr, blocks);
  std::vector<std::uint32_t> counts(std::size_t(4 * 256), 0);
  int pred[3] = {0, 0, 0};
  bool ok = true;
  const std::int16_t* b = blocks;
  for (std::uint64_t m = 0; m < s.mcus; ++m) {
    if (m % s.interval == 0) pred[0] = pred[1] = pred[2] = 0;
    for (int j = 0; j < s.layout.blocks; ++j, b += 64) {
      // jchuff.c htest_one_block.
      const int c = s.layout.comp_of[j];
      std::uint32_t* dc = counts.data() + (c == 0 ? 0 : 512);
      std::uint32_t* ac = dc + 256;
      const int diff = b[0] - pred[c];
      pred[c] = b[0];
      const int n = nbits(unsigned(diff < 0 ? -diff : diff));
      ok &= n <= 11;
      ++dc[n];
      std::uint64_t mask = ac_mask(b);
      int last = 0;
      while (mask) {
        const int k = __builtin_ctzll(mask);
        mask &= mask - 1;
        int run = k - last - 1;
        last = k;
        for (; run > 15; run -= 16) ++ac[0xF0];
        const int size = nbits(unsigned(b[k] < 0 ? -b[k] : b[k]));
        ok &= size <= 10;
        ++ac[(run << 4 | size) & 0xFF];
      }
      if (last != 63) ++ac[0];
    }
  }
  if (!ok) bad("a block has a coefficient out of baseline range (jchuff.c JERR_BAD_DCT_COEF)");
  return counts;
}

int scan_threads(const EncodePlan& plan, int threads) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  return int(std::min<std::uint64_t>(std::uint64_t(threads), plan.mcus() / kAutoMcusPerThread + 1));
}

std::vector<std::uint8_t> encode_scan(const EncodePlan& plan, const EncodeTables& tables,
                                      const std::int16_t* blocks) {
  const ScanJob s = scan_of(plan, &tables, blocks);
  return encode_intervals(s, 0, s.mcus);
}

std::vector<std::uint8_t> encode_scan(const EncodePlan& plan, const EncodeTables& tables,
                                      const std::int16_t* blocks, int threads) {
  const ScanJob s = scan_of(plan, &tables, blocks);
  if (threads <= 0) threads = scan_threads(plan, 0);
  const std::uint64_t intervals = (s.mcus + s.interval - 1) / s.interval;
  if (threads <= 1 || s.mcus < 2 * kMinPieceMcus) return encode_intervals(s, 0, s.mcus);
  if (intervals < std::uint64_t(threads)) return encode_pieces(s, threads);
  // Whole intervals per task: each starts on a byte with its predictions reset.
  const std::uint64_t n = std::uint64_t(threads);
  std::vector<std::vector<std::uint8_t>> parts(n);
  parallel_for(parts.size(), threads, [&](std::size_t i) {
    parts[i] = encode_intervals(s, std::min(s.mcus, cut(0, intervals, i, n) * s.interval),
                                std::min(s.mcus, cut(0, intervals, i + 1, n) * s.interval));
  });
  std::size_t size = 0;
  for (const auto& p : parts) size += p.size();
  std::vector<std::uint8_t> out;
  out.reserve(size);
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace hetcodec::jpeg
