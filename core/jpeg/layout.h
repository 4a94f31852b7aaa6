// How one JPEG frame maps onto the device: each component's block grid (padded to whole MCUs),
// its downsampled size, its upsampling factors and method, where its plane lives, and the colour
// transform to the output pixels. Made from a parsed Header; refuses what the decoder does not
// handle with Error(Unsupported) naming the feature.
#ifndef HETCODEC_CORE_JPEG_LAYOUT_H
#define HETCODEC_CORE_JPEG_LAYOUT_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/image.h"
#include "core/jpeg/parser.h"

namespace hetcodec::jpeg {

struct ComponentLayout {
  int grid_w = 0, grid_h = 0;  // block grid: MCUs across * h, MCUs down * v
  int width = 0, height = 0;   // downsampled size in samples: ceil(W * h / max_h), ...
  int hr = 1, vr = 1;          // upsampling factors max_h / h, max_v / v
  int method = 0;              // HC_UPSAMPLE_* (core/portable/jpeg_upsample.h)
  int quant = 0;               // quantisation table slot
  std::uint32_t first_block = 0, blocks = 0;  // global block index = first_block + raster index
  std::uint32_t first_group = 0, groups = 0;  // first_block == first_group * 64
  std::size_t plane_offset = 0, stride = 0;   // bytes in the planes buffer
};

struct Layout {
  int width = 0, height = 0;
  int mcus_x = 0, mcus_y = 0;  // of an interleaved scan
  std::vector<ComponentLayout> components;
  int color = 0;  // HC_COLOR_* (core/portable/jpeg_job.h)
  PixelFormat format = PixelFormat::RGB;
  std::uint32_t blocks = 0, groups = 0;
  std::size_t plane_bytes = 0;  // all component planes together
  std::size_t output_bytes() const {
    return std::size_t(width) * std::size_t(height) * std::size_t(channels(format));
  }
};

// Throws Error(Unsupported) for lossless, hierarchical and 12-bit files, lossless arithmetic
// coding, and for sampling factors libjpeg-turbo also refuses (non-integral ratios, more than 10
// blocks in an MCU).
Layout make_layout(const Header& header);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_LAYOUT_H
