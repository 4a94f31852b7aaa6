// Inflate of an unindexed zlib stream in pieces on several threads (see split_inflate.h). The
// block-header rules are RFC 1951 §3.2.7 with zlib's inflate checks on top (field ranges,
// over-subscribed and incomplete codes, the end-of-block code); the pieces are handed to
// libdeflate (zlib where it is not installed) as complete raw deflate streams of their own.
#include "core/png/split_inflate.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/png/checksum.h"

#if defined(HETCODEC_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

namespace hetcodec::png {
namespace {

constexpr std::size_t kWindow = 32768;        // deflate's history
constexpr std::size_t kMinPiece = 64u << 10;  // compressed bytes in a piece, at least
constexpr int kMaxPieces = 64;
constexpr std::size_t kKeepBuffer = 64u << 20;  // larger scratch is given back after a call
// The later pieces' two decodes take about twice the image in scratch: past this, one thread.
constexpr std::size_t kMaxOutput = std::size_t(512) << 20;

// The bits of `d` from bit `pos` on (the low bits first; at least 57 of them), zeros past the end.
inline std::uint64_t peek(const std::uint8_t* d, std::size_t n, std::uint64_t pos) {
  const std::size_t at = std::size_t(pos >> 3);
  std::uint64_t v = 0;
  if (at + 8 <= n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    std::memcpy(&v, d + at, 8);
#else
    for (int i = 7; i >= 0; --i) v = v << 8 | d[at + std::size_t(i)];
#endif
  } else {
    for (std::size_t i = 0; at + i < n && i < 8; ++i) v |= std::uint64_t(d[at + i]) << (8 * i);
  }
  return v >> (pos & 7);
}

enum class CodeKind { kCodeLengths, kLengths, kDistances };

// zlib's inflate_table() acceptance of a set of code lengths: never over-subscribed; the
// code-length code must be complete, the others may be incomplete only as a single code of
// length 1; a distance code may be empty.
bool code_ok(const std::uint8_t* len, unsigned n, CodeKind kind) {
  int count[16] = {};
  for (unsigned i = 0; i < n; ++i) ++count[len[i]];
  int max = 15;
  while (max >= 1 && count[max] == 0) --max;
  if (max == 0) return kind == CodeKind::kDistances;
  int left = 1;
  for (int l = 1; l <= 15; ++l) {
    left = (left << 1) - count[l];
    if (left < 0) return false;
  }
  return left == 0 || (kind != CodeKind::kCodeLengths && max == 1);
}

// Whether a non-final dynamic block header that zlib would accept starts at bit `pos`.
bool header_ok(const std::uint8_t* d, std::size_t n, std::uint64_t pos) {
  static const std::uint8_t kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                          11, 4,  12, 3, 13, 2, 14, 1, 15};
  const std::uint64_t end = std::uint64_t(n) * 8;
  auto take = [&](unsigned bits) {
    const unsigned v = unsigned(peek(d, n, pos) & ((1u << bits) - 1));
    pos += bits;
    return v;
  };
  if (take(3) != 4) return false;  // BFINAL 0, BTYPE 2 (dynamic)
  const unsigned nlen = take(5) + 257, ndist = take(5) + 1, ncode = take(4) + 4;
  if (nlen > 286 || ndist > 30) return false;
  std::uint8_t cl[19] = {};
  for (unsigned i = 0; i < ncode; ++i) cl[kOrder[i]] = std::uint8_t(take(3));
  if (pos > end || !code_ok(cl, 19, CodeKind::kCodeLengths)) return false;

