// A PNG file's colour layout as stored (PNG specification 11.2.2 IHDR, 11.2.3 PLTE, 11.3.2.1
// tRNS) and the way back from the samples a decoder expands it to: the encoder's half of keeping
// a palette image a palette image, and gray below 8 bits at its depth. The expansion undone is
// libpng 1.6's png_set_expand(), which hetcodec's decoder follows (core/portable/png_decode.h):
// palette indices to RGB (RGBA with tRNS), gray below 8 bits scaled to 8 (v * 255 / (2^d - 1)),
// a tRNS key to an alpha channel (0 for the key, the most otherwise).
#ifndef HETCODEC_CORE_PNG_LAYOUT_H
#define HETCODEC_CORE_PNG_LAYOUT_H

#include "core/image.h"
#include "core/png/reader.h"
#include "core/png/writer.h"

namespace hetcodec::png {

// The layout of a parsed file as a Raster without samples: colour type, depth, PLTE and the tRNS
// that applies (a key masked to the depth, as the decoder compares it).
Raster stored_layout(const Info& info);

// The format and depth of the samples a file of `layout` decodes to.
PixelFormat expanded_format(const Raster& layout);
int expanded_depth(const Raster& layout);

// `layout` (check_layout()) takes the size of `image` and, as its samples, the image's pixels
// mapped back to what the file stores: palette indices (the first entry of that colour and
// alpha), gray at its depth, the key's alpha dropped, rows packed. Error(InvalidArgument) when
// the image is not of the layout's expanded format and depth, or naming the first pixel, in
// row order, that the layout cannot hold.
void pack_expanded(const Image& image, Raster& layout);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_LAYOUT_H
