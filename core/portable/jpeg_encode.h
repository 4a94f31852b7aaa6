/* The JPEG encode stages' bodies (DESIGN.md §3 "JPEG encode"), one for CUDA
 * (kernels_cu/jpeg_encode.cu), OpenCL (kernels_cl/jpeg_encode.cl) and the CPU reference
 * (backends/cpu/jpeg_encode_kernels.cpp), whose files equal libjpeg-turbo's byte for byte:
 *
 *   HC_JENC_BLOCKS     coded blocks, 32 of one image a work-group (ITU-T T.81 A.2: each MCU's
 *                      blocks, component by component, in raster order inside the MCU), from
 *                      their MCUs' pixels staged in local memory: colour conversion
 *                      (jccolor.c), downsampling with libjpeg's edge replication and alternating
 *                      bias (jcprepct.c, jcsample.c), the integer FDCT (jfdctint.c),
 *                      quantisation (jcdctmgr.c), zigzag; libjpeg's dummy blocks at the right and
 *                      bottom edges of partial MCUs (jccoefct.c) get their DC and no AC; without
 *                      optimised tables, the AC bits of each block's 8 shares (HC_JENC_PACK's)
 *   HC_JENC_HIST       symbol counts for optimised tables (jchuff.c htest_one_block)
 *   HC_JENC_BITS       with optimised tables, each block's bits and its shares' AC bits (jchuff.c
 *                      encode_one_block: the DC difference from the previous block of its
 *                      component, reset at restart markers)
 *   HC_JENC_SCAN       an exclusive scan in one launch (`arg`, each work-group taking a ticket,
 *                      publishing its aggregate, then adding up those of the tickets before
 *                      its own, read in parallel) of one of two arrays, whose entries it makes as
 *                      it goes: the blocks' bits (without optimised tables, the DC's added to the
 *                      shares' AC bits HC_JENC_BLOCKS left), each block that ends a restart
 *                      interval padding the position after it to a byte (T.81 F.1.2.3, jchuff.c
 *                      flush_bits), so that the scan gives every block's first bit and every
 *                      interval's first byte; and the 0xFF bytes per chunk of the packed data
 *   HC_JENC_PACK       each block's codes into the packed data, big-endian bit order, 8 lanes a
 *                      block, each after the bits of the lanes before it, a work-group's blocks
 *                      (a run of bits) put together in local memory and written out whole (its
 *                      first and last word by atomic OR: the work-groups beside it may share
 *                      them, and so the packed data is all zeroes before it: HC_JENC_SCATTER
 *                      zeroes what it has read, and the host zeroes a new buffer); the last block
 *                      of an interval adds its padding; where each interval starts
 *   HC_JENC_SCATTER    the packed bytes to the output, a 0x00 after each 0xFF (F.1.2.3), with
 *                      the RSTn marker before each interval but an image's first; where each
 *                      image starts; the packed data and its 0xFF counts zeroed once read.
 *                      (An ITEM stage: PoCL's work-group compiler breaks it inside a GROUP
 *                      stage's sweep.)
 *
 * A launch codes a batch of images (one or many): their blocks, restart intervals and packed
 * bytes are numbered across the batch, image after image, so that each stage is one launch for
 * all of them and the prefix sums run over the whole batch. The packed data holds the intervals
 * back to back, each padded to a byte and without markers; a packed byte i of interval k (of
 * image m) goes to i + (0xFF bytes before i) + 2 (k - m) in the output: an RSTn after every
 * interval but an image's last. Image m's entropy-coded data is the output from its first
 * interval's first byte to the next image's. Counts the host cannot know before the kernels ran
 * (the packed bytes) are read by the stages from the work buffer, and those stages loop over a
 * launch the host sizes from a bound on them. The packed data and its 0xFF counts lie in a
 * buffer of their own (`data`), their layout set by the packed size. C++, CUDA and OpenCL C. */
#ifndef HETCODEC_PORTABLE_JPEG_ENCODE_H
#define HETCODEC_PORTABLE_JPEG_ENCODE_H

#include "core/portable/jpeg_fdct.h"
#include "core/portable/jpeg_zigzag.h"
#include "core/portable/kernel.h"

#define HC_JENC_STAGE_LIST(X)                  \
  X(HC_JENC_BLOCKS, jpeg_encode_blocks, GROUP) \
  X(HC_JENC_HIST, jpeg_encode_hist, GROUP)     \
  X(HC_JENC_BITS, jpeg_encode_bits, ITEM)      \
  X(HC_JENC_SCAN, jpeg_encode_scan, GROUP)     \
  X(HC_JENC_PACK, jpeg_encode_pack, GROUP)     \
  X(HC_JENC_SCATTER, jpeg_encode_scatter, ITEM)
#define HC_JENC_STAGE_ENUM(stage, name, kind) stage,
enum { HC_JENC_STAGE_LIST(HC_JENC_STAGE_ENUM) HC_JENC_STAGES };
#undef HC_JENC_STAGE_ENUM

#define HC_JENC_ITEM_LANES 128u  /* an ITEM stage's work-group */
#define HC_JENC_GROUP_LANES 256u /* a GROUP stage's work-group */
#define HC_JENC_SCAN_GROUPS 128u /* at most, work-groups of HC_JENC_SCAN */
#define HC_JENC_HIST_GROUPS 64u  /* at most, work-groups of HC_JENC_HIST */
#define HC_JENC_GROUP_BLOCKS 32u /* coded blocks of a work-group of HC_JENC_BLOCKS */
#define HC_JENC_LOOP_ITEMS 65536u /* at most, items of the stages that loop over a device count */
#define HC_JENC_FF_CHUNK 32u      /* packed bytes per 0xFF count */
/* The arrays HC_JENC_SCAN scans (its `arg`). */
#define HC_JENC_SCAN_POS 0u /* blocks + 1 entries: bits -> first bit of each block */
#define HC_JENC_SCAN_FF 1u  /* chunks + 1: 0xFF bytes -> 0xFF bytes before each chunk */
/* A scan's status in the work buffer (at w_sums, a scan after the other): its ticket counter,
 * then each ticket's aggregate (its c + 1, then its k + 1: 0 until published). */
#define HC_JENC_SCAN_STATUS_WORDS (1u + 2u * HC_JENC_SCAN_GROUPS)

/* Words of the work buffer's results (at w_results). */
#define HC_JENC_R_BITS 0u  /* the packed bits, padding included (the blocks' scan) */
#define HC_JENC_R_BYTES 1u /* the packed bytes (the same) */
#define HC_JENC_R_FF 2u    /* the 0xFF bytes among them (the 0xFF counts' scan) */
#define HC_JENC_RESULT_WORDS 8u

/* The plan the host writes (host/src/jpeg_encoder.cpp) for a batch: the batch's header
 * (hc_jenc_batch) at word 0; its image table at HC_JENC_TABLE_WORD, images + 1 entries of
 * HC_JENC_TABLE_STRIDE words (each image's first block, BLOCKS work-group, restart interval and
 * HIST work-group across the batch; the last entry the totals); at group_map the image of each
 * BLOCKS work-group, then of each HIST work-group; and at plans each image's plan,
 * HC_JENC_PLAN_TOTAL_WORDS words apart: its hc_jenc_plan header, the quantisation tables
 * (2 x 64 words, natural order) at HC_JENC_QUANT_WORD, the code tables (4 x 256 words: DC 0,
 * AC 0, DC 1, AC 1; each entry length << 16 | code, length 0 for a symbol without a code) at
 * HC_JENC_CODES_WORD. The w_* fields are word offsets in the work or data buffer. Fixed-width
 * fields only: the same layout in C++, CUDA and OpenCL C. */
typedef struct hc_jenc_batch {
  hc_u32 images;
  hc_u32 blocks, intervals;   /* over the batch */
  hc_u32 groups, hist_groups; /* work-groups of HC_JENC_BLOCKS and HC_JENC_HIST */
  hc_u32 optimize;            /* HC_JENC_BLOCKS zeroes the images' histograms */
  hc_u32 group_map, plans;    /* words of the plan */
  hc_u32 pos_count;                         /* N + 1: the blocks' scan's entries */
  hc_u32 w_pos, w_intervals, w_sums, w_results, w_hist; /* in the work buffer */
  hc_u32 w_shares; /* ... each block's 8 shares' AC bits, 16 bits each (HC_JENC_PACK's lanes) */
  hc_u32 w_dc;     /* ... each block's quantised DC, 16 bits */
  hc_u32 reserved[14];
} hc_jenc_batch;

#define HC_JENC_BATCH_WORDS 32
#define HC_JENC_TABLE_WORD HC_JENC_BATCH_WORDS
#define HC_JENC_TABLE_STRIDE 4u
#define HC_JENC_T_BLOCK 0u    /* an image's first block */
#define HC_JENC_T_GROUP 1u    /* ... work-group of HC_JENC_BLOCKS */
#define HC_JENC_T_INTERVAL 2u /* ... restart interval */
#define HC_JENC_T_HIST 3u     /* ... work-group of HC_JENC_HIST */

/* The data buffer's layout, which follows from the packed bytes (known on the device once the
 * intervals are scanned, and read by the host to make the buffer): the 0xFF counts at word 0,
 * the packed data's words after them; the items of the stages that loop over them. */
HC_FN hc_u32 hc_jenc_ff_entries(hc_u32 bytes) { return bytes / HC_JENC_FF_CHUNK + 2u; }
/* The output's header, before its data: the results (HC_JENC_RESULT_WORDS words, as at
 * w_results), then each image's first byte in the data; its bytes, a multiple of 64. */