  // The code-length code as a 7-bit table (complete, so every entry is filled): symbol, length.
  std::uint8_t sym_of[128], len_of[128];
  int count[8] = {}, next[8] = {};
  for (int s = 0; s < 19; ++s) ++count[cl[s]];
  count[0] = 0;
  for (int l = 1, code = 0; l < 8; ++l) next[l] = code = (code + count[l - 1]) << 1;
  for (int s = 0; s < 19; ++s) {
    const int l = cl[s];
    if (!l) continue;
    unsigned code = unsigned(next[l]++), rev = 0;
    for (int b = 0; b < l; ++b) rev |= ((code >> b) & 1u) << (l - 1 - b);
    for (unsigned k = rev; k < 128; k += 1u << l) {
      sym_of[k] = std::uint8_t(s);
      len_of[k] = std::uint8_t(l);
    }
  }
  std::uint8_t lens[286 + 30];
  std::uint32_t space[2] = {0, 0};  // Kraft sums (in 2^-15) of the two codes so far
  for (unsigned i = 0; i < nlen + ndist;) {
    if (pos > end) return false;
    const unsigned k = unsigned(peek(d, n, pos) & 127);
    pos += len_of[k];
    const unsigned sym = sym_of[k];
    if (sym < 16) {
      // Random data mostly fails here: over-subscribed long before the end.
      if (sym && (space[i >= nlen] += 32768u >> sym) > 32768u) return false;
      lens[i++] = std::uint8_t(sym);
      continue;
    }
    std::uint8_t v = 0;
    unsigned rep;
    if (sym == 16) {
      if (i == 0) return false;
      v = lens[i - 1];
      rep = 3 + take(2);
    } else {
      rep = sym == 17 ? 3 + take(3) : 11 + take(7);
    }
    if (i + rep > nlen + ndist) return false;
    std::memset(lens + i, v, rep);
    for (unsigned r = 0; v && r < rep; ++r)
      if ((space[i + r >= nlen] += 32768u >> v) > 32768u) return false;
    i += rep;
  }
  return pos <= end && lens[256] != 0 && code_ok(lens, nlen, CodeKind::kLengths) &&
         code_ok(lens + nlen, ndist, CodeKind::kDistances);
}

// Raw deflate `in` into at most `cap` bytes; true when it ended a stream (a final block).
bool raw_inflate(const std::uint8_t* in, std::size_t n, std::uint8_t* out, std::size_t cap,
                 std::size_t* made, std::size_t* used) {
#if defined(HETCODEC_HAVE_LIBDEFLATE)
  thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  return d && libdeflate_deflate_decompress_ex(d.get(), in, n, out, cap, used, made) ==
                  LIBDEFLATE_SUCCESS;
#else
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return false;
  z.next_in = const_cast<Bytef*>(in);
  z.avail_in = uInt(n);
  z.next_out = out;
  z.avail_out = uInt(std::min<std::size_t>(cap, 0xFFFFFFFFu));
  const int rc = inflate(&z, Z_FINISH);
  *made = z.total_out;
  *used = n - z.avail_in;
  inflateEnd(&z);
  return rc == Z_STREAM_END;
#endif
}

// Appends to `v`, from its end (byte-aligned), bits [b0, b1) of `d`, then, when `close`, an empty
// final block (bit 1 final, bits 1 0 fixed Huffman, the 7-bit end-of-block code 0000000), so
// that a decoder stops exactly there.
void append_bits(std::vector<std::uint8_t>& v, const std::uint8_t* d, std::size_t n,
                 std::uint64_t b0, std::uint64_t b1, bool close) {
  const std::uint64_t nbits = b1 - b0;
  const std::size_t bytes = std::size_t((nbits + 7) / 8), at = v.size();
  v.resize(at + bytes + 2);
  std::uint8_t* o = v.data() + at;
  const std::uint8_t* s = d + (b0 >> 3);
  const std::size_t avail = n - std::size_t(b0 >> 3);
  const unsigned sh = unsigned(b0 & 7);
  if (sh == 0) {
    std::memcpy(o, s, std::min(bytes, avail));
  } else {
    std::size_t i = 0;
    for (; i + 9 <= avail && i + 8 <= bytes; i += 8) {
      const std::uint64_t w = peek(s + i, 9, sh);  // bits sh..sh+63: nine bytes cover them
      const std::uint64_t full = w | std::uint64_t(s[i + 8]) << (64 - sh);
      for (int b = 0; b < 8; ++b) o[i + std::size_t(b)] = std::uint8_t(full >> (8 * b));
    }
    for (; i < bytes; ++i)
      o[i] =
          std::uint8_t((i < avail ? s[i] >> sh : 0) | (i + 1 < avail ? s[i + 1] << (8 - sh) : 0));
  }
  const unsigned r = unsigned(nbits & 7);
  if (r) o[bytes - 1] &= std::uint8_t((1u << r) - 1);
  o[bytes] = o[bytes + 1] = 0;
  if (!close) {
    v.resize(at + bytes);
    return;
  }
  const std::size_t byte = std::size_t(nbits >> 3);
  o[byte] |= std::uint8_t(3u << r);
  o[byte + 1] |= std::uint8_t((3u << r) >> 8);
  v.resize(at + std::size_t((nbits + 10 + 7) / 8));
}

// out[i] for the bytes of a piece inflated against windows A and B: equal bytes came from the
// piece's own literals; different ones name the window position they were copied from.
void resolve(const std::uint8_t* a, const std::uint8_t* b, std::size_t n, std::uint8_t* out,
             const std::uint8_t* window) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x == y) {
      std::memcpy(out + i, &x, 8);
      continue;
    }
    for (std::size_t j = i; j < i + 8; ++j) {
      const std::uint8_t w = window[a[j] | std::size_t(b[j] >> 1) << 8];  // in range either way
      out[j] = a[j] == b[j] ? a[j] : w;
    }
  }
  for (; i < n; ++i) out[i] = a[i] == b[i] ? a[i] : window[a[i] | std::size_t(b[i] >> 1) << 8];
}

