// Lossless JPEG's host side: checks and layout (libjpeg-turbo 3's jdlossls.c, jddiffct.c,
// jdlhuff.c, jdhuff.c), row tables, and the device job (core/portable/ljpeg.h).
#define HC_LJ_TRACK_POSITIONS 1
#include "core/jpeg/lossless.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/error.h"
#include "core/portable/ljpeg.h"

namespace hetcodec::jpeg {
namespace {

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "jpeg: byte " + std::to_string(at) + ": " + what);
}
[[noreturn]] void unsupported(const std::string& what) {
  throw Error(ErrorCode::Unsupported, "jpeg: " + what);
}

// A DC table as jpeg_make_d_derived_tbl checks it for a lossless scan: symbols 0..16.
void check_table(const HuffmanTable& t, int id, std::size_t at) {
  if (!t.defined) invalid(at, "scan uses Huffman table " + std::to_string(id) + ", not defined");
  for (std::uint8_t s : t.symbols)
    if (s > 16)
      invalid(at, "Huffman table " + std::to_string(id) + " has symbol " + std::to_string(s) +
                      " (a lossless difference category is 0..16)");
}

// The words of one Huffman table (HC_LJ_HUFF_*): T.81 Annex C and F.2.2.3 as jdhuff.c builds
// them, with a lookahead of HC_LJ_LOOK_BITS bits.
void write_table(const HuffmanTable& t, std::uint32_t* w) {
  std::uint32_t code_of[257];
  std::uint8_t size[257];
  huffman_codes(t, size, code_of);
  auto* maxcode = reinterpret_cast<std::int32_t*>(w + HC_LJ_HUFF_MAXCODE);
  auto* valoffset = reinterpret_cast<std::int32_t*>(w + HC_LJ_HUFF_VALOFFSET);
  int p = 0;
  for (int l = 1; l <= 16; ++l) {
    if (t.counts[l]) {
      valoffset[l] = p - std::int32_t(code_of[p]);
      p += t.counts[l];
      maxcode[l] = std::int32_t(code_of[p - 1]);
    } else {
      maxcode[l] = -1;
    }
  }
  maxcode[17] = 0xFFFFF;
  auto* symbols = reinterpret_cast<std::uint8_t*>(w + HC_LJ_HUFF_SYMBOLS);
  for (std::size_t i = 0; i < t.symbols.size() && i < 256; ++i) symbols[i] = t.symbols[i];
  p = 0;
  for (int l = 1; l <= 16; ++l)
    for (int i = 0; i < t.counts[l]; ++i, ++p) {
      if (l > HC_LJ_LOOK_BITS) continue;
      const std::uint32_t first = code_of[p] << (HC_LJ_LOOK_BITS - l);
      for (std::uint32_t j = 0; j < (1u << (HC_LJ_LOOK_BITS - l)); ++j)
        w[HC_LJ_HUFF_LOOK + (first | j)] = std::uint32_t(l) << 8 | t.symbols[std::size_t(p)];
    }
}

std::string marker_name(int m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02x", m);
  return buf;
}

constexpr std::uint64_t kNoData = HC_LJ_NO_DATA;

// Where the reader's next unread bit is (bits from the data's start): the end of the data where
// it is in the padding past it.
std::uint64_t next_bit(const hc_lj_bits& b) {
  if (b.nbits <= 0) return b.ended ? std::uint64_t(b.marker_at) * 8 : std::uint64_t(b.pos) * 8;
  const std::uint32_t back = (std::uint32_t(b.nbits) + 7u) / 8u;
  const std::uint32_t from = b.from[(b.loaded - back) & 7u];
  if (from == 0xFFFFFFFFu) return std::uint64_t(b.marker_at) * 8;
  return std::uint64_t(from) * 8 + (8u - std::uint32_t(b.nbits) % 8u) % 8u;
}

struct IntervalWalk {
  bool ran_out = false;  // libjpeg-turbo's insufficient_data at the interval's end
  bool bad_code = false, hit_marker = false;
  std::size_t hit_at = 0;
};

