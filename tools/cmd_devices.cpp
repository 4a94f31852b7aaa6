// `hetcodec devices [--json] [--kernels]`: every device the registry finds, and which one `auto`
// picks; or the kernels the selected OpenCL devices build.
#include <cstdio>
#include <iostream>

#include "tools/cli.h"

namespace hetcodec::tools {

void add_devices_command(CLI::App& app, GlobalOptions& options) {
  auto* cmd = app.add_subcommand("devices", "list the devices hetcodec can run on");
  auto* json = cmd->add_flag("--json", "print JSON instead of a table");
  auto* kernels = cmd->add_flag(
      "--kernels",
      "instead, build the programs of the devices selected and print their kernels, a line\n"
      "each: SPEC NAME (OpenCL devices; the CUDA kernels are in the library's cubins:\n"
      "cuobjdump -symbols)");
  cmd->callback([json, kernels, &options] {
    // With --device, list only the devices the specs select (a quick way to check a spec).
    std::vector<DeviceInfo> devices =
        options.devices.empty() ? list_devices() : selected_devices(options);
    if (*kernels) {
      for (const auto& d : devices)
        for (const std::string& name : open_device(d.spec)->kernel_names())
          std::printf("%s %s\n", d.spec.c_str(), name.c_str());
      return;
    }
    const std::string auto_spec = auto_device().spec;
    if (*json) {
      nlohmann::json out = {{"auto", auto_spec},
                            {"devices", nlohmann::json::array()},
                            {"notes", enumeration_notes()}};
      for (const auto& d : devices) out["devices"].push_back(to_json(d));
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::printf("  %-9s %-6s %-40s %-26s %9s %4s  %s\n", "spec", "kind", "name", "platform",
                "memory", "CUs", "driver");
    for (const auto& d : devices) {
      const char* mark = d.spec == auto_spec ? "*" : (d.is_emulator ? "e" : " ");
      std::printf("%s %-9s %-6s %-40.40s %-26.26s %9s %4d  %s\n", mark, d.spec.c_str(),
                  to_string(d.kind), d.name.c_str(), d.platform.c_str(),
                  human_bytes(d.memory_bytes).c_str(), d.compute_units, d.driver.c_str());
    }
    std::printf("(* the device `auto` picks; e an emulator, never picked by auto)\n");
    for (const auto& n : enumeration_notes()) std::printf("note: %s\n", n.c_str());
  });
}

}  // namespace hetcodec::tools
