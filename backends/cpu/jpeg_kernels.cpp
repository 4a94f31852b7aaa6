// JPEG stages on the CPU reference: the same core/portable arithmetic the CUDA and OpenCL
// kernels use (kernels_cu/jpeg_*.cu, kernels_cl/jpeg_*.cl), in plain loops.
#include <cstring>

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"
#include "core/portable/jpeg_color.h"
#include "core/portable/jpeg_decode.h"

namespace hetcodec::cpu {
namespace {

const hc_u32* words(const DeviceBuffer& b) {
  return reinterpret_cast<const hc_u32*>(backend_cast<const Buffer>(b, "cpu").data());
}
std::uint8_t* bytes(DeviceBuffer& b) { return backend_cast<Buffer>(b, "cpu").data(); }
const std::uint8_t* bytes(const DeviceBuffer& b) {
  return backend_cast<const Buffer>(b, "cpu").data();
}

// Scatters the tokens of group g into `tile` (64 blocks x 64 coefficients, zeroed by the caller).
void scatter_group(const hc_u32* job, std::uint32_t g, std::int16_t* tile, std::size_t stride) {
  const hc_u32* dir = job + job[HC_JOB_W_DIRECTORY] + 2 * std::size_t(g);
  const hc_u32* tok = job + job[HC_JOB_W_TOKENS] + 3 * std::size_t(dir[0]);
  for (hc_u32 t = 0; t < dir[1]; ++t, tok += 3) {
    const hc_u32 w = tok[2];
    std::int16_t* b = tile + (w >> 24 & 63) * stride;
    b[w & 63] = std::int16_t(tok[0] & 0xFFFF);
    b[w >> 6 & 63] = std::int16_t(tok[0] >> 16);
    b[w >> 12 & 63] = std::int16_t(tok[1] & 0xFFFF);
    b[w >> 18 & 63] = std::int16_t(tok[1] >> 16);
  }
}

// The fused stage for group g of a job: its blocks written to the planes at `planes`.
void decode_idct_group(const hc_u32* job, std::uint32_t g, std::uint8_t* planes) {
  std::int16_t tile[64 * 64];
  hc_i32 in[64];
  std::memset(tile, 0, sizeof tile);
  scatter_group(job, g, tile, 64);
  const int c = hc_job_component_of_group(job, g);
  const hc_u32* rec = hc_job_component(job, c);
  const hc_i32* q = hc_job_quant(job, rec);
  const hc_u32 blocks = rec[HC_JOB_C_GRID_W] * rec[HC_JOB_C_GRID_H];
  for (hc_u32 b = 0; b < 64; ++b) {
    const hc_u32 blk = (g - rec[HC_JOB_C_FIRST_GROUP]) * 64 + b;
    if (blk >= blocks) break;
    for (int k = 0; k < 64; ++k) in[k] = hc_i32(tile[64 * b + k]) * q[k];
    hc_jpeg_idct_store(in, rec, blk, planes);
  }
}

// The colour stage for pixels [first, first + count) of a job (clipped to the image).
void upsample_color_pixels(const hc_u32* job, const std::uint8_t* planes, std::uint32_t first,
                           std::uint32_t count, std::uint8_t* out) {
  const std::uint32_t pixels = job[HC_JOB_W_WIDTH] * job[HC_JOB_W_HEIGHT];
  for (std::uint32_t i = first; i < pixels && i - first < count; ++i)
    hc_jpeg_pixel(job, planes, i, out);
}

class CpuJpegKernels : public JpegKernels {
 public:
  void run_ycc_to_rgb(Queue&, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                      std::uint32_t pixels) override {
    const std::uint8_t* y = bytes(ycc);
    const std::uint8_t* cb = y + pixels;
    const std::uint8_t* cr = cb + pixels;
    std::uint8_t* out = bytes(rgb);
    for (std::uint32_t i = 0; i < pixels; ++i) {
      out[3 * i + 0] = static_cast<std::uint8_t>(hc_ycc_red(y[i], cr[i]));
      out[3 * i + 1] = static_cast<std::uint8_t>(hc_ycc_green(y[i], cb[i], cr[i]));
      out[3 * i + 2] = static_cast<std::uint8_t>(hc_ycc_blue(y[i], cb[i]));
    }
  }

