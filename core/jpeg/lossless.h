// Lossless JPEG (ITU-T T.81 Annex H: SOF3, Huffman) on the host side: the checks libjpeg-turbo 3
// makes of a lossless file, the layout of its scans and planes, the row table (where each row's
// codes start, docs/ljpeg-decode.md) from the caller, from restart markers or from a pre-pass
// over the codes, and the job the device stages read (core/portable/ljpeg.h).
#ifndef HETCODEC_CORE_JPEG_LOSSLESS_H
#define HETCODEC_CORE_JPEG_LOSSLESS_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/jpeg/parser.h"

namespace hetcodec::jpeg {

struct LosslessScan {
  int scan = 0;                 // index in Header::scans
  std::vector<int> components;  // indices into Header::components
  int predictor = 1;            // Ss, 1..7
  int pt = 0;                   // Al, the point transform
  int restart_rows = 0;         // coded rows per restart interval (0: none)
  std::array<int, 4> table{};   // the DC Huffman table of each component
  // The plane: MCUs per row x mcu_h samples wide, MCU rows x mcu_v high (an interleaved scan's
  // MCU holds mcu_h x mcu_v samples of each component; 1 x 1 otherwise). A coded row, the row
  // table's unit, is mcu_v plane rows.
  std::uint32_t width = 0, height = 0, mcu_h = 1, mcu_v = 1;
  std::uint32_t coded_rows() const { return height / mcu_v; }
  std::size_t data_offset = 0, data_bytes = 0;  // the entropy-coded bytes in the file
  std::uint32_t row_bytes() const { return 2u * width * std::uint32_t(components.size()); }
  std::uint64_t plane_bytes() const { return std::uint64_t(height) * (row_bytes() + 1u); }
};

struct LosslessLayout {
  int width = 0, height = 0, channels = 0, precision = 0;
  int depth = 1;  // output bytes per sample: 1 for precision <= 8, else 2
  std::vector<LosslessScan> scans;
  // Per output channel: the scan that gives it (the last one naming the component) and its
  // index there.
  std::array<int, 4> channel_scan{}, channel_index{};
  std::vector<std::uint64_t> plane_offsets;  // per scan, in one planes buffer (16-aligned)
  std::uint64_t planes_bytes = 0;
};

// The layout of a parsed SOF3 file, after the checks libjpeg-turbo 3 makes (jdlossls.c,
// jddiffct.c, jdhuff.c, jdinput.c): precision 2..16, Ss 1..7 with Se = Ah = 0 and Al below the
// precision, Huffman tables present with symbols 0..16, restart intervals a whole number of rows,
// every component in a scan. Throws Error(InvalidData) naming the byte, or Error(Unsupported)
// for what this decoder does not take (SOF7, SOF11, SOF15; components of different sampling
// factors, or of factors other than 1x1 in an interleaved scan).
LosslessLayout lossless_layout(const Header& header);

// Where each row of a scan starts (core/portable/ljpeg.h: bits from the scan's first data byte,
// or HC_LJ_NO_DATA), and how that was learnt.
// Device: found by the device's Huffman stages (core/portable/jpeg_huffman.h, HC_JH_ROWS).
enum class RowTableSource { Caller, Markers, PrePass, Device };
const char* to_string(RowTableSource source);
struct RowTable {
  std::vector<std::uint64_t> starts;  // one per coded row
  RowTableSource source = RowTableSource::PrePass;
  // Entries need more than 32 bits (data of 512 MiB or more): two words each on the device.
  bool wide = false;
};
struct RowTables {
  std::vector<RowTable> scans;  // per LosslessScan
  std::vector<std::string> warnings;
};

// From restart markers, where every row starts an interval and every marker is where it should
// be: no decoding. Empty (no scans) where that is not so.
RowTables row_tables_from_markers(const std::uint8_t* data, std::size_t size, const Header& header,
                                  const LosslessLayout& layout);
// By walking the codes without reconstructing, restart intervals on up to `threads` threads
// (0: one per hardware thread), with libjpeg-turbo's handling of data that runs out and of
// damaged restart markers. Warnings as libjpeg-turbo would give them.
RowTables row_tables_prepass(const std::uint8_t* data, std::size_t size, const Header& header,
                             const LosslessLayout& layout, int threads = 0);
// A caller's table (the sidecar a camera or FPGA writes): every row of every scan in scan order,
// checked: in order within each interval and inside the scan's data. Error(InvalidArgument)
// naming the first bad entry.
RowTables row_tables_given(const std::vector<std::uint64_t>& starts, const LosslessLayout& layout);
// The entries of a sidecar file: little-endian 32-bit words (27 + 5 packing), or 64-bit ones when
// the file holds exactly 8 bytes per row; `rows` is the file's total coded rows over its scans.
std::vector<std::uint64_t> read_row_table_sidecar(const std::uint8_t* bytes, std::size_t size,
                                                  std::size_t rows);
// The sidecar form of a table (32-bit words unless an entry needs more).
std::vector<std::uint8_t> write_row_table_sidecar(const RowTables& tables);

// The device job (core/portable/ljpeg.h) of a layout and its row tables.
std::vector<std::uint32_t> lossless_job(const Header& header, const LosslessLayout& layout,
                                        const RowTables& tables);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_LOSSLESS_H