// Rows [r0, r1) of one interval from bit `start` (kNoData: none), their starts into `starts`.
IntervalWalk walk_interval(const std::uint8_t* data, std::uint32_t size,
                           const std::vector<std::uint32_t>& tables, std::uint32_t comps,
                           std::uint32_t mcus, std::uint32_t per_mcu, std::uint32_t r0,
                           std::uint32_t r1, std::uint64_t start, bool ran_out_before,
                           std::uint64_t* starts) {
  IntervalWalk w;
  if (start == kNoData) {
    // An empty interval: its first row is decoded from zero bits, unless the interval before
    // ran out of data already (then, as every row after a row that ran out, it has none).
    if (!ran_out_before && r0 < r1) {
      starts[r0++] = std::uint64_t(size) * 8;
      w.hit_marker = true;
      w.hit_at = size;
    }
    for (std::uint32_t r = r0; r < r1; ++r) starts[r] = kNoData;
    w.ran_out = true;
    return w;
  }
  hc_lj_bits b;
  hc_lj_bits_start(&b, data, size, start);
  for (std::uint32_t r = r0; r < r1; ++r) {
    if (w.ran_out) {
      starts[r] = kNoData;
      continue;
    }
    starts[r] = next_bit(b);
    hc_u32 bad = 0;
    for (std::uint32_t m = 0; m < mcus; ++m)
      for (std::uint32_t c = 0; c < comps; ++c)
        for (std::uint32_t k = 0; k < per_mcu; ++k) {
          hc_lj_bits_fill(&b, data, size);
          hc_lj_decode_diff(&b, tables.data() + c * HC_LJ_HUFF_WORDS, &bad);
        }
    w.bad_code |= bad != 0;
    if (hc_lj_bits_exhausted(&b)) {
      w.ran_out = w.hit_marker = true;
      w.hit_at = b.marker_at;
    }
  }
  return w;
}

template <class Body>
void parallel_for(std::size_t n, int threads, Body&& body) {
  std::size_t t =
      threads > 0 ? std::size_t(threads) : std::max(1u, std::thread::hardware_concurrency());
  t = std::min(t, n);
  if (t <= 1) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t k = 0; k < t; ++k)
    pool.emplace_back([&, k] {
      for (std::size_t i = k; i < n; i += t) body(i);
    });
  for (auto& th : pool) th.join();
}

}  // namespace

const char* to_string(RowTableSource source) {
  switch (source) {
    case RowTableSource::Caller:
      return "given";
    case RowTableSource::Markers:
      return "restart markers";
    case RowTableSource::Device:
      return "device";
    default:
      return "pre-pass";
  }
}

