// Files for the file commands: reading and writing them ('-' for the standard streams), naming
// outputs, telling a file's kind by its bytes, and opening the device they run on.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>

#include "tools/cli.h"

namespace hetcodec::tools {

namespace fs = std::filesystem;

std::shared_ptr<Device> open_selected_device(const GlobalOptions& g, const std::string& command) {
  try {
    auto device = open_device(single_device(g, command).spec);
    if (g.device_memory) limit_device_memory(*device, g.device_memory);
    return device;
  } catch (const Error& e) {
    // A device that is absent (no spec matches it) or fails to open; never a command line
    // that selects several devices for a one-device command.
    const bool several = g.devices.size() > 1 || (g.devices.size() == 1 && g.devices[0] == "all");
    if (!g.fallback_cpu || several ||
        (e.code() != ErrorCode::DeviceError && e.code() != ErrorCode::InvalidArgument))
      throw;
    std::string first = e.what();
    if (const auto nl = first.find('\n'); nl != std::string::npos) {
      first.resize(nl);  // the list of devices that follows is for `hetcodec devices`
      if (const auto semi = first.rfind(';'); semi != std::string::npos) first.resize(semi);
    }
    std::cerr << "hetcodec: " << first << "; falling back to the CPU reference\n";
    return open_device("cpu");
  }
}

std::vector<FileJob> plan_jobs(const std::string& command, const std::vector<std::string>& files,
                               const std::string& output_dir, const std::string& ext) {
  std::vector<FileJob> jobs;
  if (output_dir.empty()) {
    if (files.size() != 2)
      throw Error(ErrorCode::InvalidArgument, command + " IN OUT, or " + command +
                                                  " --output-dir DIR FILES... (got " +
                                                  std::to_string(files.size()) + " path" +
                                                  (files.size() == 1 ? "" : "s") + ")");
    std::error_code ec;
    if (files[0] != "-" && files[1] != "-" && fs::equivalent(files[0], files[1], ec))
      throw Error(ErrorCode::InvalidArgument, files[1] + " is the input itself");
    jobs.push_back({files[0], files[1], false});
    return jobs;
  }
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (!fs::is_directory(output_dir))
    throw Error(ErrorCode::InvalidArgument, "cannot create directory " + output_dir);
  // DIR/<stem>; inputs whose stems meet keep their extension (x.jpg and x.png become
  // x.jpg.<ext> and x.png.<ext>), and names still shared get -2, -3, ...: no output is written
  // twice. The names are fixed before the extension, which may depend on the image.
  auto stem_of = [](const std::string& f) {
    return f == "-" ? std::string("stdin") : fs::path(f).stem().string();
  };
  std::map<std::string, int> stems, names;
  for (const auto& f : files) ++stems[stem_of(f)];
  for (const auto& f : files) {
    std::string name = stem_of(f);
    if (stems[name] > 1 && f != "-") name = fs::path(f).filename().string();
    if (const int n = ++names[name]; n > 1) name += "-" + std::to_string(n);
    FileJob job{f, (fs::path(output_dir) / name).string(), ext.empty()};
    if (!ext.empty()) job.output += "." + ext;
    if (!ext.empty() && f != "-" && fs::equivalent(f, job.output, ec))
      throw Error(ErrorCode::InvalidArgument,
                  job.output + " would overwrite its input: choose another --output-dir");
    if (name != stem_of(f))
      std::cerr << "hetcodec: " << f << " -> " << job.output << (ext.empty() ? ".*" : "")
                << " (its name is shared with another input)\n";
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::string progress_of(std::size_t i, std::size_t n) {
  return n > 1 ? "[" + std::to_string(i + 1) + "/" + std::to_string(n) + "] " : std::string();
}

void report_batch(const char* done, std::size_t files, int failed,
                  std::chrono::steady_clock::time_point t0) {
  if (files < 2) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "%zu %s, %d failed, %.2f s\n", files - std::size_t(failed), done, failed, s);
}

std::vector<std::uint8_t> read_all(const std::string& path) {
  std::vector<std::uint8_t> bytes;
  const bool stdin_ = path == "-";
  std::error_code ec;
  if (!stdin_ && fs::is_directory(path, ec))
    throw Error(ErrorCode::InvalidArgument, path + ": is a directory");
  std::FILE* f = stdin_ ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) throw Error(ErrorCode::InvalidArgument, path + ": " + std::strerror(errno));
  std::uint8_t buf[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    bytes.insert(bytes.end(), buf, buf + n);
    if (n < sizeof buf) break;
  }
  const int err = std::ferror(f) ? errno : 0;
  if (!stdin_) std::fclose(f);
  if (err) throw Error(ErrorCode::InvalidArgument, path + ": " + std::strerror(err));
  return bytes;
}

void write_bytes(const std::string& path, const std::string& header,
                 const std::vector<std::uint8_t>& body) {
  const bool stdout_ = path == "-";
  std::FILE* f = stdout_ ? stdout : std::fopen(path.c_str(), "wb");
  if (!f)
    throw Error(ErrorCode::InvalidArgument, "cannot create " + path + ": " + std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            std::fwrite(body.data(), 1, body.size(), f) == body.size();
  ok = (stdout_ ? std::fflush(f) : std::fclose(f)) == 0 && ok;
  if (!ok)
    throw Error(ErrorCode::InvalidArgument, "cannot write " + path + ": " + std::strerror(errno));
}

std::string human_bytes(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ULL << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ULL << 30));
  else
    std::snprintf(buf, sizeof buf, "%.0f MiB", double(bytes) / double(1ULL << 20));
  return buf;
}

