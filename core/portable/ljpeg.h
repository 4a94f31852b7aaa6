/* Lossless JPEG (ITU-T T.81 Annex H, SOF3) decode bodies, one for CUDA (kernels_cu/ljpeg.cu),
 * OpenCL (kernels_cl/ljpeg.cl) and the CPU reference (backends/cpu/ljpeg_kernels.cpp), and the
 * host's row-table pre-pass (core/jpeg/lossless.cpp), which walks the same codes with the same
 * bit reader. DESIGN.md §3 "Lossless JPEG decode"; docs/ljpeg-decode.md.
 *
 * The job (written by core/jpeg/lossless.cpp) is one buffer of 32-bit words: a header, then per
 * scan a record (its words, its four Huffman tables), then the scans' row tables. The file's
 * bytes are a second buffer, as the file holds them: each scan's entropy-coded data is read
 * there, stuffing and RSTn markers included.
 *
 * A scan's samples live in a plane laid out for the wavefront engine (core/portable/wavefront.h):
 * per row one type byte, then the row's samples (the scan's components interleaved), each as two
 * bytes, low byte first. The residual stage writes each row's differences there (the first
 * sample of an interval's first row with its initial prediction 2^(P - Pt - 1) added, so that
 * it is predicted from a zero on its left); reconstruction replaces them in place by the
 * samples, modulo 2^16 as libjpeg-turbo computes them (jdlossls.c), whatever the precision: a
 * corrupt file's samples past 2^P then predict the next ones as they do there. */
#ifndef HETCODEC_PORTABLE_LJPEG_H
#define HETCODEC_PORTABLE_LJPEG_H

#include "core/portable/kernel.h"
#include "core/portable/wavefront.h"

/* Job header words. */
#define HC_LJ_MAGIC 0x4C4A5047u /* "LJPG" */
#define HC_LJ_H_MAGIC 0
#define HC_LJ_H_WIDTH 1
#define HC_LJ_H_HEIGHT 2
#define HC_LJ_H_CHANNELS 3
#define HC_LJ_H_DEPTH 4 /* output bytes per sample: 1 or 2 */
#define HC_LJ_H_SCANS 5
/* Per output channel c (0..3), from word HC_LJ_H_CHANNEL + 8c: the byte offset of its scan's
 * plane (low, high word), the scan's components, (index in the scan) | pt << 8, and the plane's
 * width. */
#define HC_LJ_H_CHANNEL 8
#define HC_LJ_CHANNEL_WORDS 8
#define HC_LJ_H_SCAN_AT 40 /* word offset of scan s's record: word 40 + s */
#define HC_LJ_HEADER_WORDS 64
#define HC_LJ_MAX_SCANS (HC_LJ_HEADER_WORDS - HC_LJ_H_SCAN_AT)

/* Scan record words. */
#define HC_LJ_S_WIDTH 0      /* the plane's width: MCUs per row x the MCU's width */
#define HC_LJ_S_HEIGHT 1     /* the plane's rows: MCU rows x the MCU's height */
#define HC_LJ_S_COMPS 2      /* components in the scan, 1..4 */
#define HC_LJ_S_PREDICTOR 3  /* Ss, 1..7 */
#define HC_LJ_S_INITIAL 4    /* 2^(P - Pt - 1) */
#define HC_LJ_S_RESTART 5    /* plane rows per restart interval, 0: none */
#define HC_LJ_S_DATA 6       /* byte offset of the scan's entropy-coded data in the file */
#define HC_LJ_S_DATA_BYTES 7 /* its bytes */
#define HC_LJ_S_ROWS_AT 8    /* word offset of the row table in the job */
#define HC_LJ_S_WIDE 9       /* 1: row table entries are two words (low, high) */
#define HC_LJ_S_TABLE 10     /* words 10..13: the Huffman table (0..3) of each component */
/* An interleaved scan's MCU holds MCU_H x MCU_V samples of each component (all components are
 * sampled alike), row by row, component after component; a coded row (the row table's unit, a
 * work-item of the residual stage) is MCU_V plane rows. 1 x 1 otherwise. */