LosslessLayout lossless_layout(const Header& h) {
  if (h.sof_marker == 0xC7 || h.sof_marker == 0xCF)
    unsupported("differential (hierarchical) lossless JPEG (SOF" + marker_name(h.sof_marker) +
                ") is not decoded");
  if (h.sof_marker == 0xCB) unsupported("arithmetic-coded lossless JPEG (SOF11) is not decoded");
  if (h.sof_marker != 0xC3) unsupported("not a lossless JPEG (SOF3) file");
  if (h.precision < 2 || h.precision > 16)
    invalid(0, "lossless precision " + std::to_string(h.precision) + " (2..16)");
  if (h.width > 65500 || h.height > 65500)
    invalid(0, std::to_string(h.width) + "x" + std::to_string(h.height) +
                   " exceeds libjpeg's largest dimension, 65500");
  if (h.scans.empty()) invalid(0, "no scan");
  LosslessLayout L;
  L.width = h.width;
  L.height = h.height;
  L.channels = int(h.components.size());
  L.precision = h.precision;
  L.depth = h.precision <= 8 ? 1 : 2;
  for (const Component& c : h.components)
    if (c.h != h.components[0].h || c.v != h.components[0].v)
      unsupported("lossless JPEG with subsampled components is not decoded");
  const auto mh = std::uint32_t(h.components[0].h), mv = std::uint32_t(h.components[0].v);
  L.channel_scan.fill(-1);
  for (std::size_t s = 0; s < h.scans.size(); ++s) {
    const Scan& scan = h.scans[s];
    const std::size_t at = scan.data_offset;
    LosslessScan ls;
    ls.scan = int(s);
    ls.components = scan.components;
    ls.predictor = scan.ss;
    ls.pt = scan.al;
    if (scan.ss < 1 || scan.ss > 7 || scan.se != 0 || scan.ah != 0 || scan.al >= h.precision)
      invalid(at, "scan " + std::to_string(s) + ": predictor " + std::to_string(scan.ss) + ", Se " +
                      std::to_string(scan.se) + ", Ah " + std::to_string(scan.ah) + ", Al " +
                      std::to_string(scan.al) +
                      " (lossless: predictor 1..7, Se = Ah = 0, Al below the precision)");
    for (std::size_t i = 0; i < scan.components.size(); ++i) {
      const int t = scan.dc_table[i];
      check_table(scan.dc_tables[std::size_t(t)], t, at);
      ls.table[i] = t;
    }
    // libjpeg's MCUs (jdinput.c): an interleaved scan's hold h x v samples of each component
    // (all sampled alike here), MCUs_per_row = ceil(width / max_h); a single component's hold
    // one sample, its width and height those of the component (the image's here).
    std::uint32_t mcus_per_row = std::uint32_t(h.width), mcu_rows = std::uint32_t(h.height);
    if (scan.components.size() > 1) {
      ls.mcu_h = mh;
      ls.mcu_v = mv;
      mcus_per_row = (std::uint32_t(h.width) + mh - 1) / mh;
      mcu_rows = (std::uint32_t(h.height) + mv - 1) / mv;
    }
    ls.width = mcus_per_row * ls.mcu_h;
    ls.height = mcu_rows * ls.mcu_v;
    if (scan.restart_interval > 0) {
      if (std::uint32_t(scan.restart_interval) % mcus_per_row != 0)
        invalid(at, "restart interval of " + std::to_string(scan.restart_interval) +
                        " MCUs is not a whole number of rows of " + std::to_string(mcus_per_row) +
                        " MCUs");
      ls.restart_rows = int(std::uint32_t(scan.restart_interval) / mcus_per_row);
    }
    ls.data_offset = scan.data_offset;
    ls.data_bytes = scan.data_end - scan.data_offset;
    if (scan.data_end > 0xFFFFFFFFull)
      throw Error(ErrorCode::LimitExceeded,
                  "jpeg: lossless files of 4 GiB or more are not decoded");
    for (std::size_t i = 0; i < scan.components.size(); ++i) {
      L.channel_scan[std::size_t(scan.components[i])] = int(L.scans.size());
      L.channel_index[std::size_t(scan.components[i])] = int(i);
    }
    L.scans.push_back(std::move(ls));
  }
  if (L.scans.size() > HC_LJ_MAX_SCANS)
    unsupported("lossless JPEG with more than " + std::to_string(HC_LJ_MAX_SCANS) + " scans");
  for (int c = 0; c < L.channels; ++c)
    if (L.channel_scan[std::size_t(c)] < 0)
      invalid(0, "component " + std::to_string(h.components[std::size_t(c)].id) + " is in no scan");
  for (const LosslessScan& s : L.scans) {
    L.plane_offsets.push_back(L.planes_bytes);
    L.planes_bytes += (s.plane_bytes() + 15) / 16 * 16;
  }
  return L;
}

RowTables row_tables_from_markers(const std::uint8_t*, std::size_t, const Header& header,
                                  const LosslessLayout& layout) {
  RowTables out;
  for (const LosslessScan& ls : layout.scans) {
    const Scan& scan = header.scans[std::size_t(ls.scan)];
    if (ls.restart_rows != 1 || scan.interval_starts.size() + 1 < ls.coded_rows()) return {};
    RowTable t;
    t.source = RowTableSource::Markers;
    t.starts.resize(ls.coded_rows());
    t.starts[0] = 0;
    for (std::uint32_t r = 1; r < ls.coded_rows(); ++r) {
      const Scan::IntervalStart& s = scan.interval_starts[r - 1];
      if (s.begin == Scan::kEmptyInterval || s.found >= 0 || s.begin > scan.data_end) return {};
      t.starts[r] = std::uint64_t(s.begin - scan.data_offset) * 8;
    }
    t.wide = std::uint64_t(ls.data_bytes) * 8 >= kNoData;
    out.scans.push_back(std::move(t));
  }
  return out;
}

