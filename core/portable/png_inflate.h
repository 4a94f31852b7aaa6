/* Inflate of one segment of a zlib stream (RFC 1951 raw deflate), shared by the CPU reference
 * (backends/cpu), CUDA (kernels_cu/png_decode.cu) and OpenCL (kernels_cl/png_decode.cl): the
 * device half of the segment-parallel inflate of PNG files that carry an hcRS index
 * (docs/png-parallel.md). One work-item inflates one segment, whose deflate data starts on a
 * byte boundary with nothing before it to refer to; a middle segment ends after a sync flush
 * (no final block), the last one with the final block.
 *
 * Huffman codes are decoded through a 9-bit table (a code of at most 9 bits in one lookup), and
 * longer codes, distance codes and the code-length code bit by bit from canonical counts, as
 * zlib's puff.c does. Every table lives in the work-item's private memory. Anything out of the
 * ordinary (a bad code, a distance before the segment, more or less output than the segment's
 * rows, input that runs out inside a block) is an error code, and the host then inflates the
 * whole stream itself, which says what is wrong in the terms every other decoder uses. */
#ifndef HETCODEC_PORTABLE_PNG_INFLATE_H
#define HETCODEC_PORTABLE_PNG_INFLATE_H

#include "core/portable/common.h"

/* The segment table: HC_INF_WORDS words per segment. */
#define HC_INF_IN 0      /* offset of the segment's first deflate byte in the joined IDAT data */
#define HC_INF_IN_LEN 1  /* its deflate bytes (the last segment: without the Adler-32) */
#define HC_INF_OUT 2     /* offset of its first filtered byte in the inflated data */
#define HC_INF_OUT_LEN 3 /* its filtered bytes: whole rows */
#define HC_INF_ROW 4     /* bytes per filtered row (the filter byte included) */
#define HC_INF_LAST 5    /* 1 for the last segment, which ends the stream */
#define HC_INF_WORDS 6
/* The result: HC_INF_RESULT_WORDS words per segment. */
#define HC_INF_STATUS 0   /* one of HC_INF_OK... */
#define HC_INF_ADLER 1    /* Adler-32 of the segment's output (on success) */
#define HC_INF_MAX_TYPE 2 /* the largest filter type of its rows (on success) */
#define HC_INF_PRODUCED 3 /* bytes it made */
#define HC_INF_RESULT_WORDS 4

#define HC_INF_OK 0
#define HC_INF_BAD_BLOCK 1    /* block type 3, or a stored block whose length check fails */
#define HC_INF_BAD_CODE 2     /* an incomplete or over-subscribed code, or a code not in it */
#define HC_INF_BAD_DISTANCE 3 /* a match reaching before the segment */
#define HC_INF_OVERRUN 4      /* more output than the segment's rows */
#define HC_INF_SHORT_INPUT 5  /* the input ends inside a block */
#define HC_INF_BAD_END 6 /* final block in a middle segment, none in the last, or short output */

#define HC_INF_FAST_BITS 9

/* A canonical Huffman code: how many codes of each length, and the symbols in code order. */
typedef struct {
  hc_u16 count[16];
  hc_u16 symbol[288];
} hc_inf_code;

typedef struct {
  const HC_GLOBAL hc_u8* in;
  hc_u32 len, pos;
  hc_u64 bits; /* LSB first */
  hc_u32 nbits;
  hc_u32 status;
} hc_inf_reader;

HC_FN void hc_inf_refill(hc_inf_reader* r) {
  while (r->nbits <= 56u && r->pos < r->len) {
    r->bits |= (hc_u64)r->in[r->pos++] << r->nbits;
    r->nbits += 8u;
  }
}

/* n bits (at most 16); past the input sets HC_INF_SHORT_INPUT and gives zeros. */
HC_FN hc_u32 hc_inf_bits(hc_inf_reader* r, hc_u32 n) {
  hc_u32 v;
  if (r->nbits < n) hc_inf_refill(r);
  if (r->nbits < n) {
    r->status = HC_INF_SHORT_INPUT;
    r->nbits = n; /* what is left reads as zeros; the status ends the segment */
  }
  v = (hc_u32)(r->bits & ((1u << n) - 1u));
  r->bits >>= n;
  r->nbits -= n;
  return v;
}

