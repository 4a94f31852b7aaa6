#include "core/jpeg/job.h"

#include <cstddef>
#include <cstring>

#include "core/portable/jpeg_job.h"

namespace hetcodec::jpeg {

std::size_t job_stream_offset() { return 4 * std::size_t(HC_JOB_TOKENS_WORD); }

std::size_t job_bytes(std::size_t stream_bytes) { return job_stream_offset() + stream_bytes; }

// The header's layout is the same in C++, CUDA and OpenCL C only if no field is padded.
static_assert(sizeof(hc_jpeg_component) == 14 * 4 && offsetof(hc_jpeg_job, component) == 16 * 4 &&
                  sizeof(hc_jpeg_job) == HC_JOB_WORDS * 4,
              "hc_jpeg_job: the header's words");

void write_job_header(const Layout& l, const std::vector<std::array<std::int32_t, 64>>& quant,
                      std::uint8_t* out) {
  std::memset(out, 0, job_stream_offset());
  const std::size_t nc = l.components.size();
  hc_jpeg_job h{};
  h.magic = HC_JOB_MAGIC;
  h.width = std::uint32_t(l.output_width);
  h.height = std::uint32_t(l.output_height);
  h.components = std::uint32_t(nc);
  h.color = std::uint32_t(l.color);
  h.out_channels = std::uint32_t(channels(l.format));
  h.groups = l.groups;
  h.directory = std::uint32_t(HC_JOB_TOKENS_WORD + 2 + 2 * nc);
  h.tokens = std::uint32_t(HC_JOB_TOKENS_WORD + 2 + 2 * nc + 2 * std::size_t(l.groups));
  h.blocks = l.blocks;
  h.version = HC_JOB_VERSION;
  h.origin_x = std::uint32_t(l.crop_x - l.window_x);
  h.origin_y = std::uint32_t(l.crop_y);
  h.precision = std::uint32_t(l.precision);
  for (std::size_t c = 0; c < nc; ++c) {
    const ComponentLayout& cl = l.components[c];
    hc_jpeg_component& r = h.component[c];
    r.grid_w = std::uint32_t(cl.grid_w);
    r.grid_h = std::uint32_t(cl.grid_h);
    r.first_group = cl.first_group;
    r.groups = cl.groups;
    r.quant = std::uint32_t(c);  // the job carries one table per component
    r.plane_offset = std::uint32_t(cl.plane_offset);
    r.stride = std::uint32_t(cl.stride);
    r.width = std::uint32_t(cl.window_width);
    r.height = std::uint32_t(cl.scaled_height);
    r.hr = std::uint32_t(cl.hr);
    r.vr = std::uint32_t(cl.vr);
    r.method = std::uint32_t(cl.window_method);
    r.block = std::uint32_t(cl.block);
    r.window_col = std::uint32_t(cl.window_col);
    std::memcpy(out + 4 * (HC_JOB_WORDS + 64 * c), quant[c].data(), 64 * sizeof(std::int32_t));
  }
  std::memcpy(out, &h, sizeof h);
}

}  // namespace hetcodec::jpeg