#define HC_LJ_S_MCU_H 14
#define HC_LJ_S_MCU_V 15
#define HC_LJ_SCAN_WORDS 16
/* The scan's four Huffman tables follow its words, HC_LJ_HUFF_WORDS each. */
#define HC_LJ_LOOK_BITS 11
#define HC_LJ_HUFF_LOOK 0 /* 2^HC_LJ_LOOK_BITS words: len << 8 | sym, 0: a longer code */
#define HC_LJ_HUFF_MAXCODE (1 << HC_LJ_LOOK_BITS)      /* 18 words, signed */
#define HC_LJ_HUFF_VALOFFSET (HC_LJ_HUFF_MAXCODE + 18) /* 18 words, signed */
#define HC_LJ_HUFF_SYMBOLS (HC_LJ_HUFF_VALOFFSET + 18) /* 256 bytes in 64 words */
#define HC_LJ_HUFF_WORDS (HC_LJ_HUFF_SYMBOLS + 64)
#define HC_LJ_SCAN_RECORD_WORDS (HC_LJ_SCAN_WORDS + 4 * HC_LJ_HUFF_WORDS)

/* A row table entry: the bit where the row's codes start, counted from the first byte of the
 * scan's entropy-coded data (byte = bit >> 3, bit 7 - (bit & 7) of it first; in 32-bit words,
 * the 27 + 5 packing: word = bit >> 5, bit in word = bit & 31). HC_LJ_NO_DATA: the row has no
 * data (its interval's data ran out on an earlier row): its differences are zero and it is
 * predicted as an interval's first row, as libjpeg-turbo does. */
#define HC_LJ_NO_DATA 0xFFFFFFFFu

/* Row type bytes: an interval's first row (predicted from the left, no row above), the scan's
 * predictor, or (set by hc_lj_first_column for predictor 1) a row whose first pixel is final
 * already, the rest predicted from the left. */
#define HC_LJ_FIRST_ROW 0x80u
#define HC_LJ_FROM_FIRST 0x81u

/* Status words per row, written by the residual stage: flags, and the byte (in the scan's
 * data) where the first problem was met. */
#define HC_LJ_ST_HIT_MARKER 1u /* the row's codes ran into a marker or the data's end */
#define HC_LJ_ST_BAD_CODE 2u   /* a code that is not in the table (decoded as 0, 17 bits) */
#define HC_LJ_STATUS_WORDS 2

/* MSB-first bit reader over a scan's entropy-coded bytes as libjpeg-turbo's jdhuff.c reads
 * them: 0xFF 0x00 is a data byte 0xFF, fill bytes 0xFF before it are skipped, and any other
 * marker (or the data's end) ends the data; zero bits follow it ("pad" of them counted). */
typedef struct hc_lj_bits {
  hc_u64 buf; /* valid bits at the top */
  hc_i32 nbits;
  hc_i32 pad;   /* of the bits loaded so far past the data, those not yet consumed */
  hc_u32 pos;   /* next byte */
  hc_u32 ended; /* a marker or the end was met */
  hc_u32 marker_at;
#ifdef HC_LJ_TRACK_POSITIONS
  /* The byte each of the last 8 loaded bytes came from (0xFFFFFFFF: padding), for the
   * pre-pass, which records where each row starts. */
  hc_u32 from[8];
  hc_u32 loaded;
#endif
} hc_lj_bits;

