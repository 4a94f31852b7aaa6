// OpenCL programs built on first use, their binaries cached on disk (DESIGN.md §2), keyed by a
// hash of the source, the build options, the device name and the driver and platform versions,
// so a driver update or a kernel change never loads a stale binary. A cached binary that fails
// to load or build is ignored and the source is built again.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"
#include "core/hash.h"

namespace hetcodec::opencl {
namespace fs = std::filesystem;
namespace {

std::string cache_key(const cl::Device& device, const std::string& source,
                      const std::string& options) {
  cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  Fnv1a64 h;
  h.add(source)
      .add(options)
      .add(device.getInfo<CL_DEVICE_NAME>())
      .add(device.getInfo<CL_DRIVER_VERSION>())
      .add(device.getInfo<CL_DEVICE_VERSION>())
      .add(platform.getInfo<CL_PLATFORM_NAME>())
      .add(platform.getInfo<CL_PLATFORM_VERSION>());
  return h.hex();
}

std::string build_log(const cl::Program& program, const cl::Device& device) {
  std::string log;
  program.getBuildInfo(device, CL_PROGRAM_BUILD_LOG, &log);
  return log;
}

bool try_binary(const cl::Context& context, const cl::Device& device, const fs::path& file,
                const std::string& options, cl::Program& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (bytes.empty()) return false;
  cl_int err = CL_SUCCESS;
  std::vector<cl_int> status;
  cl::Program program(context, {device}, cl::Program::Binaries{bytes}, &status, &err);
  if (err != CL_SUCCESS || program.build({device}, options.c_str()) != CL_SUCCESS) return false;
  out = program;
  return true;
}

void store_binary(const cl::Program& program, const fs::path& file) {
  cl_int err = CL_SUCCESS;
  auto binaries = program.getInfo<CL_PROGRAM_BINARIES>(&err);
  if (err != CL_SUCCESS || binaries.size() != 1 || binaries[0].empty()) return;
  // Write then rename, so a concurrent reader never sees half a file. Failing to cache is not
  // an error: the next process builds from source again.
  fs::path tmp = file;
  tmp += ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(binaries[0].data()),
              std::streamsize(binaries[0].size()));
    if (!out) return;
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace

cl::Program build_cached(const cl::Context& context, const cl::Device& device,
                         const std::string& name, const std::string& source,
                         const std::string& options) {
  fs::path file;
  std::string dir = cache_directory();
  std::error_code ec;
  if (!dir.empty()) {
    fs::create_directories(fs::path(dir) / "opencl", ec);
    file = fs::path(dir) / "opencl" / (name + "-" + cache_key(device, source, options) + ".bin");
    cl::Program cached;
    if (try_binary(context, device, file, options, cached)) return cached;
  }
  cl_int err = CL_SUCCESS;
  cl::Program program(context, source, false, &err);
  HC_CL_CHECK_ERR(err, "clCreateProgramWithSource");
  err = program.build({device}, options.c_str());
  if (err != CL_SUCCESS) {
    throw Error(ErrorCode::DeviceError,
                "opencl: building program '" + name + "' for " + device.getInfo<CL_DEVICE_NAME>() +
                    " failed: " + error_name(err) + "\n" + build_log(program, device));
  }
  if (!file.empty()) store_binary(program, file);
  return program;
}

}  // namespace hetcodec::opencl
