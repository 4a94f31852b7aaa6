// A 64-bit FNV-1a hash, used for cache keys (OpenCL program binaries). Not cryptographic: a
// collision only costs a rebuild, because a cached binary that fails to load is rebuilt.
#ifndef HETCODEC_CORE_HASH_H
#define HETCODEC_CORE_HASH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hetcodec {

class Fnv1a64 {
 public:
  Fnv1a64& add(const void* data, std::size_t size);
  // Adds the text and a separator, so ("ab","c") and ("a","bc") hash differently.
  Fnv1a64& add(std::string_view text);
  std::uint64_t value() const { return state_; }
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace hetcodec

#endif  // HETCODEC_CORE_HASH_H