HC_FN void hc_lj_bits_load(hc_lj_bits* b, const HC_GLOBAL hc_u8* data, hc_u32 size) {
  hc_u32 c = 0;
#ifdef HC_LJ_TRACK_POSITIONS
  hc_u32 from = 0xFFFFFFFFu;
#endif
  if (!b->ended && b->pos < size) {
#ifdef HC_LJ_TRACK_POSITIONS
    from = b->pos;
#endif
    c = data[b->pos++];
    if (c == 0xFFu) {
      while (b->pos < size && data[b->pos] == 0xFFu) ++b->pos;
      if (b->pos < size && data[b->pos] == 0u) {
        ++b->pos;
      } else {
        b->ended = 1u;
        b->marker_at = b->pos - 1u;
        c = 0;
#ifdef HC_LJ_TRACK_POSITIONS
        from = 0xFFFFFFFFu;
#endif
        b->pad += 8;
      }
    }
  } else {
    if (!b->ended) {
      b->ended = 1u;
      b->marker_at = size;
    }
    b->pad += 8;
  }
#ifdef HC_LJ_TRACK_POSITIONS
  b->from[b->loaded++ & 7u] = from;
#endif
  b->buf |= (hc_u64)c << (56 - b->nbits);
  b->nbits += 8;
}

/* Starts reading at bit `bit` of the data. */
HC_FN void hc_lj_bits_start(hc_lj_bits* b, const HC_GLOBAL hc_u8* data, hc_u32 size, hc_u64 bit) {
  b->buf = 0;
  b->nbits = 0;
  b->pad = 0;
  b->pos = (hc_u32)(bit >> 3);
  b->ended = 0;
  b->marker_at = 0;
#ifdef HC_LJ_TRACK_POSITIONS
  b->loaded = 0;
#endif
  if ((bit & 7u) != 0u) {
    hc_lj_bits_load(b, data, size);
    b->buf <<= (bit & 7u);
    b->nbits -= (hc_i32)(bit & 7u);
  }
}

/* At least 32 bits in the buffer (a code and its extra bits take at most 31): four bytes at
 * once where none of them is 0xFF (their loads independent of one another), else byte by
 * byte. */
HC_FN void hc_lj_bits_fill(hc_lj_bits* b, const HC_GLOBAL hc_u8* data, hc_u32 size) {
  if (b->nbits >= 32) return;
  if (!b->ended && size - b->pos >= 4u && b->pos <= size) {
    const hc_u32 c0 = data[b->pos], c1 = data[b->pos + 1u], c2 = data[b->pos + 2u],
                 c3 = data[b->pos + 3u];
    if (c0 != 0xFFu && c1 != 0xFFu && c2 != 0xFFu && c3 != 0xFFu) {
#ifdef HC_LJ_TRACK_POSITIONS
      hc_u32 k;
      for (k = 0; k < 4u; ++k) b->from[b->loaded++ & 7u] = b->pos + k;
#endif
      b->buf |= (hc_u64)(c0 << 24 | c1 << 16 | c2 << 8 | c3) << (32 - b->nbits);
      b->nbits += 32;
      b->pos += 4u;
      return;
    }
  }
  while (b->nbits < 32) hc_lj_bits_load(b, data, size);
}

HC_FN void hc_lj_bits_consume(hc_lj_bits* b, hc_i32 n) {
  b->buf <<= n;
  b->nbits -= n;
}

/* Whether bits past the data have been consumed (libjpeg-turbo's JWRN_HIT_MARKER). */
HC_FN int hc_lj_bits_exhausted(const hc_lj_bits* b) { return b->nbits < b->pad; }

/* The next difference with table `t` (the words of one Huffman table): T.81 F.2.2.1 and H.1.2.2
 * as libjpeg-turbo's jdlhuff.c decodes it (SSSS = 16: 32768 with no extra bits; a code not in
 * the table: 17 bits consumed, 0, *bad set). The buffer must hold 32 bits. */
