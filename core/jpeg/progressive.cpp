// Progressive Huffman scans (T.81 G.2, G.1.2): DC first and refinement scans, AC spectral
// selection and successive approximation with end-of-band runs, decoded into the frame's
// coefficient buffer as libjpeg-turbo's jdphuff.c decodes them, corrupt data included.
#include <algorithm>
#include <atomic>
#include <climits>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <cstring>
#include <string>
#include <type_traits>

#include "core/jpeg/coefficients.h"
#include "core/jpeg/entropy_parts.h"
#include "core/jpeg/standard_tables.h"

namespace hetcodec::jpeg {
namespace {

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "jpeg: byte " + std::to_string(at) + ": " + what);
}

// A Huffman table's decoding form: a lookahead table of code length and symbol for codes of
// up to kBits bits, and T.81 F.2.2.3's MAXCODE / VALPTR for longer ones.
// Where libjpeg-turbo's bit reader (jdhuff.c jpeg_fill_bit_buffer, 64-bit buffer) has read
// to: it loads whole bytes until it holds at least 57 bits whenever it holds fewer than a
// request needs (8 for a Huffman lookahead, 9 for a longer code, n for n raw bits), and never
// past a marker. What it has not loaded when a scan ends, and what it holds in whole bytes at
// a restart marker, are its "extraneous bytes" warning (JWRN_EXTRANEOUS_DATA).
struct LibjpegReader {
  const std::uint8_t* p = nullptr;
  const std::uint8_t* end = nullptr;
  int bits = 0;  // held, unconsumed
  void start(const std::uint8_t* begin, const std::uint8_t* stop) {
    p = begin;
    end = stop;
    bits = 0;
  }
  __attribute__((always_inline)) void need(int n) {
    if (__builtin_expect(bits >= n, 1)) return;
    load();
  }
  __attribute__((noinline)) void load() {
    while (bits < 57 && p < end) {
      if (*p == 0xFF) {
        const std::uint8_t* q = p;
        while (q < end && *q == 0xFF) ++q;
        if (q == end || *q != 0) {  // fill bytes before the marker: nothing more to load
          p = end;
          break;
        }
        p = q + 1;
      } else {
        ++p;
      }
      bits += 8;
    }
  }
  void use(int n) { bits -= n; }
  // A code of l > 9 bits, after need(9): jdhuff.c jpeg_huff_decode takes 9 bits at once and
  // the rest one at a time, loading once the buffer is empty.
  void use_long(int l) {
    if (bits >= l) {
      bits -= l;
      return;
    }
    const int held = bits > 0 ? bits : 0;
    use(held);
    need(l - held);
    use(l - held);
  }
  // Bytes libjpeg-turbo's next_marker() skips from here to the marker, stuffed pairs counted
  // as two, fill bytes not at all.
  std::size_t unread() const {
    std::size_t n = 0;
    for (const std::uint8_t* q = p; q < end;) {
      if (*q != 0xFF) {
        ++n, ++q;
        continue;
      }
      const std::uint8_t* r = q;
      while (r < end && *r == 0xFF) ++r;
      if (r == end || *r != 0) break;
      n += 2;
      q = r + 1;
    }
    return n;
  }
};

// The fast pass's stand-in for LibjpegReader: it follows nothing. Where the data an interval
// leaves unread could make libjpeg-turbo warn, the scan asks for the exact pass instead
// (ScanOutcome::needs_exact).
struct NoReader {
  int bits = 0;
  void start(const std::uint8_t*, const std::uint8_t*) {}
  void need(int) {}
  void use(int) {}
  void use_long(int) {}
  std::size_t unread() const { return 0; }
};

// Whether the reader has left fewer than 8 bits of the interval's data unread: all of it but
// the padding of its last byte. libjpeg-turbo, having read at least as far, has then loaded
// every byte up to the marker and holds fewer than 8 bits: no extraneous bytes to warn of.
bool read_to_the_end(const BitReader& br) {
  if (br.nbits - br.pad >= 8) return false;
  for (const std::uint8_t* q = br.p; q < br.end;) {
    if (*q != 0xFF) return false;
    while (q < br.end && *q == 0xFF) ++q;
    if (q < br.end && *q == 0) return false;  // a stuffed 0xFF: data
    break;                                    // fill bytes, then the marker
  }
  return true;
}

