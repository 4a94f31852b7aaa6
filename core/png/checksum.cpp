// CRC-32: reflected polynomial 0xEDB88320, a byte-wise table (PNG specification, annex D) for
// short inputs, libdeflate's or zlib's for long ones.
// The combine step multiplies crc(A) by x^(8 len_b) modulo the polynomial (GF(2)), by repeated
// squaring, then adds crc(B). Adler-32: sums modulo 65521 (RFC 1950 section 8.2); combining
// shifts A's second sum by len_b times A's first sum.
#include "core/png/checksum.h"

#include <zlib.h>

#include <array>
#include <map>
#include <memory>
#include <mutex>

#if defined(HETCODEC_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

namespace hetcodec::png {
namespace {

constexpr std::uint32_t kPoly = 0xEDB88320u;

struct CrcTable {
  std::array<std::uint32_t, 256> t{};
  CrcTable() {
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? kPoly ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
  }
};
const CrcTable kCrc;

// a(x) * b(x) modulo the CRC polynomial, both in the reflected representation.
std::uint32_t multmodp(std::uint32_t a, std::uint32_t b) {
  std::uint32_t m = 1u << 31, p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) == 0) break;
    }
    m >>= 1;
    b = (b & 1) ? (b >> 1) ^ kPoly : b >> 1;
  }
  return p;
}

// x^(2^k) modulo the polynomial, k = 0..63, reflected.
struct PowerTable {
  std::array<std::uint32_t, 64> x2n{};
  PowerTable() {
    std::uint32_t p = 1u << 30;  // x^1
    for (auto& v : x2n) {
      v = p;
      p = multmodp(p, p);
    }
  }
};
const PowerTable kPow;

// x^(n * 2^k) modulo the polynomial.
std::uint32_t x2nmodp(std::uint64_t n, unsigned k) {
  std::uint32_t p = 1u << 31;  // x^0
  while (n) {
    if (n & 1) p = multmodp(kPow.x2n[k & 63], p);
    n >>= 1;
    ++k;
  }
  return p;
}

constexpr std::uint32_t kBase = 65521u;

}  // namespace

std::uint32_t crc32(std::uint32_t crc, const std::uint8_t* data, std::size_t n) {
  // Long runs go to an optimised implementation (libdeflate: carry-less multiplication;
  // zlib: its braided tables).
  if (n >= 64) {
#if defined(HETCODEC_HAVE_LIBDEFLATE)
    return libdeflate_crc32(crc, data, n);
#else
    return std::uint32_t(::crc32_z(crc, data, n));
#endif
  }
  std::uint32_t c = ~crc;
  for (std::size_t i = 0; i < n; ++i) c = kCrc.t[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return ~c;
}

std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t len_b) {
  return multmodp(x2nmodp(len_b, 3), crc_a) ^ crc_b;
}

std::uint32_t crc32_shift(std::uint64_t len_b) { return x2nmodp(len_b, 3); }

Crc32Joiner::Crc32Joiner(std::uint64_t len_b) {
  const std::uint32_t op = x2nmodp(len_b, 3);
  for (int k = 0; k < 4; ++k)
    for (std::uint32_t v = 0; v < 256; ++v) t_[k][v] = multmodp(op, v << (8 * k));
}

const Crc32Joiner& Crc32Joiner::for_length(std::uint64_t len_b) {
  static std::mutex m;
  static std::map<std::uint64_t, std::unique_ptr<Crc32Joiner>> made;
  std::lock_guard<std::mutex> lock(m);
  auto& j = made[len_b];
  if (!j) j = std::make_unique<Crc32Joiner>(len_b);
  return *j;
}

std::uint32_t crc32_combine_op(std::uint32_t crc_a, std::uint32_t crc_b, std::uint32_t shift) {
  return multmodp(shift, crc_a) ^ crc_b;
}

std::uint32_t adler32(std::uint32_t adler, const std::uint8_t* data, std::size_t n) {
  if (n >= 64) {
#if defined(HETCODEC_HAVE_LIBDEFLATE)
    return libdeflate_adler32(adler, data, n);
#else
    return std::uint32_t(::adler32_z(adler, data, n));
#endif
  }
  std::uint32_t a = adler & 0xFFFF, b = adler >> 16;
  while (n) {
    // 5552 bytes is the most that keeps b below 2^32 before the reduction (RFC 1950).
    const std::size_t k = n < 5552 ? n : 5552;
    for (std::size_t i = 0; i < k; ++i) {
      a += data[i];
      b += a;
    }
    a %= kBase;
    b %= kBase;
    data += k;
    n -= k;
  }
  return b << 16 | a;
}

std::uint32_t adler32_combine(std::uint32_t adler_a, std::uint32_t adler_b, std::uint64_t len_b) {
  const std::uint64_t rem = len_b % kBase;
  const std::uint64_t a1 = adler_a & 0xFFFF, b1 = adler_a >> 16;
  const std::uint64_t a2 = adler_b & 0xFFFF, b2 = adler_b >> 16;
  std::uint64_t a = a1 + a2 + kBase - 1;  // the second's start value 1 is counted once
  std::uint64_t b = b1 + b2 + (rem * a1) % kBase + kBase - rem;
  a %= kBase;
  b %= kBase;
  return std::uint32_t(b << 16 | a);
}

}  // namespace hetcodec::png
