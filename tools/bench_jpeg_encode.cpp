// `hetcodec bench jpeg-encode`: JPEG encode throughput per device against libjpeg-turbo (its C
// API, one thread and one image per thread on all threads, JDCT_ISLOW, the same quality,
// sampling, restart interval, optimize_coding and tables) and nvJPEG's encoder where libnvjpeg
// loads, measured in the same run on the same RGB images: host samples in and the file on the
// host ("host input"), or samples already in device memory ("device input", uploaded once, as
// a decoder's decode_to_device leaves them), with the Huffman coding on the device and on host
// threads, one image at a time (encode) and the whole set at once (encode_batch, host and
// device input).
// Every file of ours is compared with libjpeg-turbo's for the same settings; a file that
// differs fails the run, named with its device.
// clang-format off
#include <cstdio>  // before jpeglib.h, which uses FILE
#include <jpeglib.h>
// clang-format on
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csetjmp>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>

#include "tools/bench_failures.h"
#include "tools/bench_nvjpeg_encode.h"
#include "tools/bench_peers.h"
#include "tools/libjpeg_error.h"
#include "tools/cli.h"
#include "tools/jpeg_options.h"

namespace hetcodec::tools {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// ---- libjpeg-turbo: the peer and the oracle -----------------------------------------------------

// libjpeg-turbo's file of `im` (8-bit gray or RGB) with `o`'s settings, as cjpeg -dct int
// writes it: jpeg_set_quality(q, TRUE), the tables of o.quant_tables scaled by
// jpeg_quality_scaling (one table: the luma's, the chroma keeping Annex K's, as cjpeg does).
std::vector<std::uint8_t> libjpeg_compress(const Image& im, const JpegEncodeOptions& o) {
  jpeg_compress_struct c{};
  JpegErr err{};
  c.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = jpeg_fail;
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&c);
    std::free(out);
    throw Error(ErrorCode::InvalidArgument, "libjpeg-turbo failed to encode an image");
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, &out, &size);
  c.image_width = JDIMENSION(im.width);
  c.image_height = JDIMENSION(im.height);
  c.input_components = im.channels();
  c.in_color_space = im.channels() == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  if (o.sampling == JpegSampling::Gray) jpeg_set_colorspace(&c, JCS_GRAYSCALE);
  jpeg_set_quality(&c, o.quality, TRUE);
  for (std::size_t t = 0; t < o.quant_tables.size(); ++t) {
    unsigned int table[64];
    std::copy(o.quant_tables[t].begin(), o.quant_tables[t].end(), table);
    jpeg_add_quant_table(&c, int(t), table, jpeg_quality_scaling(o.quality), TRUE);
  }
  c.dct_method = JDCT_ISLOW;
  if (c.num_components == 3) {
    const bool h2 = o.sampling == JpegSampling::S422 || o.sampling == JpegSampling::S420;
    const bool v2 = o.sampling == JpegSampling::S440 || o.sampling == JpegSampling::S420;
    c.comp_info[0].h_samp_factor = h2 ? 2 : 1;
    c.comp_info[0].v_samp_factor = v2 ? 2 : 1;
  }
  c.restart_interval = unsigned(o.restart_interval);
  c.restart_in_rows = o.restart_rows;
  c.optimize_coding = o.optimize ? TRUE : FALSE;
  jpeg_start_compress(&c, TRUE);
  const std::size_t row = im.row_bytes();
  while (c.next_scanline < c.image_height) {
    JSAMPROW r = const_cast<JSAMPROW>(im.pixels.data() + std::size_t(c.next_scanline) * row);
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  std::vector<std::uint8_t> bytes(out, out + size);
  jpeg_destroy_compress(&c);
  std::free(out);
  return bytes;
}

// ---- the images ---------------------------------------------------------------------------------

// The images apart from their names, so that encode_batch takes them as they are.
struct ImageSet {
  std::string name, source;
  std::vector<std::string> names;
  std::vector<Image> images;  // 8-bit RGB
  double mp = 0;
  std::vector<std::vector<std::uint8_t>> reference;  // libjpeg-turbo's files
  void add(std::string n, Image im) {
    names.push_back(std::move(n));
    images.push_back(std::move(im));
  }
};

