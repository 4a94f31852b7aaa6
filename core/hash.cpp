// FNV-1a, 64-bit (Fowler, Noll, Vo).
#include "core/hash.h"

#include <cstdio>

namespace hetcodec {

Fnv1a64& Fnv1a64::add(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    state_ ^= p[i];
    state_ *= 0x100000001b3ULL;
  }
  return *this;
}

Fnv1a64& Fnv1a64::add(std::string_view text) {
  add(text.data(), text.size());
  const unsigned char sep = 0xff;  // never appears in UTF-8 text
  return add(&sep, 1);
}

std::string Fnv1a64::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(state_));
  return buf;
}

}  // namespace hetcodec
