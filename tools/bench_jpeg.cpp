// `hetcodec bench jpeg` and `hetcodec corpus`: JPEG decode throughput per device against the
// peers installed on the machine, measured in the same run on the same inputs: libjpeg-turbo on
// one thread and on all threads, and nvJPEG's hybrid, GPU-hybrid and hardware backends where
// libnvjpeg can be loaded. Host bytes in; our pipeline and nvJPEG leave RGB in device memory,
// libjpeg-turbo in host memory.
// clang-format off
#include <cstdio>  // before jpeglib.h, which uses FILE
#include <jpeglib.h>
// clang-format on
#include <dlfcn.h>
#include <png.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csetjmp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "tools/bench_failures.h"
#include "tools/bench_nvjpeg.h"
#include "tools/bench_peers.h"
#include "tools/cli.h"
#include "tools/libjpeg_error.h"

namespace hetcodec::tools {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::vector<std::uint8_t> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

}  // namespace

// ---- libjpeg: decoding (the peer) and encoding (the corpus) ------------------------------------

bool libjpeg_decode(const std::vector<std::uint8_t>& in, std::vector<std::uint8_t>& out, int& w,
                    int& h, int& comps, bool entropy_only, int scale_denom) {
  jpeg_decompress_struct c{};
  JpegErr err{};
  c.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = jpeg_fail;
  err.pub.emit_message = [](j_common_ptr, int) {};
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&c);
    return false;
  }
  jpeg_create_decompress(&c);
  jpeg_mem_src(&c, in.data(), static_cast<unsigned long>(in.size()));
  jpeg_read_header(&c, TRUE);
  if (entropy_only) {
    jpeg_read_coefficients(&c);
  } else {
    c.dct_method = JDCT_ISLOW;
    c.scale_num = 1;
    c.scale_denom = static_cast<unsigned>(scale_denom);
    jpeg_start_decompress(&c);
    w = int(c.output_width);
    h = int(c.output_height);
    comps = c.output_components;
    out.resize(std::size_t(w) * h * comps);
    while (c.output_scanline < c.output_height) {
      JSAMPROW row = out.data() + std::size_t(c.output_scanline) * w * comps;
      jpeg_read_scanlines(&c, &row, 1);
    }
  }
  jpeg_finish_decompress(&c);
  jpeg_destroy_decompress(&c);
  return true;
}

namespace {

std::vector<std::uint8_t> libjpeg_encode_420(const std::uint8_t* rgb, int w, int h, int stride,
                                             int quality) {
  jpeg_compress_struct c{};
  JpegErr err{};
  c.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = jpeg_fail;
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&c);
    std::free(out);
    throw Error(ErrorCode::InvalidArgument, "libjpeg failed to encode a corpus image");
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, &out, &size);
  c.image_width = JDIMENSION(w);
  c.image_height = JDIMENSION(h);
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, quality, TRUE);
  c.comp_info[0].h_samp_factor = 2;
  c.comp_info[0].v_samp_factor = 2;
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(rgb + std::size_t(c.next_scanline) * std::size_t(stride));
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  std::vector<std::uint8_t> bytes(out, out + size);
  jpeg_destroy_compress(&c);
  std::free(out);
  return bytes;
}

// The file re-coded losslessly (its coefficients kept), as jpegtran -progressive or -arithmetic
// writes it; an empty result when libjpeg-turbo refuses it.
std::vector<std::uint8_t> libjpeg_recode(const std::vector<std::uint8_t>& in, bool progressive,
                                         bool arithmetic) {
  jpeg_decompress_struct src{};
  jpeg_compress_struct dst{};
  JpegErr err{};
  src.err = jpeg_std_error(&err.pub);
  dst.err = src.err;
  err.pub.error_exit = jpeg_fail;
  err.pub.emit_message = [](j_common_ptr, int) {};
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&dst);
    jpeg_destroy_decompress(&src);
    std::free(out);
    return {};
  }
  jpeg_create_decompress(&src);
  jpeg_create_compress(&dst);
  jpeg_mem_src(&src, in.data(), static_cast<unsigned long>(in.size()));
  jpeg_read_header(&src, TRUE);
  jvirt_barray_ptr* coefs = jpeg_read_coefficients(&src);
  jpeg_copy_critical_parameters(&src, &dst);
  if (progressive) jpeg_simple_progression(&dst);
  dst.arith_code = arithmetic ? TRUE : FALSE;
  dst.optimize_coding = arithmetic ? FALSE : TRUE;  // as jpegtran -progressive writes them
  jpeg_mem_dest(&dst, &out, &size);
  jpeg_write_coefficients(&dst, coefs);
  jpeg_finish_compress(&dst);
  jpeg_finish_decompress(&src);
  std::vector<std::uint8_t> bytes(out, out + size);
  jpeg_destroy_compress(&dst);
  jpeg_destroy_decompress(&src);
  std::free(out);
  return bytes;
}