Image rgb_of_jpeg(const std::vector<std::uint8_t>& file) {
  Image im;
  int comps = 0;
  if (!libjpeg_decode(file, im.pixels, im.width, im.height, comps) || comps != 3) im.width = 0;
  return im;
}

Image centre_crop(const Image& im, int w, int h) {
  if (im.width <= w && im.height <= h) return im;
  w = std::min(w, im.width);
  h = std::min(h, im.height);
  Image out;
  out.width = w;
  out.height = h;
  out.pixels.resize(std::size_t(w) * std::size_t(h) * 3);
  const int x0 = (im.width - w) / 2, y0 = (im.height - h) / 2;
  for (int y = 0; y < h; ++y)
    std::memcpy(&out.pixels[std::size_t(y) * std::size_t(w) * 3],
                &im.pixels[(std::size_t(y0 + y) * std::size_t(im.width) + std::size_t(x0)) * 3],
                std::size_t(w) * 3);
  return out;
}

// The files of `paths` (directories: their files in name order), read as `hetcodec encode`
// reads them, as 8-bit RGB: alpha dropped; gray and 16-bit images skipped with a note.
ImageSet images_from(const std::vector<std::string>& paths) {
  ImageSet set{"files", std::to_string(paths.size()) + " paths from " + paths[0], {}, {}, 0, {}};
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      std::vector<fs::path> in;
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) in.push_back(e.path());
      std::sort(in.begin(), in.end());
      files.insert(files.end(), in.begin(), in.end());
    } else {
      files.push_back(p);
    }
  }
  auto cpu = open_device("cpu");
  for (const auto& f : files) {
    Image im;
    try {
      im = read_image_file(f.string(), cpu);
    } catch (const Error& e) {
      std::fprintf(stderr, "bench jpeg-encode: skipped %s: %s\n", f.c_str(), e.what());
      continue;
    }
    if (im.bit_depth != 8 || im.channels() < 3) {
      std::fprintf(stderr, "bench jpeg-encode: skipped %s: %s (colour 8-bit images are measured)\n",
                   f.c_str(), im.bit_depth != 8 ? "16-bit" : "gray");
      continue;
    }
    if (im.format == PixelFormat::RGBA) {
      for (std::size_t i = 0, n = std::size_t(im.width) * std::size_t(im.height); i < n; ++i)
        std::memmove(&im.pixels[3 * i], &im.pixels[4 * i], 3);
      im.pixels.resize(std::size_t(im.width) * std::size_t(im.height) * 3);
      im.format = PixelFormat::RGB;
    }
    im.metadata = {};
    set.add(f.filename().string(), std::move(im));
  }
  if (set.images.empty())
    throw Error(ErrorCode::InvalidArgument,
                "bench jpeg-encode: no 8-bit colour image in " + paths[0]);
  set.source = std::to_string(set.images.size()) + " images from " + paths[0];
  return set;
}

// The ImageNet-like set: the first `count` photos of `dir` (--imagenet-from), else of the
// cached corpus (`hetcodec corpus`), else the built-in synthetic 500x375 set, decoded to RGB by
// libjpeg-turbo. A directory given that holds no colour JPEG is an error, not a fallback.
ImageSet imagenet_like(const std::string& given, int count) {
  ImageSet set{"imagenet-like", "", {}, {}, 0, {}};
  const std::string dir = given.empty() ? default_jpeg_corpus_dir() : given;
  if (!dir.empty() && fs::is_directory(dir)) {
    for (const auto& p : jpeg_paths({dir})) {
      if (int(set.images.size()) >= count) break;
      if (p.filename().string().rfind("large-", 0) == 0) continue;
      Image im = rgb_of_jpeg(read_all(p.string()));
      if (im.width) set.add(p.filename().string(), std::move(im));
    }
    set.source = std::to_string(set.images.size()) + " photos of " + dir;
  }
  if (set.images.empty() && !given.empty())
    throw Error(ErrorCode::InvalidArgument,
                "bench jpeg-encode: --imagenet-from " + given + ": no colour JPEG file");
  if (set.images.empty()) {
    const auto files = builtin_jpeg_corpus(count, 500, 375);
    for (std::size_t i = 0; i < files.size(); ++i)
      set.add("synthetic-" + std::to_string(i), rgb_of_jpeg(files[i]));
    set.source = "built-in: " + std::to_string(count) + " synthetic 500x375 images";
  }
  return set;
}

