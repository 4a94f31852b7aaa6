// `hetcodec decode`.
#include <png.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "tools/cli.h"
#include "tools/decode_ljpeg.h"
#include "tools/png_metadata.h"

namespace hetcodec::tools {

// Why `format` cannot hold an image of this format, or "" when it can. PAM holds everything;
// PNG everything (CMYK converted to RGB as djpeg does); PNM, PPM and PGM no alpha; PGM gray only.
std::string format_problem(PixelFormat pf, const std::string& format) {
  if (format == "pam" || format == "png") return "";
  if (pf == PixelFormat::GrayAlpha || pf == PixelFormat::RGBA)
    return "the image has an alpha channel, which " + format + " cannot hold (use .pam)";
  if (format == "pgm" && pf != PixelFormat::Gray)
    return "a colour image cannot be written as PGM (use .ppm, .pnm or .pam)";
  return "";
}

// Writes a decoded image as `format` (checked with format_problem first): pam keeps its
// channels and depth (maxval 255 or 65535, or 2^P - 1 for a JPEG of `precision` P, lossless
// or 12-bit);
// pnm is PGM for gray and PPM otherwise, as djpeg -pnm; ppm and png convert CMYK to RGB as djpeg
// does and gray to RGB (ppm); png from a PNG goes through our encoder, from a JPEG through
// libpng (a lossless one with its P bits in sBIT).
void write_image(const Image& img, bool from_png, int precision, const std::string& format,
                 const std::string& path, const std::shared_ptr<Device>& device) {
  const std::string dims = std::to_string(img.width) + " " + std::to_string(img.height);
  const std::string maxval = std::to_string(netpbm_maxval(img, precision));
  const bool cmyk = img.format == PixelFormat::CMYK;
  const bool gray = img.format == PixelFormat::Gray;
  if (format == "pam") {
    const char* tuple = img.format == PixelFormat::Gray        ? "GRAYSCALE"
                        : img.format == PixelFormat::GrayAlpha ? "GRAYSCALE_ALPHA"
                        : img.format == PixelFormat::RGB       ? "RGB"
                        : img.format == PixelFormat::RGBA      ? "RGB_ALPHA"
                                                               : "CMYK";
    write_bytes(path,
                "P7\nWIDTH " + std::to_string(img.width) + "\nHEIGHT " +
                    std::to_string(img.height) + "\nDEPTH " + std::to_string(img.channels()) +
                    "\nMAXVAL " + maxval + "\nTUPLTYPE " + tuple + "\nENDHDR\n",
                img.pixels);
  } else if (format == "png") {
    if (precision) {
      write_lossless_png(path, img, precision);
    } else if (from_png) {
      PngEncoder encoder(device);
      write_bytes(path, "", encoder.encode(img));
    } else {
      write_png_with_libpng(path, img.width, img.height, cmyk ? 3 : img.channels(), 8, 0,
                            cmyk ? cmyk_as_rgb(img) : img.pixels, img.metadata);
    }
  } else if (gray && format != "ppm") {
    write_bytes(path, "P5\n" + dims + "\n" + maxval + "\n", img.pixels);
  } else if (gray) {
    std::vector<std::uint8_t> rgb;
    const std::size_t bps = std::size_t(img.bit_depth / 8);
    rgb.reserve(img.pixels.size() * 3);
    for (std::size_t i = 0; i < img.pixels.size(); i += bps)
      for (int c = 0; c < 3; ++c)
        rgb.insert(rgb.end(), img.pixels.begin() + std::ptrdiff_t(i),
                   img.pixels.begin() + std::ptrdiff_t(i + bps));
    write_bytes(path, "P6\n" + dims + "\n" + maxval + "\n", rgb);
  } else {
    write_bytes(path, "P6\n" + dims + "\n" + maxval + "\n",
                cmyk ? cmyk_as_rgb(img, netpbm_maxval(img, precision)) : img.pixels);
  }
}

namespace {

namespace fs = std::filesystem;

const char* const kFormats = "pnm, ppm, pgm, pam or png";

bool known_format(const std::string& f) {
  return f == "pnm" || f == "ppm" || f == "pgm" || f == "pam" || f == "png";
}

bool has_alpha(PixelFormat f) { return f == PixelFormat::GrayAlpha || f == PixelFormat::RGBA; }

// The format of an image in --output-dir mode without --format: PAM where PNM would lose
// something (alpha, 16 bits, CMYK), PNM otherwise.
std::string format_for(const ImageInfo& info) {
  return has_alpha(info.format) || info.bit_depth == 16 || info.format == PixelFormat::CMYK ? "pam"
                                                                                            : "pnm";
}

// The output format named by a path's extension ("" for none).
std::string format_of(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

struct DecodeOptions {
  std::vector<std::string> files;
  std::string output_dir, format;
  bool separate = false;
  bool strip = false;  // no metadata in PNG outputs
  int threads = 0;
  std::uint64_t max_pixels = 1ull << 28;
  int max_scans = 1000;
  std::uint64_t max_tokens = 1ull << 27;
  std::uint64_t max_memory = 4ull << 30;
  std::string scale = "1/1";  // --scale: 1/1, 1/2, 1/4 or 1/8
  std::string crop;           // --crop WxH+X+Y, or empty
  std::string entropy = "auto";  // --entropy: cpu, device or auto
  RowTableFiles row_tables;   // lossless files: --row-table, --write-row-table
};

const char* const kScales[] = {"1/1", "1/2", "1/4", "1/8"};

// N of a --scale 1/N; Error(InvalidArgument) naming the value for anything else (CLI11 checks
// it too; this is the check for callers that fill DecodeOptions themselves).
int scale_denom(const std::string& scale) {
  for (const char* s : kScales)
    if (scale == s) return std::stoi(scale.substr(2));
  throw Error(ErrorCode::InvalidArgument,
              "--scale " + scale + " is not 1/1, 1/2, 1/4 or 1/8 (as djpeg -scale 1/N)");
}

// The region of a --crop WxH+X+Y (djpeg -crop's syntax); whole() for an empty string;
// Error(InvalidArgument) naming the value for anything else. Whether it fits an image is the
// decoder's check, image by image.
Region crop_region(const std::string& crop) {
  Region r;
  if (crop.empty()) return r;
  unsigned w = 0, h = 0, x = 0, y = 0;
  char tail = 0;
  const bool parsed = std::sscanf(crop.c_str(), "%ux%u+%u+%u%c", &w, &h, &x, &y, &tail) == 4 &&
                      std::isdigit(static_cast<unsigned char>(crop[0]));
  const unsigned limit = 65535;  // a JPEG's largest side
  if (!parsed || w == 0 || h == 0 || w > limit || h > limit || x > limit || y > limit)
    throw Error(ErrorCode::InvalidArgument,
                "--crop " + crop +
                    " is not WxH+X+Y (a region of W x H pixels from column X, row Y, each "
                    "at most 65535, W and H at least 1; as djpeg -crop)");
  r.width = int(w);
  r.height = int(h);
  r.x = int(x);
  r.y = int(y);
  return r;
}

JpegDecodeOptions decoder_options(const DecodeOptions& o) {
  JpegDecodeOptions d;
  d.fused = !o.separate;
  d.threads = o.threads;
  d.max_pixels = o.max_pixels;
  d.max_scans = o.max_scans;
  d.max_tokens = o.max_tokens;
  d.max_memory_bytes = o.max_memory;
  d.scale_denom = scale_denom(o.scale);
  d.entropy = o.entropy == "device"                       ? JpegEntropy::Device
              : o.entropy == "cpu" || o.entropy == "host" ? JpegEntropy::Host
                                                          : JpegEntropy::Auto;
  return d;
}

std::string describe(const Error& e) { return std::string(to_string(e.code())) + ": " + e.what(); }

// A decode run: the device, its decoders (the PNG one made when the first PNG comes), the
// options, and the tally for the exit status.
struct DecodeRun {
  const GlobalOptions& g;
  const DecodeOptions& o;
  std::shared_ptr<Device> device;
  JpegDecoder decoder;
  std::unique_ptr<PngDecoder> png_decoder;
  std::unique_ptr<JpegDecoder> cpu_jpeg;  // --fallback-cpu: the files the device failed on
  std::unique_ptr<PngDecoder> cpu_png;
  int failed = 0, warned = 0;

  // One file on its way: its bytes, kind, output format, and the error that stopped it.
  struct File {
    std::vector<std::uint8_t> bytes;
    bool png = false;
    int precision = 0;    // a lossless JPEG's P, else 0
    int sample_bits = 0;  // a JPEG's P where its samples are not 8-bit (lossless, 12-bit), else 0
    bool apart = false;   // decoded with its row table files, into `image`
    Image image;
    std::string format, error;
  };

  PngDecodeOptions png_options() const {
    PngDecodeOptions po;
    po.max_pixels = o.max_pixels;
    po.max_memory_bytes = o.max_memory;
    if (o.threads > 0) po.threads = o.threads;
    return po;
  }
  PngDecoder& pngs() {
    if (!png_decoder) png_decoder = std::make_unique<PngDecoder>(device, png_options());
    return *png_decoder;
  }

  // With --fallback-cpu, a file the device ran out of memory on (or, decoded alone with its row
  // table, faulted on) is decoded again on the CPU reference, with a note saying so; `error`
  // is what the device gave. (A device fault in a batch ends the run.)
  bool decode_on_cpu(File& f, const Input& in, const Error& error, const FileJob& job) {
    if (!g.fallback_cpu || device->info().kind == DeviceKind::Cpu ||
        (error.code() != ErrorCode::OutOfMemory && error.code() != ErrorCode::DeviceError))
      return false;
    std::cerr << job.input << ": " << describe(error) << "; decoding it on the CPU reference\n";
    try {
      auto cpu = open_device("cpu");
      if (f.png) {
        if (!cpu_png) cpu_png = std::make_unique<PngDecoder>(cpu, png_options());
        f.image = cpu_png->decode(in.data, in.size);
      } else {
        if (!cpu_jpeg) cpu_jpeg = std::make_unique<JpegDecoder>(cpu, decoder_options(o));
        f.image = f.apart ? decode_with_row_table(*cpu_jpeg, f.bytes, o.row_tables)
                          : cpu_jpeg->decode(in);
      }
      if (o.strip) f.image.metadata = {};
    } catch (const Error& e) {
      f.error = describe(e);
    }
    return true;
  }

  // Reads a file and checks, from its header, that it can be decoded and written as asked;
  // f.error says why not. Nothing is decoded yet.
  File prepare(const FileJob& job) {
    File f;
    try {
      try {
        f.bytes = read_all(job.input);
      } catch (const Error& e) {
        f.error = e.what();  // it names the file and says why
        return f;
      }
      const FileKind kind = sniff(f.bytes);
      if (kind != FileKind::Jpeg && kind != FileKind::Png) {
        f.error = kind_problem(f.bytes, "a JPEG or PNG");
        if (kind == FileKind::Netpbm && f.bytes[1] >= '5')
          f.error += " (a PNM or PAM image: `encode` reads it)";
        return f;
      }
      f.png = kind == FileKind::Png;
      if (f.png && o.scale != "1/1") {
        f.error = "--scale " + o.scale + " scales JPEG files only (their IDCT); this is a PNG";
        return f;
      }
      if (f.png && !o.crop.empty()) {
        f.error = "--crop " + o.crop + " crops JPEG files only; this is a PNG";
        return f;
      }
      f.precision = f.png ? 0 : lossless_precision(f.bytes);
      if (f.precision && !o.crop.empty()) {
        f.error = "--crop " + o.crop +
                  " crops lossy JPEG files only; this is a lossless JPEG (SOF3), decoded whole";
        return f;
      }
      if (o.row_tables.any() && !f.precision) {
        f.error = "--row-table and --write-row-table take a lossless JPEG (SOF3) file; this is " +
                  std::string(f.png ? "a PNG" : "a JPEG of another coding process");
        return f;
      }
      f.apart = o.row_tables.any();
      const ImageInfo info = f.png ? pngs().info(f.bytes.data(), f.bytes.size())
                                   : decoder.info(f.bytes.data(), f.bytes.size());
      f.format = !o.format.empty()     ? o.format
                 : job.output_by_image ? format_for(info)
                 : job.output == "-"   ? "pnm"
                                       : format_of(job.output);
      f.sample_bits = f.precision ? f.precision : !f.png && info.bit_depth == 16 ? 12 : 0;
      f.error = format_problem(info.format, f.format);
      if (!f.error.empty()) f.error = job.output + ": " + f.error;
    } catch (const Error& e) {
      f.error = describe(e);
    }
    return f;
  }

  // Writes one decoded file and says so, or says why not; counts it.
  void finish(const File& f, const Image* img, const FileJob& job, const std::string& progress) {
    std::string error = f.error;
    if (error.empty()) {
      for (const auto& w : img->warnings) std::cerr << job.input << ": warning: " << w << "\n";
      if (!img->warnings.empty() && g.strict) error = "warnings are errors (--strict)";
    }
    const std::string out = job.output_by_image ? job.output + "." + f.format : job.output;
    if (error.empty()) {
      try {
        write_image(*img, f.png, f.sample_bits, f.format, out, device);
      } catch (const Error& e) {
        error = e.what();
      }
    }
    if (!error.empty()) {
      // Messages that name the file already (those of reading it) are not prefixed again.
      const bool named = error.compare(0, job.input.size() + 1, job.input + ":") == 0;
      std::cerr << progress << (named ? "" : job.input + ": ") << error << "\n";
      ++failed;
      return;
    }
    if (!img->warnings.empty()) ++warned;
    if (g.quiet) return;
    std::cerr << progress << job.input << " -> " << out << " (" << img->width << "x" << img->height
              << " " << to_string(img->format);
    if (const int bits = f.sample_bits ? f.sample_bits : img->bit_depth; bits != 8)
      std::cerr << ", " << bits << " bits";
    std::cerr << ")\n";
  }

  // Files jobs[start, end): read and checked, decoded (JPEG and PNG in a batch each), written.
  void decode_files(const std::vector<FileJob>& jobs, std::size_t start, std::size_t end) {
    std::vector<File> files;
    std::vector<Input> jpegs, pngs_in;
    const Region crop = crop_region(o.crop);
    std::vector<std::size_t> slot;
    for (std::size_t i = start; i < end; ++i) {
      files.push_back(prepare(jobs[i]));
      const File& f = files.back();
      auto& inputs = f.png ? pngs_in : jpegs;
      slot.push_back(inputs.size());
      if (f.error.empty() && !f.apart)
        inputs.push_back({f.bytes.data(), f.bytes.size(), f.png ? Region{} : crop});
    }
    BatchErrors jpeg_errors, png_errors;
    std::vector<Image> jpeg_images =  // (each JPEG's crop checked against its size there)
        jpegs.empty() ? std::vector<Image>{} : decoder.decode_batch(jpegs, &jpeg_errors);
    std::vector<Image> png_images =
        pngs_in.empty() ? std::vector<Image>{} : pngs().decode_batch(pngs_in, &png_errors);
    if (o.strip)
      for (auto* decoded : {&jpeg_images, &png_images})
        for (Image& im : *decoded) im.metadata = {};
    for (std::size_t i = start; i < end; ++i) {
      File& f = files[i - start];
      const std::string progress = progress_of(i, jobs.size());
      const Image* img = nullptr;
      if (f.error.empty() && f.apart) {
        try {
          f.image = decode_with_row_table(decoder, f.bytes, o.row_tables);
          if (o.strip) f.image.metadata = {};
        } catch (const Error& e) {
          if (!decode_on_cpu(f, {f.bytes.data(), f.bytes.size()}, e, jobs[i]))
            f.error = describe(e);
        }
        img = &f.image;
      } else if (f.error.empty()) {
        const std::size_t k = slot[i - start];
        const BatchErrors& errors = f.png ? png_errors : jpeg_errors;
        img = f.png ? &png_images[k] : &jpeg_images[k];
        if (errors[k]) {
          if (decode_on_cpu(f, (f.png ? pngs_in : jpegs)[k], *errors[k], jobs[i]))
            img = &f.image;
          else
            f.error = describe(*errors[k]);
        }
      }
      finish(f, img, jobs[i], progress);
      f.bytes = {};
    }
  }
};

int run_decode(const GlobalOptions& g, const DecodeOptions& o) {
  // Everything about the command line is checked before any file is read.
  if (o.output_dir.empty() && o.format.empty() && o.files.size() == 2 && o.files[1] != "-" &&
      !known_format(format_of(o.files[1])))
    throw Error(ErrorCode::InvalidArgument, o.files[1] + ": unknown output format '" +
                                                format_of(o.files[1]) + "' (" + kFormats +
                                                "): name the file so, or give --format");
  if (o.row_tables.any() && (!o.output_dir.empty() || o.files.size() != 2))
    throw Error(ErrorCode::InvalidArgument,
                "--row-table and --write-row-table take one file: decode IN OUT --row-table FILE");
  scale_denom(o.scale);
  crop_region(o.crop);
  const auto jobs =
      plan_jobs("decode", o.files, o.output_dir, o.output_dir.empty() ? "" : o.format);
  auto device = open_selected_device(g, "decode");
  DecodeRun run{g, o, device, JpegDecoder(device, decoder_options(o)), nullptr};
  if (!g.quiet)
    std::cerr << "decoding " << jobs.size() << " file" << (jobs.size() == 1 ? "" : "s") << " on "
              << device->info().spec << " (" << device->info().name << ")\n";
  // Batches of up to 64 files: the Huffman stage of one file overlaps the device work of the
  // one before; a file that fails is reported and the others go on.
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t start = 0; start < jobs.size(); start += 64)
    run.decode_files(jobs, start, std::min(jobs.size(), start + 64));
  if (!g.quiet) report_batch("decoded", jobs.size(), run.failed, t0);
  return exit_status(run.failed, run.warned);
}

}  // namespace

void add_decode_commands(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<DecodeOptions>();
  auto* cmd = app.add_subcommand(
      "decode",
      "decode JPEG and PNG files on a device, exactly as libjpeg-turbo and libpng do\n"
      "JPEG bit-exact with libjpeg-turbo's djpeg -dct int; PNG with libpng's samples, palette\n"
      "and tRNS expanded, 16 bits kept.\n"
      "  hetcodec decode IN.jpg OUT.ppm\n"
      "  hetcodec decode IN.png OUT.pam\n"
      "  hetcodec decode - OUT.pnm < IN.jpg          ('-': standard input or output)\n"
      "  hetcodec decode --output-dir DIR [--format pnm|ppm|pgm|pam|png] FILES...\n"
      "Output by extension or --format: pnm writes PGM for grayscale and PPM for colour as\n"
      "djpeg -pnm does; ppm, pgm, pam likewise (pam keeps alpha, 16 bits and CMYK; ppm and png\n"
      "convert CMYK to RGB as djpeg does). pnm, pgm and ppm take images without alpha (16-bit\n"
      "PNGs with maxval 65535). With --output-dir and no --format, each image gets PAM where\n"
      "it has alpha, 16 bits or CMYK and PNM otherwise; inputs whose names meet keep their\n"
      "extension (x.jpg.pnm, x.png.pam). Standard output without --format: PNM.\n"
      "A lossless JPEG (SOF3, found by its bytes) of precision P keeps its samples exactly:\n"
      "PGM/PPM/PAM of maxval 2^P - 1 (one byte a sample up to P = 8, two big-endian above);\n"
      "PNG of 8 bits up to P = 8, else 16, scaled by bit replication, with sBIT = P.\n"
      "A 12-bit lossy JPEG likewise (P = 12), as djpeg from libjpeg-turbo 3 writes it.\n"
      "  hetcodec decode CT.jpg CT.pgm --write-row-table CT.rows   (save where rows start)\n"
      "  hetcodec decode CT.jpg CT.pgm --row-table CT.rows         (decode with it, no pre-pass)\n"
      "--scale 1/N (N = 2, 4 or 8) decodes a JPEG at 1/N of its size, ceil(W/N) x ceil(H/N),\n"
      "as djpeg -scale 1/N -dct int does, byte for byte: the blocks are inverse-transformed\n"
      "straight to 4x4, 2x2 or 1x1 samples (libjpeg-turbo's reduced IDCTs), less work than\n"
      "decoding whole and resizing. Lossless JPEGs and PNGs are not scaled (an error).\n"
      "--crop WxH+X+Y decodes only the W x H pixels at column X, row Y of a JPEG's output\n"
      "(of the scaled output with --scale), as djpeg -crop WxH+X+Y gives them: libjpeg-turbo\n"
      "widens the region leftwards to an iMCU column (8 to 32 pixels) and upsamples chroma as\n"
      "if that column and the region's right side were the image's edges, so pixels beside\n"
      "them may differ slightly from the whole image's. A region outside an image fails it.\n"
      "A file that cannot be read, decoded or written is reported and the others go on.\n"
      "A png output keeps the input's metadata unless --strip is given: a JPEG's EXIF and ICC\n"
      "profile, a PNG's iCCP, sRGB, gAMA, cHRM, pHYs, text and eXIf chunks.");
  cmd->add_option("files", o->files, "IN OUT, or the inputs with --output-dir")
      ->required()
      ->type_name("PATH");
  cmd->add_option("-o,--output-dir", o->output_dir,
                  "write DIR/<input name without extension>.<format> for each input")
      ->type_name("DIR");
  cmd->add_option("-f,--format", o->format,
                  "output format (default: by the output's extension; by image with -o)")
      ->check(CLI::IsMember({"pnm", "ppm", "pgm", "pam", "png"}));
  cmd->add_flag("--separate", o->separate,
                "token decode and IDCT as two kernels instead of the fused one (same output)");
  cmd->add_option("--threads", o->threads, "CPU threads for the Huffman stage (0: all)")
      ->capture_default_str();
  cmd->add_option("--entropy", o->entropy,
                  "where a sequential JPEG's Huffman data is decoded (the same pixels either\n"
                  "way): cpu threads, the device (a parallel self-synchronising decode; files it\n"
                  "does not take, or finds corrupt, go to the CPU), or auto (the device for a\n"
                  "single file of 1 MiB or more on a GPU). Lossless files without --row-table\n"
                  "or a restart marker per row: where their row table is found, the same way\n"
                  "(auto: the device for 256 KiB or more on a GPU)")
      ->check(CLI::IsMember({"auto", "cpu", "host", "device"}))
      ->capture_default_str();
  cmd->add_option("--max-pixels", o->max_pixels, "refuse larger images (LimitExceeded)")
      ->capture_default_str();
  cmd->add_option("--max-scans", o->max_scans,
                  "refuse JPEG files of more scans (LimitExceeded; as djpeg -maxscans)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-tokens", o->max_tokens,
                  "refuse JPEG files of more tokens (non-zero coefficients, four a token; "
                  "LimitExceeded)")
      ->capture_default_str();
  cmd->add_option("--max-memory", o->max_memory,
                  "refuse an image that would take more memory, host and device together "
                  "(bytes, or with a unit: 512MiB, 8G; LimitExceeded)")
      ->type_name("SIZE")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  cmd->add_option("--scale", o->scale,
                  "decode JPEGs at 1/N of their size, as djpeg -scale 1/N -dct int (the same\n"
                  "bytes)")
      ->check(CLI::IsMember({kScales[0], kScales[1], kScales[2], kScales[3]}))
      ->type_name("1/N")
      ->capture_default_str();
  cmd->add_option("--crop", o->crop,
                  "decode only this region of each JPEG, as djpeg -crop WxH+X+Y (its pixels)")
      ->type_name("WxH+X+Y");
  cmd->add_flag("--strip", o->strip, kStripHelp);
  cmd->add_option("--row-table", o->row_tables.read,
                  "a lossless JPEG's row table sidecar (little-endian 32-bit entries, or 64-bit:\n"
                  "where each coded row starts, in bits), used instead of restart markers or a\n"
                  "pre-pass; one input file only")
      ->type_name("FILE");
  cmd->add_option("--write-row-table", o->row_tables.write,
                  "write the row table the decoder finds for a lossless JPEG, as --row-table\n"
                  "reads it; one input file only")
      ->type_name("FILE");
  cmd->callback([&global, o] {
    const int rc = run_decode(global, *o);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace hetcodec::tools
