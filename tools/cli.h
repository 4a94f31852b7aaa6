// Shared pieces of the `hetcodec` command-line tool: options every command sees, and the
// functions that register each command with CLI11.
#ifndef HETCODEC_TOOLS_CLI_H
#define HETCODEC_TOOLS_CLI_H

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetcodec/hetcodec.h"

namespace hetcodec::tools {

struct GlobalOptions {
  std::vector<std::string> devices;  // --device, repeatable; empty: $HETCODEC_DEVICE or auto
};

// The devices the options select: each --device spec ("all" = every device except emulators),
// or the default device. Throws Error(InvalidArgument) for a spec that matches nothing.
std::vector<DeviceInfo> selected_devices(const GlobalOptions& options);

nlohmann::json to_json(const DeviceInfo& info);
std::string human_bytes(std::uint64_t bytes);

void add_devices_command(CLI::App& app, GlobalOptions& options);
void add_bench_command(CLI::App& app, GlobalOptions& options);
void add_bench_jpeg_command(CLI::App& bench, GlobalOptions& options);
void add_decode_commands(CLI::App& app, GlobalOptions& options);
void add_corpus_command(CLI::App& app);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_CLI_H
