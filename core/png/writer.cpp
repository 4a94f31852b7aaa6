// The file as libpng 1.6 writes it (png_write_info, png_write_row per row, png_write_end):
// signature, IHDR, the zlib stream in IDAT chunks of 8192 bytes (libpng's default
// PNG_ZBUF_SIZE; the last one shorter), IEND. libpng sizes the zlib window to the image
// (png_deflate_claim) and, for the first IDAT, rewrites the zlib header's window field to the
// smallest that covers the data (optimize_cmf); both are reproduced.
#include "core/png/writer.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/png/checksum.h"
#include "core/png/filter.h"
#include "core/png/metadata.h"
#include "core/png/zlib_rle.h"
#include "core/portable/png_filter.h"

namespace hetcodec::png {
namespace {

constexpr std::size_t kIdatSize = 8192;
// The parallel mode writes larger IDAT chunks: fewer chunk headers and CRCs to handle.
constexpr std::size_t kParallelIdatSize = std::size_t(1) << 20;

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(std::uint8_t(v >> s));
}

void chunk(std::vector<std::uint8_t>& out, const char type[4], const std::uint8_t* data,
           std::size_t n) {
  put32(out, std::uint32_t(n));
  const std::size_t at = out.size();
  out.insert(out.end(), type, type + 4);
  if (n) out.insert(out.end(), data, data + n);
  put32(out, crc32(0, out.data() + at, n + 4));
}

// The CRC-32 continued from `crc` over bytes [at, at + n) of part `p`: from its piece CRCs when
// the stretch is whole pieces, else from the bytes.
std::uint32_t stretch_crc(std::uint32_t crc, const StreamPart& p, std::size_t at, std::size_t n) {
  const PieceCrcs* c = p.crcs;
  const auto piece_start = [c](std::size_t j) {
    return j * c->piece > c->skew ? j * c->piece - c->skew : 0;
  };
  if (c && c->piece && n) {
    const std::size_t j0 = (at + c->skew) / c->piece,
                      j1 = (at + n + c->skew + c->piece - 1) / c->piece;
    const std::size_t end = std::min(j1 * c->piece - c->skew, p.size);
    if (piece_start(j0) == at && end == at + n && j1 <= c->count) {
      const Crc32Joiner& full = Crc32Joiner::for_length(c->piece);
      for (std::size_t j = j0; j < j1; ++j) {
        const std::size_t a = piece_start(j),
                          b = std::min(j * c->piece + c->piece - c->skew, p.size);
        crc =
            b - a == c->piece ? full.combine(crc, c->crc[j]) : crc32_combine(crc, c->crc[j], b - a);
      }
      return crc;
    }
  }
  return crc32(crc, p.data + at, n);
}

// IDAT chunks of `size` bytes (the last shorter) over the parts joined.
void idat_chunks(std::vector<std::uint8_t>& out, const std::vector<StreamPart>& parts,
                 std::size_t size) {
  std::size_t total = 0;
  for (const StreamPart& p : parts) total += p.size;
  out.reserve(out.size() + total + (total / size + 1) * 12 + 12);
  std::size_t part = 0, used = 0;
  for (std::size_t at = 0; at < total; at += size) {
    const std::size_t n = std::min(size, total - at);
    put32(out, std::uint32_t(n));
    const std::size_t start = out.size();
    out.insert(out.end(), {'I', 'D', 'A', 'T'});
    std::uint32_t crc = crc32(0, out.data() + start, 4);
    for (std::size_t left = n; left > 0;) {
      while (used == parts[part].size) {
        ++part;
        used = 0;
      }
      const StreamPart& p = parts[part];
      const std::size_t k = std::min(left, p.size - used);
      out.insert(out.end(), p.data + used, p.data + used + k);
      crc = stretch_crc(crc, p, used, k);
      used += k;
      left -= k;
    }
    put32(out, crc);
  }
}

// libpng's png_image_size() for a non-interlaced image: filtered bytes, or 2^32 - 1 when the
// rows or the height reach 32768.
std::uint64_t image_size(const Raster& im) {
  if (im.row_bytes() < 32768 && im.height < 32768)
    return std::uint64_t(im.row_bytes() + 1) * std::uint64_t(im.height);
  return 0xFFFFFFFFu;
}

// libpng's optimize_cmf(): a smaller window in the zlib header when the data is small.
void optimize_cmf(std::uint8_t* z, std::uint64_t data_size) {
  if (data_size > 16384) return;
  unsigned cmf = z[0];
  if ((cmf & 0x0F) != 8 || (cmf & 0xF0) > 0x70) return;
  unsigned cinfo = cmf >> 4, half = 1u << (cinfo + 7);
  if (data_size > half) return;
  do {
    half >>= 1;
    --cinfo;
  } while (cinfo > 0 && data_size <= half);
  cmf = (cmf & 0x0F) | (cinfo << 4);
  z[0] = std::uint8_t(cmf);
  unsigned flg = z[1] & 0xE0;
  flg += 0x1F - ((cmf << 8) + flg) % 0x1F;
  z[1] = std::uint8_t(flg);
}

void start_file(std::vector<std::uint8_t>& out, const Raster& im) {
  out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::uint8_t ihdr[13];
  const std::uint32_t w = std::uint32_t(im.width), h = std::uint32_t(im.height);
  for (int i = 0; i < 4; ++i) {
    ihdr[i] = std::uint8_t(w >> (24 - 8 * i));
    ihdr[4 + i] = std::uint8_t(h >> (24 - 8 * i));
  }
  ihdr[8] = std::uint8_t(im.bit_depth);
  ihdr[9] = std::uint8_t(im.color_type());
  ihdr[10] = ihdr[11] = ihdr[12] = 0;  // deflate, adaptive filtering, no interlace
  chunk(out, "IHDR", ihdr, 13);
  // The image's metadata (metadata.h) before PLTE; then, as png_write_info() orders them,
  // PLTE and tRNS; then the metadata that goes after them, before the image data.
  write_metadata(out, im.metadata, im.channels, MetadataPlace::BeforePalette);
  if (im.indexed) chunk(out, "PLTE", im.plte.data(), im.plte.size());
  if (!im.trns.empty()) chunk(out, "tRNS", im.trns.data(), im.trns.size());
  write_metadata(out, im.metadata, im.channels, MetadataPlace::BeforeData);
}

}  // namespace

