// `hetcodec transcode`: JPEG or PNG files decoded into device memory (JpegDecoder's
// decode_batch_to_device for the JPEG files of a chunk, PngDecoder decode_to_device) and encoded
// from there (JpegEncoder encode_batch of DeviceImages, or PngEncoder encode(DeviceImage)) on
// the same device, opened once and shared by the four pipelines, so the pixels never come back
// to the host: only the files' bytes go up and the new files' bytes come down.
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
  std::string filter;  // --filter NAME[:VALUE], or empty
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

// The library's message, with the file's name before it (once).
Error named(const std::string& path, const Error& e) {
  const std::string what = e.what();
  if (what.compare(0, path.size(), path) == 0) return e;
  return Error(e.code(), path + ": " + what);
}

// The pipelines of one run, all on one device, each made when first needed.
struct Pipelines {
  std::shared_ptr<Device> device;
  JpegEncodeOptions jpeg_options;
  std::unique_ptr<JpegDecoder> jpeg_decoder;
  std::unique_ptr<PngDecoder> png_decoder;
  std::unique_ptr<JpegEncoder> jpeg_encoder;
  std::unique_ptr<PngEncoder> png_encoder;

  // One file to device memory (Error naming the file for one neither JPEG nor PNG).
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
  // Refuses (naming the file) an image JPEG output cannot hold.
  static void check_for_jpeg(const std::string& path, const DeviceImage& im) {
    if (im.format == PixelFormat::CMYK)
      throw Error(ErrorCode::Unsupported,
                  path + ": a CMYK image; JPEG output is gray or YCbCr (`hetcodec decode " + path +
                      " x.ppm` converts it as djpeg does)");
    if (im.bit_depth != 8)
      throw Error(ErrorCode::Unsupported,
                  path + ": " + std::to_string(im.bit_depth) +
                      "-bit samples; baseline JPEG holds 8 bits (transcode to .png instead)");
  }
  JpegEncoder& jpeg() {
    if (!jpeg_encoder) jpeg_encoder = std::make_unique<JpegEncoder>(device, jpeg_options);
    return *jpeg_encoder;
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
  if (!o.filter.empty()) parse_filter_spec(o.filter);  // (refused before any work)
  p.device = open_selected_device(g, "transcode");
  std::unique_ptr<Filters> filters;
  if (!o.filter.empty()) filters = std::make_unique<Filters>(p.device);
  if (!g.quiet)
    std::cerr << "transcoding " << jobs.size() << " file" << (jobs.size() == 1 ? "" : "s") << " on "
              << p.device->info().spec << " (" << p.device->info().name << ") to "
              << (format == "png" ? std::string("PNG") : "JPEG, " + describe(p.jpeg_options))
              << "\n";
  int failed = 0, warned = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto progress = [&](std::size_t i) { return progress_of(i, jobs.size()); };
  // Files go a chunk at a time (up to 64 files or 256 MiB of them): read, the JPEG files
  // decoded together by decode_batch_to_device (PNG files one by one), then encoded together
  // by JPEG's encode_batch or one by one as PNG, and written and reported in order. A file
  // that fails at any step fails alone, named with its place in the list.
  constexpr std::size_t kChunkFiles = 64, kChunkBytes = std::size_t(256) << 20;
  for (std::size_t first = 0; first < jobs.size();) {
    std::size_t next = first, bytes = 0;
    std::vector<std::vector<std::uint8_t>> in;
    std::vector<std::optional<Error>> failure;
    for (; next < jobs.size() && next - first < kChunkFiles && bytes < kChunkBytes; ++next) {
      in.emplace_back();
      failure.emplace_back();
      try {
        in.back() = read_all(jobs[next].input);
        bytes += in.back().size();
      } catch (const Error& e) {
        failure.back() = e;
      }
    }
    const std::size_t n = next - first;
    std::vector<DeviceImage> images(n);
    // Decoding: the JPEG files of the chunk in one batch, the others one at a time.
    std::vector<Input> inputs;
    std::vector<std::size_t> jpeg_at;
    for (std::size_t k = 0; k < n; ++k) {
      if (failure[k]) continue;
      if (sniff(in[k]) == FileKind::Jpeg) {
        inputs.push_back({in[k].data(), in[k].size(), {}});
        jpeg_at.push_back(k);
        continue;
      }
      try {
        images[k] = p.decode(jobs[first + k].input, in[k]);
      } catch (const Error& e) {
        failure[k] = named(jobs[first + k].input, e);
      }
    }
    if (!inputs.empty()) {
      if (!p.jpeg_decoder) p.jpeg_decoder = std::make_unique<JpegDecoder>(p.device);
      BatchErrors errors;
      auto decoded = p.jpeg_decoder->decode_batch_to_device(inputs, &errors);
      for (std::size_t j = 0; j < jpeg_at.size(); ++j) {
        const std::size_t k = jpeg_at[j];
        if (errors[j])
          failure[k] = named(jobs[first + k].input, *errors[j]);
        else
          images[k] = std::move(decoded[j]);
      }
    }
    // Warnings, --strict, --strip, and what JPEG output refuses, file by file.
    std::vector<std::size_t> to_encode;
    std::vector<DeviceImage> batch;
    for (std::size_t k = 0; k < n; ++k) {
      if (failure[k]) continue;
      const std::string& input = jobs[first + k].input;
      DeviceImage& im = images[k];
      for (const auto& w : im.warnings) std::cerr << input << ": warning: " << w << "\n";
      try {
        if (!im.warnings.empty() && g.strict)
          throw Error(ErrorCode::InvalidData, input + ": warnings are errors (--strict)");
        if (o.strip) im.metadata = {};
        if (format == "jpeg") Pipelines::check_for_jpeg(input, im);
        if (filters) apply_filter_spec(o.filter, *filters, im);  // on the device, in place
      } catch (const Error& e) {
        failure[k] = named(input, e);
        continue;
      }
      to_encode.push_back(k);
      batch.push_back(im);
    }
    std::vector<std::vector<std::uint8_t>> out(n);
    if (format == "jpeg") {
      BatchErrors errors;
      auto files = p.jpeg().encode_batch(batch, &errors);
      for (std::size_t j = 0; j < to_encode.size(); ++j) {
        if (errors[j])
          failure[to_encode[j]] = named(jobs[first + to_encode[j]].input, *errors[j]);
        else
          out[to_encode[j]] = std::move(files[j]);
      }
    } else {
      for (std::size_t k : to_encode) {
        try {
          out[k] = p.encode_png(images[k]);
        } catch (const Error& e) {
          failure[k] = named(jobs[first + k].input, e);
        }
      }
    }
    batch.clear();
    for (std::size_t k = 0; k < n; ++k) {  // written and reported in order
      const std::size_t i = first + k;
      const FileJob& job = jobs[i];
      try {
        if (failure[k]) throw *failure[k];
        write_bytes(job.output, "", out[k]);
      } catch (const Error& e) {
        std::cerr << progress(i) << to_string(e.code()) << ": " << e.what() << "\n";
        ++failed;
        continue;
      }
      const DeviceImage& im = images[k];
      if (!im.warnings.empty()) ++warned;
      if (g.quiet) continue;
      if (format == "jpeg" &&
          (im.format == PixelFormat::RGBA || im.format == PixelFormat::GrayAlpha))
        std::cerr << progress(i) << job.input << ": alpha channel left out (JPEG has none)\n";
      std::cerr << progress(i) << job.input << " -> " << job.output << " (" << im.width << "x"
                << im.height << ", " << to_string(im.format) << ", " << in[k].size() << " -> "
                << out[k].size() << " bytes)\n";
    }
    first = next;
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
      "  hetcodec transcode IN.jpg OUT.png --filter smooth:3   (filtered on the device too)\n"
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
  cmd->add_option("--filter", o->filter,
                  "filter each image on the device between decoding and encoding: smooth[:factor]\n"
                  "(adaptive smoothing, factor 3 by default) or texture[:octaves] (Perlin noise\n"
                  "blended in, 8 octaves by default); see `hetcodec filter`")
      ->type_name("NAME[:VALUE]");
  cmd->callback([&global, o] {
    const int rc = run_transcode(global, *o);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace hetcodec::tools
