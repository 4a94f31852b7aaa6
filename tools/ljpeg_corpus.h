// The corpus of `hetcodec bench ljpeg`: lossless JPEG files made at run time from the photos in
// tools/demo-images (so the repository carries no large test files), or the lossless files of
// a directory.
#ifndef HETCODEC_TOOLS_LJPEG_CORPUS_H
#define HETCODEC_TOOLS_LJPEG_CORPUS_H

#include <cstdint>
#include <string>
#include <vector>

namespace hetcodec::tools {

struct LjpegFile {
  std::string name;
  std::vector<std::uint8_t> bytes;
  int width = 0, height = 0, components = 0, precision = 0, predictor = 0, restart_rows = 0;
  // The samples encoded (interleaved, row by row); empty for a file read from a directory.
  std::vector<std::uint16_t> source;
  std::string origin;  // how it was made, or its path
};

// The built-in set: 16-bit gray "microscope-like" images of `large` and `small` pixels square
// (a photo's luminance, upscaled by a cubic interpolation, spread to 16 bits with low-amplitude
// noise so the low bits vary; deterministic), each with predictors 1 and 6, without restarts
// and with a restart interval per row; and an 8-bit RGB image of `small` pixels square with
// predictors 1 and 6. `photos`: the directory of the demo images (camera-gray.jpg,
// coffee-422.jpg, astronaut-420.jpg), decoded with the project's JPEG decoder on the CPU.
std::vector<LjpegFile> builtin_ljpeg_corpus(const std::string& photos, int large, int small);

// The lossless JPEG files (SOF3) named *.jpg / *.jpeg in `dir` (not recursive), sorted by name;
// the others are skipped with a line each in `skipped`.
std::vector<LjpegFile> ljpeg_files_in(const std::string& dir, std::vector<std::string>& skipped);

// Where the demo photos are: beside an installed tool (<prefix>/share/hetcodec/demo-images),
// else in the source tree the tool was built from; `given` when not empty.
std::string demo_photos_dir(const std::string& given);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_LJPEG_CORPUS_H
