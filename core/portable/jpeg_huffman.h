/* Huffman decoding of sequential JPEG scans on the device (ITU-T T.81 F.2.2), one body for CUDA
 * (kernels_cu/jpeg_entropy.cu), OpenCL (kernels_cl/jpeg_entropy.cl) and the CPU reference
 * (backends/cpu/jpeg_kernels.cpp): a self-synchronising decode in parallel, as described by
 * Weissenberger and Schmidt ("Massively parallel Huffman decoding on GPUs", ICPP 2018).
 * docs/device-entropy.md tells the whole story; in short:
 *
 * A segment (a scan without restart markers, or one restart interval of a scan) is cut into
 * subsequences of about HC_JH_H_SUB_BYTES bytes. Each is decoded by one work-item from its first
 * byte as if a block of MCU position 0 started there (SPECULATE). That guess is usually wrong,
 * but Huffman codes fall back into step with the true decoding within a few codewords: where the
 * decoding of subsequence j stops (the first block that starts at or after the end of j: its bit
 * and its MCU position, the "exit") is then the true place where j + 1's first block starts.
 * SYNC passes redo each subsequence from its predecessor's exit, until no exit changes: then
 * every subsequence's entry is the true one (by induction from the segment's first, which starts
 * at the segment's start). SCAN, a work-group per segment, adds up the subsequences' block counts
 * and DC differences (the DC predictions where each subsequence starts) and checks the segment;
 * WRITE decodes each subsequence once more from its true entry and writes the quantised
 * coefficients, dense (blocks x 64 int16 in natural order, as jpeg_decode_tokens writes them),
 * for the stages after it to take as they are.
 *
 * Positions are counted in bits of unstuffed data (0xFF 0x00 is one byte 0xFF; fill bytes 0xFF
 * before it are skipped), relative to the start of a subsequence: an exit of subsequence j is
 * stored relative to the start of j + 1. Every decoder reads the same stuffed bytes the same
 * way, so these positions agree between work-items.
 *
 * Lossless JPEG (SOF3) scans take the same stages with a sample difference for a block (a
 * category code of the scan's tables in the form of core/portable/ljpeg.h and its extra bits, no
 * AC): ROWS then decodes each subsequence once more from its true entry and writes the row table
 * entries of the rows that start in it (docs/ljpeg-decode.md, "The row table"), as stuffed
 * positions, into the job the lossless stages read.
 *
 * Anything out of the ordinary makes SCAN mark the segment (HC_JH_ST_*): a code not in the table
 * or data that runs out in a block that counts, fewer blocks than the segment has, a marker
 * inside the segment's bytes, or no convergence within the host's limit of SYNC passes. The host
 * then decodes that image on the CPU, whose output (libjpeg-turbo's, warnings included) is the
 * contract. */
#ifndef HETCODEC_PORTABLE_JPEG_HUFFMAN_H
#define HETCODEC_PORTABLE_JPEG_HUFFMAN_H

#include "core/portable/kernel.h"
#include "core/portable/ljpeg.h"

/* ---- the plan (hc_u32 words, written by core/jpeg/entropy_device.cpp) ---------------------- */
#define HC_JH_MAGIC 0x4846554Au /* "JUFH" */
#define HC_JH_H_MAGIC 0
#define HC_JH_H_SEGMENTS 1
#define HC_JH_H_SUBS 2    /* subsequences of all segments */
#define HC_JH_H_SEG_AT 3  /* word offset of the segment records */
#define HC_JH_H_NATURAL 8 /* 84 bytes (21 words): natural index of zigzag index k - 1 */
#define HC_JH_HEADER_WORDS 32

/* A Huffman table: the lookahead entries of core/jpeg/entropy.h's HuffmanLookup (kBits = 10),
 * then MAXCODE (18, signed), VALOFFSET (18, signed) and the 256 symbols (64 words). */
#define HC_JH_LOOK_BITS 10
#define HC_JH_T_MAXCODE (1 << HC_JH_LOOK_BITS)
#define HC_JH_T_VALOFFSET (HC_JH_T_MAXCODE + 18)
#define HC_JH_T_SYMBOLS (HC_JH_T_VALOFFSET + 18)
#define HC_JH_TABLE_WORDS (HC_JH_T_SYMBOLS + 64)
#define HC_JH_FULL 64 /* entry flags, as HuffmanLookup::kFull and kEnd */
#define HC_JH_END 128

/* A scan's layout: blocks per MCU, MCUs per row, its kind, then per MCU position (HC_JH_MAX_BLOCKS) its
 * tables (word offsets in the plan), component (the DC prediction it updates), the coefficient
 * block of the component's block (0, 0) and the component grid's blocks per row, and its place
 * in the MCU (h, v, dx, dy: a byte each). Block b of the scan is MCU position p = b % bpm of MCU
 * m = b / bpm: coefficient block base + ((m / mcus_x) * v + dy) * grid_w + (m % mcus_x) * h + dx. */