bool libpng_decode_rgb(const fs::path& path, std::vector<std::uint8_t>& rgb, int& w, int& h) {
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, path.c_str())) return false;
  img.format = PNG_FORMAT_RGB;
  rgb.resize(PNG_IMAGE_SIZE(img));
  if (!png_image_finish_read(&img, nullptr, rgb.data(), 0, nullptr)) return false;
  w = int(img.width);
  h = int(img.height);
  return true;
}

// ---- the built-in corpus (bench_peers.h) --------------------------------------------------------

}  // namespace

std::vector<std::vector<std::uint8_t>> builtin_jpeg_corpus(int count, int w, int h) {
  std::vector<std::vector<std::uint8_t>> out;
  std::mt19937 rng(12345);
  std::vector<std::uint8_t> rgb(std::size_t(w) * h * 3);
  for (int n = 0; n < count; ++n) {
    const double fx = 0.01 + 0.03 * (rng() % 100) / 100.0, fy = 0.01 + 0.03 * (rng() % 100) / 100.0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const double s = std::sin(x * fx + n) * std::cos(y * fy - n);
        const bool edge = ((x + 3 * n) / 37 + (y + n) / 29) % 5 == 0;
        for (int c = 0; c < 3; ++c) {
          int v = int(128 + 90 * s * (c + 1) / 3 + (edge ? 40 : 0)) + int(rng() % 24) - 12;
          rgb[(std::size_t(y) * w + x) * 3 + c] = std::uint8_t(std::clamp(v, 0, 255));
        }
      }
    }
    out.push_back(libjpeg_encode_420(rgb.data(), w, h, w * 3, 75 + n % 21));
  }
  return out;
}

std::string default_jpeg_corpus_dir() {
  const char* v = std::getenv("HETCODEC_CORPUS");
  if (v && *v) return v;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "hetcodec" / "corpus" / "imagenet-like").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "hetcodec" / "corpus" / "imagenet-like").string();
  return {};
}

std::vector<fs::path> jpeg_paths(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p)) {
        auto ext = e.path().extension().string();
        for (auto& ch : ext) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg")) files.push_back(e.path());
      }
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// ---- the benchmark ----------------------------------------------------------------------------

struct BenchOptions {
  std::vector<std::string> paths;
  int batch = 256;
  double min_time = 2.0;
  int threads = 0;
  bool peers = true, separate = false;
  std::vector<int> per_copy{0};
  // How the batch is coded: its files as they are ("as-is"), or re-coded losslessly as
  // progressive or arithmetic-coded files; each coding measured in turn.
  std::vector<std::string> codings{"as-is"};
  int scale_denom = 1;  // ours and libjpeg-turbo decode at 1/scale_denom
  std::string json_path;
  // --entropy: also measure images one at a time with the Huffman stage on the host, the
  // device, or as auto picks (rows of their own).
  std::vector<std::string> entropy;
};

double megapixels(const std::vector<std::pair<int, int>>& dims) {
  double mp = 0;
  for (const auto& d : dims) mp += double(d.first) * d.second / 1e6;
  return mp;
}

// The batch measured, from the files given, the cached corpus or the built-in set: the files in
// order, repeated to fill it (colour images only).
struct JpegBatch {
  std::string source;
  std::string coding = "as-is";
  std::vector<std::vector<std::uint8_t>> files;
  std::vector<std::pair<int, int>> dims;
  std::vector<Input> inputs;
  std::uint64_t bytes_in = 0;
  double mp = 0;
  int threads = 1;
};

