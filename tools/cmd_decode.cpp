// `hetcodec decode`.
#include <png.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "tools/cli.h"
#include "tools/png_metadata.h"

namespace hetcodec::tools {
namespace {

namespace fs = std::filesystem;

// libjpeg-turbo's cmyk_to_rgb (cmyk.h), which djpeg uses to write CMYK files as PPM: Adobe's
// inverted CMYK, each of C, M, Y scaled by K.
std::vector<std::uint8_t> cmyk_as_rgb(const Image& img) {
  std::vector<std::uint8_t> rgb(std::size_t(img.width) * img.height * 3);
  for (std::size_t i = 0; i < rgb.size() / 3; ++i) {
    const double k = img.pixels[4 * i + 3];
    for (int c = 0; c < 3; ++c)
      rgb[3 * i + c] = std::uint8_t(double(img.pixels[4 * i + c]) * k / 255.0 + 0.5);
  }
  return rgb;
}

void write_png(const std::string& path, int width, int height, int channels,
               const std::vector<std::uint8_t>& px, const Metadata& metadata) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(ErrorCode::InvalidArgument, "cannot create " + path);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    throw Error(ErrorCode::InvalidArgument, "libpng failed to write " + path);
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8,
               channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  set_libpng_metadata(png, info, metadata, channels, path);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y)
    png_write_row(png, px.data() + std::size_t(y) * std::size_t(width) * std::size_t(channels));
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  if (std::fclose(f) != 0) throw Error(ErrorCode::InvalidArgument, "cannot write " + path);
}

// Writes `img` as `format` (pnm, ppm, pgm, pam, png). pnm picks PGM or PPM as djpeg -pnm does.
void write_image(const Image& img, const std::string& format, const std::string& path) {
  const std::string dims = std::to_string(img.width) + " " + std::to_string(img.height);
  const bool cmyk = img.format == PixelFormat::CMYK;
  if (format == "pam") {
    const char* tuple = img.format == PixelFormat::Gray  ? "GRAYSCALE"
                        : img.format == PixelFormat::RGB ? "RGB"
                                                         : "CMYK";
    write_bytes(path,
                "P7\nWIDTH " + std::to_string(img.width) + "\nHEIGHT " +
                    std::to_string(img.height) + "\nDEPTH " + std::to_string(channels(img.format)) +
                    "\nMAXVAL 255\nTUPLTYPE " + tuple + "\nENDHDR\n",
                img.pixels);
  } else if (format == "png") {
    if (cmyk)
      write_png(path, img.width, img.height, 3, cmyk_as_rgb(img), img.metadata);
    else
      write_png(path, img.width, img.height, channels(img.format), img.pixels, img.metadata);
  } else if (format == "pgm" || (format == "pnm" && img.format == PixelFormat::Gray)) {
    if (img.format != PixelFormat::Gray)
      throw Error(ErrorCode::InvalidArgument,
                  path + ": a colour image cannot be written as PGM (use .ppm, .pnm or .pam)");
    write_bytes(path, "P5\n" + dims + "\n255\n", img.pixels);
  } else if (format == "ppm" || format == "pnm") {
    if (img.format == PixelFormat::Gray) {
      std::vector<std::uint8_t> rgb;
      rgb.reserve(img.pixels.size() * 3);
      for (auto v : img.pixels) rgb.insert(rgb.end(), {v, v, v});
      write_bytes(path, "P6\n" + dims + "\n255\n", rgb);
    } else {
      write_bytes(path, "P6\n" + dims + "\n255\n", cmyk ? cmyk_as_rgb(img) : img.pixels);
    }
  } else {
    throw Error(ErrorCode::InvalidArgument,
                "unknown output format '" + format + "' (pnm, ppm, pgm, pam or png)");
  }
}

