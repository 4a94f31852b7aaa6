/* The device-side description of one JPEG decode (a "job"), read by the kernels of every backend.
 * A job is one buffer, copied to the device in one transfer:
 *   words [0, HC_JOB_WORDS)          this header (uint32, little-endian)
 *   HC_JOB_QUANT_WORDS words         4 quantisation tables, 64 int32 each, natural order
 *   the token stream                 as docs/token-stream.md describes (core/jpeg/token_stream.h)
 * The component planes (the IDCT output) live in a second buffer; component c's plane starts at
 * byte plane_offset and has grid_w * 8 samples per row and grid_h * 8 rows. */
#ifndef HETCODEC_PORTABLE_JPEG_JOB_H
#define HETCODEC_PORTABLE_JPEG_JOB_H

#define HC_JOB_MAGIC 0x424F4A48u /* "HJOB" */
#define HC_JOB_WORDS 64
#define HC_JOB_QUANT_WORDS (4 * 64)
#define HC_JOB_TOKENS_WORD (HC_JOB_WORDS + HC_JOB_QUANT_WORDS) /* token stream starts here */

/* Header words. */
#define HC_JOB_W_MAGIC 0
#define HC_JOB_W_WIDTH 1
#define HC_JOB_W_HEIGHT 2
#define HC_JOB_W_COMPONENTS 3
#define HC_JOB_W_COLOR 4        /* HC_COLOR_* below */
#define HC_JOB_W_OUT_CHANNELS 5 /* samples per output pixel */
#define HC_JOB_W_GROUPS 6       /* groups of all components together */
#define HC_JOB_W_DIRECTORY 7    /* word offset of the token directory inside the job */
#define HC_JOB_W_TOKENS 8       /* word offset of the first token inside the job */
#define HC_JOB_W_BLOCKS 9       /* blocks of all components together */
#define HC_JOB_W_COMP0 16       /* first component's record; HC_JOB_COMP_WORDS per component */
#define HC_JOB_COMP_WORDS 12

/* Component record words (relative to HC_JOB_W_COMP0 + c * HC_JOB_COMP_WORDS). */
#define HC_JOB_C_GRID_W 0      /* blocks per row of the component's block grid */
#define HC_JOB_C_GRID_H 1      /* block rows */
#define HC_JOB_C_FIRST_GROUP 2 /* index of its first group in the directory */
#define HC_JOB_C_GROUPS 3
#define HC_JOB_C_QUANT 4 /* its table among the job's four (the job holds one per component) */
#define HC_JOB_C_PLANE_OFFSET 5 /* byte offset of its plane in the planes buffer */
#define HC_JOB_C_STRIDE 6       /* plane row pitch in bytes: grid_w * 8 */
#define HC_JOB_C_WIDTH 7        /* downsampled width and height in samples */
#define HC_JOB_C_HEIGHT 8
#define HC_JOB_C_HR 9 /* upsampling factors */
#define HC_JOB_C_VR 10
#define HC_JOB_C_METHOD 11 /* HC_UPSAMPLE_* of core/portable/jpeg_upsample.h */

/* Colour transforms from the component planes to the output pixels. */
#define HC_COLOR_GRAY 0      /* 1 component -> 1 sample */
#define HC_COLOR_YCC_RGB 1   /* YCbCr -> RGB (jdcolor.c ycc_rgb_convert) */
#define HC_COLOR_RGB 2       /* 3 components stored as RGB -> RGB, no conversion */
#define HC_COLOR_CMYK 3      /* 4 components stored as CMYK (Adobe transform 0) -> CMYK */
#define HC_COLOR_YCCK_CMYK 4 /* YCCK (Adobe transform 2) -> CMYK (ycck_cmyk_convert) */

/* A chunk table: several jobs decoded by one launch of each kernel (the batch engine's chunks of
 * consecutive images). It lies in the job buffer, HC_CHUNK_WORDS header words then
 * HC_CHUNK_ENTRY_WORDS per job, in launch order:
 *   header  [0] jobs in the table, [1] work-groups of the decode launch (64 blocks each),
 *           [2] work-groups of the colour launch (HC_CHUNK_TILE pixels each), [3] zero
 *   entry   the job's first word in the job buffer, its first work-group in each launch, and the
 *           byte offsets (64-bit, low word first) of its planes in the planes buffer and of its
 *           pixels in the output buffer.
 * A job's colour work-groups start on a multiple of HC_CHUNK_TILE pixels of the launch, so every
 * work-group belongs to one job. */
#define HC_CHUNK_WORDS 4
#define HC_CHUNK_ENTRY_WORDS 8
#define HC_CHUNK_TILE 256
#define HC_CHUNK_W_JOBS 0
#define HC_CHUNK_W_GROUPS 1
#define HC_CHUNK_W_TILES 2
#define HC_CHUNK_E_JOB 0
#define HC_CHUNK_E_FIRST_GROUP 1
#define HC_CHUNK_E_FIRST_TILE 2
#define HC_CHUNK_E_PLANES_LO 3
#define HC_CHUNK_E_PLANES_HI 4
#define HC_CHUNK_E_OUT_LO 5
#define HC_CHUNK_E_OUT_HI 6

#endif /* HETCODEC_PORTABLE_JPEG_JOB_H */
