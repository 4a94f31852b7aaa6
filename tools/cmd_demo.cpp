// `hetcodec demo`: the product in one command. Real photos (tools/demo-images, docs/demo.md) are
// decoded and encoded on every device found, each output checked byte for byte against the
// reference libraries through their C APIs (JPEG decode: libjpeg-turbo, JDCT_ISLOW; PNG decode:
// libpng with png_set_expand; PNG encode, compatible mode: libpng's file with zlib's Z_RLE
// strategy; parallel mode: libpng reads back the input) and across devices, written where the
// user can open them, and timed against the same libraries in the same run. Any difference is
// named (file, device, what) and the command fails.
#include <png.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "tools/bench_peers.h"
#include "tools/bench_png_common.h"
#include "tools/cli.h"
#include "tools/libpng_write.h"

namespace hetcodec::tools {
namespace {

namespace fs = std::filesystem;

struct DemoOptions {
  std::string images, out = "hetcodec-demo";
  double min_time = 0.3;
};

// A photo and what the reference library makes of it: libjpeg-turbo's pixels, or libpng's
// expanded samples.
struct Photo {
  std::string name;
  std::vector<std::uint8_t> bytes;
  Image expected;
  double mp() const { return double(expected.width) * double(expected.height) / 1e6; }
};

// libpng's samples of a PNG with png_set_expand (palettes to RGB, low depths to 8 bits, tRNS
// to alpha), 16-bit samples big-endian as PNG stores them: the PNG decoder's contract.
Image libpng_expanded(const std::vector<std::uint8_t>& file) {
  struct Source {
    const std::vector<std::uint8_t>* file;
    std::size_t at;
  } src{&file, 0};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw Error(ErrorCode::InvalidData, "libpng refused the file");
  }
  png_set_read_fn(png, &src, [](png_structp p, png_bytep out, png_size_t n) {
    auto* s = static_cast<Source*>(png_get_io_ptr(p));
    if (s->at + n > s->file->size()) png_error(p, "truncated");
    std::copy_n(s->file->data() + s->at, n, out);
    s->at += n;
  });
  png_read_info(png, info);
  png_set_expand(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  Image im;
  im.width = int(png_get_image_width(png, info));
  im.height = int(png_get_image_height(png, info));
  im.bit_depth = png_get_bit_depth(png, info);
  im.format = png_format(png_get_channels(png, info));
  im.pixels.resize(im.bytes());
  std::vector<png_bytep> rows;
  for (int y = 0; y < im.height; ++y) rows.push_back(im.pixels.data() + y * im.row_bytes());
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return im;
}

// The JPEG and PNG photos of a directory, in name order, with the references' outputs.
void load(const fs::path& dir, std::vector<Photo>& jpegs, std::vector<Photo>& pngs) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string ext = f.extension().string();
    if (ext != ".jpg" && ext != ".jpeg" && ext != ".png") continue;
    Photo p{f.filename().string(), read_all(f.string()), {}};
    if (ext == ".png") {
      p.expected = libpng_expanded(p.bytes);
      pngs.push_back(std::move(p));
      continue;
    }
    int w = 0, h = 0, c = 0;
    if (!libjpeg_decode(p.bytes, p.expected.pixels, w, h, c))
      throw Error(ErrorCode::InvalidData, "demo: libjpeg-turbo cannot decode " + f.string());
    p.expected.width = w;
    p.expected.height = h;
    p.expected.format = c == 1 ? PixelFormat::Gray : c == 4 ? PixelFormat::CMYK : PixelFormat::RGB;
    jpegs.push_back(std::move(p));
  }
  if (jpegs.empty() || pngs.empty())
    throw Error(ErrorCode::InvalidArgument, "demo: " + dir.string() + " holds no JPEG or no PNG");
}