// Writes a decoded PNG as `format`: pam keeps its channels and depth; pnm, pgm
// and ppm take gray and RGB (maxval 65535 for 16 bits); png goes through our encoder.
void write_raw(const Image& img, const std::string& format, const std::string& path,
               const std::shared_ptr<Device>& device) {
  const std::string dims = std::to_string(img.width) + " " + std::to_string(img.height);
  const std::string maxval = img.bit_depth == 16 ? "65535" : "255";
  if (format == "pam") {
    static const char* tuple[] = {"", "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    write_bytes(path,
                "P7\nWIDTH " + std::to_string(img.width) + "\nHEIGHT " +
                    std::to_string(img.height) + "\nDEPTH " + std::to_string(img.channels()) +
                    "\nMAXVAL " + maxval + "\nTUPLTYPE " + tuple[img.channels()] + "\nENDHDR\n",
                img.pixels);
  } else if (format == "png") {
    PngEncoder encoder(device);
    write_bytes(path, "", encoder.encode(img));
  } else if (format == "pgm" || format == "ppm" || format == "pnm") {
    const bool gray = img.channels() == 1;
    if (img.channels() == 2 || img.channels() == 4)
      throw Error(ErrorCode::InvalidArgument, path + ": the image has an alpha channel, which " +
                                                  format + " cannot hold (use .pam)");
    if (format == "pgm" && !gray)
      throw Error(ErrorCode::InvalidArgument,
                  path + ": a colour image cannot be written as PGM (use .ppm, .pnm or .pam)");
    if (format == "ppm" && gray) {
      std::vector<std::uint8_t> rgb;
      const std::size_t bps = std::size_t(img.bit_depth / 8);
      rgb.reserve(img.pixels.size() * 3);
      for (std::size_t i = 0; i < img.pixels.size(); i += bps)
        for (int c = 0; c < 3; ++c)
          rgb.insert(rgb.end(), img.pixels.begin() + std::ptrdiff_t(i),
                     img.pixels.begin() + std::ptrdiff_t(i + bps));
      write_bytes(path, "P6\n" + dims + "\n" + maxval + "\n", rgb);
    } else {
      write_bytes(path, std::string(gray ? "P5" : "P6") + "\n" + dims + "\n" + maxval + "\n",
                  img.pixels);
    }
  } else {
    throw Error(ErrorCode::InvalidArgument,
                "unknown output format '" + format + "' (pnm, ppm, pgm, pam or png)");
  }
}

bool is_png(const std::vector<std::uint8_t>& b) {
  static const std::uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  return b.size() >= 8 && std::equal(sig, sig + 8, b.begin());
}

