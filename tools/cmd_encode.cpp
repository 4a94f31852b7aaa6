// `hetcodec encode`: PNM, PAM, PNG or JPEG in; PNG out, or JPEG (libjpeg-turbo's bytes for the
// same settings) when the output is named .jpg or --format jpeg is given.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "tools/cli.h"
#include "tools/jpeg_options.h"
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
  bool expand = false;
  bool strip = false;  // no metadata in the output
  std::string format;  // png or jpeg; "": by the output's name
  JpegCliOptions jpeg;
  std::vector<CLI::Option*> png_only;  // the PNG options, to refuse them with JPEG output
};

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::InvalidData, path + ": " + what);
}

// The format of a PAM's samples by its TUPLTYPE and DEPTH. A tuple type that does not match
// the depth is an error; one the PNG encoder has no meaning for (CMYK aside) too, never a guess.
PixelFormat pam_format(const std::string& path, const std::string& tuple, int depth) {
  struct Known {
    const char* name;
    int depth;
    PixelFormat format;
  };
  static const Known kKnown[] = {{"GRAYSCALE", 1, PixelFormat::Gray},
                                 {"GRAYSCALE_ALPHA", 2, PixelFormat::GrayAlpha},
                                 {"RGB", 3, PixelFormat::RGB},
                                 {"RGB_ALPHA", 4, PixelFormat::RGBA},
                                 {"CMYK", 4, PixelFormat::CMYK}};
  if (tuple.empty()) return png_format(depth);  // no TUPLTYPE: the depth says it
  for (const auto& k : kKnown) {
    if (tuple != k.name) continue;
    if (k.depth != depth)
      bad(path, "PAM TUPLTYPE " + tuple + " with DEPTH " + std::to_string(depth) + " (" +
                    std::to_string(k.depth) + " expected)");
    return k.format;
  }
  bad(path,
      "PAM TUPLTYPE " + tuple + " (GRAYSCALE, GRAYSCALE_ALPHA, RGB, RGB_ALPHA or CMYK are read)");
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
    std::string tuple;
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
        skip_space();
        const std::size_t from = at;
        while (at < b.size() && b[at] != '\n') ++at;
        tuple.assign(b.begin() + std::ptrdiff_t(from), b.begin() + std::ptrdiff_t(at));
        while (!tuple.empty() && std::isspace(static_cast<unsigned char>(tuple.back())))
          tuple.pop_back();
      } else if (key.empty() || at >= b.size()) {
        bad(path, "PAM header without ENDHDR");
      } else {
        bad(path, "unknown PAM header field " + key);
      }
    }
    if (depth < 1 || depth > 4) bad(path, "PAM depth " + std::to_string(depth) + " (1 to 4)");
    im.width = int(w);
    im.height = int(h);
    im.format = pam_format(path, tuple, int(depth));
  }
  if (maxval != 255 && maxval != 65535)
    bad(path, "maxval " + std::to_string(maxval) + " (PNG keeps 255 or 65535 exactly)");
  im.bit_depth = maxval == 255 ? 8 : 16;
  if (im.format == PixelFormat::CMYK && im.bit_depth != 8)
    bad(path, "a CMYK PAM with maxval 65535 (CMYK is read with maxval 255)");
  if (im.width < 1 || im.height < 1)
    bad(path, "image size " + std::to_string(im.width) + " x " + std::to_string(im.height));
  const std::size_t need = im.row_bytes() * std::size_t(im.height);
  if (at > b.size() || b.size() - at < need)
    bad(path, "truncated: " + std::to_string(need) + " bytes of samples expected");
  im.pixels.assign(b.begin() + std::ptrdiff_t(at), b.begin() + std::ptrdiff_t(at + need));
  return im;
}

}  // namespace

Image read_image_file(const std::string& path, const std::shared_ptr<Device>& device,
                      std::vector<std::string>* notes, std::optional<PngLayout>* png_layout,
                      bool keep_cmyk) {
  const std::vector<std::uint8_t> b = read_all(path);
  Image im;
  try {
    switch (sniff(b)) {
      case FileKind::Netpbm:
        if (b[1] < '5') bad(path, kind_problem(b, "a PNM (P5/P6), PAM (P7), PNG or JPEG"));
        im = read_netpbm(path, b);
        break;
      case FileKind::Png:
        // Our own decoder, on the same device: palette and tRNS become RGB(A), gray below 8
        // bits 8-bit gray, 16 bits stay, interlacing is undone (libpng's png_set_expand).
        {
          PngDecoder decoder(device);
          im = decoder.decode(b.data(), b.size());
          if (png_layout) *png_layout = decoder.layout(b.data(), b.size());
          break;
        }
      case FileKind::Jpeg:
        im = JpegDecoder(device).decode(b);
        break;
      default:
        bad(path, kind_problem(b, "a PNM (P5/P6), PAM (P7), PNG or JPEG"));
    }
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.compare(0, path.size(), path) == 0) throw;
    throw Error(e.code(), path + ": " + what);
  }
  if (im.format == PixelFormat::CMYK && !keep_cmyk) {
    // PNG has no CMYK: converted to RGB as djpeg writes a CMYK JPEG as PPM, which is what
    // `decode cmyk.jpg out.png` writes too.
    im.pixels = cmyk_as_rgb(im);
    im.format = PixelFormat::RGB;
    if (notes) notes->push_back("CMYK converted to RGB as djpeg does (PNG has no CMYK)");
  }
  return im;
}

