// The host's half of Huffman decoding on the device (core/portable/jpeg_huffman.h,
// docs/device-entropy.md): the plan that describes a batch of sequential JPEG files to the
// device stages (their scans' segments, layouts and Huffman tables), and what the stages' status
// words mean for each file. Lossless files take the same stages to find their row tables.
#ifndef HETCODEC_CORE_JPEG_ENTROPY_DEVICE_H
#define HETCODEC_CORE_JPEG_ENTROPY_DEVICE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/jpeg/entropy.h"
#include "core/jpeg/lossless.h"

namespace hetcodec::jpeg {

class DeviceEntropyPlan {
 public:
  DeviceEntropyPlan();

  // Whether the device stages can decode this file exactly as EntropyDecoder::run() does: every
  // scan sequential Huffman, every restart marker where it is expected, the data of each
  // segment within 4 GiB. A file they cannot decode goes to the CPU stage.
  static bool supports(const EntropyDecoder& decoder);
  // Adds a file's segments: its bytes lie at `data_offset` in the device's data buffer, its
  // dense coefficients at block `coef_base` of the coefficient buffer (its component c's block
  // (0, 0) at coef_base + first_block of c). `sub_bytes`: bytes per subsequence. Returns the
  // file's index in the plan. supports(decoder) must hold.
  std::size_t add(const EntropyDecoder& decoder, std::size_t data_offset, std::uint64_t coef_base,
                  std::uint32_t sub_bytes);

  // Whether the device stages can find the row tables of a lossless file: entries of 32 bits,
  // every restart marker where it is expected, at most HC_JH_MAX_BLOCKS samples per MCU.
  static bool supports_lossless(const Header& header, const LosslessLayout& layout);
  // Adds a lossless file's segments for the ROWS stage, which writes its row tables into its
  // job (`job`, as lossless_job() wrote it, with the tables' places and the Huffman tables the
  // stages read) on the device; its bytes (`data`, `size`) lie at `data_offset` in the device's
  // data buffer. supports_lossless() must hold. Returns the file's index in the plan.
  std::size_t add_lossless(const Header& header, const LosslessLayout& layout,
                           const std::vector<std::uint32_t>& job, const std::uint8_t* data,
                           std::size_t size, std::size_t data_offset, std::uint32_t sub_bytes);

  // The plan's words (valid until the next add()).
  const std::vector<std::uint32_t>& words();
  std::uint32_t segments() const;
  std::uint32_t subsequences() const { return subs_; }
  // Words of the stages' work buffer.
  std::size_t work_words() const;

  // A file's outcome from the work buffer's header (read back after SCAN and WRITE): true when
  // the device decoded it exactly; then `warnings` gets the warnings the CPU stage would give
  // (the extraneous bytes after a segment's last block). False: decode it on the CPU.
  bool outcome(std::size_t file, const std::uint32_t* work_header, const std::uint8_t* data,
               std::size_t size, std::vector<std::string>& warnings) const;
  // The work buffer's header words outcome() reads: the pass counters and every status word.
  std::size_t status_words() const;

 private:
  // Where a file's segment lies: its scan, its restart interval, and the byte of the marker
  // after it.
  struct FileSegment {
    int scan;
    std::uint32_t interval;
    std::size_t end;
  };
  struct File {
    const EntropyDecoder* decoder;  // null for a lossless file
    std::uint32_t first_segment, segments;
    std::vector<FileSegment> segment_of;
  };
  std::vector<std::uint32_t> body_;      // tables and layouts, from word HC_JH_HEADER_WORDS
  std::vector<std::uint32_t> segments_;  // the segment records
  std::vector<std::uint32_t> words_;
  std::vector<File> files_;
  // A scan's segments (its restart intervals, of `interval_blocks` blocks each, or one segment
  // when that is 0) of `blocks` blocks with the layout at word `layout`; `rows` and
  // `row_blocks` for a lossless scan's ROWS stage.
  void add_segments(const Scan& scan, int scan_index, const std::uint8_t* data, std::size_t size,
                    std::size_t data_offset, std::uint32_t sub_bytes, std::uint32_t layout,
                    std::uint32_t blocks, std::uint32_t interval_blocks, std::uint32_t rows,
                    std::uint32_t row_blocks, File& f);
  // A table's word offset in the plan (`at`): the first time for `key`, `n` words made for it,
  // returned to be filled; null after.
  std::uint32_t* table_slot(const void* key, std::size_t n, std::uint32_t& at);
  // A layout's words appended; their word offset.
  std::uint32_t append_layout(const std::vector<std::uint32_t>& layout);

  std::vector<std::pair<const void*, std::uint32_t>> tables_;  // table -> word offset
  std::uint32_t subs_ = 0;
};

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_ENTROPY_DEVICE_H
