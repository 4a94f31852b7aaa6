// `hetcodec debug compare`: a pipeline run stage by stage on two devices, the first stage whose
// buffers differ named and located in the image (hetcodec/debug.h, docs/debugging.md), the
// stages of both runs optionally kept in a folder with a manifest.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "tools/cli.h"

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
  const nlohmann::json manifest = {{"pipeline", d.pipeline},
                                   {"device", d.device},
                                   {"device_name", d.device_name},
                                   {"build", std::string("hetcodec ") + version()},
                                   {"input", input},
                                   {"input_bytes", bytes.size()},
                                   {"input_fnv1a64", hex_digest(bytes)},
                                   {"stages", stages}};
  std::ofstream(at / "manifest.json") << manifest.dump(1) << "\n";
}

}  // namespace

void add_debug_command(CLI::App& app, GlobalOptions& options) {
  auto* debug = app.add_subcommand(
      "debug", "kernel debugging across devices: compare a pipeline's stages on two devices");
  debug->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto dump = std::make_shared<std::string>();
  auto pipeline = std::make_shared<std::string>("jpeg-decode");
  auto* compare = debug->add_subcommand(
      "compare",
      "run a pipeline stage by stage on two devices and name the first stage that differs\n"
      "  Devices: the two -d given, or the CPU reference and the one -d given (default: the\n"
      "  CPU reference and auto). Each stage's buffer is waited for and read back; the first\n"
      "  stage whose bytes differ is named with where it differs in the image (component,\n"
      "  block, coefficient, sample or pixel) and the values on each side.\n"
      "  Exit status: 0 when every stage is equal, 1 when a stage differs, 2 on an error.\n"
      "  Pipelines: jpeg-decode (stages job, coefficients, planes, image).");
  compare->add_option("file", *file, "the input file")->required()->type_name("PATH");
  compare->add_option("--pipeline", *pipeline, "the pipeline (jpeg-decode)")
      ->check(CLI::IsMember({"jpeg-decode"}));
  compare->add_option("--dump", *dump,
                      "keep both runs' stages in DIR: DIR/<device>/<stage>.bin and "
                      "manifest.json (docs/debugging.md)")
      ->type_name("DIR");
  compare->callback([&options, file, dump] {
    std::vector<std::string> specs = options.devices;
    if (specs.empty()) specs = {"auto"};
    if (specs.size() == 1) specs.insert(specs.begin(), "cpu");
    if (specs.size() != 2) {
      std::cerr << "hetcodec debug compare: two devices (-d A -d B), or one to compare with "
                   "the CPU reference\n";
      throw CLI::RuntimeError(2);
    }
    std::vector<StageDump> runs;
    std::optional<StageDifference> d;
    try {  // (cmp's statuses: 2 for trouble, 1 for a difference)
      const std::vector<std::uint8_t> bytes = read_all(*file);
      for (const std::string& spec : specs) {
        auto device = open_device(spec);
        if (!options.quiet)
          std::fprintf(stderr, "%s: jpeg-decode stage by stage on %s (%s)\n", file->c_str(),
                       device->info().spec.c_str(), device->info().name.c_str());
        runs.push_back(dump_jpeg_decode_stages(device, bytes.data(), bytes.size()));
        if (!dump->empty()) write_dump(runs.back(), *dump, *file, bytes);
      }
      d = first_difference(runs[0], runs[1]);
    } catch (const Error& e) {
      std::cerr << "hetcodec debug compare: " << *file << ": " << to_string(e.code()) << ": "
                << e.what() << "\n";
      throw CLI::RuntimeError(2);
    }
    const std::string a = runs[0].device, b = runs[1].device;
    if (!d) {
      std::printf("%s: every stage equal on %s and %s (", file->c_str(), a.c_str(), b.c_str());
      for (std::size_t i = 0; i < runs[0].stages.size(); ++i)
        std::printf("%s%s", i ? ", " : "", runs[0].stages[i].name.c_str());
      std::printf(")\n");
      return;
    }
    std::printf("%s: first difference in stage %s (%zu byte%s of it differ%s)\n", file->c_str(),
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
}

}  // namespace hetcodec::tools