RowTables row_tables_prepass(const std::uint8_t* data, std::size_t, const Header& header,
                             const LosslessLayout& layout, int threads) {
  RowTables out;
  for (const LosslessScan& ls : layout.scans) {
    const Scan& scan = header.scans[std::size_t(ls.scan)];
    const std::uint32_t comps = std::uint32_t(ls.components.size());
    std::vector<std::uint32_t> tables(std::size_t(comps) * HC_LJ_HUFF_WORDS);
    for (std::uint32_t c = 0; c < comps; ++c)
      write_table(scan.dc_tables[std::size_t(ls.table[c])], tables.data() + c * HC_LJ_HUFF_WORDS);
    const std::uint32_t rows = ls.coded_rows();
    const std::uint32_t per = ls.restart_rows ? std::uint32_t(ls.restart_rows) : rows;
    const std::uint32_t intervals = (rows + per - 1) / per;
    const std::uint32_t mcus = ls.width / ls.mcu_h, per_mcu = ls.mcu_h * ls.mcu_v;
    RowTable t;
    t.source = RowTableSource::PrePass;
    t.starts.assign(rows, kNoData);
    t.wide = std::uint64_t(ls.data_bytes) * 8 >= kNoData;
    auto begin_of = [&](std::uint32_t k) -> std::uint64_t {
      if (k == 0) return 0;
      if (k - 1 >= scan.interval_starts.size()) return kNoData;
      const auto& s = scan.interval_starts[k - 1];
      if (s.begin == Scan::kEmptyInterval) return kNoData;
      return std::uint64_t(std::min(s.begin, scan.data_end) - scan.data_offset) * 8;
    };
    std::vector<IntervalWalk> walks(intervals);
    const std::uint8_t* d = data + ls.data_offset;
    const auto size = std::uint32_t(ls.data_bytes);
    // Intervals with data do not depend on one another: they go in parallel. An empty one
    // depends on whether the one before ran out, so those are walked after, in order.
    parallel_for(intervals, threads, [&](std::size_t k) {
      const std::uint64_t start = begin_of(std::uint32_t(k));
      if (start == kNoData) return;
      const std::uint32_t r0 = std::uint32_t(k) * per, r1 = std::min(rows, r0 + per);
      walks[k] = walk_interval(d, size, tables, comps, mcus, per_mcu, r0, r1, start, false,
                               t.starts.data());
    });
    for (std::uint32_t k = 0; k < intervals; ++k) {
      const std::uint32_t r0 = k * per, r1 = std::min(rows, r0 + per);
      if (k > 0) {
        const auto& s = k - 1 < scan.interval_starts.size()
                            ? scan.interval_starts[k - 1]
                            : Scan::IntervalStart{Scan::kEmptyInterval, -2};
        if (s.found >= 0)
          out.warnings.push_back("corrupt JPEG data: found marker " + marker_name(s.found) +
                                 " instead of RST" + std::to_string((k - 1) & 7) + " (scan " +
                                 std::to_string(ls.scan) + ", restart interval " +
                                 std::to_string(k) + ")");
      }
      if (begin_of(k) == kNoData)
        walks[k] = walk_interval(d, size, tables, comps, mcus, per_mcu, r0, r1, kNoData,
                                 k > 0 && walks[k - 1].ran_out, t.starts.data());
      if (walks[k].bad_code)
        out.warnings.push_back("corrupt JPEG data: bad Huffman code (scan " +
                               std::to_string(ls.scan) + ", restart interval " + std::to_string(k) +
                               ")");
      if (walks[k].hit_marker)
        out.warnings.push_back(
            "corrupt JPEG data: premature end of data segment (scan " + std::to_string(ls.scan) +
            " at byte " + std::to_string(ls.data_offset) + ", restart interval " +
            std::to_string(k) + ", byte " + std::to_string(ls.data_offset + walks[k].hit_at) + ")");
    }
    out.scans.push_back(std::move(t));
  }
  return out;
}

