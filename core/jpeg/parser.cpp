// JPEG marker parsing, ITU-T T.81 Annex B (B.1 marker codes, B.2 frame and scan headers, B.2.4
// table specifications, B.1.1.5 entropy-coded segments with byte stuffing and RSTn).
#include "core/jpeg/parser.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "core/error.h"

namespace hetcodec::jpeg {
namespace {

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "jpeg: byte " + std::to_string(at) + ": " + what);
}

std::string hex(int marker) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", marker);
  return buf;
}

// Bounds-checked reading inside one marker segment's payload.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t begin, std::size_t end, const char* segment)
      : data_(data), pos_(begin), end_(end), segment_(segment) {}
  int u8() {
    need(1);
    return data_[pos_++];
  }
  int u16() {
    need(2);
    int v = data_[pos_] << 8 | data_[pos_ + 1];
    pos_ += 2;
    return v;
  }
  std::size_t pos() const { return pos_; }
  std::size_t left() const { return end_ - pos_; }

 private:
  void need(std::size_t n) {
    if (end_ - pos_ < n) invalid(pos_, std::string(segment_) + " segment ends early");
  }
  const std::uint8_t* data_;
  std::size_t pos_, end_;
  const char* segment_;
};

// Names the segment a Reader error is about ("DQT segment ends early").
const char* segment_name(int marker) {
  switch (marker) {
    case 0xDB:
      return "DQT";
    case 0xC4:
      return "DHT";
    case 0xCC:
      return "DAC";
    case 0xDD:
      return "DRI";
    case 0xDA:
      return "SOS";
    default:
      return "marker";
  }
}

struct Tables {
  std::array<QuantTable, 4> quant;
  std::array<HuffmanTable, 4> dc, ac;
  std::array<std::uint8_t, 4> arith_dc_l{0, 0, 0, 0}, arith_dc_u{1, 1, 1, 1},
      arith_ac_k{5, 5, 5, 5};
  int restart_interval = 0;
};

void parse_dqt(Reader& r, Tables& t) {
  while (r.left() > 0) {
    std::size_t at = r.pos();
    int pq_tq = r.u8();
    int pq = pq_tq >> 4, tq = pq_tq & 15;
    if (pq > 1) invalid(at, "DQT: precision " + std::to_string(pq) + " (expected 0 or 1)");
    if (tq > 3) invalid(at, "DQT: table " + std::to_string(tq) + " (expected 0..3)");
    QuantTable& q = t.quant[tq];
    q.defined = true;
    q.precision = pq;
    for (auto& v : q.values) v = static_cast<std::uint16_t>(pq ? r.u16() : r.u8());
  }
}

void parse_dht(Reader& r, Tables& t) {
  while (r.left() > 0) {
    std::size_t at = r.pos();
    int tc_th = r.u8();
    int tc = tc_th >> 4, th = tc_th & 15;
    if (tc > 1 || th > 3)
      invalid(at, "DHT: table class/id " + hex(tc_th) + " (expected 0..1 / 0..3)");
    HuffmanTable h;
    h.defined = true;
    int total = 0;
    for (int len = 1; len <= 16; ++len) total += h.counts[len] = static_cast<std::uint8_t>(r.u8());
    if (total > 256) invalid(at, "DHT: " + std::to_string(total) + " symbols (at most 256)");
    // Canonical codes must fit their lengths (T.81 C.2): otherwise the table is bogus.
    std::uint32_t code = 0;
    for (int len = 1; len <= 16; ++len) {
      code += h.counts[len];
      if (code > (1u << len)) invalid(at, "DHT: code lengths overflow 16 bits");
      code <<= 1;
    }
    h.symbols.resize(total);
    for (auto& s : h.symbols) s = static_cast<std::uint8_t>(r.u8());
    (tc == 0 ? t.dc : t.ac)[th] = std::move(h);
  }
}