#define HC_JH_MAX_BLOCKS 10
#define HC_JH_L_BPM 0
#define HC_JH_L_MCUS_X 1
#define HC_JH_L_KIND 2 /* HC_JH_KIND_*; a lossless scan's "block" is one sample difference */
#define HC_JH_L_BLOCK 3
#define HC_JH_KIND_DCT 0u
#define HC_JH_KIND_LOSSLESS 1u /* B_DC: a table of core/portable/ljpeg.h (HC_LJ_HUFF_*) */
#define HC_JH_B_DC 0
#define HC_JH_B_AC 1
#define HC_JH_B_COMPONENT 2
#define HC_JH_B_BASE 3
#define HC_JH_B_GRID_W 4
#define HC_JH_B_PLACE 5 /* h | v << 8 | dx << 16 | dy << 24 */
#define HC_JH_BLOCK_WORDS 6
#define HC_JH_LAYOUT_WORDS (HC_JH_L_BLOCK + HC_JH_MAX_BLOCKS * HC_JH_BLOCK_WORDS)

/* A segment's record. */
#define HC_JH_S_DATA 0        /* byte offset of its entropy-coded data in the data buffer */
#define HC_JH_S_BYTES 1       /* its bytes, up to the marker after it */
#define HC_JH_S_FIRST_SUB 2   /* its first subsequence */
#define HC_JH_S_SUBS 3        /* its subsequences */
#define HC_JH_S_SUB_BYTES 4   /* bytes per subsequence (the last one takes the rest) */
#define HC_JH_S_LAYOUT 5      /* word offset of its scan's layout */
#define HC_JH_S_BLOCKS 6      /* its blocks */
#define HC_JH_S_FIRST_BLOCK 7 /* its first block's index in the scan (a restart interval's) */
/* Lossless scans: */
#define HC_JH_S_ROWS 8       /* word offset of the scan's row table in ROWS's output */
#define HC_JH_S_ROW_UNITS 9  /* samples per coded row */
#define HC_JH_S_SCAN_BYTE 10 /* its first byte, counted from its scan's first data byte */
#define HC_JH_SEG_WORDS 11

/* ---- the work buffer (hc_u32 words, zeroed by the host before SPECULATE) ------------------- */
/* Header: the exits SYNC pass k changed, at word HC_JH_W_CHANGED + k (k < HC_JH_MAX_PASSES);
 * then per segment its status (HC_JH_ST_* flags) and the whole bytes left after its last block
 * (libjpeg-turbo's "extraneous bytes" warning; as a signed word, none when not positive). */
#define HC_JH_MAX_PASSES 64
#define HC_JH_W_CHANGED 0
#define HC_JH_W_STATUS HC_JH_MAX_PASSES
#define HC_JH_ST_CORRUPT 1u   /* a bad code, data that ran out, or too few blocks */
#define HC_JH_ST_MARKER 2u    /* a marker inside the segment's bytes */
#define HC_JH_ST_UNSETTLED 4u /* a subsequence not decoded from its predecessor's last exit */
#define HC_JH_STATUS_WORDS 2
/* Per subsequence, from word HC_JH_W_STATUS + 2 x segments: */
#define HC_JH_U_START 0   /* its first byte, relative to the segment's data */
#define HC_JH_U_KEPT 1    /* its bytes after unstuffing */
#define HC_JH_U_EXIT 2    /* three words: the exit of pass k at word k % 3 */
#define HC_JH_U_ENTRY 5   /* the entry its counts below are from */
#define HC_JH_U_BLOCKS 6  /* blocks starting in it */
#define HC_JH_U_BAD 7     /* the first of them with a bad code or past the data, or ~0 */
#define HC_JH_U_DC 8      /* 4 words: DC differences added up per component (mod 2^32) */
#define HC_JH_U_FIRST 12  /* after SCAN: the segment's block index of its first block */
#define HC_JH_U_PRED 13   /* 4 words: after SCAN, the DC predictions where it starts */
#define HC_JH_U_BEFORE 17 /* after SCAN: unstuffed bytes of the segment before it */
#define HC_JH_SUB_WORDS 18

/* An entry or exit: bits past a subsequence's start << 4 | MCU position. */
#define HC_JH_STATE(bits, phase) (((hc_u32)(bits) << 4) | (hc_u32)(phase))

/* The stages, each with its kind: ITEM, a work-item per subsequence; GROUP, a work-group of
 * HC_JH_GROUP_LANES per segment. */
#define HC_JH_SPECULATE 0
#define HC_JH_SYNC 1
#define HC_JH_SCAN 2
#define HC_JH_WRITE 3
#define HC_JH_ROWS 4
#define HC_JH_STAGES 5
#define HC_JH_STAGE_LIST(X)                        \
  X(HC_JH_SPECULATE, jpeg_entropy_speculate, ITEM) \
  X(HC_JH_SYNC, jpeg_entropy_sync, ITEM)           \
  X(HC_JH_SCAN, jpeg_entropy_scan, GROUP)          \
  X(HC_JH_WRITE, jpeg_entropy_write, ITEM)         \
  X(HC_JH_ROWS, jpeg_entropy_rows, ITEM)
#define HC_JH_ITEM_LANES 64
#define HC_JH_GROUP_LANES 256

