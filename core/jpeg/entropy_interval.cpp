// The sequential decoding of one restart interval of a JPEG scan (T.81 F.2.2, F.1.2.3) into
// tokens: EntropyDecoder::run() runs it for each interval of a task, in order.
#include <algorithm>
#include <string>

#include "core/jpeg/entropy_parts.h"

namespace hetcodec::jpeg {

// The interval's bytes: from the scan start or the byte after the RSTn before it, to the next
// marker. An interval whose restart marker is missing has no data (decoded as all zero): then
// false.
bool EntropyDecoder::interval_bytes(const Scan& scan, std::uint32_t interval, std::size_t& begin,
                                    std::size_t& end, EntropyResult& out) const {
  begin = scan.data_offset;
  end = scan.data_end;
  if (interval > 0) {
    if (interval - 1 >= scan.restarts.size()) {
      if (interval - 1 == scan.restarts.size())
        out.warnings.push_back("corrupt JPEG data: restart marker " + std::to_string(interval - 1) +
                               " missing; the rest of the scan " + "is left grey");
      return false;
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
  return true;
}

HC_BMI2_CLONES void EntropyDecoder::decode_interval(const ScanPlan& plan, const Scan& scan,
                                                    std::uint32_t interval,
                                                    EntropyResult& out) const {
  std::size_t begin, end;
  if (!interval_bytes(scan, interval, begin, end, out)) return;
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
  out.tokens.resize(ntokens);
  out.block_ids.resize(nblocks);
  out.block_tokens.resize(nblocks);
  if (bad_code)
    out.warnings.push_back("corrupt JPEG data: bad Huffman code (restart interval " +
                           std::to_string(interval) + ")");
}

}  // namespace hetcodec::jpeg