// T.81 B.2.4.3, checked as libjpeg-turbo's get_dac checks it: a class/identifier byte from 0x20
// on (it numbers 16 tables of each class) and DC bounds with L > U are errors; Kx is taken as
// it is (T.81 asks for 1..63, but libjpeg-turbo only compares k with it). Tables 4..15, which
// no scan can name here, are accepted and not kept.
void parse_dac(Reader& r, Tables& t) {
  while (r.left() > 0) {
    std::size_t at = r.pos();
    int tc_tb = r.u8();
    int value = r.u8();
    if (tc_tb >= 0x20)
      invalid(at, "DAC: table class/id " + hex(tc_tb) + " (expected 0..1 / 0..15)");
    const int tb = tc_tb & 15;
    if (tc_tb < 0x10) {
      const int l = value & 15, u = value >> 4;
      if (l > u)
        invalid(at, "DAC: DC conditioning bounds L=" + std::to_string(l) +
                        " above U=" + std::to_string(u));
      if (tb < 4) {
        t.arith_dc_l[std::size_t(tb)] = static_cast<std::uint8_t>(l);
        t.arith_dc_u[std::size_t(tb)] = static_cast<std::uint8_t>(u);
      }
    } else if (tb < 4) {
      t.arith_ac_k[std::size_t(tb)] = static_cast<std::uint8_t>(value);
    }
  }
}

Process process_of(int marker) {
  switch (marker) {
    case 0xC0:
      return Process::Baseline;
    case 0xC1:
      return Process::ExtendedHuffman;
    case 0xC2:
      return Process::ProgressiveHuffman;
    case 0xC3:
      return Process::LosslessHuffman;
    default:
      return Process::Arithmetic;  // C5..C7 differential and C9..CF are refused later
  }
}

void parse_sof(Reader& r, int marker, std::size_t at, Header& h, const Limits& limits) {
  if (h.sof_marker) invalid(at, "second frame header (SOF" + hex(marker) + ")");
  h.sof_marker = marker;
  h.process = process_of(marker);
  h.precision = r.u8();
  h.height = r.u16();
  h.width = r.u16();
  int n = r.u8();
  if (h.width == 0) invalid(at, "frame width 0");
  if (h.height == 0) invalid(at, "frame height 0 (DNL-defined height is not supported)");
  if (n < 1 || n > 4) invalid(at, "frame has " + std::to_string(n) + " components (expected 1..4)");
  if (std::uint64_t(h.width) * std::uint64_t(h.height) > limits.max_pixels) {
    throw Error(ErrorCode::LimitExceeded,
                "jpeg: byte " + std::to_string(at) + ": " + std::to_string(h.width) + "x" +
                    std::to_string(h.height) + " exceeds the pixel limit of " +
                    std::to_string(limits.max_pixels));
  }
  for (int i = 0; i < n; ++i) {
    std::size_t cat = r.pos();
    Component c;
    c.id = r.u8();
    int hv = r.u8();
    c.h = hv >> 4;
    c.v = hv & 15;
    c.quant_table = r.u8();
    if (c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4)
      invalid(cat, "sampling factors " + hex(hv) + " (expected 1..4 each)");
    if (c.quant_table > 3) invalid(cat, "quantisation table " + std::to_string(c.quant_table));
    for (const auto& o : h.components) {
      if (o.id == c.id) invalid(cat, "component id " + std::to_string(c.id) + " repeated");
    }
    h.max_h = std::max(h.max_h, c.h);
    h.max_v = std::max(h.max_v, c.v);
    h.components.push_back(c);
  }
}

