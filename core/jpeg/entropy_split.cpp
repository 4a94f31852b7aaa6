// A JPEG scan without restart markers decoded in pieces on several threads at once
// (EntropyDecoder::run_split(), entropy.h): a speculative decoding that relies on Huffman codes
// falling back into step with the true symbol boundaries, as described below.
#include <algorithm>
#include <array>
#include <vector>

#include "core/jpeg/entropy_parts.h"

namespace hetcodec::jpeg {

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

// run_split()'s state and steps, in the order it runs them.
struct EntropyDecoder::Split {
  const EntropyDecoder& d;
  const ScanPlan& plan;
  const Parallel& parallel;
  const std::uint8_t* begin;
  const std::uint8_t* end;
  std::size_t n;      // pieces
  int bpm;            // blocks per MCU
  std::size_t total;  // blocks in the scan
  std::vector<const std::uint8_t*> cut;
  std::vector<Piece> piece;
  std::vector<std::array<std::uint32_t, 4>> dc_sum;  // DC predictions where each piece starts
  // Joining: the true decoding goes on in piece `owner` (bridged blocks are appended to it),
  // from `br`, whose data starts `base` bits into the scan, at bit `at`, MCU position `phase`;
  // `valid` blocks are known so far.
  BitReader br;
  std::uint64_t base = 0, at = 0;
  int phase = 0;
  std::size_t owner = 0, valid = 0;