HC_FN hc_u32 hc_jenc_out_head(HC_GLOBAL const hc_jenc_batch* b) {
  return ((HC_JENC_RESULT_WORDS + b->images) * 4u + 63u) & ~63u;
}
/* The chunks of `bytes` packed bytes (the 0xFF counts' scan has one entry more). */
HC_FN hc_u32 hc_jenc_chunks(hc_u32 bytes) {
  return (bytes + HC_JENC_FF_CHUNK - 1u) / HC_JENC_FF_CHUNK;
}
HC_FN hc_u32 hc_jenc_w_data(hc_u32 bytes) { return (hc_jenc_ff_entries(bytes) + 3u) / 4u * 4u; }
HC_FN hc_u32 hc_jenc_data_words(hc_u32 bytes) { return (bytes + 3u) / 4u + 1u; }
HC_FN hc_u32 hc_jenc_loop_items(hc_u32 bytes) {
  return hc_min_u32(hc_jenc_data_words(bytes), HC_JENC_LOOP_ITEMS);
}
/* Work-groups of a scan of `entries` (1..HC_JENC_SCAN_GROUPS, each taking at least `per`): few
 * for small arrays, whose work-groups would have nothing to do. */
HC_FN hc_u32 hc_jenc_max(hc_u32 a, hc_u32 b) { return a > b ? a : b; }
HC_FN hc_u32 hc_jenc_groups_of(hc_u32 entries, hc_u32 per) {
  const hc_u32 g = (entries + per - 1u) / per;
  return g == 0u ? 1u : hc_min_u32(g, HC_JENC_SCAN_GROUPS);
}

/* An image's geometry. */
typedef struct hc_jenc_plan {
  hc_u32 width, height;
  hc_u32 comps;       /* 1 (gray) or 3 (YCbCr) */
  hc_u32 pixel_bytes; /* bytes per input pixel, 1..4 */
  hc_u32 off[3];      /* the byte of R, G, B in a pixel (gray input: off[0] its sample) */
  hc_u32 gray_in;     /* the input holds one colour sample per pixel */
  hc_u32 pixels_lo, pixels_hi; /* the first pixel's byte in the pixels buffer */
  hc_u32 hmax, vmax;
  hc_u32 h[3], v[3];          /* sampling factors (1 x 1 for a single component) */
  hc_u32 bw[3], bh[3];        /* the component's blocks that hold samples, across and down */
  hc_u32 first[3];            /* the component's first block in an MCU */
  hc_u32 mcus_x, mcus_y, bpm; /* MCUs across, down; blocks per MCU */
  hc_u32 interval;            /* MCUs per restart interval (all of them without restarts) */
  hc_u32 intervals;           /* R */
  hc_u32 blocks;              /* N: coded blocks, dummy blocks included */
  hc_u32 hist_groups;         /* work-groups of HC_JENC_HIST (1..HC_JENC_HIST_GROUPS) */
  hc_u32 hx[3], vx[3];        /* full-size pixels per sample of the component, across, down */
  hc_u32 last[3];             /* the component plane's last row that holds samples */
  hc_u32 mcu_sx, mcu_sy;      /* log2 of an MCU's pixels across, down (3 or 4: factors 1, 2) */
  hc_u32 reserved[7];
} hc_jenc_plan;

#define HC_JENC_PLAN_WORDS 64
#define HC_JENC_QUANT_WORD HC_JENC_PLAN_WORDS
#define HC_JENC_CODES_WORD (HC_JENC_QUANT_WORD + 128)
#define HC_JENC_ZZ_WORD (HC_JENC_CODES_WORD + 4 * 256) /* zigzag position of natural index i */
#define HC_JENC_RECIP_WORD (HC_JENC_ZZ_WORD + 64)      /* 2 x 64: floor(2^32 / (8 q)) + 1 */
#define HC_JENC_PLAN_TOTAL_WORDS (HC_JENC_RECIP_WORD + 128)
#define HC_JENC_HIST_WORDS (4 * 256) /* DC 0, AC 0, DC 1, AC 1 */

/* A block of 8 x 8 values in HC_JENC_BLOCKS's local memory: its rows HC_JENC_T_ROW words
 * apart, blocks HC_JENC_T_STRIDE apart, the padding putting the words that a warp's lanes (4
 * blocks of 8 rows or columns) take at once in different banks. */
#define HC_JENC_T_ROW 9u
#define HC_JENC_T_STRIDE 72u
/* Words of HC_JENC_BLOCKS's pixels: those of the MCUs its blocks belong to, each MCU's rows a
 * word of padding apart (at most 32 MCUs of 8 x 8 pixels, 6 of 16 x 16, 8 of 16 x 8 or 8 x 16,
 * 12 of 8 x 8 for 4:4:4), and later its blocks' quantised coefficients. */
#define HC_JENC_GROUP_PIXELS (HC_JENC_T_STRIDE * HC_JENC_GROUP_BLOCKS)

/* A GROUP stage's local memory. */
typedef struct hc_jenc_local {
  hc_u32 w[HC_JENC_HIST_WORDS];
  hc_i32 t[HC_JENC_T_STRIDE * HC_JENC_GROUP_BLOCKS]; /* HC_JENC_BLOCKS: its blocks' rows */
  hc_u32 px[HC_JENC_GROUP_PIXELS]; /* ... its pixels, Y | Cb << 8 | Cr << 16 (or gray), then
                                      its coefficients; HC_JENC_PACK: the words of its bits */
} hc_jenc_local;

/* Where value k (row k / 8, column k % 8) of block b lies in such a layout. */
HC_FN hc_u32 hc_jenc_at(hc_u32 b, hc_u32 k) {
  return b * HC_JENC_T_STRIDE + (k >> 3) * HC_JENC_T_ROW + (k & 7u);
}

HC_FN HC_GLOBAL const hc_jenc_plan* hc_jenc_header(HC_GLOBAL const hc_u32* plan) {
  return (HC_GLOBAL const hc_jenc_plan*)plan;
}
HC_FN HC_GLOBAL const hc_jenc_batch* hc_jenc_batch_of(HC_GLOBAL const hc_u32* plan) {
  return (HC_GLOBAL const hc_jenc_batch*)plan;
}
/* The packed bytes of the batch (once the blocks' scan has run; 0 from HC_JENC_BLOCKS until
 * then). */
HC_FN hc_u32 hc_jenc_packed(HC_GLOBAL const hc_jenc_batch* b, HC_GLOBAL const hc_u32* work) {
  return work[b->w_results + HC_JENC_R_BYTES];
}
/* Work-groups of scan `which` (HC_JENC_SCAN_*) for `bytes` packed bytes. */
HC_FN hc_u32 hc_jenc_scan_groups(HC_GLOBAL const hc_jenc_batch* b, hc_u32 which, hc_u32 bytes) {
  const hc_u32 entries = which == HC_JENC_SCAN_POS ? b->pos_count : hc_jenc_ff_entries(bytes);
  /* (a chunk's 0xFF bytes take 8 words' reads to make: a lane a chunk, where they are many) */
  return hc_jenc_groups_of(entries, which == HC_JENC_SCAN_FF ? HC_JENC_GROUP_LANES : 1024u);
}
/* The batch's share bits (at w_shares): block n's 8 from 8 n. */
HC_FN HC_GLOBAL hc_u16* hc_jenc_shares(HC_GLOBAL const hc_jenc_batch* b, HC_GLOBAL hc_u32* work) {
  return (HC_GLOBAL hc_u16*)(work + b->w_shares);
}
/* The batch's quantised DCs (at w_dc), block after block. */
HC_FN HC_GLOBAL hc_i16* hc_jenc_dcs(HC_GLOBAL const hc_jenc_batch* b, HC_GLOBAL hc_u32* work) {
  return (HC_GLOBAL hc_i16*)(work + b->w_dc);
}
/* Image m's plan, and its entry `field` of the image table. */
HC_FN HC_GLOBAL const hc_u32* hc_jenc_image_plan(HC_GLOBAL const hc_u32* plan, hc_u32 m) {
  return plan + hc_jenc_batch_of(plan)->plans + m * (hc_u32)HC_JENC_PLAN_TOTAL_WORDS;
}
HC_FN hc_u32 hc_jenc_first(HC_GLOBAL const hc_u32* plan, hc_u32 m, hc_u32 field) {
  return plan[HC_JENC_TABLE_WORD + m * HC_JENC_TABLE_STRIDE + field];
}
/* The image that item v of a numbering across the batch (`field` of the table) belongs to: the
 * last m with first <= v. */