// One 3840x2160 photo, centre-cropped: the first photo of `dir` (--large-from) at least that
// size, else the first large photo (large-*) of `shared` (--imagenet-from) or of the cached
// corpus (`hetcodec corpus --large`), else a built-in synthetic one. A directory given that
// holds none is an error.
ImageSet large_image(const std::string& given, const std::string& shared) {
  ImageSet set{"3840x2160", "", {}, {}, 0, {}};
  const std::string dir = !given.empty()    ? given
                          : !shared.empty() ? shared
                                            : default_jpeg_corpus_dir();
  if (!dir.empty() && fs::is_directory(dir))
    for (const auto& p : jpeg_paths({dir})) {
      if (given.empty() && p.filename().string().rfind("large-", 0) != 0) continue;
      Image im = rgb_of_jpeg(read_all(p.string()));
      if (im.width < 3840 || im.height < 2160) continue;
      set.add(p.filename().string(), centre_crop(im, 3840, 2160));
      set.source = p.string() + ", centre 3840x2160";
      break;
    }
  if (set.images.empty() && !given.empty())
    throw Error(ErrorCode::InvalidArgument, "bench jpeg-encode: --large-from " + given +
                                                ": no colour JPEG file of 3840x2160 or more");
  if (set.images.empty()) {
    set.add("synthetic-3840x2160", rgb_of_jpeg(builtin_jpeg_corpus(1, 3840, 2160)[0]));
    set.source = "built-in: one synthetic 3840x2160 image";
  }
  return set;
}

// ---- the run ------------------------------------------------------------------------------------

struct BenchOptions {
  std::vector<std::string> paths;
  std::string imagenet_dir, large_dir;
  int batch = 16;
  bool large = true;
  bool whole_set = true;  // the encode_batch rows
  double min_time = 0.3;
  JpegCliOptions jpeg;
  std::string entropy = "both", input = "all";
  int threads = 0;
  int streams = 4;
  int batch_streams = JpegEncodeOptions{}.batch_streams;
  int batch_images = JpegEncodeOptions{}.batch_images;
  bool peers = true;
  std::string json_path;
};

// The rows of a run, printed as they come.
struct Table {
  nlohmann::json results = nlohmann::json::array();
  BenchFailures failures{"bench jpeg-encode"};
  std::uint64_t checked = 0, mismatches = 0;
  // Compares file `k` of `set` with libjpeg-turbo's; `bad` counts the row's mismatches, the
  // first few named as failures of `row`.
  void check(const ImageSet& set, std::size_t k, const std::vector<std::uint8_t>& file,
             const std::string& row, std::uint64_t& bad) {
    ++checked;
    const auto& ref = set.reference[k];
    if (file == ref) return;
    ++mismatches;
    if (++bad > 3) return;  // the first few named; the count says the rest
    std::size_t at = 0;
    while (at < file.size() && at < ref.size() && file[at] == ref[at]) ++at;
    failures.add(set.name + "/" + set.names[k] + " on " + row,
                 "differs from libjpeg-turbo's file (" + std::to_string(file.size()) +
                     " bytes against " + std::to_string(ref.size()) +
                     ", first difference at byte " + std::to_string(at) + ")");
  }
  void add(const ImageSet& set, const std::string& name, const std::string& kind, double img_s,
           const nlohmann::json& extra) {
    const double mp_s = img_s * set.mp / double(set.images.size());
    nlohmann::json r = {{"set", set.name},
                        {"name", name},
                        {"kind", kind},
                        {"images_per_s", img_s},
                        {"megapixels_per_s", mp_s}};
    r.update(extra);
    results.push_back(r);
    std::fprintf(stdout, "%-60s %9.1f img/s %9.1f MP/s\n", name.c_str(), img_s, mp_s);
    std::fflush(stdout);
  }
};

// The set's images round-robin, one after another, for at least min_time seconds (at least
// one image): img/s.
template <typename Encode>
double timed(std::size_t n, double min_time, Encode&& encode) {
  std::size_t images = 0;
  const auto t0 = Clock::now();
  double t = 0;
  do {
    encode(images++ % n);
    t = since(t0);
  } while (t < min_time);
  return double(images) / t;
}