/* Builds `code` from the lengths of n symbols; 0 if it is complete or a single code of length
 * one (both allowed, as in puff), otherwise non-zero. With `fast` non-null it also fills the
 * 2^HC_INF_FAST_BITS-entry table: (symbol << 4) | length for each bit pattern whose code is at
 * most HC_INF_FAST_BITS long, 0 otherwise. */
HC_FN int hc_inf_build(hc_inf_code* code, const hc_u16* lengths, hc_u32 n, hc_u16* fast) {
  hc_u16 offs[16];
  hc_u32 s, len;
  hc_i32 left;
  for (len = 0; len < 16u; ++len) code->count[len] = 0;
  for (s = 0; s < n; ++s) code->count[lengths[s]]++;
  if (code->count[0] == n) return 1; /* no codes */
  left = 1;
  for (len = 1; len < 16u; ++len) {
    left <<= 1;
    left -= (hc_i32)code->count[len];
    if (left < 0) return 2; /* over-subscribed */
  }
  offs[1] = 0;
  for (len = 1; len < 15u; ++len) offs[len + 1] = (hc_u16)(offs[len] + code->count[len]);
  for (s = 0; s < n; ++s)
    if (lengths[s] != 0) code->symbol[offs[lengths[s]]++] = (hc_u16)s;
  if (fast) {
    hc_u32 next = 0, k = 0, i;
    for (i = 0; i < (1u << HC_INF_FAST_BITS); ++i) fast[i] = 0;
    /* Canonical codes in symbol order within each length: code->symbol lists them so. */
    for (len = 1; len <= HC_INF_FAST_BITS; ++len) {
      hc_u32 c;
      for (c = 0; c < code->count[len]; ++c, ++k, ++next) {
        hc_u32 rev = 0, b;
        for (b = 0; b < len; ++b) rev |= ((next >> b) & 1u) << (len - 1u - b);
        for (i = rev; i < (1u << HC_INF_FAST_BITS); i += 1u << len)
          fast[i] = (hc_u16)((code->symbol[k] << 4) | len);
      }
      next <<= 1;
    }
  }
  /* Incomplete codes are allowed only as a single code of length one (a distance code of
   * one symbol, say); anything else incomplete is an error, as in zlib. */
  if (left > 0) return n - code->count[0] == 1u && code->count[1] == 1u ? 0 : 3;
  return 0;
}

/* One symbol, bit by bit (puff.c's decode). */
HC_FN hc_i32 hc_inf_decode_slow(hc_inf_reader* r, const hc_inf_code* h) {
  hc_i32 code = 0, first = 0, index = 0;
  hc_u32 len;
  for (len = 1; len < 16u; ++len) {
    hc_i32 count;
    code |= (hc_i32)hc_inf_bits(r, 1u);
    count = h->count[len];
    if (code - count < first) return h->symbol[index + (code - first)];
    index += count;
    first += count;
    first <<= 1;
    code <<= 1;
  }
  r->status = HC_INF_BAD_CODE;
  return 0;
}

HC_FN hc_i32 hc_inf_decode(hc_inf_reader* r, const hc_inf_code* h, const hc_u16* fast) {
  hc_u32 e;
  if (r->nbits < HC_INF_FAST_BITS) hc_inf_refill(r);
  e = fast[r->bits & ((1u << HC_INF_FAST_BITS) - 1u)];
  if (e != 0u && (e & 15u) <= r->nbits) {
    r->bits >>= e & 15u;
    r->nbits -= e & 15u;
    return (hc_i32)(e >> 4);
  }
  return hc_inf_decode_slow(r, h);
}

/* A stored block (RFC 1951 3.2.4) after its header bits: back to the byte boundary, LEN and
 * NLEN, then its bytes copied to out[*produced...]; *last is the byte before out[*produced].
 * An error is left in r->status. */
