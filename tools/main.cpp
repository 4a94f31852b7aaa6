// `hetcodec`: the command-line tool. Commands register themselves from their own files; this
// file holds the global options and turns hetcodec::Error into a message and an exit code.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

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

std::vector<std::pair<std::string, std::string>> plan_jobs(const std::string& command,
                                                           const std::vector<std::string>& files,
                                                           const std::string& output_dir,
                                                           const std::string& ext) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> jobs;
  if (output_dir.empty()) {
    if (files.size() != 2)
      throw Error(ErrorCode::InvalidArgument, command + " IN OUT, or " + command +
                                                  " --output-dir DIR FILES... (got " +
                                                  std::to_string(files.size()) + " paths)");
    jobs.push_back({files[0], files[1]});
    return jobs;
  }
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (!fs::is_directory(output_dir))
    throw Error(ErrorCode::InvalidArgument, "cannot create directory " + output_dir);
  for (const auto& f : files)
    jobs.push_back({f, (fs::path(output_dir) / fs::path(f).stem()).string() + "." + ext});
  return jobs;
}

void report_batch(const char* done, std::size_t files, int failed,
                  std::chrono::steady_clock::time_point t0) {
  if (files < 2) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "%zu %s, %d failed, %.2f s\n", files - std::size_t(failed), done, failed, s);
}

std::vector<std::uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(ErrorCode::InvalidArgument, "cannot open " + path);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), {});
  if (f.bad()) throw Error(ErrorCode::InvalidArgument, "cannot read " + path);
  return bytes;
}

void write_bytes(const std::string& path, const std::string& header,
                 const std::vector<std::uint8_t>& body) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error(ErrorCode::InvalidArgument, "cannot create " + path);
  f.write(header.data(), std::streamsize(header.size()));
  f.write(reinterpret_cast<const char*>(body.data()), std::streamsize(body.size()));
  if (!f) throw Error(ErrorCode::InvalidArgument, "cannot write " + path);
}

std::string human_bytes(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ULL << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ULL << 30));
  else
    std::snprintf(buf, sizeof buf, "%.0f MiB", double(bytes) / double(1ULL << 20));
  return buf;
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
  app.add_option("-d,--device", options.devices,
                 "device spec; repeat it (or say `all`) where a command runs on several")
      ->type_name("SPEC");
  app.set_version_flag("--version", std::string(version()));
  tools::add_devices_command(app, options);
  tools::add_decode_commands(app, options);
  tools::add_encode_command(app, options);
  tools::add_bench_command(app, options);
  tools::add_corpus_command(app);
  tools::add_demo_command(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const Error& e) {
    std::cerr << "hetcodec: " << to_string(e.code()) << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hetcodec: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