namespace {

void check_size(int width, int height, int channels) {
  if (width < 1 || height < 1)
    throw Error(ErrorCode::InvalidArgument, "png: image size " + std::to_string(width) + " x " +
                                                std::to_string(height) +
                                                " (PNG takes 1 to 2^31 - 1 each way)");
  if (channels < 1 || channels > 4)
    throw Error(ErrorCode::InvalidArgument,
                "png: " + std::to_string(channels) + " channels (1 to 4 are possible)");
}

}  // namespace

void check_shape(int width, int height, int channels, int bit_depth, std::size_t sample_bytes) {
  check_size(width, height, channels);
  if (bit_depth != 8 && bit_depth != 16)
    throw Error(ErrorCode::InvalidArgument,
                "png: bit depth " + std::to_string(bit_depth) + " (the encoder takes 8 or 16)");
  const std::uint64_t need = std::uint64_t(width) * std::uint64_t(channels) *
                             std::uint64_t(bit_depth / 8) * std::uint64_t(height);
  if (sample_bytes != need)
    throw Error(ErrorCode::InvalidArgument,
                "png: " + std::to_string(sample_bytes) + " bytes of samples for " +
                    std::to_string(width) + " x " + std::to_string(height) + " x " +
                    std::to_string(channels) + " x " + std::to_string(bit_depth) + " bits (" +
                    std::to_string(need) + " expected)");
}

void check_raster(const Raster& im) {
  if (!im.indexed && im.bit_depth >= 8 && im.plte.empty() && im.trns.empty()) {
    check_shape(im.width, im.height, im.channels, im.bit_depth, im.samples.size());
    return;
  }
  check_layout(im);
  const std::uint64_t need = std::uint64_t(im.row_bytes()) * std::uint64_t(im.height);
  if (im.samples.size() != need)
    throw Error(ErrorCode::InvalidArgument,
                "png: " + std::to_string(im.samples.size()) + " bytes of packed samples for " +
                    std::to_string(im.width) + " x " + std::to_string(im.height) + " at " +
                    std::to_string(im.bit_depth) + " bits (" + std::to_string(need) + " expected)");
}

