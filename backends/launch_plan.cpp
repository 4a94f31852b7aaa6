// The launch plans of backends/launch_plan.h: each stage's geometry from its sizes and the lane
// counts its body in core/portable declares.
#include "backends/launch_plan.h"

#include <algorithm>

#include "backends/backend.h"
#include "core/portable/jpeg_decode.h"
#include "core/portable/filters.h"
#include "core/portable/jpeg_encode.h"
#include "core/portable/jpeg_huffman.h"
#include "core/portable/png_crc.h"
#include "core/portable/png_deflate.h"
#include "core/portable/ljpeg.h"
#include "core/portable/png_defilter.h"
#include "core/portable/png_filter.h"
#include "core/portable/png_inflate.h"

namespace hetcodec {

namespace {
// A row of the independent-rows de-filter per lane; the ticket counter's and flags' clearing.
constexpr std::uint32_t kDefilterRowLanes = 128;
constexpr std::uint32_t kClearLanes = 256;
// CUDA's grid is at most 65535 blocks high: the unpack stage's row groups take the rows past
// that in turn.
constexpr std::uint32_t kMaxRowGroups = 65535;
constexpr std::uint32_t kUnpackLanes = 256;
constexpr std::uint32_t kInflateLanes = 32;
constexpr std::uint32_t kLjpegRowLanes = 32;
}  // namespace

Launch launch_items(std::uint64_t items, std::uint32_t lanes) {
  Launch l;
  l.groups_x = std::uint32_t((items + lanes - 1) / lanes);
  l.lanes = lanes;
  return l;
}

Launch launch_groups(std::uint32_t groups, std::uint32_t lanes) {
  Launch l;
  l.groups_x = groups;
  l.lanes = lanes;
  return l;
}

std::size_t png_defilter_scratch_bytes(const PngDefilterInfo& info) {
  return 4 * (1 + std::size_t(hc_wf_tiles_x(info.row_bytes)) * hc_wf_tiles_y(info.height));
}

std::vector<DefilterPass> plan_png_defilter(const PngDefilterInfo& info, Wavefront order) {
  std::vector<DefilterPass> passes;
  if (info.height == 0 || info.row_bytes == 0) return passes;
  if (info.rows_independent) {
    passes.push_back({DefilterKernel::Rows, launch_items(info.height, kDefilterRowLanes)});
    return passes;
  }
  if (info.bands) {
    passes.push_back(
        {DefilterKernel::Bands, launch_groups(hc_wf_tiles_y(info.height), HC_WF_ROWS)});
    return passes;
  }
  const std::uint32_t tiles_x = hc_wf_tiles_x(info.row_bytes), tiles_y = hc_wf_tiles_y(info.height);
  if (order != Wavefront::Diagonals) {
    DefilterPass clear{DefilterKernel::Clear, {}};
    clear.clear_words = 1 + tiles_x * tiles_y;
    clear.launch = launch_items(clear.clear_words, kClearLanes);
    passes.push_back(clear);
    DefilterPass tiles{DefilterKernel::Tiles, launch_groups(tiles_x * tiles_y, HC_WF_THREADS)};
    tiles.tiles_x = tiles_x;
    tiles.tiles_y = tiles_y;
    passes.push_back(tiles);
    return passes;
  }
  for (std::uint32_t d = 0; d + 1 < tiles_x + tiles_y; ++d) {
    const std::uint32_t n = hc_wf_diagonal_last(d, tiles_y) - hc_wf_diagonal_first(d, tiles_x) + 1;
    DefilterPass tiles{DefilterKernel::Tiles, launch_groups(n, HC_WF_THREADS), std::int32_t(d)};
    tiles.tiles_x = tiles_x;
    tiles.tiles_y = tiles_y;
    passes.push_back(tiles);
  }
  return passes;
}

Launch plan_ljpeg_residuals(std::uint32_t rows) {
  // Few rows against a device's thousands of lanes: small work-groups spread them over every
  // multiprocessor.
  return launch_items(rows, kLjpegRowLanes);
}

PngDefilterInfo ljpeg_wavefront_info(const LjpegScanInfo& info) {
  PngDefilterInfo w;
  w.offset = info.plane_offset;
  w.height = info.height;
  w.row_bytes = info.row_bytes();
  w.bpp = 2 * info.comps;
  // Every tile row starts an interval: bands.
  w.bands = info.restart_rows > 0 && HC_WF_ROWS % info.restart_rows == 0;
  return w;
}

std::vector<LjpegPass> plan_ljpeg_reconstruct(const LjpegScanInfo& info, Wavefront order) {
  std::vector<LjpegPass> passes;
  if (info.height == 0 || info.width == 0) return passes;
  PngDefilterInfo w = ljpeg_wavefront_info(info);
  auto add_engine = [&](Wavefront o) {
    for (const DefilterPass& p :
         plan_png_defilter(w, o == Wavefront::Auto ? Wavefront::Tickets : o)) {
      LjpegPass l{LjpegPassKind::Wavefront, p.launch};
      l.wavefront = p;
      passes.push_back(l);
    }
  };
  if (info.restart_rows == 1) {  // every row is an interval's first: the engine's bands
    w.bands = true;
    add_engine(order);
    return passes;
  }
  if (order == Wavefront::Auto && info.predictor == 1) {
    // The first column down the plane, after which no row needs the row above: bands.
    passes.push_back({LjpegPassKind::FirstColumn, launch_groups(1, HC_LJ_COLUMN_LANES)});
    w.bands = true;
    add_engine(order);
    return passes;
  }
  if (order == Wavefront::Auto && info.predictor == 2) {
    passes.push_back({LjpegPassKind::FirstRowSums, launch_items(info.height, kLjpegRowLanes)});
    passes.push_back(
        {LjpegPassKind::ColumnSums, launch_items(std::uint64_t(info.width) * info.comps, 64)});
    return passes;
  }
  add_engine(order);
  return passes;
}

Launch plan_ljpeg_unpack(std::uint32_t width, std::uint32_t height) {
  return plan_png_unpack(width, height);
}

Launch plan_png_filter_rows(const PngFilterInfo& info) {
  return launch_groups(info.height, HC_PNG_FILTER_LANES);
}

Launch plan_png_unpack(std::uint32_t width, std::uint32_t height) {
  Launch l = launch_items(width, kUnpackLanes);
  l.groups_y = std::min(height, kMaxRowGroups);
  return l;
}

Launch plan_png_inflate(std::uint32_t segments) { return launch_items(segments, kInflateLanes); }

Launch plan_png_crc32_pieces(std::uint32_t count) {
  return launch_groups((count + HC_CRC_LANES - 1) / HC_CRC_LANES, HC_CRC_LANES);
}

Launch plan_png_deflate(int stage, std::uint32_t items) {
  const std::uint32_t lanes = hc_dfl_lanes(stage);
  return hc_dfl_is_group_stage(stage) ? launch_groups(items, lanes) : launch_items(items, lanes);
}

Launch plan_jpeg_encode(int stage, std::uint32_t items) {
  const std::uint32_t lanes = hc_jenc_lanes(stage);
  return hc_jenc_is_group_stage(stage) ? launch_groups(items, lanes) : launch_items(items, lanes);
}

Launch plan_jpeg_entropy(int stage, std::uint32_t items) {
  const std::uint32_t lanes = hc_jh_lanes(stage);
  return hc_jh_is_group_stage(stage) ? launch_groups(items, lanes) : launch_items(items, lanes);
}

Launch plan_filter(int kind, std::uint32_t width, std::uint32_t height) {
  if (kind == HC_FILTER_SMOOTH)
    return launch_groups(((width + HC_SMOOTH_TILE - 1) / HC_SMOOTH_TILE) *
                             ((height + HC_SMOOTH_TILE - 1) / HC_SMOOTH_TILE),
                         HC_SMOOTH_LANES);
  return launch_items(std::uint64_t(width) * height, HC_FILTER_ITEM_LANES);
}

Launch plan_jpeg_decode_idct(std::uint32_t groups) {
  return launch_groups(groups, HC_JPEG_GROUP_LANES);
}

Launch plan_jpeg_idct(std::uint32_t blocks) { return launch_items(blocks, HC_JPEG_IDCT_LANES); }

Launch plan_jpeg_pixels(std::uint32_t pixels) { return launch_items(pixels, HC_JPEG_PIXEL_LANES); }

Launch plan_jpeg_color_chunk(std::uint32_t tiles) { return launch_groups(tiles, HC_CHUNK_TILE); }

}  // namespace hetcodec
