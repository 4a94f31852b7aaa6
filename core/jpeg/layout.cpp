#include "core/jpeg/layout.h"

#include <string>

#include "core/error.h"
#include "core/portable/jpeg_job.h"
#include "core/portable/jpeg_upsample.h"

namespace hetcodec::jpeg {
namespace {

int div_up(int a, int b) { return (a + b - 1) / b; }

[[noreturn]] void unsupported(const std::string& what) {
  throw Error(ErrorCode::Unsupported, "jpeg: " + what);
}

// libjpeg-turbo's default_decompress_parms (jdapimin.c): which colour space the file is in.
int color_transform(const Header& h) {
  switch (h.components.size()) {
    case 1:
      return HC_COLOR_GRAY;
    case 3: {
      if (h.jfif) return HC_COLOR_YCC_RGB;
      if (h.adobe) return h.adobe_transform == 0 ? HC_COLOR_RGB : HC_COLOR_YCC_RGB;
      const auto& c = h.components;
      if (c[0].id == 1 && c[1].id == 2 && c[2].id == 3) return HC_COLOR_YCC_RGB;
      if (c[0].id == 'R' && c[1].id == 'G' && c[2].id == 'B') return HC_COLOR_RGB;
      return HC_COLOR_YCC_RGB;
    }
    case 4:
      return h.adobe && h.adobe_transform != 0 ? HC_COLOR_YCCK_CMYK : HC_COLOR_CMYK;
    default:
      unsupported(std::to_string(h.components.size()) +
                  " components (1, 3 and 4 are decoded; libjpeg-turbo also refuses others "
                  "without an explicit colour space)");
  }
}

// The samples per block side of a component at min_size samples a block for the image
// (jpeg_calc_output_dimensions): chroma sampled at a power-of-2 fraction of the luma is given a
// larger IDCT instead of upsampling, doubling while both ratios allow it, up to 8.
int component_block(const Header& h, const Component& c, int min_size) {
  int size = min_size;
  while (size < 8 && (h.max_h * min_size) % (c.h * size * 2) == 0 &&
         (h.max_v * min_size) % (c.v * size * 2) == 0)
    size *= 2;
  return size;
}

}  // namespace

bool valid_scale(int d) { return d == 1 || d == 2 || d == 4 || d == 8; }

int scaled_size(int size, int scale_denom) { return div_up(size, scale_denom); }

Layout make_layout(const Header& h, int scale_denom) {
  if (!valid_scale(scale_denom))
    throw Error(ErrorCode::InvalidArgument, "jpeg: scale 1/" + std::to_string(scale_denom) +
                                                " (scale_denom must be 1, 2, 4 or 8)");
  switch (h.process) {
    case Process::Baseline:
    case Process::ExtendedHuffman:
    case Process::ProgressiveHuffman:
      break;
    case Process::LosslessHuffman:
      unsupported(
          "lossless JPEG (SOF3) is decoded one file at a time (decode, decode_to_device, "
          "decode_batch), not in a batch left on the device");
    case Process::Arithmetic:
      // SOF9 (sequential) and SOF10 (progressive); lossless and hierarchical ones are not.
      if (h.sof_marker != 0xC9 && h.sof_marker != 0xCA)
        unsupported(std::string(h.sof_marker == 0xCB ? "lossless arithmetic coding"
                                                     : "hierarchical (differential) mode") +
                    " (SOF" + std::to_string(h.sof_marker - 0xC0) + ") is not supported");
      break;
  }
  if (h.precision != 8 && h.precision != 12)
    unsupported(std::to_string(h.precision) +
                "-bit samples in a lossy JPEG (8 and 12 are decoded)");
  Layout l;
  l.precision = h.precision;
  l.width = h.width;
  l.height = h.height;
  l.scale_denom = scale_denom;
  l.output_width = scaled_size(h.width, scale_denom);
  l.output_height = scaled_size(h.height, scale_denom);
  // The image's samples per block side (min_DCT_scaled_size); fancy upsampling needs more than 1.
  const int min_size = 8 / scale_denom;
  l.color = color_transform(h);
  l.format = l.color == HC_COLOR_GRAY                                   ? PixelFormat::Gray
             : (l.color == HC_COLOR_YCC_RGB || l.color == HC_COLOR_RGB) ? PixelFormat::RGB
                                                                        : PixelFormat::CMYK;
  l.mcus_x = div_up(h.width, 8 * h.max_h);
  l.mcus_y = div_up(h.height, 8 * h.max_v);
  std::uint32_t first_group = 0;
  std::size_t plane = 0;
  for (const auto& c : h.components) {
    if (h.max_h % c.h || h.max_v % c.v)
      unsupported("sampling factors " + std::to_string(c.h) + "x" + std::to_string(c.v) +
                  " against " + std::to_string(h.max_h) + "x" + std::to_string(h.max_v) +
                  " (non-integral upsampling ratio; libjpeg-turbo refuses it too)");
    ComponentLayout cl;
    cl.grid_w = l.mcus_x * c.h;
    cl.grid_h = l.mcus_y * c.v;
    cl.width = div_up(h.width * c.h, h.max_h);
    cl.height = div_up(h.height * c.v, h.max_v);
    cl.block = component_block(h, c, min_size);
    cl.scaled_width = div_up(h.width * c.h * cl.block, h.max_h * 8);
    cl.scaled_height = div_up(h.height * c.v * cl.block, h.max_v * 8);
    // jinit_upsampler's input group (h * block / min_size samples) against its output group
    // (max_h pixels); component_block keeps the ratio integral.
    cl.hr = h.max_h * min_size / (c.h * cl.block);
    cl.vr = h.max_v * min_size / (c.v * cl.block);
    cl.method = hc_upsample_method(cl.hr, cl.vr, cl.scaled_width, min_size > 1);
    cl.window_width = cl.scaled_width;
    cl.window_method = cl.method;
    cl.quant = c.quant_table;
    cl.blocks = std::uint32_t(cl.grid_w) * std::uint32_t(cl.grid_h);
    cl.groups = (cl.blocks + 63) / 64;
    cl.first_group = first_group;
    cl.first_block = first_group * 64;
    cl.stride = std::size_t(cl.grid_w) * std::size_t(cl.block) * std::size_t(l.sample_bytes());
    cl.plane_offset = plane;
    plane += cl.stride * std::size_t(cl.grid_h) * std::size_t(cl.block);
    plane = (plane + 255) / 256 * 256;
    first_group += cl.groups;
    l.blocks += cl.blocks;
    l.components.push_back(cl);
  }
  l.groups = first_group;
  l.plane_bytes = plane;
  return l;
}

void crop_layout(Layout& l, const Header& h, int x, int y, int width, int height) {
  if (width <= 0 || height <= 0 || x < 0 || y < 0 || x > l.output_width - width ||
      y > l.output_height - height)
    throw Error(ErrorCode::InvalidArgument, "jpeg: crop " + std::to_string(width) + "x" +
                                                std::to_string(height) + "+" + std::to_string(x) +
                                                "+" + std::to_string(y) + " is not inside the " +
                                                std::to_string(l.output_width) + "x" +
                                                std::to_string(l.output_height) + " output");
  const int min_size = 8 / l.scale_denom;
  l.crop_x = x;
  l.crop_y = y;
  const int full_width = l.output_width;
  l.output_width = width;
  l.output_height = height;
  if (width == full_width) return;  // jpeg_crop_scanline leaves the columns alone
  // jpeg_crop_scanline: the window starts on an iMCU column (one block of a grayscale file),
  // and its downsampled widths are those of an image as wide as the window. (libjpeg-turbo
  // 2.1.5 leaves out the IDCT scaling of components with larger blocks here; that matters only
  // where such a component is upsampled 2:1 fancily, as 4:1:1 chroma at 1/2, and later
  // versions compute it as here.)
  const bool gray = h.components.size() == 1;
  const int align = gray ? min_size : min_size * h.max_h;
  l.window_x = x / align * align;
  const int window_width = width + x - l.window_x;
  bool reinit_upsampler = false;
  for (std::size_t c = 0; c < l.components.size(); ++c) {
    ComponentLayout& cl = l.components[c];
    const int hsf = gray ? 1 : h.components[c].h;
    cl.first_block_col = l.window_x / align * hsf;
    cl.window_col = cl.first_block_col * cl.block;
    cl.window_width = div_up(window_width * hsf * cl.block, (gray ? 1 : h.max_h) * min_size);
    if (cl.window_width < 2 && cl.scaled_width >= 2) reinit_upsampler = true;
  }
  // jinit_upsampler runs again, with the new widths, only when one falls below 2, and then
  // picks every component's method anew (a 2:1 component exactly 2 samples wide loses its
  // fancy filter, as where Y, Cb, Cr are sampled 4, 2, 1 across).
  if (reinit_upsampler)
    for (ComponentLayout& cl : l.components)
      cl.window_method = hc_upsample_method(cl.hr, cl.vr, cl.window_width, min_size > 1);
}

}  // namespace hetcodec::jpeg
