// Huffman decoding of sequential JPEG scans (ITU-T T.81 F.2.2) into the token stream. The
// decoding tables follow T.81 Annex C and F.2.2.3 (MAXCODE, VALPTR) with a lookahead table, as
// libjpeg's jdhuff.c builds them; the corrupt-data behaviour is libjpeg-turbo's (see entropy.h).
#include "core/jpeg/entropy.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/jpeg/standard_tables.h"
#include "core/portable/jpeg_zigzag.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the token stream is written with the host's byte order; a big-endian port must swap"
#endif

// The decoding loop is built twice where the toolchain can pick a version at load time: with
// BMI2 (shifts by a register without flags, about a tenth faster there) and without.
#if defined(__x86_64__) && defined(__ELF__) && defined(__GLIBC__) && \
    (defined(__clang__) || defined(__GNUC__))
#define HC_BMI2_CLONES __attribute__((target_clones("bmi2", "default")))
#else
#define HC_BMI2_CLONES
#endif

namespace hetcodec::jpeg {
namespace {

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "jpeg: byte " + std::to_string(at) + ": " + what);
}

// The natural index of the coefficient a decoder has just passed: at[k] is the natural index of
// zigzag index k - 1, with 16 extra entries for the corrupt case where a run takes k past 64
// (libjpeg-turbo's jpeg_natural_order has the same guard, sending them to 63); shifted[k] is the
// same, moved to the top of a token's position word.
struct NaturalOrder {
  std::uint8_t at[81];
  std::uint32_t shifted[81];
  NaturalOrder() {
    static const int zz[64] = HC_JPEG_NATURAL_ORDER;
    at[0] = 0;
    for (int k = 1; k <= 80; ++k) at[k] = std::uint8_t(k <= 64 ? zz[k - 1] : 63);
    for (int k = 0; k <= 80; ++k) shifted[k] = std::uint32_t(at[k]) << 18;
  }
};
const NaturalOrder kNatural;

HuffmanLookup derive(const HuffmanTable& t, bool ac) {
  HuffmanLookup d;
  constexpr int kBits = HuffmanLookup::kBits;
  std::uint8_t size[257];
  std::uint32_t code_of[257];
  int p = 0;
  for (int l = 1; l <= 16; ++l)
    for (int i = 0; i < t.counts[l]; ++i) size[p++] = std::uint8_t(l);
  size[p] = 0;
  const int n = p;
  std::uint32_t code = 0;
  int si = n ? size[0] : 0;
  p = 0;
  while (p < n) {
    while (p < n && size[p] == si) code_of[p++] = code++;
    code <<= 1;
    ++si;
  }
  p = 0;
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

// MSB-first bit reader over one entropy-coded segment [p, end), unstuffing 0xFF00. Past the end
// (or a marker) it supplies zero bits and counts them as padding.
//
// Below `safe` the next eight bytes hold no 0xFF, so fill() loads them at once and keeps the
// buffer at 56 bits or more without a data-dependent branch; the bits it loads past the valid
// ones are the stream's next bits, which the following load writes again unchanged. At a 0xFF
// (or the segment's end) it goes byte by byte, then looks for the next 0xFF.
struct BitReader {
  const std::uint8_t* p;
  const std::uint8_t* end;
  const std::uint8_t* safe = nullptr;
  std::uint64_t buf = 0;
  int nbits = 0;  // valid bits at the top of buf (at most 63)
  int pad = 0;    // of which this many, at the bottom, are padding
  // Bytes loaded after unstuffing, padding included, are p + skew: the fast fill moves p alone
  // (it loads no stuffing or padding), and refill_slow() keeps skew up to date.
  std::uint64_t skew = 0;

  BitReader() : p(nullptr), end(nullptr) {}
  BitReader(const std::uint8_t* begin, const std::uint8_t* stop)
      : p(begin), end(stop), skew(0 - std::uint64_t(reinterpret_cast<std::uintptr_t>(begin))) {
    find_safe();
  }
  void find_safe() {
    safe = p;
    if (pad != 0 || end - p < 8) return;
    const void* ff = std::memchr(p, 0xFF, std::size_t(end - p));
    const std::uint8_t* limit = ff ? static_cast<const std::uint8_t*>(ff) : end;
    if (limit - p > 7) safe = limit - 7;
  }
  // Leaves at least 48 bits in the buffer.
  __attribute__((always_inline)) void fill() {
    if (__builtin_expect(p < safe, 1)) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      buf |= __builtin_bswap64(w) >> nbits;
      const int take = (63 - nbits) >> 3;
      p += take;
      nbits += 8 * take;
    } else if (nbits < 48) {
      // By value: a call that took this reader's address would keep its fields in memory
      // rather than registers for the whole decoding loop.
      *this = refilled(*this);
    }
  }
  __attribute__((noinline)) static BitReader refilled(BitReader r) {
    r.refill_slow();
    return r;
  }
  void refill_slow() {
    std::uint64_t loaded = skew + std::uint64_t(reinterpret_cast<std::uintptr_t>(p));
    while (nbits <= 48) {
      std::uint64_t c = 0;
      if (pad == 0 && p < end) {
        c = *p++;
        if (c == 0xFF) {
          while (p < end && *p == 0xFF) ++p;
          if (p < end && *p == 0) {
            ++p;
          } else {
            p = end;  // a marker: no more data in this segment
            c = 0;
            pad += 8;
          }
        }
      } else {
        pad += 8;
      }
      buf |= c << (56 - nbits);
      nbits += 8;
      ++loaded;
    }
    skew = loaded - std::uint64_t(reinterpret_cast<std::uintptr_t>(p));
    find_safe();
  }
  std::uint32_t peek(int n) const { return std::uint32_t(buf >> (64 - n)); }
  void consume(int n) {
    buf <<= n;
    nbits -= n;
  }
  // n in 1..16
  std::uint32_t bits(int n) {
    std::uint32_t v = peek(n);
    consume(n);
    return v;
  }
  bool exhausted() const { return nbits < pad; }  // padding bits have been consumed
  // Bits consumed since the reader started, in the unstuffed stream.
  std::uint64_t consumed() const {
    return (skew + std::uint64_t(reinterpret_cast<std::uintptr_t>(p))) * 8 - std::uint64_t(nbits);
  }
};