// Where two outputs first differ, or "" when they are the same.
std::string difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  if (a == b) return {};
  const auto m = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return a.size() != b.size() && (m.first == a.end() || m.second == b.end())
             ? std::to_string(a.size()) + " bytes against " + std::to_string(b.size())
             : "first difference at byte " + std::to_string(m.first - a.begin());
}
std::string difference(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels() != b.channels() ||
      a.bit_depth != b.bit_depth)
    return "size or format differs";
  return difference(a.pixels, b.pixels);
}

// Every comparison made; the differences, each naming the file, the device and the reference.
struct Checks {
  int made = 0;
  std::vector<std::string> differences;
  void expect(const std::string& diff, const std::string& file, const std::string& device,
              const std::string& what) {
    ++made;
    if (!diff.empty())
      differences.push_back(file + " on " + device + ": " + what + " (" + diff + ")");
  }
};

// What one device made of the photos, kept to compare the next devices with.
struct Outputs {
  std::vector<Image> jpeg, png;
  std::vector<std::vector<std::uint8_t>> transcoded, compatible, parallel;
  bool complete = true;  // every file decoded
};

// Parallel-mode files carry one segment per compute unit by default; a fixed count makes their
// bytes comparable across devices.
constexpr int kSegments = 8;

std::string stem(const std::string& name) { return fs::path(name).stem().string(); }

