// `hetcodec transcode`: a JPEG or PNG decoded into device memory (JpegDecoder or PngDecoder
// decode_to_device) and encoded from there (JpegEncoder or PngEncoder encode(DeviceImage)) on
// the same device, opened once and shared by the four pipelines, so the pixels never come back
// to the host: only the file's bytes go up and the new file's bytes come down.
#include <cctype>
#include <chrono>
#include <iostream>
#include <memory>

#include "tools/cli.h"
#include "tools/jpeg_options.h"

namespace hetcodec::tools {
namespace {

struct TranscodeOptions {
  std::vector<std::string> files;
  std::string output_dir;
  std::string format;  // jpeg or png; "": by the output's name
  bool strip = false;
  JpegCliOptions jpeg;
};

// The output format: --format, else PNG for an output named .png, else JPEG.
std::string output_format(const TranscodeOptions& o) {
  std::string f = o.format == "jpg" ? "jpeg" : o.format;
  if (!f.empty()) return f;
  if (o.output_dir.empty() && o.files.size() == 2) {
    std::string ext = std::filesystem::path(o.files[1]).extension().string();
    for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".png") return "png";
  }
  return "jpeg";
}

// The pipelines of one run, all on one device, each made when first needed.
struct Pipelines {
  std::shared_ptr<Device> device;
  JpegEncodeOptions jpeg_options;
  std::unique_ptr<JpegDecoder> jpeg_decoder;
  std::unique_ptr<PngDecoder> png_decoder;
  std::unique_ptr<JpegEncoder> jpeg_encoder;
  std::unique_ptr<PngEncoder> png_encoder;

  DeviceImage decode(const std::string& path, const std::vector<std::uint8_t>& b) {
    switch (sniff(b)) {
      case FileKind::Jpeg:
        if (!jpeg_decoder) jpeg_decoder = std::make_unique<JpegDecoder>(device);
        return jpeg_decoder->decode_to_device(b.data(), b.size());
      case FileKind::Png:
        if (!png_decoder) png_decoder = std::make_unique<PngDecoder>(device);
        return png_decoder->decode_to_device(b.data(), b.size());
      default:
        throw Error(ErrorCode::InvalidData,
                    path + ": " + kind_problem(b, "a JPEG or PNG") +
                        " (transcode decodes JPEG and PNG on the device; `hetcodec encode` "
                        "reads PNM and PAM)");
    }
  }
  std::vector<std::uint8_t> encode_jpeg(const std::string& path, const DeviceImage& im) {
    if (im.format == PixelFormat::CMYK)
      throw Error(ErrorCode::Unsupported,
                  path + ": a CMYK image; JPEG output is gray or YCbCr (`hetcodec decode " + path +
                      " x.ppm` converts it as djpeg does)");
    if (im.bit_depth != 8)
      throw Error(ErrorCode::Unsupported,
                  path + ": " + std::to_string(im.bit_depth) +
                      "-bit samples; baseline JPEG holds 8 bits (transcode to .png instead)");
    if (!jpeg_encoder) jpeg_encoder = std::make_unique<JpegEncoder>(device, jpeg_options);
    return jpeg_encoder->encode(im);
  }
  std::vector<std::uint8_t> encode_png(const DeviceImage& im) {
    if (!png_encoder) png_encoder = std::make_unique<PngEncoder>(device);
    return png_encoder->encode(im);
  }
};

int run_transcode(const GlobalOptions& g, const TranscodeOptions& o) {
  const std::string format = output_format(o);
  if (format == "png" && o.jpeg.any_given())
    throw Error(ErrorCode::InvalidArgument,
                o.jpeg.first_given() + " is a JPEG option and the output is PNG");
  Pipelines p;
  p.jpeg_options = jpeg_encode_options(o.jpeg);
  p.jpeg_options.keep_metadata = !o.strip;
  const auto jobs = plan_jobs("transcode", o.files, o.output_dir, format == "png" ? "png" : "jpg");
  p.device = open_selected_device(g, "transcode");
  if (!g.quiet)
    std::cerr << "transcoding " << jobs.size() << " file" << (jobs.size() == 1 ? "" : "s") << " on "
              << p.device->info().spec << " (" << p.device->info().name << ") to "
              << (format == "png" ? std::string("PNG") : "JPEG, " + describe(p.jpeg_options))
              << "\n";
  int failed = 0, warned = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const FileJob& job = jobs[i];
    const std::string progress =
        jobs.size() > 1 ? "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] "
                        : "";
    try {
      const std::vector<std::uint8_t> in = read_all(job.input);
      DeviceImage im;
      try {
        im = p.decode(job.input, in);
      } catch (const Error& e) {  // the library's message, with the file's name before it
        const std::string what = e.what();
        if (what.compare(0, job.input.size(), job.input) == 0) throw;
        throw Error(e.code(), job.input + ": " + what);
      }
      for (const auto& w : im.warnings) std::cerr << job.input << ": warning: " << w << "\n";
      if (!im.warnings.empty() && g.strict)
        throw Error(ErrorCode::InvalidData, job.input + ": warnings are errors (--strict)");
      if (o.strip) im.metadata = {};
      const auto out = format == "png" ? p.encode_png(im) : p.encode_jpeg(job.input, im);
      write_bytes(job.output, "", out);
      if (!im.warnings.empty()) ++warned;
      if (g.quiet) continue;
      if (format == "jpeg" &&
          (im.format == PixelFormat::RGBA || im.format == PixelFormat::GrayAlpha))
        std::cerr << progress << job.input << ": alpha channel left out (JPEG has none)\n";
      std::cerr << progress << job.input << " -> " << job.output << " (" << im.width << "x"
                << im.height << ", " << to_string(im.format) << ", " << in.size() << " -> "
                << out.size() << " bytes)\n";
    } catch (const Error& e) {
      std::cerr << progress << to_string(e.code()) << ": " << e.what() << "\n";
      ++failed;
    }
  }
  if (!g.quiet) report_batch("transcoded", jobs.size(), failed, t0);
  return exit_status(failed, warned);
}

}  // namespace