// Finds the end of the entropy-coded data that starts at `pos`: the first marker other than
// RSTn from SOF0 (0xC0) on. Stuffed 0xFF00 pairs and fill bytes are data. Records each RSTn.
// A marker below 0xC0 (TEM, reserved), which only corrupt data holds there, stays inside the
// data: the entropy decoder stops at it as at any marker (the rest of its interval is grey)
// and the next interval starts after the next RSTn, as libjpeg-turbo's resync_to_restart skips
// such markers; without restarts the rest of the scan is grey, as in libjpeg-turbo.
// Scan::interval_starts from the markers inside the scan's data (offset of the 0xFF, code),
// ending with the one that ends it (0xD9 for the end of the file, as libjpeg-turbo's source
// manager fakes an EOI there). At each restart boundary libjpeg-turbo takes the next marker:
// the RSTn expected is swallowed; otherwise jpeg_resync_to_restart skips reserved markers and
// the two RSTn before the one expected (action 2), leaves any other marker and the two RSTn
// after it for later, the interval being empty (action 3), and swallows any other RSTn
// (action 1).
void plan_intervals(const std::vector<std::pair<std::size_t, int>>& markers, Scan& scan) {
  std::size_t cur = 0;
  for (unsigned k = 1; cur < markers.size(); ++k) {
    const int desired = 0xD0 + int((k - 1) & 7);
    Scan::IntervalStart start;
    for (;;) {
      const int m = markers[cur].second;
      const bool rst = m >= 0xD0 && m <= 0xD7;
      const int ahead = (m - desired) & 7;  // for an RSTn: how far after the one expected
      if (rst && ahead == 0 && start.found < 0) {
        start.begin = markers[cur++].first + 2;
        break;
      }
      if (start.found < 0) start.found = m;
      if (m < 0xC0 || (rst && (ahead == 7 || ahead == 6))) {
        if (++cur == markers.size()) return;  // past the last marker: nothing more to skip to
        continue;
      }
      if (!rst || ahead == 1 || ahead == 2) {
        start.begin = Scan::kEmptyInterval;
        break;
      }
      start.begin = markers[cur++].first + 2;
      break;
    }
    scan.interval_starts.push_back(start);
    // A marker left unread (not an RSTn) stays: every later interval is empty.
    if (start.begin == Scan::kEmptyInterval &&
        !(markers[cur].second >= 0xD0 && markers[cur].second <= 0xD7))
      return;
  }
}

