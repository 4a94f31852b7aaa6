/* JPEG decode stages on OpenCL: token decode + dequantise + IDCT (fused, and as two separate
 * kernels) and upsampling + colour conversion, all on a job (core/portable/jpeg_job.h).
 * Twin of kernels_cu/jpeg_decode.cu and backends/cpu/jpeg_kernels.cpp. A job starts job_word
 * words into its buffer (the batch engine copies several jobs at once, side by side). */
#include "core/portable/jpeg_decode.h"

/* Scatters group g's tokens into a tile of 64 blocks (stride shorts apart), one token per
 * work-item at a time. A token's four writes go to four positions of one block; a padding
 * token repeats a position with the same value, from the same work-item. */
#define HC_SCATTER(tile, stride)                                                        \
  {                                                                                     \
    uint dir_ = job[HC_JOB_W_DIRECTORY] + 2u * g;                                       \
    uint off_ = job[dir_], cnt_ = job[dir_ + 1u];                                       \
    __global const uint* tok_ = job + job[HC_JOB_W_TOKENS] + 3u * off_;                 \
    for (uint t_ = lid; t_ < cnt_; t_ += 64u) {                                         \
      uint c01_ = tok_[3u * t_], c23_ = tok_[3u * t_ + 1u], w_ = tok_[3u * t_ + 2u];    \
      uint b_ = ((w_ >> 24) & 63u) * (stride);                                          \
      tile[b_ + (w_ & 63u)] = (short)(c01_ & 0xFFFFu);                                  \
      tile[b_ + ((w_ >> 6) & 63u)] = (short)(c01_ >> 16);                               \
      tile[b_ + ((w_ >> 12) & 63u)] = (short)(c23_ & 0xFFFFu);                          \
      tile[b_ + ((w_ >> 18) & 63u)] = (short)(c23_ >> 16);                              \
    }                                                                                   \
  }

/* The fused stage for group g of a job, by a work-group of 64: zero the tile, scatter the
 * tokens, then each work-item dequantises and inverse-transforms one block into `planes`. */
static void decode_idct_group(__global const uint* job, uint g, __global uchar* planes,
                              __local short* tile) {
  uint lid = get_local_id(0);
  for (uint i = lid; i < 64u * HC_TILE_STRIDE; i += 64u) tile[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  HC_SCATTER(tile, HC_TILE_STRIDE)
  barrier(CLK_LOCAL_MEM_FENCE);
  int c = hc_job_component_of_group(job, g);
  __global const uint* rec = hc_job_component(job, c);
  uint blk = (g - rec[HC_JOB_C_FIRST_GROUP]) * 64u + lid;
  if (blk >= rec[HC_JOB_C_GRID_W] * rec[HC_JOB_C_GRID_H]) return;
  __global const int* q = hc_job_quant(job, rec);
  int in[64];
  for (int k = 0; k < 64; k++) in[k] = (int)tile[lid * HC_TILE_STRIDE + k] * q[k];
  hc_jpeg_idct_store(in, rec, blk, planes);
}

/* One work-group of 64 per group of the job at job_word. */
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void jpeg_decode_idct(
    __global const uint* job_buffer, uint job_word, __global uchar* planes) {
  __local short tile[64 * HC_TILE_STRIDE];
  decode_idct_group(job_buffer + job_word, get_group_id(0), planes, tile);
}

/* The same for the jobs of a chunk table (core/portable/jpeg_job.h) at table_word: work-group
 * w decodes the group of the job whose groups include it. */
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void jpeg_decode_idct_chunk(
    __global const uint* job_buffer, uint table_word, __global uchar* planes) {
  __local short tile[64 * HC_TILE_STRIDE];
  uint w = get_group_id(0);
  __global const uint* e = hc_chunk_entry(job_buffer + table_word, HC_CHUNK_E_FIRST_GROUP, w);
  decode_idct_group(job_buffer + e[HC_CHUNK_E_JOB], w - e[HC_CHUNK_E_FIRST_GROUP],
                    planes + hc_chunk_offset(e, HC_CHUNK_E_PLANES_LO), tile);
}

/* Separate stage 1: tokens -> dense coefficients (group g owns blocks 64g..64g+63). */
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void jpeg_decode_tokens(
    __global const uint* job_buffer, uint job_word, __global short* coefficients) {
  __global const uint* job = job_buffer + job_word;
  uint g = get_group_id(0), lid = get_local_id(0);
  __global short* tile = coefficients + (size_t)g * 4096u;
  for (uint i = lid; i < 4096u; i += 64u) tile[i] = 0;
  barrier(CLK_GLOBAL_MEM_FENCE);
  HC_SCATTER(tile, 64u)
}

/* Separate stage 2: one work-item per block of the whole job. */
__kernel void jpeg_idct(__global const uint* job_buffer, uint job_word,
                        __global const short* coefficients, __global uchar* planes,
                        uint total_blocks) {
  __global const uint* job = job_buffer + job_word;
  uint gb = get_global_id(0);
  if (gb >= total_blocks) return;
  uint g = gb >> 6;
  int c = hc_job_component_of_group(job, g);
  __global const uint* rec = hc_job_component(job, c);
  uint blk = gb - rec[HC_JOB_C_FIRST_GROUP] * 64u;
  if (blk >= rec[HC_JOB_C_GRID_W] * rec[HC_JOB_C_GRID_H]) return;
  __global const int* q = hc_job_quant(job, rec);
  __global const short* src = coefficients + (size_t)gb * 64u;
  int in[64];
  for (int k = 0; k < 64; k++) in[k] = (int)src[k] * q[k];
  hc_jpeg_idct_store(in, rec, blk, planes);
}

/* Upsampling + colour conversion: one work-item per output pixel. */
__kernel void jpeg_upsample_color(__global const uint* job_buffer, uint job_word,
                                  __global const uchar* planes, __global uchar* out_buffer,
                                  ulong out_offset, uint pixels) {
  uint i = get_global_id(0);
  if (i >= pixels) return;
  hc_jpeg_pixel(job_buffer + job_word, planes, i, out_buffer + out_offset);
}

/* The colour stage for the jobs of a chunk table: work-group t colours HC_CHUNK_TILE pixels of
 * the job whose tiles include it. */
__kernel __attribute__((reqd_work_group_size(HC_CHUNK_TILE, 1, 1))) void
jpeg_upsample_color_chunk(__global const uint* job_buffer, uint table_word,
                          __global const uchar* planes, __global uchar* out_buffer) {
  uint t = get_group_id(0);
  __global const uint* e = hc_chunk_entry(job_buffer + table_word, HC_CHUNK_E_FIRST_TILE, t);
  __global const uint* job = job_buffer + e[HC_CHUNK_E_JOB];
  uint i = (t - e[HC_CHUNK_E_FIRST_TILE]) * HC_CHUNK_TILE + get_local_id(0);
  if (i >= job[HC_JOB_W_WIDTH] * job[HC_JOB_W_HEIGHT]) return;
  hc_jpeg_pixel(job, planes + hc_chunk_offset(e, HC_CHUNK_E_PLANES_LO), i,
                out_buffer + hc_chunk_offset(e, HC_CHUNK_E_OUT_LO));
}
