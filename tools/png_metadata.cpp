// Metadata through libpng's C API for `hetcodec decode` (png_metadata.h).
#include "tools/png_metadata.h"

#include <iostream>

#include "core/png/metadata.h"

namespace hetcodec::tools {

const char* const kStripHelp =
    "leave out the metadata a PNG output would carry: the ICC profile, EXIF, and a PNG's\n"
    "gAMA, cHRM, sRGB, pHYs and text chunks";

void set_libpng_metadata(png_structp png, png_infop info, const Metadata& m, int channels,
                         const std::string& path) {
  if (m.exif.size() >= 2 && m.exif[0] == m.exif[1] && (m.exif[0] == 'I' || m.exif[0] == 'M'))
    png_set_eXIf_1(png, info, png_uint_32(m.exif.size()), const_cast<png_bytep>(m.exif.data()));
  if (m.icc.empty()) return;
  if (!png::icc_fits(m.icc, channels)) {
    std::cerr << path << ": warning: the ICC profile (colour space '" << png::icc_color_space(m.icc)
              << "') does not describe " << (channels >= 3 ? "RGB" : "gray")
              << " samples; left out\n";
    return;
  }
  // A profile libpng finds fault with (its length, signature or tags) is then a libpng warning
  // and left out, not an error that loses the image.
  png_set_benign_errors(png, 1);
  const std::string name = m.icc_name.empty() ? "ICC profile" : m.icc_name;
  png_set_iCCP(png, info, name.c_str(), PNG_COMPRESSION_TYPE_BASE, m.icc.data(),
               png_uint_32(m.icc.size()));
}

}  // namespace hetcodec::tools