HC_FN void hc_inf_stored(hc_inf_reader* r, HC_GLOBAL hc_u8* out, hc_u32 out_len, hc_u32* produced,
                         hc_u8* last) {
  const hc_u32 done = *produced;
  hc_u32 n, check, i;
  /* Back to the byte boundary: whole bytes still in the buffer are given back. */
  r->bits >>= r->nbits & 7u;
  r->nbits -= r->nbits & 7u;
  r->pos -= r->nbits >> 3;
  r->bits = 0;
  r->nbits = 0;
  if (r->len - r->pos < 4u) {
    r->status = HC_INF_SHORT_INPUT;
    return;
  }
  n = (hc_u32)r->in[r->pos] | ((hc_u32)r->in[r->pos + 1u] << 8);
  check = (hc_u32)r->in[r->pos + 2u] | ((hc_u32)r->in[r->pos + 3u] << 8);
  r->pos += 4u;
  if ((n ^ 0xFFFFu) != check) {
    r->status = HC_INF_BAD_BLOCK;
    return;
  }
  if (r->len - r->pos < n) {
    r->status = HC_INF_SHORT_INPUT;
    return;
  }
  if (out_len - done < n) {
    r->status = HC_INF_OVERRUN;
    return;
  }
  for (i = 0; i < n; ++i) out[done + i] = r->in[r->pos + i];
  *produced = done + n;
  if (n) *last = r->in[r->pos + n - 1u];
  r->pos += n;
}

/* The fixed codes (RFC 1951 3.2.6). */
HC_FN void hc_inf_fixed_tables(hc_inf_code* lencode, hc_inf_code* distcode, hc_u16* lengths,
                               hc_u16* fast) {
  hc_u32 i;
  for (i = 0; i < 144u; ++i) lengths[i] = 8;
  for (; i < 256u; ++i) lengths[i] = 9;
  for (; i < 280u; ++i) lengths[i] = 7;
  for (; i < 288u; ++i) lengths[i] = 8;
  hc_inf_build(lencode, lengths, 288u, fast);
  for (i = 0; i < 30u; ++i) lengths[i] = 5;
  hc_inf_build(distcode, lengths, 30u, 0);
}

/* A dynamic block's codes from its header (RFC 1951 3.2.7); an error is left in r->status. */
HC_FN void hc_inf_dynamic_tables(hc_inf_reader* r, hc_inf_code* lencode, hc_inf_code* distcode,
                                 hc_u16* lengths, hc_u16* fast) {
  const hc_u32 nlen = hc_inf_bits(r, 5u) + 257u, ndist = hc_inf_bits(r, 5u) + 1u;
  const hc_u32 ncode = hc_inf_bits(r, 4u) + 4u;
  hc_u32 k;
  if (nlen > 286u || ndist > 30u) {
    r->status = HC_INF_BAD_CODE;
    return;
  }
  /* The code-length code, its lengths in the order 16, 17, 18, 0, 8, 7, 9, 6, ... */
  for (k = 0; k < 19u; ++k) lengths[k] = 0;
  for (k = 0; k < ncode; ++k) {
    const hc_u32 at = k < 3u     ? 16u + k
                      : k == 3u  ? 0u
                      : (k & 1u) ? 7u - (k - 5u) / 2u
                                 : 8u + (k - 4u) / 2u;
    lengths[at] = (hc_u16)hc_inf_bits(r, 3u);
  }
  if (r->status != HC_INF_OK || hc_inf_build(lencode, lengths, 19u, 0) != 0) {
    r->status = r->status != HC_INF_OK ? r->status : HC_INF_BAD_CODE;
    return;
  }
  for (k = 0; k < nlen + ndist && r->status == HC_INF_OK;) {
    hc_i32 sym = hc_inf_decode_slow(r, lencode);
    hc_u32 rep, v = 0;
    if (sym < 16) {
      lengths[k++] = (hc_u16)sym;
      continue;
    }
    if (sym == 16) {
      if (k == 0u) {
        r->status = HC_INF_BAD_CODE;
        break;
      }
      v = lengths[k - 1u];
      rep = 3u + hc_inf_bits(r, 2u);
    } else if (sym == 17) {
      rep = 3u + hc_inf_bits(r, 3u);
    } else {
      rep = 11u + hc_inf_bits(r, 7u);
    }
    if (k + rep > nlen + ndist) {
      r->status = HC_INF_BAD_CODE;
      break;
    }
    while (rep--) lengths[k++] = (hc_u16)v;
  }
  if (r->status != HC_INF_OK) return;
  if (lengths[256] == 0u || hc_inf_build(lencode, lengths, nlen, fast) != 0 ||
      hc_inf_build(distcode, lengths + nlen, ndist, 0) > 1) {
    /* (a distance code may be empty, when the block has no matches) */
    r->status = HC_INF_BAD_CODE;
  }
}