// The set's images in device memory, uploaded once through the backend's queue into one
// buffer, each at a 4096-byte boundary (as JpegDecoder::decode_batch_to_device leaves them).
std::vector<DeviceImage> upload(Device& device, const ImageSet& set) {
  auto queue = device.create_queue();
  std::vector<std::size_t> at;
  std::size_t total = 0;
  for (const Image& im : set.images) {
    at.push_back(total);
    total = (total + im.bytes() + 4095) / 4096 * 4096;
  }
  std::shared_ptr<DeviceBuffer> buffer(device.alloc(std::max<std::size_t>(total, 1)));
  std::vector<DeviceImage> out;
  for (std::size_t k = 0; k < set.images.size(); ++k) {
    const Image& im = set.images[k];
    DeviceImage d;
    d.width = im.width;
    d.height = im.height;
    d.format = PixelFormat::RGB;
    d.buffer = buffer;
    d.offset = at[k];
    queue->write(*buffer, at[k], im.pixels.data(), im.bytes());
    out.push_back(std::move(d));
  }
  queue->finish();
  return out;
}

// Where our encoder takes a set's images from: the host images themselves ("host"), a copy in
// pinned memory of alloc_pinned's ("pinned", sent without a copy on the host), or a copy in
// device memory ("device").
enum class Input { Host, Pinned, Device };
const char* input_name(Input in) {
  return in == Input::Host ? "host" : (in == Input::Pinned ? "pinned" : "device");
}
struct Sources {
  std::vector<DeviceImage> resident;
  std::shared_ptr<PinnedBuffer> pinned;
  std::vector<JpegRawImage> raw;  // (in `pinned`)
};

// The set's images copied into one buffer of pinned memory, 4 KiB apart.
void pin(const std::shared_ptr<Device>& device, const ImageSet& set, Sources& s) {
  std::size_t total = 0;
  for (const Image& im : set.images) total = (total + im.bytes() + 4095) / 4096 * 4096;
  s.pinned = alloc_pinned(device, std::max<std::size_t>(total, 1));
  std::size_t at = 0;
  for (const Image& im : set.images) {
    std::memcpy(s.pinned->data() + at, im.pixels.data(), im.bytes());
    s.raw.push_back({s.pinned->data() + at, im.bytes(), im.width, im.height,
                     im.format == PixelFormat::Gray ? JpegPixels::Gray : JpegPixels::RGB});
    at = (at + im.bytes() + 4095) / 4096 * 4096;
  }
}

// Images of a set whose stages are timed (profile on, waiting after each stage).
constexpr std::size_t kProfiledImages = 8;

// One image at a time from host or device input: a first pass whose files are compared with
// libjpeg-turbo's, the timed run, and the stages of the first kProfiledImages images (their
// files compared again).
void measure_single(const DeviceInfo& info, const ImageSet& set, JpegEncoder& encoder,
                    const Sources& src, Input in, const char* where, const BenchOptions& o,
                    Table& table) {
  const std::size_t n = set.images.size();
  const std::string name =
      "hetcodec " + info.spec +
      (in == Input::Device ? " device" : (in == Input::Pinned ? " pinned host" : " host")) +
      " input, " + where + " entropy";
  const std::string row = info.spec + " (" + name + ")";
  std::fprintf(stderr, "  %s: %s (%s)...\n", set.name.c_str(), name.c_str(), info.name.c_str());
  auto encode = [&](std::size_t k) {
    if (in == Input::Device) return encoder.encode(src.resident[k]);
    if (in == Input::Host) return encoder.encode(set.images[k]);
    const JpegRawImage& r = src.raw[k];
    return encoder.encode(r.data, r.size, r.width, r.height, r.layout);
  };
  std::uint64_t bytes = 0, bad = 0;
  for (std::size_t k = 0; k < n; ++k) {  // warm-up (kernel builds, buffers) and check
    const auto file = encode(k);
    bytes += file.size();
    table.check(set, k, file, row, bad);
  }
  const double rate = timed(n, o.min_time, encode);
  const JpegEncodeOptions opts = encoder.options();
  JpegEncodeOptions profiled = opts;
  profiled.profile = true;
  encoder.set_options(profiled);
  encoder.reset_stage_times();
  const std::size_t profiled_images = std::min<std::size_t>(n, kProfiledImages);
  for (std::size_t k = 0; k < profiled_images; ++k) table.check(set, k, encode(k), row, bad);
  const JpegEncoder::StageTimes st = encoder.stage_times();
  encoder.set_options(opts);
  const double per = 1e3 / double(std::max<std::uint64_t>(st.images, 1));
  table.add(set, name, "hetcodec", rate,
            {{"device", to_json(info)},
             {"input", input_name(in)},
             {"entropy", where},
             {"batch", false},
             {"output_bytes", bytes},
             {"checked", n + profiled_images},
             {"mismatches", bad},
             {"stages_ms_per_image",
              {{"upload", st.upload * per},
               {"transform", st.transform * per},
               {"entropy", st.entropy * per},
               {"download", st.download * per},
               {"host", st.host * per}}}});
  std::fprintf(stdout,
               "    ms per image: upload %.3f, transform %.3f, entropy %.3f, download %.3f, "
               "host %.3f; %.1f KiB per image%s\n",
               st.upload * per, st.transform * per, st.entropy * per, st.download * per,
               st.host * per, double(bytes) / double(n) / 1024.0,
               bad ? "; FILES DIFFER FROM LIBJPEG-TURBO'S" : "");
  std::fflush(stdout);
}