inline int extend(std::uint32_t v, int s) {
  return v < (1u << (s - 1)) ? int(v) - (1 << s) + 1 : int(v);
}

// The symbol of a code longer than the lookahead (the buffer holds at least 32 bits).
inline int decode_long_symbol(BitReader& br, const HuffmanLookup& t, bool& bad_code) {
  for (int l = HuffmanLookup::kBits + 1; l <= 16; ++l) {
    const std::int32_t code = std::int32_t(br.peek(l));
    if (code <= t.maxcode[l]) {
      br.consume(l);
      return t.symbols[(code + t.valoffset[l]) & 0xFF];
    }
  }
  br.consume(17);  // libjpeg reads 17 bits, warns, and fakes a zero
  bad_code = true;
  return 0;
}

// One block's symbols: calls on_dc(diff) with its DC difference, then put_at(k, value) for each
// non-zero AC coefficient, in zigzag order, k being its zigzag index plus one (kNatural.at[k]
// is its natural index).
template <typename OnDc, typename Put>
__attribute__((always_inline)) inline void decode_block_with(BitReader& br,
                                                             const HuffmanLookup& dc,
                                                             const HuffmanLookup& ac,
                                                             bool& bad_code, OnDc&& on_dc,
                                                             Put&& put_at) {
  // After fill() the buffer holds at least 48 bits: a symbol decoded in full takes at most kBits
  // of them, which leaves enough for a second symbol of any kind (code and magnitude) without
  // refilling.
  br.fill();
  std::int32_t e = dc.entry[br.peek(HuffmanLookup::kBits)];
  if (e & HuffmanLookup::kFull) {
    br.consume(e & 63);
    on_dc(e >> 16);
  } else {
    int s;
    if (e) {
      br.consume(e & 63);
      s = (e >> 8) & 15;
    } else {
      s = decode_long_symbol(br, dc, bad_code) & 15;
    }
    on_dc(s ? extend(br.bits(s), s) : 0);
  }
  int k = 1;  // zigzag index of the next coefficient
  // A coefficient after `step` - 1 zeros.
  auto put = [&](int step, int value) __attribute__((always_inline)) {
    k += step;
    put_at(k, value);
  };
  while (k < 64) {
    br.fill();
    e = ac.entry[br.peek(HuffmanLookup::kBits)];
    if (e & HuffmanLookup::kFull) {
      br.consume(e & 63);
      if (e & HuffmanLookup::kEnd) break;
      put((e >> 8) & 31, e >> 16);
      if (k >= 64) break;
      e = ac.entry[br.peek(HuffmanLookup::kBits)];
      if (e & HuffmanLookup::kFull) {
        br.consume(e & 63);
        if (e & HuffmanLookup::kEnd) break;
        put((e >> 8) & 31, e >> 16);
        continue;
      }
    }
    int rs;
    if (e) {
      br.consume(e & 63);
      rs = (e >> 8) & 0xFF;
    } else {
      rs = decode_long_symbol(br, ac, bad_code);
    }
    const int r = rs >> 4, s = rs & 15;
    if (s) {
      put(r + 1, extend(br.bits(s), s));
    } else if (r == 15) {
      k += 16;
    } else {
      break;
    }
  }
}

// One block: returns its DC difference in `diff`, and writes its non-zero AC coefficients to
// val[1..m] and their natural positions to pos[1..m] (index 0 is left for the DC value);
// returns m. For decoding before the DC predictions are known (run_split()).
__attribute__((always_inline)) inline int decode_block(BitReader& br, const HuffmanLookup& dc,
                                                       const HuffmanLookup& ac, int& diff,
                                                       std::int16_t* val, std::uint8_t* pos,
                                                       bool& bad_code) {
  int m = 0;
  decode_block_with(
      br, dc, ac, bad_code, [&](int d) __attribute__((always_inline)) { diff = d; },
      [&](int k, int v) __attribute__((always_inline)) {
        ++m;
        val[m] = std::int16_t(v);
        pos[m] = kNatural.at[k];
      });
  return m;
}