RowTables row_tables_given(const std::vector<std::uint64_t>& starts, const LosslessLayout& layout) {
  RowTables out;
  std::size_t rows = 0;
  for (const LosslessScan& ls : layout.scans) rows += ls.coded_rows();
  if (starts.size() != rows)
    throw Error(ErrorCode::InvalidArgument,
                "ljpeg: the row table has " + std::to_string(starts.size()) +
                    " entries; the file has " + std::to_string(rows) + " rows");
  std::size_t i = 0;
  for (std::size_t s = 0; s < layout.scans.size(); ++s) {
    const LosslessScan& ls = layout.scans[s];
    RowTable t;
    t.source = RowTableSource::Caller;
    t.wide = std::uint64_t(ls.data_bytes) * 8 >= kNoData;
    const std::uint64_t bits = std::uint64_t(ls.data_bytes) * 8;
    for (std::uint32_t r = 0; r < ls.coded_rows(); ++r, ++i) {
      const std::uint64_t v = starts[i];
      auto bad = [&](const std::string& what) {
        throw Error(ErrorCode::InvalidArgument,
                    "ljpeg: row table entry " + std::to_string(i) + " (scan " + std::to_string(s) +
                        ", row " + std::to_string(r) + "): bit " + std::to_string(v) + " " + what);
      };
      if (v == kNoData || (t.wide && v == ~std::uint64_t(0))) {
        t.starts.push_back(kNoData);
        continue;
      }
      if (v >= bits) bad("is past the scan's " + std::to_string(ls.data_bytes) + " bytes of data");
      const bool interval_start =
          r == 0 || (ls.restart_rows > 0 && r % std::uint32_t(ls.restart_rows) == 0);
      if (!interval_start && !t.starts.empty() && t.starts.back() != kNoData &&
          v <= t.starts.back())
        bad("is not after the row before it");
      t.starts.push_back(v);
    }
    out.scans.push_back(std::move(t));
  }
  return out;
}

std::vector<std::uint64_t> read_row_table_sidecar(const std::uint8_t* bytes, std::size_t size,
                                                  std::size_t rows) {
  std::vector<std::uint64_t> v;
  if (size == rows * 8 && rows > 0) {
    for (std::size_t i = 0; i < rows; ++i) {
      std::uint64_t e = 0;
      for (int k = 7; k >= 0; --k) e = e << 8 | bytes[i * 8 + std::size_t(k)];
      v.push_back(e == ~std::uint64_t(0) ? kNoData : e);
    }
    return v;
  }
  if (size != rows * 4)
    throw Error(ErrorCode::InvalidArgument, "ljpeg: a row table of " + std::to_string(size) +
                                                " bytes; this file has " + std::to_string(rows) +
                                                " rows (4 or 8 bytes each, little-endian)");
  for (std::size_t i = 0; i < rows; ++i)
    v.push_back(std::uint64_t(bytes[i * 4]) | std::uint64_t(bytes[i * 4 + 1]) << 8 |
                std::uint64_t(bytes[i * 4 + 2]) << 16 | std::uint64_t(bytes[i * 4 + 3]) << 24);
  return v;
}

std::vector<std::uint8_t> write_row_table_sidecar(const RowTables& tables) {
  bool wide = false;
  for (const RowTable& t : tables.scans) wide |= t.wide;
  std::vector<std::uint8_t> out;
  for (const RowTable& t : tables.scans)
    for (std::uint64_t e : t.starts) {
      const std::uint64_t v = wide && e == kNoData ? ~std::uint64_t(0) : e;
      for (int k = 0; k < (wide ? 8 : 4); ++k) out.push_back(std::uint8_t(v >> (8 * k)));
    }
  return out;
}