std::string format_of(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

struct DecodeOptions {
  std::vector<std::string> files;
  std::string output_dir, format;
  bool separate = false, quiet = false, fallback_cpu = false;
  bool strip = false;  // no metadata in PNG outputs
  int threads = 0;
  std::uint64_t max_pixels = 1ull << 28;
};

JpegDecodeOptions decoder_options(const DecodeOptions& o) {
  JpegDecodeOptions d;
  d.fused = !o.separate;
  d.threads = o.threads;
  d.max_pixels = o.max_pixels;
  return d;
}

// A decode run: the device, its decoders (the PNG one made when the first PNG comes), the
// options.
struct DecodeRun {
  const DecodeOptions& o;
  std::shared_ptr<Device> device;
  JpegDecoder decoder;
  std::unique_ptr<PngDecoder> png_decoder;

  // One file's outcome, whichever decoder had it: an error, or the image (from a PNG or not).
  struct Outcome {
    std::string error;
    const Image* image = nullptr;
    bool png = false;
  };

  // Writes a decoded file and says so; false when it failed.
  bool write(const Outcome& r, const std::pair<std::string, std::string>& job,
             const std::string& progress) {
    if (!r.error.empty()) {
      std::cerr << progress << job.first << ": " << r.error << "\n";
      return false;
    }
    const Image& img = *r.image;
    for (const auto& w : img.warnings) std::cerr << job.first << ": warning: " << w << "\n";
    const std::string format = o.format.empty() ? format_of(job.second) : o.format;
    try {
      if (r.png)
        write_raw(img, format, job.second, device);
      else
        write_image(img, format, job.second);
    } catch (const Error& e) {
      std::cerr << progress << e.what() << "\n";
      return false;
    }
    if (o.quiet) return true;
    std::cerr << progress << job.first << " -> " << job.second << " (";
    if (r.png)
      std::cerr << img.width << "x" << img.height << ", " << img.channels() << " channel"
                << (img.channels() == 1 ? "" : "s") << " of " << img.bit_depth << " bits)\n";
    else
      std::cerr << img.width << "x" << img.height << " " << to_string(img.format) << ")\n";
    return true;
  }

  // The PNG files among `bytes` (those read), decoded several at once; png_slot[k] is file k's
  // index among them.
  std::vector<Image> decode_pngs(const std::vector<std::vector<std::uint8_t>>& bytes,
                                 const std::vector<bool>& png,
                                 const std::vector<std::string>& read_errors,
                                 std::vector<std::size_t>& png_slot, BatchErrors& errors) {
    std::vector<Input> inputs;
    for (std::size_t k = 0; k < bytes.size(); ++k)
      if (png[k] && read_errors[k].empty()) {
        png_slot[k] = inputs.size();
        inputs.push_back({bytes[k].data(), bytes[k].size()});
      }
    if (inputs.empty()) return {};
    if (!png_decoder) {
      PngDecodeOptions po;
      po.max_pixels = o.max_pixels;
      if (o.threads > 0) po.threads = o.threads;
      png_decoder = std::make_unique<PngDecoder>(device, po);
    }
    return png_decoder->decode_batch(inputs, &errors);
  }

  // Files jobs[start, end): read, decoded (JPEG and PNG in a batch each), written, reported.
  // Returns how many failed.
  int decode_files(const std::vector<std::pair<std::string, std::string>>& jobs, std::size_t start,
                   std::size_t end) {
    std::vector<std::vector<std::uint8_t>> bytes;
    std::vector<std::string> read_errors(end - start);
    for (std::size_t i = start; i < end; ++i) {
      try {
        bytes.push_back(read_all(jobs[i].first));
      } catch (const Error& e) {
        bytes.emplace_back();
        read_errors[i - start] = e.what();
      }
    }
    // PNG files go to the PNG decoder; the JPEG batch sees them as empty inputs.
    std::vector<bool> png(bytes.size());
    std::vector<Input> inputs;
    for (std::size_t k = 0; k < bytes.size(); ++k) {
      png[k] = is_png(bytes[k]);
      inputs.push_back(png[k] ? Input{} : Input{bytes[k].data(), bytes[k].size()});
    }
    BatchErrors errors, png_errors;
    std::vector<Image> images = decoder.decode_batch(inputs, &errors);
    std::vector<std::size_t> png_slot(bytes.size(), 0);
    std::vector<Image> png_images = decode_pngs(bytes, png, read_errors, png_slot, png_errors);
    if (o.strip)
      for (auto* decoded : {&images, &png_images})
        for (Image& im : *decoded) im.metadata = {};
    int failed = 0;
    for (std::size_t i = start; i < end; ++i) {
      const std::size_t k = i - start;
      const std::string progress =
          jobs.size() > 1 ? "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] "
                          : "";
      Outcome r;
      r.error = read_errors[k];
      if (r.error.empty() && png[k]) {
        const std::size_t j = png_slot[k];
        if (png_errors[j])
          r.error = std::string(to_string(png_errors[j]->code())) + ": " + png_errors[j]->what();
        r.image = &png_images[j];
        r.png = true;
      } else if (r.error.empty()) {
        if (errors[k]) r.error = errors[k]->what();
        r.image = &images[k];
      }
      if (!write(r, jobs[i], progress)) ++failed;
    }
    return failed;
  }
};

int run_decode(const GlobalOptions& g, const DecodeOptions& o) {
  const auto jobs = plan_jobs("decode", o.files, o.output_dir, o.format.empty() ? "pnm" : o.format);
  const DeviceInfo chosen = single_device(g, "decode");
  std::shared_ptr<Device> device;
  try {
    device = open_device(chosen.spec);
  } catch (const Error& e) {
    if (!o.fallback_cpu || e.code() != ErrorCode::DeviceError) throw;
    std::cerr << "hetcodec: " << e.what() << "; falling back to the CPU reference\n";
    device = open_device("cpu");
  }
  DecodeRun run{o, device, JpegDecoder(device, decoder_options(o)), nullptr};
  if (!o.quiet)
    std::cerr << "decoding " << jobs.size() << " file" << (jobs.size() == 1 ? "" : "s") << " on "
              << device->info().spec << " (" << device->info().name << ")\n";
  // Batches of up to 64 files: the Huffman stage of one file overlaps the device work of the
  // one before; a file that fails is reported and the others go on.
  int failed = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t start = 0; start < jobs.size(); start += 64)
    failed += run.decode_files(jobs, start, std::min(jobs.size(), start + 64));
  if (!o.quiet) report_batch("decoded", jobs.size(), failed, t0);
  return failed ? 1 : 0;
}

}  // namespace

