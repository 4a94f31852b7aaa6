// Shared pieces of the `hetcodec` command-line tool: options every command sees, and the
// functions that register each command with CLI11.
#ifndef HETCODEC_TOOLS_CLI_H
#define HETCODEC_TOOLS_CLI_H

#include <CLI/CLI.hpp>
#include <chrono>
#include <utility>
#include <nlohmann/json.hpp>
#include <optional>
#include <filesystem>
#include <string>
#include <vector>

// The tool is part of the project: besides the public API it reaches the backend interface
// (`bench transfer` drives queues and buffers itself).
#include "backends/backend.h"
#include "hetcodec/hetcodec.h"

namespace hetcodec::tools {

// Options every command accepts, before or after its name (`hetcodec -d cpu decode ...` and
// `hetcodec decode -d cpu ...` are the same).
struct GlobalOptions {
  std::vector<std::string> devices;  // --device, repeatable; empty: $HETCODEC_DEVICE or auto
  bool quiet = false;                // --quiet: no progress output
  bool fallback_cpu = false;         // --fallback-cpu: the CPU reference if the device is absent
  bool strict = false;               // --strict: a warning fails the file (as djpeg -strict)
  std::uint64_t device_memory = 0;   // --device-memory: limit_device_memory(), 0 none
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

// The device of a one-device command; with --fallback-cpu, the CPU reference (and a note on
// stderr) when the device selected is absent or fails to open. --device-memory limits the device
// selected (not the CPU reference fallen back to).
std::shared_ptr<Device> open_selected_device(const GlobalOptions& g, const std::string& command);

nlohmann::json to_json(const DeviceInfo& info);

// One file of a file command; "-" is standard input or output.
struct FileJob {
  std::string input, output;
  bool output_by_image = false;  // `output` lacks its extension, chosen per image
};
// Input and output paths of a file command: `IN OUT` (two files), or, with `output_dir`, every
// file to DIR/<name without extension>.<ext> (the directory is created; an empty `ext`: chosen
// per image, FileJob::output_by_image). Inputs whose names meet keep their extension in the
// output name (x.jpg.<ext>, x.png.<ext>), so no output is written twice. Error(InvalidArgument)
// for anything else, naming `command`, and for an output that is its own input.
std::vector<FileJob> plan_jobs(const std::string& command, const std::vector<std::string>& files,
                               const std::string& output_dir, const std::string& ext);
// "[i+1/n] " before the lines about file i of a run of n > 1 files; nothing for one file.
std::string progress_of(std::size_t i, std::size_t n);
// "N <done>, M failed, T s" on stderr after a run of several files started at `t0`.
void report_batch(const char* done, std::size_t files, int failed,
                  std::chrono::steady_clock::time_point t0);

// A whole file ("-": standard input), or Error(InvalidArgument) naming it and saying why (a
// directory, missing, unreadable).
std::vector<std::uint8_t> read_all(const std::string& path);
// The demo photos' directory: `given`, else beside an installed binary
// (<prefix>/share/hetcodec/demo-images), else the source tree's. Error(InvalidArgument) naming
// `who` and the `option` that gives one where none is found (cmd_demo.cpp).
std::filesystem::path demo_images_dir(const std::string& given, const std::string& who,
                                      const std::string& option);
// `header` then `body` to a new file ("-": standard output), or Error(InvalidArgument) naming
// it.
void write_bytes(const std::string& path, const std::string& header,
                 const std::vector<std::uint8_t>& body);
std::string human_bytes(std::uint64_t bytes);

// What a file is, by its first bytes (Netpbm: P1 to P7; the tool reads P5, P6 and P7 images).
enum class FileKind { Empty, Jpeg, Png, Netpbm, Unknown };
FileKind sniff(const std::vector<std::uint8_t>& bytes);
// Why a file of the wrong kind is refused: "empty file", or "not <expected> file", with what it
// is when its bytes say (an ELF executable, a GIF image, ...). `expected`: "a JPEG or PNG".
std::string kind_problem(const std::vector<std::uint8_t>& bytes, const std::string& expected);
// CMYK samples (Adobe's inverted CMYK) as RGB, the way djpeg writes a CMYK JPEG as PPM.
std::vector<std::uint8_t> cmyk_as_rgb(const Image& img);
// djpeg's exit status: 1 when a file failed, else 2 when one decoded with warnings, else 0.
int exit_status(int failed, int warned);

void add_devices_command(CLI::App& app, GlobalOptions& options);
void add_bench_command(CLI::App& app, GlobalOptions& options);
void add_bench_jpeg_command(CLI::App& bench, GlobalOptions& options);
void add_decode_commands(CLI::App& app, GlobalOptions& options);
void add_info_command(CLI::App& app);
void add_encode_command(CLI::App& app, GlobalOptions& options);
void add_transcode_command(CLI::App& app, GlobalOptions& options);
void add_debug_command(CLI::App& app, GlobalOptions& options);
void add_bench_jpeg_encode_command(CLI::App& bench, GlobalOptions& options);
void add_bench_png_command(CLI::App& bench, GlobalOptions& options);
void add_bench_png_decode_command(CLI::App& bench, GlobalOptions& options);
void add_bench_ljpeg_command(CLI::App& bench, GlobalOptions& options);
void add_bench_filters_command(CLI::App& bench, GlobalOptions& options);

// An image file as PNG samples: PGM/PPM/PAM (maxval 255 or 65535), PNG (expanded to 8 or 16
// bits without a palette) or JPEG (decoded on `device`). Error(InvalidData) naming the file.
// A CMYK image (a JPEG or a PAM of TUPLTYPE CMYK) comes as RGB, converted as djpeg writes CMYK
// as PPM, with a line in `notes`. Warnings stay in Image::warnings for the caller to report.
// `png_layout`, when given, gets a PNG input's stored layout (PngDecoder::layout), and is left
// alone for the others. With `keep_cmyk`, CMYK comes as CMYK (for a caller that refuses it).
Image read_image_file(const std::string& path, const std::shared_ptr<Device>& device,
                      std::vector<std::string>* notes = nullptr,
                      std::optional<PngLayout>* png_layout = nullptr, bool keep_cmyk = false);
// Why an image of format `pf` cannot be written as `format` (pam, png, pnm, ppm, pgm), or ""
// when it can (tools/cmd_decode.cpp).
std::string format_problem(PixelFormat pf, const std::string& format);
// Writes an image as `format` (checked with format_problem first), as `decode` writes it:
// `from_png` a PNG's samples (our encoder for .png), `precision` a lossless or 12-bit JPEG's
// sample bits (0 otherwise), `device` the device of that encoder.
void write_image(const Image& img, bool from_png, int precision, const std::string& format,
                 const std::string& path, const std::shared_ptr<Device>& device);
void add_corpus_command(CLI::App& app);
// `filter smooth|texture` and `generate perlin|mandelbrot` (tools/cmd_filter.cpp).
void add_filter_commands(CLI::App& app, GlobalOptions& options);
// transcode's --filter NAME[:VALUE]: smooth[:factor] (3 by default) or texture[:octaves] (8).
// Error(InvalidArgument) naming the value for an unknown name or a bad value.
struct FilterSpec {
  std::string name;
  double value = 0;
};
FilterSpec parse_filter_spec(const std::string& spec);
void apply_filter_spec(const std::string& spec, Filters& filters, DeviceImage& image);
void add_demo_command(CLI::App& app, GlobalOptions& options);

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_CLI_H
