// The metadata `hetcodec decode` carries into the PNG files libpng writes for it (JPEG input:
// its EXIF and ICC profile), and the option that leaves metadata out.
#ifndef HETCODEC_TOOLS_PNG_METADATA_H
#define HETCODEC_TOOLS_PNG_METADATA_H

#include <png.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"

namespace hetcodec::tools {

// Before png_write_info: `metadata`'s EXIF as eXIf (png_set_eXIf_1) when it starts with a TIFF
// byte order, its ICC profile as iCCP (png_set_iCCP) when the profile's colour space fits the
// `channels` written (core/png/metadata.h: icc_fits). A profile left out, or one libpng refuses,
// is a warning on stderr naming `path`.
void set_libpng_metadata(png_structp png, png_infop info, const Metadata& metadata, int channels,
                         const std::string& path);

// Writes `px` (rows of width x channels samples of `depth` bits, 8 or 16 big-endian; 1 gray,
// 2 gray + alpha, 3 RGB, 4 RGBA) through libpng to `path` ("-": stdout), with `metadata` as
// above and, where `sbit` is not 0, an sBIT chunk of that many significant bits per channel.
void write_png_with_libpng(const std::string& path, int width, int height, int channels, int depth,
                           int sbit, const std::vector<std::uint8_t>& px, const Metadata& metadata);

// The help text of --strip, for the commands that take it.
extern const char* const kStripHelp;

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_PNG_METADATA_H