HC_FN hc_i32 hc_lj_decode_diff(hc_lj_bits* b, const HC_GLOBAL hc_u32* t, hc_u32* bad) {
  const hc_u32 e = t[HC_LJ_HUFF_LOOK + (hc_u32)(b->buf >> (64 - HC_LJ_LOOK_BITS))];
  hc_i32 s;
  if (e != 0u) {
    hc_lj_bits_consume(b, (hc_i32)(e >> 8));
    s = (hc_i32)(e & 0xFFu);
  } else {
    hc_i32 l;
    s = -1;
    for (l = HC_LJ_LOOK_BITS + 1; l <= 16; ++l) {
      const hc_i32 code = (hc_i32)(b->buf >> (64 - l));
      if (code <= (hc_i32)t[HC_LJ_HUFF_MAXCODE + (hc_u32)l]) {
        const hc_u32 k = (hc_u32)(code + (hc_i32)t[HC_LJ_HUFF_VALOFFSET + (hc_u32)l]) & 0xFFu;
        s = (hc_i32)((t[HC_LJ_HUFF_SYMBOLS + (k >> 2)] >> ((k & 3u) * 8u)) & 0xFFu);
        hc_lj_bits_consume(b, l);
        break;
      }
    }
    if (s < 0) {
      hc_lj_bits_consume(b, 17);
      *bad = 1u;
      return 0;
    }
  }
  if (s == 0) return 0;
  if (s >= 16) return 32768;
  {
    const hc_i32 r = (hc_i32)(b->buf >> (64 - s));
    hc_lj_bits_consume(b, s);
    return r < (1 << (s - 1)) ? r - (1 << s) + 1 : r;
  }
}

/* The entry of row `row` of a scan's row table. */
HC_FN hc_u64 hc_lj_row_start(const HC_GLOBAL hc_u32* job, const HC_GLOBAL hc_u32* scan,
                             hc_u32 row) {
  const HC_GLOBAL hc_u32* rows = job + scan[HC_LJ_S_ROWS_AT];
  if (scan[HC_LJ_S_WIDE]) {
    const hc_u32 lo = rows[2u * row], hi = rows[2u * row + 1u];
    return (lo == HC_LJ_NO_DATA && hi == HC_LJ_NO_DATA) ? (hc_u64)HC_LJ_NO_DATA
                                                        : ((hc_u64)hi << 32 | lo);
  }
  return rows[row];
}

/* The type byte of plane row y, the first of its coded row when `lead`. */
HC_FN hc_u32 hc_lj_row_type(const HC_GLOBAL hc_u32* scan, hc_u32 y, int lead, int no_data) {
  const hc_u32 restart = scan[HC_LJ_S_RESTART];
  const int first = lead && (y == 0u || (restart != 0u && y % restart == 0u) || no_data);
  return first ? HC_LJ_FIRST_ROW : scan[HC_LJ_S_PREDICTOR];
}

/* The residual stage: coded row `row` of scan `scan_index` decoded from its row table entry and
 * the file's bytes into the scan's plane (type bytes and differences); `status` gets the coded
 * row's HC_LJ_STATUS_WORDS. */