JpegBatch load_batch(const BenchOptions& o) {
  std::vector<std::vector<std::uint8_t>> files;
  JpegBatch b;
  if (!o.paths.empty()) {
    for (const auto& f : jpeg_paths(o.paths)) files.push_back(read_all(f));
    b.source = std::to_string(files.size()) + " files from " + o.paths[0];
  } else if (const std::string dir = default_jpeg_corpus_dir();
             !dir.empty() && fs::is_directory(dir)) {
    for (const auto& f : jpeg_paths({dir})) files.push_back(read_all(f));
    b.source = std::to_string(files.size()) + " files from " + dir;
  }
  if (files.empty()) {
    std::cerr << "bench jpeg: no corpus given or cached (hetcodec corpus builds one); using the "
                 "built-in set of 64 synthetic 500x375 4:2:0 images\n";
    files = builtin_jpeg_corpus(64, 500, 375);
    b.source = "built-in: 64 synthetic 500x375 4:2:0 q75-95";
  }
  const std::size_t batch_size = std::size_t(std::max(1, o.batch));
  std::vector<std::uint8_t> scratch;
  for (std::size_t i = 0; b.files.size() < batch_size && i < batch_size * 4; ++i) {
    const auto& f = files[i % files.size()];
    int w = 0, h = 0, c = 0;
    if (!libjpeg_decode(f, scratch, w, h, c) || c != 3) continue;  // colour images only
    b.files.push_back(f);
    b.dims.push_back({w, h});
    b.bytes_in += f.size();
  }
  if (b.files.empty())
    throw Error(ErrorCode::InvalidArgument,
                "bench jpeg: no colour JPEG among the inputs that the peer, the system's "
                "libjpeg-turbo, decodes (grayscale files are left out, and so are files it "
                "refuses, such as 12-bit ones before libjpeg-turbo 3; `bench ljpeg` measures "
                "lossless files)");
  b.mp = megapixels(b.dims);
  b.threads = o.threads > 0 ? o.threads : std::max(1, int(std::thread::hardware_concurrency()));
  for (const auto& f : b.files) b.inputs.push_back({f.data(), f.size()});
  return b;
}

// The rows of a run, printed as they come.
struct Table {
  const JpegBatch& batch;
  nlohmann::json results = nlohmann::json::array();
  BenchFailures failures{"bench jpeg"};
  void add(const std::string& name, const std::string& kind, double img_s, nlohmann::json extra) {
    const double mp_s = img_s * batch.mp / double(batch.files.size());
    nlohmann::json r = {
        {"name", name}, {"kind", kind}, {"images_per_s", img_s}, {"megapixels_per_s", mp_s}};
    r.update(extra);
    results.push_back(r);
    std::fprintf(stdout, "%-44s %10.0f img/s %9.1f MP/s\n", name.c_str(), img_s, mp_s);
    std::fflush(stdout);
  }
};

