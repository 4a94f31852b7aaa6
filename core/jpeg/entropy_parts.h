// What the parts of the JPEG entropy decoder (entropy.h) share: the bit reader over an
// entropy-coded segment, the decoding of one block's symbols (ITU-T T.81 F.2.2) with the
// lookahead tables, and the packing of a block into tokens. Internal to core/jpeg: included by
// entropy_interval.cpp (restart intervals in order) and entropy_split.cpp (one scan in pieces).
//
// Everything here has internal linkage on purpose: each including file gets its own copy, as
// when they were one file, so the hot loops reach kNatural directly rather than through a
// shared library's global offset table.
#ifndef HETCODEC_CORE_JPEG_ENTROPY_PARTS_H
#define HETCODEC_CORE_JPEG_ENTROPY_PARTS_H

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/jpeg/entropy.h"
#include "core/portable/jpeg_zigzag.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the token stream is written with the host's byte order; a big-endian port must swap"
#endif

// The decoding loop is built twice where the toolchain can pick a version at load time: with
// BMI2 (shifts by a register without flags, about a tenth faster there) and without. (GCC only:
// clang refuses clones of a member function declared before.)
#if defined(__x86_64__) && defined(__ELF__) && defined(__GLIBC__) && defined(__GNUC__) && \
    !defined(__clang__)
#define HC_BMI2_CLONES __attribute__((target_clones("bmi2", "default")))
#else
#define HC_BMI2_CLONES
#endif

namespace hetcodec::jpeg {

// The derived form of a table, from a small per-thread cache keyed by the table's content and
// class (a DC entry decodes a zero difference in full; an AC one leaves EOB and ZRL to the caller).
// In huffman_lookup.cpp.
std::shared_ptr<const HuffmanLookup> cached_derive(const HuffmanTable& t, bool ac);

// libjpeg-turbo's JWRN_EXTRANEOUS_DATA for `left` whole bytes of an interval's data that its
// MCUs did not use, before the marker at `end`. In entropy_interval.cpp.
std::string extraneous_warning(const std::uint8_t* data, std::size_t size, std::size_t end,
                               std::size_t left, const Scan& scan, std::uint32_t interval);

namespace {

// The natural index of the coefficient a decoder has just passed: at[k] is the natural index of
// zigzag index k - 1, with 16 extra entries for the corrupt case where a run takes k past 64
// (libjpeg-turbo's jpeg_natural_order has the same guard, sending them to 63); shifted[k] is the
// same, moved to the top of a token's position word.
struct NaturalOrder {
  std::uint8_t at[81];
  std::uint32_t shifted[81];
  NaturalOrder() {
    static const int zz[64] = HC_JPEG_NATURAL_ORDER;
    at[0] = 0;
    for (int k = 1; k <= 80; ++k) at[k] = std::uint8_t(k <= 64 ? zz[k - 1] : 63);
    for (int k = 0; k <= 80; ++k) shifted[k] = std::uint32_t(at[k]) << 18;
  }
};
const NaturalOrder kNatural;

// MSB-first bit reader over one entropy-coded segment [p, end), unstuffing 0xFF00. Past the end
// (or a marker) it supplies zero bits and counts them as padding.
//
// Below `safe` the next eight bytes hold no 0xFF, so fill() loads them at once and keeps the
// buffer at 56 bits or more without a data-dependent branch; the bits it loads past the valid
// ones are the stream's next bits, which the following load writes again unchanged. At a 0xFF
// (or the segment's end) it goes byte by byte, then looks for the next 0xFF.
struct BitReader {
  const std::uint8_t* p;
  const std::uint8_t* end;
  const std::uint8_t* safe = nullptr;
  std::uint64_t buf = 0;
  int nbits = 0;  // valid bits at the top of buf (at most 63)
  int pad = 0;    // of which this many, at the bottom, are padding
  // Bytes loaded after unstuffing, padding included, are p + skew: the fast fill moves p alone
  // (it loads no stuffing or padding), and refill_slow() keeps skew up to date.
  std::uint64_t skew = 0;

