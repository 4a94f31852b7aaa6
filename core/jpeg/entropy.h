// The CPU stage of JPEG decoding: Huffman decoding of sequential (baseline and extended) scans
// into the token stream (core/jpeg/token_stream.h). Table-driven: a 10-bit lookahead table gives
// most codes in one lookup, and codes whose magnitude bits also fit are decoded to their run,
// value and length at once; bits come from a 64-bit buffer refilled several bytes at a time.
//
// The work is split into tasks that can run on different threads: one per scan, or, when the
// scan has restart markers, runs of whole restart intervals. Each task fills its own
// EntropyResult; write_stream() then lays the tokens out by group.
//
// Corrupt data is decoded as libjpeg-turbo decodes it: bits past the end of a segment (or of
// the file) read as zeros, a code longer than 16 bits yields symbol 0, and once a segment has run
// out the remaining MCUs up to the next restart marker are left all zero (uniform grey); each
// case adds a warning.
#ifndef HETCODEC_CORE_JPEG_ENTROPY_H
#define HETCODEC_CORE_JPEG_ENTROPY_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "core/jpeg/token_stream.h"

namespace hetcodec::jpeg {

struct EntropyTask {
  int scan = 0;
  std::uint32_t first_interval = 0, intervals = 1;  // restart intervals of the scan
};

// An allocator whose construct() without arguments default-initialises: growing the token
// scratch with resize() then leaves the new tokens unwritten instead of zeroing them (the
// decoder writes every token it keeps; the slack is cut off when an interval ends).
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

struct EntropyResult {
  std::vector<Token, UninitializedAllocator<Token>> tokens;  // in decode order
  // Global block index of each non-zero block, and its token count (1..16).
  std::vector<std::uint32_t, UninitializedAllocator<std::uint32_t>> block_ids;
  std::vector<std::uint8_t, UninitializedAllocator<std::uint8_t>> block_tokens;
  std::vector<std::string> warnings;
  // Grouped mode (EntropyDecoder::use_groups()): a block's tokens go to its group's bucket of
  // group_cap tokens while there is room for 16 more, and only the rest to `tokens` above, so
  // that write_stream() copies most of the stream a whole group at a time.
  std::vector<Token, UninitializedAllocator<Token>> grouped;
  std::vector<std::uint32_t> group_fill;
  std::uint32_t group_cap = 0;
  void clear() {
    tokens.clear();
    block_ids.clear();
    block_tokens.clear();
    warnings.clear();
    group_cap = 0;
    group_fill.clear();
  }
};

// Derived decoding tables of one Huffman table (libjpeg's d_derived_tbl with a lookahead table
// that also decodes the magnitude bits when they fit).
struct HuffmanLookup {
  static constexpr int kBits = 10;
  // One entry per kBits-bit prefix; 0 when the code is longer than kBits. Bits 0-5: bits to
  // consume; bit 6 (kFull): the magnitude bits fit too, the entry consumes them and bits 16-31
  // hold the coefficient value (a DC difference of 0 is also full); bit 7 (kEnd, with kFull):
  // an AC table's end-of-block code; bits 8-15: the symbol, except in a full AC entry, whose
  // bits 8-12 hold the run of zeros plus one.
  static constexpr std::int32_t kFull = 64, kEnd = 128;
  std::array<std::int32_t, 1 << kBits> entry{};
  std::array<std::int32_t, 18> maxcode{};  // largest code of each length, -1 if none
  std::array<std::int32_t, 17> valoffset{};
  std::array<std::uint8_t, 256> symbols{};
};

class EntropyDecoder {
 public:
  // Prepares the tables of every scan. Throws Error(InvalidData) for a scan that uses an
  // undefined table or a DC symbol above 15, codes a component a second time, or has an MCU of
  // more than 10 blocks.
  EntropyDecoder(const std::uint8_t* data, std::size_t size, const Header& header,
                 const Layout& layout);

