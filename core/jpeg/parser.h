// JPEG marker parsing (ITU-T T.81 Annex B): SOI..EOI, DQT (8- and 16-bit), DHT, DAC, SOF0..SOF15,
// DRI, SOS, RSTn, APPn/COM. Produces the frame header, the tables each scan uses, and for each
// scan its entropy-coded bytes and restart-marker positions (the restart index). Decoding the
// entropy-coded data is not done here. Every error names the byte offset and what was expected.
#ifndef HETCODEC_CORE_JPEG_PARSER_H
#define HETCODEC_CORE_JPEG_PARSER_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hetcodec::jpeg {

struct Limits {
  std::uint64_t max_pixels = 1ull << 28;  // 268 MP: 16384 x 16384
  // Scans of one file: each scan of a progressive file is a pass over the image's coefficients,
  // so a small file of many tiny scans would cost time out of all proportion to its size.
  int max_scans = 1000;
  // Entropy-coded data of this many bytes or more is searched for markers on several threads
  // (scan_threads; 0: one per hardware thread, at most one per 2 MiB). The result is the same;
  // tests lower it to run that path on small files.
  std::size_t parallel_scan_bytes = std::size_t(16) << 20;
  int scan_threads = 0;
};

struct QuantTable {
  bool defined = false;
  int precision = 0;                     // 0: 8-bit entries, 1: 16-bit entries
  std::array<std::uint16_t, 64> values;  // in zigzag order, as stored
};

struct HuffmanTable {
  bool defined = false;
  std::array<std::uint8_t, 17> counts{};  // counts[1..16]: number of codes of each length
  std::vector<std::uint8_t> symbols;
};

// The canonical codes of a table (T.81 Annex C, C.1 and C.2): the length and code of each of
// its symbols, in the order of HuffmanTable::symbols; returns the symbol count. In
// huffman_lookup.cpp.
int huffman_codes(const HuffmanTable& t, std::uint8_t size[257], std::uint32_t code[257]);

struct Component {
  int id = 0;
  int h = 1, v = 1;     // sampling factors, 1..4
  int quant_table = 0;  // Tq
};

struct Segment {
  int marker = 0;          // 0xE0..0xEF for APPn, 0xFE for COM
  std::size_t offset = 0;  // of the payload (after the length field)
  std::size_t length = 0;  // payload bytes
};

struct Scan {
  std::vector<int> components;  // indices into Header::components
  std::vector<int> dc_table, ac_table;
  int ss = 0, se = 63, ah = 0, al = 0;
  std::array<HuffmanTable, 4> dc_tables, ac_tables;  // as defined when the scan starts
  std::array<QuantTable, 4> quant_tables;
  // Arithmetic-coding conditioning (T.81 F.1.4.4, set by DAC) per table slot, as defined when
  // the scan starts: the DC bounds L and U, and the AC Kx.
  std::array<std::uint8_t, 4> arith_dc_l{0, 0, 0, 0}, arith_dc_u{1, 1, 1, 1},
      arith_ac_k{5, 5, 5, 5};
  int restart_interval = 0;
  std::size_t data_offset = 0, data_end = 0;  // entropy-coded bytes [offset, end)
  std::vector<std::size_t> restarts;          // offsets of each RSTn marker inside the data
  // Where each restart interval after the first starts, as libjpeg-turbo resynchronises when
  // the markers are damaged (jdmarker.c read_restart_marker, jpeg_resync_to_restart): entry
  // k - 1 for interval k. Intervals past the end, and entries of kEmptyInterval, have no data.
  struct IntervalStart {
    std::size_t begin = 0;  // the byte after its RSTn marker
    int found = -1;         // the marker found instead of the one expected (a warning), or -1
  };
  static constexpr std::size_t kEmptyInterval = ~std::size_t(0);
  std::vector<IntervalStart> interval_starts;
};

enum class Process { Baseline, ExtendedHuffman, ProgressiveHuffman, LosslessHuffman, Arithmetic };

struct Header {
  Process process = Process::Baseline;
  int sof_marker = 0;
  int precision = 8;
  int width = 0, height = 0;
  std::vector<Component> components;
  int max_h = 1, max_v = 1;
  std::vector<Scan> scans;
  std::vector<Segment> segments;  // APPn and COM, kept for the caller (EXIF, ICC, Adobe)
  bool jfif = false;
  bool adobe = false;
  int adobe_transform = -1;           // -1: no Adobe segment
  std::vector<std::string> warnings;  // corrupt but decodable (libjpeg-turbo's JWRN cases)
};

// Parses a whole JPEG file. Throws Error(InvalidData) for malformed input, Error(LimitExceeded)
// past `limits`. Coding processes this build does not decode are still parsed; the decoder
// refuses them with Unsupported, naming the feature.
Header parse(const std::uint8_t* data, std::size_t size, const Limits& limits = {});
// The markers before the first scan only (frame header, tables, APPn/COM), with the same checks:
// what a query of the decoded size and format needs, without reading the entropy-coded data.
// The result has no scans. Error(InvalidData) when the file has no frame header before its
// first scan.
Header parse_headers(const std::uint8_t* data, std::size_t size, const Limits& limits = {});
// The frame header alone (size, precision, components), the segments before it skipped by their
// length: the least a batch needs to size its outputs. Error(InvalidData) when there is none
// before the first scan.
Header parse_frame(const std::uint8_t* data, std::size_t size, const Limits& limits = {});

const char* to_string(Process process);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_PARSER_H