void write_pam(const fs::path& path, const Image& im) {
  static const char* tuple[] = {"", "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
  write_bytes(path.string(),
              "P7\nWIDTH " + std::to_string(im.width) + "\nHEIGHT " + std::to_string(im.height) +
                  "\nDEPTH " + std::to_string(im.channels()) + "\nMAXVAL " +
                  (im.bit_depth == 16 ? "65535" : "255") + "\nTUPLTYPE " + tuple[im.channels()] +
                  "\nENDHDR\n",
              im.pixels);
}

// Decodes and encodes every photo once on `info`, checks each output against the reference
// library and against `first` (the first device's, when there is one), writes the files.
Outputs run_once(const DeviceInfo& info, const std::vector<Photo>& jpegs,
                 const std::vector<Photo>& pngs, const Outputs* first, const fs::path& dir,
                 Checks& checks) {
  auto device = open_device(info.spec);
  JpegDecoder jpeg_decoder(device);
  PngDecoder png_decoder(device);
  PngEncodeOptions co, po;
  co.mode = PngMode::Compatible;
  po.segments = kSegments;
  PngEncoder compatible(device, co), parallel(device, po);
  std::vector<Input> inputs;
  for (const auto& p : jpegs) inputs.push_back({p.bytes.data(), p.bytes.size()});
  Outputs out;
  BatchErrors jpeg_errors, png_errors;
  out.jpeg = jpeg_decoder.decode_batch(inputs, &jpeg_errors);
  inputs.clear();
  for (const auto& p : pngs) inputs.push_back({p.bytes.data(), p.bytes.size()});
  out.png = png_decoder.decode_batch(inputs, &png_errors);
  for (const auto& sub : {"jpeg-decode", "png-decode", "png-encode"})
    fs::create_directories(dir / sub);
  // A file the decoder refuses is named, and nothing more is done on this device.
  const std::size_t before = checks.differences.size();
  for (std::size_t i = 0; i < jpegs.size() + pngs.size(); ++i) {
    const auto& e = i < jpegs.size() ? jpeg_errors[i] : png_errors[i - jpegs.size()];
    if (e)
      checks.expect(std::string(to_string(e->code())) + ": " + e->what(),
                    i < jpegs.size() ? jpegs[i].name : pngs[i - jpegs.size()].name, info.spec,
                    "not decoded");
  }
  out.complete = checks.differences.size() == before;
  if (!out.complete) return out;
  auto cross = [&](const std::string& diff, const std::string& file, const std::string& what) {
    if (first) checks.expect(diff, file, info.spec, what + " differs from the first device's");
  };
  for (std::size_t i = 0; i < jpegs.size(); ++i) {
    const std::string& f = jpegs[i].name;
    checks.expect(difference(out.jpeg[i], jpegs[i].expected), f, info.spec,
                  "decoded pixels differ from libjpeg-turbo's");
    if (first) cross(difference(out.jpeg[i], first->jpeg[i]), f, "decoded pixels");
    // Written as PNG by the same device, in compatible mode: libpng's Z_RLE file exactly (PNG
    // holds no CMYK: such a photo is checked, not written).
    if (out.jpeg[i].format == PixelFormat::CMYK) continue;
    out.transcoded.push_back(compatible.encode(out.jpeg[i]));
    checks.expect(difference(out.transcoded.back(), libpng_write(out.jpeg[i], Z_RLE)), f, info.spec,
                  "its decoded pixels as PNG differ from libpng's Z_RLE file");
    write_bytes((dir / "jpeg-decode" / (stem(f) + ".png")).string(), "", out.transcoded.back());
  }
  for (std::size_t i = 0; i < pngs.size(); ++i) {
    const std::string& f = pngs[i].name;
    const Image& samples = pngs[i].expected;
    checks.expect(difference(out.png[i], samples), f, info.spec,
                  "decoded samples differ from libpng's");
    out.compatible.push_back(compatible.encode(samples));
    out.parallel.push_back(parallel.encode(samples));
    checks.expect(difference(out.compatible[i], libpng_write(samples, Z_RLE)), f, info.spec,
                  "compatible-mode file differs from libpng's with Z_RLE");
    checks.expect(difference(libpng_expanded(out.parallel[i]), samples), f, info.spec,
                  "parallel-mode file, as libpng reads it, differs from the input");
    if (first) {
      cross(difference(out.png[i], first->png[i]), f, "decoded samples");
      cross(difference(out.compatible[i], first->compatible[i]), f, "compatible-mode file");
      cross(difference(out.parallel[i], first->parallel[i]), f, "parallel-mode file");
    }
    write_pam(dir / "png-decode" / (stem(f) + ".pam"), out.png[i]);
    write_bytes((dir / "png-encode" / (stem(f) + ".png")).string(), "", out.compatible[i]);
    write_bytes((dir / "png-encode" / (stem(f) + ".parallel.png")).string(), "", out.parallel[i]);
  }
  return out;
}

// ---- timing: every row on all host threads, ours and the peers alike --------------------------


// MP/s of `run` (a callable taking a photo's index) over `set` on `streams` threads, made per
// thread by `make`.
template <typename Make>
double rate(const std::vector<Photo>& set, double min_time, int streams, Make&& make) {
  return measure_streams(
      set.size(), [&set](std::size_t k) { return set[k].mp(); }, min_time, streams, make);
}

struct Row {
  std::string device, task, peer;
  double ours = 0, theirs = 0;
};

// The peers, once: libjpeg-turbo, libpng reading, libpng writing with Z_RLE (the same bytes as
// our compatible mode), each on `threads` threads, one photo per thread at a time.
std::vector<double> time_peers(const std::vector<Photo>& jpegs, const std::vector<Photo>& pngs,
                               double min_time, int threads) {
  const double jpeg = rate(jpegs, min_time, threads, [&jpegs] {
    return [&jpegs, out = std::vector<std::uint8_t>()](std::size_t k) mutable {
      int w, h, c;
      libjpeg_decode(jpegs[k].bytes, out, w, h, c);
    };
  });
  const double png_read = rate(pngs, min_time, threads, [&pngs] {
    return [&pngs](std::size_t k) { libpng_expanded(pngs[k].bytes); };
  });
  const double png_write = rate(pngs, min_time, threads, [&pngs] {
    return [&pngs](std::size_t k) { libpng_write(pngs[k].expected, Z_RLE); };
  });
  return {jpeg, png_read, png_write};
}

// Decoding batches hold the photos repeated to this many images: the way a data loader feeds
// a device (a batch of four small photos measures launch latency, not decoding).
constexpr std::size_t kJpegBatch = 128, kPngBatch = 32;

// Ours on one device: a batch of the JPEGs repeated (the decoder's own threads), a batch of the
// PNGs repeated (its own streams), and one compatible-mode encoder per thread.
std::vector<double> time_device(const DeviceInfo& info, const std::vector<Photo>& jpegs,
                                const std::vector<Photo>& pngs, double min_time, int threads) {
  auto device = open_device(info.spec);
  std::vector<Input> jin, pin;
  for (std::size_t k = 0; !jpegs.empty() && k < kJpegBatch; ++k)
    jin.push_back({jpegs[k % jpegs.size()].bytes.data(), jpegs[k % jpegs.size()].bytes.size()});
  for (std::size_t k = 0; !pngs.empty() && k < kPngBatch; ++k)
    pin.push_back({pngs[k % pngs.size()].bytes.data(), pngs[k % pngs.size()].bytes.size()});
  // Megapixels of a batch of `n` made of `set` repeated.
  auto batch_mp = [](const std::vector<Photo>& set, std::size_t n) {
    double mp = 0;
    for (std::size_t k = 0; !set.empty() && k < n; ++k) mp += set[k % set.size()].mp();
    return mp;
  };
  auto batch_rate = [&](double mp, auto&& run) {
    return mp * measure_streams(
                    1, [](std::size_t) { return 1.0; }, min_time, 1,
                    [&run] { return [&run](std::size_t) { run(); }; });
  };
  JpegDecoder jd(device);
  PngDecoder pd(device);
  const double jpeg = batch_rate(batch_mp(jpegs, kJpegBatch), [&] { jd.decode_batch(jin); });
  // The same batch left in device memory for the next stage (a data loader's case, and what
  // `bench jpeg` measures): no host copy of the pixels to make.
  std::shared_ptr<DeviceBuffer> kept;
  const double jpeg_device = batch_rate(batch_mp(jpegs, kJpegBatch),
                                        [&] { jd.decode_batch_to_device(jin, nullptr, &kept); });
  const double png_read = batch_rate(batch_mp(pngs, kPngBatch), [&] { pd.decode_batch(pin); });
  const double png_write = rate(pngs, min_time, threads, [&device, &pngs] {
    PngEncodeOptions co;
    co.mode = PngMode::Compatible;
    auto enc = std::make_shared<PngEncoder>(device, co);
    return [enc, &pngs](std::size_t k) { enc->encode(pngs[k].expected); };
  });
  return {jpeg, jpeg_device, png_read, png_write};
}

void print_table(const std::vector<Row>& rows, int threads) {
  std::printf("\n%-10s %-14s %14s   %-20s %10s %7s\n", "device", "task", "hetcodec MP/s", "peer",
              "MP/s", "ratio");
  for (const auto& r : rows)
    std::printf("%-10s %-14s %14.1f   %-20s %10.1f %6.2fx\n", r.device.c_str(), r.task.c_str(),
                r.ours, r.peer.c_str(), r.theirs, r.ours / r.theirs);
  std::printf(
      "(megapixels per second, hetcodec and the peers both on %d host thread%s, the "
      "photos repeated; hetcodec decodes batches of %zu JPEG and %zu PNG images into host\n"
      "memory, or \"to device\" leaves them in device memory for the next stage; PNG encode in\n"
      "compatible mode, whose files equal libpng's with Z_RLE)\n",
      threads, threads == 1 ? "" : "s", kJpegBatch, kPngBatch);
}

void run_demo(const GlobalOptions& global, const DemoOptions& o) {
  const fs::path dir = demo_images_dir(o.images, "demo", "--images");
  std::vector<Photo> jpegs, pngs;
  load(dir, jpegs, pngs);
  GlobalOptions devices_of = global;
  if (devices_of.devices.empty()) devices_of.devices = {"all"};
  const std::vector<DeviceInfo> devices = selected_devices(devices_of);
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("hetcodec demo: %zu JPEG and %zu PNG photos from %s, on %zu device%s\n", jpegs.size(),
              pngs.size(), dir.c_str(), devices.size(), devices.size() == 1 ? "" : "s");
  const std::vector<double> peers = time_peers(jpegs, pngs, o.min_time, threads);
  static const char* kTask[] = {"JPEG decode", "JPEG to device", "PNG decode", "PNG encode"};
  static const char* kPeer[] = {"libjpeg-turbo", "libjpeg-turbo", "libpng", "libpng Z_RLE"};
  Checks checks;
  std::vector<Row> rows;
  Outputs first;
  bool have_first = false;
  for (const auto& info : devices) {
    std::string name = info.spec;
    std::replace(name.begin(), name.end(), ':', '-');
    std::printf("  %s (%s) ...\n", info.spec.c_str(), info.name.c_str());
    std::fflush(stdout);
    try {
      Outputs out = run_once(info, jpegs, pngs, have_first ? &first : nullptr,
                             fs::path(o.out) / name, checks);
      if (!out.complete) continue;
      if (!have_first) first = std::move(out), have_first = true;
      const std::vector<double> ours = time_device(info, jpegs, pngs, o.min_time, threads);
      for (std::size_t t = 0; t < 4; ++t)
        rows.push_back({info.spec, kTask[t], kPeer[t], ours[t], peers[t == 0 ? 0 : t - 1]});
    } catch (const Error& e) {  // the other devices still run; the demo fails at the end
      checks.differences.push_back(info.spec + ": " + to_string(e.code()) + ": " + e.what());
    }
  }
  print_table(rows, threads);
  if (!checks.differences.empty()) {
    std::string text = "demo: " + std::to_string(checks.differences.size()) + " of " +
                       std::to_string(checks.made) + " checks failed:";
    for (const auto& d : checks.differences) text += "\n  " + d;
    throw Error(ErrorCode::DeviceError, text);
  }
  std::printf(
      "\nAll %d checks passed: on every device, JPEG decoding gives libjpeg-turbo's pixels "
      "(JDCT_ISLOW), PNG decoding libpng's samples (png_set_expand), the compatible-mode "
      "PNG encoder libpng's Z_RLE file byte for byte, and parallel-mode files read back "
      "the input; every output is the same on every device.\n"
      "Files: %s/<device>/ (jpeg-decode/*.png, png-decode/*.pam, png-encode/*.png)\n",
      checks.made, o.out.c_str());
}

}  // namespace