// Window A holds the low byte of each position, window B its high 7 bits above a low bit that
// is the inverse of A's, so that the two differ at every position.
void append_window(std::vector<std::uint8_t>& v, bool b) {
  // A stored block: BFINAL 0 and BTYPE 00 padded to a byte, LEN 32768, NLEN.
  static const std::uint8_t kHeader[5] = {0x00, 0x00, 0x80, 0xFF, 0x7F};
  const std::size_t at = v.size() + 5;
  v.resize(at + kWindow);
  std::memcpy(v.data() + at - 5, kHeader, 5);
  for (std::size_t q = 0; q < kWindow; ++q)
    v[at + q] = b ? std::uint8_t(((q >> 8) & 0x7F) << 1 | (~q & 1)) : std::uint8_t(q);
}

// Scratch kept by the calling thread between calls (its pages stay mapped, which matters more
// than the copy: fresh pages cost a fault each).
struct Scratch {
  std::vector<std::vector<std::uint8_t>> in;
  std::vector<std::unique_ptr<std::uint8_t[]>> out;
  std::vector<std::size_t> cap;
  void reserve(std::size_t tasks) {
    if (in.size() < tasks) in.resize(tasks);
    if (out.size() < tasks) out.resize(tasks), cap.resize(tasks, 0);
  }
  std::uint8_t* buffer(std::size_t t, std::size_t bytes) {
    if (cap[t] < bytes) {
      out[t].reset(new std::uint8_t[bytes]);
      cap[t] = bytes;
    }
    return out[t].get();
  }
  void trim() {
    for (std::size_t t = 0; t < out.size(); ++t) {
      if (cap[t] > kKeepBuffer) out[t].reset(), cap[t] = 0;
      if (in[t].capacity() > kKeepBuffer) std::vector<std::uint8_t>().swap(in[t]);
    }
  }
};

// 1. Block starts: the first after each of `ranges` evenly spaced points, searched up to the
// next point, all at once (blocks of photos run to tens of KiB, so a search can take a good
// part of a millisecond). The cuts ({0, then bit positions}) are the finds nearest each
// k/want of the data.
std::vector<std::uint64_t> choose_cuts(const std::uint8_t* d, std::size_t n, int want, int threads,
                                       const ParallelRun& run) {
  const std::uint64_t bits = std::uint64_t(n) * 8;
  const int ranges = std::max(want, std::min(threads, 2 * want));
  std::vector<std::int64_t> finds(std::size_t(ranges), -1);
  run_tasks(ranges - 1, threads, run, [&](int i) {
    const std::uint64_t r = std::uint64_t(i) + 1;
    finds[r] = find_dynamic_block(d, n, bits * r / std::uint64_t(ranges),
                                  bits * (r + 1) / std::uint64_t(ranges));
  });
  std::vector<std::uint64_t> cut{0};
  for (int k = 1; k < want; ++k) {
    const std::uint64_t ideal = bits * std::uint64_t(k) / std::uint64_t(want);
    const std::uint64_t next = bits * std::uint64_t(k + 1) / std::uint64_t(want);
    auto off = [&](std::int64_t f) {
      return std::uint64_t(f) > ideal ? std::uint64_t(f) - ideal : ideal - std::uint64_t(f);
    };
    std::int64_t best = -1;
    for (const std::int64_t f : finds)
      if (f > std::int64_t(cut.back()) && (best < 0 || off(f) < off(best))) best = f;
    // (one nearer the next point is left to it)
    if (best >= 0 &&
        (k + 1 == want || (std::uint64_t(best) < next && off(best) < next - std::uint64_t(best))))
      cut.push_back(std::uint64_t(best));
  }
  return cut;
}