// One block straight into tokens at `tp` (room for 16), the DC prediction `pred` of its
// component updated; returns the token count (0 for an all-zero block). The token being filled
// is kept in registers, each coefficient shifted in at the top, and stored once complete; the
// last one is padded by repeating its last coefficient and position, as pack_block() does.
__attribute__((always_inline)) inline int decode_block_tokens(BitReader& br,
                                                              const HuffmanLookup& dc,
                                                              const HuffmanLookup& ac, int& pred,
                                                              std::uint32_t block_bits, Token* tp,
                                                              bool& bad_code) {
  Token* const first = tp;
  std::uint64_t cv = 0;  // coefficients, the latest in bits 48-63
  std::uint32_t pw = 0;  // positions, the latest in bits 18-23
  int n = 0;             // coefficients in the token being filled
  decode_block_with(
      br, dc, ac, bad_code,
      [&](int d) __attribute__((always_inline)) {
        pred += d;
        const std::int16_t v = std::int16_t(pred);
        cv = std::uint64_t(std::uint16_t(v)) << 48;  // position 0
        n = v != 0;
      },
      [&](int k, int v) __attribute__((always_inline)) {
        cv = cv >> 16 | std::uint64_t(std::uint16_t(v)) << 48;
        pw = pw >> 6 | kNatural.shifted[k];
        if (++n == 4) {
          std::memcpy(tp->coef, &cv, 8);
          tp->word = pw | block_bits;
          ++tp;
          n = 0;
        }
      });
  if (n) {
    for (; n < 4; ++n) {
      cv = cv >> 16 | (cv & 0xFFFF000000000000u);
      pw = pw >> 6 | (pw & 0xFC0000u);
    }
    std::memcpy(tp->coef, &cv, 8);
    tp->word = pw | block_bits;
    ++tp;
  }
  return int(tp - first);
}

// Packs one block (DC value `dcv`, AC coefficients in val/pos[1..m]) into tokens at `tp`, which
// has room for 17; returns the token count (0 for an all-zero block). Two tokens are always
// written: a second one past the count is scratch the next block overwrites.
__attribute__((always_inline)) inline int pack_block(std::int16_t dcv, int m, std::int16_t* val,
                                                     std::uint8_t* pos, std::uint32_t block_in_group,
                                                     Token* tp) {
  val[0] = dcv;
  pos[0] = 0;
  const int first = dcv != 0 ? 0 : 1;
  const int n = m + 1 - first;
  if (n == 0) return 0;
  // Pad the last token by repeating the last coefficient and position.
  for (int i = 1; i <= 3; ++i) {
    val[m + i] = val[m];
    pos[m + i] = pos[m];
  }
  const int count = (n + 3) >> 2;
  const std::int16_t* v = val + first;
  const std::uint8_t* q = pos + first;
  const std::uint32_t block_bits = block_in_group << 24;
  auto pack = [&](int t) {
    std::memcpy(tp[t].coef, v + 4 * t, 8);
    std::uint32_t x;
    std::memcpy(&x, q + 4 * t, 4);
    tp[t].word =
        block_bits | (x & 0x3F) | (x >> 2 & 0xFC0) | (x >> 4 & 0x3F000) | (x >> 6 & 0xFC0000);
  };
  pack(0);
  pack(1);
  for (int t = 2; t < count; ++t) pack(t);
  return count;
}

// The derived form of a table, from a small per-thread cache keyed by the table's content and
// class (a DC entry decodes a zero difference in full; an AC one leaves EOB and ZRL to the caller).
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

}  // namespace

int EntropyDecoder::table_index(const HuffmanTable& t, bool ac) {
  auto lookup = cached_derive(t, ac);
  for (std::size_t i = 0; i < tables_.size(); ++i)
    if (tables_[i] == lookup) return int(i);
  tables_data_.push_back(lookup.get());
  tables_.push_back(std::move(lookup));
  return int(tables_.size()) - 1;
}

EntropyDecoder::EntropyDecoder(const std::uint8_t* data, std::size_t size, const Header& header,
                               const Layout& layout)
    : data_(data), size_(size), header_(header), layout_(layout) {
  const std::size_t nc = header.components.size();
  quant_.assign(nc, {});
  std::vector<int> coded_in(nc, -1);
  for (std::size_t si = 0; si < header.scans.size(); ++si) {
    const Scan& scan = header.scans[si];
    ScanPlan plan;
    const bool interleaved = scan.components.size() > 1;
    for (std::size_t k = 0; k < scan.components.size(); ++k) {
      const int c = scan.components[k];
      if (coded_in[c] >= 0)
        invalid(scan.data_offset, "component " + std::to_string(header.components[c].id) +
                                      " is coded by a second scan (a sequential file codes each "
                                      "component once)");
      coded_in[c] = int(si);
      const QuantTable& q = scan.quant_tables[header.components[c].quant_table];
      if (!q.defined)
        invalid(scan.data_offset, "quantisation table " +
                                      std::to_string(header.components[c].quant_table) +
                                      " is not defined before the scan that uses it");
      static const int zz[64] = HC_JPEG_NATURAL_ORDER;
      for (int i = 0; i < 64; ++i) quant_[c][zz[i]] = std::int16_t(q.values[i]);
      // Undefined slots 0 and 1 take the standard tables, as libjpeg-turbo does for
      // Motion-JPEG frames without DHT.
      const int dslot = scan.dc_table[k], aslot = scan.ac_table[k];
      const HuffmanTable& dc = !scan.dc_tables[dslot].defined && dslot < 2
                                   ? standard_huffman_table(false, dslot)
                                   : scan.dc_tables[dslot];
      const HuffmanTable& ac = !scan.ac_tables[aslot].defined && aslot < 2
                                   ? standard_huffman_table(true, aslot)
                                   : scan.ac_tables[aslot];
      if (!dc.defined)
        invalid(scan.data_offset,
                "DC Huffman table " + std::to_string(scan.dc_table[k]) + " is not defined");
      if (!ac.defined)
        invalid(scan.data_offset,
                "AC Huffman table " + std::to_string(scan.ac_table[k]) + " is not defined");
      for (std::size_t i = 0; i < dc.symbols.size(); ++i) {
        if (dc.symbols[i] > 15)
          invalid(scan.data_offset, "DC Huffman table " + std::to_string(scan.dc_table[k]) +
                                        " has symbol " + std::to_string(dc.symbols[i]) +
                                        " (at most 15)");
      }
      plan.lookup_dc.push_back(table_index(dc, false));
      plan.lookup_ac.push_back(table_index(ac, true));
      const Component& comp = header.components[c];
      const int h = interleaved ? comp.h : 1, v = interleaved ? comp.v : 1;
      for (int dy = 0; dy < v; ++dy)
        for (int dx = 0; dx < h; ++dx)
          plan.mcu.push_back({c, plan.lookup_dc.back(), plan.lookup_ac.back(), h, v, dx, dy});
    }
    if (plan.mcu.size() > 10)
      invalid(scan.data_offset,
              "an MCU of " + std::to_string(plan.mcu.size()) + " blocks (T.81 allows at most 10)");
    if (interleaved) {
      plan.mcus_x = layout.mcus_x;
      plan.mcus = layout.mcus_x * layout.mcus_y;
    } else {
      const ComponentLayout& cl = layout.components[scan.components[0]];
      plan.mcus_x = (cl.width + 7) / 8;
      plan.mcus = plan.mcus_x * ((cl.height + 7) / 8);
    }
    plan.restart = scan.restart_interval;
    plan.intervals = plan.restart ? (plan.mcus + plan.restart - 1) / plan.restart : 1;
    plans_.push_back(std::move(plan));
  }
}