// The JSON of our row: its stages measured apart (`st`) and its pipeline's times (`pipe`), per
// image; and the same as text.
nlohmann::json stage_json(const JpegDecoder::StageTimes& st, const JpegDecoder::StageTimes& pipe,
                          std::size_t n) {
  const double per = 1e3 / double(n);
  return {{"token_stream_copies_per_image", double(pipe.job_copies) / double(n)},
          {"cpu_stage_alone_images_per_s", st.huffman > 0 ? double(n) / st.huffman : 0},
          {"stage_ms_per_image",
           {{"huffman_all_threads", st.huffman * per},
            {"transfer", st.transfer * per},
            {"transfer_copies", st.job_copies},
            {"kernels", st.device * per},
            {"kernel_decode_idct", st.device_decode * per},
            {"kernel_upsample_color", st.device_color * per}}},
          {"pipeline_ms_per_image",
           {{"waiting_for_last_images", pipe.wait_cpu * per},
            {"feeding_device", pipe.enqueue * per},
            {"waiting_for_device", pipe.device * per},
            {"cpu_stage_summed_over_threads", pipe.huffman * per},
            {"waiting_for_a_ticket", pipe.wait_ticket * per},
            {"thread_time", pipe.thread_seconds * per},
            {"thread_time_not_on_images",
             std::max(0.0, pipe.thread_seconds - pipe.huffman - pipe.enqueue) * per}}}};
}
void print_stages(const JpegDecoder::StageTimes& st, const JpegDecoder::StageTimes& pipe,
                  std::size_t n) {
  const double per = 1e3 / double(n);
  std::fprintf(stdout,
               "    stages per image: Huffman %.3f ms (all threads: the CPU stage alone "
               "runs at %.0f img/s), transfer %.3f ms (%llu copies), kernels %.3f ms "
               "(apart: token decode + IDCT %.3f ms, upsampling + colour %.3f ms)\n",
               st.huffman * per, st.huffman > 0 ? double(n) / st.huffman : 0.0, st.transfer * per,
               static_cast<unsigned long long>(st.job_copies), st.device * per,
               st.device_decode * per, st.device_color * per);
  std::fprintf(stdout,
               "    pipeline per image: feeding the device %.3f ms, waiting for it %.3f ms, "
               "waiting for the last images %.3f ms; CPU stage %.3f ms summed over threads; "
               "threads' time %.3f ms, of which not on images %.3f ms (waiting for a ticket "
               "%.3f ms)\n",
               pipe.enqueue * per, pipe.device * per, pipe.wait_cpu * per, pipe.huffman * per,
               pipe.thread_seconds * per,
               std::max(0.0, pipe.thread_seconds - pipe.huffman - pipe.enqueue) * per,
               pipe.wait_ticket * per);
  std::fflush(stdout);
}

// Our pipeline on one device, one image at a time (decode_to_device) with the Huffman stage
// where `entropy` says: the rows of --entropy.
void measure_single(const DeviceInfo& info, const std::string& entropy, const BenchOptions& o,
                    Table& table) {
  const JpegBatch& b = table.batch;
  const std::string name = "hetcodec " + info.spec + " one image at a time, Huffman " + entropy;
  std::fprintf(stderr, "  %s (%s), one image at a time, Huffman %s...\n", info.spec.c_str(),
               info.name.c_str(), entropy.c_str());
  try {
    JpegDecodeOptions opts;
    opts.threads = b.threads;
    opts.fused = !o.separate;
    opts.scale_denom = o.scale_denom;
    opts.entropy = entropy == "device" ? JpegEntropy::Device
                   : entropy == "auto" ? JpegEntropy::Auto
                                       : JpegEntropy::Host;
    JpegDecoder decoder(open_device(info.spec), opts);
    for (const auto& in : b.inputs) decoder.decode_to_device(in);  // warm-up: builds kernels
    decoder.reset_stage_times();
    std::size_t images = 0;
    const auto t0 = Clock::now();
    double t = 0;
    do {
      for (const auto& in : b.inputs) decoder.decode_to_device(in);
      images += b.inputs.size();
      t = since(t0);
    } while (t < o.min_time);
    const auto st = decoder.stage_times();
    table.add(name, "hetcodec-single", double(images) / t,
              {{"device", to_json(info)},
               {"entropy", entropy},
               {"ms_per_image", 1e3 * t / double(images)},
               {"device_entropy_images", st.device_entropy_images},
               {"images", images}});
  } catch (const Error& e) {
    table.failures.add(name, e);
    table.results.push_back({{"name", name}, {"kind", "hetcodec-failed"}, {"error", e.what()}});
  }
}