  bool cut_pieces();
  template <typename More>
  std::size_t decode_blocks(BitReader& r, std::uint64_t from, int& ph, Piece& pc, std::size_t limit,
                            More&& more) const;
  void decode_pieces();
  bool bridge_one();
  bool join();
  bool number_blocks();
  void pack(std::vector<EntropyResult>& out) const;
  // Where the scan's last block ends, in bits (once joined and numbered).
  std::uint64_t end_bit() const {
    for (std::size_t t = n; t-- > 0;) {
      const Piece& pc = piece[t];
      if (!pc.count) continue;
      const std::size_t i = pc.first + pc.count;
      return i < pc.blocks.size() ? pc.blocks[i].at : at;
    }
    return 0;
  }
};

// Piece boundaries, each moved past any 0xFF before it (never inside 0xFF 0x00 or a run of
// fill bytes), with the count of unstuffed bytes before each, as the bit reader counts them:
// 0xFF, any further 0xFF, then 0x00 is one byte; 0xFF then anything else ends the data.
bool EntropyDecoder::Split::cut_pieces() {
  const std::size_t bytes = std::size_t(end - begin);
  cut.resize(n + 1);
  cut[0] = begin;
  cut[n] = end;
  for (std::size_t t = 1; t < n; ++t) {
    const std::uint8_t* c = begin + bytes * t / n;
    while (c < end && c[-1] == 0xFF) ++c;
    cut[t] = std::max(c, cut[t - 1]);
  }
  piece.resize(n);
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
  return true;
}

// Decodes blocks from `r` (whose data starts `from` bits into the scan) at MCU position `ph`
// into `pc`, while `more(at)` says so and the scan has blocks left.
template <typename More>
std::size_t EntropyDecoder::Split::decode_blocks(BitReader& r, std::uint64_t from, int& ph,
                                                 Piece& pc, std::size_t limit, More&& more) const {
  std::int16_t val[64 + 8] = {};
  std::uint8_t pos[64 + 8] = {};
  std::size_t k = 0;
  for (; k < limit; ++k) {
    const std::uint64_t start = from + r.consumed();
    // Past the end of the data nothing counts (and zero bits decode as long blocks).
    if (!more(start) || r.exhausted()) break;
    const ScanPlan::Block& b = plan.mcu[std::size_t(ph)];
    bool bad = false;
    int diff;
    const int m = decode_block(r, *d.tables_[std::size_t(b.dc)], *d.tables_[std::size_t(b.ac)],
                               diff, val, pos, bad);
    if (pc.vals.size() < pc.used + 64) {
      pc.vals.resize(2 * (pc.used + 64));
      pc.pos.resize(2 * (pc.used + 64));
    }
    std::memcpy(pc.vals.data() + pc.used, val + 1, std::size_t(m) * 2);
    std::memcpy(pc.pos.data() + pc.used, pos + 1, std::size_t(m));
    pc.blocks.push_back({start, std::uint32_t(pc.used), std::int16_t(diff), std::uint8_t(m),
                         std::uint8_t(ph | (bad ? SpecBlock::kBad : 0) |
                                      (r.exhausted() ? SpecBlock::kExhausted : 0))});
    pc.used += std::size_t(m);
    if (++ph == bpm) ph = 0;
  }
  return k;
}

// Every piece at once, each from its first byte.
void EntropyDecoder::Split::decode_pieces() {
  parallel(n, [&](std::size_t t) {
    Piece& pc = piece[t];
    BitReader r(cut[t], end);
    int ph = 0;
    pc.blocks.reserve(std::size_t(cut[t + 1] - cut[t]) * 2);
    decode_blocks(r, pc.base, ph, pc, total, [&](std::uint64_t start) { return start < pc.stop; });
    pc.exit = r;
    pc.exit_at = pc.base + r.consumed();
    pc.exit_phase = ph;
  });
}

// One more block of the true decoding; false when the data ran out (run() handles that).
bool EntropyDecoder::Split::bridge_one() {
  if (decode_blocks(br, base, phase, piece[owner], 1, [](std::uint64_t) { return true; }) == 0)
    return false;
  at = base + br.consumed();
  ++valid;
  return true;
}

// Joining, in order: each piece takes over the true decoding from the first of its blocks that
// starts where the true decoding is, with the same MCU position.
bool EntropyDecoder::Split::join() {
  owner = 0;
  valid = piece[0].blocks.size();
  piece[0].first = 0;
  br = piece[0].exit;
  base = piece[0].base;
  at = piece[0].exit_at;
  phase = piece[0].exit_phase;
  for (std::size_t t = 1; t < n && valid < total; ++t) {
    Piece& nx = piece[t];
    std::size_t j =
        std::size_t(std::lower_bound(nx.blocks.begin(), nx.blocks.end(), at,
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
  return true;
}

// Block numbers, the blocks that count (the last piece may have decoded past the scan's last
// block), checks, and the DC prediction of each component where each piece starts.
bool EntropyDecoder::Split::number_blocks() {
  std::size_t next = 0;
  for (std::size_t t = 0; t < n; ++t) {
    Piece& pc = piece[t];
    pc.first_block = next;
    pc.count = std::min(pc.blocks.size() - pc.first, total - next);
    next += pc.count;
  }
  if (next != total) return false;
  dc_sum.assign(n + 1, std::array<std::uint32_t, 4>{});
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
  return true;
}

// Tokens, one piece per thread, as decode_interval() packs them.
void EntropyDecoder::Split::pack(std::vector<EntropyResult>& out) const {
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
      const ComponentLayout& cl = d.layout_.components[std::size_t(b.component)];
      const std::uint32_t raster = std::uint32_t(my * b.v + b.dy) * std::uint32_t(cl.grid_w) +
                                   std::uint32_t(mx * b.h + b.dx);
      std::uint32_t& p = pred[std::size_t(b.component)];
      p += std::uint32_t(std::int32_t(sb.diff));
      std::memcpy(val + 1, pc.vals.data() + sb.coef, std::size_t(sb.m) * 2);
      std::memcpy(pos + 1, pc.pos.data() + sb.coef, std::size_t(sb.m));
      if (r.tokens.size() < ntokens + 17) r.tokens.resize(2 * (ntokens + 17));
      const int count =
          pack_block(std::int16_t(p), sb.m, val, pos, raster & 63, r.tokens.data() + ntokens);
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
}

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
  Split split{*this, plan, parallel, begin, end, n, bpm, std::size_t(plan.mcus) * std::size_t(bpm),
              {},    {},   {},       {}};
  if (!split.cut_pieces()) return false;
  split.decode_pieces();
  if (!split.join() || !split.number_blocks()) return false;
  split.pack(out);
  // Whole bytes left after the last block: the warning sequential decoding gives.
  const std::uint64_t data_bytes = split.piece[n - 1].stop / 8, used = (split.end_bit() + 7) / 8;
  if (data_bytes > used)
    out.back().warnings.push_back(
        extraneous_warning(data_, size_, scan.data_end, std::size_t(data_bytes - used), scan, 0));
  return true;
}

}  // namespace hetcodec::jpeg
