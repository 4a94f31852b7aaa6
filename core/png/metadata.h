// PNG metadata (core/image.h's Metadata): read from a parsed file's ancillary chunks, and written
// into a new file where the PNG specification (third edition, 5.6) places each chunk: iCCP,
// sRGB, gAMA and cHRM before PLTE; pHYs, eXIf and the text chunks (tEXt, zTXt, iTXt) after it,
// before the image data. iCCP and sRGB are never written together (11.3.3.3, 11.3.3.5).
#ifndef HETCODEC_CORE_PNG_METADATA_H
#define HETCODEC_CORE_PNG_METADATA_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"

namespace hetcodec::png {

struct Info;

// Whether a chunk of this type is carried into a re-encoded file: iCCP, sRGB, gAMA, cHRM, pHYs,
// tEXt, zTXt, iTXt, eXIf. The others (bKGD, sBIT, hIST, sPLT, tIME, private ones such as hcRS or
// iDOT) describe the stored samples or the file itself and would be wrong in a new one.
bool carried_chunk(const std::string& type);

// The metadata of a parsed file: its carried chunks in file order, the ICC profile inflated from
// the iCCP chunk and the EXIF of the eXIf chunk. An iCCP chunk without a name, with an unknown
// compression method, or whose profile does not inflate within `max_profile_bytes`, and an
// eXIf chunk that starts with neither "II" nor "MM", are left out with a warning in `warnings`
// (libpng drops them too); so are a second iCCP, sRGB, gAMA, cHRM, pHYs or eXIf.
Metadata read_metadata(const Info& info, std::size_t max_profile_bytes,
                       std::vector<std::string>& warnings);

// An ICC profile's data colour space (bytes 16-19 of its header: "RGB ", "GRAY", "CMYK", ...),
// or "" when the profile is shorter than its 128-byte header.
std::string icc_color_space(const std::vector<std::uint8_t>& profile);
// Whether a profile describes samples of `channels` channels as PNG holds them: "RGB " for RGB
// and RGBA, "GRAY" for gray and gray + alpha (libpng's png_icc_check_header refuses others).
bool icc_fits(const std::vector<std::uint8_t>& profile, int channels);

// Where write_metadata() is called from: after IHDR, before where a PLTE chunk would go; and
// after that place, before the first IDAT chunk.
enum class MetadataPlace { BeforePalette, BeforeData };

// Appends the chunks of `metadata` (null: none) that go at `place` for an image of `channels`
// channels: png_chunks as they are, in their order, each of iCCP, sRGB, gAMA, cHRM, pHYs and eXIf
// once; an iCCP made from `icc` (zlib-compressed, named icc_name or "ICC profile") where there
// is no iCCP chunk and the profile fits the channels (icc_fits); an eXIf from `exif` where there
// is no eXIf chunk and it starts with "II" or "MM"; sRGB only where no iCCP is written.
void write_metadata(std::vector<std::uint8_t>& out, const Metadata* metadata, int channels,
                    MetadataPlace place);

}  // namespace hetcodec::png

#endif  // HETCODEC_CORE_PNG_METADATA_H
