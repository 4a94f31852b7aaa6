/* CRC-32 of the pieces of a buffer, shared by the CPU reference (backends/cpu), CUDA
 * (kernels_cu/png_encode.cu) and OpenCL (kernels_cl/png_encode.cl): the device half of the PNG
 * encoder's chunk CRCs. Piece j of an n-byte buffer is bytes [j * piece - skew, (j + 1) * piece
 * - skew) clipped to [0, n): with skew the number of bytes that come before the buffer in the
 * stream the chunks cut (the zlib header's 2), every piece lies inside one chunk when the chunk
 * size is a multiple of `piece`. Each is zlib's crc32(0, piece bytes): the host joins them
 * with crc32_combine (core/png/checksum.h), in chunk order.
 *
 * Four bits at a time, each nibble's step computed from its bits rather than looked up: the
 * 16-entry table of a nibble step is linear over GF(2), so an entry is the XOR of the entries of
 * its set bits. Registers only, on every backend (a looked-up table in private memory went to
 * the GPU's local memory, one memory round trip per step). */
#ifndef HETCODEC_PORTABLE_PNG_CRC_H
#define HETCODEC_PORTABLE_PNG_CRC_H

#include "core/portable/common.h"

HC_FN hc_u32 hc_crc32_nibble(hc_u32 c) {
  return ((0u - (c & 1u)) & 0x1DB71064u) ^ ((0u - ((c >> 1) & 1u)) & 0x3B6E20C8u) ^
         ((0u - ((c >> 2) & 1u)) & 0x76DC4190u) ^ ((0u - ((c >> 3) & 1u)) & 0xEDB88320u);
}

HC_FN hc_u32 hc_crc32_piece(const HC_GLOBAL hc_u8* data, hc_u32 n, hc_u32 piece, hc_u32 skew,
                            hc_u32 j) {
  const hc_u64 s = (hc_u64)j * piece, e = s + piece;
  const hc_u32 begin = s > skew ? (hc_u32)(s - skew < n ? s - skew : n) : 0u;
  const hc_u32 end = e > skew ? (hc_u32)(e - skew < n ? e - skew : n) : 0u;
  hc_u32 c = 0xFFFFFFFFu, i;
  for (i = begin; i < end; ++i) {
    c ^= data[i];
    c = (c >> 4) ^ hc_crc32_nibble(c);
    c = (c >> 4) ^ hc_crc32_nibble(c);
  }
  return ~c;
}

#endif /* HETCODEC_PORTABLE_PNG_CRC_H */