// The (r + 1)-th set bit of `x` as a one-bit mask, 0 where x has no more than r set bits.
// PDEP does it in one instruction where it is fast (Intel since Haswell, AMD since Zen 3);
// elsewhere the lowest bits are cleared one at a time.
#if defined(__x86_64__)
inline std::uint64_t deposit(std::uint64_t src, std::uint64_t mask) {
  std::uint64_t r;
  __asm__("pdepq %2, %1, %0" : "=r"(r) : "r"(src), "rm"(mask));
  return r;
}
bool fast_pdep() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 8))) return false;  // BMI2
  __get_cpuid(0, &a, &b, &c, &d);
  const bool amd = b == 0x68747541;  // "Auth"enticAMD
  if (!amd) return true;
  __get_cpuid(1, &a, &b, &c, &d);
  const unsigned family = ((a >> 8) & 15) + ((a >> 20) & 255);
  return family >= 0x19;  // Zen 1 and 2 (0x17) run it in microcode
}
inline int count_ones(std::uint64_t x) {  // POPCNT: every CPU with BMI2 has it
  std::uint64_t r;
  __asm__("popcntq %1, %0" : "=r"(r) : "rm"(x));
  return int(r);
}
#else
inline std::uint64_t deposit(std::uint64_t, std::uint64_t) { return 0; }
inline int count_ones(std::uint64_t x) { return __builtin_popcountll(x); }
bool fast_pdep() { return false; }
#endif

// The bitmaps of non-zero coefficients (decode_progressive_scan's `nonzero`) hold zigzag
// position k at bit 63 - k: then PDEP sends a run of correction bits, the first read at the
// top, to their coefficients in order.
constexpr std::uint64_t kTop = std::uint64_t(1) << 63;

// The (r + 1)-th highest set bit of `x` as a one-bit mask, 0 where x has no more than r set bits
// (without PDEP; with it, one PDEP does this given the count of x's bits).
inline std::uint64_t nth_highest_bit(std::uint64_t x, int r) {
  for (; r > 0 && x; --r) x ^= kTop >> __builtin_clzll(x);
  return x ? kTop >> __builtin_clzll(x) : 0;
}

struct PlainTable {
  static constexpr int kBits = 9;
  std::uint16_t entry[1 << kBits];  // length << 8 | symbol; 0: a longer code
  std::int32_t maxcode[18];
  std::int32_t valoffset[17];
  std::uint8_t symbols[256];

  explicit PlainTable(const HuffmanTable& t) {
    std::uint32_t code_of[257];
    std::uint8_t size[257];
    huffman_codes(t, size, code_of);
    int p = 0;
    for (int l = 1; l <= 16; ++l) {
      valoffset[l] = 0;
      if (t.counts[l]) {
        valoffset[l] = p - std::int32_t(code_of[p]);
        p += t.counts[l];
        maxcode[l] = std::int32_t(code_of[p - 1]);
      } else {
        maxcode[l] = -1;
      }
    }
    maxcode[0] = -1;
    maxcode[17] = 0xFFFFF;
    std::fill(std::begin(symbols), std::end(symbols), std::uint8_t(0));
    for (std::size_t i = 0; i < t.symbols.size() && i < 256; ++i) symbols[i] = t.symbols[i];
    std::fill(std::begin(entry), std::end(entry), std::uint16_t(0));
    p = 0;
    for (int l = 1; l <= kBits; ++l)
      for (int i = 0; i < t.counts[l]; ++i, ++p) {
        const std::uint32_t first = code_of[p] << (kBits - l);
        for (std::uint32_t j = 0; j < (1u << (kBits - l)); ++j)
          entry[first | j] = std::uint16_t(l << 8 | symbols[p]);
      }
  }

  // The next symbol; a code longer than 16 bits is libjpeg-turbo's JWRN_HUFF_BAD_CODE: 17 bits
  // are consumed and symbol 0 returned.
  template <typename Reader>
  __attribute__((always_inline)) int decode(BitReader& br, Reader& lj, bool& bad_code) const {
    if (br.nbits < 17) br.fill();
    lj.need(8);
    const std::uint16_t e = entry[br.peek(kBits)];
    if (e) {
      const int l = e >> 8;
      if (l > 8) lj.need(9);
      br.consume(l);
      lj.use(l);
      return e & 0xFF;
    }
    lj.need(9);
    for (int l = kBits + 1; l <= 16; ++l) {
      const std::int32_t code = std::int32_t(br.peek(l));
      if (code <= maxcode[l]) {
        br.consume(l);
        lj.use_long(l);
        return symbols[(code + valoffset[l]) & 0xFF];
      }
    }
    br.consume(17);
    lj.use_long(17);
    bad_code = true;
    return 0;
  }
};