// The whole set through encode_batch (host or device input), repeated for at least min_time seconds
// (at least once after a first, untimed pass): img/s. Every pass's files are compared with
// libjpeg-turbo's, outside the timed calls, since images in flight at once are where a race
// would show. No stages: with profile on the encoder waits after each one, which is what a
// batch is there to avoid.
void measure_batch(const DeviceInfo& info, const ImageSet& set, JpegEncoder& encoder,
                   const Sources& src, Input in, const char* where, const BenchOptions& o,
                   Table& table) {
  const std::size_t n = set.images.size();
  const std::string name =
      "hetcodec " + info.spec + " batch, " +
      (in == Input::Device ? "device" : (in == Input::Pinned ? "pinned host" : "host")) +
      " input, " + where + " entropy";
  const std::string row = info.spec + " (" + name + ")";
  std::fprintf(stderr, "  %s: %s (%s)...\n", set.name.c_str(), name.c_str(), info.name.c_str());
  std::uint64_t bytes = 0, bad = 0, checked = 0;
  auto pass = [&](bool first) {
    BatchErrors errors;
    const auto t0 = Clock::now();
    const auto files = in == Input::Device
                           ? encoder.encode_batch(src.resident, &errors)
                           : (in == Input::Host ? encoder.encode_batch(set.images, &errors)
                                                : encoder.encode_batch(src.raw, &errors));
    const double t = since(t0);
    checked += n;
    for (std::size_t k = 0; k < n; ++k) {
      if (k < errors.size() && errors[k]) {  // counted as a file that differs
        ++table.checked;
        ++table.mismatches;
        if (++bad <= 3)
          table.failures.add(set.name + "/" + set.names[k] + " on " + row, *errors[k]);
        continue;
      }
      table.check(set, k, files[k], row, bad);
      if (first) bytes += files[k].size();
    }
    return t;
  };
  pass(true);  // warm-up (kernel builds, buffers, threads) and check
  std::size_t passes = 0;
  double t = 0;
  do {
    t += pass(false);
    ++passes;
  } while (t < o.min_time);
  table.add(set, name, "hetcodec", double(passes * n) / t,
            {{"device", to_json(info)},
             {"input", input_name(in)},
             {"entropy", where},
             {"batch", true},
             {"batch_images", n},
             {"batch_streams", encoder.options().batch_streams},
             {"images_per_launch", encoder.options().batch_images},
             {"output_bytes", bytes},
             {"checked", checked},
             {"mismatches", bad}});
  std::fprintf(stdout, "    %zu passes of %zu images, %d at once; %.1f KiB per image%s\n", passes,
               n, encoder.options().batch_streams, double(bytes) / double(n) / 1024.0,
               bad ? "; FILES DIFFER FROM LIBJPEG-TURBO'S" : "");
  std::fflush(stdout);
}