  // At most `max_tasks` tasks (at least one per scan), covering every MCU once.
  std::vector<EntropyTask> tasks(int max_tasks) const;
  // Sets `out` (cleared) up for grouped mode, for a task that covers every scan on its own:
  // buckets sized from the entropy-coded bytes, so that most groups fit.
  void use_groups(EntropyResult& out) const;
  void run(const EntropyTask& task, EntropyResult& out) const;

  // Runs fn(0..count-1), on several threads where it can.
  using Parallel =
      std::function<void(std::size_t count, const std::function<void(std::size_t)>& fn)>;
  // Decodes a file with one scan and no restart markers in up to `pieces` pieces of at least
  // `min_piece_bytes` at once (a speculative decoding: see entropy_split.cpp). Fills `out` with the
  // same tokens run() writes and returns true; returns false when the file is not one for it
  // or the pieces do not join cleanly (corrupt data), and the caller then uses run().
  bool run_split(int pieces, std::size_t min_piece_bytes, const Parallel& parallel,
                 std::vector<EntropyResult>& out) const;

  std::size_t stream_bytes(const std::vector<EntropyResult>& results) const;
  // Writes the token stream (stream_bytes() bytes) to `out`, which must be 4-byte aligned; on
  // several threads through `parallel` when given and there are several results.
  void write_stream(const std::vector<EntropyResult>& results, std::uint8_t* out,
                    const Parallel& parallel = {}) const;

  // Quantisation table of a component as the decoder uses it: 64 values in natural order, as
  // libjpeg latches them when the component's first scan starts.
  const std::array<std::int32_t, 64>& quant(int component) const { return quant_[component]; }
  const std::vector<std::array<std::int32_t, 64>>& quant() const { return quant_; }

 private:
  friend class DeviceEntropyPlan;  // entropy_device.h: the same plans, described to the device
  struct ScanPlan {
    int mcus_x = 0, mcus = 0, intervals = 1, restart = 0;
    struct Block {
      int component, dc, ac, h, v, dx, dy;  // h, v: 1 in a non-interleaved scan
    };
    std::vector<Block> mcu;  // blocks of one MCU in coding order
    std::vector<int> lookup_dc, lookup_ac;
  };
  int table_index(const HuffmanTable& t, bool ac);
  // Decodes one restart interval into `out`; true when it ran out of data (libjpeg-turbo's
  // insufficient_data: its last MCUs were decoded from zero bits or left zero).
  bool decode_interval(const ScanPlan& plan, const Scan& scan, std::uint32_t interval,
                       EntropyResult& out) const;
  bool interval_bytes(const ScanPlan& plan, const Scan& scan, std::uint32_t interval,
                      std::size_t& begin, std::size_t& end, EntropyResult& out) const;
  struct Split;  // run_split()'s pieces and the steps that decode and join them

  const std::uint8_t* data_;
  std::size_t size_;
  const Header& header_;
  const Layout& layout_;
  std::vector<ScanPlan> plans_;
  // Derived tables, shared by the components whose tables have the same content, and across
  // decoders on the same thread (most files carry the same standard tables).
  std::vector<std::shared_ptr<const HuffmanLookup>> tables_;
  std::vector<const HuffmanLookup*> tables_data_;  // the same, for the decoding loop
  std::vector<std::array<std::int32_t, 64>> quant_;
};

// What EntropyDecoder::stream_bytes() and write_stream() do, for results of any decoder of a
// frame with this layout (the coefficient path of coefficients.h too); token_count() is the
// tokens of the results.
std::size_t token_count(const std::vector<EntropyResult>& results);
std::size_t token_stream_size(const Layout& layout, const std::vector<EntropyResult>& results);
void write_token_stream(const Layout& layout, const std::vector<EntropyResult>& results,
                        std::uint8_t* out, const EntropyDecoder::Parallel& parallel = {});

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_ENTROPY_H
