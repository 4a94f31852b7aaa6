// Shared pieces of the `hetcodec` command-line tool: options every command sees, and the
// functions that register each command with CLI11.
#ifndef HETCODEC_TOOLS_CLI_H
#define HETCODEC_TOOLS_CLI_H

#include <CLI/CLI.hpp>
#include <chrono>
#include <utility>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// The tool is part of the project: besides the public API it reaches the backend interface
// (`bench transfer` drives queues and buffers itself).
#include "backends/backend.h"
#include "hetcodec/hetcodec.h"

namespace hetcodec::tools {

struct GlobalOptions {
  std::vector<std::string> devices;  // --device, repeatable; empty: $HETCODEC_DEVICE or auto
};

// The one reading of --device for every command: the devices the options select, each spec
// resolved ("all" = every device except emulators), each device once, or the default device
// when none is given.
// Throws Error(InvalidArgument) for a spec that matches nothing.
std::vector<DeviceInfo> selected_devices(const GlobalOptions& options);
// For a command that runs on one device: the one the options select, or Error(InvalidArgument)
// naming `command` when they select several (several specs, or `all` on a machine with several
// devices), never a silent first pick.
DeviceInfo single_device(const GlobalOptions& options, const std::string& command);

nlohmann::json to_json(const DeviceInfo& info);
// Input and output paths of a file command: `IN OUT` (two files), or, with `output_dir`, every
// file to DIR/<name without extension>.<ext> (the directory is created). Error(InvalidArgument)
// for anything else, naming `command`.
std::vector<std::pair<std::string, std::string>> plan_jobs(const std::string& command,
                                                           const std::vector<std::string>& files,
                                                           const std::string& output_dir,
                                                           const std::string& ext);
// "N <done>, M failed, T s" on stderr after a run of several files started at `t0`.
void report_batch(const char* done, std::size_t files, int failed,
                  std::chrono::steady_clock::time_point t0);

// A whole file, or Error(InvalidArgument) naming it.
std::vector<std::uint8_t> read_all(const std::string& path);
// `header` then `body` to a new file, or Error(InvalidArgument) naming it.
void write_bytes(const std::string& path, const std::string& header,
                 const std::vector<std::uint8_t>& body);
std::string human_bytes(std::uint64_t bytes);

void add_devices_command(CLI::App& app, GlobalOptions& options);
void add_bench_command(CLI::App& app, GlobalOptions& options);
void add_bench_jpeg_command(CLI::App& bench, GlobalOptions& options);
void add_decode_commands(CLI::App& app, GlobalOptions& options);
void add_encode_command(CLI::App& app, GlobalOptions& options);
void add_bench_png_command(CLI::App& bench, GlobalOptions& options);
void add_bench_png_decode_command(CLI::App& bench, GlobalOptions& options);

// An image file as PNG samples: PGM/PPM/PAM (maxval 255 or 65535), PNG (expanded to 8 or 16
// bits without a palette) or JPEG (decoded on `device`). Error(InvalidData) naming the file.
Image read_image_file(const std::string& path, const std::shared_ptr<Device>& device);
void add_corpus_command(CLI::App& app);
void add_demo_command(CLI::App& app, GlobalOptions& options);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_CLI_H