// Our encoder on one device: host, pinned host and device input one image at a time, and the
// whole set at once (sets of more than one image), with device and host entropy coding.
void measure_ours(const DeviceInfo& info, const ImageSet& set, const JpegEncodeOptions& base,
                  const BenchOptions& o, Table& table) {
  auto device = open_device(info.spec);
  auto wanted = [&](Input in) { return o.input == "all" || o.input == input_name(in); };
  Sources src;
  if (wanted(Input::Device)) src.resident = upload(*device, set);
  if (wanted(Input::Pinned)) pin(device, set, src);
  std::vector<JpegEntropy> entropies;
  if (o.entropy != "host") entropies.push_back(JpegEntropy::Device);
  if (o.entropy != "device") entropies.push_back(JpegEntropy::Host);
  for (const JpegEntropy entropy : entropies) {
    JpegEncodeOptions opts = base;
    opts.entropy = entropy;
    opts.threads = o.threads;
    opts.batch_streams = o.batch_streams;
    opts.batch_images = o.batch_images;
    JpegEncoder encoder(device, opts);
    const char* where = entropy == JpegEntropy::Device ? "device" : "host";
    for (const Input in : {Input::Host, Input::Pinned, Input::Device})
      if (wanted(in)) measure_single(info, set, encoder, src, in, where, o, table);
    for (const Input in : {Input::Host, Input::Pinned, Input::Device})
      if (o.whole_set && set.images.size() > 1 && wanted(in))
        measure_batch(info, set, encoder, src, in, where, o, table);
  }
}

// libjpeg-turbo on one thread and on `threads`, one image per thread at a time.
void measure_libjpeg(const ImageSet& set, const JpegEncodeOptions& opts, int threads,
                     const BenchOptions& o, Table& table) {
  std::vector<int> counts{1};
  if (threads > 1) counts.push_back(threads);
  for (const int t : counts) {
    const std::string name = "libjpeg-turbo " + std::to_string(t) + " thread" + (t == 1 ? "" : "s");
    std::fprintf(stderr, "  %s: %s...\n", set.name.c_str(), name.c_str());
    // Each thread takes the next image until the time is up.
    std::atomic<std::size_t> next{0}, images{0};
    std::atomic<bool> stop{false}, failed{false};
    const auto t0 = Clock::now();
    auto work = [&] {
      do {
        try {
          libjpeg_compress(set.images[next++ % set.images.size()], opts);
        } catch (const Error&) {
          failed = stop = true;
        }
        ++images;
        if (since(t0) >= o.min_time) stop = true;
      } while (!stop);
    };
    std::vector<std::thread> pool;
    for (int k = 1; k < t; ++k) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    const double elapsed = since(t0);
    if (failed) {
      table.failures.add(set.name + ": " + name, "libjpeg-turbo failed to encode an image");
      continue;
    }
    std::uint64_t bytes = 0;
    for (const auto& f : set.reference) bytes += f.size();
    table.add(set, name, "libjpeg-turbo", double(images.load()) / elapsed,
              {{"threads", t}, {"input", "host"}, {"output_bytes", bytes}});
  }
}

// nvJPEG's encoder, where libnvjpeg loads and a CUDA device is there.
void measure_nvjpeg(const ImageSet& set, const JpegEncodeOptions& opts, const BenchOptions& o,
                    Table& table) {
  std::vector<const Image*> images;
  for (const Image& im : set.images) images.push_back(&im);
  std::fprintf(stderr, "  %s: nvJPEG...\n", set.name.c_str());
  const NvEncodeRates r = bench_nvjpeg_encode(images, opts.quality, opts.sampling, opts.optimize,
                                              o.streams, o.min_time);
  if (opts.restart_interval > 0 || opts.restart_rows > 0 || !opts.quant_tables.empty())
    std::fprintf(stderr, "  nvJPEG: measured without restart markers and custom tables\n");
  const std::pair<double, std::string> rows[] = {
      {r.host, "nvJPEG host input"},
      {r.device, "nvJPEG device input"},
      {r.batched, "nvJPEG device input x" + std::to_string(r.streams) + " streams"}};
  for (std::size_t i = 0; i < 3; ++i) {
    if (rows[i].first > 0) {
      table.add(set, rows[i].second, "nvjpeg", rows[i].first,
                {{"input", i == 0 ? "host" : "device"},
                 {"streams", i == 2 ? r.streams : 1},
                 {"output_bytes", r.bytes}});
    } else if (i == 0 || !r.why.empty()) {
      std::fprintf(stderr, "  nvJPEG: unavailable (%s)\n", r.why.c_str());
      table.results.push_back(
          {{"set", set.name}, {"name", "nvJPEG"}, {"kind", "nvjpeg"}, {"unavailable", r.why}});
      break;
    }
  }
}