std::vector<EntropyTask> EntropyDecoder::tasks(int max_tasks) const {
  std::vector<EntropyTask> out;
  max_tasks = std::max(1, max_tasks);
  for (std::size_t s = 0; s < plans_.size(); ++s) {
    const std::uint32_t intervals = std::uint32_t(plans_[s].intervals);
    const std::uint32_t n = std::min<std::uint32_t>(intervals, std::uint32_t(max_tasks));
    const std::uint32_t chunk = (intervals + n - 1) / n;
    for (std::uint32_t first = 0; first < intervals; first += chunk)
      out.push_back({int(s), first, std::min(chunk, intervals - first)});
  }
  return out;
}

void EntropyDecoder::use_groups(EntropyResult& out) const {
  out.clear();
  std::size_t bytes = 0;
  for (const auto& scan : header_.scans)
    bytes += scan.data_end > scan.data_offset ? scan.data_end - scan.data_offset : 0;
  const std::size_t groups = std::max<std::uint32_t>(layout_.groups, 1);
  // Photographs give about 0.4 tokens per byte of entropy-coded data; room for three times a
  // group's share of that, and for one full block, or at most 1024 (64 blocks of 16 tokens).
  const std::size_t share = bytes * 2 / 5 / groups;
  out.group_cap = std::uint32_t(std::min<std::size_t>(std::max<std::size_t>(3 * share, 16) + 16,
                                                      1024));
  out.grouped.resize(groups * out.group_cap);
  out.group_fill.assign(groups, 0);
}

void EntropyDecoder::run(const EntropyTask& task, EntropyResult& out) const {
  const ScanPlan& plan = plans_.at(std::size_t(task.scan));
  const Scan& scan = header_.scans[std::size_t(task.scan)];
  for (std::uint32_t i = 0; i < task.intervals; ++i)
    decode_interval(plan, scan, task.first_interval + i, out);
}

