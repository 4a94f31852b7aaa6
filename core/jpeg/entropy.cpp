// The setup of the JPEG entropy decoder (entropy.h): per scan, the blocks of an MCU in coding
// order (T.81 A.2.3), the Huffman tables each block uses and the quantisation tables as libjpeg
// latches them; and the split of the work into tasks of whole restart intervals (T.81 F.1.2.3).
// The decoding itself is in entropy_interval.cpp and entropy_split.cpp, the writing of the token
// stream in entropy_stream.cpp.
#include <algorithm>
#include <string>

#include "core/jpeg/entropy_parts.h"
#include "core/jpeg/standard_tables.h"

namespace hetcodec::jpeg {
namespace {

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "jpeg: byte " + std::to_string(at) + ": " + what);
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
  out.group_cap =
      std::uint32_t(std::min<std::size_t>(std::max<std::size_t>(3 * share, 16) + 16, 1024));
  out.grouped.resize(groups * out.group_cap);
  out.group_fill.assign(groups, 0);
}

void EntropyDecoder::run(const EntropyTask& task, EntropyResult& out) const {
  const ScanPlan& plan = plans_.at(std::size_t(task.scan));
  const Scan& scan = header_.scans[std::size_t(task.scan)];
  for (std::uint32_t i = 0; i < task.intervals; ++i)
    decode_interval(plan, scan, task.first_interval + i, out);
}

}  // namespace hetcodec::jpeg