// Ratios of each of our rows to each peer row of its set, printed and kept in the row.
void add_ratios(nlohmann::json& results) {
  std::fprintf(stdout, "ratios (img/s over img/s):\n");
  for (auto& r : results) {
    if (r["kind"] != "hetcodec" || !r.contains("images_per_s")) continue;
    nlohmann::json ratios = nlohmann::json::object();
    std::string line;
    for (const auto& p : results) {
      if (p["kind"] == "hetcodec" || p["set"] != r["set"] || !p.contains("images_per_s")) continue;
      const double ratio = r["images_per_s"].get<double>() / p["images_per_s"].get<double>();
      ratios[p["name"].get<std::string>()] = ratio;
      char buf[128];
      std::snprintf(buf, sizeof buf, "%s%.2f x %s", line.empty() ? "" : ", ", ratio,
                    p["name"].get<std::string>().c_str());
      line += buf;
    }
    r["ratios"] = ratios;
    if (!line.empty())
      std::fprintf(stdout, "  %s %s: %s\n", r["set"].get<std::string>().c_str(),
                   r["name"].get<std::string>().c_str(), line.c_str());
  }
}

void run_bench(const GlobalOptions& global, const BenchOptions& o) {
  const JpegEncodeOptions opts = jpeg_encode_options(o.jpeg);
  const int threads =
      o.threads > 0 ? o.threads : std::max(1, int(std::thread::hardware_concurrency()));
  const std::vector<DeviceInfo> devices = selected_devices(global);
  std::vector<ImageSet> sets;
  if (!o.paths.empty()) {
    sets.push_back(images_from(o.paths));
  } else {
    sets.push_back(imagenet_like(o.imagenet_dir, o.batch));
    if (o.large) sets.push_back(large_image(o.large_dir, o.imagenet_dir));
  }
  Table table;
  nlohmann::json set_docs = nlohmann::json::array();
  for (auto& set : sets) {
    for (const Image& im : set.images) {
      set.mp += double(im.width) * double(im.height) / 1e6;
      set.reference.push_back(libjpeg_compress(im, opts));
    }
    std::fprintf(stdout, "bench jpeg-encode: %s: %s, %.1f MP; %s, %d threads\n", set.name.c_str(),
                 set.source.c_str(), set.mp, describe(opts).c_str(), threads);
    std::fflush(stdout);
    set_docs.push_back({{"name", set.name},
                        {"source", set.source},
                        {"images", set.images.size()},
                        {"megapixels", set.mp}});
    for (const auto& info : devices) {
      try {
        measure_ours(info, set, opts, o, table);
      } catch (const Error& e) {  // the other devices and the peers are still measured
        table.failures.add(set.name + " on " + info.spec + " (" + info.name + ")", e);
        table.results.push_back({{"set", set.name},
                                 {"name", "hetcodec " + info.spec},
                                 {"kind", "hetcodec-failed"},
                                 {"error", e.what()}});
      }
    }
    if (o.peers) {
      measure_libjpeg(set, opts, threads, o, table);
      measure_nvjpeg(set, opts, o, table);
    }
  }
  if (o.peers) add_ratios(table.results);
  std::fprintf(stdout, "checked %llu files against libjpeg-turbo's: %llu differ\n",
               static_cast<unsigned long long>(table.checked),
               static_cast<unsigned long long>(table.mismatches));
  nlohmann::json doc = {{"benchmark", "jpeg-encode"},
                        {"version", version()},
                        {"settings",
                         {{"quality", opts.quality},
                          {"sampling", sampling_name(opts.sampling)},
                          {"optimize", opts.optimize},
                          {"restart_interval", opts.restart_interval},
                          {"restart_rows", opts.restart_rows},
                          {"quant_tables", opts.quant_tables.size()}}},
                        {"threads", threads},
                        {"min_time_s", o.min_time},
                        {"sets", set_docs},
                        {"checked", table.checked},
                        {"mismatches", table.mismatches},
                        {"results", table.results}};
  if (o.json_path == "-")
    std::cout << doc.dump(2) << "\n";
  else if (!o.json_path.empty())
    write_bytes(o.json_path, doc.dump(2) + "\n", {});
  table.failures.throw_if_any();
}

}  // namespace