HC_FN hc_u32 hc_jenc_image_of(HC_GLOBAL const hc_u32* plan, hc_u32 field, hc_u32 v) {
  hc_u32 lo = 0, hi = hc_jenc_batch_of(plan)->images;
  while (hi - lo > 1u) {
    const hc_u32 mid = lo + (hi - lo) / 2u;
    if (hc_jenc_first(plan, mid, field) <= v)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Bits of |v| (0 for 0): the JPEG magnitude category. Counted on v, or on ~v = |v| - 1 for a
 * negative v plus one where |v| is a power of two, never on |v| itself: LLVM would make an
 * absolute value the llvm.abs intrinsic, which Oclgrind cannot run. */
HC_FN hc_u32 hc_jenc_nbits(hc_i32 v) {
  const hc_u32 t = (hc_u32)(v < 0 ? ~v : v);
  return 32u - (hc_u32)HC_CLZ(t) + (v < 0 && (t & (t + 1u)) == 0u ? 1u : 0u);
}

/* Where coded block n lies: its component, and its column and row in that component's grid of
 * blocks (past bw or bh for a dummy block). */
HC_FN hc_u32 hc_jenc_locate(HC_GLOBAL const hc_jenc_plan* p, hc_u32 n, hc_u32* bx, hc_u32* by) {
  const hc_u32 m = n / p->bpm, r = n - m * p->bpm;
  const hc_u32 c = p->comps == 1u ? 0u : (r >= p->first[2] ? 2u : (r >= p->first[1] ? 1u : 0u));
  const hc_u32 k = r - p->first[c], yy = k / p->h[c], xx = k - yy * p->h[c];
  const hc_u32 my = m / p->mcus_x, mx = m - my * p->mcus_x;
  *bx = mx * p->h[c] + xx;
  *by = my * p->v[c] + yy;
  return c;
}

/* A pixel R | G << 8 | B << 16 as jccolor.c converts it (rgb_ycc_convert's fixed-point tables,
 * rgb_gray_convert's Y for gray output): Y | Cb << 8 | Cr << 16, each 0..255. */
HC_FN hc_u32 hc_jenc_ycc(hc_u32 v) {
  const hc_i32 r = (hc_i32)(v & 0xFFu), g = (hc_i32)((v >> 8) & 0xFFu), b = (hc_i32)(v >> 16);
  const hc_i32 chroma_offset = (128 << 16) + 32767;
  const hc_i32 y = HC_RIGHT_SHIFT(19595 * r + 38470 * g + 7471 * b + 32768, 16);
  const hc_i32 cb = HC_RIGHT_SHIFT(-11059 * r - 21709 * g + 32768 * b + chroma_offset, 16);
  const hc_i32 cr = HC_RIGHT_SHIFT(32768 * r - 27439 * g - 5329 * b + chroma_offset, 16);
  return (hc_u32)y | (hc_u32)cb << 8 | (hc_u32)cr << 16;
}

/* Eight downsampled samples of component c, row y of its plane, columns x0 .. x0 + 7, level
 * shifted, into d (jcsample.c: h2v1 and h2v2 with the alternating bias, int_downsample
 * otherwise; pixels past the image repeat its last column and row, and plane rows below the
 * last row group repeat its last row, as jcprepct.c pads), from the converted pixels `lp` of
 * the MCUs from m0 on (HC_JENC_BLOCKS holds them in local memory, MCU after MCU, each row by
 * row with a word of padding after each row, the image's edges already repeated). A block's
 * pixels lie in one MCU, so each of its source rows is a run of 8 hx pixels there. */
HC_FN void hc_jenc_row(HC_GLOBAL const hc_jenc_plan* p, HC_LOCAL const hc_u32* lp, hc_u32 m0,
                       hc_u32 c, hc_u32 y, hc_u32 x0, hc_i32* d) {
  const hc_u32 hx = p->hx[c], vx = p->vx[c], v = p->v[c], shift = 8u * c;
  const hc_u32 sx = p->mcu_sx, sy = p->mcu_sy, mw = (1u << sx) + 1u, mcu_words = mw << sy;
  const hc_u32 px0 = x0 * hx, mx = px0 >> sx, col = px0 & ((1u << sx) - 1u);
  hc_u32 g, y0, dy, j;
  hc_u32 rows[2]; /* where each source row's run starts */
  if (y > p->last[c]) y = p->last[c];
  g = v == 1u ? y : (v == 2u ? y >> 1 : y / v); /* (no division for the usual factors) */
  y0 = g * p->vmax + (y - g * p->v[c]) * vx;
  for (dy = 0; dy < 2u; ++dy) {
    const hc_u32 py = hc_min_u32(y0 + (dy < vx ? dy : 0u), p->height - 1u);
    rows[dy] = ((py >> sy) * p->mcus_x + mx - m0) * mcu_words + (py & ((1u << sy) - 1u)) * mw + col;
  }
  HC_UNROLL(8)
  for (j = 0; j < 8u; ++j) {
    const hc_u32 x = x0 + j, a = rows[0] + j * hx, b = rows[1] + j * hx;
    hc_i32 sum = (hc_i32)((lp[a] >> shift) & 0xFFu);
    if (hx == 2u) sum += (hc_i32)((lp[a + 1u] >> shift) & 0xFFu);
    if (vx == 2u) {
      sum += (hc_i32)((lp[b] >> shift) & 0xFFu);
      if (hx == 2u) sum += (hc_i32)((lp[b + 1u] >> shift) & 0xFFu);
    }
    if (hx == 1u && vx == 1u)
      d[j] = sum - 128;
    else if (vx == 1u) /* h2v1 */
      d[j] = HC_RIGHT_SHIFT(sum + (hc_i32)(x & 1u), 1) - 128;
    else if (hx == 2u) /* h2v2 */
      d[j] = HC_RIGHT_SHIFT(sum + 1 + (hc_i32)(x & 1u), 2) - 128;
    else /* h1v2: int_downsample */
      d[j] = ((sum + 1) >> 1) - 128;
  }
}

/* Where coded block n takes its samples from: its own place, or for a dummy block (jccoefct.c)
 * the block whose DC it repeats (the last real block to its left in its row, or for a row below
 * the image the MCU's last real column in the last real row). Returns the component; *dummy
 * says whether the block keeps its DC alone. */
HC_FN hc_u32 hc_jenc_source(HC_GLOBAL const hc_jenc_plan* p, hc_u32 n, hc_u32* bx, hc_u32* by,
                            int* dummy) {
  const hc_u32 c = hc_jenc_locate(p, n, bx, by);
  *dummy = *bx >= p->bw[c] || *by >= p->bh[c];
  if (*by >= p->bh[c]) {
    *bx = (*bx / p->h[c]) * p->h[c] + p->h[c] - 1u;
    *by = p->bh[c] - 1u;
  }
  if (*bx >= p->bw[c]) *bx = p->bw[c] - 1u;
  return c;
}

/* The code table slot (0..3) of component c's DC (ac 0) or AC (ac 1) table. */
HC_FN hc_u32 hc_jenc_slot(hc_u32 c, hc_u32 ac) { return (c == 0u ? 0u : 2u) + ac; }

/* Coefficient x quantised as hc_quantize(x, q) does (x / 8q rounded half away from zero), by
 * the reciprocal r = floor(2^32 / 8q) + 1 rather than a division. With a = |x| + 4q, a r / 2^32
 * exceeds a / 8q by less than a / 2^32, which leaves the floor alone while a < 2^32 / 8q (at
 * least 2^21); the FDCT's outputs stay below 2^17. |x| is taken as ~x + 1 for a negative x,
 * never as an absolute value: LLVM would make that the llvm.abs intrinsic, which Oclgrind
 * cannot run. */
HC_FN hc_i32 hc_jenc_quantize(hc_i32 x, hc_u32 q, hc_u32 r) {
  const hc_u32 neg = x < 0 ? 1u : 0u;
  const hc_u32 a = (hc_u32)(x < 0 ? ~x : x) + neg + 4u * q;
  const hc_u32 v = (hc_u32)(((hc_u64)a * r) >> 32);
  return neg ? -(hc_i32)v : (hc_i32)v;
}

/* Words of a HC_JENC_BLOCKS work-group's `info` (local memory): each block's component and
 * dummy flag, source column and row (HC_JENC_GROUP_BLOCKS each); per lane of the AC bits (8 a
 * block) the last non-zero coefficient of its share; each MCU's first pixel column and row;
 * the plan's quantisation tables, their reciprocals and the zigzag positions. */
#define HC_JENC_AC_LAST (3u * HC_JENC_GROUP_BLOCKS)
#define HC_JENC_MCU_X (HC_JENC_AC_LAST + 8u * HC_JENC_GROUP_BLOCKS)
#define HC_JENC_MCU_Y (HC_JENC_MCU_X + HC_JENC_GROUP_BLOCKS + 1u)
#define HC_JENC_L_QUANT (HC_JENC_MCU_Y + HC_JENC_GROUP_BLOCKS + 1u)
#define HC_JENC_L_RECIP (HC_JENC_L_QUANT + 128u)
#define HC_JENC_L_ZZ (HC_JENC_L_RECIP + 128u)
#define HC_JENC_L_END (HC_JENC_L_ZZ + 64u)

/* HC_JENC_BLOCKS: work-group g makes coded blocks g * HC_JENC_GROUP_BLOCKS ... (each 64
 * quantised coefficients in zigzag order) in phases over local memory: where each block takes
 * its samples from (a lane a block, into `info`); the pixels of their MCUs, converted to YCbCr
 * (into `lp`); each row's samples and its row pass of the FDCT (8 lanes a block, into `t` laid
 * out by hc_jenc_at); each column's pass and quantisation, into `lp` in zigzag order, laid out
 * the same way (a dummy block is its source block with its AC left out); the coefficients out
 * (8 lanes a block, a lane 8 consecutive ones; the DCs also to dcs, for the stages that take DC
 * differences), each lane noting its last non-zero coefficient; and with `shares` the AC bits
 * of each block's 8 shares with the plan's code tables. */
HC_FN void hc_jenc_blocks(HC_GLOBAL const hc_u8* pixels, HC_GLOBAL const hc_u32* plan,
                          HC_GLOBAL hc_i16* coefs, HC_GLOBAL hc_i16* dcs, HC_GLOBAL hc_u16* shares,
                          hc_u32 g, HC_LOCAL hc_i32* t, HC_LOCAL hc_u32* info, HC_LOCAL hc_u32* lp,
                          hc_u32 lane, hc_u32 lanes) {
  HC_GLOBAL const hc_jenc_plan* p = hc_jenc_header(plan);
  HC_GLOBAL const hc_u8* px = pixels + (((hc_u64)p->pixels_hi << 32) | p->pixels_lo);
  const hc_u32 first = g * HC_JENC_GROUP_BLOCKS;
  const hc_u32 count = hc_min_u32(HC_JENC_GROUP_BLOCKS, p->blocks - first);
  hc_u32 i, j, bx, by;
  int dummy;
  hc_i32 d[8];
  const hc_u32 m0 = first / p->bpm, mcus = (first + count - 1u) / p->bpm - m0 + 1u;
  const hc_u32 sx = p->mcu_sx, sm = p->mcu_sx + p->mcu_sy, mw = (1u << sx) + 1u;
  for (i = lane; i < count; i += lanes) { /* each block's component, source and dummy flag */
    const hc_u32 c = hc_jenc_source(p, first + i, &bx, &by, &dummy);
    info[i] = c | (dummy ? 4u : 0u);
    info[HC_JENC_GROUP_BLOCKS + i] = bx;
    info[2u * HC_JENC_GROUP_BLOCKS + i] = by;
  }
  for (i = lane; i < mcus; i += lanes) { /* each MCU's first pixel column and row */
    const hc_u32 my = (m0 + i) / p->mcus_x;
    info[HC_JENC_MCU_X + i] = (m0 + i - my * p->mcus_x) << sx;
    info[HC_JENC_MCU_Y + i] = my << p->mcu_sy;
  }
  for (i = lane; i < 128u; i += lanes) {
    info[HC_JENC_L_QUANT + i] = plan[HC_JENC_QUANT_WORD + i];
    info[HC_JENC_L_RECIP + i] = plan[HC_JENC_RECIP_WORD + i];
    if (i < 64u) info[HC_JENC_L_ZZ + i] = plan[HC_JENC_ZZ_WORD + i];
  }
  HC_BARRIER();
  for (i = lane; i < (mcus << sm); i += lanes) { /* the MCUs' pixels, the image's edges repeated */
    const hc_u32 k = i >> sm, e = i & ((1u << sm) - 1u), r = e >> sx, cx = e & ((1u << sx) - 1u);
    const hc_u32 x = hc_min_u32(info[HC_JENC_MCU_X + k] + cx, p->width - 1u);
    const hc_u32 y = hc_min_u32(info[HC_JENC_MCU_Y + k] + r, p->height - 1u);
    HC_GLOBAL const hc_u8* at = px + ((hc_u64)y * p->width + x) * p->pixel_bytes;
    lp[((k << p->mcu_sy) + r) * mw + cx] =
        p->gray_in ? at[p->off[0]]
                   : hc_jenc_ycc((hc_u32)at[p->off[0]] | (hc_u32)at[p->off[1]] << 8 |
                                 (hc_u32)at[p->off[2]] << 16);
  }
  HC_BARRIER();
  for (i = lane; i < 8u * count; i += lanes) { /* rows */
    const hc_u32 b = i >> 3, r = i & 7u;
    hc_jenc_row(p, lp, m0, info[b] & 3u, info[2u * HC_JENC_GROUP_BLOCKS + b] * 8u + r,
                info[HC_JENC_GROUP_BLOCKS + b] * 8u, d);
    hc_fdct_1d(d, 1, 0);
    HC_UNROLL(8)
    for (j = 0; j < 8u; ++j) t[hc_jenc_at(b, r * 8u + j)] = d[j];
  }
  HC_BARRIER();
  for (i = lane; i < 8u * count; i += lanes) { /* columns, into lp in zigzag order */
    const hc_u32 b = i >> 3, col = i & 7u;
    const hc_u32 table = (info[b] & 3u) == 0u ? 0u : 64u, ac = (info[b] & 4u) ? 0u : 1u;
    HC_UNROLL(8)
    for (j = 0; j < 8u; ++j) d[j] = t[hc_jenc_at(b, j * 8u + col)];
    hc_fdct_1d(d, 1, 1);
    HC_UNROLL(8)
    for (j = 0; j < 8u; ++j) {
      const hc_u32 nat = j * 8u + col, k = info[HC_JENC_L_ZZ + nat];
      const hc_i32 q = hc_jenc_quantize(d[j], info[HC_JENC_L_QUANT + table + nat],
                                        info[HC_JENC_L_RECIP + table + nat]);
      lp[hc_jenc_at(b, k)] = (hc_u32)(k == 0u || ac ? q : 0);
    }
  }
  HC_BARRIER();
  /* The coefficients out, 8 lanes a block, a lane 8 of zigzag order, noting the last non-zero
   * AC coefficient of its share (0: none). */
  for (i = lane; i < 8u * count; i += lanes) {
    const hc_u32 b = i >> 3, k0 = (i & 7u) * 8u, at = hc_jenc_at(b, k0);
    HC_GLOBAL hc_u32* out = (HC_GLOBAL hc_u32*)(coefs + ((hc_u64)first + b) * 64u + k0);
    hc_u32 k, last = 0;
    HC_UNROLL(4)
    for (k = 0; k < 8u; k += 2u) { /* (two coefficients a word: little-endian) */
      const hc_u32 v0 = lp[at + k], v1 = lp[at + k + 1u];
      out[k >> 1] = (v0 & 0xFFFFu) | v1 << 16;
      if (k0 + k != 0u && v0 != 0u) last = k0 + k;
      if (v1 != 0u) last = k0 + k + 1u;
    }
    if (k0 == 0u) dcs[first + b] = (hc_i16)lp[at];
    info[HC_JENC_AC_LAST + i] = last;
  }
  if (!shares) return;
  HC_BARRIER();
  /* Each share's AC bits, 8 lanes a block: its codes with the run from the last non-zero
   * coefficient before it, the last share's with the EOB. */
  for (i = lane; i < 8u * count; i += lanes) {
    const hc_u32 b = i >> 3, part = i & 7u, k0 = part * 8u;
    HC_GLOBAL const hc_u32* ac = plan + HC_JENC_CODES_WORD + 256u * hc_jenc_slot(info[b] & 3u, 1u);
    hc_u32 k, prev = 0, bits = 0;
    for (k = 0; k < part; ++k) prev = hc_jenc_max(prev, info[HC_JENC_AC_LAST + b * 8u + k]);
    for (k = k0 == 0u ? 1u : k0; k < k0 + 8u; ++k) {
      const hc_i32 v = (hc_i32)lp[hc_jenc_at(b, k)];
      hc_u32 run, sz;
      if (v == 0) continue;
      run = k - prev - 1u;
      sz = hc_jenc_nbits(v);
      bits += (run >> 4) * (ac[0xF0] >> 16) + (ac[(run & 15u) << 4 | sz] >> 16) + sz;
      prev = k;
    }
    if (part == 7u && prev < 63u) bits += ac[0] >> 16; /* EOB */
    shares[first * 8u + i] = (hc_u16)bits;
  }
}

/* The DC difference of coded block n of component c (the image's DCs at dcs): from the previous
 * block of c in coding order, or from 0 at the start of a restart interval. */
HC_FN hc_i32 hc_jenc_diff(HC_GLOBAL const hc_jenc_plan* p, HC_GLOBAL const hc_i16* dcs, hc_u32 n,
                          hc_u32 c) {
  const hc_u32 m = n / p->bpm, r = n - m * p->bpm;
  if (r > p->first[c]) return dcs[n] - dcs[n - 1u];
  if (m % p->interval == 0u) return dcs[n];
  return dcs[n] - dcs[n - p->bpm + p->h[c] * p->v[c] - 1u];
}


/* Block n's symbols (the image's coefficients at coefs, its DCs at dcs): with `hist` non-null each is counted there (local memory, atomically);
 * with `shares` non-null the AC bits of each of its 8 shares (coefficients 8 j .. 8 j + 7 of
 * zigzag order: the codes of their non-zero ones, the ZRLs before each, the EOB in the last)
 * are written there; returns the block's bits with the plan's code tables. */
HC_FN hc_u32 hc_jenc_symbols(HC_GLOBAL const hc_u32* plan, HC_GLOBAL const hc_i16* coefs,
                             HC_GLOBAL const hc_i16* dcs, hc_u32 n, HC_LOCAL hc_u32* hist,
                             HC_GLOBAL hc_u16* shares) {
  HC_GLOBAL const hc_jenc_plan* p = hc_jenc_header(plan);
  HC_GLOBAL const hc_i16* b = coefs + (hc_u64)n * 64u;
  hc_u32 bx, by, k, run = 0, bits, share = 0, sb = 0;
  const hc_u32 c = hc_jenc_locate(p, n, &bx, &by);
  HC_GLOBAL const hc_u32* dc = plan + HC_JENC_CODES_WORD + 256u * hc_jenc_slot(c, 0u);
  HC_GLOBAL const hc_u32* ac = plan + HC_JENC_CODES_WORD + 256u * hc_jenc_slot(c, 1u);
  const hc_u32 s = hc_jenc_nbits(hc_jenc_diff(p, dcs, n, c));
  HC_LOCAL hc_u32* hdc = hist ? hist + 256u * hc_jenc_slot(c, 0u) : hist;
  HC_LOCAL hc_u32* hac = hist ? hist + 256u * hc_jenc_slot(c, 1u) : hist;
  bits = (dc[s] >> 16) + s;
  if (hist) HC_ATOMIC_ADD_LOCAL(hdc + s, 1u);
  for (k = 1; k < 64u; ++k) {
    const hc_i32 v = b[k];
    hc_u32 sz, sym;
    if ((k >> 3) != share) { /* (each share's bits out as the next begins) */
      if (shares) shares[(hc_u64)n * 8u + share] = (hc_u16)sb;
      bits += sb;
      share = k >> 3;
      sb = 0;
    }
    if (v == 0) {
      ++run;
      continue;
    }
    for (; run >= 16u; run -= 16u) {
      sb += ac[0xF0] >> 16;
      if (hist) HC_ATOMIC_ADD_LOCAL(hac + 0xF0, 1u);
    }
    sz = hc_jenc_nbits(v);
    sym = run << 4 | sz;
    sb += (ac[sym] >> 16) + sz;
    if (hist) HC_ATOMIC_ADD_LOCAL(hac + sym, 1u);
    run = 0;
  }
  if (run > 0u) {
    sb += ac[0] >> 16;
    if (hist) HC_ATOMIC_ADD_LOCAL(hac, 1u);
  }
  if (shares) shares[(hc_u64)n * 8u + 7u] = (hc_u16)sb;
  return bits + sb;
}

/* HC_JENC_HIST: work-group g (of the batch's) counts the symbols of its share of its image's
 * blocks in local memory, then adds them to the image's histogram in the work buffer (zeroed by
 * HC_JENC_BLOCKS). */
HC_FN void hc_jenc_hist(HC_GLOBAL const hc_u32* plan, HC_GLOBAL const hc_i16* coefs,
                        HC_GLOBAL hc_u32* work, hc_u32 g, HC_LOCAL hc_u32* h, hc_u32 lane,
                        hc_u32 lanes) {
  HC_GLOBAL const hc_jenc_batch* b = hc_jenc_batch_of(plan);
  const hc_u32 m = plan[b->group_map + b->groups + g];
  HC_GLOBAL const hc_u32* mp = hc_jenc_image_plan(plan, m);
  HC_GLOBAL const hc_jenc_plan* p = hc_jenc_header(mp);
  const hc_u32 base = hc_jenc_first(plan, m, HC_JENC_T_BLOCK);
  HC_GLOBAL const hc_i16* mc = coefs + (hc_u64)base * 64u;
  HC_GLOBAL const hc_i16* dcs = hc_jenc_dcs(b, work) + base;
  const hc_u32 lg = g - hc_jenc_first(plan, m, HC_JENC_T_HIST);
  const hc_u32 per = (p->blocks + p->hist_groups - 1u) / p->hist_groups;
  const hc_u32 end = hc_min_u32(p->blocks, (lg + 1u) * per);
  hc_u32 i;
  for (i = lane; i < HC_JENC_HIST_WORDS; i += lanes) h[i] = 0;
  HC_BARRIER();
  for (i = lg * per + lane; i < end; i += lanes)
    hc_jenc_symbols(mp, mc, dcs, i, h, (HC_GLOBAL hc_u16*)0);
  HC_BARRIER();
  for (i = lane; i < HC_JENC_HIST_WORDS; i += lanes)
    if (h[i]) HC_ATOMIC_ADD(work + b->w_hist + m * HC_JENC_HIST_WORDS + i, h[i]);
}
/* The array a scan works on, and its entries. Selected without branches: PoCL's work-group
 * compiler cannot form its parallel regions around a branchy prologue before a barrier. (The
 * blocks' scan reads the 0xFF bytes' word in place of the packed bytes, which its last
 * work-group sets.) */
HC_FN HC_GLOBAL hc_u32* hc_jenc_scan_array(HC_GLOBAL const hc_jenc_batch* b, HC_GLOBAL hc_u32* work,
                                           HC_GLOBAL hc_u32* data, hc_u32 which, hc_u32* count) {
  const hc_u32 is_pos = which == HC_JENC_SCAN_POS;
  const hc_u32 bytes = work[b->w_results + (is_pos ? HC_JENC_R_FF : HC_JENC_R_BYTES)];
  *count = is_pos ? b->pos_count : hc_jenc_chunks(bytes) + 1u;
  return is_pos ? work + b->w_pos : data;
}

/* The entries [*first, *end) of work-group g's share of a scan of `count`, and of lane's share
 * of that. */
HC_FN void hc_jenc_share(hc_u32 count, hc_u32 groups, hc_u32 g, hc_u32 lane, hc_u32 lanes,
                         hc_u32* first, hc_u32* end) {
  const hc_u32 per = (count + groups - 1u) / groups;
  const hc_u32 g0 = hc_min_u32(count, g * per), g1 = hc_min_u32(count, g0 + per);
  const hc_u32 lper = (g1 - g0 + lanes - 1u) / lanes;
  *first = hc_min_u32(g1, g0 + lane * lper);
  *end = hc_min_u32(g1, *first + lper);
}

/* The restart interval of an image's block n, and an image's interval k's first block. */
HC_FN hc_u32 hc_jenc_interval_of(HC_GLOBAL const hc_jenc_plan* p, hc_u32 n) {
  return n / p->bpm / p->interval;
}
HC_FN hc_u32 hc_jenc_interval_first(HC_GLOBAL const hc_jenc_plan* p, hc_u32 k) {
  return hc_min_u32(p->blocks, k * p->interval * p->bpm);
}

/* A bit writer into zeroed words of local memory: bits go in at bit positions from the first
 * word's, MSB first, each whole word ORed in as its bytes lie in memory (little-endian words of
 * a big-endian stream). */
typedef struct hc_jenc_bw {
  HC_LOCAL hc_u32* out;
  hc_u32 word;  /* the word the pending bits start in */
  hc_u64 acc;   /* pending bits, the newest lowest */
  hc_u32 n;     /* pending bits, counted from the word's first bit */
} hc_jenc_bw;

HC_FN hc_u32 hc_jenc_bswap(hc_u32 v) {
  return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

HC_FN void hc_jenc_bw_start(hc_jenc_bw* w, HC_LOCAL hc_u32* out, hc_u32 bit) {
  w->out = out;
  w->word = bit >> 5;
  w->acc = 0;
  w->n = bit & 31u;
}

HC_FN void hc_jenc_bw_put(hc_jenc_bw* w, hc_u32 code, hc_u32 len) {
  if (len == 0u) return;
  w->acc = (w->acc << len) | (code & (len == 32u ? 0xFFFFFFFFu : ((1u << len) - 1u)));
  w->n += len;
  if (w->n >= 32u) {
    const hc_u32 v = (hc_u32)(w->acc >> (w->n - 32u));
    HC_ATOMIC_OR_LOCAL(w->out + w->word, hc_jenc_bswap(v));
    ++w->word;
    w->n -= 32u;
  }
}

HC_FN void hc_jenc_bw_end(hc_jenc_bw* w) {
  if (w->n > 0u)
    HC_ATOMIC_OR_LOCAL(w->out + w->word, hc_jenc_bswap((hc_u32)(w->acc << (32u - w->n))));
}

/* Words of a HC_JENC_PACK work-group's `s` (local memory): per lane (8 a block) the last
 * non-zero AC coefficient of its share, the last before its share, and its share's bits (its AC
 * bits, the block's DC bits added to the first share's); per block its image, the slot of its DC
 * table (its AC table's is next), its DC difference, its first bit and its end (with its
 * interval's padding). Its `t` holds the blocks' coefficients, lane i's j-th at
 * t[j * HC_JENC_P_LANES + i]; its `px` the words of its bits, from the word of its first bit. */
#define HC_JENC_P_LANES (8u * HC_JENC_GROUP_BLOCKS)
#define HC_JENC_P_LAST 0u
#define HC_JENC_P_BITS HC_JENC_P_LANES
#define HC_JENC_P_IMAGE (2u * HC_JENC_P_LANES)
#define HC_JENC_P_SLOT (HC_JENC_P_IMAGE + HC_JENC_GROUP_BLOCKS)
#define HC_JENC_P_DIFF (HC_JENC_P_SLOT + HC_JENC_GROUP_BLOCKS)
#define HC_JENC_P_START (HC_JENC_P_DIFF + HC_JENC_GROUP_BLOCKS)
#define HC_JENC_P_END (HC_JENC_P_START + HC_JENC_GROUP_BLOCKS)
/* (per lane: the last non-zero coefficient before its share) */
#define HC_JENC_P_PREV (HC_JENC_P_END + HC_JENC_GROUP_BLOCKS)

/* Lane i's share of its block's codes (jchuff.c encode_one_block) into w: coefficients
 * 8 part .. 8 part + 7 of zigzag order (at t, HC_JENC_P_LANES apart), the run from `prev`, the
 * last non-zero one before them; part 0 adds the DC difference, part 7 the EOB where the block
 * ends in zeros, with the code table of `dc` (DC) and the next (AC). */
HC_FN void hc_jenc_part(HC_GLOBAL const hc_u32* dc, HC_LOCAL const hc_i32* t, hc_u32 part,
                        hc_i32 diff, hc_u32 prev, hc_jenc_bw* w) {
  HC_GLOBAL const hc_u32* ac = dc + 256u; /* (the AC table's slot follows the DC table's) */
  hc_u32 j;
  if (part == 0u) {
    const hc_u32 s = hc_jenc_nbits(diff);
    hc_jenc_bw_put(w, dc[s] & 0xFFFFu, dc[s] >> 16);
    hc_jenc_bw_put(w, (hc_u32)(diff < 0 ? diff - 1 : diff), s);
  }
  for (j = part == 0u ? 1u : 0u; j < 8u; ++j) {
    const hc_i32 v = t[j * HC_JENC_P_LANES];
    const hc_u32 k = part * 8u + j;
    hc_u32 run, sz, sym;
    if (v == 0) continue;
    run = k - prev - 1u;
    sz = hc_jenc_nbits(v);
    sym = (run & 15u) << 4 | sz;
    for (; run >= 16u; run -= 16u) hc_jenc_bw_put(w, ac[0xF0] & 0xFFFFu, ac[0xF0] >> 16);
    hc_jenc_bw_put(w, ac[sym] & 0xFFFFu, ac[sym] >> 16);
    hc_jenc_bw_put(w, (hc_u32)(v < 0 ? v - 1 : v), sz);
    prev = k;
  }
  if (part == 7u && prev < 63u) hc_jenc_bw_put(w, ac[0] & 0xFFFFu, ac[0] >> 16);
}

/* Where the batch's block n (of image m) starts in the packed data, in bits (the blocks'
 * scan's); *end: where it ends, with its interval's padding if it is the interval's last. Where
 * the block starts its interval, the interval's first byte goes to w_intervals (for
 * HC_JENC_SCATTER). */
HC_FN hc_u32 hc_jenc_block_bit(HC_GLOBAL const hc_u32* plan, HC_GLOBAL hc_u32* work, hc_u32 m,
                               hc_u32 n, hc_u32* end) {
  HC_GLOBAL const hc_jenc_batch* bt = hc_jenc_batch_of(plan);
  HC_GLOBAL const hc_jenc_plan* p = hc_jenc_header(hc_jenc_image_plan(plan, m));
  HC_GLOBAL const hc_u32* pos = work + bt->w_pos;
  const hc_u32 ln = n - hc_jenc_first(plan, m, HC_JENC_T_BLOCK), r = hc_jenc_interval_of(p, ln);
  const hc_u32 start = pos[n];
  *end = pos[n + 1u];
  if (ln == hc_jenc_interval_first(p, r))
    work[bt->w_intervals + hc_jenc_first(plan, m, HC_JENC_T_INTERVAL) + r] = start / 8u;
  return start;
}

/* Lane i of a HC_JENC_PACK work-group: its share (of s[HC_JENC_P_BITS + i] bits) written into
 * the group's words after the shares before it, the last share of a block adding the padding
 * up to the block's end (its interval's, if any). */
HC_FN void hc_jenc_pack_lane(HC_GLOBAL const hc_u32* plan, HC_LOCAL const hc_i32* t,
                             HC_LOCAL const hc_u32* s, HC_LOCAL hc_u32* words, hc_u32 i) {
  const hc_u32 b = i >> 3, part = i & 7u, m = s[HC_JENC_P_IMAGE + b];
  HC_GLOBAL const hc_u32* codes =
      hc_jenc_image_plan(plan, m) + HC_JENC_CODES_WORD + 256u * s[HC_JENC_P_SLOT + b];
  const hc_u32 prev = s[HC_JENC_P_PREV + i];
  const hc_i32 diff = (hc_i32)s[HC_JENC_P_DIFF + b];
  const hc_u32 bits = s[HC_JENC_P_BITS + i];
  hc_u32 k, at;
  hc_jenc_bw w;
  if (bits == 0u) return;
  at = s[HC_JENC_P_START + b];
  for (k = 0; k < part; ++k) at += s[HC_JENC_P_BITS + b * 8u + k];
  hc_jenc_bw_start(&w, words, at - (s[HC_JENC_P_START] & ~31u));
  hc_jenc_part(codes, t + i, part, diff, prev, &w);
  if (part == 7u) hc_jenc_bw_put(&w, 0x7Fu, s[HC_JENC_P_END + b] - at - bits); /* padding */
  hc_jenc_bw_end(&w);
}

/* HC_JENC_PACK: work-group g codes the batch's blocks g * HC_JENC_GROUP_BLOCKS ... (a run of
 * the packed data's bits) into the packed data, 8 lanes a block, each lane 8 coefficients of
 * zigzag order: the coefficients into local memory, with each share's last non-zero one and
 * its AC bits (from w_shares); (a lane a block) the block's image, code tables, DC difference
 * and bits (its DC's added to its first share's), and each share's last non-zero coefficient
 * before it; each share's codes, after those of the shares before it, into words of local
 * memory (ORed in atomically: a word may hold the end of one share and the start of the next);
 * those words out, the first and the last ORed in atomically (the work-groups beside it may
 * share them). */
HC_FN void hc_jenc_pack(HC_GLOBAL const hc_u32* plan, HC_GLOBAL const hc_i16* coefs,
                        HC_GLOBAL hc_u32* work, HC_GLOBAL hc_u32* data, hc_u32 g,
                        HC_LOCAL hc_i32* t, HC_LOCAL hc_u32* s, HC_LOCAL hc_u32* words, hc_u32 lane,
                        hc_u32 lanes) {
  HC_GLOBAL const hc_jenc_batch* bt = hc_jenc_batch_of(plan);
  const hc_u32 first = g * HC_JENC_GROUP_BLOCKS;
  const hc_u32 count = hc_min_u32(HC_JENC_GROUP_BLOCKS, bt->blocks - first);
  HC_GLOBAL hc_u32* packed = data + hc_jenc_w_data(hc_jenc_packed(bt, work));
  HC_GLOBAL const hc_u16* shares = hc_jenc_shares(bt, work);
  hc_u32 i, j, k, w0, nw;
  for (i = lane; i < 8u * count; i += lanes) {
    const hc_u32 n = first + (i >> 3), k0 = (i & 7u) * 8u;
    hc_u32 last = 0;
    HC_UNROLL(8)
    for (j = 0; j < 8u; ++j) {
      const hc_i32 v = coefs[(hc_u64)n * 64u + k0 + j];
      t[j * HC_JENC_P_LANES + i] = v;
      if (k0 + j != 0u && v != 0) last = k0 + j;
    }
    s[HC_JENC_P_LAST + i] = last;
    s[HC_JENC_P_BITS + i] = shares[(hc_u64)first * 8u + i];
  }
  HC_BARRIER();
  for (i = lane; i < count; i += lanes) { /* each block's image, tables, DC difference, bits */
    const hc_u32 n = first + i, m = hc_jenc_image_of(plan, HC_JENC_T_BLOCK, n);
    const hc_u32 base = hc_jenc_first(plan, m, HC_JENC_T_BLOCK);
    HC_GLOBAL const hc_u32* mp = hc_jenc_image_plan(plan, m);
    HC_GLOBAL const hc_jenc_plan* p = hc_jenc_header(mp);
    hc_u32 bx, by, end;
    const hc_u32 c = hc_jenc_locate(p, n - base, &bx, &by);
    const hc_i32 diff = hc_jenc_diff(p, hc_jenc_dcs(bt, work) + base, n - base, c);
    const hc_u32 sz = hc_jenc_nbits(diff);
    s[HC_JENC_P_IMAGE + i] = m;
    s[HC_JENC_P_SLOT + i] = hc_jenc_slot(c, 0u);
    s[HC_JENC_P_DIFF + i] = (hc_u32)diff;
    s[HC_JENC_P_BITS + i * 8u] +=
        (mp[HC_JENC_CODES_WORD + 256u * hc_jenc_slot(c, 0u) + sz] >> 16) + sz;
    s[HC_JENC_P_START + i] = hc_jenc_block_bit(plan, work, m, n, &end);
    s[HC_JENC_P_END + i] = end;
    for (j = 0, k = 0; j < 8u; ++j) { /* each share's last non-zero coefficient before it */
      s[HC_JENC_P_PREV + i * 8u + j] = k;
      k = hc_jenc_max(k, s[HC_JENC_P_LAST + i * 8u + j]);
    }
  }
  HC_BARRIER();
  w0 = s[HC_JENC_P_START] >> 5;
  nw = (s[HC_JENC_P_END + count - 1u] + 31u) / 32u - w0;
  for (i = lane; i < nw; i += lanes) words[i] = 0;
  HC_BARRIER();
  for (i = lane; i < 8u * count; i += lanes) hc_jenc_pack_lane(plan, t, s, words, i);
  HC_BARRIER();
  for (i = lane; i < nw; i += lanes) {
    if (i == 0u || i + 1u == nw)
      HC_ATOMIC_OR(packed + w0 + i, words[i]);
    else
      packed[w0 + i] = words[i];
  }
}

/* Packed byte i. */
HC_FN hc_u32 hc_jenc_byte(HC_GLOBAL const hc_u32* data, hc_u32 i) {
  return (data[i >> 2] >> (8u * (i & 3u))) & 0xFFu;
}

/* The 0xFF bytes of chunk j of the packed data (0 for the last entry, past the bytes), a word
 * at a time (the bytes past the packed data in its last word are zeroes). */
HC_FN hc_u32 hc_jenc_chunk_ff(HC_GLOBAL const hc_u32* plan, HC_GLOBAL const hc_u32* work,
                              HC_GLOBAL const hc_u32* data, hc_u32 j) {
  const hc_u32 bytes = hc_jenc_packed(hc_jenc_batch_of(plan), work);
  HC_GLOBAL const hc_u32* packed = data + hc_jenc_w_data(bytes);
  const hc_u32 end = hc_min_u32((bytes + 3u) / 4u, (j + 1u) * (HC_JENC_FF_CHUNK / 4u));
  hc_u32 at, ff = 0;
  for (at = j * (HC_JENC_FF_CHUNK / 4u); at < end; ++at) {
    hc_u32 x = packed[at];
    x &= x >> 4; /* bit 0 of each byte: the AND of the byte's bits */
    x &= x >> 2;
    x &= x >> 1;
    ff += ((x & 0x01010101u) * 0x01010101u) >> 24;
  }
  return ff;
}

/* The batch's restart interval that packed byte i belongs to: the last k with first byte <= i. */
HC_FN hc_u32 hc_jenc_interval_of_byte(HC_GLOBAL const hc_jenc_batch* b,
                                      HC_GLOBAL const hc_u32* work, hc_u32 i) {
  HC_GLOBAL const hc_u32* starts = work + b->w_intervals;
  hc_u32 lo = 0, hi = b->intervals;
  while (hi - lo > 1u) {
    const hc_u32 mid = lo + (hi - lo) / 2u;
    if (starts[mid] <= i)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Chunk j of the packed data to the output's data (`out`), `ff` the 0xFF bytes before it: each
 * byte after the 0x00s stuffed and the markers of the intervals before it, a 0x00 after each
 * 0xFF (F.1.2.3); where an interval starts, the RSTn marker before it (none before an image's
 * first), or for an image's first interval the image's first byte in the data (into
 * `image_starts`). Each interval has a byte at least, so one starts where the byte's interval
 * changes, or at the chunk's first byte if that is its interval's. */
HC_FN void hc_jenc_scatter_chunk(HC_GLOBAL const hc_u32* plan, HC_GLOBAL hc_u32* work,
                                 HC_GLOBAL const hc_u32* data, HC_GLOBAL hc_u8* out,
                                 HC_GLOBAL hc_u32* image_starts, hc_u32 j, hc_u32 ff) {
  HC_GLOBAL const hc_jenc_batch* bt = hc_jenc_batch_of(plan);
  const hc_u32 bytes = hc_jenc_packed(bt, work);
  HC_GLOBAL const hc_u32* packed = data + hc_jenc_w_data(bytes);
  HC_GLOBAL const hc_u32* starts = work + bt->w_intervals;
  const hc_u32 first = j * HC_JENC_FF_CHUNK, end = hc_min_u32(bytes, first + HC_JENC_FF_CHUNK);
  hc_u32 k, m, b;
  int starting;
  if (first >= end) return;
  k = hc_jenc_interval_of_byte(bt, work, first);
  m = hc_jenc_image_of(plan, HC_JENC_T_INTERVAL, k);
  starting = starts[k] == first;
  for (b = first; b < end; ++b) {
    const hc_u32 v = hc_jenc_byte(packed, b);
    hc_u32 dst;
    while (k + 1u < bt->intervals && starts[k + 1u] <= b) {
      ++k;
      starting = 1;
      if (hc_jenc_first(plan, m + 1u, HC_JENC_T_INTERVAL) <= k) ++m;
    }
    dst = b + ff + 2u * (k - m);
    if (starting) {
      const hc_u32 k0 = hc_jenc_first(plan, m, HC_JENC_T_INTERVAL);
      if (k == k0) {
        image_starts[m] = dst;
      } else {
        out[dst - 2u] = 0xFFu;
        out[dst - 1u] = (hc_u8)(0xD0u + ((k - 1u - k0) & 7u));
      }
      starting = 0;
    }
    out[dst] = (hc_u8)v;
    if (v == 0xFFu) {
      out[dst + 1u] = 0;
      ++ff;
    }
  }
}

/* HC_JENC_BITS: the batch's block n's entry of the blocks' scan (item N: 0, the scan's last
 * entry): its bits, with bit 31 set where the block ends its restart interval (so that the
 * scan pads the position after it to a byte). With optimised tables all of its bits, its shares'
 * AC bits written at w_shares; otherwise its DC's added to its shares' AC bits, which
 * HC_JENC_BLOCKS left there. */
HC_FN hc_u32 hc_jenc_bits(HC_GLOBAL const hc_u32* plan, HC_GLOBAL const hc_i16* coefs,
                          HC_GLOBAL hc_u32* work, hc_u32 n) {
  HC_GLOBAL const hc_jenc_batch* b = hc_jenc_batch_of(plan);
  HC_GLOBAL hc_u16* shares = hc_jenc_shares(b, work);
  HC_GLOBAL const hc_u32* mp;
  HC_GLOBAL const hc_jenc_plan* p;
  hc_u32 m, base, ln, bx, by, c, s, k, bits, ends;
  if (n >= b->blocks) return 0u;
  m = hc_jenc_image_of(plan, HC_JENC_T_BLOCK, n);
  base = hc_jenc_first(plan, m, HC_JENC_T_BLOCK);
  mp = hc_jenc_image_plan(plan, m);
  p = hc_jenc_header(mp);
  ln = n - base;
  ends = ln + 1u == hc_jenc_interval_first(p, hc_jenc_interval_of(p, ln) + 1u) ? 0x80000000u : 0u;
  if (b->optimize)
    return ends | hc_jenc_symbols(mp, coefs + (hc_u64)base * 64u, hc_jenc_dcs(b, work) + base, ln,
                                  0, shares + (hc_u64)base * 8u);
  c = hc_jenc_locate(p, ln, &bx, &by);
  s = hc_jenc_nbits(hc_jenc_diff(p, hc_jenc_dcs(b, work) + base, ln, c));
  bits = (mp[HC_JENC_CODES_WORD + 256u * hc_jenc_slot(c, 0u) + s] >> 16) + s;
  for (k = 0; k < 8u; ++k) bits += shares[(hc_u64)n * 8u + k];
  return ends | bits;
}

/* Entry i of scan `which`, made by HC_JENC_SCAN where the stages before left its inputs: a
 * block's (without optimised tables: its DC's added to the AC bits HC_JENC_BLOCKS left; with
 * them HC_JENC_BITS made it), a chunk's 0xFF bytes. */
HC_FN hc_u32 hc_jenc_entry(HC_GLOBAL const hc_u32* plan, HC_GLOBAL const hc_i16* coefs,
                           HC_GLOBAL hc_u32* work, HC_GLOBAL const hc_u32* data, hc_u32 which,
                           hc_u32 i) {
  if (which == HC_JENC_SCAN_POS)
    return hc_jenc_batch_of(plan)->optimize ? work[hc_jenc_batch_of(plan)->w_pos + i]
                                            : hc_jenc_bits(plan, coefs, work, i);
  return hc_jenc_chunk_ff(plan, work, data, i);
}

/* A scan's step, x -> x + c (k = 0) or x -> round8(x + k - 1) + c (k = 1..8, round8 rounding
 * up to a multiple of 8): an entry v adds its low 31 bits, and with bit 31 set then pads to a
 * byte. Such steps compose into another (a lane's run of entries, a work-group's), which is what
 * a work-group publishes for those after it. */
HC_FN hc_u32 hc_jenc_apply(hc_u32 k, hc_u32 c, hc_u32 x) {
  return k ? ((x + k + 6u) & ~7u) + c : x + c;
}
/* (*k, *c) then (gk, gc), into (*k, *c). */
HC_FN void hc_jenc_compose(hc_u32* k, hc_u32* c, hc_u32 gk, hc_u32 gc) {
  if (gk == 0u) {
    *c += gc;
  } else if (*k == 0u) {
    const hc_u32 a = *c + gk - 1u;
    *k = 1u + (a & 7u);
    *c = (a & ~7u) + gc;
  } else {
    *c = ((*c + gk + 6u) & ~7u) + gc;
  }
}
/* ... then entry v. */
HC_FN void hc_jenc_step(hc_u32* k, hc_u32* c, hc_u32 v) {
  const hc_u32 b = v & 0x7FFFFFFFu;
  if (v >> 31)
    hc_jenc_compose(k, c, 1u + (b & 7u), b & ~7u);
  else
    *c += b;
}

/* The value after entry v, from x. */
HC_FN hc_u32 hc_jenc_advance(hc_u32 x, hc_u32 v) {
  return v >> 31 ? (x + (v & 0x7FFFFFFFu) + 7u) & ~7u : x + v;
}

/* HC_JENC_SCATTER: item i moves chunks i, i + items, ... of the packed data to the output's data
 * (after its header, hc_jenc_out_head: item 0 copies the results there, each image's first
 * byte goes there), after the 0xFF bytes before each (the 0xFF scan's), then zeroes the chunk's words and its count
 * (the last chunk's item also the words and the count after it), which no other item reads: the
 * packed data is all zeroes again for the next HC_JENC_PACK. */
HC_FN void hc_jenc_scatter(HC_GLOBAL const hc_u32* plan, HC_GLOBAL hc_u32* work,
                           HC_GLOBAL hc_u32* data, HC_GLOBAL hc_u8* out, hc_u32 i) {
  HC_GLOBAL const hc_jenc_batch* b = hc_jenc_batch_of(plan);
  const hc_u32 bytes = hc_jenc_packed(b, work);
  const hc_u32 items = hc_jenc_loop_items(bytes), chunks = hc_jenc_chunks(bytes);
  const hc_u32 words = hc_jenc_data_words(bytes);
  HC_GLOBAL hc_u32* packed = data + hc_jenc_w_data(bytes);
  HC_GLOBAL hc_u32* header = (HC_GLOBAL hc_u32*)out;
  hc_u32 j, w;
  if (i == 0u)
    for (w = 0u; w < HC_JENC_RESULT_WORDS; ++w) header[w] = work[b->w_results + w];
  for (j = i; j < chunks; j += items) {
    const hc_u32 last = j + 1u == chunks;
    const hc_u32 end = last ? words : (j + 1u) * (HC_JENC_FF_CHUNK / 4u);
    hc_jenc_scatter_chunk(plan, work, data, out + hc_jenc_out_head(b),
                          header + HC_JENC_RESULT_WORDS, j, data[j]);
    for (w = j * (HC_JENC_FF_CHUNK / 4u); w < end; ++w) packed[w] = 0;
    data[j] = 0;
    if (last) data[chunks] = 0;
  }
}

/* The steps [first, end) of (ks, cs) composed, into (*k, *c). */
HC_FN void hc_jenc_compose_run(HC_LOCAL const hc_u32* ks, HC_LOCAL const hc_u32* cs, hc_u32 first,
                               hc_u32 end, hc_u32* k, hc_u32* c) {
  hc_u32 i;
  *k = 0u;
  *c = 0u;
  for (i = first; i < end; ++i) hc_jenc_compose(k, c, ks[i], cs[i]);
}

/* Runs of lanes (and of earlier tickets) that HC_JENC_SCAN composes side by side. */
#define HC_JENC_SCAN_PARTS 16u

/* HC_JENC_SCAN: the work-group that takes ticket t scans the t-th share of the entries (making
 * them first where `which` asks): each lane composes its entries' steps; those are composed in
 * HC_JENC_SCAN_PARTS runs of lanes side by side, then by lane 0 into the work-group's, which it
 * publishes (at w_sums, for the tickets after); the lanes read those of the tickets before,
 * waiting for any not yet published (every one of them has started: a ticket is taken once
 * running), and compose them in runs too; lane 0 applies those from 0 to find the work-group's
 * first value, and the runs of lanes' in turn from there (the last ticket's end, the total, into
 * the results); each run's lanes get their first value, and each lane replaces its entries by
 * the value before each. */
HC_FN void hc_jenc_scan(HC_GLOBAL const hc_u32* plan, HC_GLOBAL const hc_i16* coefs,
                        HC_GLOBAL hc_u32* work, HC_GLOBAL hc_u32* data, hc_u32 which,
                        HC_LOCAL hc_u32* s, hc_u32 lane, hc_u32 lanes) {
  HC_GLOBAL const hc_jenc_batch* b = hc_jenc_batch_of(plan);
  HC_GLOBAL hc_u32* st = work + b->w_sums + which * HC_JENC_SCAN_STATUS_WORDS;
  HC_LOCAL hc_u32* lk = s; /* each lane's step */
  HC_LOCAL hc_u32* lc = s + HC_JENC_GROUP_LANES;
  HC_LOCAL hc_u32* pk = s + 2u * HC_JENC_GROUP_LANES; /* each earlier ticket's */
  HC_LOCAL hc_u32* pc = pk + HC_JENC_SCAN_GROUPS;
  HC_LOCAL hc_u32* qk = pc + HC_JENC_SCAN_GROUPS; /* each run of lanes' */
  HC_LOCAL hc_u32* qc = qk + HC_JENC_SCAN_PARTS;
  HC_LOCAL hc_u32* rk = qc + HC_JENC_SCAN_PARTS; /* each run of earlier tickets' */
  HC_LOCAL hc_u32* rc = rk + HC_JENC_SCAN_PARTS;
  HC_LOCAL hc_u32* hold = rc + HC_JENC_SCAN_PARTS; /* the ticket */
  const hc_u32 per = (lanes + HC_JENC_SCAN_PARTS - 1u) / HC_JENC_SCAN_PARTS;
  hc_u32 count, groups, t, first, end, i, j, q, tper, k = 0, c = 0;
  HC_GLOBAL hc_u32* a = hc_jenc_scan_array(b, work, data, which, &count);
  const int make = which == HC_JENC_SCAN_FF || !b->optimize;
  groups = hc_jenc_scan_groups(b, which, which == HC_JENC_SCAN_FF ? hc_jenc_packed(b, work) : 0u);
  if (lane == 0u) hold[0] = HC_ATOMIC_ADD(st, 1u);
  HC_BARRIER();
  t = hold[0];
  tper = (t + HC_JENC_SCAN_PARTS - 1u) / HC_JENC_SCAN_PARTS;
  hc_jenc_share(count, groups, t, lane, lanes, &first, &end);
  for (i = first; i < end; ++i) {
    const hc_u32 v = make ? hc_jenc_entry(plan, coefs, work, data, which, i) : a[i];
    if (make) a[i] = v;
    hc_jenc_step(&k, &c, v);
  }
  lk[lane] = k;
  lc[lane] = c;
  HC_BARRIER();
  for (q = lane; q < HC_JENC_SCAN_PARTS; q += lanes) {
    hc_jenc_compose_run(lk, lc, hc_min_u32(lanes, q * per), hc_min_u32(lanes, (q + 1u) * per), &k,
                        &c);
    qk[q] = k;
    qc[q] = c;
  }
  HC_BARRIER();
  if (lane == 0u) {
    hc_jenc_compose_run(qk, qc, 0u, HC_JENC_SCAN_PARTS, &k, &c);
    HC_ATOMIC_XCHG(st + 1u + t, c + 1u);
    HC_ATOMIC_XCHG(st + 1u + HC_JENC_SCAN_GROUPS + t, k + 1u);
  }
  for (j = lane; j < t; j += lanes) {
    hc_u32 vc, vk;
    while ((vc = HC_ATOMIC_OR(st + 1u + j, 0u)) == 0u) {
    }
    while ((vk = HC_ATOMIC_OR(st + 1u + HC_JENC_SCAN_GROUPS + j, 0u)) == 0u) {
    }
    pk[j] = vk - 1u;
    pc[j] = vc - 1u;
  }
  HC_BARRIER();
  for (q = lane; q < HC_JENC_SCAN_PARTS; q += lanes) {
    hc_jenc_compose_run(pk, pc, hc_min_u32(t, q * tper), hc_min_u32(t, (q + 1u) * tper), &k, &c);
    rk[q] = k;
    rc[q] = c;
  }
  HC_BARRIER();
  if (lane == 0u) {
    hc_u32 x = 0u;
    for (q = 0u; q < HC_JENC_SCAN_PARTS; ++q) x = hc_jenc_apply(rk[q], rc[q], x);
    for (q = 0u; q < HC_JENC_SCAN_PARTS; ++q) {
      const hc_u32 y = x;
      x = hc_jenc_apply(qk[q], qc[q], x);
      qc[q] = y;
    }
    if (t + 1u == groups) {
      if (which == HC_JENC_SCAN_POS) {
        work[b->w_results + HC_JENC_R_BITS] = x;
        work[b->w_results + HC_JENC_R_BYTES] = x / 8u;
      } else {
        work[b->w_results + HC_JENC_R_FF] = x;
      }
    }
  }
  HC_BARRIER();
  for (q = lane; q < HC_JENC_SCAN_PARTS; q += lanes) {
    hc_u32 x = qc[q];
    const hc_u32 e = hc_min_u32(lanes, (q + 1u) * per);
    for (i = hc_min_u32(lanes, q * per); i < e; ++i) {
      const hc_u32 y = x;
      x = hc_jenc_apply(lk[i], lc[i], x);
      lc[i] = y;
    }
  }
  HC_BARRIER();
  for (i = first, c = lc[lane]; i < end; ++i) {
    const hc_u32 v = a[i];
    a[i] = c;
    c = hc_jenc_advance(c, v);
  }
}
/* The items a stage runs for a batch's plan and `bytes` packed bytes (the host's launch, with
 * a bound on the bytes, and every body's bound); `arg`: the scan stages' array. */
HC_FN hc_u32 hc_jenc_items(HC_GLOBAL const hc_jenc_batch* b, hc_u32 bytes, int stage,
                           hc_u32 arg) {
  switch (stage) {
    case HC_JENC_BLOCKS:
      return b->groups;
    case HC_JENC_PACK:
      return (b->blocks + HC_JENC_GROUP_BLOCKS - 1u) / HC_JENC_GROUP_BLOCKS;
    case HC_JENC_BITS:
      return b->blocks + 1u;
    case HC_JENC_HIST:
      return b->hist_groups;
    case HC_JENC_SCAN:
      return hc_jenc_scan_groups(b, arg, bytes);
    default:
      return hc_jenc_loop_items(bytes);
  }
}

HC_FN int hc_jenc_is_group_stage(int stage) {
  return stage != HC_JENC_BITS && stage != HC_JENC_SCATTER;
}
HC_FN hc_u32 hc_jenc_lanes(int stage) {
  return hc_jenc_is_group_stage(stage) ? HC_JENC_GROUP_LANES : HC_JENC_ITEM_LANES;
}

/* HC_JENC_BLOCKS for the batch's work-group g: its image's blocks, and without optimised tables
 * their shares' AC bits (at w_shares, which HC_JENC_SCAN adds to the DC's); the image's first
 * work-group also zeroes its histogram, for HC_JENC_HIST, and the batch's first the results and
 * the scans' status. */
HC_FN void hc_jenc_blocks_of(HC_GLOBAL const hc_u8* pixels, HC_GLOBAL const hc_u32* plan,
                             HC_GLOBAL hc_u32* work, HC_GLOBAL hc_i16* coefs, hc_u32 g,
                             HC_LOCAL hc_i32* t, HC_LOCAL hc_u32* info, HC_LOCAL hc_u32* lp,
                             hc_u32 lane, hc_u32 lanes) {
  HC_GLOBAL const hc_jenc_batch* b = hc_jenc_batch_of(plan);
  const hc_u32 m = plan[b->group_map + g];
  const hc_u32 lg = g - hc_jenc_first(plan, m, HC_JENC_T_GROUP);
  const hc_u32 base = hc_jenc_first(plan, m, HC_JENC_T_BLOCK);
  hc_u32 i;
  if (b->optimize && lg == 0u)
    for (i = lane; i < HC_JENC_HIST_WORDS; i += lanes)
      work[b->w_hist + m * HC_JENC_HIST_WORDS + i] = 0;
  if (g == 0u) {
    for (i = lane; i < HC_JENC_RESULT_WORDS; i += lanes) work[b->w_results + i] = 0;
    for (i = lane; i < 2u * HC_JENC_SCAN_STATUS_WORDS; i += lanes) work[b->w_sums + i] = 0;
  }
  hc_jenc_blocks(pixels, hc_jenc_image_plan(plan, m), coefs + (hc_u64)base * 64u,
                 hc_jenc_dcs(b, work) + base,
                 b->optimize ? (HC_GLOBAL hc_u16*)0 : hc_jenc_shares(b, work) + (hc_u64)base * 8u,
                 lg, t, info, lp, lane, lanes);
}

/* The stage `stage` for item (or work-group) i; `arg`: the scan's array for the scan stages,
 * HC_JENC_BLOCKS's first work-group (a launch may make a band of them, those whose pixels are
 * on the device while the rest are on their way). */
HC_FN void hc_jenc_run(int stage, hc_u32 arg, hc_u32 i, HC_GLOBAL const hc_u8* pixels,
                       HC_GLOBAL const hc_u32* plan, HC_GLOBAL hc_u32* work,
                       HC_GLOBAL hc_u32* data, HC_GLOBAL hc_i16* coefs, HC_GLOBAL hc_u8* out,
                       HC_LOCAL hc_jenc_local* z,
                       hc_u32 lane, hc_u32 lanes) {
  HC_GLOBAL const hc_jenc_batch* b = hc_jenc_batch_of(plan);
  /* (HC_JENC_BLOCKS's first work-group zeroes the packed bytes' count, the blocks' scan sets
   * it: the bounds of those, which do not depend on it, do not read it) */
  const hc_u32 bytes = stage == HC_JENC_BLOCKS || (stage == HC_JENC_SCAN && arg != HC_JENC_SCAN_FF)
                           ? 0u
                           : hc_jenc_packed(b, work);
  if (stage == HC_JENC_BLOCKS) {
    i += arg;
    arg = 0u;
  }
  if (arg > 1u || i >= hc_jenc_items(b, bytes, stage, arg)) return;
  switch (stage) {
    case HC_JENC_BLOCKS:
      hc_jenc_blocks_of(pixels, plan, work, coefs, i, z->t, z->w, z->px, lane, lanes);
      break;
    case HC_JENC_HIST:
      hc_jenc_hist(plan, coefs, work, i, z->w, lane, lanes);
      break;
    case HC_JENC_BITS:
      work[b->w_pos + i] = hc_jenc_bits(plan, coefs, work, i);
      break;
    case HC_JENC_SCAN:
      hc_jenc_scan(plan, coefs, work, data, arg, z->w, lane, lanes);
      break;
    case HC_JENC_SCATTER:
      hc_jenc_scatter(plan, work, data, out, i);
      break;
    default:
      hc_jenc_pack(plan, coefs, work, data, i, z->t, z->w, z->px, lane, lanes);
      break;
  }
}

#endif /* HETCODEC_PORTABLE_JPEG_ENCODE_H */