// Our pipeline on one device with `per_copy` images per copy: batches to device memory for
// min_time, then one batch's pipeline times and the stages measured apart.
void measure_ours(const DeviceInfo& info, int per_copy, const BenchOptions& o, Table& table) {
  const JpegBatch& b = table.batch;
  // Named by the images per copy only where the run compares several settings.
  const std::string label =
      o.per_copy.size() > 1
          ? " (" + (per_copy > 0 ? std::to_string(per_copy) : std::string("auto")) +
                (per_copy == 1 ? " image per copy)" : " images per copy)")
          : std::string();
  std::fprintf(stderr, "  %s (%s)%s...\n", info.spec.c_str(), info.name.c_str(), label.c_str());
  try {
    JpegDecodeOptions opts;
    opts.threads = b.threads;
    opts.fused = !o.separate;
    opts.images_per_copy = per_copy;
    opts.scale_denom = o.scale_denom;
    JpegDecoder decoder(open_device(info.spec), opts);
    std::shared_ptr<DeviceBuffer> output;
    decoder.decode_batch_to_device(b.inputs, nullptr, &output);  // warm-up: builds kernels
    std::size_t images = 0;
    const auto t0 = Clock::now();
    double t = 0;
    do {  // at least once, so that --min-time 0 still gives a figure
      decoder.decode_batch_to_device(b.inputs, nullptr, &output);
      images += b.files.size();
      t = since(t0);
    } while (t < o.min_time);
    decoder.reset_stage_times();
    decoder.decode_batch_to_device(b.inputs, nullptr, &output);
    const JpegDecoder::StageTimes pipe = decoder.stage_times();
    const JpegDecoder::StageTimes st = decoder.profile_stages(b.inputs);
    nlohmann::json extra = {{"device", to_json(info)},
                            {"kernels", o.separate ? "separate" : "fused"},
                            {"images_per_copy", per_copy}};
    extra.update(stage_json(st, pipe, b.files.size()));
    table.add("hetcodec " + info.spec + " " + info.name + label, "hetcodec", double(images) / t,
              extra);
    print_stages(st, pipe, b.files.size());
  } catch (const Error& e) {
    // One device failing does not lose the others' figures or the peers'; the bench fails at
    // the end.
    table.failures.add(info.spec + " (" + info.name + ")" + label, e);
    table.results.push_back(
        {{"name", "hetcodec " + info.spec}, {"kind", "hetcodec-failed"}, {"error", e.what()}});
  }
}

// libjpeg-turbo, one thread and all threads: full decodes, then entropy decoding alone.
void measure_libjpeg(const BenchOptions& o, Table& table) {
  const JpegBatch& b = table.batch;
  for (const bool entropy_only : {false, true})
    for (int n : {1, b.threads}) {
      std::vector<std::vector<std::uint8_t>> outs{std::size_t(n)};
      std::size_t images = 0;
      const auto t0 = Clock::now();
      double t = 0;
      std::atomic<bool> ok{true};
      do {
        std::atomic<std::size_t> next{0};
        auto work = [&](int id) {
          int w, h, c;
          for (std::size_t i; (i = next.fetch_add(1)) < b.files.size();)
            if (!libjpeg_decode(b.files[i], outs[std::size_t(id)], w, h, c, entropy_only,
                                o.scale_denom))
              ok = false;
        };
        std::vector<std::thread> pool;
        for (int k = 1; k < n; ++k) pool.emplace_back(work, k);
        work(0);
        for (auto& th : pool) th.join();
        images += b.files.size();
        t = since(t0);
      } while (t < o.min_time && ok);
      const std::string on = std::to_string(n) + " thread" + (n == 1 ? "" : "s");
      if (!ok) {
        table.failures.add("libjpeg-turbo " + on, "libjpeg-turbo failed to decode an image");
        continue;
      }
      if (entropy_only)
        table.add("libjpeg-turbo entropy decoding only " + on, "libjpeg-turbo-entropy",
                  double(images) / t, {{"threads", n}, {"api", "jpeg_read_coefficients"}});
      else
        table.add("libjpeg-turbo " + on, "libjpeg-turbo", double(images) / t, {{"threads", n}});
    }
}

// nvJPEG's backends where libnvjpeg loads and a CUDA device is there (a CUDA build only).
void measure_nvjpeg(const BenchOptions& o, Table& table) {
#ifdef HETCODEC_HAVE_CUDA
  NvJpeg nv;
  int ndev = 0;
  if (!nv.lib) {
    std::fprintf(stderr, "  nvJPEG: %s\n", nv.why.c_str());
  } else if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::fprintf(stderr, "  nvJPEG: no CUDA device\n");
  } else {
    const std::pair<int, const char*> backends[] = {
        {1, "hybrid"}, {2, "gpu_hybrid"}, {3, "hardware"}};
    for (const auto& b : backends) {
      std::string why;
      const double rate =
          bench_nvjpeg(nv, b.first, table.batch.files, table.batch.dims, o.min_time, why);
      if (rate < 0) {
        std::fprintf(stderr, "  nvJPEG %s: unavailable (%s)\n", b.second, why.c_str());
        table.results.push_back({{"name", std::string("nvJPEG ") + b.second},
                                 {"kind", "nvjpeg"},
                                 {"unavailable", why}});
      } else {
        table.add(std::string("nvJPEG ") + b.second, "nvjpeg", rate, {{"backend", b.second}});
      }
    }
  }