void add_bench_jpeg_encode_command(CLI::App& bench, GlobalOptions& global) {
  auto o = std::make_shared<BenchOptions>();
  o->jpeg.quality = 90;
  auto* cmd = bench.add_subcommand(
      "jpeg-encode",
      "JPEG encode throughput per selected device against libjpeg-turbo and nvJPEG, files checked\n"
      "Host RGB in and the file on the host (\"host input\"), the same from pinned host memory\n"
      "(\"pinned host input\": alloc_pinned's, sent without a copy on the host), or RGB already "
      "in\n"
      "device memory (\"device input\": uploaded once, as decode_to_device leaves it), with the\n"
      "Huffman coding\n"
      "on the device and on host threads; the stages (upload, transform, entropy, download,\n"
      "host) from a profiled pass; and the whole set at once through encode_batch (\"batch\",\n"
      "each input; sets of more than one image). In the same run: libjpeg-turbo\n"
      "(its C API, JDCT_ISLOW, the same settings) on one thread and on all threads (an image per\n"
      "thread), and nvJPEG's nvjpegEncodeImage (RGB interleaved from device memory: host input,\n"
      "device input, and --streams encoder states at once) where libnvjpeg loads. Every file of\n"
      "ours is compared with libjpeg-turbo's: one that differs fails the run, named with its\n"
      "device.\n"
      "Images: the files or directories given (PNM, PAM, PNG, JPEG; colour, 8-bit), else the\n"
      "ImageNet-like photos of --imagenet-from or `hetcodec corpus` (or a built-in synthetic\n"
      "set of 500x375) and one 3840x2160 image (a centre crop of the first photo of\n"
      "--large-from, or of a large photo of `hetcodec corpus --large`, or a synthetic one).");
  auto* inputs =
      cmd->add_option("inputs", o->paths, "image files or directories")->type_name("PATH");
  cmd->add_option("--imagenet-from", o->imagenet_dir,
                  "directory of the ImageNet-like JPEG photos (default: $HETCODEC_CORPUS or the "
                  "cache's corpus/imagenet-like)")
      ->type_name("DIR")
      ->excludes(inputs);
  cmd->add_option("--large-from", o->large_dir,
                  "directory whose first JPEG photo of 3840x2160 or more gives the large image "
                  "(default: the ImageNet-like directory's large-* photos)")
      ->type_name("DIR")
      ->excludes(inputs);
  cmd->add_option("--batch", o->batch, "ImageNet-like images measured")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("!--no-large", o->large, "leave out the 3840x2160 image");
  cmd->add_flag("!--no-batch", o->whole_set, "leave out the encode_batch rows");
  cmd->add_option("--min-time", o->min_time, "seconds to repeat each measurement")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
  add_jpeg_options(*cmd, o->jpeg, /*entropy=*/false);
  cmd->add_option("--entropy", o->entropy, "Huffman coding measured: device, host or both")
      ->check(CLI::IsMember({"device", "host", "both"}))
      ->capture_default_str();
  cmd->add_option("--input", o->input,
                  "input measured: host, pinned (host), device (resident) or all")
      ->check(CLI::IsMember({"host", "pinned", "device", "all"}))
      ->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "host threads: our host entropy coding, libjpeg-turbo's all-threads row (0: one "
                  "per hardware thread)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--batch-streams", o->batch_streams,
                  "our images at once in the batch rows (JpegEncodeOptions::batch_streams)")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  cmd->add_option("--batch-images", o->batch_images,
                  "our images per launch in the batch rows (JpegEncodeOptions::batch_images; 0: "
                  "the set shared evenly among the streams)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--streams", o->streams, "nvJPEG encoder states at once in its batched row")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_flag("!--no-peers", o->peers,
                "skip libjpeg-turbo's and nvJPEG's rows (files are "
                "still checked against libjpeg-turbo's)");
  cmd->add_option("--json", o->json_path, "also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  cmd->callback([&global, o] { run_bench(global, *o); });
}

}  // namespace hetcodec::tools