HC_FN void hc_lj_residual_row(const HC_GLOBAL hc_u32* job, const HC_GLOBAL hc_u8* file,
                              hc_u32 scan_index, HC_GLOBAL hc_u8* plane, HC_GLOBAL hc_u32* status,
                              hc_u32 row) {
  const HC_GLOBAL hc_u32* scan = job + job[HC_LJ_H_SCAN_AT + scan_index];
  const hc_u32 width = scan[HC_LJ_S_WIDTH], comps = scan[HC_LJ_S_COMPS];
  const hc_u32 mh = scan[HC_LJ_S_MCU_H], mv = scan[HC_LJ_S_MCU_V];
  const hc_u32 row_bytes = 2u * width * comps;
  const hc_u64 stride = (hc_u64)row_bytes + 1u;
  const HC_GLOBAL hc_u8* data = file + scan[HC_LJ_S_DATA];
  const hc_u32 size = scan[HC_LJ_S_DATA_BYTES];
  const hc_u32 y0 = row * mv;
  HC_GLOBAL hc_u8* out;
  const HC_GLOBAL hc_u32* tables[4];
  hc_u64 start;
  hc_u32 x, c, yy, bad = 0, flags = 0, where = 0;
  int no_data, first;
  hc_lj_bits b;
  if (y0 >= scan[HC_LJ_S_HEIGHT]) return;
  out = plane + (hc_u64)y0 * stride;
  start = hc_lj_row_start(job, scan, row);
  no_data = start == (hc_u64)HC_LJ_NO_DATA;
  first = hc_lj_row_type(scan, y0, 1, no_data) == HC_LJ_FIRST_ROW;
  for (yy = 0; yy < mv; ++yy)
    out[yy * stride] = (hc_u8)hc_lj_row_type(scan, y0 + yy, yy == 0u, no_data);
  for (c = 0; c < comps; ++c)
    tables[c] = scan + HC_LJ_SCAN_WORDS + scan[HC_LJ_S_TABLE + c] * HC_LJ_HUFF_WORDS;
  status[HC_LJ_STATUS_WORDS * row] = 0;
  status[HC_LJ_STATUS_WORDS * row + 1u] = 0;
  if (no_data) {
    for (yy = 0; yy < mv; ++yy)
      for (x = 0; x < row_bytes; ++x) out[yy * stride + 1u + x] = 0;
    for (c = 0; c < comps; ++c) {
      out[1u + 2u * c] = (hc_u8)(scan[HC_LJ_S_INITIAL] & 0xFFu);
      out[2u + 2u * c] = (hc_u8)(scan[HC_LJ_S_INITIAL] >> 8);
    }
    return;
  }
  hc_lj_bits_start(&b, data, size, start);
  if (mh == 1u && mv == 1u) {
    for (x = 0; x < width; ++x) {
      for (c = 0; c < comps; ++c) {
        hc_u32 d;
        hc_lj_bits_fill(&b, data, size);
        d = (hc_u32)hc_lj_decode_diff(&b, tables[c], &bad);
        if (x == 0u && first) d += scan[HC_LJ_S_INITIAL];
        out[1u + 2u * (x * comps + c)] = (hc_u8)(d & 0xFFu);
        out[2u + 2u * (x * comps + c)] = (hc_u8)((d >> 8) & 0xFFu);
      }
      if (bad && where == 0u) where = b.pos + 1u;
    }
  } else {
    hc_u32 m, xx;
    for (m = 0; m < width / mh; ++m)
      for (c = 0; c < comps; ++c)
        for (yy = 0; yy < mv; ++yy)
          for (xx = 0; xx < mh; ++xx) {
            const hc_u64 at = yy * stride + 1u + 2u * ((m * mh + xx) * comps + c);
            hc_u32 d;
            hc_lj_bits_fill(&b, data, size);
            d = (hc_u32)hc_lj_decode_diff(&b, tables[c], &bad);
            if (m == 0u && xx == 0u && yy == 0u && first) d += scan[HC_LJ_S_INITIAL];
            out[at] = (hc_u8)(d & 0xFFu);
            out[at + 1u] = (hc_u8)((d >> 8) & 0xFFu);
            if (bad && where == 0u) where = b.pos + 1u;
          }
  }
  if (bad) flags |= HC_LJ_ST_BAD_CODE;
  if (hc_lj_bits_exhausted(&b)) {
    if (!bad) where = b.marker_at + 1u;
    flags |= HC_LJ_ST_HIT_MARKER;
  }
  status[HC_LJ_STATUS_WORDS * row] = flags;
  status[HC_LJ_STATUS_WORDS * row + 1u] = where == 0u ? 0u : where - 1u;
}

/* The prediction of T.81 Table H.1 for predictor p (2..7) from Ra (left), Rb (above) and Rc
 * (above-left), as libjpeg-turbo's jlossls.h computes it. */
HC_FN hc_i32 hc_lj_predict(hc_u32 p, hc_i32 ra, hc_i32 rb, hc_i32 rc) {
  return p == 1u   ? ra
         : p == 2u ? rb
         : p == 3u ? rc
         : p == 4u ? ra + rb - rc
         : p == 5u ? ra + HC_RIGHT_SHIFT(rb - rc, 1)
         : p == 6u ? rb + HC_RIGHT_SHIFT(ra - rc, 1)
                   : HC_RIGHT_SHIFT(ra + rb, 1);
}