#endif
}

// Ratios of each hetcodec row to each peer row, printed and kept in the row.
void add_ratios(nlohmann::json& results) {
  std::fprintf(stdout, "ratios (img/s over img/s):\n");
  for (auto& r : results) {
    if (r["kind"] != "hetcodec") continue;
    nlohmann::json ratios;
    for (const auto& p : results) {
      if (p["kind"] == "hetcodec" || !p.contains("images_per_s")) continue;
      const double ratio = r["images_per_s"].get<double>() / p["images_per_s"].get<double>();
      ratios[p["name"].get<std::string>()] = ratio;
      std::fprintf(stdout, "  %s / %s = %.2f\n", r["name"].get<std::string>().c_str(),
                   p["name"].get<std::string>().c_str(), ratio);
    }
    r["ratios"] = ratios;
  }
}

// The batch re-coded as `coding` asks ("progressive", "arithmetic", "progressive-arithmetic").
JpegBatch recoded(const JpegBatch& in, const std::string& coding) {
  JpegBatch b = in;
  b.coding = coding;
  b.bytes_in = 0;
  const bool progressive = coding.find("progressive") != std::string::npos;
  const bool arithmetic = coding.find("arithmetic") != std::string::npos;
  for (auto& f : b.files) {
    f = libjpeg_recode(f, progressive, arithmetic);
    if (f.empty())
      throw Error(ErrorCode::InvalidArgument, "bench jpeg: libjpeg-turbo could not re-code an "
                                              "image as " + coding);
    b.bytes_in += f.size();
  }
  b.inputs.clear();
  for (const auto& f : b.files) b.inputs.push_back({f.data(), f.size()});
  return b;
}

void run_bench(const GlobalOptions& global, const BenchOptions& o) {
  const JpegBatch as_is = load_batch(o);
  nlohmann::json all = nlohmann::json::array();
  BenchFailures failures{"bench jpeg"};
  for (const std::string& coding : o.codings) {
    const JpegBatch b = coding == "as-is" ? as_is : recoded(as_is, coding);
    std::fprintf(stderr,
                 "bench jpeg: batch of %zu images, %.1f MP, %.1f MiB (%s, %s), %d threads\n",
                 b.files.size(), b.mp, double(b.bytes_in) / (1 << 20), b.source.c_str(),
                 coding.c_str(), b.threads);
    if (o.codings.size() > 1) std::fprintf(stdout, "coding: %s\n", coding.c_str());
    Table table{b};
    for (const auto& info : selected_devices(global)) {
      for (const int per_copy : o.per_copy) measure_ours(info, per_copy, o, table);
      for (const auto& e : o.entropy) measure_single(info, e == "cpu" ? "host" : e, o, table);
    }
    if (o.peers) {
      measure_libjpeg(o, table);
      measure_nvjpeg(o, table);
    }
    add_ratios(table.results);
    for (auto& r : table.results) {
      r["coding"] = coding;
      r["scale_denom"] = r["kind"] == "nvjpeg" ? 1 : o.scale_denom;
      r["bytes_in"] = b.bytes_in;
      all.push_back(r);
    }
    failures.merge(table.failures);
  }
  nlohmann::json doc = {{"benchmark", "jpeg-decode"}, {"version", version()},
                        {"corpus", as_is.source},     {"batch", as_is.files.size()},
                        {"megapixels", as_is.mp},     {"bytes_in", as_is.bytes_in},
                        {"threads", as_is.threads},   {"min_time_s", o.min_time},
                        {"codings", o.codings},       {"scale_denom", o.scale_denom},
                        {"results", all}};
  if (o.json_path == "-") {
    std::cout << doc.dump(2) << "\n";
  } else if (!o.json_path.empty()) {
    std::ofstream f(o.json_path);
    f << doc.dump(2) << "\n";
    if (!f) throw Error(ErrorCode::InvalidArgument, "cannot write " + o.json_path);
  }
  failures.throw_if_any();
}