// The demo images: `given`, else where an installed tool keeps them (<prefix>/share/hetcodec), else
// the source tree this tool was built from.
fs::path demo_images_dir(const std::string& given, const std::string& who,
                         const std::string& option) {
  if (!given.empty()) return given;
  std::vector<fs::path> tried;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) tried.push_back(exe.parent_path().parent_path() / "share/hetcodec/demo-images");
#ifdef HETCODEC_DEMO_IMAGES
  tried.push_back(HETCODEC_DEMO_IMAGES);
#endif
  for (const auto& d : tried)
    if (fs::is_directory(d)) return d;
  std::string list;
  for (const auto& d : tried) list += " " + d.string();
  throw Error(ErrorCode::InvalidArgument,
              who + ": no demo images found (looked in" + list + "); give " + option + " DIR");
}


void add_demo_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<DemoOptions>();
  auto* cmd = app.add_subcommand(
      "demo",
      "decode and encode real photos on every device, checked and timed against the libraries\n"
      "Decode and encode a few real photos (JPEG 4:2:0, 4:2:2, 4:4:4, gray; PNG RGB, RGBA,\n"
      "16-bit, palette) on every device found (the emulator excepted; --device selects\n"
      "others), check every output byte for byte against libjpeg-turbo and libpng and across\n"
      "devices, write the files, and time both against those libraries. Exits 1 naming the\n"
      "file and device of any difference.");
  cmd->add_option("--out", o->out, "directory for the decoded and encoded files")
      ->capture_default_str()
      ->type_name("DIR");
  cmd->add_option("--images", o->images,
                  "directory of .jpg and .png photos (default: the demo images installed with "
                  "hetcodec)")
      ->type_name("DIR");
  cmd->add_option("--min-time", o->min_time, "seconds to repeat each measurement")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60.0));
  cmd->callback([&global, o] { run_demo(global, *o); });
}

}  // namespace hetcodec::tools
