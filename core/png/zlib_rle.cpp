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
// - Trees: zlib's Huffman trees, their choice and their description are the device deflate's
//   own (core/portable/png_deflate_trees.h, run here on one lane): its heap (frequency, then depth,
//   as the tie-break), its bit-length overflow repair, canonical codes, the code-length code
//   and the run-length encoding of code lengths as zlib's scan_tree()/send_tree() do it.
#include "core/png/zlib_rle.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "core/png/checksum.h"
#include "core/portable/png_deflate_trees.h"

namespace hetcodec::png {
namespace {

constexpr int kMinMatch = 3, kMaxMatch = 258;
constexpr int kMinLookahead = kMaxMatch + kMinMatch + 1;
constexpr std::size_t kSymLimit = HC_DFL_SYM_LIMIT;  // symbols per block (lit_bufsize - 1)

// A symbol as the device deflate writes it (png_deflate.h, HC_DFL_EMIT): a literal byte, or
// kMatch + length - 3 for a match at distance 1.
using Symbol = std::uint16_t;
constexpr Symbol kMatch = 256;
constexpr std::size_t symbol_bytes(Symbol s) {
  return s < kMatch ? 1 : std::size_t(s - kMatch) + 3;
}

// The length code (0..28) of every match (symbol - kMatch), png_deflate.h's as a table.
struct LengthCodes {
  std::uint8_t code[256];
  LengthCodes() {
    for (hc_u32 m = 0; m < 256; ++m) code[m] = std::uint8_t(hc_dfl_length_code(m));
  }
};
const LengthCodes kLength;

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(std::uint8_t(v >> s));
}

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

class Deflater {
 public:
  explicit Deflater(std::vector<std::uint8_t>& out)
      : bits_{out}, z_(std::make_unique<hc_dfl_state>()) {
    init_block();
  }

  void tally(Symbol s) {
    syms_.push_back(s);
    ++hist_[s];
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
    hc_u32 type = 2;           // otherwise: 1 the fixed codes, 2 the dynamic trees
  };
  Plan plan(std::size_t stored_len) {
    hc_dfl_state& z = *z_;
    hc_dfl_state_init(&z);
    // The trees' frequencies from the symbols' histogram, as the device's HC_DFL_BLOCK takes
    // them; the end-of-block code once.
    std::fill(std::begin(z.l_freq), std::end(z.l_freq), 0u);
    std::fill(std::begin(z.d_freq), std::end(z.d_freq), 0u);
    std::fill(std::begin(z.bl_freq), std::end(z.bl_freq), 0u);
    for (int v = 0; v < kMatch; ++v) z.l_freq[v] = hist_[std::size_t(v)];
    z.l_freq[256] = 1;
    for (int m = 0; m < 256; ++m) {
      z.l_freq[257 + kLength.code[m]] += hist_[std::size_t(kMatch + m)];
      z.d_freq[0] += hist_[std::size_t(kMatch + m)];
    }
    z.opt_len = z.static_len = 0;
    hc_dfl_build_trees(&z, 0, 1);
    Plan p;
    p.stored_fits = hc_dfl_stored_fits(&z, stored_len);
    p.type = hc_dfl_coded_type(&z);
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
    bits_.put((p.type << 1) + (last ? 1 : 0), 3);
    if (p.type == 2) send_trees();
    compress(p.type);
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
    hist_.fill(0);
    syms_.clear();
  }

  // The tree description, made into words by png_deflate_trees.h and sent from them.
  void send_trees() {
    hc_u32 words[HC_DFL_HDR_WORDS];
    hc_dfl_hw w;
    w.out = words;
    w.acc = 0;
    w.n = 0;
    w.words = 0;
    hc_dfl_tree_header(z_.get(), &w);
    for (hc_u32 i = 0; i < w.words; ++i) bits_.put(words[i], 32);
    if (w.n) bits_.put(std::uint32_t(w.acc), int(w.n));
  }

  // The block's symbols and end-of-block code, each symbol's bits from a table made once.
  void compress(hc_u32 type) {
    std::array<std::uint32_t, 512> code, len;
    for (hc_u32 v = 0; v < 512; ++v) len[v] = hc_dfl_symbol_code(z_.get(), type, v, &code[v]);
    for (const Symbol s : syms_) bits_.put(code[s], int(len[s]));
    if (type == 1) {
      bits_.put(hc_dfl_fixed_code(256), int(hc_dfl_fixed_len(256)));
    } else {
      bits_.put(z_->l.code[256], z_->l.len[256]);
    }
  }