void check_layout(const Raster& im) {
  check_size(im.width, im.height, im.channels);
  const int d = im.bit_depth;
  const std::string what =
      "png: colour type " + std::to_string(im.color_type()) + " at " + std::to_string(d) + " bits";
  const bool low = d == 1 || d == 2 || d == 4;
  if (im.indexed ? (im.channels != 1 || !(low || d == 8))
                 : !(d == 8 || d == 16 || (low && im.channels == 1)))
    throw Error(ErrorCode::InvalidArgument, what + " (PNG does not define it)");
  if (im.indexed) {
    const std::size_t entries = im.plte.size() / 3, most = std::min(256, 1 << d);
    if (im.plte.size() % 3 != 0 || entries < 1 || entries > most)
      throw Error(ErrorCode::InvalidArgument, what + ": a PLTE of " +
                                                  std::to_string(im.plte.size()) + " bytes (1 to " +
                                                  std::to_string(most) + " entries of 3 bytes)");
    if (im.trns.size() > entries)
      throw Error(ErrorCode::InvalidArgument, what + ": a tRNS of " +
                                                  std::to_string(im.trns.size()) + " alphas for " +
                                                  std::to_string(entries) + " palette entries");
    return;
  }
  if (!im.plte.empty())
    throw Error(ErrorCode::InvalidArgument, what + ": a PLTE for an image without a palette");
  if (im.trns.empty()) return;
  const std::size_t key_bytes = im.channels == 1 ? 2 : im.channels == 3 ? 6 : 0;
  if (im.trns.size() != key_bytes)
    throw Error(ErrorCode::InvalidArgument,
                what + ": a tRNS of " + std::to_string(im.trns.size()) + " bytes (" +
                    (key_bytes ? std::to_string(key_bytes) : std::string("none with alpha")) + ")");
  const unsigned most = d == 16 ? 0xFFFFu : (1u << d) - 1u;
  for (std::size_t k = 0; k < key_bytes; k += 2)
    if ((unsigned(im.trns[k]) << 8 | im.trns[k + 1]) > most)
      throw Error(ErrorCode::InvalidArgument,
                  what + ": a tRNS key sample of " +
                      std::to_string(unsigned(im.trns[k]) << 8 | im.trns[k + 1]) + " (at most " +
                      std::to_string(most) + ")");
}

int libpng_window_bits(std::uint64_t filtered_bytes) {
  int bits = 15;
  if (filtered_bytes <= 16384) {
    std::uint64_t half = 1u << (bits - 1);
    while (filtered_bytes + 262 <= half) {
      half >>= 1;
      --bits;
    }
  }
  return bits;
}

unsigned libpng_filter_mask_of(const Raster& im) {
  if (im.none_only()) return 1u << kNone;
  return libpng_filter_mask(std::uint32_t(im.width), std::uint32_t(im.height));
}

std::vector<std::uint8_t> filter_rows_libpng(const Raster& im, std::uint32_t band_rows) {
  check_raster(im);
  const std::size_t rb = im.row_bytes();
  const int bpp = im.filter_bpp();
  std::vector<std::uint8_t> out((rb + 1) * std::size_t(im.height));
  const unsigned mask = libpng_filter_mask_of(im);
  for (int y = 0; y < im.height; ++y) {
    const std::uint8_t* row = im.samples.data() + std::size_t(y) * rb;
    const std::uint8_t* prev = y ? row - rb : nullptr;
    choose_filter_libpng(row, prev, rb, bpp, hc_png_row_mask(mask, band_rows, std::uint32_t(y)),
                         out.data() + std::size_t(y) * (rb + 1));
  }
  return out;
}

std::vector<std::uint8_t> encode_compatible(const Raster& im) {
  return assemble_compatible(im, filter_rows_libpng(im));
}

std::vector<std::uint8_t> assemble_compatible(const Raster& im,
                                              const std::vector<std::uint8_t>& filtered,
                                              int threads) {
  const std::size_t rb = im.row_bytes();
  if (filtered.size() != (rb + 1) * std::size_t(im.height))
    throw Error(ErrorCode::InvalidArgument, "png: filtered rows of the wrong size");
  const std::uint64_t size = image_size(im);
  std::vector<std::uint8_t> z = zlib_rle_compress(
      filtered.data(), filtered.size(), std::vector<std::size_t>(std::size_t(im.height), rb + 1),
      libpng_window_bits(size), threads);
  return compatible_file(im, {{z.data(), 2}, {z.data() + 2, z.size() - 2}});
}

int compatible_window_bits(const Raster& im) { return libpng_window_bits(image_size(im)); }