HC_BMI2_CLONES void EntropyDecoder::decode_interval(const ScanPlan& plan, const Scan& scan, std::uint32_t interval,
                                     EntropyResult& out) const {
  // The interval's bytes: from the scan start or the byte after the RSTn before it, to the next
  // marker. An interval whose restart marker is missing has no data (decoded as all zero).
  std::size_t begin = scan.data_offset, end = scan.data_end;
  if (interval > 0) {
    if (interval - 1 >= scan.restarts.size()) {
      if (interval - 1 == scan.restarts.size())
        out.warnings.push_back("corrupt JPEG data: restart marker " + std::to_string(interval - 1) +
                               " missing; the rest of the scan " + "is left grey");
      return;
    }
    std::size_t m = scan.restarts[interval - 1];
    while (m < size_ && data_[m] == 0xFF) ++m;
    if (m < size_ && (data_[m] & 7) != int((interval - 1) & 7))
      out.warnings.push_back("corrupt JPEG data: restart marker RST" +
                             std::to_string(data_[m] & 7) + " where RST" +
                             std::to_string((interval - 1) & 7) + " was expected");
    begin = m + 1;
  }
  if (interval < scan.restarts.size()) end = scan.restarts[interval];
  begin = std::min(begin, end);

  BitReader br{data_ + begin, data_ + end};
  const int first_mcu = plan.restart ? int(interval) * plan.restart : 0;
  const int last_mcu = plan.restart ? std::min(plan.mcus, first_mcu + plan.restart) : plan.mcus;
  int pred[4] = {0, 0, 0, 0};
  bool bad_code = false;
  std::size_t ntokens = out.tokens.size();
  // Room for a typical density at once (a token stands for at least 4 bits of data), grown
  // when an MCU might not fit (16 tokens a block at most).
  const std::size_t mcu_tokens = 16 * plan.mcu.size();
  out.tokens.resize(ntokens + (out.group_cap ? 4 * mcu_tokens : (end - begin) / 3 + mcu_tokens));
  Token* tokens = out.tokens.data();
  std::size_t room = out.tokens.size();
  // Room for every block of the interval.
  std::size_t nblocks = out.block_ids.size();
  const std::size_t max_blocks = nblocks + std::size_t(last_mcu - first_mcu) * plan.mcu.size();
  out.block_ids.resize(max_blocks);
  out.block_tokens.resize(max_blocks);
  std::uint32_t* const ids = out.block_ids.data();
  std::uint8_t* const counts = out.block_tokens.data();
  const HuffmanLookup* const* const lookups = tables_data_.data();
  const std::uint32_t cap = out.group_cap;
  Token* const grouped = out.grouped.data();
  std::uint32_t* const group_fill = out.group_fill.data();
  int mx = first_mcu % plan.mcus_x, my = first_mcu / plan.mcus_x;
  for (int m = first_mcu; m < last_mcu; ++m) {
    if (room < ntokens + mcu_tokens) {
      out.tokens.resize(2 * (ntokens + mcu_tokens));
      tokens = out.tokens.data();
      room = out.tokens.size();
    }
    for (const auto& b : plan.mcu) {
      const ComponentLayout& cl = layout_.components[std::size_t(b.component)];
      const std::uint32_t raster = std::uint32_t(my * b.v + b.dy) * std::uint32_t(cl.grid_w) +
                                   std::uint32_t(mx * b.h + b.dx);
      const std::uint32_t id = cl.first_block + raster;
      if (cap) {
        std::uint32_t& fill = group_fill[id >> 6];
        if (fill + 16 <= cap) {
          fill += std::uint32_t(decode_block_tokens(br, *lookups[b.dc], *lookups[b.ac],
                                                    pred[b.component], (raster & 63) << 24,
                                                    grouped + std::size_t(id >> 6) * cap + fill,
                                                    bad_code));
          continue;
        }
      }
      const int count = decode_block_tokens(br, *lookups[b.dc], *lookups[b.ac], pred[b.component],
                                            (raster & 63) << 24, tokens + ntokens, bad_code);
      ntokens += std::size_t(count);
      ids[nblocks] = id;
      counts[nblocks] = std::uint8_t(count);
      nblocks += count != 0;
    }
    if (++mx == plan.mcus_x) {
      mx = 0;
      ++my;
    }
    if (br.exhausted()) {
      out.warnings.push_back("corrupt JPEG data: premature end of data segment (scan at byte " +
                             std::to_string(scan.data_offset) + ", restart interval " +
                             std::to_string(interval) + "); the rest of it is left grey");
      break;
    }
  }
  out.tokens.resize(ntokens);
  out.block_ids.resize(nblocks);
  out.block_tokens.resize(nblocks);
  if (bad_code)
    out.warnings.push_back("corrupt JPEG data: bad Huffman code (restart interval " +
                           std::to_string(interval) + ")");
}

// ---- A scan without restart markers, decoded in pieces at once --------------------------------
//
// The scan's bytes are cut into pieces. Piece 0 is decoded from the scan's start; every other
// piece from its first byte, as if a block of MCU position 0 began there. That guess is usually
// wrong, but Huffman decoding falls into step with the true symbol boundaries after a while, and
// from the first block whose start (bit position and position in the MCU) is also the start of a
// true block, everything it decodes is what a decoder from the scan's start decodes. Each piece
// records every block it decodes with its start; the pieces are then joined in order: where the
// true decoding of piece t-1 stops, at the start of some block, piece t must have a block that
// starts at the same bit with the same MCU position. If it has none there, the true decoding
// goes on block by block ("bridging") until it meets one; a piece that never falls into step
// is bridged over whole. Only then are block numbers and DC predictions known, and the blocks
// are packed into tokens, again one piece per thread. The tokens are the ones run() writes.
// Anything unusual (a bad code or the data running out in a block that counts, or fewer blocks
// than the scan has) makes run_split() give up, and the caller decodes the scan with run().
namespace {

struct SpecBlock {
  std::uint64_t at;    // start: bits into the scan's unstuffed data
  std::uint32_t coef;  // first AC coefficient in the piece's lists
  std::int16_t diff;   // DC difference
  std::uint8_t m;      // AC coefficients
  std::uint8_t flags;  // bits 0-3: position in the MCU; kBad, kExhausted
  static constexpr std::uint8_t kBad = 16, kExhausted = 32;
};

struct Piece {
  std::uint64_t base = 0;  // bits of unstuffed data before the piece's first byte
  std::uint64_t stop = 0;  // decoding stops at the first block that starts here or later
  std::vector<SpecBlock> blocks;
  std::vector<std::int16_t, UninitializedAllocator<std::int16_t>> vals;
  std::vector<std::uint8_t, UninitializedAllocator<std::uint8_t>> pos;
  std::size_t used = 0;  // coefficients in vals/pos
  BitReader exit;        // where decoding stopped: at bit exit_at, MCU position exit_phase
  std::uint64_t exit_at = 0;
  int exit_phase = 0;
  std::size_t first = 0, count = 0;  // the blocks that count, once joined
  std::size_t first_block = 0;       // the scan's block number of blocks[first]
};

}  // namespace