  BitWriter bits_;
  std::unique_ptr<hc_dfl_state> z_;        // the trees' scratch (about 12 KiB, on the heap)
  std::array<std::uint32_t, 512> hist_{};  // per symbol value
  std::vector<Symbol> syms_;
};

// One deflate_rle() decision at data[g] with `avail` bytes from g on: a match of distance 1
// when g > 0 and the next three bytes repeat the one before, else a literal.
Symbol rle_symbol(const std::uint8_t* data, std::size_t g, std::size_t avail) {
  if (g > 0 && avail >= std::size_t(kMinMatch)) {
    const std::uint8_t prev = data[g - 1];
    if (data[g] == prev && data[g + 1] == prev && data[g + 2] == prev) {
      const std::size_t limit = std::min<std::size_t>(kMaxMatch, avail);
      std::size_t len = 3;
      while (len < limit && data[g + len] == prev) ++len;
      return Symbol(kMatch + (len - kMinMatch));
    }
  }
  return data[g];
}

std::vector<std::uint8_t> compress_sequential(const std::uint8_t* data, std::size_t n,
                                              const std::vector<std::size_t>& pieces,
                                              int window_bits) {
  std::vector<std::uint8_t> out;
  out.reserve(n / 2 + 64);
  zlib_header(out, window_bits);

  const std::size_t wsize = std::size_t(1) << window_bits, window_size = 2 * wsize;
  const std::size_t max_dist = wsize - kMinLookahead;
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
      // (strstart > 0 rather than the global position: the window keeps the byte before)
      const std::size_t g = base + strstart;
      const Symbol s = strstart > 0 ? rle_symbol(data, g, lookahead) : data[g];
      z.tally(s);
      lookahead -= symbol_bytes(s);
      strstart += symbol_bytes(s);
      if (z.symbols() == kSymLimit) flush(false);
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
  put_be32(out, adler32(1, data, n));
  return out;
}

// The symbols of data[a, b), where a and b start runs of equal bytes (or are 0 and n): the
// parse of a run never leaves it, so pieces cut there parse independently.
void parse(const std::uint8_t* data, std::size_t n, std::size_t a, std::size_t b,
           std::vector<Symbol>& out) {
  out.clear();
  out.reserve(b - a);
  for (std::size_t g = a; g < b;) {
    const Symbol s = rle_symbol(data, g, n - g);
    out.push_back(s);
    g += symbol_bytes(s);
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

// The symbols of the whole data, parsed on `threads` threads in pieces cut at run starts;
// `cut` gets the pieces' bounds.
std::vector<Symbol> parse_parallel(const std::uint8_t* data, std::size_t n, int threads,
                                   std::vector<std::size_t>& cut) {
  const std::size_t pieces = std::size_t(threads) * 4;
  cut.assign(pieces + 1, n);
  cut[0] = 0;
  for (std::size_t t = 1; t < pieces; ++t) {
    std::size_t c = std::max(cut[t - 1], n / pieces * t);
    while (c < n && c > 0 && data[c] == data[c - 1]) ++c;
    cut[t] = c;
  }
  std::vector<std::vector<Symbol>> parsed(pieces);
  run_parallel(pieces, threads,
               [&](std::size_t t) { parse(data, n, cut[t], cut[t + 1], parsed[t]); });
  std::vector<Symbol> syms;
  std::size_t total = 0;
  for (const auto& p : parsed) total += p.size();
  syms.reserve(total);
  for (auto& p : parsed) {
    syms.insert(syms.end(), p.begin(), p.end());
    std::vector<Symbol>().swap(p);
  }
  return syms;
}

// One block of the parallel path, coded on its own: its bytes with `tail` bits (0..7) used in
// the last, or a stored block (made when the blocks are joined).
struct CodedBlock {
  std::vector<std::uint8_t> bytes;
  int tail = 0;
  bool stored = false;
};

// Appends a coded block's bits at the writer's bit position.
void append_block(BitWriter& bits, const CodedBlock& c) {
  const std::size_t whole = c.bytes.size() - (c.tail ? 1 : 0);
  std::size_t i = 0;
  if (bits.n == 0) {
    bits.out.insert(bits.out.end(), c.bytes.begin(), c.bytes.begin() + std::ptrdiff_t(whole));
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

// The same stream with the work spread over threads: the parse in pieces cut at run starts,
// then every block (trees, choice, codes) on its own, then the blocks joined at their bit
// offsets. Returns false when a block would be stored but whether its bytes are still in
// zlib's window depends on how the input arrived; the caller then runs the sequential path.
bool compress_parallel(const std::uint8_t* data, std::size_t n, int window_bits, int threads,
                       std::vector<std::uint8_t>& out) {
  const std::size_t wsize = std::size_t(1) << window_bits;
  std::vector<std::size_t> cut;
  const std::vector<Symbol> syms = parse_parallel(data, n, threads, cut);
  const std::size_t total = syms.size();
  // Blocks: full ones of kSymLimit symbols, then the last (possibly empty) one.
  const std::size_t blocks = total / kSymLimit + 1;
  std::vector<std::size_t> bytes(blocks, 0);
  run_parallel(blocks, threads, [&](std::size_t k) {
    const std::size_t a = k * kSymLimit, b = std::min(total, a + kSymLimit);
    for (std::size_t i = a; i < b; ++i) bytes[k] += symbol_bytes(syms[i]);
  });
  std::vector<std::size_t> start(blocks + 1, 0);
  for (std::size_t k = 0; k < blocks; ++k) start[k + 1] = start[k] + bytes[k];
  // Before the window first slides (at 2 * wsize - 262 bytes) every block's bytes are at
  // hand; after, at least the last wsize - 262 bytes before the current position are.
  const bool never_slides = n < 2 * wsize - kMinLookahead;
  std::vector<CodedBlock> coded(blocks);
  std::atomic<bool> unsure{false};
  run_parallel(blocks, threads, [&](std::size_t k) {
    CodedBlock& c = coded[k];
    Deflater z(c.bytes);
    const std::size_t a = k * kSymLimit, b = std::min(total, a + kSymLimit);
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
    if (coded[k].stored) {
      Deflater::emit_stored(bits, data + start[k], bytes[k], k + 1 == blocks);
    } else {
      append_block(bits, coded[k]);
    }
  }
  bits.windup();
  // Adler-32 in the parse's pieces, combined.
  std::vector<std::uint32_t> adler(cut.size() - 1);
  run_parallel(adler.size(), threads,
               [&](std::size_t t) { adler[t] = adler32(1, data + cut[t], cut[t + 1] - cut[t]); });
  std::uint32_t a32 = 1;
  for (std::size_t t = 0; t < adler.size(); ++t)
    a32 = adler32_combine(a32, adler[t], cut[t + 1] - cut[t]);
  put_be32(out, a32);
  return true;
}

// One segment of the parallel mode: data[0, n) parsed as if it began the stream, coded in
// blocks of kSymLimit symbols, then the final block (last segment) or a sync flush.
std::vector<std::uint8_t> deflate_segment(const std::uint8_t* data, std::size_t n, bool last) {
  std::vector<Symbol> syms;
  parse(data, n, 0, n, syms);
  std::vector<std::uint8_t> out;
  out.reserve(n / 2 + 16);
  Deflater z(out);
  std::size_t pos = 0, block_start = 0;
  for (const Symbol s : syms) {
    z.tally(s);
    pos += symbol_bytes(s);
    if (z.symbols() == kSymLimit) {
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
                                            const std::vector<std::size_t>& pieces, int window_bits,
                                            int threads) {
  if (window_bits == 8) window_bits = 9;
  std::vector<std::uint8_t> out;
  if (threads > 1 && n >= (std::size_t(1) << 18) &&
      compress_parallel(data, n, window_bits, threads, out))
    return out;
  return compress_sequential(data, n, pieces, window_bits);
}

SegmentedStream zlib_rle_segments(const std::uint8_t* data, std::size_t n,
                                  const std::vector<std::size_t>& starts, int threads) {
  const std::size_t count = starts.size();
  std::vector<std::vector<std::uint8_t>> parts(count);
  std::vector<std::uint32_t> adler(count);
  run_parallel(count, std::max(1, threads), [&](std::size_t k) {
    const std::size_t a = starts[k], b = k + 1 < count ? starts[k + 1] : n;
    parts[k] = deflate_segment(data + a, b - a, k + 1 == count);
    adler[k] = adler32(1, data + a, b - a);
  });
  std::vector<std::uint8_t> header;
  zlib_header(header, 15);
  return join_segments(header, parts, adler, starts, n);
}

SegmentedStream join_segments(const std::vector<std::uint8_t>& header,
                              const std::vector<std::vector<std::uint8_t>>& parts,
                              const std::vector<std::uint32_t>& adler,
                              const std::vector<std::size_t>& starts, std::size_t n) {
  SegmentedStream r;
  std::size_t total = header.size() + 4;
  for (const auto& p : parts) total += p.size();
  r.stream.reserve(total);
  r.stream = header;
  std::uint32_t a32 = 1;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    r.offsets.push_back(r.stream.size());
    r.stream.insert(r.stream.end(), parts[k].begin(), parts[k].end());
    const std::size_t b = k + 1 < starts.size() ? starts[k + 1] : n;
    a32 = adler32_combine(a32, adler[k], b - starts[k]);
  }
  put_be32(r.stream, a32);
  return r;
}

}  // namespace hetcodec::png