/* The wavefront engine's solve for lossless JPEG (the HC_WF_SOLVE of wavefront_body.h): the
 * n bytes (n even, at most HC_WF_CHUNK) at `cur`, byte `at` of the row, replaced in place by the
 * samples their differences give; `bpp` bytes per pixel (2 x components, a constant where this
 * is inlined); left/upl the 8 bytes before the chunk in this row and the row above. */
HC_FN void hc_lj_solve_chunk(hc_i32 type, const hc_u32 bpp, hc_u32 at, HC_LOCAL hc_u8* cur,
                             const HC_LOCAL hc_u8* up, hc_u32 n, hc_u32* left, hc_u32* upl) {
  hc_u32 w[8 + HC_WF_CHUNK], u[8 + HC_WF_CHUNK], raw[HC_WF_CHUNK];
  hc_u32 j;
  for (j = 0; j < 8u; ++j) {
    w[j] = left[j];
    u[j] = upl[j];
  }
  for (j = 0; j < HC_WF_CHUNK; ++j) {
    raw[j] = cur[j];
    u[8u + j] = up[j];
  }
  for (j = 0; j < HC_WF_CHUNK; j += 2u) {
    const hc_u32 k = 8u + j;
    const hc_i32 ra = (hc_i32)(w[k - bpp] | w[k - bpp + 1u] << 8);
    const hc_i32 rb = (hc_i32)(u[k] | u[k + 1u] << 8);
    const hc_i32 rc = (hc_i32)(u[k - bpp] | u[k - bpp + 1u] << 8);
    hc_i32 pred;
    hc_u32 v;
    if ((hc_u32)type == HC_LJ_FIRST_ROW)
      pred = ra;
    else if (at + j < bpp)
      pred = (hc_u32)type == HC_LJ_FROM_FIRST ? 0 : rb;
    else if ((hc_u32)type == HC_LJ_FROM_FIRST)
      pred = ra;
    else
      pred = hc_lj_predict((hc_u32)type, ra, rb, rc);
    v = ((raw[j] | raw[j + 1u] << 8) + (hc_u32)pred) & 0xFFFFu;
    w[k] = v & 0xFFu;
    w[k + 1u] = v >> 8;
  }
  for (j = 0; j < HC_WF_CHUNK; ++j)
    if (j < n) cur[j] = (hc_u8)w[8u + j];
  for (j = 0; j < 8u; ++j) {
    left[j] = w[HC_WF_CHUNK + j];
    upl[j] = u[HC_WF_CHUNK + j];
  }
}

/* hc_lj_solve_chunk for 1..4 components, each with its own constant. */
HC_FN void hc_lj_solve_chunk_any(hc_i32 type, hc_u32 bpp, hc_u32 at, HC_LOCAL hc_u8* cur,
                                 const HC_LOCAL hc_u8* up, hc_u32 n, hc_u32* left, hc_u32* upl) {
  switch (bpp) {
    case 2u:
      hc_lj_solve_chunk(type, 2u, at, cur, up, n, left, upl);
      break;
    case 4u:
      hc_lj_solve_chunk(type, 4u, at, cur, up, n, left, upl);
      break;
    case 6u:
      hc_lj_solve_chunk(type, 6u, at, cur, up, n, left, upl);
      break;
    default:
      hc_lj_solve_chunk(type, 8u, at, cur, up, n, left, upl);
      break;
  }
}

#define HC_LJ_NO_UP(type) ((hc_u32)(type) >= HC_LJ_FIRST_ROW)

#define HC_WF_FN(name) hc_lj_##name
#define HC_WF_SOLVE hc_lj_solve_chunk_any
#define HC_WF_NO_UP HC_LJ_NO_UP
#include "core/portable/wavefront_body.h"