std::vector<std::uint8_t> compatible_file(const Raster& im, std::vector<StreamPart> parts) {
  // The zlib header, with the window field libpng's optimize_cmf() writes.
  if (parts.empty() || parts[0].size != 2)
    throw Error(ErrorCode::InvalidArgument, "png: the zlib stream's first part is its header");
  std::uint8_t header[2] = {parts[0].data[0], parts[0].data[1]};
  optimize_cmf(header, image_size(im));
  parts[0].data = header;
  std::vector<std::uint8_t> out;
  start_file(out, im);
  idat_chunks(out, parts, kIdatSize);
  chunk(out, "IEND", nullptr, 0);
  return out;
}

std::vector<std::uint8_t> assemble_parallel(const Raster& im,
                                            const std::vector<std::uint8_t>& filtered, int segments,
                                            int threads) {
  // The samples are not read (the rows come filtered): the shape alone is checked.
  check_layout(im);
  const std::size_t stride = im.row_bytes() + 1;
  if (filtered.size() != stride * std::size_t(im.height))
    throw Error(ErrorCode::InvalidArgument, "png: filtered rows of the wrong size");
  const ParallelSegments seg = parallel_segments(im, segments);
  const SegmentedStream z =
      zlib_rle_segments(filtered.data(), filtered.size(), seg.starts, threads);
  return parallel_file(im, seg.first_row, z.offsets, {{z.stream.data(), z.stream.size()}});
}

ParallelSegments parallel_segments(const Raster& im, int segments) {
  const std::size_t stride = im.row_bytes() + 1;
  const std::uint32_t h = std::uint32_t(im.height);
  const std::uint32_t count = std::uint32_t(std::min<std::uint64_t>(std::max(segments, 1), h));
  ParallelSegments r;
  r.first_row.resize(count);
  r.starts.resize(count);
  for (std::uint32_t k = 0; k < count; ++k) {
    r.first_row[k] = std::uint32_t(std::uint64_t(h) * k / count);
    r.starts[k] = std::size_t(r.first_row[k]) * stride;
  }
  return r;
}

std::vector<std::uint8_t> parallel_file(const Raster& im,
                                        const std::vector<std::uint32_t>& first_row,
                                        const std::vector<std::size_t>& offsets,
                                        const std::vector<StreamPart>& parts) {
  std::size_t total = 0;
  for (const StreamPart& p : parts) total += p.size;
  if (total > 0xFFFFFFFFu)
    throw Error(ErrorCode::LimitExceeded, "png: a compressed stream of 4 GiB or more");
  const std::uint32_t count = std::uint32_t(first_row.size());
  std::vector<std::uint8_t> out;
  start_file(out, im);
  // hcRS: version 1, flags 0, the segment count, then per segment its first row and the
  // offset of its first byte in the zlib stream (all big-endian).
  std::vector<std::uint8_t> rs = {1, 0};
  put32(rs, count);
  for (std::uint32_t k = 0; k < count; ++k) {
    put32(rs, first_row[k]);
    put32(rs, std::uint32_t(offsets[k]));
  }
  chunk(out, "hcRS", rs.data(), rs.size());
  idat_chunks(out, parts, kParallelIdatSize);
  chunk(out, "IEND", nullptr, 0);
  return out;
}

RestartIndex read_restart_index(const std::vector<std::uint8_t>& f) {
  RestartIndex r;
  std::size_t at = 8;
  auto get32 = [&](std::size_t i) {
    return std::uint32_t(f[i]) << 24 | std::uint32_t(f[i + 1]) << 16 |
           std::uint32_t(f[i + 2]) << 8 | f[i + 3];
  };
  while (at + 12 <= f.size()) {
    const std::uint32_t len = get32(at);
    if (len > f.size() - at - 12) break;
    if (std::memcmp(&f[at + 4], "hcRS", 4) == 0) {
      if (crc32(0, &f[at + 4], len + 4) != get32(at + 8 + len) || len < 6 || f[at + 8] != 1) break;
      const std::uint32_t n = get32(at + 10);
      if (std::uint64_t(n) * 8 + 6 != len) break;
      for (std::uint32_t k = 0; k < n; ++k) {
        r.first_row.push_back(get32(at + 14 + 8 * std::size_t(k)));
        r.offset.push_back(get32(at + 18 + 8 * std::size_t(k)));
      }
      break;
    }
    if (std::memcmp(&f[at + 4], "IDAT", 4) == 0) break;  // the index comes before the data
    at += 12 + len;
  }
  return r;
}

}  // namespace hetcodec::png
