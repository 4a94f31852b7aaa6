// Device registry and selection (DESIGN.md §2): enumerates the CPU reference, every CUDA device
// and every OpenCL device once per process, resolves device specs, opens devices on demand.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>

#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#ifdef HETCODEC_HAVE_CUDA
#include "backends/cuda/cuda_backend.h"
#endif
#ifdef HETCODEC_HAVE_OPENCL
#include "backends/opencl/opencl_backend.h"
#endif

namespace hetcodec {
namespace {

struct Entry {
  DeviceInfo info;
  std::function<std::shared_ptr<Device>()> open;
};

struct Registry {
  std::vector<Entry> entries;
  std::vector<DeviceInfo> infos;
  std::vector<std::string> notes;
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Device>> opened;

  Registry() {
    DeviceInfo cpu_info = cpu::device_info();
    entries.push_back({cpu_info, [cpu_info] { return cpu::open_device(cpu_info); }});
#ifdef HETCODEC_HAVE_CUDA
    for (const DeviceInfo& info : cuda::enumerate(notes)) {
      int ordinal = std::atoi(info.spec.c_str() + 5);
      entries.push_back({info, [info, ordinal] { return cuda::open_device(info, ordinal); }});
    }
#else
    notes.push_back("CUDA: backend not built (no nvcc when hetcodec was configured)");
#endif
#ifdef HETCODEC_HAVE_OPENCL
    opencl::prepare_icd_environment(notes);
    for (auto& [info, device] : opencl::enumerate(notes)) {
      entries.push_back({info, [info = info, device = device] {
                           return std::make_shared<opencl::ClDevice>(info, device);
                         }});
    }
#else
    notes.push_back("OpenCL: backend not built (no OpenCL headers when hetcodec was configured)");
#endif
    for (const auto& e : entries) infos.push_back(e.info);
  }
};

// Never destroyed: opened devices hold OpenCL contexts and CUDA streams, and releasing those from
// a static destructor at exit runs after the runtimes' own thread-local state is gone (Oclgrind
// corrupts its heap that way). The OS reclaims everything at exit.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool parse_index(const std::string& s, std::size_t& out) {
  if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), ::isdigit)) return false;
  out = std::stoul(s);
  return true;
}

std::string device_list() {
  std::string text;
  for (const auto& d : registry().infos)
    text += "\n  " + d.spec + "  " + d.name + " [" + d.platform + "]";
  for (const auto& n : registry().notes) text += "\n  (" + n + ")";
  return text;
}

[[noreturn]] void no_match(const std::string& spec, const std::string& why) {
  throw Error(ErrorCode::InvalidArgument,
              "device spec '" + spec + "': " + why + "; devices here:" + device_list());
}

const Entry* find(const std::string& spec_in) {
  auto& entries = registry().entries;
  std::string spec = lower(spec_in);
  if (spec == "cpu") return &entries.front();
  auto of_kind = [&](DeviceKind kind) {
    std::vector<const Entry*> v;
    for (const auto& e : entries)
      if (e.info.kind == kind) v.push_back(&e);
    return v;
  };
  if (spec == "auto") {
    auto cuda = of_kind(DeviceKind::Cuda);
    if (!cuda.empty()) return cuda.front();
    auto ocl = of_kind(DeviceKind::OpenCL);
    for (auto* e : ocl)
      if (e->info.is_gpu && !e->info.is_emulator) return e;
    for (auto* e : ocl)
      if (!e->info.is_emulator) return e;
    return &entries.front();
  }
  std::string head = spec.substr(0, spec.find(':'));
  std::string rest = spec.size() > head.size() ? spec.substr(head.size() + 1) : "";
  if (head == "cuda") {
    auto cuda = of_kind(DeviceKind::Cuda);
    std::size_t n = 0;
    if (!rest.empty() && !parse_index(rest, n)) no_match(spec_in, "expected cuda or cuda:N");
    if (n >= cuda.size())
      no_match(spec_in, "there are " + std::to_string(cuda.size()) + " CUDA devices");
    return cuda[n];
  }
  if (head == "opencl") {
    auto ocl = of_kind(DeviceKind::OpenCL);
    std::size_t n = 0;
    if (rest.empty()) {  // the OpenCL device auto would pick among OpenCL devices
      for (auto* e : ocl)
        if (e->info.is_gpu && !e->info.is_emulator) return e;
      for (auto* e : ocl)
        if (!e->info.is_emulator) return e;
      if (!ocl.empty()) return ocl.front();
      no_match(spec_in, "there is no OpenCL device");
    }
    if (parse_index(rest, n)) {
      if (n >= ocl.size())
        no_match(spec_in, "there are " + std::to_string(ocl.size()) + " OpenCL devices");
      return ocl[n];
    }
    // opencl:<substring>[:N] matching platform, device, vendor or driver name.
    std::string needle = rest;
    auto colon = rest.rfind(':');
    if (colon != std::string::npos && parse_index(rest.substr(colon + 1), n))
      needle = rest.substr(0, colon);
    else
      n = 0;
    std::vector<const Entry*> hits;
    for (auto* e : ocl) {
      const auto& i = e->info;
      // The driver text carries short names the platform name lacks ("PoCL").
      if (lower(i.platform + "\n" + i.name + "\n" + i.vendor + "\n" + i.driver).find(needle) !=
          std::string::npos) {
        hits.push_back(e);
      }
    }
    if (n >= hits.size()) {
      no_match(spec_in, std::to_string(hits.size()) + " OpenCL devices match '" + needle + "'");
    }
    return hits[n];
  }
  no_match(spec_in, "expected auto, cpu, cuda[:N], opencl[:N] or opencl:<name>[:N]");
}

}  // namespace

const char* to_string(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Cpu:
      return "cpu";
    case DeviceKind::Cuda:
      return "cuda";
    case DeviceKind::OpenCL:
      return "opencl";
  }
  return "?";
}

const std::vector<DeviceInfo>& list_devices() { return registry().infos; }

const std::vector<std::string>& enumeration_notes() { return registry().notes; }

const DeviceInfo& auto_device() { return find("auto")->info; }

const DeviceInfo& resolve_device(const std::string& spec) {
  std::string s = spec;
  if (s.empty()) {
    const char* env = std::getenv("HETCODEC_DEVICE");
    s = env && *env ? env : "auto";
  }
  return find(s)->info;
}

std::shared_ptr<Device> open_device(const std::string& spec) {
  const DeviceInfo& info = resolve_device(spec);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.opened.find(info.spec);
  if (it != r.opened.end()) return it->second;
  for (const auto& e : r.entries) {
    if (e.info.spec == info.spec) return r.opened[info.spec] = e.open();
  }
  throw Error(ErrorCode::InvalidArgument, "device '" + info.spec + "' vanished");
}

}  // namespace hetcodec