namespace {

// Runs `one(job, progress)` on each job, naming and counting the files that fail (the others are
// written); `one` returns whether its input had warnings. The exit status, as djpeg's.
template <typename One>
int run_jobs(const GlobalOptions& g, const std::vector<FileJob>& jobs, One&& one) {
  int failed = 0, warned = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string progress = progress_of(i, jobs.size());
    try {
      if (one(jobs[i], progress)) ++warned;
    } catch (const Error& e) {
      std::cerr << progress << to_string(e.code()) << ": " << e.what() << "\n";
      ++failed;
    }
  }
  if (!g.quiet) report_batch("encoded", jobs.size(), failed, t0);
  return exit_status(failed, warned);
}

// An input's warnings on stderr; with --strict, the Error that fails its file.
bool report_warnings(const GlobalOptions& g, const std::string& input,
                     const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::cerr << input << ": warning: " << w << "\n";
  if (!warnings.empty() && g.strict)
    throw Error(ErrorCode::InvalidData, input + ": warnings are errors (--strict)");
  return !warnings.empty();
}

int run_encode_png(const GlobalOptions& g, const EncodeOptions& o) {
  PngEncodeOptions opts;
  opts.mode = o.mode == "parallel" ? PngMode::Parallel
              : o.mode == "small"  ? PngMode::Small
                                   : PngMode::Compatible;
  opts.segments = o.segments;
  opts.deflate = o.deflate == "host"     ? PngDeflate::Host
                 : o.deflate == "device" ? PngDeflate::Device
                                         : PngDeflate::Auto;
  const auto jobs = plan_jobs("encode", o.files, o.output_dir, "png");
  auto device = open_selected_device(g, "encode");
  PngEncoder encoder(device, opts);
  if (!g.quiet)
    std::cerr << "encoding " << jobs.size() << " file" << (jobs.size() == 1 ? "" : "s") << " on "
              << device->info().spec << " (" << device->info().name << "), " << o.mode << " mode\n";
  return run_jobs(g, jobs, [&](const FileJob& job, const std::string& progress) {
    std::vector<std::string> notes;
    std::optional<PngLayout> layout;  // a PNG input's, kept unless --expand
    Image im = read_image_file(job.input, device, &notes, o.expand ? nullptr : &layout);
    if (o.strip) im.metadata = {};
    const bool warned = report_warnings(g, job.input, im.warnings);
    const auto file = layout ? encoder.encode(im, *layout) : encoder.encode(im);
    write_bytes(job.output, "", file);
    if (g.quiet) return warned;
    for (const auto& n : notes) std::cerr << progress << job.input << ": " << n << "\n";
    const bool indexed = layout && layout->color == PngLayout::Color::Palette;
    std::cerr << progress << job.input << " -> " << job.output << " (" << im.width << "x"
              << im.height << ", "
              << (indexed ? "palette" : std::to_string(im.channels()) + " channel")
              << (indexed || im.channels() == 1 ? "" : "s") << ", "
              << (layout ? layout->bit_depth : im.bit_depth) << " bits, " << file.size()
              << " bytes)\n";
    return warned;
  });
}

// An input as the JPEG encoder takes it: 8-bit gray, gray + alpha or RGB(A), the alpha left out
// with a note. 16-bit samples and CMYK are refused, naming the file: baseline JPEG holds 8 bits,
// and the encoder writes gray or YCbCr.
Image read_for_jpeg(const std::string& path, const std::shared_ptr<Device>& device,
                    std::vector<std::string>& notes) {
  Image im = read_image_file(path, device, &notes, nullptr, /*keep_cmyk=*/true);
  if (im.format == PixelFormat::CMYK)
    throw Error(ErrorCode::Unsupported,
                path +
                    ": a CMYK image; JPEG output is gray or YCbCr (write it as PNG or PPM "
                    "first: `hetcodec decode " +
                    path + " x.ppm` converts it as djpeg does)");
  if (im.bit_depth != 8)
    throw Error(ErrorCode::Unsupported,
                path + ": " + std::to_string(im.bit_depth) +
                    "-bit samples; baseline JPEG holds 8 bits (write PNG instead)");
  if (im.format == PixelFormat::RGBA || im.format == PixelFormat::GrayAlpha)
    notes.push_back("alpha channel left out (JPEG has none)");
  return im;
}