bool EntropyDecoder::run_split(int pieces, std::size_t min_piece_bytes, const Parallel& parallel,
                               std::vector<EntropyResult>& out) const {
  if (plans_.size() != 1 || plans_[0].intervals != 1 || pieces < 2) return false;
  const ScanPlan& plan = plans_[0];
  const Scan& scan = header_.scans[0];
  const std::uint8_t* const begin = data_ + scan.data_offset;
  const std::uint8_t* const end = data_ + std::min(scan.data_end, size_);
  if (end <= begin) return false;
  const std::size_t bytes = std::size_t(end - begin);
  const std::size_t n =
      std::min<std::size_t>(std::size_t(pieces), bytes / std::max<std::size_t>(min_piece_bytes, 1));
  if (n < 2) return false;
  const int bpm = int(plan.mcu.size());
  const std::size_t total = std::size_t(plan.mcus) * std::size_t(bpm);

  // Piece boundaries, each moved past any 0xFF before it (never inside 0xFF 0x00 or a run of
  // fill bytes), with the count of unstuffed bytes before each, as the bit reader counts them:
  // 0xFF, any further 0xFF, then 0x00 is one byte; 0xFF then anything else ends the data.
  std::vector<const std::uint8_t*> cut(n + 1);
  cut[0] = begin;
  cut[n] = end;
  for (std::size_t t = 1; t < n; ++t) {
    const std::uint8_t* c = begin + bytes * t / n;
    while (c < end && c[-1] == 0xFF) ++c;
    cut[t] = std::max(c, cut[t - 1]);
  }
  std::vector<Piece> piece(n);
  {
    std::uint64_t unstuffed = 0;
    const std::uint8_t* q = begin;
    bool ended = false;
    for (std::size_t t = 0; t <= n; ++t) {
      while (!ended && q < cut[t]) {
        const void* ff = std::memchr(q, 0xFF, std::size_t(cut[t] - q));
        const std::uint8_t* f = ff ? static_cast<const std::uint8_t*>(ff) : cut[t];
        unstuffed += std::uint64_t(f - q);
        q = f;
        if (q == cut[t]) break;
        ++unstuffed;  // the 0xFF
        ++q;
        while (q < end && *q == 0xFF) ++q;
        if (q < end && *q == 0) {
          ++q;
        } else {
          ended = true;  // a marker: nothing after it is data
        }
      }
      if (t < n) piece[t].base = unstuffed * 8;
      if (t > 0) piece[t - 1].stop = unstuffed * 8;  // the last piece's: the end of the data
      if (ended) {
        // No piece may start at or after the end of the data.
        if (t < n && cut[t] > q) return false;
      }
    }
  }

  // Decodes blocks from `br` (whose data starts `base` bits into the scan) at MCU position
  // `phase` into `pc`, while `more(at)` says so and the scan has blocks left.
  auto decode_blocks = [&](BitReader& br, std::uint64_t base, int& phase, Piece& pc,
                           std::size_t limit, auto&& more) -> std::size_t {
    std::int16_t val[64 + 8] = {};
    std::uint8_t pos[64 + 8] = {};
    std::size_t k = 0;
    for (; k < limit; ++k) {
      const std::uint64_t at = base + br.consumed();
      // Past the end of the data nothing counts (and zero bits decode as long blocks).
      if (!more(at) || br.exhausted()) break;
      const ScanPlan::Block& b = plan.mcu[std::size_t(phase)];
      bool bad = false;
      int diff;
      const int m = decode_block(br, *tables_[std::size_t(b.dc)], *tables_[std::size_t(b.ac)],
                                 diff, val, pos, bad);
      if (pc.vals.size() < pc.used + 64) {
        pc.vals.resize(2 * (pc.used + 64));
        pc.pos.resize(2 * (pc.used + 64));
      }
      std::memcpy(pc.vals.data() + pc.used, val + 1, std::size_t(m) * 2);
      std::memcpy(pc.pos.data() + pc.used, pos + 1, std::size_t(m));
      pc.blocks.push_back({at, std::uint32_t(pc.used), std::int16_t(diff), std::uint8_t(m),
                           std::uint8_t(phase | (bad ? SpecBlock::kBad : 0) |
                                        (br.exhausted() ? SpecBlock::kExhausted : 0))});
      pc.used += std::size_t(m);
      if (++phase == bpm) phase = 0;
    }
    return k;
  };

  // Every piece at once, each from its first byte.
  parallel(n, [&](std::size_t t) {
    Piece& pc = piece[t];
    BitReader br(cut[t], end);
    int phase = 0;
    pc.blocks.reserve(std::size_t(cut[t + 1] - cut[t]) * 2);
    decode_blocks(br, pc.base, phase, pc, total, [&](std::uint64_t at) { return at < pc.stop; });
    pc.exit = br;
    pc.exit_at = pc.base + br.consumed();
    pc.exit_phase = phase;
  });

  // Joining, in order. `owner` is the piece whose true decoding goes on; bridged blocks are
  // appended to it.
  std::size_t owner = 0, valid = piece[0].blocks.size();
  piece[0].first = 0;
  BitReader br = piece[0].exit;
  std::uint64_t base = piece[0].base, at = piece[0].exit_at;
  int phase = piece[0].exit_phase;
  auto bridge_one = [&] {
    if (decode_blocks(br, base, phase, piece[owner], 1, [](std::uint64_t) { return true; }) == 0)
      return false;  // the data ran out: run() handles that
    at = base + br.consumed();
    ++valid;
    return true;
  };
  for (std::size_t t = 1; t < n && valid < total; ++t) {
    Piece& nx = piece[t];
    std::size_t j = std::size_t(
        std::lower_bound(nx.blocks.begin(), nx.blocks.end(), at,
                         [](const SpecBlock& b, std::uint64_t v) { return b.at < v; }) -
        nx.blocks.begin());
    bool synced = false;
    while (valid < total) {
      while (j < nx.blocks.size() && nx.blocks[j].at < at) ++j;
      if (j >= nx.blocks.size()) break;  // never in step: bridged over
      if (nx.blocks[j].at == at && (nx.blocks[j].flags & 15) == phase) {
        synced = true;
        break;
      }
      if (!bridge_one()) return false;
    }
    nx.first = nx.blocks.size();
    if (!synced) continue;
    nx.first = j;
    valid += nx.blocks.size() - j;
    owner = t;
    br = nx.exit;
    base = nx.base;
    at = nx.exit_at;
    phase = nx.exit_phase;
  }
  while (valid < total)
    if (!bridge_one()) return false;

  // Block numbers, the blocks that count (the last piece may have decoded past the scan's last
  // block), and checks.
  std::size_t next = 0;
  for (std::size_t t = 0; t < n; ++t) {
    Piece& pc = piece[t];
    pc.first_block = next;
    pc.count = std::min(pc.blocks.size() - pc.first, total - next);
    next += pc.count;
  }
  if (next != total) return false;
  std::vector<std::array<std::uint32_t, 4>> dc_sum(n + 1, std::array<std::uint32_t, 4>{});
  std::vector<char> ok(n, 1);
  parallel(n, [&](std::size_t t) {
    const Piece& pc = piece[t];
    std::array<std::uint32_t, 4> sum{};
    for (std::size_t i = 0; i < pc.count; ++i) {
      const SpecBlock& b = pc.blocks[pc.first + i];
      const int ph = b.flags & 15;
      if ((b.flags & (SpecBlock::kBad | SpecBlock::kExhausted)) ||
          std::size_t(ph) != (pc.first_block + i) % std::size_t(bpm)) {
        ok[t] = 0;
        return;
      }
      sum[std::size_t(plan.mcu[std::size_t(ph)].component)] += std::uint32_t(std::int32_t(b.diff));
    }
    dc_sum[t + 1] = sum;
  });
  for (std::size_t t = 0; t < n; ++t) {
    if (!ok[t]) return false;
    for (int c = 0; c < 4; ++c) dc_sum[t + 1][std::size_t(c)] += dc_sum[t][std::size_t(c)];
  }

  // Tokens, one piece per thread, as decode_interval() packs them.
  if (out.size() < n) out.resize(n);
  out.resize(n);
  parallel(n, [&](std::size_t t) {
    const Piece& pc = piece[t];
    EntropyResult& r = out[t];
    r.clear();
    std::array<std::uint32_t, 4> pred = dc_sum[t];
    r.tokens.resize(pc.used / 3 + 64);
    r.block_ids.resize(pc.count);
    r.block_tokens.resize(pc.count);
    std::size_t ntokens = 0, nblocks = 0;
    std::int16_t val[64 + 8] = {};
    std::uint8_t pos[64 + 8] = {};
    for (std::size_t i = 0; i < pc.count; ++i) {
      const SpecBlock& sb = pc.blocks[pc.first + i];
      const std::size_t abs = pc.first_block + i;
      const int mcu = int(abs / std::size_t(bpm));
      const ScanPlan::Block& b = plan.mcu[abs % std::size_t(bpm)];
      const int mx = mcu % plan.mcus_x, my = mcu / plan.mcus_x;
      const ComponentLayout& cl = layout_.components[std::size_t(b.component)];
      const std::uint32_t raster = std::uint32_t(my * b.v + b.dy) * std::uint32_t(cl.grid_w) +
                                   std::uint32_t(mx * b.h + b.dx);
      std::uint32_t& p = pred[std::size_t(b.component)];
      p += std::uint32_t(std::int32_t(sb.diff));
      std::memcpy(val + 1, pc.vals.data() + sb.coef, std::size_t(sb.m) * 2);
      std::memcpy(pos + 1, pc.pos.data() + sb.coef, std::size_t(sb.m));
      if (r.tokens.size() < ntokens + 17) r.tokens.resize(2 * (ntokens + 17));
      const int count = pack_block(std::int16_t(p), sb.m, val, pos, raster & 63,
                                   r.tokens.data() + ntokens);
      if (count) {
        ntokens += std::size_t(count);
        r.block_ids[nblocks] = cl.first_block + raster;
        r.block_tokens[nblocks] = std::uint8_t(count);
        ++nblocks;
      }
    }
    r.tokens.resize(ntokens);
    r.block_ids.resize(nblocks);
    r.block_tokens.resize(nblocks);
  });
  return true;
}

