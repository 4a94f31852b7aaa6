#include "core/jpeg/job.h"

#include <cstring>

#include "core/portable/jpeg_job.h"

namespace hetcodec::jpeg {

std::size_t job_stream_offset() { return 4 * std::size_t(HC_JOB_TOKENS_WORD); }

std::size_t job_bytes(std::size_t stream_bytes) { return job_stream_offset() + stream_bytes; }

void write_job_header(const Layout& l, const EntropyDecoder& decoder, std::uint8_t* out) {
  auto* w = reinterpret_cast<std::uint32_t*>(out);
  std::memset(out, 0, job_stream_offset());
  const std::size_t nc = l.components.size();
  w[HC_JOB_W_MAGIC] = HC_JOB_MAGIC;
  w[HC_JOB_W_WIDTH] = std::uint32_t(l.width);
  w[HC_JOB_W_HEIGHT] = std::uint32_t(l.height);
  w[HC_JOB_W_COMPONENTS] = std::uint32_t(nc);
  w[HC_JOB_W_COLOR] = std::uint32_t(l.color);
  w[HC_JOB_W_OUT_CHANNELS] = std::uint32_t(channels(l.format));
  w[HC_JOB_W_GROUPS] = l.groups;
  w[HC_JOB_W_DIRECTORY] = std::uint32_t(HC_JOB_TOKENS_WORD + 2 + 2 * nc);
  w[HC_JOB_W_TOKENS] = std::uint32_t(HC_JOB_TOKENS_WORD + 2 + 2 * nc + 2 * std::size_t(l.groups));
  w[HC_JOB_W_BLOCKS] = l.blocks;
  for (std::size_t c = 0; c < nc; ++c) {
    const ComponentLayout& cl = l.components[c];
    std::uint32_t* r = w + HC_JOB_W_COMP0 + HC_JOB_COMP_WORDS * c;
    r[HC_JOB_C_GRID_W] = std::uint32_t(cl.grid_w);
    r[HC_JOB_C_GRID_H] = std::uint32_t(cl.grid_h);
    r[HC_JOB_C_FIRST_GROUP] = cl.first_group;
    r[HC_JOB_C_GROUPS] = cl.groups;
    r[HC_JOB_C_QUANT] = std::uint32_t(c);  // the job carries one table per component
    r[HC_JOB_C_PLANE_OFFSET] = std::uint32_t(cl.plane_offset);
    r[HC_JOB_C_STRIDE] = std::uint32_t(cl.stride);
    r[HC_JOB_C_WIDTH] = std::uint32_t(cl.width);
    r[HC_JOB_C_HEIGHT] = std::uint32_t(cl.height);
    r[HC_JOB_C_HR] = std::uint32_t(cl.hr);
    r[HC_JOB_C_VR] = std::uint32_t(cl.vr);
    r[HC_JOB_C_METHOD] = std::uint32_t(cl.method);
    std::memcpy(w + HC_JOB_WORDS + 64 * c, decoder.quant(int(c)).data(), 64 * sizeof(std::int32_t));
  }
}

}  // namespace hetcodec::jpeg
