// `hetcodec bench ljpeg`: lossless JPEG (SOF3) decode per file and per device, with the row
// table given (computed once beforehand, as a camera's sidecar would give it): MP/s into device
// memory and into host memory, each stage apart (profile_lossless), the reconstruction in both
// wavefront orders for predictors 3..7, the pre-pass alone, and in the same run the CPU
// reference on one thread and on all, and nvJPEG's lossless backend where libnvjpeg loads and
// takes the file. Every output is checked: each device's samples equal the source image's (or,
// for files from a directory, the CPU reference's), nvJPEG's equal ours; a mismatch fails the
// bench.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include "tools/bench_failures.h"
#include "tools/bench_nvjpeg.h"
#include "tools/cli.h"
#include "tools/ljpeg_corpus.h"

namespace hetcodec::tools {
namespace {

using Clock = std::chrono::steady_clock;

struct LjBenchOptions {
  std::string dir, photos, json_path;
  bool quick = false, peers = true;
  int runs = 5, threads = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The median seconds of `runs` calls of `f` after one call as a warm-up.
template <class F>
double median_seconds(int runs, F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return median(t);
}

// The decoder's output layout of a file's source samples: bytes up to 8 bits of precision, else
// 16-bit big-endian.
std::vector<std::uint8_t> expected_bytes(const LjpegFile& f) {
  std::vector<std::uint8_t> out;
  out.reserve(f.source.size() * (f.precision > 8 ? 2 : 1));
  for (const std::uint16_t s : f.source) {
    if (f.precision > 8) out.push_back(std::uint8_t(s >> 8));
    out.push_back(std::uint8_t(s));
  }
  return out;
}

// "" when equal, else where the first difference is.
std::string compare(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                    int sample_bytes) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " bytes instead of " + std::to_string(want.size());
  const auto m = std::mismatch(got.begin(), got.end(), want.begin());
  if (m.first == got.end()) return "";
  return "samples differ from sample " +
         std::to_string(std::size_t(m.first - got.begin()) / std::size_t(sample_bytes));
}

std::vector<std::uint8_t> download(Device& d, const DeviceImage& im) {
  std::vector<std::uint8_t> out(im.bytes());
  auto q = d.create_queue();
  q->read(out.data(), *im.buffer, im.offset, out.size());
  q->finish();
  return out;
}

// One device (or CPU-reference setting) on one file.
struct Row {
  std::string device, label;
  bool ok = false;
  double mp_device = 0, mp_host = 0, prepass_mp = 0;
  std::string row_table_source;
  LosslessReport split;  // medians, seconds
  double tickets_ms = 0, diagonals_ms = 0;
  // Without a row table, into device memory, by where the Huffman walk runs
  // (JpegDecodeOptions::entropy): host, device, auto; MP/s and where the table came from.
  struct Untabled {
    const char* name;
    double mp = 0;
    std::string source;
  };
  std::vector<Untabled> untabled;
  nlohmann::json json;
};

struct FileRun {
  const LjpegFile& file;
  std::vector<std::uint8_t> expected;  // the source's samples, or the CPU reference's
  std::string checked_against;
  double mp() const { return double(file.width) * double(file.height) / 1e6; }
};

LosslessReport median_split(const std::vector<LosslessReport>& rs) {
  auto pick = [&](double LosslessReport::*field) {
    std::vector<double> v;
    for (const auto& r : rs) v.push_back(r.*field);
    return median(v);
  };
  LosslessReport m = rs.front();
  for (auto field : {&LosslessReport::row_table_seconds, &LosslessReport::upload_seconds,
                     &LosslessReport::residual_seconds, &LosslessReport::reconstruct_seconds,
                     &LosslessReport::unpack_seconds, &LosslessReport::download_seconds,
                     &LosslessReport::total_seconds})
    m.*field = pick(field);
  return m;
}

nlohmann::json split_json(const LosslessReport& r) {
  return {{"row_table", r.row_table_seconds * 1e3}, {"upload", r.upload_seconds * 1e3},
          {"residual", r.residual_seconds * 1e3},   {"reconstruct", r.reconstruct_seconds * 1e3},
          {"unpack", r.unpack_seconds * 1e3},       {"download", r.download_seconds * 1e3},
          {"total", r.total_seconds * 1e3}};
}

// Everything measured of one file on one device with `threads` CPU threads; outputs checked.
Row measure(FileRun& run, const std::string& spec, const std::string& label, int threads,
            const LjBenchOptions& o, BenchFailures& failures) {
  const LjpegFile& f = run.file;
  Row row;
  row.device = spec;
  row.label = label;
  try {
    JpegDecodeOptions opts;
    opts.threads = threads;
    JpegDecoder dec(open_device(spec), opts);
    const std::uint8_t* data = f.bytes.data();
    const std::size_t size = f.bytes.size();
    const int sample_bytes = f.precision > 8 ? 2 : 1;
    // The check, and how the decoder finds the rows when it is given no table.
    LosslessReport first;
    const Image img = dec.decode_lossless(data, size, nullptr, &first);
    row.row_table_source = first.row_table;
    if (run.expected.empty()) run.expected = img.pixels;  // the CPU reference, measured first
    std::vector<std::string> bad;
    if (auto why = compare(img.pixels, run.expected, sample_bytes); !why.empty())
      bad.push_back("to host without a row table: " + why);

    std::vector<std::uint8_t> sidecar;
    const double t_table =
        median_seconds(o.runs, [&] { sidecar = dec.lossless_row_table(data, size); });
    row.prepass_mp = run.mp() / t_table;
    const std::vector<std::uint64_t> table =
        dec.read_lossless_row_table(data, size, sidecar.data(), sidecar.size());

    DeviceImage dimg;
    const double t_dev =
        median_seconds(o.runs, [&] { dimg = dec.decode_lossless_to_device(data, size, &table); });
    if (auto why = compare(download(dec.device(), dimg), run.expected, sample_bytes); !why.empty())
      bad.push_back("device-resident: " + why);
    dimg = DeviceImage{};
    Image host;
    const double t_host =
        median_seconds(o.runs, [&] { host = dec.decode_lossless(data, size, &table); });
    if (auto why = compare(host.pixels, run.expected, sample_bytes); !why.empty())
      bad.push_back("to host: " + why);
    row.mp_device = run.mp() / t_dev;
    row.mp_host = run.mp() / t_host;

    // No table given: the pre-pass on host threads, the device's Huffman stages, or the
    // decoder's choice; restart markers of one interval per row serve each the same.
    nlohmann::json juntabled;
    const bool gpu_like = dec.device().info().kind != DeviceKind::Cpu;
    for (const JpegEntropy e : {JpegEntropy::Host, JpegEntropy::Device, JpegEntropy::Auto}) {
      if (!gpu_like && e != JpegEntropy::Host) continue;
      const char* name = e == JpegEntropy::Host     ? "host"
                         : e == JpegEntropy::Device ? "device"
                                                    : "auto";
      JpegDecodeOptions oe = opts;
      oe.entropy = e;
      JpegDecoder de(open_device(spec), oe);
      LosslessReport rep;
      const DeviceImage check = de.decode_lossless_to_device(data, size, nullptr, &rep);
      if (auto why = compare(download(de.device(), check), run.expected, sample_bytes);
          !why.empty())
        bad.push_back(std::string("without a row table, ") + name + ": " + why);
      const double t = median_seconds(o.runs, [&] { de.decode_lossless_to_device(data, size); });
      row.untabled.push_back({name, run.mp() / t, rep.row_table});
      juntabled[name] = {{"megapixels_per_s_device_resident", run.mp() / t},
                         {"row_table", rep.row_table},
                         {"time_over_given_table", t / t_dev}};
    }

    std::vector<LosslessReport> splits;
    dec.profile_lossless(data, size, &table, true);  // warm-up
    for (int r = 0; r < o.runs; ++r)
      splits.push_back(dec.profile_lossless(data, size, &table, true));
    row.split = median_split(splits);

    nlohmann::json orders;
    if (f.predictor >= 3) {
      for (const Wavefront order : {Wavefront::Tickets, Wavefront::Diagonals}) {
        JpegDecodeOptions oo = opts;
        oo.lossless_order = order;
        JpegDecoder od(open_device(spec), oo);
        const DeviceImage check = od.decode_lossless_to_device(data, size, &table);
        const char* name = order == Wavefront::Tickets ? "tickets" : "diagonals";
        if (auto why = compare(download(od.device(), check), run.expected, sample_bytes);
            !why.empty())
          bad.push_back(std::string(name) + " order: " + why);
        std::vector<LosslessReport> rs;
        od.profile_lossless(data, size, &table, false);
        for (int r = 0; r < o.runs; ++r)
          rs.push_back(od.profile_lossless(data, size, &table, false));
        const double ms = median_split(rs).reconstruct_seconds * 1e3;
        (order == Wavefront::Tickets ? row.tickets_ms : row.diagonals_ms) = ms;
        orders[name] = ms;
      }
    }
    for (const auto& b : bad)
      failures.add(f.name + " on " + label, b + " (against " + run.checked_against + ")");
    row.ok = bad.empty();
    row.json = {{"device", label},
                {"spec", spec},
                {"threads", threads},
                {"megapixels_per_s_device_resident", row.mp_device},
                {"megapixels_per_s_to_host", row.mp_host},
                {"row_table_megapixels_per_s", row.prepass_mp},
                {"row_table_without_sidecar", row.row_table_source},
                {"stages_ms", split_json(row.split)},
                {"samples_equal", row.ok}};
    if (!orders.empty()) row.json["reconstruct_ms_by_order"] = orders;
    row.json["without_row_table"] = juntabled;
  } catch (const Error& e) {
    failures.add(f.name + " on " + label, e);
    row.json = {{"device", label}, {"spec", spec}, {"error", e.what()}};
  }
  return row;
}

// nvJPEG's lossless backend on one file: MP/s, or why not, with its samples checked against
// ours.
nlohmann::json measure_nvjpeg(FileRun& run, const LjBenchOptions& o, BenchFailures& failures,
                              double& mp_s, std::string& note) {
  mp_s = 0;
  (void)failures;  // a peer's wrong samples are reported in its row, not as a failure
#ifdef HETCODEC_HAVE_CUDA
  const LjpegFile& f = run.file;
  static NvJpeg nv;
  int ndev = 0;
  if (!nv.lib) {
    note = nv.why;
  } else if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    note = "no CUDA device";
  } else if (f.predictor != 1) {
    note = "not taken: predictor " + std::to_string(f.predictor) + " (nvJPEG takes 1)";
  } else if (f.components > 2) {
    note = "not taken: " + std::to_string(f.components) + " components (nvJPEG takes 1 or 2)";
  } else {
    std::vector<double> seconds;
    std::vector<std::uint16_t> samples;
    if (!bench_nvjpeg_lossless(nv, f.bytes, f.width, f.height, f.components, o.runs, seconds,
                               samples, note)) {
      note = "unavailable: " + note;
    } else {
      mp_s = run.mp() / median(seconds);
      // Ours: bytes, or big-endian pairs; nvJPEG's: native uint16.
      const bool wide = f.precision > 8;
      const std::size_t ours_count = run.expected.size() / (wide ? 2 : 1);
      std::size_t bad = samples.size() == ours_count ? samples.size() : 0;
      for (std::size_t i = 0; i < samples.size() && bad == samples.size(); ++i) {
        const unsigned ours =
            wide ? unsigned(run.expected[2 * i]) << 8 | run.expected[2 * i + 1] : run.expected[i];
        if (samples[i] != ours) bad = i;
      }
      if (bad != samples.size()) {
        // Ours equal the source (checked before): nvJPEG's are wrong. Its speed is not counted
        // and the row says so; it is the peer's failure, not the bench's.
        const double measured = mp_s;
        mp_s = 0;
        note = "wrong samples (unlike the source from sample " + std::to_string(bad) +
               "): not counted";
        return {{"megapixels_per_s_not_counted", measured}, {"samples_equal", false},
                {"unavailable", note}};
      }
      return {{"megapixels_per_s", mp_s}, {"samples_equal", true}};
    }
  }
#else
  (void)run;
  (void)o;
  note = "not in this build (no CUDA)";
#endif
  return {{"unavailable", note}};
}

void print_header() {
  std::printf("%-28s %-16s %9s %9s  %-41s %7s %8s\n", "file", "device", "MP/s dev", "MP/s host",
              "split ms: table upld resid recon unpck down", "x CPU1", "x nvJPEG");
}

void print_row(const LjpegFile& f, const Row& r, double cpu1, double nv,
               const std::string& nv_note) {
  if (r.json.contains("error")) {
    std::printf("%-28s %-16s failed: %s\n", f.name.c_str(), r.label.c_str(),
                r.json["error"].get<std::string>().c_str());
    return;
  }
  const LosslessReport& s = r.split;
  char split[96];
  std::snprintf(split, sizeof split, "%5.1f %5.1f %5.1f %5.1f %5.1f %5.1f",
                s.row_table_seconds * 1e3, s.upload_seconds * 1e3, s.residual_seconds * 1e3,
                s.reconstruct_seconds * 1e3, s.unpack_seconds * 1e3, s.download_seconds * 1e3);
  char nvtxt[32];
  if (nv > 0)
    std::snprintf(nvtxt, sizeof nvtxt, "%8.2f", r.mp_device / nv);
  else
    std::snprintf(nvtxt, sizeof nvtxt, "%8s",
                  nv_note.rfind("not taken", 0) == 0 ? "not taken" : "-");
  std::printf("%-28s %-16s %9.1f %9.1f  %-41s %7.2f %s%s\n", f.name.c_str(), r.label.c_str(),
              r.mp_device, r.mp_host, split, cpu1 > 0 ? r.mp_device / cpu1 : 0.0, nvtxt,
              r.ok ? "" : "  MISMATCH");
}

void run_bench(const GlobalOptions& global, const LjBenchOptions& o) {
  std::vector<LjpegFile> files;
  std::string corpus;
  if (!o.dir.empty()) {
    std::vector<std::string> skipped;
    files = ljpeg_files_in(o.dir, skipped);
    for (const auto& s : skipped) std::fprintf(stderr, "bench ljpeg: skipped %s\n", s.c_str());
    if (files.empty())
      throw Error(ErrorCode::InvalidArgument, "bench ljpeg: no lossless JPEG file in " + o.dir);
    corpus = std::to_string(files.size()) + " files from " + o.dir;
  } else {
    const int large = o.quick ? 512 : 4096, small = o.quick ? 512 : 2048;
    if (!global.quiet)
      std::fprintf(stderr, "bench ljpeg: making the built-in corpus (%dx%d and %dx%d)...\n", large,
                   large, small, small);
    files = builtin_ljpeg_corpus(demo_photos_dir(o.photos), large, small);
    corpus = "built-in" + std::string(o.quick ? " (quick)" : "");
  }
  // Every device found unless -d names some; the CPU reference is measured apart, below.
  GlobalOptions g = global;
  if (g.devices.empty()) g.devices = {"all"};
  std::vector<DeviceInfo> devices;
  for (const auto& d : selected_devices(g))
    if (d.kind != DeviceKind::Cpu) devices.push_back(d);
  const int hw = std::max(1, int(std::thread::hardware_concurrency()));
  const std::string cpu1 = "cpu (1 thread)", cpun = "cpu (" + std::to_string(hw) + " threads)";

  BenchFailures failures("bench ljpeg");
  nlohmann::json jfiles = nlohmann::json::array();
  for (const auto& d : devices)
    std::printf("%s: %s (%s)\n", d.spec.c_str(), d.name.c_str(), d.platform.c_str());
  print_header();
  for (std::size_t i = 0; i < files.size(); ++i) {
    LjpegFile& f = files[i];
    FileRun run{f, expected_bytes(f), f.source.empty() ? "the CPU reference" : "the source image"};
    auto progress = [&](const std::string& what) {
      if (!global.quiet)
        std::fprintf(stderr, "bench ljpeg: [%zu/%zu] %s: %s\n", i + 1, files.size(), f.name.c_str(),
                     what.c_str());
    };
    if (f.width == 0) {  // a file from a directory: its parameters from the CPU reference
      try {
        JpegDecoder dec("cpu");
        LosslessReport rep;
        const Image img = dec.decode_lossless(f.bytes.data(), f.bytes.size(), nullptr, &rep);
        f.width = img.width;
        f.height = img.height;
        f.components = channels(img.format);
        f.precision = rep.precision;
        f.predictor = rep.predictor;
        f.restart_rows = f.width ? rep.restart_interval / f.width : 0;
      } catch (const Error& e) {
        failures.add(f.name, e);  // no reference for the devices
        jfiles.push_back({{"name", f.name}, {"origin", f.origin}, {"error", e.what()}});
        continue;
      }
    }
    progress(cpu1);
    std::vector<Row> rows;
    rows.push_back(measure(run, "cpu", cpu1, 1, o, failures));
    progress(cpun);
    rows.push_back(measure(run, "cpu", cpun, 0, o, failures));
    for (const auto& d : devices) {
      progress(d.spec + " (" + d.name + ")");
      rows.push_back(measure(run, d.spec, d.spec, o.threads, o, failures));
    }
    double nv = 0;
    std::string nv_note;
    nlohmann::json jnv;
    if (o.peers) {
      progress("nvJPEG lossless");
      jnv = measure_nvjpeg(run, o, failures, nv, nv_note);
      if (!global.quiet && nv == 0) std::fprintf(stderr, "  nvJPEG: %s\n", nv_note.c_str());
    }
    const double ref = rows[0].ok ? rows[0].mp_host : 0;
    nlohmann::json jrows = nlohmann::json::array();
    for (auto& r : rows) {
      print_row(f, r, ref, nv, nv_note);
      if (!r.json.contains("error")) {
        r.json["ratios"] = {{"to_cpu_1_thread", ref > 0 ? r.mp_device / ref : 0}};
        if (nv > 0) r.json["ratios"]["to_nvjpeg"] = r.mp_device / nv;
      }
      jrows.push_back(r.json);
    }
    if (nv > 0)
      std::printf("%-28s %-16s %9.1f %9s  %-41s %7.2f\n", f.name.c_str(), "nvJPEG lossless", nv, "",
                  "", ref > 0 ? nv / ref : 0.0);
    else if (o.peers)
      std::printf("%-28s %-16s %s\n", f.name.c_str(), "nvJPEG lossless", nv_note.c_str());
    for (const auto& r : rows) {
      if (r.json.contains("error")) continue;
      std::printf("    %s: row table alone (%s) %.1f MP/s", r.label.c_str(),
                  r.row_table_source.c_str(), r.prepass_mp);
      if (f.predictor >= 3)
        std::printf("; reconstruction tickets %.2f ms, diagonals %.2f ms", r.tickets_ms,
                    r.diagonals_ms);
      std::printf("\n");
      if (!r.untabled.empty()) {
        std::printf("    %s: without a row table, device-resident:", r.label.c_str());
        for (const auto& u : r.untabled)
          std::printf(" %s %.1f MP/s (%s, %.2fx the given table's time)", u.name, u.mp,
                      u.source.c_str(), u.mp > 0 ? r.mp_device / u.mp : 0.0);
        std::printf("\n");
      }
    }
    std::fflush(stdout);
    jfiles.push_back({{"name", f.name},
                      {"origin", f.origin},
                      {"width", f.width},
                      {"height", f.height},
                      {"components", f.components},
                      {"precision", f.precision},
                      {"predictor", f.predictor},
                      {"restart_rows", f.restart_rows},
                      {"bytes", f.bytes.size()},
                      {"megapixels", run.mp()},
                      {"checked_against", run.checked_against},
                      {"results", jrows},
                      {"nvjpeg", jnv}});
  }
  nlohmann::json doc = {{"benchmark", "ljpeg-decode"},
                        {"version", version()},
                        {"corpus", corpus},
                        {"runs", o.runs},
                        {"statistic", "median after one warm-up"},
                        {"threads", o.threads},
                        {"hardware_threads", hw},
                        {"devices", nlohmann::json::array()},
                        {"files", jfiles}};
  for (const auto& d : devices) doc["devices"].push_back(to_json(d));
  if (o.json_path == "-") {
    std::cout << doc.dump(2) << "\n";
  } else if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    out << doc.dump(2) << "\n";
    if (!out) throw Error(ErrorCode::InvalidArgument, "cannot write " + o.json_path);
  }
  failures.throw_if_any();
}

}  // namespace