std::uint32_t* EntropyDecoder::write_header(std::uint8_t* out) const {
  const std::size_t nc = layout_.components.size();
  auto* w = reinterpret_cast<std::uint32_t*>(out);
  w[0] = kTokenMagic;
  w[1] = kTokenVersion | std::uint32_t(nc) << 16;
  for (std::size_t c = 0; c < nc; ++c) {
    w[2 + 2 * c] = layout_.components[c].blocks;
    w[3 + 2 * c] = std::uint32_t(layout_.components[c].grid_w);
  }
  return w + 2 + 2 * nc;
}

std::size_t EntropyDecoder::stream_bytes(const std::vector<EntropyResult>& results) const {
  std::size_t tokens = 0;
  for (const auto& r : results) {
    tokens += r.tokens.size();
    if (r.group_cap)
      for (std::uint32_t f : r.group_fill) tokens += f;
  }
  std::vector<std::uint32_t> blocks;
  for (const auto& c : layout_.components) blocks.push_back(c.blocks);
  return token_stream_bytes(blocks, tokens);
}

void EntropyDecoder::write_stream(const std::vector<EntropyResult>& results, std::uint8_t* out,
                                  const Parallel& parallel) const {
  if (results.size() == 1 && results[0].group_cap) {
    write_grouped(results[0], out);
    return;
  }
  auto each = [&](std::size_t count, const std::function<void(std::size_t)>& fn) {
    if (parallel && count > 1) {
      parallel(count, fn);
    } else {
      for (std::size_t i = 0; i < count; ++i) fn(i);
    }
  };
  // Where each block's tokens are and how many (0: none). The tokens are then copied in the
  // stream's order, four at a time: a copy may run past a block's last token, into the place
  // of tokens written after it, and read past it, into the next block's tokens. Only the blocks
  // near the end of a result (marked with bit 7) and the last tokens of a range of groups are
  // copied exactly.
  thread_local std::vector<const Token*> source;
  thread_local std::vector<std::uint8_t> count;
  const std::size_t groups = layout_.groups;
  const std::size_t blocks = groups * 64;
  if (source.size() < blocks) source.resize(blocks);
  count.assign(blocks, 0);
  std::size_t total = 0;
  for (const auto& r : results) total += r.tokens.size();
  const Token** const src_of = source.data();
  std::uint8_t* const count_of = count.data();
  std::uint32_t* const dir = write_header(out);
  auto* const tokens = reinterpret_cast<Token*>(dir + 2 * groups);
  // Token counts per group, then offsets, then the copies; in ranges of groups, on several
  // threads where the caller gives them (a large image decoded in pieces).
  const std::size_t ranges =
      parallel && results.size() > 1 ? std::min<std::size_t>(groups, 64) : 1;
  auto range = [&](std::size_t k, std::size_t& g0, std::size_t& g1) {
    g0 = groups * k / ranges;
    g1 = groups * (k + 1) / ranges;
  };
  // On one thread the fill pass counts each group's tokens too.
  if (ranges == 1)
    for (std::size_t g = 0; g < groups; ++g) dir[2 * g + 1] = 0;
  each(results.size(), [&](std::size_t k) {  // results hold disjoint blocks
    const EntropyResult& r = results[k];
    const Token* t = r.tokens.data();
    const std::size_t m = r.block_ids.size();
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint32_t id = r.block_ids[i];
      src_of[id] = t;
      count_of[id] = r.block_tokens[i];
      if (ranges == 1) dir[2 * std::size_t(id >> 6) + 1] += r.block_tokens[i];
      t += r.block_tokens[i];
    }
    // The blocks whose four-at-a-time copy would read past the result's last token.
    const Token* const end = r.tokens.data() + r.tokens.size();
    for (std::size_t i = m; i-- > 0 && end - src_of[r.block_ids[i]] < 16;)
      count_of[r.block_ids[i]] |= 0x80;
  });
  if (ranges > 1) each(ranges, [&](std::size_t k) {
    std::size_t g0, g1;
    range(k, g0, g1);
    for (std::size_t g = g0; g < g1; ++g) {
      std::uint32_t n = 0;
      for (std::size_t b = g * 64; b < g * 64 + 64; ++b) n += count_of[b] & 31u;
      dir[2 * g + 1] = n;
    }
  });
  std::uint32_t offset = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    dir[2 * g] = offset;
    offset += dir[2 * g + 1];
  }
  each(ranges, [&](std::size_t k) {
    std::size_t g0, g1;
    range(k, g0, g1);
    if (g0 == g1) return;
    std::size_t cursor = dir[2 * g0];
    // A copy runs past a block's tokens only inside the range: another thread writes the next.
    const std::size_t limit = g1 < groups ? dir[2 * g1] : total;
    for (std::size_t b = g0 * 64; b < g1 * 64; ++b) {
      const std::uint8_t c = count_of[b];
      if (!c) continue;
      const std::size_t n = c & 31;
      const Token* s = src_of[b];
      Token* d = tokens + cursor;
      if (!(c & 0x80) && cursor + 16 <= limit) {
        for (std::size_t j = 0; j < n; j += 4) std::memcpy(d + j, s + j, 4 * sizeof(Token));
      } else {
        for (std::size_t j = 0; j < n; ++j) d[j] = s[j];
      }
      cursor += n;
    }
  });
}

