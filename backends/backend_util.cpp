// Helpers shared by the backends.
#include "backends/backend_util.h"

#include <cstdlib>
#include <filesystem>

namespace hetcodec {

void check_range(const char* what, std::size_t offset, std::size_t bytes, std::size_t size) {
  if (offset > size || bytes > size - offset) {
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": range [" +
                                                std::to_string(offset) + ", +" +
                                                std::to_string(bytes) + ") outside a buffer of " +
                                                std::to_string(size) + " bytes");
  }
}

void JpegKernels::ycc_to_rgb(Queue& queue, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                             std::uint32_t pixels) {
  check_range("ycc_to_rgb input", 0, 3 * std::size_t(pixels), ycc.size());
  check_range("ycc_to_rgb output", 0, 3 * std::size_t(pixels), rgb.size());
  run_ycc_to_rgb(queue, ycc, rgb, pixels);
}

std::string cache_directory() {
  namespace fs = std::filesystem;
  fs::path dir;
  if (const char* v = std::getenv("HETCODEC_CACHE_DIR"); v && *v) {
    dir = v;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = fs::path(x) / "hetcodec";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = fs::path(h) / ".cache" / "hetcodec";
  } else {
    return {};
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  return fs::is_directory(dir, ec) ? dir.string() : std::string();
}

bool sync_each_launch() {
  static const bool sync = [] {
    const char* v = std::getenv("HETCODEC_SYNC");
    return v && *v && std::string(v) != "0";
  }();
  return sync;
}

}  // namespace hetcodec
