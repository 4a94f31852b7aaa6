// `hetcodec debug compare`: a pipeline run stage by stage on two devices, the first stage whose
// buffers differ named and located in the image (hetcodec/debug.h, docs/debugging.md), the
// stages of both runs optionally kept in a folder with a manifest.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <tuple>

#include "tools/cli.h"
#include "tools/decode_ljpeg.h"

namespace hetcodec::tools {
namespace {

namespace fs = std::filesystem;

std::string hex_digest(const std::vector<std::uint8_t>& bytes) {
  // FNV-1a 64: names the input in the manifest (not a security digest).
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", (unsigned long long)h);
  return text;
}

// DIR/<device spec, ':' as '-'>/: each stage's buffer as <stage>.bin, and manifest.json.
void write_dump(const StageDump& d, const fs::path& dir, const std::string& input,
                const std::vector<std::uint8_t>& bytes) {
  std::string name = d.device;
  for (char& c : name)
    if (c == ':') c = '-';
  const fs::path at = dir / name;
  fs::create_directories(at);
  nlohmann::json stages = nlohmann::json::array();
  for (const StageBuffer& s : d.stages) {
    const std::string file = s.name + ".bin";
    std::ofstream out(at / file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(s.bytes.data()), std::streamsize(s.bytes.size()));
    if (!out) throw Error(ErrorCode::InvalidArgument, "cannot write " + (at / file).string());
    stages.push_back({{"stage", s.name},
                      {"file", file},
                      {"element", s.element},
                      {"shape", s.shape},
                      {"layout", s.layout},
                      {"bytes", s.bytes.size()}});
  }
  nlohmann::json parameters = nlohmann::json::object();
  for (const auto& [key, value] : d.parameters) parameters[key] = value;
  const nlohmann::json manifest = {{"pipeline", d.pipeline},
                                   {"device", d.device},
                                   {"device_name", d.device_name},
                                   {"build", std::string("hetcodec ") + version()},
                                   {"input", input},
                                   {"input_bytes", bytes.size()},
                                   {"input_fnv1a64", hex_digest(bytes)},
                                   {"parameters", parameters},
                                   {"stages", stages}};
  std::ofstream(at / "manifest.json") << manifest.dump(1) << "\n";
}

// A dump written by write_dump: DIR/manifest.json and its stages' files.
StageDump read_dump(const fs::path& dir) {
  const fs::path file = dir / "manifest.json";
  std::ifstream in(file);
  if (!in) throw Error(ErrorCode::InvalidArgument, "no dump manifest at " + file.string());
  StageDump d;
  try {
    const nlohmann::json m = nlohmann::json::parse(in);
    d.pipeline = m.at("pipeline").get<std::string>();
    d.device = m.at("device").get<std::string>();
    d.device_name = m.value("device_name", "");
    for (const auto& [key, value] : m.at("parameters").items())
      d.parameters.emplace_back(key, value.get<std::uint64_t>());
    for (const auto& st : m.at("stages")) {
      StageBuffer b;
      b.name = st.at("stage").get<std::string>();
      b.element = st.at("element").get<std::string>();
      b.shape = st.at("shape").get<std::vector<std::uint64_t>>();
      b.layout = st.value("layout", "");
      const std::string name = st.at("file").get<std::string>();
      if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos)
        throw Error(ErrorCode::InvalidArgument, "a stage file outside the dump: " + name);
      b.bytes = read_all((dir / name).string());
      if (b.bytes.size() != st.at("bytes").get<std::uint64_t>())
        throw Error(ErrorCode::InvalidArgument,
                    "stage " + b.name + ": " + name + " holds " + std::to_string(b.bytes.size()) +
                        " bytes, the manifest says " + st.at("bytes").dump());
      d.stages.push_back(std::move(b));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::InvalidArgument, file.string() + ": " + e.what());
  }
  return d;
}

// Oclgrind's checks on for a replay on it (before its first OpenCL call; a variable the caller
// set is kept), its reports into a file of ours unless the caller named one: that file's path.
std::string oclgrind_checks_on() {
  setenv("OCLGRIND_CHECK_API", "1", 0);
  setenv("OCLGRIND_DATA_RACES", "1", 0);
  setenv("OCLGRIND_UNINITIALIZED", "1", 0);
  if (const char* given = std::getenv("OCLGRIND_LOG"); given && *given) return given;
  const std::string path =
      (fs::temp_directory_path() / ("hetcodec-replay-" + std::to_string(getpid()) + ".log"))
          .string();
  std::ofstream(path, std::ios::trunc).close();
  setenv("OCLGRIND_LOG", path.c_str(), 1);
  return path;
}

}  // namespace

