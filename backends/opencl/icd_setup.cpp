// Makes ICDs that are installed but not registered visible to the OpenCL ICD loader, without
// writing system files: the Oclgrind simulator (so any pipeline can run inside the emulator from
// the same binary) and any library listed in $HETCODEC_OPENCL_ICDS (colon-separated; e.g. a
// driver's libnvidia-opencl.so.1 on a machine whose driver left out its .icd file).
//
// How: both common loaders (ocl-icd and the Khronos loader) read the .icd files of the
// directory named by $OCL_ICD_VENDORS instead of /etc/OpenCL/vendors. We write a private
// directory under the cache directory holding the system's .icd files plus the extra ones and
// point $OCL_ICD_VENDORS at it before the first OpenCL call. A caller who set OCL_ICD_VENDORS
// to a single file or library has chosen exactly one ICD, and is left alone.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "backends/backend_util.h"
#include "backends/opencl/opencl_backend.h"
#include "core/hash.h"

namespace hetcodec::opencl {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string find_oclgrind_icd() {
  std::string forced = env("HETCODEC_OCLGRIND_ICD");
  if (!forced.empty()) return forced;
  if (env("HETCODEC_OCLGRIND") == "0") return {};
  for (const char* dir : {"/usr/lib/oclgrind", "/usr/lib/x86_64-linux-gnu/oclgrind",
                          "/usr/lib/aarch64-linux-gnu/oclgrind", "/usr/local/lib/oclgrind",
                          "/usr/local/lib", "/usr/lib"}) {
    fs::path p = fs::path(dir) / "liboclgrind-rt-icd.so";
    std::error_code ec;
    if (fs::exists(p, ec)) return p.string();
  }
  return {};
}

}  // namespace

void prepare_icd_environment(std::vector<std::string>& notes) {
  // PoCL (5.0 at least) keeps compiled variants of a kernel per specialisation (local size,
  // zero global offset or not, small grid or not) and per widest grid, and uncounts a finished
  // launch from the first variant with its kernel and local size, which may be another one: it
  // then aborts on an assertion in pocl_release_dlhandle_cache. Fewer variants make that rarer;
  // the PoCL launch guard (opencl_backend.cpp) rules it out. A caller who set the variable keeps
  // their choice.
  setenv("POCL_WORK_GROUP_SPECIALIZATION", "0", 0);
  std::string vendors = env("OCL_ICD_VENDORS");
  std::error_code ec;
  if (!vendors.empty() && !fs::is_directory(vendors, ec)) return;  // the caller chose one ICD
  fs::path system_dir = vendors.empty() ? fs::path("/etc/OpenCL/vendors") : fs::path(vendors);

  std::vector<std::pair<std::string, std::string>> icds;  // file name, library
  std::set<std::string> libraries;
  if (fs::is_directory(system_dir, ec)) {
    for (const auto& entry : fs::directory_iterator(system_dir, ec)) {
      if (entry.path().extension() != ".icd") continue;
      std::ifstream in(entry.path());
      std::string lib;
      std::getline(in, lib);
      if (lib.empty()) continue;
      icds.emplace_back(entry.path().filename().string(), lib);
      libraries.insert(lib);
    }
  }
  std::vector<std::string> extra;
  std::string grind = find_oclgrind_icd();
  if (!grind.empty()) extra.push_back(grind);
  std::stringstream list(env("HETCODEC_OPENCL_ICDS"));
  for (std::string lib; std::getline(list, lib, ':');) {
    if (!lib.empty()) extra.push_back(lib);
  }
  bool added = false;
  for (const auto& lib : extra) {
    if (libraries.insert(lib).second) {
      icds.emplace_back("hetcodec-" + fs::path(lib).stem().string() + ".icd", lib);
      added = true;
    }
  }
  if (!added) return;

  Fnv1a64 h;
  for (const auto& [file, lib] : icds) h.add(file).add(lib);
  std::string cache = cache_directory();
  if (cache.empty()) {
    notes.push_back(
        "OpenCL: no cache directory to register extra ICDs in (set HETCODEC_CACHE_DIR)");
    return;
  }
  fs::path dir = fs::path(cache) / ("icd-" + h.hex());
  if (!fs::is_directory(dir, ec)) {
    fs::path tmp = fs::path(cache) / ("icd-" + h.hex() + ".tmp" + std::to_string(getpid()));
    fs::create_directories(tmp, ec);
    for (const auto& [file, lib] : icds) std::ofstream(tmp / file) << lib << "\n";
    fs::rename(tmp, dir, ec);
    if (ec) fs::remove_all(tmp, ec);  // another process won the race: its copy is identical
  }
  if (!fs::is_directory(dir, ec)) {
    notes.push_back("OpenCL: cannot write " + dir.string() + ": extra ICDs not registered");
    return;
  }
  setenv("OCL_ICD_VENDORS", dir.c_str(), 1);
  for (const auto& lib : extra) notes.push_back("OpenCL: registered ICD " + lib);
}

}  // namespace hetcodec::opencl
