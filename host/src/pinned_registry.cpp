// host/src/pinned_registry.h, and hetcodec::alloc_pinned.
#include "host/src/pinned_registry.h"

#include <map>
#include <mutex>
#include <string>

namespace hetcodec {
namespace {

struct Entry {
  const Device* device;
  std::weak_ptr<PinnedBuffer> buffer;
  std::size_t size;
};

// The live buffers by their first byte.
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<const std::uint8_t*, Entry>& registry() {
  static std::map<const std::uint8_t*, Entry> r;
  return r;
}

}  // namespace

std::shared_ptr<PinnedBuffer> alloc_pinned(const std::shared_ptr<Device>& device,
                                           std::size_t bytes) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "alloc_pinned: no device");
  if (bytes == 0) throw Error(ErrorCode::InvalidArgument, "alloc_pinned: 0 bytes");
  std::unique_ptr<PinnedBuffer> made = device->alloc_pinned(bytes);
  const std::uint8_t* at = made->data();
  // The buffer unregisters itself as it goes, and holds its device until then.
  std::shared_ptr<PinnedBuffer> buffer(made.release(), [device, at](PinnedBuffer* b) {
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      registry().erase(at);
    }
    delete b;
  });
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[at] = Entry{device.get(), buffer, bytes};
  return buffer;
}

namespace detail {

PinnedPlace find_pinned(const Device& device, const std::uint8_t* p, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& r = registry();
  auto it = r.upper_bound(p);
  if (it == r.begin()) return {};
  --it;
  const std::size_t offset = std::size_t(reinterpret_cast<std::uintptr_t>(p) -
                                         reinterpret_cast<std::uintptr_t>(it->first));
  if (it->second.device != &device || offset > it->second.size || it->second.size - offset < bytes)
    return {};
  return {it->second.buffer.lock(), offset};
}

}  // namespace detail
}  // namespace hetcodec
