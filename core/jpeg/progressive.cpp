// Progressive Huffman scans (T.81 G.2, G.1.2): DC first and refinement scans, AC spectral
// selection and successive approximation with end-of-band runs, decoded into the frame's
// coefficient buffer as libjpeg-turbo's jdphuff.c decodes them, corrupt data included.
#include <algorithm>
#include <climits>
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
template <typename Reader>
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
  const int per_interval = g.restart ? g.restart : mcus;
  int until_restart = per_interval + 1;  // MCUs before the next restart marker, this one included
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
  std::uint32_t interval = 0;
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
  start_interval(0);
  int mx = 0, my = 0;
  for (int m = 0; m < mcus; ++m) {
    if (!insufficient) last_good = m;
    if (--until_restart == 0) {
      until_restart = per_interval;
      finish_interval(interval);
      start_interval(++interval);
    }
    if (!insufficient) {
      if (dc_band) {
        for (const auto& b : g.mcu) {
          const ComponentLayout& cl = g.layout->components[std::size_t(b.component)];
          std::int16_t* blk =
              coef + 64 * std::size_t(cl.first_block +
                                      std::uint32_t(my * b.v + b.dy) * std::uint32_t(cl.grid_w) +
                                      std::uint32_t(mx * b.h + b.dx));
          if (scan.ah == 0) {
            const int s = tables[std::size_t(b.slot)].decode(br, lj, bad_code);
            int diff = 0;
            if (s) {
              diff = extend(bits(s), s);
            }
            int& p = pred[b.slot];
            if ((p >= 0 && diff > INT_MAX - p) || (p < 0 && diff < INT_MIN - p))
              invalid(scan.data_offset, "DC coefficient out of range");
            p += diff;
            blk[0] = std::int16_t(std::uint32_t(p) << al);
          } else {
            if (bits(1)) blk[0] = std::int16_t(std::uint16_t(blk[0]) | p1);
          }
        }
      } else {
        const ScanGeometry::Block& b = g.mcu[0];
        const ComponentLayout& cl = g.layout->components[std::size_t(b.component)];
        const std::size_t id =
            cl.first_block + std::uint32_t(my) * std::uint32_t(cl.grid_w) + std::uint32_t(mx);
        std::int16_t* blk = coef + 64 * id;
        std::uint64_t& nz = nonzero[id];
        const PlainTable& t = tables[0];
        if (scan.ah == 0) {
          if (eobrun > 0) {
            --eobrun;
          } else {
            for (int k = ss; k <= se; ++k) {
              int s = t.decode(br, lj, bad_code);
              int r = s >> 4;
              s &= 15;
              if (s) {
                k += r;
                const int v = extend(bits(s), s);
                const int at = k < 64 ? k : 63;
                blk[at] = std::int16_t(std::uint32_t(v) << al);
                if (blk[at])
                  nz |= std::uint64_t(1) << at;
                else  // a value that a corrupt run shifted out of 16 bits
                  nz &= ~(std::uint64_t(1) << at);
              } else if (r == 15) {
                k += 15;
              } else {
                eobrun = 1u << r;
                if (r) eobrun += bits(r);
                --eobrun;
                break;
              }
            }
          }
        } else {
          // Successive approximation refinement of an AC band (T.81 G.1.2.3).
          int k = ss;
          const std::uint64_t band =
              se == 63 ? ~std::uint64_t(0) : (std::uint64_t(1) << (se + 1)) - 1;
          if (eobrun == 0) {
            for (; k <= se; ++k) {
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
              // Past r still-zero coefficients, appending a correction bit to each non-zero
              // one met on the way: the target is the (r + 1)-th zero of [k, se] (or past se).
              const std::uint64_t from_k = band & (~std::uint64_t(0) << k);
              std::uint64_t zeros = ~nz & from_k;
              for (; r > 0 && zeros; --r) zeros &= zeros - 1;
              const int target = zeros ? __builtin_ctzll(zeros) : se + 1;
              std::uint64_t x =
                  nz & from_k &
                  (target > 63 ? ~std::uint64_t(0) : (std::uint64_t(1) << target) - 1);
              while (x) {
                std::int16_t& c = blk[__builtin_ctzll(x)];
                x &= x - 1;
                if (bits(1) && (c & int(p1)) == 0) c = std::int16_t(c >= 0 ? c + int(p1) : c + m1);
              }
              k = target;
              if (value) {
                const int at = k < 64 ? k : 63;
                blk[at] = std::int16_t(value);
                nz |= std::uint64_t(1) << at;
              }
            }
          }
          if (eobrun > 0) {
            // A correction bit for each coefficient of [k, se] already non-zero.
            std::uint64_t x = nz & band & (~std::uint64_t(0) << k);
            while (x) {
              std::int16_t& c = blk[__builtin_ctzll(x)];
              x &= x - 1;
              if (bits(1) && (c & int(p1)) == 0) c = std::int16_t(c >= 0 ? c + int(p1) : c + m1);
            }
            --eobrun;
          }
        }
      }
      if (br.exhausted()) insufficient = true;
    }
    if (++mx == g.mcus_x) {
      mx = 0;
      ++my;
    }
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

}  // namespace

void decode_progressive_scan(const std::uint8_t* data, std::size_t, const Header&, const Scan& scan,
                             const ScanGeometry& g, std::int16_t* coef, std::uint64_t* nonzero,
                             ScanOutcome& outcome, std::vector<std::string>& warnings) {
  if (outcome.exact)
    decode_scan<LibjpegReader>(data, scan, g, coef, nonzero, outcome, warnings);
  else
    decode_scan<NoReader>(data, scan, g, coef, nonzero, outcome, warnings);
}

}  // namespace hetcodec::jpeg