const HuffmanTable& table_of(const Scan& scan, int slot, bool ac) {
  const auto& tables = ac ? scan.ac_tables : scan.dc_tables;
  const int n = ac ? scan.ac_table[std::size_t(slot)] : scan.dc_table[std::size_t(slot)];
  if (!tables[std::size_t(n)].defined && n < 2) return standard_huffman_table(ac, n);
  if (!tables[std::size_t(n)].defined)
    invalid(scan.data_offset, std::string(ac ? "AC" : "DC") + " Huffman table " +
                                  std::to_string(n) + " is not defined");
  return tables[std::size_t(n)];
}

// decode_progressive_scan with libjpeg-turbo's reader followed (Reader = LibjpegReader) or
// not (NoReader).
template <typename Reader, bool kPdep>
void decode_scan(const std::uint8_t* data, const Scan& scan, const ScanGeometry& g,
                 std::int16_t* coef, std::uint64_t* nonzero, ScanOutcome& outcome,
                 std::vector<std::string>& warnings) {
  constexpr bool kExact = std::is_same<Reader, LibjpegReader>::value;
  const bool dc_band = scan.ss == 0;
  const int al = scan.al, ss = scan.ss, se = scan.se;
  const std::size_t ncomp = scan.components.size();
  // Tables: DC first scans use each component's DC table, AC scans (one component) its AC
  // table; DC refinement reads raw bits.
  std::vector<PlainTable> tables;
  if (dc_band && scan.ah == 0) {
    for (std::size_t k = 0; k < ncomp; ++k) {
      const HuffmanTable& t = table_of(scan, int(k), false);
      for (std::uint8_t s : t.symbols)
        if (s > 15)
          invalid(scan.data_offset, "DC Huffman table " + std::to_string(scan.dc_table[k]) +
                                        " has symbol " + std::to_string(s) + " (at most 15)");
      tables.emplace_back(t);
    }
  } else if (!dc_band) {
    tables.emplace_back(table_of(scan, 0, true));
  }

  const int mcus = g.mcus();
  int pred[4] = {0, 0, 0, 0};
  unsigned eobrun = 0;
  bool insufficient = false, bad_code = false, bad_refine = false;
  int last_good = 0;  // the last MCU that started with data left
  BitReader br;
  Reader lj;
  bool ends_at_restart = false;
  auto bits = [&](int n) __attribute__((always_inline)) {
    if (br.nbits < n) br.fill();
    lj.need(n);
    lj.use(n);
    return br.bits(n);
  };
  const std::uint32_t p1 = 1u << al;
  const int m1 = -(1 << al);
  // A correction bit for each coefficient of `blk` that `x` marks (T.81 G.1.2.3), in order:
  // one bit added to the magnitude of those whose bit al is still clear. With PDEP the bits
  // are read up to 32 at a time and those set gathered in `up` (bit 63 - k for coefficient
  // k), applied by apply() at the end of the block; the exact pass reads them one by one as
  // libjpeg-turbo's reader does.
  auto apply = [&](std::int16_t * blk, std::uint64_t up) __attribute__((always_inline)) {
    while (up) {
      const int k = __builtin_clzll(up);
      up ^= kTop >> k;
      const int c = blk[k];
      if ((c & int(p1)) == 0) blk[k] = std::int16_t(c >= 0 ? c + int(p1) : c + m1);
    }
  };
  auto correct = [&](std::int16_t * blk, std::uint64_t x, std::uint64_t & up)
      __attribute__((always_inline)) {
    if (kPdep && !kExact) {
      int n = count_ones(x);
      if (__builtin_expect(n > 32, 0)) {
        const std::uint64_t rest = deposit((std::uint64_t(1) << (n - 32)) - 1, x);
        if (br.nbits < 32) br.fill();
        up |= deposit(br.bits(32), x ^ rest);
        x = rest;
        n -= 32;
      }
      if (br.nbits < n) br.fill();
      up |= deposit((br.buf >> (63 - n)) >> 1, x);  // n bits, none when n is 0
      br.consume(n);
      return;
    }
    if (kExact) {
      while (x) {
        const int k = __builtin_clzll(x);
        x ^= kTop >> k;
        up |= std::uint64_t(bits(1)) << (63 - k);
      }
      return;
    }
    while (x) {
      const int n = std::min(__builtin_popcountll(x), 32);
      if (br.nbits < n) br.fill();
      std::uint32_t v = br.bits(n) << (32 - n);  // the first bit at the top
      for (int i = 0; i < n; ++i) {
        const int k = __builtin_clzll(x);
        x ^= kTop >> k;
        up |= std::uint64_t(v >> 31) << (63 - k);
        v <<= 1;
      }
    }
  };
  auto start_interval = [&](std::uint32_t k) {
    std::size_t begin = scan.data_offset, end = scan.data_end;
    if (k > 0) {
      // libjpeg-turbo's process_restart: the DC predictions and the end-of-band run start
      // over; the out-of-data flag is cleared unless the restart marker was missing, in which
      // case the interval has no data at all.
      pred[0] = pred[1] = pred[2] = pred[3] = 0;
      eobrun = 0;
      const auto& starts = scan.interval_starts;
      const Scan::IntervalStart s =
          k - 1 < starts.size() ? starts[k - 1] : Scan::IntervalStart{Scan::kEmptyInterval, -2};
      if (s.found >= 0) {
        char found[16];
        std::snprintf(found, sizeof found, "0x%02x", s.found);
        warnings.push_back("corrupt JPEG data: found marker " + std::string(found) +
                           " instead of RST" + std::to_string((k - 1) & 7) + " (restart interval " +
                           std::to_string(k) + ")");
      }
      if (s.begin == Scan::kEmptyInterval) {
        begin = end = scan.data_end;
      } else {
        begin = s.begin;
        insufficient = false;
      }
    }
    const auto next = std::upper_bound(scan.restarts.begin(), scan.restarts.end(), begin);
    ends_at_restart = next != scan.restarts.end();
    if (ends_at_restart) end = *next;
    begin = std::min(begin, end);
    br = BitReader(data + begin, data + end);
    lj.start(data + begin, data + end);
  };
  auto finish_interval = [&](std::uint32_t k) {
    if (!kExact && !insufficient && !read_to_the_end(br)) outcome.needs_exact = true;
    if (insufficient) {
      warnings.push_back("corrupt JPEG data: premature end of data segment (scan at byte " +
                         std::to_string(scan.data_offset) + ", restart interval " +
                         std::to_string(k) + ")");
      return;
    }
    const std::size_t left =
        (ends_at_restart ? std::size_t(std::max(lj.bits, 0)) / 8 : 0) + lj.unread();
    if (left)
      warnings.push_back("corrupt JPEG data: " + std::to_string(left) +
                         " extraneous bytes before the next marker (scan at byte " +
                         std::to_string(scan.data_offset) + ", restart interval " +
                         std::to_string(k) + ")");
  };
  // An AC scan (one component, one block an MCU): the first decoding of a band of one block.
  // The fast pass's AC first scans decode with the sequential decoder's table, whose entries
  // give a code's run and value at once where code and magnitude bits fit in its lookahead.
  std::shared_ptr<const HuffmanLookup> full;
  if (!kExact && !dc_band && scan.ah == 0) full = cached_derive(table_of(scan, 0, true), true);
  auto store = [&](std::int16_t * blk, std::uint64_t & nz, int at, int v)
      __attribute__((always_inline)) {
    blk[at] = std::int16_t(std::uint32_t(v) << al);
    if (blk[at])
      nz |= kTop >> at;
    else  // a value that a corrupt run shifted out of 16 bits
      nz &= ~(kTop >> at);
  };
  auto ac_first = [&](std::int16_t * blk, std::uint64_t & nz) __attribute__((always_inline)) {
    if (!kExact) {
      const HuffmanLookup& f = *full;
      for (int k = ss; k <= se;) {  // k: the zigzag index of the next coefficient
        if (br.nbits < 32) br.fill();
        const std::int32_t e = f.entry[br.peek(HuffmanLookup::kBits)];
        if (e & HuffmanLookup::kFull) {
          br.consume(e & 63);
          if (e & HuffmanLookup::kEnd) break;  // EOB: a run of one block, this one
          k += ((e >> 8) & 31) - 1;
          store(blk, nz, k < 64 ? k : 63, e >> 16);
          ++k;
          continue;
        }
        int sym;
        if (e) {
          br.consume(e & 63);
          sym = (e >> 8) & 0xFF;
        } else {
          sym = decode_long_symbol(br, f, bad_code);
        }
        const int r = sym >> 4, s = sym & 15;
        if (s) {
          k += r;
          store(blk, nz, k < 64 ? k : 63, extend(bits(s), s));
          ++k;
        } else if (r == 15) {
          k += 16;
        } else {
          eobrun = 1u << r;
          if (r) eobrun += bits(r);
          --eobrun;
          break;
        }
      }
      return;
    }
    const PlainTable& t = tables[0];
    for (int k = ss; k <= se; ++k) {
      int s = t.decode(br, lj, bad_code);
      int r = s >> 4;
      s &= 15;
      if (s) {
        k += r;
        store(blk, nz, k < 64 ? k : 63, extend(bits(s), s));
      } else if (r == 15) {
        k += 15;
      } else {
        eobrun = 1u << r;
        if (r) eobrun += bits(r);
        --eobrun;
        break;
      }
    }
  };
  // Successive approximation refinement of a band of one block (T.81 G.1.2.3).
  const std::uint64_t band = ~std::uint64_t(0) << (63 - se);  // [0, se]
  auto ac_refine = [&](std::int16_t * blk, std::uint64_t & nz) __attribute__((always_inline)) {
    const PlainTable& t = tables[0];
    // The coefficients of [ss, se] not yet passed: those still zero and those non-zero. Each
    // symbol passes a run of them; kept as masks (and with PDEP a count), so that no step
    // waits on where the last one ended.
    const std::uint64_t from_ss = band & (~std::uint64_t(0) >> ss);
    std::uint64_t zr = ~nz & from_ss, nzr = nz & from_ss;
    std::uint64_t up = 0;
    if (eobrun == 0) {
      int zc = kPdep ? count_ones(zr) : 0;
      while (zr | nzr) {
        int s = t.decode(br, lj, bad_code);
        int r = s >> 4;
        s &= 15;
        int value = 0;
        if (s) {
          if (s != 1) bad_refine = true;
          value = bits(1) ? int(p1) : m1;
        } else if (r != 15) {
          eobrun = 1u << r;
          if (r) eobrun += bits(r);
          break;
        }
        // Past r still-zero coefficients, a correction bit for each non-zero one met on the
        // way: the target is the (r + 1)-th zero left (or past se).
        std::uint64_t hit;
        if (kPdep) {
          hit = zc > r ? deposit(std::uint64_t(1) << (zc - 1 - r), zr) : 0;
          zc -= r + 1;
        } else {
          hit = nth_highest_bit(zr, r);
        }
        const std::uint64_t passed = hit ? ~(hit - 1) : ~std::uint64_t(0);  // hit and before
        correct(blk, nzr & passed, up);
        zr &= ~passed;
        nzr &= ~passed;
        if (value) {  // (a new ±1 has bit al set: apply() leaves it)
          const int at = hit ? __builtin_clzll(hit) : se < 63 ? se + 1 : 63;
          blk[at] = std::int16_t(value);
          nz |= kTop >> at;
        }
      }
    }
    if (eobrun > 0) {
      correct(blk, nzr, up);  // a correction bit for each non-zero coefficient left
      --eobrun;
    }
    apply(blk, up);
  };
  // MCUs [m, end) of one restart interval (or the scan); once the data has run out, the rest
  // are left as they are, the last that started with data left kept in last_good.
  auto run = [&](int m, const int end) {
    if (dc_band) {
      // Each block of the MCU at its global index, moved on MCU by MCU.
      const int nb = int(g.mcu.size());
      std::size_t id[10], step[10], row_jump[10];
      int slot[10];
      const int mx0 = m % g.mcus_x, my0 = m / g.mcus_x;
      for (int j = 0; j < nb; ++j) {
        const ScanGeometry::Block& b = g.mcu[std::size_t(j)];
        const ComponentLayout& cl = g.layout->components[std::size_t(b.component)];
        id[j] = cl.first_block + std::size_t(my0 * b.v + b.dy) * std::size_t(cl.grid_w) +
                std::size_t(mx0 * b.h + b.dx);
        step[j] = std::size_t(b.h);
        row_jump[j] = std::size_t(b.v) * std::size_t(cl.grid_w) - std::size_t(g.mcus_x * b.h);
        slot[j] = b.slot;
      }
      int mx = mx0;
      for (; m < end && !insufficient; ++m) {
        last_good = m;
        if (scan.ah == 0) {
          for (int j = 0; j < nb; ++j) {
            const int s = tables[std::size_t(slot[j])].decode(br, lj, bad_code);
            const int diff = s ? extend(bits(s), s) : 0;
            int& p = pred[slot[j]];
            if ((p >= 0 && diff > INT_MAX - p) || (p < 0 && diff < INT_MIN - p))
              invalid(scan.data_offset, "DC coefficient out of range");
            p += diff;
            coef[64 * id[j]] = std::int16_t(std::uint32_t(p) << al);
          }
        } else if (kExact) {
          for (int j = 0; j < nb; ++j)
            if (bits(1)) coef[64 * id[j]] = std::int16_t(std::uint16_t(coef[64 * id[j]]) | p1);
        } else {
          const std::uint32_t v = bits(nb);  // one bit a block, the first at the top
          for (int j = 0; j < nb; ++j)
            if (v >> (nb - 1 - j) & 1)
              coef[64 * id[j]] = std::int16_t(std::uint16_t(coef[64 * id[j]]) | p1);
        }
        if (br.exhausted()) insufficient = true;
        for (int j = 0; j < nb; ++j) id[j] += step[j];
        if (++mx == g.mcus_x) {
          mx = 0;
          for (int j = 0; j < nb; ++j) id[j] += row_jump[j];
        }
      }
      return;
    }
    const ComponentLayout& cl = g.layout->components[std::size_t(g.mcu[0].component)];
    const std::size_t skip = std::size_t(cl.grid_w) - std::size_t(g.mcus_x);
    int mx = m % g.mcus_x;
    std::size_t id =
        cl.first_block + std::size_t(m / g.mcus_x) * std::size_t(cl.grid_w) + std::size_t(mx);
    auto next = [&](int n) __attribute__((always_inline)) {  // n MCUs on
      m += n;
      mx += n;
      id += std::size_t(n);
      if (mx >= g.mcus_x) {
        id += skip * std::size_t(mx / g.mcus_x);
        mx %= g.mcus_x;
      }
    };
    if (scan.ah == 0) {
      while (m < end && !insufficient) {
        last_good = m;
        if (eobrun > 0) {  // blocks an end-of-band run covers: nothing to read
          const int n = int(std::min<unsigned>(eobrun, unsigned(end - m)));
          eobrun -= unsigned(n);
          last_good = m + n - 1;
          next(n);
          continue;
        }
        ac_first(coef + 64 * id, nonzero[id]);
        if (br.exhausted()) insufficient = true;
        next(1);
      }
    } else {
      while (m < end && !insufficient) {
        last_good = m;
        ac_refine(coef + 64 * id, nonzero[id]);
        if (br.exhausted()) insufficient = true;
        next(1);
      }
    }
  };
  std::uint32_t interval = 0;
  start_interval(0);
  const int per_interval = g.restart ? g.restart : mcus;
  for (int m = 0; m < mcus; m += per_interval) {
    if (m > 0) {
      finish_interval(interval);
      start_interval(++interval);
    }
    run(m, std::min(mcus, m + per_interval));
  }
  finish_interval(interval);
  if (!kExact && outcome.needs_exact) return;  // (the exact pass gives the warnings)
  outcome.last_good_imcu_row = g.imcu_row(last_good);
  if (bad_code)
    warnings.push_back("corrupt JPEG data: bad Huffman code (scan at byte " +
                       std::to_string(scan.data_offset) + ")");
  if (bad_refine)
    warnings.push_back(
        "corrupt JPEG data: refinement coefficient of more than one bit (scan at "
        "byte " +
        std::to_string(scan.data_offset) + ")");
}

std::atomic<bool>& pdep_flag() {
  static std::atomic<bool> on{fast_pdep()};
  return on;
}

}  // namespace

bool use_pdep(bool on) {
  pdep_flag().store(on && fast_pdep());
  return on && fast_pdep();
}

void decode_progressive_scan(const std::uint8_t* data, std::size_t, const Header&, const Scan& scan,
                             const ScanGeometry& g, std::int16_t* coef, std::uint64_t* nonzero,
                             ScanOutcome& outcome, std::vector<std::string>& warnings) {
  const bool pdep = pdep_flag().load(std::memory_order_relaxed);
  if (outcome.exact)
    decode_scan<LibjpegReader, false>(data, scan, g, coef, nonzero, outcome, warnings);
  else if (pdep)
    decode_scan<NoReader, true>(data, scan, g, coef, nonzero, outcome, warnings);
  else
    decode_scan<NoReader, false>(data, scan, g, coef, nonzero, outcome, warnings);
}

}  // namespace hetcodec::jpeg
