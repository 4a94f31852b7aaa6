// The JPEG encoder's options as `encode`, `transcode` and `bench jpeg-encode` spell them, after
// cjpeg's (-quality, -sample, -optimize, -restart, -qtables, -grayscale): one registration, one
// reading into hetcodec::JpegEncodeOptions, so the three commands cannot drift apart.
#ifndef HETCODEC_TOOLS_JPEG_OPTIONS_H
#define HETCODEC_TOOLS_JPEG_OPTIONS_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/cli.h"

namespace hetcodec::tools {

struct JpegCliOptions {
  int quality = 75;
  std::string sampling = "420";  // 444, 422, 420, 440 or gray
  bool optimize = false;
  int restart = 0;          // MCUs per restart interval (libjpeg's restart_interval)
  int restart_rows = 0;     // MCU rows per restart interval (cjpeg -restart N)
  std::string quant_table;  // a cjpeg -qtables file
  std::string entropy = "auto";
  // The options as registered, to tell which were given (CLI::Option::count).
  std::vector<CLI::Option*> given;
  bool any_given() const;
  // The first option given, as "--name", for messages; "" when none was.
  std::string first_given() const;
};

// Registers --quality, --sampling, --optimize, --restart, --restart-rows, --quant-table and,
// with `entropy`, --entropy on `cmd`, in an option group "JPEG output". `o.quality` is the
// default shown.
void add_jpeg_options(CLI::App& cmd, JpegCliOptions& o, bool entropy = true);

// The library's options (keep_metadata left on): the sampling, the entropy choice and the
// quantisation table file read. Error(InvalidArgument) naming the option for a value out of
// range (CLI11 checks them as well; this is the check for callers that fill JpegCliOptions
// themselves) and for a table file that is missing or malformed.
JpegEncodeOptions jpeg_encode_options(const JpegCliOptions& o);

// A cjpeg -qtables file: whitespace-separated integers, 64 per table in natural (row-major, not
// zigzag) order, '#' to the end of a line a comment; one or two tables of values 1..32767.
// Error(InvalidArgument) beginning "--quant-table PATH:" saying what is wrong and where.
std::vector<std::array<std::uint16_t, 64>> read_quant_tables(const std::string& path);

// "q75 4:2:0" plus ", optimized", ", restart N MCUs" or ", restart N rows", ", 2 tables" when
// set: the settings in a progress line.
std::string describe(const JpegEncodeOptions& o);
const char* sampling_name(JpegSampling s);  // "4:2:0", ..., "gray"

// True for a path whose extension names JPEG: .jpg, .jpeg, .jpe, .jfif (any case).
bool jpeg_extension(const std::string& path);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_JPEG_OPTIONS_H