// The marker candidates of d[from, size) on several threads, for a large scan: each maximal run of
// 0xFF bytes that starts in [from, size) (at `from`, or after a byte other than 0xFF) and is
// followed by a byte other than 0x00, as (offset of the run's first 0xFF, offset of the byte after
// the run), in file order. A thread stops at the first run its chunk holds that ends the scan (a
// marker from SOF0 on other than RSTn, or the end of the data): scan_data reads no further.
std::vector<std::pair<std::size_t, std::size_t>> find_marker_runs(const std::uint8_t* d,
                                                                  std::size_t from,
                                                                  std::size_t size, int threads_) {
  const std::size_t n = size - from;
  const std::size_t threads =
      threads_ > 0 ? std::size_t(threads_)
                   : std::max<std::size_t>(
                         1, std::min<std::size_t>(std::thread::hardware_concurrency(), n >> 21));
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> found(threads);
  auto work = [&](std::size_t k) {
    const std::size_t a = from + n * k / threads, b = from + n * (k + 1) / threads;
    std::size_t p = a;
    while (p < b) {
      const void* ff = std::memchr(d + p, 0xFF, b - p);
      if (!ff) break;
      p = std::size_t(static_cast<const std::uint8_t*>(ff) - d);
      if (p != from && d[p - 1] == 0xFF) {  // inside a run that starts in the chunk before
        ++p;
        continue;
      }
      std::size_t next = p + 1;
      while (next < size && d[next] == 0xFF) ++next;
      if (next >= size || d[next] != 0x00) {
        found[k].push_back({p, next});
        if (next >= size || (d[next] >= 0xC0 && !(d[next] >= 0xD0 && d[next] <= 0xD7))) return;
      }
      p = next + 1;
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < threads; ++k) pool.emplace_back(work, k);
  work(0);
  for (auto& t : pool) t.join();
  std::vector<std::pair<std::size_t, std::size_t>> all;
  for (auto& f : found) all.insert(all.end(), f.begin(), f.end());
  return all;
}

std::size_t scan_data(const std::uint8_t* d, std::size_t pos, std::size_t size, Scan& scan,
                      const Limits& limits) {
  std::size_t reserved = 0;  // the last reserved marker (0x02..0xBF) met, plus one
  // libjpeg-turbo skips a reserved marker when it resynchronises to the next RSTn, but one
  // that no RSTn follows reaches its marker reader, for which it is a fatal error
  // (jdmarker.c: JERR_UNKNOWN_MARKER).
  auto check_reserved = [&] {
    if (reserved && (scan.restart_interval == 0 || scan.restarts.empty() ||
                     scan.restarts.back() < reserved - 1))
      invalid(reserved - 1, "reserved marker " + hex(d[reserved]) +
                                " in the scan's data (libjpeg-turbo stops there too)");
  };
  std::vector<std::pair<std::size_t, int>> markers;
  auto finish = [&](std::size_t end, int code) {
    check_reserved();
    if (scan.restart_interval > 0) {
      markers.push_back({end, code});
      plan_intervals(markers, scan);
    }
    return end;
  };
  if (size - pos >= limits.parallel_scan_bytes) {
    // The loop below, over the runs found in parallel.
    for (const auto& [at, next] : find_marker_runs(d, pos, size, limits.scan_threads)) {
      if (next >= size) return finish(size, 0xD9);
      const int m = d[next];
      if (m >= 0xD0 && m <= 0xD7) {
        scan.restarts.push_back(at);
        markers.push_back({next - 1, m});
      } else if (m < 0xC0) {
        if (m != 0x01) reserved = next;
        markers.push_back({next - 1, m});
      } else {
        return finish(at, m);
      }
    }
    return finish(size, 0xD9);
  }
  while (pos < size) {
    const void* ff = std::memchr(d + pos, 0xFF, size - pos);
    if (!ff) return finish(size, 0xD9);
    pos = static_cast<const std::uint8_t*>(ff) - d;
    std::size_t next = pos + 1;
    while (next < size && d[next] == 0xFF) ++next;  // fill bytes
    if (next >= size) return finish(size, 0xD9);
    int m = d[next];
    if (m == 0x00) {
      pos = next + 1;
    } else if (m >= 0xD0 && m <= 0xD7) {
      scan.restarts.push_back(pos);
      markers.push_back({next - 1, m});
      pos = next + 1;
    } else if (m < 0xC0) {
      if (m != 0x01) reserved = next;
      markers.push_back({next - 1, m});
      pos = next + 1;
    } else {
      return finish(pos, m);
    }
  }
  return finish(size, 0xD9);
}

void parse_sos(Reader& r, std::size_t at, const std::uint8_t* d, std::size_t size, const Tables& t,
               Header& h, const Limits& limits) {
  if (!h.sof_marker) invalid(at, "scan (SOS) before the frame header (SOFn)");
  if (h.scans.size() >= std::size_t(std::max(limits.max_scans, 1)))
    throw Error(ErrorCode::LimitExceeded, "jpeg: byte " + std::to_string(at) + ": more than " +
                                              std::to_string(limits.max_scans) +
                                              " scans, the limit (max_scans)");
  Scan s;
  int n = r.u8();
  if (n < 1 || n > 4 || n > int(h.components.size()))
    invalid(at, "scan has " + std::to_string(n) + " components");
  // libjpeg-turbo's get_sos: the length must be exactly that of n components.
  if (r.left() + 1 != std::size_t(2 * n + 4))
    invalid(at, "SOS length " + std::to_string(r.left() + 3) + " for " + std::to_string(n) +
                    " components (expected " + std::to_string(2 * n + 6) + ")");
  for (int i = 0; i < n; ++i) {
    std::size_t cat = r.pos();
    int id = r.u8();
    int tables = r.u8();
    int index = -1;
    for (std::size_t c = 0; c < h.components.size(); ++c) {
      if (h.components[c].id == id) index = int(c);
    }
    if (index < 0)
      invalid(cat, "scan names component id " + std::to_string(id) + ", not in the frame");
    for (int prev : s.components) {
      if (prev == index) invalid(cat, "scan names component id " + std::to_string(id) + " twice");
    }
    if ((tables >> 4) > 3 || (tables & 15) > 3)
      invalid(cat, "scan Huffman table ids " + hex(tables));
    s.components.push_back(index);
    s.dc_table.push_back(tables >> 4);
    s.ac_table.push_back(tables & 15);
  }
  s.ss = r.u8();
  s.se = r.u8();
  int a = r.u8();
  s.ah = a >> 4;
  s.al = a & 15;
  s.dc_tables = t.dc;
  s.ac_tables = t.ac;
  s.quant_tables = t.quant;
  s.arith_dc_l = t.arith_dc_l;
  s.arith_dc_u = t.arith_dc_u;
  s.arith_ac_k = t.arith_ac_k;
  s.restart_interval = t.restart_interval;
  s.data_offset = r.pos() + r.left();
  s.data_end = scan_data(d, s.data_offset, size, s, limits);
  h.scans.push_back(std::move(s));
}

void parse_app(const std::uint8_t* d, int marker, std::size_t payload, std::size_t length,
               Header& h) {
  h.segments.push_back({marker, payload, length});
  // libjpeg counts a JFIF APP0 only when it holds the whole 14-byte JFIF header.
  if (marker == 0xE0 && length >= 14 && std::memcmp(d + payload, "JFIF\0", 5) == 0) h.jfif = true;
  if (marker == 0xEE && length >= 12 && std::memcmp(d + payload, "Adobe", 5) == 0) {
    h.adobe = true;
    h.adobe_transform = d[payload + 11];
  }
}

}  // namespace

