// `hetcodec filter` and `hetcodec generate`: the filters of hetcodec/filters.h on one device.
// A JPEG or PNG input is decoded into device memory, filtered there and, for PNG or JPEG
// output, encoded there: only the files' bytes cross the bus. PNM and PAM inputs and outputs go
// through host memory.
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "tools/cli.h"

namespace hetcodec::tools {
namespace {

std::string extension_of(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

const char* const kOutputs = "png, jpg (jpeg), pgm, ppm, pnm or pam";

// Error(InvalidArgument) for an output name no writer below takes, before any work.
void check_output(const std::string& path, bool float_allowed = false) {
  const std::string ext = extension_of(path);
  if (ext == "png" || ext == "jpg" || ext == "jpeg" || ext == "pgm" || ext == "ppm" ||
      ext == "pnm" || ext == "pam" || (float_allowed && ext == "pfm"))
    return;
  throw Error(ErrorCode::InvalidArgument, path + ": the output's name must end in ." + kOutputs +
                                              (float_allowed ? ", or pfm (float values)" : ""));
}

// PNG and JPEG are encoded from device memory on the image's device; netpbm formats from the
// samples brought back.
void write_device_image(const std::string& path, const DeviceImage& im,
                        const std::shared_ptr<Device>& device, Filters& filters) {
  const std::string ext = extension_of(path);
  if (ext == "png") {
    write_bytes(path, "", PngEncoder(device).encode(im));
    return;
  }
  if (ext == "jpg" || ext == "jpeg") {
    write_bytes(path, "", JpegEncoder(device).encode(im));
    return;
  }
  const Image host = filters.download(im);
  const std::string problem = format_problem(host.format, ext);
  if (!problem.empty()) throw Error(ErrorCode::InvalidArgument, path + ": " + problem);
  write_image(host, false, 0, ext, path, device);
}

// An input file in device memory: JPEG and PNG decoded there, the others (PNM, PAM) read on the
// host and sent up.
DeviceImage read_device_image(const std::string& path, const std::shared_ptr<Device>& device) {
  const std::vector<std::uint8_t> bytes = read_all(path);
  DeviceImage im;
  switch (sniff(bytes)) {
    case FileKind::Jpeg:
      im = JpegDecoder(device).decode_to_device(bytes.data(), bytes.size());
      break;
    case FileKind::Png:
      im = PngDecoder(device).decode_to_device(bytes.data(), bytes.size());
      break;
    default: {
      const Image host = read_image_file(path, device);
      im.width = host.width, im.height = host.height, im.format = host.format;
      im.bit_depth = host.bit_depth;
      im.metadata = host.metadata;
      im.warnings = host.warnings;
      im.buffer =
          std::shared_ptr<DeviceBuffer>(device->alloc(std::max<std::size_t>(host.bytes(), 1)));
      auto queue = device->create_queue();
      queue->write(*im.buffer, 0, host.pixels.data(), host.bytes());
      queue->finish();
    }
  }
  for (const auto& w : im.warnings) std::cerr << path << ": warning: " << w << "\n";
  if (im.bit_depth != 8)
    throw Error(ErrorCode::Unsupported, path + ": " + std::to_string(im.bit_depth) +
                                            "-bit samples (the filters take 8-bit ones)");
  if (im.format == PixelFormat::CMYK)
    throw Error(ErrorCode::Unsupported, path + ": a CMYK image (the filters take gray and RGB)");
  return im;
}

std::pair<int, int> parse_size(const std::string& s) {
  int w = 0, h = 0;
  char x = 0, rest = 0;
  std::istringstream in(s);
  if (!(in >> w >> x >> h) || (x != 'x' && x != 'X') || (in >> rest) || w < 1 || h < 1 ||
      w > 32768 || h > 32768)
    throw Error(ErrorCode::InvalidArgument,
                "--size " + s + ": expected WIDTHxHEIGHT, each 1..32768 (as 2048x2048)");
  return {w, h};
}

void report(const GlobalOptions& g, const std::string& what, const std::string& out,
            const DeviceImage& im, const Device& device, double seconds) {
  if (g.quiet) return;
  std::cerr << what << " -> " << out << " (" << im.width << "x" << im.height << ", "
            << to_string(im.format) << ") on " << device.info().spec << " in "
            << std::lround(seconds * 1000) << " ms\n";
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void add_noise_options(CLI::App& cmd, PerlinOptions& o) {
  cmd.add_option("--octaves", o.octaves, "octaves of noise summed (1..32)")
      ->capture_default_str()
      ->check(CLI::Range(1, 32));
  cmd.add_option("--persistence", o.persistence, "amplitude ratio from one octave to the next")
      ->capture_default_str();
  cmd.add_option("--frequency", o.frequency, "the first octave's frequency, per pixel")
      ->capture_default_str();
  cmd.add_option("--amplitude", o.amplitude, "the first octave's amplitude")->capture_default_str();
}

}  // namespace

// --filter NAME[:VALUE] of `transcode`: smooth[:factor] or texture[:octaves].
void apply_filter_spec(const std::string& spec, Filters& filters, DeviceImage& image) {
  const FilterSpec f = parse_filter_spec(spec);
  if (f.name == "smooth")
    image = filters.smooth(image, SmoothOptions{f.value});
  else {
    TextureOptions t;
    t.noise.octaves = int(f.value);
    image = filters.texture(image, t);
  }
}

FilterSpec parse_filter_spec(const std::string& spec) {
  FilterSpec f;
  const std::size_t colon = spec.find(':');
  f.name = spec.substr(0, colon);
  if (f.name != "smooth" && f.name != "texture")
    throw Error(ErrorCode::InvalidArgument, "--filter " + spec + ": unknown filter '" + f.name +
                                                "' (smooth[:factor] or texture[:octaves])");
  f.value = f.name == "smooth" ? 3.0 : 8.0;
  if (colon != std::string::npos) {
    const std::string v = spec.substr(colon + 1);
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !std::isfinite(d))
      throw Error(ErrorCode::InvalidArgument, "--filter " + spec + ": '" + v + "' is not a number");
    if (f.name == "smooth" && !(d > 0))
      throw Error(ErrorCode::InvalidArgument,
                  "--filter " + spec + ": the smoothing factor must be above 0");
    if (f.name == "texture" && (d < 1 || d > 32 || d != std::floor(d)))
      throw Error(ErrorCode::InvalidArgument,
                  "--filter " + spec + ": octaves must be a whole number 1..32");
    f.value = d;
  }
  return f;
}

void add_filter_commands(CLI::App& app, GlobalOptions& global) {
  auto* filter = app.add_subcommand(
      "filter",
      "filter an image on the device: AForge.NET's adaptive smoothing, or a Perlin-noise texture\n"
      "  hetcodec filter smooth [--factor 3] IN OUT\n"
      "  hetcodec filter texture [--octaves 8 ...] IN OUT\n"
      "IN: JPEG or PNG (decoded on the device), or PGM/PPM/PAM; OUT by its name: .png or .jpg\n"
      "(encoded on the device), .pgm/.ppm/.pnm/.pam. 8-bit gray, gray + alpha, RGB and RGBA;\n"
      "alpha is kept. The bytes are the same on every device (the CPU reference, CUDA, OpenCL).");
  filter->require_subcommand(1);
  // A `filter NAME IN OUT` subcommand: `apply` filters the decoded image on the device.
  using Apply = std::function<DeviceImage(Filters&, const DeviceImage&)>;
  auto add_image_filter = [&](const char* name, const char* help, const char* done, Apply apply) {
    auto paths = std::make_shared<std::pair<std::string, std::string>>();
    auto* cmd = filter->add_subcommand(name, help);
    cmd->add_option("input", paths->first, "image file")->required()->type_name("IN");
    cmd->add_option("output", paths->second, std::string("output file: ") + kOutputs)
        ->required()
        ->type_name("OUT");
    cmd->callback([&global, paths, done, apply] {
      const auto& [in, out_path] = *paths;
      check_output(out_path);
      auto device = open_selected_device(global, "filter");
      Filters filters(device);
      const auto t0 = std::chrono::steady_clock::now();
      const DeviceImage out = apply(filters, read_device_image(in, device));
      write_device_image(out_path, out, device, filters);
      report(global, in + " " + done, out_path, out, *device, since(t0));
    });
    return cmd;
  };
  auto smooth = std::make_shared<SmoothOptions>();
  add_image_filter(
      "smooth",
      "adaptive smoothing (AForge's AdaptiveSmoothing): each sample the mean of its 3x3\n"
      "neighbourhood weighted by exp(-(Gx^2 + Gy^2) / (2 factor^2)), so that edges stay sharp;\n"
      "the two pixels along each edge are kept",
      "smoothed", [smooth](Filters& f, const DeviceImage& im) { return f.smooth(im, *smooth); })
      ->add_option("--factor", smooth->factor, "smoothing factor (> 0; larger smooths more)")
      ->capture_default_str();
  auto texture = std::make_shared<TextureOptions>();
  auto* tex = add_image_filter(
      "texture",
      "blend Perlin noise into the image as AForge's Texturer: each colour sample s becomes\n"
      "min(255, preserve s + filter s t), t the noise's level in [0, 1] at the pixel",
      "textured", [texture](Filters& f, const DeviceImage& im) { return f.texture(im, *texture); });
  add_noise_options(*tex, texture->noise);
  tex->add_option("--preserve", texture->preserve, "the share of each sample kept")
      ->capture_default_str();
  tex->add_option("--filter-level", texture->filter, "the share scaled by the texture")
      ->capture_default_str();

  auto* generate = app.add_subcommand(
      "generate",
      "generate an image on the device: Perlin noise or the Mandelbrot set\n"
      "  hetcodec generate perlin --size 2048x2048 [--octaves 16 ...] OUT\n"
      "  hetcodec generate mandelbrot --size 2048x2048 [--center X,Y --span S ...] OUT\n"
      "OUT by its name: .png or .jpg (encoded on the device), .pgm/.ppm/.pnm/.pam; for Perlin\n"
      "noise also .pfm, the float32 values themselves. The same bytes on every device.");
  generate->require_subcommand(1);
  {
    auto out = std::make_shared<std::string>();
    auto size = std::make_shared<std::string>("2048x2048");
    auto opts = std::make_shared<PerlinOptions>();
    auto* cmd = generate->add_subcommand(
        "perlin",
        "Perlin noise as AForge's PerlinNoise (the defaults are its CloudsTexture's): 8-bit gray\n"
        "levels v / 2 + 1/2 of the noise v, clamped to [0, 1]");
    cmd->add_option("output", *out, "output file")->required()->type_name("OUT");
    cmd->add_option("--size", *size, "WIDTHxHEIGHT")->capture_default_str();
    add_noise_options(*cmd, *opts);
    cmd->callback([&global, out, size, opts] {
      check_output(*out, true);
      const auto [w, h] = parse_size(*size);
      auto device = open_selected_device(global, "generate");
      Filters filters(device);
      const auto t0 = std::chrono::steady_clock::now();
      if (extension_of(*out) == "pfm") {
        // PFM: gray, little-endian (a negative scale), rows from the bottom up.
        const std::vector<float> v = filters.perlin_values(w, h, *opts);
        std::vector<std::uint8_t> bytes(v.size() * 4);
        for (int y = 0; y < h; ++y)
          std::memcpy(&bytes[std::size_t(h - 1 - y) * w * 4], &v[std::size_t(y) * w],
                      std::size_t(w) * 4);
        write_bytes(*out, "Pf\n" + std::to_string(w) + " " + std::to_string(h) + "\n-1.0\n", bytes);
        if (!global.quiet)
          std::cerr << "perlin -> " << *out << " (" << w << "x" << h << ", float32) on "
                    << device->info().spec << "\n";
        return;
      }
      const DeviceImage im = filters.perlin(w, h, *opts);
      write_device_image(*out, im, device, filters);
      report(global, "perlin", *out, im, *device, since(t0));
    });
  }
  {
    auto out = std::make_shared<std::string>();
    auto size = std::make_shared<std::string>("2048x2048");
    auto center = std::make_shared<std::vector<double>>(std::vector<double>{0, 0});
    auto opts = std::make_shared<MandelbrotOptions>();
    auto* cmd = generate->add_subcommand(
        "mandelbrot",
        "the Mandelbrot set: each pixel's iterations of z <- z^2 + c before |z| > 2, as 8-bit\n"
        "gray (255 n / iterations, black inside the set) or with --fire through a\n"
        "black-red-yellow-white ramp (RGB); the default view is [-2, 2]^2");
    cmd->add_option("output", *out, "output file")->required()->type_name("OUT");
    cmd->add_option("--size", *size, "WIDTHxHEIGHT")->capture_default_str();
    cmd->add_option("--center", *center, "the view's centre in the plane, X,Y")
        ->delimiter(',')
        ->expected(2)
        ->type_name("X,Y");
    cmd->add_option("--span", opts->span, "the view's width in the plane along its longer side")
        ->capture_default_str();
    cmd->add_option("--iterations", opts->iterations, "most iterations per pixel (1..1000000)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    cmd->add_flag("--fire", opts->fire, "RGB through a fire ramp instead of gray");
    cmd->callback([&global, out, size, center, opts] {
      check_output(*out);
      const auto [w, h] = parse_size(*size);
      opts->center_x = (*center)[0], opts->center_y = (*center)[1];
      auto device = open_selected_device(global, "generate");
      Filters filters(device);
      const auto t0 = std::chrono::steady_clock::now();
      const DeviceImage im = filters.mandelbrot(w, h, *opts);
      write_device_image(*out, im, device, filters);
      report(global, "mandelbrot", *out, im, *device, since(t0));
    });
  }
}

}  // namespace hetcodec::tools