int run_encode_jpeg(const GlobalOptions& g, const EncodeOptions& o) {
  JpegEncodeOptions opts = jpeg_encode_options(o.jpeg);
  opts.keep_metadata = !o.strip;
  const auto jobs = plan_jobs("encode", o.files, o.output_dir, "jpg");
  auto device = open_selected_device(g, "encode");
  JpegEncoder encoder(device, opts);
  if (!g.quiet)
    std::cerr << "encoding " << jobs.size() << " file" << (jobs.size() == 1 ? "" : "s") << " on "
              << device->info().spec << " (" << device->info().name << ") as JPEG, "
              << describe(opts) << "\n";
  // Files are read a chunk at a time (up to 64 files or 256 MiB of samples) and each chunk
  // encoded by encode_batch, whose launches code many images at once; the files are then
  // written and reported in order.
  constexpr std::size_t kChunkFiles = 64, kChunkBytes = std::size_t(256) << 20;
  int failed = 0, warned = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto progress = [&](std::size_t i) { return progress_of(i, jobs.size()); };
  auto fail = [&](std::size_t i, const Error& e) {
    std::cerr << progress(i) << to_string(e.code()) << ": " << e.what() << "\n";
    ++failed;
  };
  for (std::size_t first = 0; first < jobs.size();) {
    std::vector<Image> images;
    std::vector<std::vector<std::string>> notes;
    std::vector<std::optional<Error>> unread;  // each job's: the error that kept it from reading
    std::size_t bytes = 0, next = first;
    for (; next < jobs.size() && images.size() < kChunkFiles && bytes < kChunkBytes; ++next) {
      std::vector<std::string> n;
      unread.emplace_back();
      try {
        Image im = read_for_jpeg(jobs[next].input, device, n);
        if (report_warnings(g, jobs[next].input, im.warnings)) ++warned;
        bytes += im.pixels.size();
        images.push_back(std::move(im));
        notes.push_back(std::move(n));
      } catch (const Error& e) {
        unread.back() = e;
      }
    }
    BatchErrors errors;
    const auto files = encoder.encode_batch(images, &errors);
    for (std::size_t i = first, k = 0; i < next; ++i) {  // written and reported in order
      if (unread[i - first]) {
        fail(i, *unread[i - first]);
        continue;
      }
      const Image& im = images[k];
      const std::vector<std::uint8_t>& file = files[k];
      const std::optional<Error>& error = errors[k];
      const std::vector<std::string>& note = notes[k++];
      try {
        if (error) throw *error;
        write_bytes(jobs[i].output, "", file);
      } catch (const Error& e) {
        fail(i, e);
        continue;
      }
      if (g.quiet) continue;
      for (const auto& n : note) std::cerr << progress(i) << jobs[i].input << ": " << n << "\n";
      const bool gray = opts.sampling == JpegSampling::Gray || im.channels() < 3;
      std::cerr << progress(i) << jobs[i].input << " -> " << jobs[i].output << " (" << im.width
                << "x" << im.height << ", " << (gray ? "gray" : "YCbCr") << ", " << file.size()
                << " bytes)\n";
    }
    first = next;
  }
  if (!g.quiet) report_batch("encoded", jobs.size(), failed, t0);
  return exit_status(failed, warned);
}

// The output format: --format, else JPEG for an output named .jpg (.jpeg, .jpe, .jfif), else
// PNG. Options of the other format are refused rather than ignored.
std::string output_format(const EncodeOptions& o) {
  std::string f = o.format == "jpg" ? "jpeg" : o.format;
  if (f.empty())
    f = o.output_dir.empty() && o.files.size() == 2 && jpeg_extension(o.files[1]) ? "jpeg" : "png";
  if (f == "png" && o.jpeg.any_given())
    throw Error(ErrorCode::InvalidArgument,
                o.jpeg.first_given() +
                    " is a JPEG option and the output is PNG: name the output .jpg or give "
                    "--format jpeg");
  if (f == "jpeg")
    for (const CLI::Option* opt : o.png_only)
      if (opt->count() > 0)
        throw Error(ErrorCode::InvalidArgument,
                    opt->get_name() + " is a PNG option and the output is JPEG");
  return f;
}

}  // namespace