/* Sample i (of row_samples) of a plane row, and its replacement. */
HC_FN hc_u32 hc_lj_get(const HC_GLOBAL hc_u8* row, hc_u32 i) {
  return (hc_u32)row[1u + 2u * i] | (hc_u32)row[2u + 2u * i] << 8;
}
HC_FN void hc_lj_put(HC_GLOBAL hc_u8* row, hc_u32 i, hc_u32 v) {
  row[1u + 2u * i] = (hc_u8)(v & 0xFFu);
  row[2u + 2u * i] = (hc_u8)((v >> 8) & 0xFFu);
}

/* Predictor 1's first column: each component's samples at x = 0 down the whole plane, a
 * segmented prefix sum (modulo 2^16, restarting at each interval's first row) by one work-group
 * of HC_LJ_COLUMN_LANES: each lane sums a block of rows, lane 0 carries the blocks' sums from
 * one to the next, then each lane writes its block from its carry. Each row's type becomes
 * HC_LJ_FROM_FIRST, so that the rows are then solved side by side (the engine's bands). */
#define HC_LJ_COLUMN_LANES 256
typedef struct hc_lj_column_local {
  hc_u32 sum[HC_LJ_COLUMN_LANES][4];
  hc_u32 reset[HC_LJ_COLUMN_LANES];
} hc_lj_column_local;

HC_FN void hc_lj_first_column(HC_GLOBAL hc_u8* plane, hc_u32 height, hc_u32 width, hc_u32 comps,
                              hc_u32 lane, hc_u32 lanes, HC_LOCAL hc_lj_column_local* loc) {
  const hc_u64 stride = 2ull * width * comps + 1u;
  const hc_u32 per = (height + HC_LJ_COLUMN_LANES - 1u) / HC_LJ_COLUMN_LANES;
  hc_u32 b, y, c;
  for (b = lane; b < HC_LJ_COLUMN_LANES; b += lanes) {
    hc_u32 s[4] = {0, 0, 0, 0}, reset = 0;
    const hc_u32 end = hc_min_u32(height, (b + 1u) * per);
    for (y = b * per; y < end; ++y) {
      const HC_GLOBAL hc_u8* row = plane + (hc_u64)y * stride;
      const int first = row[0] == HC_LJ_FIRST_ROW;
      for (c = 0; c < comps; ++c)
        s[c] = first ? hc_lj_get(row, c) : (s[c] + hc_lj_get(row, c)) & 0xFFFFu;
      reset |= (hc_u32)first;
    }
    for (c = 0; c < 4u; ++c) loc->sum[b][c] = s[c];
    loc->reset[b] = reset;
  }
  HC_BARRIER();
  if (lane == 0u) {
    hc_u32 carry[4] = {0, 0, 0, 0};
    for (b = 0; b < HC_LJ_COLUMN_LANES; ++b)
      for (c = 0; c < 4u; ++c) {
        const hc_u32 s = loc->sum[b][c];
        loc->sum[b][c] = carry[c]; /* the value above the block's first row */
        carry[c] = loc->reset[b] ? s : (carry[c] + s) & 0xFFFFu;
      }
  }
  HC_BARRIER();
  for (b = lane; b < HC_LJ_COLUMN_LANES; b += lanes) {
    hc_u32 v[4];
    const hc_u32 end = hc_min_u32(height, (b + 1u) * per);
    for (c = 0; c < 4u; ++c) v[c] = loc->sum[b][c];
    for (y = b * per; y < end; ++y) {
      HC_GLOBAL hc_u8* row = plane + (hc_u64)y * stride;
      const int first = row[0] == HC_LJ_FIRST_ROW;
      for (c = 0; c < comps; ++c) {
        v[c] = first ? hc_lj_get(row, c) : (v[c] + hc_lj_get(row, c)) & 0xFFFFu;
        hc_lj_put(row, c, v[c]);
      }
      if (!first) row[0] = (hc_u8)HC_LJ_FROM_FIRST;
    }
  }
}

/* Row y along its width from its first pixel (final already): each sample from its left
 * neighbour (predictor 1, and an interval's first row whatever the predictor). With
 * `first_only`, rows other than an interval's first are left alone. */
