// The sequential decoding of one restart interval of a JPEG scan (T.81 F.2.2, F.1.2.3) into
// tokens: EntropyDecoder::run() runs it for each interval of a task, in order.
#include <algorithm>
#include <cstdio>
#include <string>

#include "core/jpeg/entropy_parts.h"

namespace hetcodec::jpeg {

// The interval's bytes: from the scan start, or where Scan::interval_starts says, to the next
// RSTn (the decoder stops at any marker before it). An interval libjpeg-turbo finds no data for
// has none: false, unless libjpeg-turbo would decode its first MCU from zero bits (the
// interval before it ended without running out of data); then an empty range.
bool EntropyDecoder::interval_bytes(const ScanPlan& plan, const Scan& scan, std::uint32_t interval,
                                    std::size_t& begin, std::size_t& end,
                                    EntropyResult& out) const {
  begin = scan.data_offset;
  end = scan.data_end;
  if (interval > 0) {
    const auto& starts = scan.interval_starts;
    const Scan::IntervalStart s = interval - 1 < starts.size()
                                      ? starts[interval - 1]
                                      : Scan::IntervalStart{Scan::kEmptyInterval, -2};
    const std::string expected = "RST" + std::to_string((interval - 1) & 7);
    if (s.found >= 0) {
      char found[16];
      std::snprintf(found, sizeof found, "0x%02x", s.found);
      out.warnings.push_back("corrupt JPEG data: found marker " + std::string(found) +
                             " instead of " + expected + " (restart interval " +
                             std::to_string(interval) + ")");
    }
    if (s.begin == Scan::kEmptyInterval) {
      // libjpeg-turbo's insufficient_data: set when the interval before ran out of data, or
      // had none itself; else this interval's first MCU is decoded from zero bits.
      bool before_ran_out = true;
      if (interval - 1 == 0 ||
          (interval - 2 < starts.size() && starts[interval - 2].begin != Scan::kEmptyInterval)) {
        EntropyResult scratch;
        before_ran_out = decode_interval(plan, scan, interval - 1, scratch);
      }
      if (before_ran_out) return false;
      begin = end = scan.data_end;
      return true;
    }
    begin = s.begin;
  }
  const auto next = std::upper_bound(scan.restarts.begin(), scan.restarts.end(), begin);
  if (next != scan.restarts.end()) end = *next;
  begin = std::min(begin, end);
  return true;
}

namespace {
void warn_extraneous(const std::uint8_t* data_, std::size_t size_, const BitReader& br,
                     const Scan& scan, std::uint32_t interval, std::size_t end,
                     EntropyResult& out) {
  std::size_t left = std::size_t(br.nbits - br.pad) / 8;
  const std::uint8_t* q = br.p;
  const std::uint8_t* const stop = data_ + end;
  while (q < stop) {
    if (*q != 0xFF) {
      ++left, ++q;
      continue;
    }
    const std::uint8_t* r = q;
    while (r < stop && *r == 0xFF) ++r;
    if (r == stop || *r != 0) break;  // fill bytes before the marker
    ++left;                           // FF 00: one byte of data
    q = r + 1;
  }
  if (left) out.warnings.push_back(extraneous_warning(data_, size_, end, left, scan, interval));
}
}  // namespace

std::string extraneous_warning(const std::uint8_t* data, std::size_t size, std::size_t end,
                               std::size_t left, const Scan& scan, std::uint32_t interval) {
  std::size_t m = std::min(end, size);
  while (m < size && data[m] == 0xFF) ++m;
  char name[16] = "end";
  if (m < size) std::snprintf(name, sizeof name, "0x%02x", data[m]);
  return "corrupt JPEG data: " + std::to_string(left) + " extraneous bytes before marker " + name +
         " (scan at byte " + std::to_string(scan.data_offset) + ", restart interval " +
         std::to_string(interval) + ")";
}

HC_BMI2_CLONES bool EntropyDecoder::decode_interval(const ScanPlan& plan, const Scan& scan,
                                                    std::uint32_t interval,
                                                    EntropyResult& out) const {
  std::size_t begin, end;
  if (!interval_bytes(plan, scan, interval, begin, end, out)) return true;
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
          fill += std::uint32_t(decode_block_tokens(
              br, *lookups[b.dc], *lookups[b.ac], pred[b.component], (raster & 63) << 24,
              grouped + std::size_t(id >> 6) * cap + fill, bad_code));
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
  if (!br.exhausted()) warn_extraneous(data_, size_, br, scan, interval, end, out);
  out.tokens.resize(ntokens);
  out.block_ids.resize(nblocks);
  out.block_tokens.resize(nblocks);
  if (bad_code)
    out.warnings.push_back("corrupt JPEG data: bad Huffman code (restart interval " +
                           std::to_string(interval) + ")");
  return br.exhausted();
}

}  // namespace hetcodec::jpeg