// Grouped mode: per group, its bucket in one copy, then its blocks that did not fit, in decode
// order.
void EntropyDecoder::write_grouped(const EntropyResult& r, std::uint8_t* out) const {
  const std::size_t groups = layout_.groups;
  std::uint32_t* const dir = write_header(out);
  auto* const tokens = reinterpret_cast<Token*>(dir + 2 * groups);
  for (std::size_t g = 0; g < groups; ++g) dir[2 * g + 1] = r.group_fill[g];
  const std::size_t extra = r.block_ids.size();
  for (std::size_t i = 0; i < extra; ++i) dir[2 * std::size_t(r.block_ids[i] >> 6) + 1] += r.block_tokens[i];
  std::uint32_t offset = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    dir[2 * g] = offset;
    std::memcpy(tokens + offset, r.grouped.data() + g * r.group_cap,
                std::size_t(r.group_fill[g]) * sizeof(Token));
    offset += dir[2 * g + 1];
  }
  if (!extra) return;
  // Where each group's next token that did not fit goes.
  thread_local std::vector<std::uint32_t> cursor;
  cursor.resize(groups);
  for (std::size_t g = 0; g < groups; ++g) cursor[g] = dir[2 * g] + r.group_fill[g];
  const Token* t = r.tokens.data();
  for (std::size_t i = 0; i < extra; ++i) {
    const std::uint32_t n = r.block_tokens[i];
    std::uint32_t& c = cursor[r.block_ids[i] >> 6];
    std::memcpy(tokens + c, t, std::size_t(n) * sizeof(Token));
    c += n;
    t += n;
  }
}

}  // namespace hetcodec::jpeg