HC_FN int hc_jh_is_group_stage(int stage) { return stage == HC_JH_SCAN; }
HC_FN hc_u32 hc_jh_lanes(int stage) {
  return hc_jh_is_group_stage(stage) ? HC_JH_GROUP_LANES : HC_JH_ITEM_LANES;
}

/* SCAN's local memory: each lane's sums (blocks, DC x 4, bytes), then their prefix. */
typedef struct hc_jh_local {
  hc_u32 sum[HC_JH_GROUP_LANES][6];
} hc_jh_local;

/* ---- the bit reader ------------------------------------------------------------------------ */
/* MSB first over stuffed bytes [pos, end) of the data buffer, as libjpeg-turbo's jdhuff.c reads
 * them; past the end zero bits, counted as padding. */
typedef struct hc_jh_bits {
  hc_u64 buf;    /* valid bits at the top */
  hc_i32 nbits;  /* valid bits */
  hc_u32 pos;    /* next byte */
  hc_u32 end;    /* the segment's end */
  hc_u32 loaded; /* bytes put into buf since the start (padding included) */
  hc_u32 pad;    /* of those, bytes of padding */
} hc_jh_bits;

HC_FN void hc_jh_fill(hc_jh_bits* b, const HC_GLOBAL hc_u8* data) {
  while (b->nbits <= 56) {
    hc_u32 c = 0;
    if (b->pos < b->end) {
      c = data[b->pos++];
      if (c == 0xFFu) {
        while (b->pos < b->end && data[b->pos] == 0xFFu) ++b->pos;
        if (b->pos < b->end && data[b->pos] == 0u) {
          ++b->pos;
        } else {
          b->pos = b->end; /* a marker (SCAN has flagged it) or the end */
          c = 0;
          ++b->pad;
        }
      }
    } else {
      ++b->pad;
    }
    b->buf |= (hc_u64)c << (56 - b->nbits);
    b->nbits += 8;
    ++b->loaded;
  }
}

HC_FN hc_u32 hc_jh_peek(const hc_jh_bits* b, int n) { return (hc_u32)(b->buf >> (64 - n)); }
HC_FN void hc_jh_skip(hc_jh_bits* b, int n) {
  b->buf <<= n;
  b->nbits -= n;
}
/* Bits consumed since the start. */
HC_FN hc_u32 hc_jh_consumed(const hc_jh_bits* b) { return b->loaded * 8u - (hc_u32)b->nbits; }
/* Whether padding bits have been consumed. */
HC_FN int hc_jh_exhausted(const hc_jh_bits* b) { return b->nbits < (hc_i32)(b->pad * 8u); }

HC_FN hc_i32 hc_jh_extend(hc_u32 v, int s) {
  return v < (1u << (s - 1)) ? (hc_i32)v - (1 << s) + 1 : (hc_i32)v;
}

/* A symbol whose code is longer than the lookahead's `look` bits (at least 32 bits in the
 * buffer), code by code as F.2.2.3 with MAXCODE, VALOFFSET and the symbols at `maxcode`,
 * `valoffset` and `symbols` of t; a code of more than 16 bits is symbol 0 after 17 bits, with
 * *bad set (jdhuff.c). */
HC_FN hc_u32 hc_jh_symbol_long(hc_jh_bits* b, HC_GLOBAL const hc_u32* t, int look, int maxcode,
                               int valoffset, int symbols, int* bad) {
  int l;
  for (l = look + 1; l <= 16; ++l) {
    const hc_i32 code = (hc_i32)hc_jh_peek(b, l);
    if (code <= (hc_i32)t[maxcode + l]) {
      const hc_u32 k = (hc_u32)(code + (hc_i32)t[valoffset + l]) & 0xFFu;
      hc_jh_skip(b, l);
      return (t[symbols + (k >> 2)] >> ((k & 3u) * 8u)) & 0xFFu;
    }
  }
  hc_jh_skip(b, 17);
  *bad = 1;
  return 0;
}
#define HC_JH_DCT_LONG HC_JH_LOOK_BITS, HC_JH_T_MAXCODE, HC_JH_T_VALOFFSET, HC_JH_T_SYMBOLS

/* One lossless sample difference's bits with table t (HC_LJ_HUFF_*), as jdlhuff.c reads them:
 * a category of 16 has no extra bits. */
HC_FN void hc_jh_sample(hc_jh_bits* b, const HC_GLOBAL hc_u8* data, HC_GLOBAL const hc_u32* t,
                        int* bad) {
  hc_u32 e, s;
  hc_jh_fill(b, data);
  e = t[HC_LJ_HUFF_LOOK + hc_jh_peek(b, HC_LJ_LOOK_BITS)];
  if (e != 0u) {
    hc_jh_skip(b, (int)(e >> 8));
    s = e & 0xFFu;
  } else {
    s = hc_jh_symbol_long(b, t, HC_LJ_LOOK_BITS, HC_LJ_HUFF_MAXCODE, HC_LJ_HUFF_VALOFFSET,
                          HC_LJ_HUFF_SYMBOLS, bad);
  }
  /* (the fill left more than 56 bits; a code takes at most 17: its extra bits are there) */
  if (s != 0u && s < 16u) hc_jh_skip(b, (int)s);
}