/* A coded block's symbols up to its end-of-block code, into out[*produced...]; *last is the
 * byte before out[*produced]. Both are kept in locals for the loop. An error is left in
 * r->status. */
HC_FN void hc_inf_symbols(hc_inf_reader* r, const hc_inf_code* lencode, const hc_inf_code* distcode,
                          const hc_u16* fast, HC_GLOBAL hc_u8* out, hc_u32 out_len,
                          hc_u32* produced_io, hc_u8* last_io) {
  hc_u32 produced = *produced_io, i;
  hc_u8 last = *last_io;
  for (;;) {
    hc_i32 sym = hc_inf_decode(r, lencode, fast);
    if (r->status != HC_INF_OK) break;
    if (sym < 256) {
      if (produced == out_len) {
        r->status = HC_INF_OVERRUN;
        break;
      }
      last = (hc_u8)sym;
      out[produced++] = last;
    } else if (sym == 256) {
      break;
    } else {
      hc_u32 idx = (hc_u32)sym - 257u, length, extra, d, dist;
      if (idx > 28u) {
        r->status = HC_INF_BAD_CODE;
        break;
      }
      if (idx < 8u) {
        length = 3u + idx;
      } else if (idx == 28u) {
        length = 258u;
      } else {
        extra = (idx - 4u) >> 2;
        length = ((4u + (idx & 3u)) << extra) + 3u + hc_inf_bits(r, extra);
      }
      d = (hc_u32)hc_inf_decode_slow(r, distcode);
      if (d > 29u) {
        r->status = HC_INF_BAD_CODE;
        break;
      }
      if (d < 4u) {
        dist = d + 1u;
      } else {
        extra = (d - 2u) >> 1;
        dist = ((2u + (d & 1u)) << extra) + 1u + hc_inf_bits(r, extra);
      }
      if (r->status != HC_INF_OK) break;
      if (dist > produced) {
        r->status = HC_INF_BAD_DISTANCE;
        break;
      }
      if (out_len - produced < length) {
        r->status = HC_INF_OVERRUN;
        break;
      }
      /* Distance 1 (all that Z_RLE makes) repeats the byte in hand, without reading back
       * what was just stored; a longer one reads the output. */
      if (dist == 1u) {
        for (i = 0; i < length; ++i) out[produced + i] = last;
      } else {
        for (i = 0; i < length; ++i) out[produced + i] = out[produced + i - dist];
        last = out[produced + length - 1u];
      }
      produced += length;
    }
  }
  *produced_io = produced;
  *last_io = last;
}

/* The result words of a segment: every one is written, failed or not (the host reads them all
 * back); for a good segment the Adler-32 of its output (the host combines the segments') and
 * the largest filter type of its rows. */