  BitReader() : p(nullptr), end(nullptr) {}
  BitReader(const std::uint8_t* begin, const std::uint8_t* stop)
      : p(begin), end(stop), skew(0 - std::uint64_t(reinterpret_cast<std::uintptr_t>(begin))) {
    find_safe();
  }
  void find_safe() {
    safe = p;
    if (pad != 0 || end - p < 8) return;
    const void* ff = std::memchr(p, 0xFF, std::size_t(end - p));
    const std::uint8_t* limit = ff ? static_cast<const std::uint8_t*>(ff) : end;
    if (limit - p > 7) safe = limit - 7;
  }
  // Leaves at least 48 bits in the buffer.
  __attribute__((always_inline)) void fill() {
    if (__builtin_expect(p < safe, 1)) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      buf |= __builtin_bswap64(w) >> nbits;
      const int take = (63 - nbits) >> 3;
      p += take;
      nbits += 8 * take;
    } else if (nbits < 48) {
      // By value: a call that took this reader's address would keep its fields in memory
      // rather than registers for the whole decoding loop.
      *this = refilled(*this);
    }
  }
  __attribute__((noinline)) static BitReader refilled(BitReader r) {
    r.refill_slow();
    return r;
  }
  void refill_slow() {
    std::uint64_t loaded = skew + std::uint64_t(reinterpret_cast<std::uintptr_t>(p));
    while (nbits <= 48) {
      std::uint64_t c = 0;
      if (pad == 0 && p < end) {
        c = *p++;
        if (c == 0xFF) {
          while (p < end && *p == 0xFF) ++p;
          if (p < end && *p == 0) {
            ++p;
          } else {
            p = end;  // a marker: no more data in this segment
            c = 0;
            pad += 8;
          }
        }
      } else {
        pad += 8;
      }
      buf |= c << (56 - nbits);
      nbits += 8;
      ++loaded;
    }
    skew = loaded - std::uint64_t(reinterpret_cast<std::uintptr_t>(p));
    find_safe();
  }
  std::uint32_t peek(int n) const { return std::uint32_t(buf >> (64 - n)); }
  void consume(int n) {
    buf <<= n;
    nbits -= n;
  }
  // n in 1..16
  std::uint32_t bits(int n) {
    std::uint32_t v = peek(n);
    consume(n);
    return v;
  }
  bool exhausted() const { return nbits < pad; }  // padding bits have been consumed
  // Bits consumed since the reader started, in the unstuffed stream.
  std::uint64_t consumed() const {
    return (skew + std::uint64_t(reinterpret_cast<std::uintptr_t>(p))) * 8 - std::uint64_t(nbits);
  }
};

inline int extend(std::uint32_t v, int s) {
  return v < (1u << (s - 1)) ? int(v) - (1 << s) + 1 : int(v);
}

// The symbol of a code longer than the lookahead (the buffer holds at least 32 bits).
inline int decode_long_symbol(BitReader& br, const HuffmanLookup& t, bool& bad_code) {
  for (int l = HuffmanLookup::kBits + 1; l <= 16; ++l) {
    const std::int32_t code = std::int32_t(br.peek(l));
    if (code <= t.maxcode[l]) {
      br.consume(l);
      return t.symbols[(code + t.valoffset[l]) & 0xFF];
    }
  }
  br.consume(17);  // libjpeg reads 17 bits, warns, and fakes a zero
  bad_code = true;
  return 0;
}

// One block's symbols: calls on_dc(diff) with its DC difference, then put_at(k, value) for each
// non-zero AC coefficient, in zigzag order, k being its zigzag index plus one (kNatural.at[k]
// is its natural index).
template <typename OnDc, typename Put>
__attribute__((always_inline)) inline void decode_block_with(BitReader& br, const HuffmanLookup& dc,
                                                             const HuffmanLookup& ac,
                                                             bool& bad_code, OnDc&& on_dc,
                                                             Put&& put_at) {
  // After fill() the buffer holds at least 48 bits: a symbol decoded in full takes at most kBits
  // of them, which leaves enough for a second symbol of any kind (code and magnitude) without
  // refilling.
  br.fill();
  std::int32_t e = dc.entry[br.peek(HuffmanLookup::kBits)];
  if (e & HuffmanLookup::kFull) {
    br.consume(e & 63);
    on_dc(e >> 16);
  } else {
    int s;
    if (e) {
      br.consume(e & 63);
      s = (e >> 8) & 15;
    } else {
      s = decode_long_symbol(br, dc, bad_code) & 15;
    }
    on_dc(s ? extend(br.bits(s), s) : 0);
  }
  int k = 1;  // zigzag index of the next coefficient
  // A coefficient after `step` - 1 zeros.
  auto put = [&](int step, int value) __attribute__((always_inline)) {
    k += step;
    put_at(k, value);
  };
  while (k < 64) {
    br.fill();
    e = ac.entry[br.peek(HuffmanLookup::kBits)];
    if (e & HuffmanLookup::kFull) {
      br.consume(e & 63);
      if (e & HuffmanLookup::kEnd) break;
      put((e >> 8) & 31, e >> 16);
      if (k >= 64) break;
      e = ac.entry[br.peek(HuffmanLookup::kBits)];
      if (e & HuffmanLookup::kFull) {
        br.consume(e & 63);
        if (e & HuffmanLookup::kEnd) break;
        put((e >> 8) & 31, e >> 16);
        continue;
      }
    }
    int rs;
    if (e) {
      br.consume(e & 63);
      rs = (e >> 8) & 0xFF;
    } else {
      rs = decode_long_symbol(br, ac, bad_code);
    }
    const int r = rs >> 4, s = rs & 15;
    if (s) {
      put(r + 1, extend(br.bits(s), s));
    } else if (r == 15) {
      k += 16;
    } else {
      break;
    }
  }
}

// One block: returns its DC difference in `diff`, and writes its non-zero AC coefficients to
// val[1..m] and their natural positions to pos[1..m] (index 0 is left for the DC value);
// returns m. For decoding before the DC predictions are known (run_split()).
__attribute__((always_inline)) inline int decode_block(BitReader& br, const HuffmanLookup& dc,
                                                       const HuffmanLookup& ac, int& diff,
                                                       std::int16_t* val, std::uint8_t* pos,
                                                       bool& bad_code) {
  int m = 0;
  decode_block_with(
      br, dc, ac, bad_code, [&](int d) __attribute__((always_inline)) { diff = d; },
      [&](int k, int v) __attribute__((always_inline)) {
        ++m;
        val[m] = std::int16_t(v);
        pos[m] = kNatural.at[k];
      });
  return m;
}

// One block straight into tokens at `tp` (room for 16), the DC prediction `pred` of its
// component updated; returns the token count (0 for an all-zero block). The token being filled
// is kept in registers, each coefficient shifted in at the top, and stored once complete; the
// last one is padded by repeating its last coefficient and position, as pack_block() does.
__attribute__((always_inline)) inline int decode_block_tokens(BitReader& br,
                                                              const HuffmanLookup& dc,
                                                              const HuffmanLookup& ac, int& pred,
                                                              std::uint32_t block_bits, Token* tp,
                                                              bool& bad_code) {
  Token* const first = tp;
  std::uint64_t cv = 0;  // coefficients, the latest in bits 48-63
  std::uint32_t pw = 0;  // positions, the latest in bits 18-23
  int n = 0;             // coefficients in the token being filled
  decode_block_with(
      br, dc, ac, bad_code,
      [&](int d) __attribute__((always_inline)) {
        pred += d;
        const std::int16_t v = std::int16_t(pred);
        cv = std::uint64_t(std::uint16_t(v)) << 48;  // position 0
        n = v != 0;
      },
      [&](int k, int v) __attribute__((always_inline)) {
        cv = cv >> 16 | std::uint64_t(std::uint16_t(v)) << 48;
        pw = pw >> 6 | kNatural.shifted[k];
        if (++n == 4) {
          std::memcpy(tp->coef, &cv, 8);
          tp->word = pw | block_bits;
          ++tp;
          n = 0;
        }
      });
  if (n) {
    for (; n < 4; ++n) {
      cv = cv >> 16 | (cv & 0xFFFF000000000000u);
      pw = pw >> 6 | (pw & 0xFC0000u);
    }
    std::memcpy(tp->coef, &cv, 8);
    tp->word = pw | block_bits;
    ++tp;
  }
  return int(tp - first);
}

// Packs one block (DC value `dcv`, AC coefficients in val/pos[1..m]) into tokens at `tp`, which
// has room for 17; returns the token count (0 for an all-zero block). Two tokens are always
// written: a second one past the count is scratch the next block overwrites.
__attribute__((always_inline)) inline int pack_block(std::int16_t dcv, int m, std::int16_t* val,
                                                     std::uint8_t* pos,
                                                     std::uint32_t block_in_group, Token* tp) {
  val[0] = dcv;
  pos[0] = 0;
  const int first = dcv != 0 ? 0 : 1;
  const int n = m + 1 - first;
  if (n == 0) return 0;
  // Pad the last token by repeating the last coefficient and position.
  for (int i = 1; i <= 3; ++i) {
    val[m + i] = val[m];
    pos[m + i] = pos[m];
  }
  const int count = (n + 3) >> 2;
  const std::int16_t* v = val + first;
  const std::uint8_t* q = pos + first;
  const std::uint32_t block_bits = block_in_group << 24;
  auto pack = [&](int t) {
    std::memcpy(tp[t].coef, v + 4 * t, 8);
    std::uint32_t x;
    std::memcpy(&x, q + 4 * t, 4);
    tp[t].word =
        block_bits | (x & 0x3F) | (x >> 2 & 0xFC0) | (x >> 4 & 0x3F000) | (x >> 6 & 0xFC0000);
  };
  pack(0);
  pack(1);
  for (int t = 2; t < count; ++t) pack(t);
  return count;
}

}  // namespace
}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_ENTROPY_PARTS_H
