// How one JPEG frame maps onto the device: each component's block grid (padded to whole MCUs),
// its downsampled size, its upsampling factors and method, where its plane lives, and the colour
// transform to the output pixels. Made from a parsed Header; refuses what the decoder does not
// handle with Error(Unsupported) naming the feature.
//
// Scaled decoding (1/2, 1/4, 1/8) is libjpeg-turbo's (jdmaster.c, jpeg_calc_output_dimensions,
// as its libjpeg 6.2 API computes it): the block grids and so the token stream stay the same;
// each component's IDCT gives `block` x `block` samples a block, its planes and downsampled size
// shrink to match, and the upsampling runs from those sizes to the output size.
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
  int width = 0, height = 0;   // downsampled size in samples: ceil(W * h / max_h), ... (unscaled)
  int block = 8;               // samples per block side after IDCT scaling (DCT_scaled_size)
  // Downsampled size after IDCT scaling (libjpeg's downsampled_width once output dimensions are
  // computed): ceil(W * h * block / (max_h * 8)), ...; width and height when block is 8.
  int scaled_width = 0, scaled_height = 0;
  int hr = 1, vr = 1;  // upsampling factors from the scaled sizes: max_h * min / (h * block), ...
  int method = 0;      // HC_UPSAMPLE_* (core/portable/jpeg_upsample.h)
  int quant = 0;       // quantisation table slot
  std::uint32_t first_block = 0, blocks = 0;  // global block index = first_block + raster index
  std::uint32_t first_group = 0, groups = 0;  // first_block == first_group * 64
  // Bytes in the planes buffer; stride grid_w * block * sample_bytes().
  std::size_t plane_offset = 0, stride = 0;
  // What the colour stage reads: the downsampled width and upsampling method from the left edge
  // of the decoded window, and that edge's sample column in the plane. The whole width
  // (scaled_width, method, 0) unless crop_layout() narrowed the window.
  int window_width = 0, window_method = 0, window_col = 0;
  int first_block_col = 0;  // the window's first block column (libjpeg's first_MCU_col)
};

struct Layout {
  int width = 0, height = 0;  // the frame's
  int scale_denom = 1;        // output scale 1/scale_denom: 1, 2, 4 or 8
  // libjpeg's output_width and output_height: ceil(width / scale_denom), ...
  int output_width = 0, output_height = 0;
  // A region of the output decoded alone (crop_layout()): output_width x output_height pixels
  // from column crop_x, row crop_y of the whole output; window_x <= crop_x is the column where
  // the decoded window starts, crop_x rounded down to an iMCU column as jpeg_crop_scanline
  // rounds it. All 0 without a crop.
  int crop_x = 0, crop_y = 0, window_x = 0;
  int mcus_x = 0, mcus_y = 0;  // of an interleaved scan
  std::vector<ComponentLayout> components;
  int color = 0;  // HC_COLOR_* (core/portable/jpeg_job.h)
  PixelFormat format = PixelFormat::RGB;
  // Bits per sample: 8, or 12, whose planes and output hold 16-bit samples.
  int precision = 8;
  int sample_bytes() const { return precision > 8 ? 2 : 1; }
  std::uint32_t blocks = 0, groups = 0;
  std::size_t plane_bytes = 0;  // all component planes together
  std::size_t output_bytes() const {
    return std::size_t(output_width) * std::size_t(output_height) * std::size_t(channels(format)) *
           std::size_t(sample_bytes());
  }
};

// Whether 1/scale_denom is a scale the decoder gives (1, 2, 4 or 8), and the output size of a
// frame side at that scale (libjpeg's output_width: ceil(size * (8 / denom) / 8)).
bool valid_scale(int scale_denom);
int scaled_size(int size, int scale_denom);

// Throws Error(Unsupported) for lossless, hierarchical and lossy files of other than 8 or 12
// bits, lossless arithmetic coding, and for sampling factors libjpeg-turbo also refuses (non-integral ratios, more than 10
// blocks in an MCU); Error(InvalidArgument) for a scale_denom other than 1, 2, 4 or 8.
Layout make_layout(const Header& header, int scale_denom = 1);

// Narrows a layout to the region of `width` x `height` output pixels at (x, y) (coordinates of
// the scaled output), as libjpeg-turbo decodes it with jpeg_crop_scanline and
// jpeg_skip_scanlines: rows as in the whole image; across, the window starts at x rounded down
// to an iMCU column, whose left and right edges the upsampling treats as image edges (the
// downsampled widths from jpeg_crop_scanline, the method jinit_upsampler picks again when one
// falls below 2 samples), and so does block smoothing at the left edge (first_block_col). A
// region of the whole width keeps the layout's columns, as jpeg_crop_scanline does.
// Error(InvalidArgument) naming the region and the output size for an empty region or one
// outside the output.
void crop_layout(Layout& layout, const Header& header, int x, int y, int width, int height);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_LAYOUT_H
