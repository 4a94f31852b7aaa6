// A JPEG file's metadata (core/image.h's Metadata): the EXIF of its first APP1 "Exif\0\0"
// segment, and the ICC profile of its APP2 "ICC_PROFILE\0" segments, reassembled by sequence
// number as libjpeg-turbo's jpeg_read_icc_profile (jdicc.c) does.
#ifndef HETCODEC_CORE_JPEG_METADATA_H
#define HETCODEC_CORE_JPEG_METADATA_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/jpeg/parser.h"

namespace hetcodec::jpeg {

// `data` is the file `header` was parsed from. ICC segments that do not make one profile (counts
// that differ, a sequence number out of range, repeated or missing, no profile bytes at all)
// leave the profile out with a warning in `warnings`, where libjpeg-turbo warns
// (JWRN_BOGUS_ICC) and returns no profile.
Metadata read_metadata(const std::uint8_t* data, const Header& header,
                       std::vector<std::string>& warnings);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_METADATA_H
