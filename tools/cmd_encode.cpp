// `hetcodec encode`: PNM, PAM, PNG or JPEG in, PNG out.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "tools/cli.h"
#include "tools/png_metadata.h"

namespace hetcodec::tools {
namespace {

namespace fs = std::filesystem;

struct EncodeOptions {
  std::vector<std::string> files;
  std::string output_dir;
  std::string mode = "parallel";
  int segments = 0;
  std::string deflate = "auto";
  bool quiet = false;
  bool strip = false;  // no metadata in the output
};

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::InvalidData, path + ": " + what);
}

// Netpbm: P5 (PGM) and P6 (PPM) with maxval 255 or 65535, and P7 (PAM) with DEPTH 1 to 4.
Image read_netpbm(const std::string& path, const std::vector<std::uint8_t>& b) {
  std::size_t at = 2;
  auto skip_space = [&] {
    for (;;) {
      while (at < b.size() && std::isspace(b[at])) ++at;
      if (at < b.size() && b[at] == '#') {
        while (at < b.size() && b[at] != '\n') ++at;
        continue;
      }
      return;
    }
  };
  auto number = [&]() -> long {
    skip_space();
    long v = 0;
    std::size_t digits = 0;
    while (at < b.size() && std::isdigit(b[at]) && digits < 10)
      v = v * 10 + (b[at++] - '0'), ++digits;
    if (!digits) bad(path, "bad header (a number expected at byte " + std::to_string(at) + ")");
    return v;
  };
  Image im;
  long maxval = 0;
  if (b[1] == '5' || b[1] == '6') {
    im.width = int(number());
    im.height = int(number());
    maxval = number();
    im.format = b[1] == '5' ? PixelFormat::Gray : PixelFormat::RGB;
    ++at;  // the single whitespace byte after maxval
  } else {
    long w = -1, h = -1, depth = -1;
    for (;;) {
      skip_space();
      std::size_t end = at;
      while (end < b.size() && !std::isspace(b[end])) ++end;
      const std::string key(b.begin() + std::ptrdiff_t(at), b.begin() + std::ptrdiff_t(end));
      at = end;
      if (key == "ENDHDR") {
        while (at < b.size() && b[at] != '\n') ++at;
        ++at;
        break;
      }
      if (key == "WIDTH")
        w = number();
      else if (key == "HEIGHT")
        h = number();
      else if (key == "DEPTH")
        depth = number();
      else if (key == "MAXVAL")
        maxval = number();
      else if (key == "TUPLTYPE") {
        while (at < b.size() && b[at] != '\n') ++at;
      } else if (key.empty() || at >= b.size()) {
        bad(path, "PAM header without ENDHDR");
      } else {
        bad(path, "unknown PAM header field " + key);
      }
    }
    if (depth < 1 || depth > 4) bad(path, "PAM depth " + std::to_string(depth) + " (1 to 4)");
    im.width = int(w);
    im.height = int(h);
    im.format = png_format(int(depth));
  }
  if (maxval != 255 && maxval != 65535)
    bad(path, "maxval " + std::to_string(maxval) + " (PNG keeps 255 or 65535 exactly)");
  im.bit_depth = maxval == 255 ? 8 : 16;
  if (im.width < 1 || im.height < 1)
    bad(path, "image size " + std::to_string(im.width) + " x " + std::to_string(im.height));
  const std::size_t need = im.row_bytes() * std::size_t(im.height);
  if (at > b.size() || b.size() - at < need)
    bad(path, "truncated: " + std::to_string(need) + " bytes of samples expected");
  im.pixels.assign(b.begin() + std::ptrdiff_t(at), b.begin() + std::ptrdiff_t(at + need));
  return im;
}

}  // namespace

