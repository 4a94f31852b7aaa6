// The Huffman decoding tables of a JPEG scan: T.81 Annex C (code sizes and codes) and F.2.2.3
// (MAXCODE, VALPTR), with a lookahead table as libjpeg's jdhuff.c builds it, extended so that an
// entry also decodes the magnitude bits when they fit (HuffmanLookup in entropy.h).
#include <array>
#include <vector>

#include "core/jpeg/entropy_parts.h"

namespace hetcodec::jpeg {
namespace {

HuffmanLookup derive(const HuffmanTable& t, bool ac) {
  HuffmanLookup d;
  constexpr int kBits = HuffmanLookup::kBits;
  std::uint8_t size[257];
  std::uint32_t code_of[257];
  huffman_codes(t, size, code_of);
  int p = 0;
  for (int l = 1; l <= 16; ++l) {
    if (t.counts[l]) {
      d.valoffset[l] = p - std::int32_t(code_of[p]);
      p += t.counts[l];
      d.maxcode[l] = std::int32_t(code_of[p - 1]);
    } else {
      d.maxcode[l] = -1;
    }
  }
  d.maxcode[17] = 0xFFFFF;
  for (std::size_t i = 0; i < t.symbols.size() && i < 256; ++i) d.symbols[i] = t.symbols[i];
  p = 0;
  for (int l = 1; l <= kBits; ++l) {
    for (int i = 0; i < t.counts[l]; ++i, ++p) {
      const int sym = d.symbols[p];
      const std::uint32_t first = code_of[p] << (kBits - l);
      for (std::uint32_t j = 0; j < (1u << (kBits - l)); ++j) {
        const std::uint32_t idx = first | j;
        std::int32_t e = std::int32_t(sym << 8 | l);
        const int s = sym & 15;
        if (s && l + s <= kBits) {
          const int bits = int(idx >> (kBits - l - s)) & ((1 << s) - 1);
          const int v = bits < (1 << (s - 1)) ? bits - (1 << s) + 1 : bits;
          // An AC entry holds the run plus one where a partial one holds the symbol.
          const int mid = ac ? (sym >> 4) + 1 : sym;
          e = std::int32_t(std::uint32_t(v) << 16) | mid << 8 | HuffmanLookup::kFull | (l + s);
        } else if (!s && !ac) {
          e |= HuffmanLookup::kFull;  // a DC difference of 0
        } else if (sym == 0 && ac) {
          e |= HuffmanLookup::kFull | HuffmanLookup::kEnd;  // end of block
        }
        d.entry[idx] = e;
      }
    }
  }
  return d;
}

}  // namespace

int huffman_codes(const HuffmanTable& t, std::uint8_t size[257], std::uint32_t code[257]) {
  int n = 0;
  for (int l = 1; l <= 16; ++l)
    for (int i = 0; i < t.counts[l] && n < 256; ++i) size[n++] = std::uint8_t(l);
  size[n] = 0;
  std::uint32_t c = 0;
  for (int p = 0, si = n ? size[0] : 0; p < n; ++si, c <<= 1)
    while (p < n && size[p] == si) code[p++] = c++;
  return n;
}

std::shared_ptr<const HuffmanLookup> cached_derive(const HuffmanTable& t, bool ac) {
  struct Entry {
    bool ac;
    std::array<std::uint8_t, 17> counts;
    std::vector<std::uint8_t> symbols;
    std::shared_ptr<const HuffmanLookup> lookup;
  };
  thread_local std::vector<Entry> cache;
  for (const auto& e : cache)
    if (e.ac == ac && e.counts == t.counts && e.symbols == t.symbols) return e.lookup;
  auto lookup = std::make_shared<const HuffmanLookup>(derive(t, ac));
  if (cache.size() >= 16) cache.erase(cache.begin());
  cache.push_back({ac, t.counts, t.symbols, lookup});
  return lookup;
}

}  // namespace hetcodec::jpeg