void add_encode_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<EncodeOptions>();
  auto* cmd = app.add_subcommand(
      "encode",
      "encode images as PNG or JPEG, the heavy stages on the device\n"
      "  hetcodec encode IN OUT.png\n"
      "  hetcodec encode IN OUT.jpg [--quality N] [--sampling 420] [--optimize] ...\n"
      "  hetcodec encode --output-dir DIR [--format png|jpeg] FILES...\n"
      "                          (writes DIR/<input name>.png, or .jpg with --format jpeg)\n"
      "  hetcodec encode - - < IN.ppm > OUT.png       ('-': standard input or output)\n"
      "Inputs, told by their bytes: PGM/PPM (P5/P6) and PAM (P7: GRAYSCALE, GRAYSCALE_ALPHA,\n"
      "RGB, RGB_ALPHA, CMYK) with maxval 255 or 65535, PNG (any type: a palette image stays a\n"
      "palette image with its tRNS, gray of 1, 2 or 4 bits keeps its depth, a tRNS key stays a\n"
      "key; --expand writes the decoded samples instead), and JPEG (decoded by hetcodec on the\n"
      "same device). CMYK (a JPEG or a PAM) becomes RGB as djpeg converts it, as `decode x.jpg\n"
      "x.png` does. The parallel mode (default) writes segments a decoder can inflate at once;\n"
      "the compatible mode writes the bytes libpng 1.6 writes with the Z_RLE strategy and\n"
      "default settings; the small mode writes the parallel mode's segments with a full LZ77\n"
      "deflate (libdeflate, level 12, on host threads): smaller files, written more slowly.\n"
      "The output keeps the input's metadata unless --strip is given: a JPEG's EXIF (as eXIf)\n"
      "and ICC profile (as iCCP), a PNG's iCCP, sRGB, gAMA, cHRM, pHYs, tEXt, zTXt, iTXt and\n"
      "eXIf chunks as they were (the compatible mode's bytes are libpng's for an input without\n"
      "metadata).\n"
      "JPEG output (an output named .jpg, .jpeg, .jpe or .jfif, or --format jpeg): baseline\n"
      "JPEG whose bytes equal libjpeg-turbo's (cjpeg -dct int) for the same quality, sampling,\n"
      "restart interval, -optimize and -qtables. Inputs of 8-bit gray, gray + alpha, RGB or\n"
      "RGBA: the alpha channel is left out (with a note); 16-bit and CMYK inputs are refused,\n"
      "naming the file. A gray input writes one component whatever --sampling says. The ICC\n"
      "profile (APP2) and EXIF (APP1) of a JPEG or PNG input are carried unless --strip.\n"
      "  hetcodec encode photo.ppm photo.jpg --quality 90 --sampling 444\n"
      "  hetcodec encode in.png out.jpg --restart-rows 1 --optimize --quant-table tables.txt");
  cmd->add_option("files", o->files, "IN OUT, or the inputs with --output-dir")
      ->required()
      ->type_name("PATH");
  cmd->add_option("-o,--output-dir", o->output_dir,
                  "write DIR/<input name>.png (or .jpg with --format jpeg) for each input")
      ->type_name("DIR");
  cmd->add_option("--format", o->format,
                  "png or jpeg (jpg); default: JPEG for an output named .jpg, .jpeg, .jpe or\n"
                  ".jfif, PNG otherwise (and with --output-dir)")
      ->check(CLI::IsMember({"png", "jpeg", "jpg"}));
  const char* png_group = "PNG output";
  o->png_only.push_back(
      cmd->add_option("--png-mode", o->mode,
                      "parallel: segments that inflate independently, indexed in an hcRS chunk;\n"
                      "compatible: libpng's bytes with the Z_RLE strategy;\n"
                      "small: the parallel mode's segments and index, deflated by libdeflate")
          ->check(CLI::IsMember({"compatible", "parallel", "small"}))
          ->capture_default_str()
          ->group(png_group));
  o->png_only.push_back(
      cmd->add_option("--segments", o->segments,
                      "parallel and small modes: segments (0: one per compute unit of the device)")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str()
          ->group(png_group));
  o->png_only.push_back(
      cmd->add_option("--deflate", o->deflate,
                      "where the deflate stream is made (the same bytes either way): device, host\n"
                      "threads, or auto (the device, except on the CPU reference and emulators);\n"
                      "the small mode's is always made on host threads")
          ->check(CLI::IsMember({"auto", "device", "host"}))
          ->capture_default_str()
          ->group(png_group));
  o->png_only.push_back(
      cmd->add_flag(
             "--expand", o->expand,
             "PNG inputs: write the decoded RGB(A) or 8-bit samples rather than the input's\n"
             "palette, bit depth and tRNS")
          ->group(png_group));
  add_jpeg_options(*cmd, o->jpeg);
  cmd->add_flag("--strip", o->strip,
                std::string(kStripHelp) + "; for JPEG output, the ICC profile and EXIF");
  cmd->callback([&global, o] {
    const int rc =
        output_format(*o) == "jpeg" ? run_encode_jpeg(global, *o) : run_encode_png(global, *o);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace hetcodec::tools
