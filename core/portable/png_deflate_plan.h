/* The device deflate's plan (core/portable/png_deflate.h): its stages in the order they run
 * (HC_DFL_STAGE_LIST, the one list the kernels, their launch plans and the host's loop are made
 * from), their work-group sizes and item counts, the plan record the host writes
 * (core/png/deflate_plan.cpp) and the words of each block's record in the work buffer.
 * C++, CUDA and OpenCL C. */
#ifndef HETCODEC_PORTABLE_PNG_DEFLATE_PLAN_H
#define HETCODEC_PORTABLE_PNG_DEFLATE_PLAN_H

#include "core/portable/kernel.h"

#define HC_DFL_HIST_LANES 256u
#define HC_DFL_BLOCK_LANES 32u
#define HC_DFL_PLACE_LANES 256u

#define HC_DFL_PIECE 256u
#define HC_DFL_CHUNK 64u        /* pieces */
#define HC_DFL_SYM_LIMIT 16383u /* zlib's lit_bufsize - 1 with memLevel 8 */

/* The stages, in the order they run: the one list the kernels, their launch plans and the
 * host's loop over the stages are made from. X(stage, kernel name, kind): ITEM stages run an item
 * per work-item, GROUP stages an item per work-group of hc_dfl_lanes(stage). */
#define HC_DFL_STAGE_LIST(X)                           \
  X(HC_DFL_CLEAR, png_deflate_clear, ITEM)             \
  X(HC_DFL_COUNT, png_deflate_count, ITEM)             \
  X(HC_DFL_SCAN_CHUNKS, png_deflate_scan_chunks, ITEM) \
  X(HC_DFL_SCAN, png_deflate_scan, ITEM)               \
  X(HC_DFL_EMIT, png_deflate_emit, ITEM)               \
  X(HC_DFL_HIST, png_deflate_hist, GROUP)              \
  X(HC_DFL_BLOCK, png_deflate_block, GROUP)            \
  X(HC_DFL_LAYOUT, png_deflate_layout, ITEM)           \
  X(HC_DFL_OFFSETS, png_deflate_offsets, ITEM)         \
  X(HC_DFL_BITS, png_deflate_bits, ITEM)               \
  X(HC_DFL_PLACE, png_deflate_place, GROUP)            \
  X(HC_DFL_PACK_BLOCKS, png_deflate_pack_blocks, ITEM) \
  X(HC_DFL_PACK, png_deflate_pack, ITEM)
#define HC_DFL_STAGE_ENUM(stage, name, kind) stage,
enum { HC_DFL_STAGE_LIST(HC_DFL_STAGE_ENUM) HC_DFL_STAGES };
#undef HC_DFL_STAGE_ENUM
#define HC_DFL_ITEM_LANES 64 /* an item stage's work-group */

/* The lanes of a stage's work-group: a GROUP stage's item runs on them together; an ITEM stage
 * runs HC_DFL_ITEM_LANES items to a work-group, except HC_DFL_PACK_BLOCKS: a stored block's
 * bytes follow its own data, so one item to a work-group (and to a warp), so that no warp runs
 * 32 different paths one after the other. */
HC_FN hc_u32 hc_dfl_lanes(int stage) {
  return stage == HC_DFL_HIST          ? HC_DFL_HIST_LANES
         : stage == HC_DFL_BLOCK       ? HC_DFL_BLOCK_LANES
         : stage == HC_DFL_PLACE       ? HC_DFL_PLACE_LANES
         : stage == HC_DFL_PACK_BLOCKS ? 1u
                                       : HC_DFL_ITEM_LANES;
}
HC_FN int hc_dfl_is_group_stage(int stage) {
  return stage == HC_DFL_HIST || stage == HC_DFL_BLOCK || stage == HC_DFL_PLACE;
}

/* The plan: host-written words, this header and then tables at the word offsets it gives. The
 * w_* fields are word offsets in the work buffer of what the stages write there (also set by
 * the host). Fixed-width fields only: the layout is the same in C++, CUDA and OpenCL C
 * (core/png/deflate_plan.cpp checks it with static_assert). */