/* One block's symbols. Returns the DC difference; when `coef` is not null writes the non-zero AC
 * coefficients to it (natural order, the DC left to the caller), as jdhuff.c's decode_mcu does
 * (a run past the block's end lands on position 63, as its natural-order guard sends it). */
HC_FN hc_i32 hc_jh_block(hc_jh_bits* b, const HC_GLOBAL hc_u8* data, HC_GLOBAL const hc_u32* dc,
                         HC_GLOBAL const hc_u32* ac, HC_GLOBAL const hc_u8* natural,
                         HC_GLOBAL hc_i16* coef, int* bad) {
  hc_i32 diff, e;
  int k = 1;
  hc_jh_fill(b, data);
  e = (hc_i32)dc[hc_jh_peek(b, HC_JH_LOOK_BITS)];
  if (e & HC_JH_FULL) {
    hc_jh_skip(b, e & 63);
    diff = e >> 16;
  } else {
    int s;
    if (e) {
      hc_jh_skip(b, e & 63);
      s = (e >> 8) & 15;
    } else {
      s = (int)(hc_jh_symbol_long(b, dc, HC_JH_DCT_LONG, bad) & 15u);
    }
    if (s) {
      hc_jh_fill(b, data);
      diff = hc_jh_extend(hc_jh_peek(b, s), s);
      hc_jh_skip(b, s);
    } else {
      diff = 0;
    }
  }
  while (k < 64) {
    int r, s;
    hc_jh_fill(b, data);
    e = (hc_i32)ac[hc_jh_peek(b, HC_JH_LOOK_BITS)];
    if (e & HC_JH_FULL) {
      hc_jh_skip(b, e & 63);
      if (e & HC_JH_END) break;
      k += (e >> 8) & 31;
      if (coef) coef[natural[k]] = (hc_i16)(e >> 16);
      continue;
    }
    if (e) {
      hc_jh_skip(b, e & 63);
      r = (e >> 12) & 15;
      s = (e >> 8) & 15;
    } else {
      const hc_u32 rs = hc_jh_symbol_long(b, ac, HC_JH_DCT_LONG, bad);
      r = (int)(rs >> 4);
      s = (int)(rs & 15u);
    }
    if (s) {
      hc_i32 v = hc_jh_extend(hc_jh_peek(b, s), s);
      hc_jh_skip(b, s);
      k += r + 1;
      if (coef) coef[natural[k]] = (hc_i16)v;
    } else if (r == 15) {
      k += 16;
    } else {
      break;
    }
  }
  return diff;
}

/* ---- decoding a subsequence ---------------------------------------------------------------- */
HC_FN HC_GLOBAL const hc_u32* hc_jh_segment(HC_GLOBAL const hc_u32* plan, hc_u32 s) {
  return plan + plan[HC_JH_H_SEG_AT] + s * HC_JH_SEG_WORDS;
}