void add_decode_commands(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<DecodeOptions>();
  auto* cmd = app.add_subcommand(
      "decode",
      "decode JPEG and PNG files on a device (JPEG bit-exact with libjpeg-turbo's djpeg -dct\n"
      "int; PNG with libpng's samples, palette and tRNS expanded, 16 bits kept)\n"
      "  hetcodec decode IN.jpg OUT.ppm\n"
      "  hetcodec decode IN.png OUT.pam\n"
      "  hetcodec decode --output-dir DIR [--format pnm|ppm|pgm|pam|png] FILES...\n"
      "Output by extension or --format: pnm writes PGM for grayscale and PPM for colour as\n"
      "djpeg -pnm does; ppm, pgm, pam likewise (pam keeps CMYK; ppm and png convert CMYK to RGB\n"
      "as djpeg does); png through libpng. A PNG keeps its channels and depth in pam\n"
      "(GRAYSCALE, GRAYSCALE_ALPHA, RGB, RGB_ALPHA; maxval 255 or 65535); pnm, pgm and ppm take\n"
      "PNGs without alpha; png re-encodes with hetcodec's encoder. A png output keeps the\n"
      "input's metadata unless --strip is given: a JPEG's EXIF and ICC profile, a PNG's\n"
      "iCCP, sRGB, gAMA, cHRM, pHYs, text and eXIf chunks.");
  cmd->add_option("files", o->files, "IN OUT, or the inputs with --output-dir")
      ->required()
      ->type_name("PATH");
  cmd->add_option("-o,--output-dir", o->output_dir,
                  "write DIR/<input name without extension>.<format> for each input")
      ->type_name("DIR");
  cmd->add_option("-f,--format", o->format, "output format (default: by extension; pnm in -o mode)")
      ->check(CLI::IsMember({"pnm", "ppm", "pgm", "pam", "png"}));
  cmd->add_flag("--separate", o->separate,
                "token decode and IDCT as two kernels instead of the fused one (same output)");
  cmd->add_option("--threads", o->threads, "CPU threads for the Huffman stage (0: all)")
      ->capture_default_str();
  cmd->add_option("--max-pixels", o->max_pixels, "refuse larger images (LimitExceeded)")
      ->capture_default_str();
  cmd->add_flag("--fallback-cpu", o->fallback_cpu,
                "use the CPU reference when the device cannot be opened");
  cmd->add_flag("--strip", o->strip, kStripHelp);
  cmd->add_flag("-q,--quiet", o->quiet, "no progress output");
  cmd->callback([&global, o] {
    const int rc = run_decode(global, *o);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace hetcodec::tools