Image read_image_file(const std::string& path, const std::shared_ptr<Device>& device) {
  const std::vector<std::uint8_t> b = read_all(path);
  if (b.size() >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6' || b[1] == '7'))
    return read_netpbm(path, b);
  static const std::uint8_t kSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (b.size() >= 8 && std::memcmp(b.data(), kSig, 8) == 0) {
    // Our own decoder, on the same device: palette and tRNS become RGB(A), gray below 8 bits
    // 8-bit gray, 16 bits stay, interlacing is undone (libpng's png_set_expand samples).
    PngDecoder decoder(device);
    Image im;
    try {
      im = decoder.decode(b.data(), b.size());
    } catch (const Error& e) {
      throw Error(e.code(), path + ": " + e.what());
    }
    for (const auto& w : im.warnings) std::cerr << path << ": warning: " << w << "\n";
    return im;
  }
  if (b.size() >= 2 && b[0] == 0xFF && b[1] == 0xD8) {
    JpegDecoder decoder(device);
    Image img = decoder.decode(b);
    for (const auto& w : img.warnings) std::cerr << path << ": warning: " << w << "\n";
    if (img.format == PixelFormat::CMYK) bad(path, "a CMYK JPEG has no PNG form");
    img.warnings.clear();  // reported here
    return img;
  }
  bad(path, "not a PNM (P5/P6), PAM (P7), PNG or JPEG file");
}

namespace {

int run_encode(const GlobalOptions& g, const EncodeOptions& o) {
  PngEncodeOptions opts;
  opts.mode = o.mode == "parallel" ? PngMode::Parallel : PngMode::Compatible;
  opts.segments = o.segments;
  opts.deflate = o.deflate == "host"     ? PngDeflate::Host
                 : o.deflate == "device" ? PngDeflate::Device
                                         : PngDeflate::Auto;
  const auto jobs = plan_jobs("encode", o.files, o.output_dir, "png");
  auto device = open_device(single_device(g, "encode").spec);
  PngEncoder encoder(device, opts);
  if (!o.quiet)
    std::cerr << "encoding " << jobs.size() << " file" << (jobs.size() == 1 ? "" : "s") << " on "
              << device->info().spec << " (" << device->info().name << "), " << o.mode << " mode\n";
  int failed = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string progress =
        jobs.size() > 1 ? "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] "
                        : "";
    try {
      Image im = read_image_file(jobs[i].first, device);
      if (o.strip) im.metadata = {};
      const auto file = encoder.encode(im);
      write_bytes(jobs[i].second, "", file);
      if (!o.quiet)
        std::cerr << progress << jobs[i].first << " -> " << jobs[i].second << " (" << im.width
                  << "x" << im.height << ", " << im.channels() << " channel"
                  << (im.channels() == 1 ? "" : "s") << ", " << im.bit_depth << " bits, "
                  << file.size() << " bytes)\n";
    } catch (const Error& e) {
      std::cerr << progress << jobs[i].first << ": " << to_string(e.code()) << ": " << e.what()
                << "\n";
      ++failed;
    }
  }
  if (!o.quiet) report_batch("encoded", jobs.size(), failed, t0);
  return failed ? 1 : 0;
}

}  // namespace

void add_encode_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<EncodeOptions>();
  auto* cmd = app.add_subcommand(
      "encode",
      "encode images as PNG; the filter choice and the deflate stream run on the device\n"
      "  hetcodec encode IN OUT.png\n"
      "  hetcodec encode --output-dir DIR FILES...     (writes DIR/<input name>.png)\n"
      "Inputs: PGM/PPM (P5/P6) and PAM (P7, 1 to 4 channels) with maxval 255 or 65535, PNG\n"
      "(any type: palette and transparency become RGB(A), low depths 8 bits), and JPEG\n"
      "(decoded by hetcodec on the same device). The parallel mode (default) writes segments\n"
      "a decoder can inflate at once; the compatible mode writes the bytes libpng 1.6 writes\n"
      "with the Z_RLE strategy and default settings (for an input without metadata).\n"
      "The output keeps the input's metadata unless --strip is given: a JPEG's EXIF (as eXIf)\n"
      "and ICC profile (as iCCP), a PNG's iCCP, sRGB, gAMA, cHRM, pHYs, tEXt, zTXt, iTXt and\n"
      "eXIf chunks as they were.");
  cmd->add_option("files", o->files, "IN OUT.png, or the inputs with --output-dir")
      ->required()
      ->type_name("PATH");
  cmd->add_option("-o,--output-dir", o->output_dir, "write DIR/<input name>.png for each input")
      ->type_name("DIR");
  cmd->add_option("--png-mode", o->mode,
                  "parallel: segments that inflate independently, indexed in an hcRS chunk;\n"
                  "compatible: libpng's bytes with the Z_RLE strategy")
      ->check(CLI::IsMember({"compatible", "parallel"}))
      ->capture_default_str();
  cmd->add_option("--segments", o->segments,
                  "parallel mode: segments (0: one per compute unit of the device)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--deflate", o->deflate,
                  "where the deflate stream is made (the same bytes either way): device, host\n"
                  "threads, or auto (the device, except on the CPU reference and emulators)")
      ->check(CLI::IsMember({"auto", "device", "host"}))
      ->capture_default_str();
  cmd->add_flag("--strip", o->strip, kStripHelp);
  cmd->add_flag("-q,--quiet", o->quiet, "no progress output");
  cmd->callback([&global, o] {
    const int rc = run_encode(global, *o);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace hetcodec::tools