const char* to_string(Process p) {
  switch (p) {
    case Process::Baseline:
      return "baseline Huffman (SOF0)";
    case Process::ExtendedHuffman:
      return "extended sequential Huffman (SOF1)";
    case Process::ProgressiveHuffman:
      return "progressive Huffman (SOF2)";
    case Process::LosslessHuffman:
      return "lossless Huffman (SOF3)";
    case Process::Arithmetic:
      return "arithmetic-coded or hierarchical (SOF5..SOF15)";
  }
  return "?";
}

namespace {

// How far parse_markers reads: the whole file, the markers before the first scan, or the frame
// header alone (other segments before it skipped by their length, unread).
enum class Upto { All, FirstScan, Frame };

// parse(), parse_headers() and parse_frame().
Header parse_markers(const std::uint8_t* d, std::size_t size, const Limits& limits, Upto upto) {
  const bool headers_only = upto != Upto::All;
  if (size == 0) invalid(0, "empty input");
  if (size < 2 || d[0] != 0xFF || d[1] != 0xD8) invalid(0, "not a JPEG file (no SOI marker)");
  Header h;
  Tables t;
  std::size_t pos = 2;
  bool eoi = false;
  while (!eoi) {
    if (pos >= size) {
      if (headers_only && h.sof_marker) break;
      if (h.scans.empty()) invalid(size, "file ends before any scan");
      h.warnings.push_back("premature end of JPEG file (no EOI marker)");
      break;
    }
    std::size_t after_fill = pos;
    while (after_fill < size && d[after_fill] == 0xFF) ++after_fill;
    if (d[pos] != 0xFF || (after_fill < size && d[after_fill] == 0x00)) {
      // Garbage between segments: skipped to the next marker, as libjpeg's next_marker does,
      // stuffed FF 00 pairs included.
      std::size_t start = pos;
      for (;;) {
        while (pos < size && d[pos] != 0xFF) ++pos;
        std::size_t q = pos;
        while (q < size && d[q] == 0xFF) ++q;
        if (q >= size || d[q] != 0x00) break;
        pos = q + 1;
      }
      h.warnings.push_back("corrupt JPEG data: " + std::to_string(pos - start) +
                           " extraneous bytes before marker at byte " + std::to_string(pos));
      continue;
    }
    while (pos < size && d[pos] == 0xFF) ++pos;  // fill bytes
    if (pos >= size) continue;
    std::size_t at = pos - 1;
    int m = d[pos++];
    if (m == 0xD9) {
      eoi = true;
      break;
    }
    if (m == 0xD8) invalid(at, "second SOI marker");
    if ((m >= 0xD0 && m <= 0xD7) || m == 0x01) continue;  // stray RSTn, TEM: no payload
    if (!h.scans.empty() && !headers_only &&
        (size - pos < 2 || (std::size_t(d[pos]) << 8 | d[pos + 1]) > size - pos) &&
        (m == 0xDB || m == 0xC4 || m == 0xCC || m == 0xDD)) {
      // A table segment cut short by the end of the file after a scan (a truncated progressive
      // file): libjpeg-turbo's source manager supplies FF D9 (a fake EOI) for every byte past
      // the end, with a warning, and reads the segment on from those. The image so far stands
      // unless what it reads that way is an error.
      std::vector<std::uint8_t> padded(d + pos, d + size);
      for (std::size_t k = 0; padded.size() < 2; ++k) padded.push_back(k % 2 ? 0xD9 : 0xFF);
      const std::size_t plen = std::size_t(padded[0]) << 8 | padded[1];
      if (plen < 2)
        invalid(at, "segment " + hex(m) + " declares " + std::to_string(plen) + " bytes");
      for (std::size_t k = padded.size() - (size - pos); padded.size() < plen; ++k)
        padded.push_back(k % 2 ? 0xD9 : 0xFF);
      Reader q(padded.data(), 2, plen, segment_name(m));
      try {
        if (m == 0xDB) parse_dqt(q, t);
        if (m == 0xC4) parse_dht(q, t);
        if (m == 0xCC) parse_dac(q, t);
      } catch (const Error& e) {
        invalid(at, std::string("segment cut short by the end of the file: ") + e.what());
      }
      h.warnings.push_back("premature end of JPEG file (segment " + hex(m) + " at byte " +
                           std::to_string(at) + " is cut short)");
      break;
    }
    if (size - pos < 2) invalid(at, "marker " + hex(m) + " without a length");
    std::size_t len = std::size_t(d[pos]) << 8 | d[pos + 1];
    const bool skipped = (m >= 0xE0 && m <= 0xEF) || m == 0xFE || m == 0xDC;
    if (len >= 2 && len > size - pos && skipped && !h.scans.empty() && !headers_only) {
      // libjpeg-turbo skips such a segment and meets the end of its input, where its source
      // manager fakes an EOI with a warning: the image so far stands.
      h.warnings.push_back("premature end of JPEG file (segment " + hex(m) + " at byte " +
                           std::to_string(at) + " declares " + std::to_string(len) + " bytes, " +
                           std::to_string(size - pos) + " remain)");
      break;
    }
    if (len < 2 || len > size - pos) {
      invalid(at, "segment " + hex(m) + " declares " + std::to_string(len) + " bytes, " +
                      std::to_string(size - pos) + " remain");
    }
    std::size_t next = pos + len;
    // DHP, EXP, JPGn and the reserved markers are fatal for libjpeg-turbo (jdmarker.c), as
    // JPG (0xC8) is: so they are here.
    if (m == 0xC8 || m == 0xDE || m == 0xDF || (m >= 0xF0 && m <= 0xFD) || (m >= 0x02 && m < 0xC0))
      invalid(at, "unsupported marker " + hex(m));
    const bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xCC;
    Reader q(d, pos + 2, pos + len, sof ? "SOF" : segment_name(m));
    if (upto == Upto::Frame && sof) {
      parse_sof(q, m, at, h, limits);
      return h;
    }
    if (upto == Upto::Frame && m != 0xDA) {
      pos = next;
      continue;
    }
    if (m == 0xDB) {
      parse_dqt(q, t);
    } else if (m == 0xC4) {
      parse_dht(q, t);
    } else if (m == 0xCC) {
      parse_dac(q, t);
    } else if (m == 0xDD) {
      t.restart_interval = q.u16();
    } else if (m == 0xDA) {
      if (headers_only) {
        if (!h.sof_marker) invalid(at, "scan (SOS) before the frame header (SOFn)");
        return h;
      }
      parse_sos(q, at, d, size, t, h, limits);
      next = h.scans.back().data_end;
    } else if (sof) {
      parse_sof(q, m, at, h, limits);
    } else if ((m >= 0xE0 && m <= 0xEF) || m == 0xFE) {
      parse_app(d, m, pos + 2, len - 2, h);
    }  // DNL: skipped by its length
    pos = next;
  }
  if (!h.sof_marker) invalid(0, "no frame header (SOFn)");
  if (h.scans.empty() && !headers_only) invalid(0, "no scan (SOS)");
  return h;
}

}  // namespace

Header parse(const std::uint8_t* d, std::size_t size, const Limits& limits) {
  return parse_markers(d, size, limits, Upto::All);
}

Header parse_headers(const std::uint8_t* d, std::size_t size, const Limits& limits) {
  return parse_markers(d, size, limits, Upto::FirstScan);
}

Header parse_frame(const std::uint8_t* d, std::size_t size, const Limits& limits) {
  return parse_markers(d, size, limits, Upto::Frame);
}

}  // namespace hetcodec::jpeg