// 2. Piece 0 straight into `out`; every later piece twice, against windows A and B. Returns
// where each piece's bytes go (pieces + 1 offsets), or nothing when a piece does not end
// exactly where the next begins or the sizes do not add up to `total`.
std::vector<std::size_t> inflate_pieces(const std::uint8_t* d, std::size_t n,
                                        const std::vector<std::uint64_t>& cut, std::uint8_t* out,
                                        std::size_t total, int threads, const ParallelRun& run,
                                        Scratch& scratch) {
  const std::size_t pieces = cut.size() - 1;
  const std::size_t tasks = 2 * pieces - 1;
  scratch.reserve(tasks);
  std::vector<std::size_t> made(tasks, 0);
  std::vector<char> good(tasks, 0);
  run_tasks(int(tasks), threads, run, [&](int t) {
    const std::size_t k = (std::size_t(t) + 1) / 2;
    const bool last = k + 1 == pieces;
    auto& in = scratch.in[std::size_t(t)];
    in.clear();
    if (t > 0) append_window(in, t % 2 == 0);
    append_bits(in, d, n, cut[k], cut[k + 1], !last);
    std::uint8_t* dst = t == 0 ? out : scratch.buffer(std::size_t(t), kWindow + total);
    const std::size_t cap = t == 0 ? total : kWindow + total;
    std::size_t used = 0;
    const bool ended = raw_inflate(in.data(), in.size(), dst, cap, &made[std::size_t(t)], &used);
    // A piece must end exactly where the next begins (the appended block is its last bits); the
    // last one may leave the final byte's padding.
    good[std::size_t(t)] = ended && (last ? used + 1 >= in.size() : used == in.size());
  });
  std::vector<std::size_t> start(pieces + 1, 0);
  bool ok = good[0] != 0;
  start[1] = made[0];
  for (std::size_t k = 1; ok && k < pieces; ++k) {
    const std::size_t a = 2 * k - 1, b = 2 * k;
    ok = good[a] && good[b] && made[a] == made[b] && made[a] >= kWindow && start[k] >= kWindow &&
         made[a] - kWindow <= total - start[k];
    if (ok) start[k + 1] = start[k] + (made[a] - kWindow);
  }
  if (!ok || start[pieces] != total) return {};
  return start;
}

// 3. and 4.: the later pieces' bytes resolved into `out` (the last 32 KiB of each piece in
// order first: the next piece's window, then the rest at once in spans of about an equal share
// per thread); returns the Adler-32 of `out`, from every span's joined in order.
std::uint32_t join_pieces(const std::vector<std::size_t>& start, std::uint8_t* out,
                          std::size_t total, int threads, const ParallelRun& run,
                          Scratch& scratch) {
  const std::size_t pieces = start.size() - 1;
  auto span = [&](std::size_t k, std::size_t from, std::size_t to) {
    const std::uint8_t* a = scratch.out[2 * k - 1].get() + kWindow + (from - start[k]);
    const std::uint8_t* b = scratch.out[2 * k].get() + kWindow + (from - start[k]);
    resolve(a, b, to - from, out + from, out + start[k] - kWindow);
  };
  std::vector<std::size_t> head_end(pieces, 0);
  for (std::size_t k = 1; k < pieces; ++k) {
    head_end[k] = std::max(start[k], start[k + 1] - std::min(start[k + 1], kWindow));
    span(k, head_end[k], start[k + 1]);
  }
  struct Span {
    std::size_t piece, from, to;
    bool resolve;
  };
  std::vector<Span> spans;
  const std::size_t share = std::max<std::size_t>(64u << 10, total / std::size_t(2 * threads) + 1);
  for (std::size_t k = 0; k < pieces; ++k) {
    const std::size_t cuts[3] = {start[k], k ? head_end[k] : start[k + 1], start[k + 1]};
    for (int h = 0; h < 2; ++h)
      for (std::size_t f = cuts[h]; f < cuts[h + 1]; f += share)
        spans.push_back({k, f, std::min(cuts[h + 1], f + share), k > 0 && h == 0});
  }
  std::vector<std::uint32_t> adler(spans.size(), 1);
  run_tasks(int(spans.size()), threads, run, [&](int i) {
    const Span& sp = spans[std::size_t(i)];
    if (sp.resolve) span(sp.piece, sp.from, sp.to);
    adler[std::size_t(i)] = adler32(1, out + sp.from, sp.to - sp.from);
  });
  std::uint32_t sum = 1;
  for (std::size_t i = 0; i < spans.size(); ++i)
    sum = adler32_combine(sum, adler[i], spans[i].to - spans[i].from);
  return sum;
}

std::uint32_t be32_at(const std::uint8_t* t) {
  return std::uint32_t(t[0]) << 24 | std::uint32_t(t[1]) << 16 | std::uint32_t(t[2]) << 8 | t[3];
}

}  // namespace

