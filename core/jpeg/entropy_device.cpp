// The plan of the device's Huffman decoding (entropy_device.h, core/portable/jpeg_huffman.h):
// the EntropyDecoder's scan plans and lookahead tables, written as the device stages read them.
#include "core/jpeg/entropy_device.h"

#include <algorithm>
#include <cstring>

#include "core/jpeg/entropy_parts.h"
#include "core/portable/jpeg_huffman.h"

namespace hetcodec::jpeg {
namespace {

// A segment's bytes without the fill bytes 0xFF before the marker after it (which the CPU
// stage's reader skips too).
std::size_t trimmed_end(const std::uint8_t* data, std::size_t begin, std::size_t end) {
  while (end > begin && data[end - 1] == 0xFF) --end;
  return end;
}

}  // namespace

DeviceEntropyPlan::DeviceEntropyPlan() = default;

bool DeviceEntropyPlan::supports(const EntropyDecoder& d) {
  const Header& h = d.header_;
  if (h.process != Process::Baseline && h.process != Process::ExtendedHuffman) return false;
  for (std::size_t s = 0; s < h.scans.size(); ++s) {
    const Scan& scan = h.scans[s];
    const auto& plan = d.plans_[s];
    if (scan.data_end > d.size_ || scan.data_end >= (std::size_t(1) << 32)) return false;
    if (plan.mcus <= 0) continue;
    if (plan.restart) {
      // Every interval after the first where its RSTn marker is expected.
      if (scan.interval_starts.size() + 1 < std::size_t(plan.intervals)) return false;
      for (int k = 1; k < plan.intervals; ++k) {
        const Scan::IntervalStart& st = scan.interval_starts[std::size_t(k - 1)];
        if (st.found >= 0 || st.begin == Scan::kEmptyInterval) return false;
      }
    }
  }
  return true;
}

std::uint32_t DeviceEntropyPlan::segments() const {
  return std::uint32_t(segments_.size() / HC_JH_SEG_WORDS);
}

std::uint32_t* DeviceEntropyPlan::table_slot(const void* key, std::size_t n, std::uint32_t& at) {
  for (const auto& e : tables_)
    if (e.first == key) {
      at = e.second;
      return nullptr;
    }
  at = std::uint32_t(HC_JH_HEADER_WORDS + body_.size());
  body_.resize(body_.size() + n, 0);
  tables_.push_back({key, at});
  return body_.data() + (at - HC_JH_HEADER_WORDS);
}

std::uint32_t DeviceEntropyPlan::append_layout(const std::vector<std::uint32_t>& l) {
  const std::uint32_t at = std::uint32_t(HC_JH_HEADER_WORDS + body_.size());
  body_.insert(body_.end(), l.begin(), l.end());
  return at;
}

void DeviceEntropyPlan::add_segments(const Scan& scan, int scan_index, const std::uint8_t* data,
                                     std::size_t size, std::size_t data_offset,
                                     std::uint32_t sub_bytes, std::uint32_t layout,
                                     std::uint32_t blocks, std::uint32_t interval_blocks,
                                     std::uint32_t rows, std::uint32_t row_blocks, File& f) {
  const std::uint32_t intervals =
      interval_blocks ? (blocks + interval_blocks - 1) / interval_blocks : 1;
  for (std::uint32_t k = 0; k < intervals; ++k) {
    std::size_t begin = k == 0 ? scan.data_offset : scan.interval_starts[k - 1].begin;
    std::size_t end = scan.data_end;
    const auto next = std::upper_bound(scan.restarts.begin(), scan.restarts.end(), begin);
    if (next != scan.restarts.end()) end = *next;
    end = std::min(end, size);
    begin = std::min(begin, end);
    const std::size_t marker_at = end;  // (where the warning looks for the marker's name)
    end = trimmed_end(data, begin, end);
    const std::uint32_t first = k * interval_blocks;
    const std::uint32_t n = interval_blocks ? std::min(blocks - first, interval_blocks) : blocks;
    const std::uint32_t bytes = std::uint32_t(end - begin);
    const std::uint32_t subs = std::max<std::uint32_t>(1, (bytes + sub_bytes - 1) / sub_bytes);
    const std::uint32_t seg[HC_JH_SEG_WORDS] = {std::uint32_t(data_offset + begin),
                                                bytes,
                                                subs_,
                                                subs,
                                                sub_bytes,
                                                layout,
                                                n,
                                                first,
                                                rows,
                                                row_blocks,
                                                std::uint32_t(begin - scan.data_offset)};
    segments_.insert(segments_.end(), seg, seg + HC_JH_SEG_WORDS);
    f.segment_of.push_back({scan_index, k, marker_at});
    subs_ += subs;
  }
}

std::size_t DeviceEntropyPlan::add(const EntropyDecoder& d, std::size_t data_offset,
                                   std::uint64_t coef_base, std::uint32_t sub_bytes) {
  sub_bytes = std::max<std::uint32_t>(sub_bytes, 64);
  File f{&d, segments(), 0, {}};
  auto table_at = [&](const HuffmanLookup* t) {
    std::uint32_t at = 0;
    if (std::uint32_t* w = table_slot(t, HC_JH_TABLE_WORDS, at)) {
      std::memcpy(w, t->entry.data(), sizeof(std::int32_t) << HC_JH_LOOK_BITS);
      std::memcpy(w + HC_JH_T_MAXCODE, t->maxcode.data(), 18 * 4);
      std::memcpy(w + HC_JH_T_VALOFFSET, t->valoffset.data(), 17 * 4);
      std::memcpy(w + HC_JH_T_SYMBOLS, t->symbols.data(), 256);
    }
    return at;
  };
  const Header& h = d.header_;
  for (std::size_t s = 0; s < h.scans.size(); ++s) {
    const auto& plan = d.plans_[s];
    if (plan.mcus <= 0) continue;
    std::vector<std::uint32_t> l(HC_JH_LAYOUT_WORDS, 0);
    l[HC_JH_L_BPM] = std::uint32_t(plan.mcu.size());
    l[HC_JH_L_MCUS_X] = std::uint32_t(plan.mcus_x);
    l[HC_JH_L_KIND] = HC_JH_KIND_DCT;
    for (std::size_t p = 0; p < plan.mcu.size(); ++p) {
      const auto& b = plan.mcu[p];
      const ComponentLayout& cl = d.layout_.components[std::size_t(b.component)];
      std::uint32_t* w = l.data() + HC_JH_L_BLOCK + p * HC_JH_BLOCK_WORDS;
      w[HC_JH_B_DC] = table_at(d.tables_data_[std::size_t(b.dc)]);
      w[HC_JH_B_AC] = table_at(d.tables_data_[std::size_t(b.ac)]);
      w[HC_JH_B_COMPONENT] = std::uint32_t(b.component);
      w[HC_JH_B_BASE] = std::uint32_t(coef_base + cl.first_block);
      w[HC_JH_B_GRID_W] = std::uint32_t(cl.grid_w);
      w[HC_JH_B_PLACE] = std::uint32_t(b.h) | std::uint32_t(b.v) << 8 | std::uint32_t(b.dx) << 16 |
                         std::uint32_t(b.dy) << 24;
    }
    // (after the tables the layout refers to, which table_at() may have just appended)
    const std::uint32_t layout = append_layout(l);
    const std::uint32_t bpm = std::uint32_t(plan.mcu.size());
    add_segments(h.scans[s], int(s), d.data_, d.size_, data_offset, sub_bytes, layout,
                 std::uint32_t(plan.mcus) * bpm, std::uint32_t(plan.restart) * bpm, 0, 0, f);
  }
  f.segments = segments() - f.first_segment;
  files_.push_back(std::move(f));
  return files_.size() - 1;
}

bool DeviceEntropyPlan::supports_lossless(const Header& h, const LosslessLayout& L) {
  for (const LosslessScan& ls : L.scans) {
    const Scan& scan = h.scans[std::size_t(ls.scan)];
    // Entries of 32 bits (docs/ljpeg-decode.md): data below 512 MiB.
    if (std::uint64_t(ls.data_bytes) * 8 >= HC_LJ_NO_DATA) return false;
    const std::uint64_t bpm = ls.components.size() * ls.mcu_h * ls.mcu_v;
    if (bpm > HC_JH_MAX_BLOCKS ||
        std::uint64_t(ls.coded_rows()) * ls.width * ls.mcu_v * ls.components.size() >=
            (std::uint64_t(1) << 32))
      return false;
    if (ls.restart_rows > 0) {
      const std::uint32_t intervals =
          (ls.coded_rows() + std::uint32_t(ls.restart_rows) - 1) / std::uint32_t(ls.restart_rows);
      if (scan.interval_starts.size() + 1 < intervals) return false;
      for (std::uint32_t k = 1; k < intervals; ++k) {
        const Scan::IntervalStart& st = scan.interval_starts[k - 1];
        if (st.found >= 0 || st.begin == Scan::kEmptyInterval || st.begin > scan.data_end)
          return false;
      }
    }
  }
  return true;
}

std::size_t DeviceEntropyPlan::add_lossless(const Header& h, const LosslessLayout& L,
                                            const std::vector<std::uint32_t>& job,
                                            const std::uint8_t* data, std::size_t size,
                                            std::size_t data_offset, std::uint32_t sub_bytes) {
  sub_bytes = std::max<std::uint32_t>(sub_bytes, 64);
  File f{nullptr, segments(), 0, {}};
  for (std::size_t s = 0; s < L.scans.size(); ++s) {
    const LosslessScan& ls = L.scans[s];
    const std::uint32_t* r = job.data() + job.at(HC_LJ_H_SCAN_AT + s);
    const std::uint32_t comps = std::uint32_t(ls.components.size());
    const std::uint32_t per = ls.mcu_h * ls.mcu_v;
    // Where every component codes with one table, where a sample lies in the MCU does not change
    // how it is read: the layout is then one sample long. Decodings that start in the wrong
    // place then fall into step as soon as their codes do; with the MCU's length kept, a
    // decoding one sample out of step would stay so for good.
    auto table_of = [&](std::uint32_t c) {
      return r + HC_LJ_SCAN_WORDS + r[HC_LJ_S_TABLE + c] * HC_LJ_HUFF_WORDS;
    };
    bool one_table =
        true;  // (tables alike in every word, as an encoder's per-component ones can be)
    for (std::uint32_t c = 1; c < comps; ++c)
      one_table = one_table && std::equal(table_of(c), table_of(c) + HC_LJ_HUFF_WORDS, table_of(0));
    const std::uint32_t bpm = one_table ? 1 : comps * per;
    std::vector<std::uint32_t> l(HC_JH_LAYOUT_WORDS, 0);
    l[HC_JH_L_BPM] = bpm;
    l[HC_JH_L_MCUS_X] = ls.width / ls.mcu_h;
    l[HC_JH_L_KIND] = HC_JH_KIND_LOSSLESS;
    // jdlhuff.c's MCU: each component's h x v samples in turn.
    for (std::uint32_t p = 0; p < bpm; ++p) {
      const std::uint32_t c = p / per;
      const std::uint32_t* t = table_of(c);
      std::uint32_t at = 0;
      if (std::uint32_t* w = table_slot(t, HC_LJ_HUFF_WORDS, at))
        std::memcpy(w, t, HC_LJ_HUFF_WORDS * 4);
      std::uint32_t* w = l.data() + HC_JH_L_BLOCK + p * HC_JH_BLOCK_WORDS;
      w[HC_JH_B_DC] = at;
      w[HC_JH_B_COMPONENT] = c;
    }
    const std::uint32_t layout = append_layout(l);
    const std::uint32_t row_blocks = ls.width * ls.mcu_v * comps;
    add_segments(h.scans[std::size_t(ls.scan)], int(s), data, size, data_offset, sub_bytes, layout,
                 ls.coded_rows() * row_blocks, std::uint32_t(ls.restart_rows) * row_blocks,
                 r[HC_LJ_S_ROWS_AT], row_blocks, f);
  }
  f.segments = segments() - f.first_segment;
  files_.push_back(std::move(f));
  return files_.size() - 1;
}

const std::vector<std::uint32_t>& DeviceEntropyPlan::words() {
  words_.assign(HC_JH_HEADER_WORDS, 0);
  words_[HC_JH_H_MAGIC] = HC_JH_MAGIC;
  words_[HC_JH_H_SEGMENTS] = segments();
  words_[HC_JH_H_SUBS] = subs_;
  words_[HC_JH_H_SEG_AT] = std::uint32_t(HC_JH_HEADER_WORDS + body_.size());
  std::uint8_t natural[84] = {};
  static const int zz[64] = HC_JPEG_NATURAL_ORDER;
  for (int k = 1; k <= 80; ++k) natural[k] = std::uint8_t(k <= 64 ? zz[k - 1] : 63);
  std::memcpy(words_.data() + HC_JH_H_NATURAL, natural, sizeof natural);
  words_.insert(words_.end(), body_.begin(), body_.end());
  words_.insert(words_.end(), segments_.begin(), segments_.end());
  return words_;
}

std::size_t DeviceEntropyPlan::status_words() const {
  return HC_JH_W_STATUS + HC_JH_STATUS_WORDS * std::size_t(segments());
}

std::size_t DeviceEntropyPlan::work_words() const {
  return status_words() + HC_JH_SUB_WORDS * std::size_t(subs_);
}

bool DeviceEntropyPlan::outcome(std::size_t file, const std::uint32_t* work,
                                const std::uint8_t* data, std::size_t size,
                                std::vector<std::string>& warnings) const {
  const File& f = files_.at(file);
  std::vector<std::string> out;
  for (std::uint32_t k = 0; k < f.segments; ++k) {
    const std::uint32_t* st = work + HC_JH_W_STATUS + HC_JH_STATUS_WORDS * (f.first_segment + k);
    if (st[0] != 0) return false;
    if (std::int32_t(st[1]) <= 0 || !f.decoder) continue;
    const FileSegment& fs = f.segment_of[k];
    const Scan& scan = f.decoder->header_.scans[std::size_t(fs.scan)];
    out.push_back(extraneous_warning(data, size, fs.end, st[1], scan, fs.interval));
  }
  warnings.insert(warnings.end(), out.begin(), out.end());
  return true;
}

}  // namespace hetcodec::jpeg