typedef struct hc_dfl_plan {
  hc_u32 n;             /* filtered bytes */
  hc_u32 segments;      /* S */
  hc_u32 pieces;        /* pieces, over all segments */
  hc_u32 blocks;        /* block indices, over all segments */
  hc_u32 stored_limit;  /* a stored block longer than this sets HC_DFL_UNSURE */
  hc_u32 out_words;     /* the output's capacity in 32-bit words */
  hc_u32 seg_start;     /* table: S + 1 byte offsets (the last is N) */
  hc_u32 seg_piece;     /* table: S + 1 first pieces */
  hc_u32 seg_block;     /* table: S + 1 first block indices */
  hc_u32 piece_seg;     /* table: the segment of each piece */
  hc_u32 block_seg;     /* table: the segment of each block index */
  hc_u32 w_piece_count; /* per piece */
  hc_u32 w_piece_adler; /* per piece */
  hc_u32
      w_piece_off; /* per piece: its first symbol in its chunk, then (from HC_DFL_EMIT on) in its segment */
  hc_u32 w_seg_total;   /* per segment: symbols */
  hc_u32 w_seg_adler;   /* per segment: Adler-32 of its bytes */
  hc_u32 w_seg_bytes;   /* per segment: deflate bytes */
  hc_u32 w_seg_off;     /* S + 1: where each segment starts in the deflate data */
  hc_u32 w_block;       /* per block index: HC_DFL_BI_WORDS words */
  hc_u32 w_codes;       /* per block index: HC_DFL_CODE_WORDS words */
  hc_u32 w_header;      /* per block index: HC_DFL_HDR_WORDS words */
  hc_u32 w_hist;        /* per block index: HC_DFL_HIST_WORDS words */
  hc_u32 w_piece_bits;  /* per piece: bits of its symbols in its first block */
  hc_u32 w_piece_at;    /* per piece: 2 words, the stream bit of its first symbol */
  hc_u32 chunks;        /* chunks, over all segments */
  hc_u32 seg_chunk;     /* table: S + 1 first chunks */
  hc_u32 chunk_seg;     /* table: the segment of each chunk */
  hc_u32 w_chunk_count; /* per chunk: symbols */
  hc_u32 w_chunk_adler; /* per chunk */
  hc_u32 w_chunk_off;   /* per chunk: its first symbol in the segment */
  hc_u32 reserved[2];
} hc_dfl_plan;
#define HC_DFL_PLAN_HEADER 32 /* words */
#define HC_DFL_HIST_WORDS 288 /* literal/length counts (286), then the matches */
#define HC_DFL_HIST_MATCHES 286

/* The header of a plan buffer. */
HC_FN const HC_GLOBAL hc_dfl_plan* hc_dfl_header(const HC_GLOBAL hc_u32* plan) {
  return (const HC_GLOBAL hc_dfl_plan*)plan;
}
/* Work word 0 is the status: 0, or the bits below. */
#define HC_DFL_UNSURE 1u   /* a block would be stored past the limit: the host decides */
#define HC_DFL_OVERFLOW 2u /* the output would not fit (cannot happen with the host's sizes) */

/* A block's words. */
#define HC_DFL_BI_EXISTS 0
#define HC_DFL_BI_TYPE 1      /* 0 stored, 1 fixed, 2 dynamic */
#define HC_DFL_BI_HDR_BITS 2  /* dynamic: the tree description's bits */
#define HC_DFL_BI_DATA_BITS 3 /* coded: the symbols' bits, end-of-block included */
#define HC_DFL_BI_BYTES 4     /* the data bytes its symbols cover */
#define HC_DFL_BI_BYTE_START 5
#define HC_DFL_BI_BIT_LO 6 /* where it starts, in bits from its segment's start */
#define HC_DFL_BI_BIT_HI 7
/* (words 8 and 9 are not used) */
#define HC_DFL_BI_FINAL 10 /* the stream's final block */
#define HC_DFL_BI_FLUSH 11 /* the last block of a segment before another: a sync flush follows */
#define HC_DFL_BI_WORDS 12
/* A coded block's table: per symbol value (0-255 literals, 256 + length - 3 matches) two words,
 * the bits to send (for a match: length code, extra bits and distance code together, at most
 * 25 bits) and their count; then the end-of-block code's two. */
#define HC_DFL_CODE_WORDS 1026
#define HC_DFL_HDR_WORDS 144


/* Items of each stage. */
HC_FN hc_u32 hc_dfl_items(const HC_GLOBAL hc_u32* plan, int stage) {
  switch (stage) {
    case HC_DFL_CLEAR:
      return (hc_dfl_header(plan)->out_words + 63u) / 64u;
    case HC_DFL_COUNT:
    case HC_DFL_EMIT:
    case HC_DFL_BITS:
    case HC_DFL_PACK:
      return hc_dfl_header(plan)->pieces;
    case HC_DFL_SCAN_CHUNKS:
      return hc_dfl_header(plan)->chunks;
    case HC_DFL_SCAN:
    case HC_DFL_LAYOUT:
      return hc_dfl_header(plan)->segments;
    case HC_DFL_OFFSETS:
      return 1u;
    default:
      return hc_dfl_header(plan)->blocks;
  }
}

#endif /* HETCODEC_PORTABLE_PNG_DEFLATE_PLAN_H */
