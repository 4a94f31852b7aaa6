// Copies into pinned memory that a device reads next. Ordinary stores leave the lines dirty in
// the CPU's caches, and a DMA read of such lines runs at a fraction of its speed
// (docs/png-encode.md); streaming stores write around the caches. The stores are fenced before
// the function returns, so a transfer issued after it sees them.
#ifndef HETCODEC_HOST_PINNED_COPY_H
#define HETCODEC_HOST_PINNED_COPY_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define HETCODEC_STREAMING_STORES 1
#endif

namespace hetcodec::detail {

inline void copy_to_pinned(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<std::uint8_t*>(dst);
  const auto* s = static_cast<const std::uint8_t*>(src);
#if defined(HETCODEC_STREAMING_STORES)
  if (n >= 4096) {
    const std::size_t head = (16 - (reinterpret_cast<std::uintptr_t>(d) & 15)) & 15;
    std::memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
    }
    _mm_sfence();
  }
#endif
  std::memcpy(d, s, n);
}

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_PINNED_COPY_H