HC_FN void hc_lj_row_sums(HC_GLOBAL hc_u8* plane, hc_u32 height, hc_u32 width, hc_u32 comps,
                          int first_only, hc_u32 y) {
  const hc_u32 n = width * comps;
  HC_GLOBAL hc_u8* row;
  hc_u32 i, v[4];
  if (y >= height) return;
  row = plane + (hc_u64)y * (2ull * n + 1u);
  if (first_only && row[0] != HC_LJ_FIRST_ROW) return;
  for (i = 0; i < comps; ++i) v[i] = hc_lj_get(row, i);
  for (i = comps; i < n; ++i) {
    const hc_u32 c = i % comps;
    v[c] = (v[c] + hc_lj_get(row, i)) & 0xFFFFu;
    hc_lj_put(row, i, v[c]);
  }
}

/* Predictor 2: sample column i (of width x comps) down the plane, each sample from the one
 * above, an interval's first row (solved before) restarting the column. */
HC_FN void hc_lj_column_sums(HC_GLOBAL hc_u8* plane, hc_u32 height, hc_u32 width, hc_u32 comps,
                             hc_u32 i) {
  const hc_u32 n = width * comps;
  const hc_u64 stride = 2ull * n + 1u;
  hc_u32 y, v = 0;
  if (i >= n) return;
  for (y = 0; y < height; ++y) {
    HC_GLOBAL hc_u8* row = plane + (hc_u64)y * stride;
    const hc_u32 d = hc_lj_get(row, i);
    if (row[0] == HC_LJ_FIRST_ROW) {
      v = d;
    } else {
      v = (v + d) & 0xFFFFu;
      hc_lj_put(row, i, v);
    }
  }
}

/* Output pixel (x, y): each channel from its scan's plane, scaled by 2^Pt, as 8-bit samples or
 * 16-bit big-endian ones (the layout of hetcodec::Image). */
HC_FN void hc_lj_unpack_pixel(const HC_GLOBAL hc_u32* job, const HC_GLOBAL hc_u8* planes,
                              HC_GLOBAL hc_u8* out, hc_u32 x, hc_u32 y) {
  const hc_u32 width = job[HC_LJ_H_WIDTH], channels = job[HC_LJ_H_CHANNELS];
  const hc_u32 depth = job[HC_LJ_H_DEPTH];
  HC_GLOBAL hc_u8* o;
  hc_u32 c;
  if (x >= width || y >= job[HC_LJ_H_HEIGHT]) return;
  o = out + ((hc_u64)y * width + x) * channels * depth;
  for (c = 0; c < channels; ++c) {
    const HC_GLOBAL hc_u32* ch = job + HC_LJ_H_CHANNEL + HC_LJ_CHANNEL_WORDS * c;
    const hc_u64 at = (hc_u64)ch[0] | (hc_u64)ch[1] << 32;
    const hc_u32 comps = ch[2], index = ch[3] & 0xFFu, pt = ch[3] >> 8;
    const HC_GLOBAL hc_u8* row = planes + at + (hc_u64)y * (2ull * ch[4] * comps + 1u);
    const hc_u32 v = (hc_lj_get(row, x * comps + index) << pt) & 0xFFFFu;
    if (depth == 1u) {
      o[c] = (hc_u8)(v & 0xFFu);
    } else {
      o[2u * c] = (hc_u8)(v >> 8);
      o[2u * c + 1u] = (hc_u8)(v & 0xFFu);
    }
  }
}

/* Output pixels (x, y) for y = y_first, y_first + y_step, ... */
HC_FN void hc_lj_unpack_column(const HC_GLOBAL hc_u32* job, const HC_GLOBAL hc_u8* planes,
                               HC_GLOBAL hc_u8* out, hc_u32 x, hc_u32 y_first, hc_u32 y_step) {
  hc_u32 y;
  for (y = y_first; y < job[HC_LJ_H_HEIGHT]; y += y_step)
    hc_lj_unpack_pixel(job, planes, out, x, y);
}

#endif /* HETCODEC_PORTABLE_LJPEG_H */