void add_transcode_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<TranscodeOptions>();
  auto* cmd = app.add_subcommand(
      "transcode",
      "re-encode JPEG or PNG files without the pixels leaving the device\n"
      "  hetcodec transcode IN.jpg OUT.jpg --quality 80 [JPEG options]\n"
      "  hetcodec transcode IN.png OUT.jpg       (PNG in: decoded on the device too)\n"
      "  hetcodec transcode IN.jpg OUT.png       (PNG out: the parallel mode of `encode`)\n"
      "  hetcodec transcode --output-dir DIR [--format jpeg|png] FILES...\n"
      "Each file is decoded into device memory and encoded from there on the same device\n"
      "(one device, opened once): only the input's and the output's bytes cross the bus. A\n"
      "JPEG output equals what libjpeg-turbo writes from libjpeg-turbo's own decode of the\n"
      "input (djpeg -dct int, then cjpeg -dct int with the same settings). Gray + alpha and RGBA\n"
      "(PNG inputs) lose their alpha channel in a JPEG; 16-bit and CMYK inputs cannot be written\n"
      "as JPEG and fail, named. The ICC profile and EXIF are carried unless --strip. Exit status\n"
      "as `decode`'s: 0 clean, 2 an input decoded with warnings, 1 a file failed.");
  cmd->add_option("files", o->files, "IN OUT, or the inputs with --output-dir")
      ->required()
      ->type_name("PATH");
  cmd->add_option("-o,--output-dir", o->output_dir,
                  "write DIR/<input name>.jpg (or .png with --format png) for each input")
      ->type_name("DIR");
  cmd->add_option("--format", o->format,
                  "jpeg (jpg) or png; default: PNG for an output named .png, JPEG otherwise")
      ->check(CLI::IsMember({"png", "jpeg", "jpg"}));
  add_jpeg_options(*cmd, o->jpeg);
  cmd->add_flag("--strip", o->strip, "leave out the input's ICC profile and EXIF");
  cmd->callback([&global, o] {
    const int rc = run_transcode(global, *o);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace hetcodec::tools