std::vector<std::uint32_t> lossless_job(const Header& header, const LosslessLayout& layout,
                                        const RowTables& tables) {
  const std::size_t scans = layout.scans.size();
  std::size_t words = HC_LJ_HEADER_WORDS + scans * HC_LJ_SCAN_RECORD_WORDS;
  std::vector<std::size_t> rows_at;
  for (std::size_t s = 0; s < scans; ++s) {
    rows_at.push_back(words);
    words += std::size_t(layout.scans[s].coded_rows()) * (tables.scans[s].wide ? 2 : 1);
  }
  std::vector<std::uint32_t> job(words, 0);
  job[HC_LJ_H_MAGIC] = HC_LJ_MAGIC;
  job[HC_LJ_H_WIDTH] = std::uint32_t(layout.width);
  job[HC_LJ_H_HEIGHT] = std::uint32_t(layout.height);
  job[HC_LJ_H_CHANNELS] = std::uint32_t(layout.channels);
  job[HC_LJ_H_DEPTH] = std::uint32_t(layout.depth);
  job[HC_LJ_H_SCANS] = std::uint32_t(scans);
  for (int c = 0; c < layout.channels; ++c) {
    const auto s = std::size_t(layout.channel_scan[std::size_t(c)]);
    const LosslessScan& ls = layout.scans[s];
    std::uint32_t* ch = job.data() + HC_LJ_H_CHANNEL + HC_LJ_CHANNEL_WORDS * c;
    ch[0] = std::uint32_t(layout.plane_offsets[s]);
    ch[1] = std::uint32_t(layout.plane_offsets[s] >> 32);
    ch[2] = std::uint32_t(ls.components.size());
    ch[3] = std::uint32_t(layout.channel_index[std::size_t(c)]) | std::uint32_t(ls.pt) << 8;
    ch[4] = ls.width;
  }
  for (std::size_t s = 0; s < scans; ++s) {
    const LosslessScan& ls = layout.scans[s];
    const Scan& scan = header.scans[std::size_t(ls.scan)];
    const std::size_t at = HC_LJ_HEADER_WORDS + s * HC_LJ_SCAN_RECORD_WORDS;
    job[HC_LJ_H_SCAN_AT + s] = std::uint32_t(at);
    std::uint32_t* r = job.data() + at;
    r[HC_LJ_S_WIDTH] = ls.width;
    r[HC_LJ_S_HEIGHT] = ls.height;
    r[HC_LJ_S_COMPS] = std::uint32_t(ls.components.size());
    r[HC_LJ_S_PREDICTOR] = std::uint32_t(ls.predictor);
    r[HC_LJ_S_INITIAL] = 1u << (layout.precision - ls.pt - 1);
    r[HC_LJ_S_RESTART] = std::uint32_t(ls.restart_rows) * ls.mcu_v;
    r[HC_LJ_S_MCU_H] = ls.mcu_h;
    r[HC_LJ_S_MCU_V] = ls.mcu_v;
    r[HC_LJ_S_DATA] = std::uint32_t(ls.data_offset);
    r[HC_LJ_S_DATA_BYTES] = std::uint32_t(ls.data_bytes);
    r[HC_LJ_S_ROWS_AT] = std::uint32_t(rows_at[s]);
    r[HC_LJ_S_WIDE] = tables.scans[s].wide ? 1u : 0u;
    // Table k of the scan's four holds the scan's table k (components name them by id).
    for (std::size_t i = 0; i < ls.components.size(); ++i)
      r[HC_LJ_S_TABLE + i] = std::uint32_t(ls.table[i]);
    for (int k = 0; k < 4; ++k)
      if (scan.dc_tables[std::size_t(k)].defined)
        write_table(scan.dc_tables[std::size_t(k)],
                    r + HC_LJ_SCAN_WORDS + std::size_t(k) * HC_LJ_HUFF_WORDS);
    std::uint32_t* rows = job.data() + rows_at[s];
    for (std::uint32_t y = 0; y < ls.coded_rows(); ++y) {
      const std::uint64_t e = tables.scans[s].starts[y];
      if (tables.scans[s].wide) {
        rows[2 * y] = e == kNoData ? HC_LJ_NO_DATA : std::uint32_t(e);
        rows[2 * y + 1] = e == kNoData ? HC_LJ_NO_DATA : std::uint32_t(e >> 32);
      } else {
        rows[y] = std::uint32_t(e);
      }
    }
  }
  return job;
}

}  // namespace hetcodec::jpeg
