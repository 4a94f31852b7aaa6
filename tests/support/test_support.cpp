// Test support shared by every suite (see the header).
#include "tests/support/test_support.h"

#include <sys/wait.h>

#include <cstdio>

#include <doctest/doctest.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hetcodec::test {

Image photo(int width, int height, unsigned seed) {
  Image im;
  im.width = width, im.height = height, im.format = PixelFormat::RGB;
  im.pixels.resize(im.bytes());
  std::uint32_t r = seed * 2654435761u + 1;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) {
        r = r * 1664525u + 1013904223u;
        const int v = (x * 255 / width + y * 128 / height + c * 40 + int(r >> 29)) % 256;
        im.pixels[(std::size_t(y) * width + x) * 3 + c] = std::uint8_t(v);
      }
  return im;
}

std::string& log_path() {
  static std::string path;
  return path;
}

namespace {

std::streamoff& log_offset() {
  static std::streamoff offset = 0;
  return offset;
}

}  // namespace

std::vector<DeviceInfo> test_devices() {
  std::vector<DeviceInfo> out;
  const char* env = std::getenv("HETCODEC_TEST_DEVICES");
  if (env && *env) {
    std::stringstream list(env);
    for (std::string spec; std::getline(list, spec, ',');) {
      if (!spec.empty()) out.push_back(resolve_device(spec));
    }
    return out;
  }
  for (const auto& d : list_devices()) {
    if (!d.is_emulator) out.push_back(d);
  }
  return out;
}

std::string take_emulator_log() {
  if (log_path().empty()) return {};
  std::ifstream in(log_path(), std::ios::binary);
  in.seekg(0, std::ios::end);
  std::streamoff end = in.tellg();
  if (end <= log_offset()) return {};
  in.seekg(log_offset());
  std::string text(static_cast<std::size_t>(end - log_offset()), '\0');
  in.read(&text[0], std::streamsize(text.size()));
  log_offset() = end;
  return text;
}

void for_each_device(const std::function<void(Device&)>& body) {
  for (const auto& info : test_devices()) {
    INFO("device " << info.spec << " (" << info.name << ")");
    auto device = open_device(info.spec);
    take_emulator_log();
    try {
      body(*device);
    } catch (const std::exception& e) {
      FAIL_CHECK("exception: " << std::string(e.what()));
    }
    if (info.is_emulator) {
      std::string report = take_emulator_log();
      CHECK_MESSAGE(report.empty(), "Oclgrind reported:\n" << report);
    }
  }
}

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<unsigned char>(x >> 24);
  }
  return v;
}

std::string run_command(const std::string& program, const std::string& args) {
  const std::string cmd = program + " " + args + " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int rc = pclose(p);
    out += "\nexit " + std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
  }
  return out;
}

Netpbm read_netpbm(const std::vector<std::uint8_t>& b) {
  Netpbm n;
  REQUIRE(b.size() > 2);
  REQUIRE(b[0] == 'P');
  n.kind = char(b[1]);
  std::size_t at = 2;
  auto word = [&] {
    while (at < b.size() && std::isspace(b[at])) ++at;
    std::string w;
    while (at < b.size() && !std::isspace(b[at])) w += char(b[at++]);
    return w;
  };
  if (n.kind == '7') {
    for (std::string k = word(); k != "ENDHDR"; k = word()) {
      REQUIRE(!k.empty());
      if (k == "WIDTH") n.width = std::stoi(word());
      if (k == "HEIGHT") n.height = std::stoi(word());
      if (k == "DEPTH") n.depth = std::stoi(word());
      if (k == "MAXVAL") n.maxval = std::stoi(word());
      if (k == "TUPLTYPE") n.tuple = word();
    }
  } else {
    n.width = std::stoi(word());
    n.height = std::stoi(word());
    n.maxval = std::stoi(word());
    n.depth = n.kind == '5' ? 1 : 3;
  }
  ++at;
  n.samples.assign(b.begin() + std::ptrdiff_t(at), b.end());
  return n;
}

std::vector<LjpegEntry> ljpeg_manifest() {
  std::ifstream f(std::filesystem::path(HETCODEC_TEST_SOURCE_DIR) / "data" / "ljpeg" /
                  "manifest.txt");
  REQUIRE(f.good());
  std::vector<LjpegEntry> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    LjpegEntry e;
    in >> e.name >> e.width >> e.height >> e.components >> e.precision >> e.predictor >> e.pt >>
        e.restart >> e.scans >> e.source >> e.digest;
    REQUIRE_MESSAGE(!in.fail(), "bad manifest line: " << line);
    out.push_back(e);
  }
  REQUIRE(out.size() > 50);
  return out;
}

std::shared_ptr<Device> borrowed(Device& device) {
  return std::shared_ptr<Device>(&device, [](Device*) {});
}

std::vector<std::uint8_t> read_back(Device& device, const DeviceImage& image) {
  auto queue = device.create_queue();
  std::vector<std::uint8_t> back(image.bytes());
  queue->read(back.data(), *image.buffer, image.offset, back.size());
  return back;
}

}  // namespace hetcodec::test