// ---- the corpus builder -------------------------------------------------------------------------

struct CorpusOptions {
  std::string out;
  std::vector<std::string> sources;
  int count = 256;
  bool large = false;
};

void build_corpus(const CorpusOptions& o) {
  std::vector<std::string> roots = o.sources;
  if (roots.empty()) {
    roots.push_back("/usr/share/wallpapers");
    for (const char* p : {"/usr/lib/python3/dist-packages/skimage/data"})
      if (fs::is_directory(p)) roots.push_back(p);
  }
  std::vector<fs::path> images;
  for (const auto& r : roots) {
    if (!fs::is_directory(r)) continue;
    for (const auto& e : fs::recursive_directory_iterator(r)) {
      auto ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".png"))
        images.push_back(e.path());
    }
  }
  std::sort(images.begin(), images.end());
  if (images.empty())
    throw Error(ErrorCode::InvalidArgument,
                "corpus: no source photos found (install plasma-workspace-wallpapers and "
                "python3-skimage, or pass --source DIR)");
  const std::string out = o.out.empty() ? default_jpeg_corpus_dir() : o.out;
  fs::create_directories(out);
  std::mt19937 rng(2026);
  int written = 0;
  std::vector<std::uint8_t> rgb, small;
  for (std::size_t k = 0; written < o.count && k < images.size() * 64; ++k) {
    const fs::path& src = images[k % images.size()];
    int w = 0, h = 0, c = 3;
    bool ok = src.extension() == ".png" ? libpng_decode_rgb(src, rgb, w, h)
                                        : libjpeg_decode(read_all(src), rgb, w, h, c);
    if (!ok || c != 3) continue;
    if (o.large) {
      if (w < 5120) continue;
      auto bytes = libjpeg_encode_420(rgb.data(), w, h, w * 3, 90);
      std::ofstream(fs::path(out) / ("large-" + std::to_string(written) + ".jpg"), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
      std::fprintf(stderr, "[%d] %s: %dx%d\n", written + 1, src.filename().c_str(), w, h);
      ++written;
      continue;
    }
    // Box-downscale so the short side is 375..750 (ImageNet-like scale), then crop 500x375.
    int f = 1;
    while (std::min(w, h) / (f + 1) >= 375) ++f;
    f = std::max(1, f - int(rng() % 2));
    const int sw = w / f, sh = h / f;
    if (sw < 500 || sh < 375) continue;
    small.assign(std::size_t(sw) * sh * 3, 0);
    for (int y = 0; y < sh; ++y)
      for (int x = 0; x < sw; ++x)
        for (int ch = 0; ch < 3; ++ch) {
          int sum = 0;
          for (int dy = 0; dy < f; ++dy)
            for (int dx = 0; dx < f; ++dx)
              sum += rgb[(std::size_t(y * f + dy) * w + std::size_t(x * f + dx)) * 3 + ch];
          small[(std::size_t(y) * sw + x) * 3 + ch] = std::uint8_t(sum / (f * f));
        }
    const int x0 = int(rng() % std::uint32_t(sw - 500 + 1)),
              y0 = int(rng() % std::uint32_t(sh - 375 + 1));
    const int q = 75 + int(rng() % 21);
    auto bytes =
        libjpeg_encode_420(small.data() + (std::size_t(y0) * sw + x0) * 3, 500, 375, sw * 3, q);
    char name[64];
    std::snprintf(name, sizeof name, "img-%04d-q%d.jpg", written, q);
    std::ofstream(fs::path(out) / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (++written % 32 == 0) std::fprintf(stderr, "  %d/%d\n", written, o.count);
  }
  std::fprintf(stderr, "corpus: %d images in %s\n", written, out.c_str());
  if (written == 0) throw Error(ErrorCode::InvalidArgument, "corpus: no image was large enough");
}

}  // namespace

