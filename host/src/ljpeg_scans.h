// The residual and reconstruction stages' description of each scan of a lossless JPEG
// (ljpeg_decoder.cpp), shared with the debugging tools' dumps (debug_pipelines.cpp).
#ifndef HETCODEC_HOST_LJPEG_SCANS_H
#define HETCODEC_HOST_LJPEG_SCANS_H

#include <cstddef>
#include <vector>

#include "backends/backend.h"
#include "core/jpeg/lossless.h"

namespace hetcodec::detail {

// Each scan's LjpegScanInfo (cpu_threads: `threads`), its status after `status_bytes` (which
// grows by its rows' words), and the scratch the largest needs (at least `scratch_bytes`).
std::vector<LjpegScanInfo> lossless_scans(const jpeg::LosslessLayout& layout, int threads,
                                          std::size_t& status_bytes, std::size_t& scratch_bytes);

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_LJPEG_SCANS_H