HC_FN void hc_inf_result(const HC_GLOBAL hc_u32* seg, const HC_GLOBAL hc_u8* out, hc_u32 out_len,
                         hc_u32 status, hc_u32 produced, HC_GLOBAL hc_u32* result) {
  hc_u32 i;
  result[HC_INF_STATUS] = status;
  result[HC_INF_ADLER] = 0;
  result[HC_INF_MAX_TYPE] = 0;
  result[HC_INF_PRODUCED] = produced;
  if (status == HC_INF_OK) {
    hc_u32 a = 1, b = 0, done = 0, max_type = 0;
    const hc_u32 row = seg[HC_INF_ROW];
    while (done < out_len) {
      hc_u32 n = out_len - done < 5552u ? out_len - done : 5552u;
      for (i = 0; i < n; ++i) {
        a += out[done + i];
        b += a;
      }
      a %= 65521u;
      b %= 65521u;
      done += n;
    }
    for (i = 0; row != 0u && i < out_len; i += row)
      if (out[i] > max_type) max_type = out[i];
    result[HC_INF_ADLER] = (b << 16) | a;
    result[HC_INF_MAX_TYPE] = max_type;
  }
}

/* Inflates the segment at row `seg` of the table: its input in `in` (the joined IDAT data),
 * its output at `out` + its offset. Writes the result words to `result`. */
HC_FN void hc_inflate_segment(const HC_GLOBAL hc_u32* seg, const HC_GLOBAL hc_u8* in,
                              HC_GLOBAL hc_u8* out_base, HC_GLOBAL hc_u32* result) {
  hc_inf_reader r;
  hc_inf_code lencode, distcode;
  hc_u16 fast[1u << HC_INF_FAST_BITS];
  hc_u16 lengths[320];
  HC_GLOBAL hc_u8* out = out_base + seg[HC_INF_OUT];
  const hc_u32 out_len = seg[HC_INF_OUT_LEN];
  hc_u32 produced = 0, final_block = 0;
  hc_u8 last = 0; /* the byte before out[produced] */
  r.in = in + seg[HC_INF_IN];
  r.len = seg[HC_INF_IN_LEN];
  r.pos = 0;
  r.bits = 0;
  r.nbits = 0;
  r.status = HC_INF_OK;
  while (r.status == HC_INF_OK) {
    hc_u32 type;
    /* A middle segment ends where its input does, on a block boundary. */
    if (r.pos == r.len && r.nbits < 8u && !seg[HC_INF_LAST]) break;
    if (final_block) {
      if (r.pos < r.len || r.nbits >= 8u) r.status = HC_INF_BAD_END; /* data after the end */
      break;
    }
    final_block = hc_inf_bits(&r, 1u);
    type = hc_inf_bits(&r, 2u);
    if (r.status != HC_INF_OK) break;
    if (final_block && !seg[HC_INF_LAST]) {
      r.status = HC_INF_BAD_END;
      break;
    }
    if (type == 0u) {
      hc_inf_stored(&r, out, out_len, &produced, &last);
      continue;
    }
    if (type == 1u) {
      hc_inf_fixed_tables(&lencode, &distcode, lengths, fast);
    } else if (type == 2u) {
      hc_inf_dynamic_tables(&r, &lencode, &distcode, lengths, fast);
      if (r.status != HC_INF_OK) break;
    } else {
      r.status = HC_INF_BAD_BLOCK;
      break;
    }
    hc_inf_symbols(&r, &lencode, &distcode, fast, out, out_len, &produced, &last);
  }
  if (r.status == HC_INF_OK && (produced != out_len || (seg[HC_INF_LAST] && !final_block)))
    r.status = HC_INF_BAD_END;
  hc_inf_result(seg, out, out_len, r.status, produced, result);
}

/* Segment k of `count` inflated (the device inflate's entry points and the CPU's loop). */
HC_FN void hc_inflate_item(const HC_GLOBAL hc_u8* compressed, const HC_GLOBAL hc_u32* segments,
                           HC_GLOBAL hc_u8* rows, HC_GLOBAL hc_u32* results, hc_u32 count,
                           hc_u32 k) {
  if (k < count)
    hc_inflate_segment(segments + (hc_u64)k * HC_INF_WORDS, compressed, rows,
                       results + (hc_u64)k * HC_INF_RESULT_WORDS);
}

#endif /* HETCODEC_PORTABLE_PNG_INFLATE_H */
