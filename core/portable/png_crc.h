/* CRC-32 of the pieces of a buffer, shared by the CPU reference (backends/cpu), CUDA
 * (kernels_cu/png_encode.cu) and OpenCL (kernels_cl/png_encode.cl): the device half of the PNG
 * encoder's chunk CRCs. Piece j of an n-byte buffer is bytes [j * piece - skew, (j + 1) * piece
 * - skew) clipped to [0, n): with skew the number of bytes that come before the buffer in the
 * stream the chunks cut (the zlib header's 2), every piece lies inside one chunk when the chunk
 * size is a multiple of `piece`. Each is zlib's crc32(0, piece bytes): the host joins them
 * with crc32_combine (core/png/checksum.h), in chunk order.
 *
 * Four bytes at a time ("slicing by four"): HC_CRC_TABLE_WORDS words of tables, made by
 * hc_crc32_table_entry (the CPU once; a GPU work-group in local memory, where a look-up costs
 * far less than the dependent steps of computing it). */
#ifndef HETCODEC_PORTABLE_PNG_CRC_H
#define HETCODEC_PORTABLE_PNG_CRC_H

#include "core/portable/kernel.h"

#define HC_CRC_TABLE_WORDS 1024u
#define HC_CRC_LANES 64 /* pieces per work-group */

/* Entry e of the tables: table e / 256 (0..3), byte e % 256 followed by that many zero bytes. */
HC_FN hc_u32 hc_crc32_table_entry(hc_u32 e) {
  hc_u32 c = e & 0xFFu, k;
  for (k = 0; k < 8u * (e / 256u + 1u); ++k) c = (c >> 1) ^ ((0u - (c & 1u)) & 0xEDB88320u);
  return c;
}

HC_FN hc_u32 hc_crc32_piece(const HC_GLOBAL hc_u8* data, hc_u32 n, hc_u32 piece, hc_u32 skew,
                            hc_u32 j, const HC_LOCAL hc_u32* t) {
  const hc_u64 s = (hc_u64)j * piece, e = s + piece;
  const hc_u32 begin = s > skew ? (hc_u32)(s - skew < n ? s - skew : n) : 0u;
  const hc_u32 end = e > skew ? (hc_u32)(e - skew < n ? e - skew : n) : 0u;
  hc_u32 c = 0xFFFFFFFFu, i = begin;
  for (; i + 4u <= end; i += 4u) {
    c ^= (hc_u32)data[i] | ((hc_u32)data[i + 1u] << 8) | ((hc_u32)data[i + 2u] << 16) |
         ((hc_u32)data[i + 3u] << 24);
    c = t[768u + (c & 0xFFu)] ^ t[512u + ((c >> 8) & 0xFFu)] ^ t[256u + ((c >> 16) & 0xFFu)] ^
        t[c >> 24];
  }
  for (; i < end; ++i) c = t[(c ^ data[i]) & 0xFFu] ^ (c >> 8);
  return ~c;
}

/* Pieces group * HC_CRC_LANES ... of `count` into crcs[first + j], the tables made by the
 * work-group in local memory first. */
HC_FN void hc_crc32_pieces(const HC_GLOBAL hc_u8* data, hc_u32 bytes, hc_u32 piece, hc_u32 skew,
                           HC_GLOBAL hc_u32* crcs, hc_u32 count, hc_u32 group, hc_u32 lane,
                           hc_u32 lanes, HC_LOCAL hc_u32* table) {
  hc_u32 e, j;
  for (e = lane; e < HC_CRC_TABLE_WORDS; e += lanes) table[e] = hc_crc32_table_entry(e);
  HC_BARRIER();
  for (j = group * HC_CRC_LANES + lane; j < (group + 1u) * HC_CRC_LANES && j < count; j += lanes)
    crcs[j] = hc_crc32_piece(data, bytes, piece, skew, j, table);
}

#endif /* HETCODEC_PORTABLE_PNG_CRC_H */
