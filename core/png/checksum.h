// CRC-32 (ISO 3309, as PNG chunks and gzip use it) and Adler-32 (RFC 1950, the zlib stream's
// trailer), each with a combine step, so that pieces checksummed apart (by device work-groups,
// or threads) give the checksum of the whole.
#ifndef HETCODEC_CORE_PNG_CHECKSUM_H
#define HETCODEC_CORE_PNG_CHECKSUM_H

#include <cstddef>
#include <cstdint>

namespace hetcodec::png {

// CRC-32 of `n` bytes continuing from `crc` (0 to start).
std::uint32_t crc32(std::uint32_t crc, const std::uint8_t* data, std::size_t n);
// CRC-32 of A followed by B, from crc(A), crc(B) and B's length.
std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t len_b);
// The same in two steps, for many B of one length: the operator for that length, then each
// combination (a multiplication in GF(2)[x] modulo the CRC polynomial).
std::uint32_t crc32_shift(std::uint64_t len_b);
std::uint32_t crc32_combine_op(std::uint32_t crc_a, std::uint32_t crc_b, std::uint32_t shift);
// The combination for B of one length as four byte-indexed tables (the shift is linear over
// GF(2)): four lookups per combination, for joining many pieces of one size. Built once per
// length (1024 multiplications) and kept: for_length() returns the process's copy.
class Crc32Joiner {
 public:
  explicit Crc32Joiner(std::uint64_t len_b);
  std::uint32_t combine(std::uint32_t crc_a, std::uint32_t crc_b) const {
    return t_[0][crc_a & 0xFF] ^ t_[1][(crc_a >> 8) & 0xFF] ^ t_[2][(crc_a >> 16) & 0xFF] ^
           t_[3][crc_a >> 24] ^ crc_b;
  }
  static const Crc32Joiner& for_length(std::uint64_t len_b);

 private:
  std::uint32_t t_[4][256];
};

// Adler-32 of `n` bytes continuing from `adler` (1 to start).
std::uint32_t adler32(std::uint32_t adler, const std::uint8_t* data, std::size_t n);
// Adler-32 of A followed by B, from adler(A), adler(B) and B's length.
std::uint32_t adler32_combine(std::uint32_t adler_a, std::uint32_t adler_b, std::uint64_t len_b);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_CHECKSUM_H