void run_tasks(int tasks, int threads, const ParallelRun& run,
               const std::function<void(int)>& task) {
  std::atomic<int> next{0};
  auto work = [&](int) {
    for (int i; (i = next++) < tasks;) task(i);
  };
  const int t = std::max(1, std::min(threads, tasks));
  if (t == 1) {
    work(0);
  } else if (run) {
    run(t, work);
  } else {
    std::vector<std::thread> pool;
    for (int i = 1; i < t; ++i) pool.emplace_back(work, i);
    work(0);
    for (auto& th : pool) th.join();
  }
}

std::int64_t find_dynamic_block(const std::uint8_t* data, std::size_t bytes, std::uint64_t from_bit,
                                std::uint64_t to_bit) {
  static const auto kKraft4 = [] {  // 2^(7-l) summed over four lengths l > 0
    std::array<std::uint16_t, 4096> t{};
    for (unsigned i = 0; i < 4096; ++i)
      for (unsigned k = 0; k < 4; ++k) {
        const unsigned l = (i >> (3 * k)) & 7;
        if (l) t[i] = std::uint16_t(t[i] + (128u >> l));
      }
    return t;
  }();
  to_bit = std::min<std::uint64_t>(to_bit, std::uint64_t(bytes) * 8);
  // 48 positions at a time: those where the bits read 0, 0, 1 (BFINAL 0, BTYPE 2) are about
  // one in eight; HLIT and HDIST at most 29 and a complete code-length code leave about one in
  // a thousand for the whole header check.
  for (std::uint64_t q = from_bit; q < to_bit; q += 48) {
    const std::uint64_t w = peek(data, bytes, q);
    std::uint64_t m = ~w & ~(w >> 1) & (w >> 2) & ((std::uint64_t(1) << 48) - 1);
    if (to_bit - q < 48) m &= (std::uint64_t(1) << (to_bit - q)) - 1;
    while (m) {
      const std::uint64_t p = q + std::uint64_t(__builtin_ctzll(m));
      m &= m - 1;
      const std::uint64_t v = peek(data, bytes, p);
      if (((v >> 3) & 31) > 29 || ((v >> 8) & 31) > 29) continue;
      // The code-length code's Kraft sum, four 3-bit lengths per table lookup.
      const unsigned ncode = unsigned((v >> 13) & 15) + 4;
      const std::uint64_t c = peek(data, bytes, p + 17) & ((std::uint64_t(1) << (3 * ncode)) - 1);
      const unsigned kraft = kKraft4[c & 0xFFF] + kKraft4[(c >> 12) & 0xFFF] +
                             kKraft4[(c >> 24) & 0xFFF] + kKraft4[(c >> 36) & 0xFFF] +
                             kKraft4[c >> 48];
      if (kraft == 128 && header_ok(data, bytes, p)) return std::int64_t(p);
    }
  }
  return -1;
}

int split_parts(std::size_t zlib_bytes, int threads) {
  // Every piece but the first is inflated twice, at once: n pieces take 2n - 1 threads.
  if (threads < 3) return 1;
  const std::size_t by_size = std::min<std::size_t>(zlib_bytes / kMinPiece, kMaxPieces);
  return int(
      std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads + 1) / 2, by_size)));
}

int split_inflate(const std::uint8_t* zlib, std::size_t zlib_bytes, std::uint8_t* out,
                  std::size_t total, int threads, const ParallelRun& run) {
  const int want = split_parts(zlib_bytes, threads);
  if (want < 2 || zlib_bytes < 8 || total < 2 * kWindow || total > kMaxOutput) return 0;
  // A zlib header with deflate, a window of at most 32 KiB, its check bits, no dictionary.
  if ((zlib[0] & 0x0F) != 8 || (zlib[0] >> 4) > 7 || (zlib[0] << 8 | zlib[1]) % 31 != 0 ||
      (zlib[1] & 0x20))
    return 0;
  const std::uint8_t* d = zlib + 2;
  const std::size_t n = zlib_bytes - 6;  // the raw deflate data, less the Adler-32
  std::vector<std::uint64_t> cut = choose_cuts(d, n, want, threads, run);
  const std::size_t pieces = cut.size();
  if (pieces < 2) return 0;
  cut.push_back(std::uint64_t(n) * 8);
  thread_local Scratch kept;
  Scratch& scratch = kept;  // the caller's: the helpers' lambdas run on other threads too
  const std::vector<std::size_t> start =
      inflate_pieces(d, n, cut, out, total, threads, run, scratch);
  if (start.empty()) {
    scratch.trim();
    return 0;
  }
  const std::uint32_t sum = join_pieces(start, out, total, threads, run, scratch);
  scratch.trim();
  return sum == be32_at(zlib + zlib_bytes - 4) ? int(pieces) : 0;
}

}  // namespace hetcodec::png