void add_bench_ljpeg_command(CLI::App& bench, GlobalOptions& global) {
  auto o = std::make_shared<LjBenchOptions>();
  auto* cmd = bench.add_subcommand(
      "ljpeg",
      "lossless JPEG (SOF3) decode per file and device, against the CPU reference and nvJPEG\n"
      "Corpus: without DIR, made at run time from the demo photos: 16-bit gray 4096x4096 and\n"
      "2048x2048 'microscope-like' images (a photo's luminance, cubic upscale, low-amplitude\n"
      "noise), each with predictors 1 and 6, without restarts and with one restart interval\n"
      "per row; and an 8-bit RGB 2048x2048 image with predictors 1 and 6 (--quick: all\n"
      "512x512). With DIR, the lossless *.jpg files there (others are skipped with a note).\n"
      "Measured per file and device (every device found, or those -d names), the row table\n"
      "given (computed once beforehand, as a sidecar): MP/s into device memory and into host\n"
      "memory; the stages (row table, upload, residual kernel, reconstruction, unpacking,\n"
      "download) waited for one by one; for predictors 3..7 the reconstruction in both\n"
      "wavefront orders (tickets, diagonals); the row table alone (restart markers or the\n"
      "pre-pass); without a row table (into device memory) with the Huffman walk on host\n"
      "threads, on the device and by the decoder's choice (--entropy of decode), each as a\n"
      "multiple of the time with the table given; the CPU reference on 1 thread and on all\n"
      "threads; and nvJPEG's lossless\n"
      "backend where libnvjpeg loads and takes the file (predictor 1, 1 or 2 components).\n"
      "Figures are medians of --runs runs after a warm-up; ratios are the device-resident MP/s\n"
      "over the CPU reference's on 1 thread (to host) and over nvJPEG's. Every output is\n"
      "compared with the source samples (DIR: with the CPU reference) and nvJPEG's with ours;\n"
      "a mismatch or a failed measurement makes the exit status non-zero.");
  cmd->add_option("dir", o->dir, "a directory of lossless JPEG files")->type_name("DIR");
  cmd->add_flag("--quick", o->quick, "the built-in corpus at 512x512 (a run of a minute or two)");
  cmd->add_option("--runs", o->runs, "runs per measurement, after one warm-up")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--threads", o->threads,
                  "CPU threads of the devices' pre-pass (0: all; the CPU reference runs on 1 and "
                  "on all)")
      ->capture_default_str();
  cmd->add_option("--photos", o->photos, "directory of the demo photos the corpus is made from")
      ->type_name("DIR");
  cmd->add_flag("!--no-peers", o->peers, "skip nvJPEG");
  cmd->add_option("--json", o->json_path, "also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  cmd->callback([&global, o] { run_bench(global, *o); });
}

}  // namespace hetcodec::tools
