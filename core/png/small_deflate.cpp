// The small mode's segments (small_deflate.h): libdeflate per segment, the final block found by
// walking the blocks (RFC 1951 3.2.3: BFINAL is the first bit of a block's header, and a stored
// block's LEN follows the next byte boundary), then unfinished and joined.
#include "core/png/small_deflate.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "core/error.h"
#include "core/png/checksum.h"
#include "core/portable/png_inflate.h"

#if defined(HETCODEC_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

namespace hetcodec::png {
namespace {

// Walks raw deflate data[0, n), inflating it into `out` (its size the bytes it must give), to
// its final block: the bit where that block's header starts and the bit after its last code (or
// its stored bytes). False unless it inflates to exactly out.size() bytes and ends in the last
// byte of the data.
bool final_block(const std::uint8_t* data, std::size_t n, std::vector<std::uint8_t>& out,
                 std::uint64_t& header_bit, std::uint64_t& end_bit) {
  if (n > 0xFFFFFFFFu || out.size() > 0xFFFFFFFFu) return false;
  hc_inf_reader r{data, hc_u32(n), 0, 0, 0, HC_INF_OK};
  auto lencode = std::make_unique<hc_inf_code>(), distcode = std::make_unique<hc_inf_code>();
  hc_u16 fast[1u << HC_INF_FAST_BITS];
  hc_u16 lengths[320];
  hc_u32 produced = 0;
  hc_u8 last = 0;
  for (;;) {
    const std::uint64_t at = std::uint64_t(r.pos) * 8 - r.nbits;
    const hc_u32 final_bit = hc_inf_bits(&r, 1u), type = hc_inf_bits(&r, 2u);
    if (r.status != HC_INF_OK) return false;
    if (type == 0u) {
      hc_inf_stored(&r, out.data(), hc_u32(out.size()), &produced, &last);
    } else if (type == 1u || type == 2u) {
      if (type == 1u)
        hc_inf_fixed_tables(lencode.get(), distcode.get(), lengths, fast);
      else
        hc_inf_dynamic_tables(&r, lencode.get(), distcode.get(), lengths, fast);
      if (r.status == HC_INF_OK)
        hc_inf_symbols(&r, lencode.get(), distcode.get(), fast, out.data(), hc_u32(out.size()),
                       &produced, &last);
    } else {
      return false;
    }
    if (r.status != HC_INF_OK) return false;
    if (final_bit) {
      header_bit = at;
      end_bit = std::uint64_t(r.pos) * 8 - r.nbits;
      return produced == out.size() && (end_bit + 7) / 8 == n;
    }
  }
}

}  // namespace

bool small_deflate_available() {
#if defined(HETCODEC_HAVE_LIBDEFLATE)
  return true;
#else
  return false;
#endif
}

bool unfinish_segment(std::vector<std::uint8_t>& data, std::size_t inflated) {
  std::vector<std::uint8_t> scratch(inflated);
  std::uint64_t header_bit = 0, end_bit = 0;
  if (!final_block(data.data(), data.size(), scratch, header_bit, end_bit)) return false;
  data[header_bit / 8] &= std::uint8_t(~(1u << (header_bit % 8)));  // BFINAL off
  // The empty stored block's three header bits (BFINAL 0, BTYPE 00) go right after the last
  // code: zeros, in the padding of the last byte where they fit, then up to the byte boundary,
  // then LEN 0 and NLEN 0xFFFF.
  const unsigned used = unsigned(end_bit % 8);
  if (used) data.back() &= std::uint8_t((1u << used) - 1u);
  data.resize(std::size_t((end_bit + 3 + 7) / 8), 0);
  data.insert(data.end(), {0x00, 0x00, 0xFF, 0xFF});
  return true;
}

SegmentedStream small_segments(const std::uint8_t* data, std::size_t n,
                               const std::vector<std::size_t>& starts, int threads, int level) {
#if defined(HETCODEC_HAVE_LIBDEFLATE)
  const std::size_t count = starts.size();
  std::vector<std::vector<std::uint8_t>> parts(count);
  std::vector<std::uint32_t> adler(count);
  std::vector<std::string> failed(count);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> c(
        libdeflate_alloc_compressor(level), libdeflate_free_compressor);
    for (std::size_t k; (k = next.fetch_add(1)) < count;) {
      const std::size_t a = starts[k], b = k + 1 < count ? starts[k + 1] : n;
      if (!c) {
        failed[k] = "libdeflate could not make a compressor of level " + std::to_string(level);
        continue;
      }
      std::vector<std::uint8_t>& out = parts[k];
      out.resize(libdeflate_deflate_compress_bound(c.get(), b - a));
      out.resize(libdeflate_deflate_compress(c.get(), data + a, b - a, out.data(), out.size()));
      adler[k] = adler32(1, data + a, b - a);
      if (out.empty())
        failed[k] = "libdeflate gave no data";
      else if (k + 1 < count && !unfinish_segment(out, b - a))
        failed[k] = "libdeflate's data does not end in a final block that walks";
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads && std::size_t(t) < count; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (std::size_t k = 0; k < count; ++k)
    if (!failed[k].empty())
      throw Error(ErrorCode::InvalidData,
                  "png: small mode, segment " + std::to_string(k) + ": " + failed[k]);
  // CMF 0x78 (deflate, 32 KiB window), FLG 0xDA: FLEVEL 3, "maximum compression", as zlib and
  // libdeflate write it for their highest levels.
  return join_segments({0x78, 0xDA}, parts, adler, starts, n);
#else
  (void)data, (void)n, (void)starts, (void)threads, (void)level;
  throw Error(ErrorCode::Unsupported,
              "png: the small mode needs libdeflate, which this build lacks");
#endif
}

std::vector<std::uint8_t> assemble_small(const Raster& im,
                                         const std::vector<std::uint8_t>& filtered, int segments,
                                         int threads, int level) {
  check_layout(im);
  if (filtered.size() != (im.row_bytes() + 1) * std::size_t(im.height))
    throw Error(ErrorCode::InvalidArgument, "png: filtered rows of the wrong size");
  const ParallelSegments seg = parallel_segments(im, segments);
  const SegmentedStream z =
      small_segments(filtered.data(), filtered.size(), seg.starts, std::max(1, threads), level);
  return parallel_file(im, seg.first_row, z.offsets, {{z.stream.data(), z.stream.size()}});
}

}  // namespace hetcodec::png
