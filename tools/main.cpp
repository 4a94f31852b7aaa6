// `hetcodec`: the command-line tool. Commands register themselves from their own files; this
// file holds the global options and turns hetcodec::Error into a message and an exit code.
#include <cstdio>
#include <iostream>

#include "tools/cli.h"

namespace hetcodec::tools {

std::vector<DeviceInfo> selected_devices(const GlobalOptions& options) {
  std::vector<DeviceInfo> out;
  if (options.devices.empty()) {
    out.push_back(resolve_device(""));
    return out;
  }
  // Each device once, however many specs name it.
  auto add = [&out](const DeviceInfo& d) {
    for (const auto& o : out)
      if (o.spec == d.spec) return;
    out.push_back(d);
  };
  for (const auto& spec : options.devices) {
    if (spec == "all") {
      for (const auto& d : list_devices()) {
        if (!d.is_emulator) add(d);
      }
    } else {
      add(resolve_device(spec));
    }
  }
  return out;
}

DeviceInfo single_device(const GlobalOptions& options, const std::string& command) {
  const std::vector<DeviceInfo> devices = selected_devices(options);
  if (devices.size() == 1) return devices[0];
  std::string specs;
  for (const auto& d : devices) specs += (specs.empty() ? "" : ", ") + d.spec;
  throw Error(ErrorCode::InvalidArgument, command + " runs on one device; --device selects " +
                                              std::to_string(devices.size()) + " (" + specs +
                                              "): give one spec");
}

nlohmann::json to_json(const DeviceInfo& d) {
  return {{"spec", d.spec},
          {"kind", to_string(d.kind)},
          {"name", d.name},
          {"vendor", d.vendor},
          {"platform", d.platform},
          {"driver", d.driver},
          {"memory_bytes", d.memory_bytes},
          {"max_alloc_bytes", d.max_alloc_bytes},
          {"compute_units", d.compute_units},
          {"gpu", d.is_gpu},
          {"emulator", d.is_emulator}};
}

}  // namespace hetcodec::tools

int main(int argc, char** argv) {
  using namespace hetcodec;
  CLI::App app{
      "hetcodec " + std::string(version()) +
      ": image codecs on a CUDA GPU, any OpenCL device, or the CPU reference.\n\n"
      "Device specs (--device, or the HETCODEC_DEVICE variable): auto (CUDA, then an OpenCL GPU,\n"
      "then an OpenCL CPU device, then the CPU reference), cpu, cuda, cuda:N, opencl, opencl:N,\n"
      "opencl:<platform or device name substring>[:N] (e.g. opencl:nvidia, opencl:pocl,\n"
      "opencl:oclgrind). `hetcodec devices` lists what this machine has."};
  app.require_subcommand(1);
  tools::GlobalOptions options;
  // The global options are accepted after the command's name too: its subcommands pass what
  // they do not know to the app (fallthrough is inherited by subcommands added later).
  app.fallthrough();
  app.add_option("-d,--device", options.devices,
                 "device spec; repeat it (or say `all`) where a command runs on several")
      ->type_name("SPEC")
      ->allow_extra_args(false);  // one spec per -d: `-d cpu IN OUT` leaves IN OUT alone
  app.add_flag("-q,--quiet", options.quiet, "no progress output (errors and warnings still)");
  app.add_flag("--fallback-cpu", options.fallback_cpu,
               "use the CPU reference when the device selected is absent or cannot be opened, "
               "and (decode) for a file the device runs out of memory on");
  app.add_option("--device-memory", options.device_memory,
                 "the most device memory the command's buffers may hold at once (bytes, or with "
                 "a unit: 512MiB, 2G); past it a file fails with OutOfMemory, as on a full "
                 "device (default: no limit; also $HETCODEC_DEVICE_MEMORY)")
      ->type_name("SIZE")
      ->transform(CLI::AsSizeValue(false));
  app.add_flag("--strict", options.strict,
               "a warning (corrupt but decodable data) fails the file, as djpeg -strict");
  app.footer(
      "Exit status, as djpeg's: 0 when every file was clean, 2 when one decoded with warnings\n"
      "(corrupt data that libjpeg-turbo or libpng also decodes with a warning), 1 when one "
      "failed.");
  app.set_version_flag("--version", std::string(version()));
  tools::add_devices_command(app, options);
  tools::add_decode_commands(app, options);
  tools::add_info_command(app);
  tools::add_encode_command(app, options);
  tools::add_transcode_command(app, options);
  tools::add_filter_commands(app, options);
  tools::add_bench_command(app, options);
  tools::add_corpus_command(app);
  tools::add_demo_command(app, options);
  tools::add_debug_command(app, options);
  // `hetcodec --help` lists each command on a line or two; the rest of its description (usage
  // lines, details) is shown by `hetcodec COMMAND --help`, after its options.
  for (CLI::App* sub : app.get_subcommands({})) {
    const std::string text = sub->get_description();
    const auto cut = text.find('\n');
    if (cut == std::string::npos) continue;
    const std::string first = text.substr(0, cut), rest = text.substr(cut + 1);
    sub->description(first);
    sub->footer(rest + (sub->get_footer().empty() ? "" : "\n" + sub->get_footer()));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A command line CLI11 refuses (an unknown option, a value out of range: its codes are
    // 100 and up) fails as any other failure does, with status 1, as cjpeg's and djpeg's usage
    // errors do; --help and --version exit 0, and commands' own statuses (2) pass through.
    const int rc = app.exit(e);
    return rc >= 100 ? 1 : rc;
  } catch (const Error& e) {
    std::cerr << "hetcodec: " << to_string(e.code()) << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hetcodec: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