/* The segment whose subsequences include subsequence i (a binary search: they rise). */
HC_FN hc_u32 hc_jh_segment_of(HC_GLOBAL const hc_u32* plan, hc_u32 i) {
  hc_u32 lo = 0, hi = plan[HC_JH_H_SEGMENTS];
  while (hi - lo > 1u) {
    const hc_u32 mid = lo + (hi - lo) / 2u;
    if (hc_jh_segment(plan, mid)[HC_JH_S_FIRST_SUB] <= i)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

HC_FN HC_GLOBAL hc_u32* hc_jh_sub(HC_GLOBAL hc_u32* work, HC_GLOBAL const hc_u32* plan, hc_u32 i) {
  return work + HC_JH_W_STATUS + HC_JH_STATUS_WORDS * plan[HC_JH_H_SEGMENTS] +
         (hc_u64)i * HC_JH_SUB_WORDS;
}

/* The first byte of subsequence j of segment `seg` (relative to its data): j x its bytes, moved
 * past any 0xFF before it (never inside 0xFF 0x00 or a run of fill bytes). */
HC_FN hc_u32 hc_jh_sub_start(HC_GLOBAL const hc_u32* seg, const HC_GLOBAL hc_u8* data, hc_u32 j) {
  const HC_GLOBAL hc_u8* d = data + seg[HC_JH_S_DATA];
  const hc_u32 bytes = seg[HC_JH_S_BYTES];
  hc_u32 s;
  if (j == 0u) return 0u;
  if (j >= seg[HC_JH_S_SUBS]) return bytes;
  s = j * seg[HC_JH_S_SUB_BYTES];
  while (s < bytes && d[s - 1u] == 0xFFu) ++s;
  return s;
}

/* What a decoding of a subsequence found. */
typedef struct hc_jh_result {
  hc_u32 exit;   /* HC_JH_STATE, relative to the next subsequence's start */
  hc_u32 blocks; /* blocks that start in the subsequence */
  hc_u32 bad;    /* the first of them with a bad code or past the data, or ~0 */
  hc_u32 dc[4];  /* DC differences added up per component */
  hc_u32 end;    /* bits past the start where the `limit`-th block ended (WRITE) */
} hc_jh_result;

/* Walks the stuffed bytes of segment data `d` (`bytes` of them) from *x, the *kept-th byte kept
 * by unstuffing, to the byte kept as the q-th (q >= *kept): the first 0xFF of 0xFF 0x00 or of a
 * run of fill bytes before it, as hc_jh_kept counts them. */
HC_FN void hc_jh_stuffed_at(const HC_GLOBAL hc_u8* d, hc_u32 bytes, hc_u32 q, hc_u32* x,
                            hc_u32* kept) {
  while (*x < bytes) {
    const hc_u32 c = d[*x];
    const int dropped = *x > 0u && d[*x - 1u] == 0xFFu && (c == 0xFFu || c == 0u);
    if (!dropped) {
      if (*kept == q) return;
      ++*kept;
    }
    ++*x;
  }
}

/* Decodes subsequence `sub` (first byte `start`, `kept` bytes after unstuffing) of segment `seg`
 * from `entry`: every block that starts before its end, or with `coefs` or `rows` only the
 * blocks the segment has (from `first`, the segment's index of the subsequence's first block),
 * written with DC predictions `pred` to `coefs`, or (a lossless scan) the row table entries of
 * the coded rows that start there to `rows`. */
HC_FN void hc_jh_decode(HC_GLOBAL const hc_u32* plan, const HC_GLOBAL hc_u8* data,
                        HC_GLOBAL const hc_u32* seg, hc_u32 start, hc_u32 kept, hc_u32 entry,
                        HC_GLOBAL hc_i16* coefs, HC_GLOBAL hc_u32* rows, hc_u32 first, hc_u32* pred,
                        hc_jh_result* out) {
  HC_GLOBAL const hc_u32* layout = plan + seg[HC_JH_S_LAYOUT];
  const int lossless = layout[HC_JH_L_KIND] == HC_JH_KIND_LOSSLESS;
  const HC_GLOBAL hc_u8* d = data + seg[HC_JH_S_DATA];
  hc_u32 at_byte = start, at_kept = 0; /* hc_jh_stuffed_at's place, for `rows` */
  /* For `rows`: the next coded row to start, at block `next` of the scan (a division here, and
   * none in the loop: Oclgrind cannot run the `freeze` that a division and a remainder of the
   * same operands compile to). */
  const hc_u32 per = rows ? seg[HC_JH_S_ROW_UNITS] : 1u;
  hc_u32 row = (seg[HC_JH_S_FIRST_BLOCK] + first + per - 1u) / per, next = row * per;
  const HC_GLOBAL hc_u8* natural = (const HC_GLOBAL hc_u8*)(plan + HC_JH_H_NATURAL);
  const hc_u32 bpm = layout[HC_JH_L_BPM], mcus_x = layout[HC_JH_L_MCUS_X];
  const hc_u32 limit_bits = kept * 8u;
  const hc_u32 blocks = seg[HC_JH_S_BLOCKS];
  hc_u32 skip = entry >> 4, phase = entry & 15u, n = 0;
  hc_jh_bits b;
  int i;
  out->bad = 0xFFFFFFFFu;
  for (i = 0; i < 4; ++i) out->dc[i] = 0;
  out->end = 0;
  if (skip >= limit_bits) { /* a block that spans the whole subsequence: none starts in it */
    out->exit = HC_JH_STATE(skip - limit_bits, phase);
    out->blocks = 0;
    return;
  }
  b.buf = 0;
  b.nbits = 0;
  b.pos = seg[HC_JH_S_DATA] + start;
  b.end = seg[HC_JH_S_DATA] + seg[HC_JH_S_BYTES];
  b.loaded = 0;
  b.pad = 0;
  while (skip > 0u) {
    const int step = skip > 32u ? 32 : (int)skip;
    hc_jh_fill(&b, data);
    hc_jh_skip(&b, step);
    skip -= (hc_u32)step;
  }
  while (hc_jh_consumed(&b) < limit_bits) {
    HC_GLOBAL const hc_u32* blk = layout + HC_JH_L_BLOCK + phase * HC_JH_BLOCK_WORDS;
    HC_GLOBAL hc_i16* at = 0;
    int bad = 0;
    hc_i32 diff;
    const hc_u32 comp = blk[HC_JH_B_COMPONENT];
    if (rows) {
      const hc_u32 bit = hc_jh_consumed(&b);
      if (first + n >= blocks) break;
      if (seg[HC_JH_S_FIRST_BLOCK] + first + n == next) {
        hc_jh_stuffed_at(d, seg[HC_JH_S_BYTES], bit >> 3, &at_byte, &at_kept);
        rows[seg[HC_JH_S_ROWS] + row] = (seg[HC_JH_S_SCAN_BYTE] + at_byte) * 8u + (bit & 7u);
        ++row;
        next += per;
      }
    }
    if (coefs) {
      const hc_u32 index = first + n, m = (seg[HC_JH_S_FIRST_BLOCK] + index) / bpm;
      const hc_u32 my = m / mcus_x, mx = m - my * mcus_x;
      const hc_u32 place = blk[HC_JH_B_PLACE];
      if (index >= blocks) break;
      at = coefs + (hc_u64)(blk[HC_JH_B_BASE] +
                            (my * ((place >> 8) & 255u) + (place >> 24)) * blk[HC_JH_B_GRID_W] +
                            mx * (place & 255u) + ((place >> 16) & 255u)) *
                       64u;
    }
    if (lossless) {
      hc_jh_sample(&b, data, plan + blk[HC_JH_B_DC], &bad);
      diff = 0;
    } else {
      diff =
          hc_jh_block(&b, data, plan + blk[HC_JH_B_DC], plan + blk[HC_JH_B_AC], natural, at, &bad);
    }
    if ((bad || hc_jh_exhausted(&b)) && out->bad == 0xFFFFFFFFu) out->bad = n;
    out->dc[comp & 3u] += (hc_u32)diff;
    if (at) {
      pred[comp & 3u] += (hc_u32)diff;
      at[0] = (hc_i16)pred[comp & 3u];
      out->end = hc_jh_consumed(&b);
    }
    ++n;
    if (++phase == bpm) phase = 0;
  }
  out->blocks = n;
  out->exit = HC_JH_STATE(hc_jh_consumed(&b) - limit_bits, phase);
}

/* ---- the stages ---------------------------------------------------------------------------- */

/* Bytes of data after unstuffing in [from, to) of segment data `d`; sets *marker when a marker
 * lies there. */
HC_FN hc_u32 hc_jh_kept(const HC_GLOBAL hc_u8* d, hc_u32 from, hc_u32 to, hc_u32 bytes,
                        hc_u32* marker) {
  hc_u32 x, kept = 0;
  for (x = from; x < to; ++x) {
    const hc_u32 c = d[x];
    if (c == 0xFFu) {
      if (x + 1u < bytes && d[x + 1u] != 0xFFu && d[x + 1u] != 0u) *marker = 1u;
      if (x > 0u && d[x - 1u] == 0xFFu) continue; /* a fill byte */
    } else if (c == 0u && x > 0u && d[x - 1u] == 0xFFu) {
      continue; /* stuffing */
    }
    ++kept;
  }
  return kept;
}

HC_FN void hc_jh_store(HC_GLOBAL hc_u32* u, const hc_jh_result* r) {
  int c;
  u[HC_JH_U_BLOCKS] = r->blocks;
  u[HC_JH_U_BAD] = r->bad;
  for (c = 0; c < 4; ++c) u[HC_JH_U_DC + c] = r->dc[c];
}

/* SPECULATE: subsequence i from its first byte at MCU position 0 (the first one of a segment is
 * right; the others a guess). */
HC_FN void hc_jh_speculate(HC_GLOBAL const hc_u32* plan, const HC_GLOBAL hc_u8* data,
                           HC_GLOBAL hc_u32* work, hc_u32 i) {
  const hc_u32 s = hc_jh_segment_of(plan, i);
  HC_GLOBAL const hc_u32* seg = hc_jh_segment(plan, s);
  HC_GLOBAL hc_u32* u = hc_jh_sub(work, plan, i);
  const hc_u32 j = i - seg[HC_JH_S_FIRST_SUB];
  const hc_u32 start = hc_jh_sub_start(seg, data, j), stop = hc_jh_sub_start(seg, data, j + 1u);
  hc_u32 marker = 0;
  hc_jh_result r;
  const hc_u32 kept =
      hc_jh_kept(data + seg[HC_JH_S_DATA], start, stop, seg[HC_JH_S_BYTES], &marker);
  if (marker) HC_ATOMIC_OR(work + HC_JH_W_STATUS + HC_JH_STATUS_WORDS * s, HC_JH_ST_MARKER);
  u[HC_JH_U_START] = start;
  u[HC_JH_U_KEPT] = kept;
  hc_jh_decode(plan, data, seg, start, kept, 0u, 0, 0, 0u, 0, &r);
  u[HC_JH_U_ENTRY] = 0u;
  u[HC_JH_U_EXIT] = r.exit;
  u[HC_JH_U_EXIT + 1] = r.exit;
  u[HC_JH_U_EXIT + 2] = r.exit;
  hc_jh_store(u, &r);
}

/* SYNC pass k (1, 2, ...): subsequence i again where its predecessor's exit of pass k - 1 is not
 * the entry it was decoded from, or where an exit changed in pass k - 1 among the `back`
 * subsequences before it (2^(k - 1) of them, HC_JH_LOOKBACK at most); counts the exits that
 * change. Its entry is then found by decoding from the exit of pass k - 1 of the subsequence
 * `back` places before it through the ones between: where decodings stay out of step for long
 * (a code repeated, as in a flat image), the true entries advance up to `back` subsequences a
 * pass instead of one. Exits are kept for three passes (k - 2 to compare with k - 1, k written):
 * a pass reads only the words of the two before it. */
#define HC_JH_LOOKBACK 32u
HC_FN void hc_jh_sync(HC_GLOBAL const hc_u32* plan, const HC_GLOBAL hc_u8* data,
                      HC_GLOBAL hc_u32* work, hc_u32 k, hc_u32 i) {
  const hc_u32 s = hc_jh_segment_of(plan, i);
  HC_GLOBAL const hc_u32* seg = hc_jh_segment(plan, s);
  HC_GLOBAL hc_u32* u = hc_jh_sub(work, plan, i);
  const hc_u32 prev = HC_JH_U_EXIT + (k + 2u) % 3u, next = HC_JH_U_EXIT + k % 3u;
  const hc_u32 older = HC_JH_U_EXIT + (k + 1u) % 3u;
  hc_u32 entry, back, m, moved = 0;
  hc_jh_result r;
  if (i == seg[HC_JH_S_FIRST_SUB]) {
    u[next] = u[prev];
    return;
  }
  back = k > 6u ? HC_JH_LOOKBACK : hc_min_u32(1u << (k - 1u), HC_JH_LOOKBACK);
  back = hc_min_u32(back, i - seg[HC_JH_S_FIRST_SUB]);
  for (m = i - back; m < i && k > 1u; ++m) {
    HC_GLOBAL const hc_u32* v = hc_jh_sub(work, plan, m);
    if (v[prev] != v[older]) moved = 1u;
  }
  entry = hc_jh_sub(work, plan, i - 1u)[prev];
  if (entry == u[HC_JH_U_ENTRY] && !moved) {
    u[next] = u[prev];
    return;
  }
  if (back > 1u) {
    entry = hc_jh_sub(work, plan, i - back)[prev];
    for (m = i - back + 1u; m < i; ++m) {
      HC_GLOBAL const hc_u32* v = hc_jh_sub(work, plan, m);
      hc_jh_decode(plan, data, seg, v[HC_JH_U_START], v[HC_JH_U_KEPT], entry, 0, 0, 0u, 0, &r);
      entry = r.exit;
    }
    if (entry == u[HC_JH_U_ENTRY]) {
      u[next] = u[prev];
      return;
    }
  }
  hc_jh_decode(plan, data, seg, u[HC_JH_U_START], u[HC_JH_U_KEPT], entry, 0, 0, 0u, 0, &r);
  u[HC_JH_U_ENTRY] = entry;
  u[next] = r.exit;
  hc_jh_store(u, &r);
  if (r.exit != u[prev]) HC_ATOMIC_ADD(work + HC_JH_W_CHANGED + (k % HC_JH_MAX_PASSES), 1u);
}

/* SCAN after SYNC pass k: segment s by a work-group: where each subsequence's blocks start in the
 * segment, the DC predictions there and the unstuffed bytes before it (a prefix sum in two
 * levels: each lane's run of subsequences, then the lanes), the checks, and the segment's
 * status. */
HC_FN void hc_jh_scan(HC_GLOBAL const hc_u32* plan, HC_GLOBAL hc_u32* work, hc_u32 k, hc_u32 s,
                      hc_u32 lane, hc_u32 lanes, HC_LOCAL hc_jh_local* loc) {
  HC_GLOBAL const hc_u32* seg = hc_jh_segment(plan, s);
  HC_GLOBAL hc_u32* status = work + HC_JH_W_STATUS + HC_JH_STATUS_WORDS * s;
  const hc_u32 first = seg[HC_JH_S_FIRST_SUB], subs = seg[HC_JH_S_SUBS];
  const hc_u32 blocks = seg[HC_JH_S_BLOCKS];
  const hc_u32 per = (subs + lanes - 1u) / lanes;
  const hc_u32 lo = hc_min_u32(lane * per, subs), hi = hc_min_u32(lo + per, subs);
  hc_u32 acc[6] = {0, 0, 0, 0, 0, 0};
  hc_u32 j, c;
  for (j = lo; j < hi; ++j) {
    HC_GLOBAL const hc_u32* u = hc_jh_sub(work, plan, first + j);
    acc[0] += u[HC_JH_U_BLOCKS];
    for (c = 0; c < 4u; ++c) acc[1 + c] += u[HC_JH_U_DC + c];
    acc[5] += u[HC_JH_U_KEPT];
  }
  for (c = 0; c < 6u; ++c) loc->sum[lane][c] = acc[c];
  HC_BARRIER();
  if (lane == 0u) {
    hc_u32 run[6] = {0, 0, 0, 0, 0, 0}, l;
    for (l = 0; l < lanes; ++l)
      for (c = 0; c < 6u; ++c) {
        const hc_u32 v = loc->sum[l][c];
        loc->sum[l][c] = run[c];
        run[c] += v;
      }
    if (run[0] < blocks) HC_ATOMIC_OR(status, HC_JH_ST_CORRUPT);
  }
  HC_BARRIER();
  for (c = 0; c < 6u; ++c) acc[c] = loc->sum[lane][c];
  for (j = lo; j < hi; ++j) {
    HC_GLOBAL hc_u32* u = hc_jh_sub(work, plan, first + j);
    const hc_u32 n = u[HC_JH_U_BLOCKS], bad = u[HC_JH_U_BAD];
    if (bad != 0xFFFFFFFFu && acc[0] + bad < blocks) HC_ATOMIC_OR(status, HC_JH_ST_CORRUPT);
    if (j > 0u && u[HC_JH_U_ENTRY] != hc_jh_sub(work, plan, first + j - 1u)[HC_JH_U_EXIT + k % 3u])
      HC_ATOMIC_OR(status, HC_JH_ST_UNSETTLED);
    u[HC_JH_U_FIRST] = acc[0];
    u[HC_JH_U_BEFORE] = acc[5];
    for (c = 0; c < 4u; ++c) u[HC_JH_U_PRED + c] = acc[1 + c];
    acc[0] += n;
    for (c = 0; c < 4u; ++c) acc[1 + c] += u[HC_JH_U_DC + c];
    acc[5] += u[HC_JH_U_KEPT];
  }
}

/* WRITE: subsequence i from its true entry into `coefs`; the one holding the segment's last
 * block records the whole bytes left after it. */
HC_FN void hc_jh_write(HC_GLOBAL const hc_u32* plan, const HC_GLOBAL hc_u8* data,
                       HC_GLOBAL hc_u32* work, HC_GLOBAL hc_i16* coefs, hc_u32 i) {
  const hc_u32 s = hc_jh_segment_of(plan, i);
  HC_GLOBAL const hc_u32* seg = hc_jh_segment(plan, s);
  HC_GLOBAL hc_u32* u = hc_jh_sub(work, plan, i);
  HC_GLOBAL hc_u32* status = work + HC_JH_W_STATUS + HC_JH_STATUS_WORDS * s;
  const hc_u32 first = u[HC_JH_U_FIRST], blocks = seg[HC_JH_S_BLOCKS];
  hc_u32 pred[4], c;
  hc_jh_result r;
  if (status[0] != 0u || first >= blocks || u[HC_JH_U_BLOCKS] == 0u) return;
  for (c = 0; c < 4u; ++c) pred[c] = u[HC_JH_U_PRED + c];
  hc_jh_decode(plan, data, seg, u[HC_JH_U_START], u[HC_JH_U_KEPT], u[HC_JH_U_ENTRY], coefs, 0,
               first, pred, &r);
  if (first + r.blocks == blocks) {
    /* The segment's last block: the unstuffed bytes of the segment not reached by it. */
    hc_u32 total = u[HC_JH_U_BEFORE], j;
    const hc_u32 used = u[HC_JH_U_BEFORE] + (r.end + 7u) / 8u;
    for (j = i - seg[HC_JH_S_FIRST_SUB]; j < seg[HC_JH_S_SUBS]; ++j)
      total += hc_jh_sub(work, plan, seg[HC_JH_S_FIRST_SUB] + j)[HC_JH_U_KEPT];
    /* (negative when the block ran past the data, which SCAN has marked; no clamp here: it
     * compiles to a saturating subtraction that Oclgrind cannot run) */
    status[1] = total - used;
  }
}

/* ROWS (lossless scans): subsequence i from its true entry, the row table entries of the rows
 * that start in it into `rows`. */
HC_FN void hc_jh_rows(HC_GLOBAL const hc_u32* plan, const HC_GLOBAL hc_u8* data,
                      HC_GLOBAL hc_u32* work, HC_GLOBAL hc_u32* rows, hc_u32 i) {
  const hc_u32 s = hc_jh_segment_of(plan, i);
  HC_GLOBAL const hc_u32* seg = hc_jh_segment(plan, s);
  HC_GLOBAL hc_u32* u = hc_jh_sub(work, plan, i);
  const hc_u32 first = u[HC_JH_U_FIRST];
  hc_u32 pred[4] = {0, 0, 0, 0};
  hc_jh_result r;
  if (work[HC_JH_W_STATUS + HC_JH_STATUS_WORDS * s] != 0u || first >= seg[HC_JH_S_BLOCKS] ||
      u[HC_JH_U_BLOCKS] == 0u)
    return;
  hc_jh_decode(plan, data, seg, u[HC_JH_U_START], u[HC_JH_U_KEPT], u[HC_JH_U_ENTRY], 0, rows, first,
               pred, &r);
}

/* Stage `stage` for item i (a subsequence, or a segment for SCAN). */
HC_FN void hc_jh_run(int stage, hc_u32 arg, hc_u32 i, HC_GLOBAL const hc_u32* plan,
                     const HC_GLOBAL hc_u8* data, HC_GLOBAL hc_u32* work, HC_GLOBAL hc_i16* coefs,
                     HC_LOCAL hc_jh_local* loc, hc_u32 lane, hc_u32 lanes) {
  switch (stage) {
    case HC_JH_SPECULATE:
      hc_jh_speculate(plan, data, work, i);
      break;
    case HC_JH_SYNC:
      hc_jh_sync(plan, data, work, arg, i);
      break;
    case HC_JH_SCAN:
      hc_jh_scan(plan, work, arg, i, lane, lanes, loc);
      break;
    case HC_JH_WRITE:
      hc_jh_write(plan, data, work, coefs, i);
      break;
    default: /* ROWS: the output buffer is the lossless job's words */
      hc_jh_rows(plan, data, work, (HC_GLOBAL hc_u32*)coefs, i);
      break;
  }
}

#endif /* HETCODEC_PORTABLE_JPEG_HUFFMAN_H */
