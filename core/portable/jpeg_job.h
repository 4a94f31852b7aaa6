/* The device-side description of one JPEG decode (a "job"), read by the kernels of every backend.
 * A job is one buffer, copied to the device in one transfer:
 *   words [0, HC_JOB_WORDS)          this header (uint32, little-endian)
 *   HC_JOB_QUANT_WORDS words         4 quantisation tables, 64 int32 each, natural order
 *   the token stream                 as docs/token-stream.md describes (core/jpeg/token_stream.h)
 * The component planes (the IDCT output) live in a second buffer; component c's plane starts at
 * byte plane_offset and has grid_w * block samples per row (of 1 byte, or 2 in a 12-bit job) and
 * grid_h * block rows, `block` being
 * the component's samples per block side: 8, or 4, 2, 1 in scaled decoding (libjpeg's
 * DCT_scaled_size). The header's width and height are the output's (libjpeg's output_width and
 * output_height), each component's width and height its samples after that scaling.
 *
 * Versions: 2 added `version` and each component's `block` (1 had neither: every block 8x8,
 * word 10 zero); 3 the crop (origin_x, origin_y, each component's window_col: 72 words) and
 * the precision (8 or 12; planes of a 12-bit job hold 16-bit samples in the device's byte
 * order, its pixels 16-bit samples big-endian). The
 * kernels and the host are built together, so the field documents a saved job rather than
 * gating one. */
#ifndef HETCODEC_PORTABLE_JPEG_JOB_H
#define HETCODEC_PORTABLE_JPEG_JOB_H

#include "core/portable/common.h"

#define HC_JOB_MAGIC 0x424F4A48u /* "HJOB" */
#define HC_JOB_VERSION 3u
#define HC_JOB_WORDS 72
#define HC_JOB_QUANT_WORDS (4 * 64)
#define HC_JOB_TOKENS_WORD (HC_JOB_WORDS + HC_JOB_QUANT_WORDS) /* token stream starts here */

/* A component's record in the job header. */
typedef struct hc_jpeg_component {
  hc_u32 grid_w;      /* blocks per row of the component's block grid */
  hc_u32 grid_h;      /* block rows */
  hc_u32 first_group; /* index of its first group in the directory */
  hc_u32 groups;
  hc_u32 quant;        /* its table among the job's four (the job holds one per component) */
  hc_u32 plane_offset; /* byte offset of its plane in the planes buffer */
  hc_u32 stride;       /* plane row pitch in bytes: grid_w * block * (1 or 2 bytes a sample) */
  /* Downsampled width in samples, after IDCT scaling, from the decoded window's left edge
   * (window_col), and the height: what the upsampling sees as the component's edges. */
  hc_u32 width;
  hc_u32 height;
  hc_u32 hr, vr;     /* upsampling factors (from the scaled sizes) */
  hc_u32 method;     /* HC_UPSAMPLE_* of core/portable/jpeg_upsample.h */
  hc_u32 block;      /* samples per block side: 8, 4, 2 or 1 (libjpeg's DCT_scaled_size) */
  hc_u32 window_col; /* the plane column of the window's left edge (0 without a crop) */
} hc_jpeg_component;

/* The job header: HC_JOB_WORDS words of fixed-width fields, the same layout in C++, CUDA and
 * OpenCL C (core/jpeg/job.cpp checks it with static_assert). */
typedef struct hc_jpeg_job {
  hc_u32 magic;         /* HC_JOB_MAGIC */
  hc_u32 width, height; /* of the output */
  hc_u32 components;
  hc_u32 color;        /* HC_COLOR_* below */
  hc_u32 out_channels; /* samples per output pixel */
  hc_u32 groups;       /* groups of all components together */
  hc_u32 directory;    /* word offset of the token directory inside the job */
  hc_u32 tokens;       /* word offset of the first token inside the job */
  hc_u32 blocks;       /* blocks of all components together */
  hc_u32 version;      /* HC_JOB_VERSION */
  /* A cropped decode: output pixel (x, y) is pixel (x + origin_x, y + origin_y) of the
   * decoded window, whose columns start at each component's window_col and whose rows are the
   * image's. Both 0 without a crop. */
  hc_u32 origin_x, origin_y;
  hc_u32 precision; /* bits per sample: 8, or 12 (planes and output of 16-bit samples) */
  hc_u32 reserved[2];
  hc_jpeg_component component[4];
} hc_jpeg_job;

/* Colour transforms from the component planes to the output pixels. */
#define HC_COLOR_GRAY 0      /* 1 component -> 1 sample */
#define HC_COLOR_YCC_RGB 1   /* YCbCr -> RGB (jdcolor.c ycc_rgb_convert) */
#define HC_COLOR_RGB 2       /* 3 components stored as RGB -> RGB, no conversion */
#define HC_COLOR_CMYK 3      /* 4 components stored as CMYK (Adobe transform 0) -> CMYK */
#define HC_COLOR_YCCK_CMYK 4 /* YCCK (Adobe transform 2) -> CMYK (ycck_cmyk_convert) */

/* A chunk table: several jobs decoded by one launch of each kernel (the batch engine's chunks of
 * consecutive images). It lies in the job buffer: a header, then an entry per job in launch
 * order. A job's colour work-groups start on a multiple of HC_CHUNK_TILE pixels of the launch,
 * so every work-group belongs to one job. */
typedef struct hc_jpeg_chunk {
  hc_u32 jobs;   /* jobs in the table */
  hc_u32 groups; /* work-groups of the decode launch (64 blocks each) */
  hc_u32 tiles;  /* work-groups of the colour launch (HC_CHUNK_TILE pixels each) */
  hc_u32 reserved;
} hc_jpeg_chunk;

typedef struct hc_jpeg_chunk_entry {
  hc_u32 job;                  /* the job's first word in the job buffer */
  hc_u32 first_group;          /* its first work-group in the decode launch */
  hc_u32 first_tile;           /* and in the colour launch */
  hc_u32 planes_lo, planes_hi; /* byte offset of its planes in the planes buffer */
  hc_u32 out_lo, out_hi;       /* byte offset of its pixels in the output buffer */
  hc_u32 reserved;
} hc_jpeg_chunk_entry;

#define HC_CHUNK_TILE 256

#endif /* HETCODEC_PORTABLE_JPEG_JOB_H */