void add_bench_jpeg_command(CLI::App& bench, GlobalOptions& global) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = bench.add_subcommand(
      "jpeg",
      "JPEG decode throughput: batches of host bytes in, RGB left in device memory, per selected\n"
      "device, with libjpeg-turbo (1 and all threads; full decodes, and entropy decoding alone,\n"
      "the bound for a CPU Huffman stage) and nvJPEG (hybrid, gpu_hybrid, hardware, where\n"
      "libnvjpeg loads) measured in the same run. Inputs: JPEG files or directories, else\n"
      "the corpus `hetcodec corpus` cached, else a built-in synthetic set.");
  cmd->add_option("inputs", o->paths, "JPEG files or directories")->type_name("PATH");
  cmd->add_option("--batch", o->batch, "images per batch (files repeat to fill it)")
      ->capture_default_str()
      ->check(CLI::Range(1, 65536));
  cmd->add_option("--min-time", o->min_time, "seconds to repeat each measurement")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 600.0));
  cmd->add_option("--threads", o->threads, "CPU threads (Huffman stage, libjpeg-turbo peer)");
  cmd->add_flag("--separate", o->separate, "measure the two-kernel path instead of the fused one");
  cmd->add_option("--entropy", o->entropy,
                  "also measure images one at a time (decode_to_device) with the Huffman stage "
                  "on host threads, on the device, or as auto picks: host, device, auto; "
                  "comma-separated, a row each")
      ->delimiter(',')
      ->check(CLI::IsMember({"host", "cpu", "device", "auto"}));
  cmd->add_option("--images-per-copy", o->per_copy,
                  "images whose token streams go to the device in one copy, and whose "
                  "kernels run as one launch each (0: automatic, up to 16); "
                  "several values, comma-separated, are measured one after another")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("!--no-peers", o->peers, "skip libjpeg-turbo and nvJPEG");
  cmd->add_option("--coding", o->codings,
                  "how the batch is coded, measured in turn: as-is (the files as given), "
                  "progressive, arithmetic, progressive-arithmetic (re-coded losslessly by "
                  "libjpeg-turbo, as jpegtran -progressive / -arithmetic writes them), or all; "
                  "comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(
          {"as-is", "progressive", "arithmetic", "progressive-arithmetic", "all"}))
      ->capture_default_str();
  cmd->add_option_function<std::string>(
         "--scale",
         [o](const std::string& v) {
           const std::map<std::string, int> known = {{"1", 1}, {"1/1", 1}, {"1/2", 2}, {"1/4", 4},
                                                     {"1/8", 8}};
           const auto it = known.find(v);
           if (it == known.end())
             throw CLI::ValidationError("--scale", "expected 1/2, 1/4, 1/8 or 1, not " + v);
           o->scale_denom = it->second;
         },
         "decode at 1/2, 1/4 or 1/8 of the size (ours and libjpeg-turbo, as djpeg -scale; "
         "nvJPEG decodes at full size)")
      ->type_name("1/N");
  cmd->add_option("--json", o->json_path, "also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  cmd->callback([&global, o] {
    if (std::find(o->codings.begin(), o->codings.end(), "all") != o->codings.end())
      o->codings = {"as-is", "progressive", "arithmetic", "progressive-arithmetic"};
    run_bench(global, *o);
  });
}

void add_corpus_command(CLI::App& app) {
  auto o = std::make_shared<CorpusOptions>();
  auto* cmd = app.add_subcommand(
      "corpus",
      "build a benchmark corpus of JPEG files from real photos\n"
      "Real photos (from Debian's plasma-workspace-wallpapers and\n"
      "python3-skimage): ImageNet-like 500x375 4:2:0 crops at q75..95, or with --large the\n"
      "full-size 5120-wide wallpapers re-encoded 4:2:0 q90");
  cmd->add_option(
         "-o,--out", o->out,
         "output directory (default: $HETCODEC_CORPUS or the cache's corpus/imagenet-like)")
      ->type_name("DIR");
  cmd->add_option("--source", o->sources, "directories of source photos (.jpg, .png)")
      ->type_name("DIR");
  cmd->add_option("--count", o->count, "images to write")->capture_default_str();
  cmd->add_flag("--large", o->large, "full-size images instead of crops");
  cmd->callback([o] { build_corpus(*o); });
}

}  // namespace hetcodec::tools