FileKind sniff(const std::vector<std::uint8_t>& b) {
  // PNG by the first four bytes of its signature, so that a damaged rest of it is reported by
  // the PNG parser; Netpbm by any of its magic numbers, P1 to P7, and the whitespace after it.
  if (b.empty()) return FileKind::Empty;
  if (b.size() >= 4 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G')
    return FileKind::Png;
  if (b.size() >= 2 && b[0] == 0xFF && b[1] == 0xD8) return FileKind::Jpeg;
  if (b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7' && std::isspace(b[2]))
    return FileKind::Netpbm;
  return FileKind::Unknown;
}

std::string kind_problem(const std::vector<std::uint8_t>& b, const std::string& expected) {
  if (b.empty()) return "empty file";
  auto starts = [&b](const char* magic, std::size_t at = 0) {
    const std::size_t n = std::strlen(magic);
    return b.size() >= at + n && std::memcmp(b.data() + at, magic, n) == 0;
  };
  // A few kinds a user may meet under a wrong name, so the message says what the file is.
  const char* what = starts(
                         "\x7F"
                         "ELF")
                         ? "an ELF executable"
                     : starts("GIF8")                      ? "a GIF image"
                     : starts("BM")                        ? "a BMP image"
                     : starts("II*") || starts("MM")       ? "a TIFF image"
                     : starts("RIFF") && starts("WEBP", 8) ? "a WebP image"
                     : starts("%PDF")                      ? "a PDF document"
                     : starts("PK\x03\x04")                ? "a ZIP archive"
                     : starts("\x1F\x8B")                  ? "gzip data"
                     : starts("P1") || starts("P2") || starts("P3") || starts("P4")
                         ? "a plain or bitmap netpbm file (P1 to P4; P5, P6 and P7 are read)"
                         : nullptr;
  return "not " + expected + " file" + (what ? std::string(": ") + what : std::string());
}

// libjpeg-turbo's cmyk_to_rgb (cmyk.h), which djpeg uses to write CMYK files as PPM: Adobe's
// inverted CMYK, each of C, M, Y scaled by K.
std::vector<std::uint8_t> cmyk_as_rgb(const Image& img) {
  std::vector<std::uint8_t> rgb(std::size_t(img.width) * std::size_t(img.height) * 3);
  for (std::size_t i = 0; i < rgb.size() / 3; ++i) {
    const double k = img.pixels[4 * i + 3];
    for (std::size_t c = 0; c < 3; ++c)
      rgb[3 * i + c] = std::uint8_t(double(img.pixels[4 * i + c]) * k / 255.0 + 0.5);
  }
  return rgb;
}

int exit_status(int failed, int warned) { return failed ? 1 : warned ? 2 : 0; }

}  // namespace hetcodec::tools