void add_debug_command(CLI::App& app, GlobalOptions& options) {
  auto* debug = app.add_subcommand(
      "debug",
      "kernel debugging across devices: compare a pipeline's stages on two devices (compare), "
      "run one stage again from a dump on any device, Oclgrind included (replay)");
  debug->require_subcommand(1);
  // Not the decoding commands' footer (djpeg's exit statuses): compare and replay, which take
  // this one, say their own.
  debug->footer("");
  auto file = std::make_shared<std::string>();
  auto dump = std::make_shared<std::string>();
  auto pipeline = std::make_shared<std::string>("auto");
  auto* compare = debug->add_subcommand(
      "compare",
      "run a pipeline stage by stage on two devices and name the first stage that differs\n"
      "  Devices: the two -d given, or the CPU reference and the one -d given (default: the\n"
      "  CPU reference and auto). Each stage's buffer is waited for and read back; the first\n"
      "  stage whose bytes differ is named with where it differs in the image (component,\n"
      "  block, coefficient, row, sample or pixel) and the values on each side.\n"
      "  Exit status: 0 when every stage is equal, 1 when a stage differs, 2 on an error.\n"
      "  Pipelines (default: by the file, jpeg-decode, ljpeg-decode or png-decode):\n"
      "    jpeg-decode   a JPEG file: job, coefficients, planes, image\n"
      "    ljpeg-decode  a lossless JPEG file: file, job, residuals, row-status, samples, image\n"
      "    png-decode    a PNG file: [compressed,] job, inflated, defiltered, image\n"
      "    jpeg-encode   an image file (PNM, PAM, PNG or JPEG, 8-bit): pixels, plan, blocks,\n"
      "                  positions, packed, stuffing, file\n"
      "    png-encode    an image file: samples, filtered, plan, symbols, blocks, deflate,\n"
      "                  crcs, file (the parallel mode, --segments segments)\n"
      "    smooth, texture  an 8-bit image file: source, output\n"
      "    perlin, mandelbrot  no file (--size): output");
  auto quality = std::make_shared<int>(75);
  auto segments = std::make_shared<int>(4);
  auto size = std::make_shared<std::string>("256x256");
  compare->add_option("file", *file, "the input file (none for perlin and mandelbrot)")
      ->type_name("PATH");
  compare->add_option("--pipeline", *pipeline, "the pipeline (default: by the file)")
      ->check(CLI::IsMember({"auto", "jpeg-decode", "ljpeg-decode", "png-decode", "jpeg-encode",
                             "png-encode", "smooth", "texture", "perlin", "mandelbrot"}));
  compare->add_option("--quality", *quality, "jpeg-encode's quality (1-100, default 75)")
      ->check(CLI::Range(1, 100));
  compare->add_option("--segments", *segments, "png-encode's segments (1-4096, default 4)")
      ->check(CLI::Range(1, 4096));
  compare->add_option("--size", *size, "perlin's and mandelbrot's size (default 256x256)")
      ->type_name("WxH");
  compare->add_option("--dump", *dump,
                      "keep both runs' stages in DIR: DIR/<device>/<stage>.bin and "
                      "manifest.json (docs/debugging.md)")
      ->type_name("DIR");
  compare->callback([&options, file, dump, pipeline, quality, segments, size] {
    std::vector<std::string> specs = options.devices;
    if (specs.empty()) specs = {"auto"};
    if (specs.size() == 1) specs.insert(specs.begin(), "cpu");
    if (specs.size() != 2) {
      std::cerr << "hetcodec debug compare: two devices (-d A -d B), or one to compare with "
                   "the CPU reference\n";
      throw CLI::RuntimeError(2);
    }
    std::string name = *pipeline;
    const bool generator = name == "perlin" || name == "mandelbrot";
    if (file->empty() != generator) {
      std::cerr << "hetcodec debug compare: "
                << (generator ? name + " takes no input file (--size)\n"
                              : std::string("an input file, please\n"));
      throw CLI::RuntimeError(2);
    }
    const std::string label = generator ? name : *file;
    std::vector<StageDump> runs;
    std::optional<StageDifference> d;
    try {  // (cmp's statuses: 2 for trouble, 1 for a difference)
      std::vector<std::uint8_t> bytes;
      int width = 0, height = 0;
      if (generator) {
        char x = 0, rest = 0;
        if (std::sscanf(size->c_str(), "%d%c%d%c", &width, &x, &height, &rest) != 3 || x != 'x')
          throw Error(ErrorCode::InvalidArgument, "--size " + *size + " is not WxH");
      } else {
        bytes = read_all(*file);
      }
      if (name == "auto") {
        const FileKind kind = sniff(bytes);
        if (kind == FileKind::Png)
          name = "png-decode";
        else if (kind == FileKind::Jpeg)
          name = lossless_precision(bytes) ? "ljpeg-decode" : "jpeg-decode";
        else
          throw Error(ErrorCode::InvalidData,
                      kind_problem(bytes, "a JPEG or PNG") +
                          " (an image to encode or filter takes --pipeline)");
      }
      std::optional<Image> image;
      if (name == "jpeg-encode" || name == "png-encode" || name == "smooth" || name == "texture")
        image = read_image_file(*file, open_device("cpu"));
      for (const std::string& spec : specs) {
        auto device = open_device(spec);
        if (!options.quiet)
          std::fprintf(stderr, "%s: %s stage by stage on %s (%s)\n", label.c_str(), name.c_str(),
                       device->info().spec.c_str(), device->info().name.c_str());
        if (name == "jpeg-encode") {
          JpegEncodeOptions o;
          o.quality = *quality;
          runs.push_back(dump_jpeg_encode_stages(device, *image, o));
        } else if (name == "png-encode") {
          runs.push_back(dump_png_encode_stages(device, *image, *segments));
        } else if (name == "smooth") {
          runs.push_back(dump_smooth_stages(device, *image));
        } else if (name == "texture") {
          runs.push_back(dump_texture_stages(device, *image));
        } else if (name == "perlin") {
          runs.push_back(dump_perlin_stages(device, width, height));
        } else if (name == "mandelbrot") {
          runs.push_back(dump_mandelbrot_stages(device, width, height));
        } else if (name == "png-decode") {
          runs.push_back(dump_png_decode_stages(device, bytes.data(), bytes.size()));
        } else if (name == "ljpeg-decode") {
          runs.push_back(dump_ljpeg_decode_stages(device, bytes.data(), bytes.size()));
        } else {
          runs.push_back(dump_jpeg_decode_stages(device, bytes.data(), bytes.size()));
        }
        if (!dump->empty()) write_dump(runs.back(), *dump, label, bytes);
      }
      d = first_difference(runs[0], runs[1]);
    } catch (const Error& e) {
      std::cerr << "hetcodec debug compare: " << label << ": " << to_string(e.code()) << ": "
                << e.what() << "\n";
      throw CLI::RuntimeError(2);
    }
    const std::string a = runs[0].device, b = runs[1].device;
    if (!d) {
      std::printf("%s: every stage equal on %s and %s (", label.c_str(), a.c_str(), b.c_str());
      for (std::size_t i = 0; i < runs[0].stages.size(); ++i)
        std::printf("%s%s", i ? ", " : "", runs[0].stages[i].name.c_str());
      std::printf(")\n");
      return;
    }
    std::printf("%s: first difference in stage %s (%zu byte%s of it differ%s)\n", label.c_str(),
                d->stage.c_str(), d->differing_bytes, d->differing_bytes == 1 ? "" : "s",
                d->differing_bytes == 1 ? "s" : "");
    std::printf("  at byte %zu: %s\n", d->byte_offset, d->where.c_str());
    std::printf("  %s: %s\n  %s: %s\n", a.c_str(), d->value_a.c_str(), b.c_str(),
                d->value_b.c_str());
    bool before = true;
    for (const StageBuffer& s : runs[0].stages) {
      if (s.name == d->stage) before = false;
      if (before) std::printf("  stage %s: equal\n", s.name.c_str());
    }
    throw CLI::RuntimeError(1);
  });

  auto dir = std::make_shared<std::string>();
  auto stages = std::make_shared<std::vector<std::string>>();
  auto* replay = debug->add_subcommand(
      "replay",
      "run stages of a dump alone on a device and compare them with the dump's\n"
      "  DUMP is a folder that debug compare --dump wrote (DIR/<device>/, with manifest.json).\n"
      "  Each stage (--stage, or every device stage) runs from the dump's buffers before it\n"
      "  on the -d device (default: the dump's own) and is compared with the dump's output.\n"
      "  On Oclgrind (-d opencl:oclgrind) its API, data-race and uninitialised-value checks\n"
      "  are turned on and its reports summed up: message, kernel, first work-item, source\n"
      "  file and line, and the line itself.\n"
      "  Exit status: 0 when every stage is equal and Oclgrind reported nothing, 1 when a\n"
      "  stage differs or Oclgrind reported, 2 on an error.");
  replay->add_option("dump", *dir, "the dump's folder")->required()->type_name("DIR");
  replay->add_option("--stage", *stages, "a stage to replay (repeatable; default: all)")
      ->type_name("NAME");
  auto rows = std::make_shared<std::string>();
  replay
      ->add_option("--rows", *rows,
                   "replay only rows FIRST to LAST of the image (inclusive), where the stage "
                   "allows it (png-decode's defiltered and image of a non-interlaced image, "
                   "jpeg-decode's and ljpeg-decode's image, smooth's output); the other rows "
                   "are the dump's")
      ->type_name("FIRST-LAST");
  auto blocks = std::make_shared<std::string>();
  replay
      ->add_option("--blocks", *blocks,
                   "replay only the job's blocks FIRST to LAST (inclusive, numbered as debug "
                   "compare names them) of jpeg-decode's coefficients and planes; the other "
                   "blocks are the dump's")
      ->type_name("FIRST-LAST");
  replay->callback([&options, dir, stages, rows, blocks] {
    StageDump dump;
    ReplayCrop crop;
    std::string spec, log_path;
    std::vector<std::string> names;
    std::vector<std::pair<std::string, std::optional<StageDifference>>> results;
    std::vector<std::string> bands;  // each result's crop, in words
    try {
      dump = read_dump(*dir);
      if (options.devices.size() > 1) {
        std::cerr << "hetcodec debug replay: one device (-d), or none for the dump's own\n";
        throw CLI::RuntimeError(2);
      }
      spec = options.devices.empty() ? dump.device : options.devices[0];
      std::string lower = spec;
      for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find("oclgrind") != std::string::npos) log_path = oclgrind_checks_on();
      names = stages->empty() ? replayable_stages(dump) : *stages;
      if (names.empty())
        throw Error(ErrorCode::Unsupported, "no stage of pipeline " + dump.pipeline + " to replay");
      // FIRST-LAST (inclusive) as a first item and a count.
      auto range = [](const std::string& option, const std::string& text, std::uint64_t& first,
                      std::uint64_t& count) {
        unsigned long long a = 0, b = 0;
        char dash = 0, rest = 0;
        if (std::sscanf(text.c_str(), "%llu%c%llu%c", &a, &dash, &b, &rest) != 3 || dash != '-' ||
            b < a || b - a >= (1ull << 32))
          throw Error(ErrorCode::InvalidArgument, option + " " + text + " is not FIRST-LAST");
        first = a;
        count = b - a + 1;
      };
      if (!rows->empty()) range("--rows", *rows, crop.first_row, crop.rows);
      if (!blocks->empty()) range("--blocks", *blocks, crop.first_block, crop.blocks);
      if (!crop.whole()) {
        // Without --stage, every stage that takes a crop given; either way, each crop given
        // must be taken by a stage replayed.
        std::vector<std::string> croppable;
        bool rows_taken = false, blocks_taken = false;
        for (const std::string& n : names) {
          const std::string unit = crop_unit(dump, n);
          rows_taken |= unit == "rows";
          blocks_taken |= unit == "blocks";
          if ((unit == "rows" && crop.rows) || (unit == "blocks" && crop.blocks))
            croppable.push_back(n);
        }
        if (stages->empty()) names = croppable;
        for (const auto& [given, taken, option] :
             {std::tuple{crop.rows != 0, rows_taken, "--rows"},
              std::tuple{crop.blocks != 0, blocks_taken, "--blocks"}})
          if (given && !taken)
            throw Error(ErrorCode::Unsupported, std::string(option) + ": no stage replayed of " +
                                                    "this " + dump.pipeline +
                                                    " dump takes that crop");
      }
      auto device = open_device(spec);
      for (const std::string& name : names) {
        if (!options.quiet)
          std::fprintf(stderr, "%s: replaying %s stage %s on %s (%s)\n", dir->c_str(),
                       dump.pipeline.c_str(), name.c_str(), device->info().spec.c_str(),
                       device->info().name.c_str());
        // (the part of the crop that fits the stage: its rows or its blocks)
        ReplayCrop part = crop;
        const std::string unit = crop_unit(dump, name);
        if (unit == "rows") part.first_block = part.blocks = 0;
        if (unit == "blocks") part.first_row = part.rows = 0;
        if (part.whole()) part = crop;  // (a crop of the other kind: replay_stage refuses it)
        const StageBuffer again = replay_stage(device, dump, name, part);
        results.emplace_back(name, stage_difference(dump, again));
        bands.push_back(part.rows ? " rows " + std::to_string(part.first_row) + "-" +
                                        std::to_string(part.first_row + part.rows - 1)
                        : part.blocks ? " blocks " + std::to_string(part.first_block) + "-" +
                                            std::to_string(part.first_block + part.blocks - 1)
                                      : "");
      }
      spec = device->info().spec;
    } catch (const Error& e) {
      std::cerr << "hetcodec debug replay: " << *dir << ": " << to_string(e.code()) << ": "
                << e.what() << "\n";
      throw CLI::RuntimeError(2);
    }
    bool differ = false;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& [name, d] = results[i];
      const std::string& band = bands[i];
      if (!d) {
        std::printf("stage %s%s: equal to the dump's (%s) on %s\n", name.c_str(), band.c_str(),
                    dump.device.c_str(), spec.c_str());
        continue;
      }
      differ = true;
      std::printf("stage %s%s: differs from the dump's (%zu byte%s)\n", name.c_str(), band.c_str(),
                  d->differing_bytes, d->differing_bytes == 1 ? "" : "s");
      std::printf("  at byte %zu: %s\n", d->byte_offset, d->where.c_str());
      std::printf("  dump (%s): %s\n  replay (%s): %s\n", dump.device.c_str(), d->value_a.c_str(),
                  spec.c_str(), d->value_b.c_str());
    }
    bool reported = false;
    if (!log_path.empty()) {
      std::string text;
      if (std::ifstream in{log_path, std::ios::binary})
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      const auto reports = summarise_emulator_log(text);
      reported = !reports.empty();
      if (!reported)
        std::printf("Oclgrind: no reports (API, data-race and uninitialised checks)\n");
      for (const EmulatorReport& r : reports) {
        std::printf("Oclgrind: %s (%zu report%s)\n", r.message.c_str(), r.count,
                    r.count == 1 ? "" : "s");
        std::printf("  kernel %s, %s\n", r.kernel.empty() ? "(none)" : r.kernel.c_str(),
                    r.entity.empty() ? "no work-item" : r.entity.c_str());
        if (!r.location.empty())
          std::printf("  at %s%s%s\n", r.location.c_str(), r.source.empty() ? "" : ": ",
                      r.source.c_str());
      }
      if (log_path.find("hetcodec-replay-") != std::string::npos) fs::remove(log_path);
    }
    if (differ || reported) throw CLI::RuntimeError(1);
  });
}

}  // namespace hetcodec::tools