  void run_decode_idct(Queue&, const DeviceBuffer& job_buffer, DeviceBuffer& planes,
                       const JpegJobInfo& info) override {
    const hc_u32* job = words(job_buffer) + info.job_offset / 4;
    for (std::uint32_t g = 0; g < info.groups; ++g) decode_idct_group(job, g, bytes(planes));
  }

  void run_decode_tokens(Queue&, const DeviceBuffer& job_buffer, DeviceBuffer& coefficients,
                         const JpegJobInfo& info) override {
    const hc_u32* job = words(job_buffer) + info.job_offset / 4;
    auto* coef = reinterpret_cast<std::int16_t*>(bytes(coefficients));
    std::memset(coef, 0, std::size_t(info.groups) * 64 * 128);
    for (std::uint32_t g = 0; g < info.groups; ++g)
      scatter_group(job, g, coef + std::size_t(g) * 64 * 64, 64);
  }

  void run_idct(Queue&, const DeviceBuffer& job_buffer, const DeviceBuffer& coefficients,
                DeviceBuffer& planes, const JpegJobInfo& info) override {
    const hc_u32* job = words(job_buffer) + info.job_offset / 4;
    const auto* coef = reinterpret_cast<const std::int16_t*>(bytes(coefficients));
    hc_i32 in[64];
    for (hc_u32 c = 0; c < job[HC_JOB_W_COMPONENTS]; ++c) {
      const hc_u32* rec = hc_job_component(job, int(c));
      const hc_i32* q = hc_job_quant(job, rec);
      const hc_u32 blocks = rec[HC_JOB_C_GRID_W] * rec[HC_JOB_C_GRID_H];
      const std::int16_t* base = coef + std::size_t(rec[HC_JOB_C_FIRST_GROUP]) * 64 * 64;
      for (hc_u32 blk = 0; blk < blocks; ++blk) {
        for (int k = 0; k < 64; ++k) in[k] = hc_i32(base[std::size_t(blk) * 64 + k]) * q[k];
        hc_jpeg_idct_store(in, rec, blk, bytes(planes));
      }
    }
  }

  void run_upsample_color(Queue&, const DeviceBuffer& job_buffer, const DeviceBuffer& planes,
                          DeviceBuffer& out, std::size_t out_offset,
                          const JpegJobInfo& info) override {
    upsample_color_pixels(words(job_buffer) + info.job_offset / 4, bytes(planes), 0,
                          info.width * info.height, bytes(out) + out_offset);
  }

  // The chunk stages find each work-group's job in the chunk table, as the kernels do: a table
  // written wrong shows on this backend too.
  void run_decode_idct_chunk(Queue&, const DeviceBuffer& job_buffer, std::size_t table_offset,
                             std::uint32_t groups, DeviceBuffer& planes) override {
    const hc_u32* all = words(job_buffer);
    const hc_u32* table = all + table_offset / 4;
    for (std::uint32_t g = 0; g < groups; ++g) {
      const hc_u32* e = hc_chunk_entry(table, HC_CHUNK_E_FIRST_GROUP, g);
      decode_idct_group(all + e[HC_CHUNK_E_JOB], g - e[HC_CHUNK_E_FIRST_GROUP],
                        bytes(planes) + hc_chunk_offset(e, HC_CHUNK_E_PLANES_LO));
    }
  }

  void run_upsample_color_chunk(Queue&, const DeviceBuffer& job_buffer, std::size_t table_offset,
                                std::uint32_t tiles, const DeviceBuffer& planes,
                                DeviceBuffer& out) override {
    const hc_u32* all = words(job_buffer);
    const hc_u32* table = all + table_offset / 4;
    for (std::uint32_t t = 0; t < tiles; ++t) {
      const hc_u32* e = hc_chunk_entry(table, HC_CHUNK_E_FIRST_TILE, t);
      upsample_color_pixels(all + e[HC_CHUNK_E_JOB],
                            bytes(planes) + hc_chunk_offset(e, HC_CHUNK_E_PLANES_LO),
                            (t - e[HC_CHUNK_E_FIRST_TILE]) * HC_CHUNK_TILE, HC_CHUNK_TILE,
                            bytes(out) + hc_chunk_offset(e, HC_CHUNK_E_OUT_LO));
    }
  }
};

}  // namespace

std::unique_ptr<JpegKernels> make_jpeg_kernels() { return std::make_unique<CpuJpegKernels>(); }

}  // namespace hetcodec::cpu
