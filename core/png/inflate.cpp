// Inflate of a PNG file's image data on the CPU (see reader.h): the whole zlib stream (libdeflate
// when present, zlib otherwise, which also names what is wrong with damaged data), the stream cut
// at block starts (split_inflate.h), or the segments of the file's index one at a time
// (SegmentInflater), each checked against the stream's Adler-32.
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "core/error.h"
#include "core/png/checksum.h"
#include "core/png/reader.h"
#include "core/png/reader_parts.h"

#if defined(HETCODEC_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

namespace hetcodec::png {

InflateResult inflate_chunks(const std::vector<std::pair<const std::uint8_t*, std::size_t>>& in,
                             std::uint8_t* out, std::size_t out_size, int window_bits) {
  InflateResult r;
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) throw Error(ErrorCode::OutOfMemory, "png: zlib init");
  std::size_t done = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (r.ended) {
      if (in[i].second) r.trailing = true;
      continue;
    }
    z.next_in = const_cast<Bytef*>(in[i].first);
    z.avail_in = uInt(in[i].second);  // a chunk holds at most 2^31 - 1 bytes
    while (z.avail_in > 0) {
      std::uint8_t spare[64];
      const bool past = done == out_size;  // the image is complete: anything more is extra
      z.next_out = past ? spare : out + done;
      z.avail_out =
          past ? uInt(sizeof spare) : uInt(std::min<std::size_t>(out_size - done, 1u << 30));
      const uInt before = z.avail_out;
      const int rc = inflate(&z, Z_NO_FLUSH);
      const std::size_t made = before - z.avail_out;
      if (past && made) {
        r.left_over = true;
        break;
      }
      if (!past) done += made;
      if (rc == Z_STREAM_END) {
        r.ended = true;
        if (z.avail_in) r.trailing = true;
        break;
      }
      if (rc != Z_OK) {
        r.bad = rc != Z_BUF_ERROR;
        r.message = z.msg ? z.msg : "inflate error " + std::to_string(rc);
        break;
      }
    }
    if (r.left_over || r.bad) break;
  }
  r.produced = done;
  inflateEnd(&z);
  return r;
}

SegmentInflater::SegmentInflater(const std::uint8_t* data, const Info& info)
    : data_(data), idat_bytes_(info.idat_bytes), height_(info.height) {
  seg_ = restart_segments(info, &kind_);
  if (seg_.size() < 2 || info.idat_bytes < 6) {
    seg_.clear();
    return;
  }
  row_bytes_ = passes(info)[0].row_bytes + 1u;
  std::uint64_t at = 0;
  for (const auto& [off, len] : info.idat) {
    idat_.emplace_back(off, len);
    idat_at_.push_back(at);
    at += len;
  }
  adler_.assign(seg_.size(), 1);
}

std::vector<std::pair<const std::uint8_t*, std::size_t>> SegmentInflater::range(
    std::uint64_t from, std::uint64_t to) const {
  std::vector<std::pair<const std::uint8_t*, std::size_t>> r;
  std::size_t c =
      std::size_t(std::upper_bound(idat_at_.begin(), idat_at_.end(), from) - idat_at_.begin()) - 1;
  for (; from < to && c < idat_.size(); ++c) {
    const std::uint64_t end = idat_at_[c] + idat_[c].second, stop = std::min(end, to);
    if (stop > from)
      r.emplace_back(data_ + idat_[c].first + (from - idat_at_[c]), std::size_t(stop - from));
    from = stop;
  }
  return r;
}

bool SegmentInflater::inflate(std::size_t k, std::uint8_t* out) {
  const std::size_t n = seg_.size();
  const bool last = k + 1 == n;
  // Each segment is raw deflate from its offset to the next one's and ends on a sync flush; the
  // last one ends the stream, and the 4-byte Adler-32 follows it.
  const std::uint64_t in0 = seg_[k].second, in1 = last ? idat_bytes_ : seg_[k + 1].second;
  const std::uint64_t o0 = std::uint64_t(first_row(k)) * row_bytes_,
                      o1 = std::uint64_t(end_row(k)) * row_bytes_;
  if (in1 <= in0 || (last && in1 - in0 < 4)) return false;
  bool good;
#if defined(HETCODEC_HAVE_LIBDEFLATE)
  // libdeflate stops only at a final block: a middle segment (which ends on a byte boundary after
  // its sync flush) gets one appended, an empty fixed-Huffman block (bits 1, 01, then the 7-bit
  // end-of-block code: bytes 03 00).
  thread_local std::vector<std::uint8_t> piece;
  piece.clear();
  for (const auto& [p, len] : range(in0, last ? in1 - 4 : in1))
    piece.insert(piece.end(), p, p + len);
  if (!last) piece.insert(piece.end(), {0x03, 0x00});
  thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  std::size_t in_used = 0, produced = 0;
  good = d &&
         libdeflate_deflate_decompress_ex(d.get(), piece.data(), piece.size(), out + o0,
                                          std::size_t(o1 - o0), &in_used,
                                          &produced) == LIBDEFLATE_SUCCESS &&
         produced == o1 - o0 && in_used == piece.size();
  if (piece.capacity() > (std::size_t(16) << 20)) std::vector<std::uint8_t>().swap(piece);
#else
  // A middle segment consumes all its input without ending the stream; the last one ends it.
  const auto r = inflate_chunks(range(in0, in1), out + o0, std::size_t(o1 - o0), -15);
  good =
      !(r.bad || r.left_over || r.produced != o1 - o0 || (!last && r.ended) || (last && !r.ended));
#endif
  if (good) adler_[k] = adler32(1, out + o0, std::size_t(o1 - o0));
  return good;
}

bool SegmentInflater::check() const {
  std::uint8_t stored[4];
  std::size_t at = 0;
  for (const auto& [p, len] : range(idat_bytes_ - 4, idat_bytes_)) {
    std::memcpy(stored + at, p, len);
    at += len;
  }
  std::uint32_t a = adler_[0];
  for (std::size_t k = 1; k < seg_.size(); ++k)
    a = adler32_combine(a, adler_[k], std::uint64_t(end_row(k) - first_row(k)) * row_bytes_);
  return at == 4 && a == be32(stored);
}

void inflate_image(const std::uint8_t* data, const Info& info, std::uint8_t* out,
                   std::vector<std::string>& warnings, int threads, bool* used_index,
                   const ParallelRun& run, int* split_pieces) {
  const std::uint64_t total = inflated_bytes(info);
  if (used_index) *used_index = false;
  if (split_pieces) *split_pieces = 0;
  if (threads > 1) {
    SegmentInflater segments(data, info);
    if (segments.size()) {
      std::atomic<bool> ok{true};
      run_tasks(int(segments.size()), threads, run, [&](int k) {
        if (ok && !segments.inflate(std::size_t(k), out)) ok = false;
      });
      if (ok && segments.check()) {
        if (used_index) *used_index = true;
        return;
      }
      warnings.push_back("png: the " + segments.kind() +
                         " segment index does not match the data; inflated whole");
    }
  }
  // The stream in one piece of memory (the file's own bytes when it has one IDAT chunk), for
  // the split inflate and libdeflate; zlib takes the chunks as they are.
  std::vector<std::uint8_t> joined;
  const std::uint8_t* src = data + (info.idat.empty() ? 0 : info.idat[0].first);
  auto join = [&] {
    if (info.idat.size() == 1 || !joined.empty()) return;
    joined.reserve(info.idat_bytes);
    for (const auto& [off, len] : info.idat)
      joined.insert(joined.end(), data + off, data + off + len);
    src = joined.data();
  };
  if (split_parts(info.idat_bytes, threads) > 1) {
    // No index: pieces cut at block starts found in the data, when they check out.
    join();
    const int pieces = split_inflate(src, info.idat_bytes, out, total, threads, run);
    if (split_pieces) *split_pieces = pieces;
    if (pieces) return;
  }
#if defined(HETCODEC_HAVE_LIBDEFLATE)
  {
    join();
    thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
        libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
    std::size_t in_used = 0, produced = 0;
    const auto rc = libdeflate_zlib_decompress_ex(d.get(), src, info.idat_bytes, out, total,
                                                  &in_used, &produced);
    if (rc == LIBDEFLATE_SUCCESS && produced == total) {
      if (in_used < info.idat_bytes)
        warnings.push_back("png: " + std::to_string(info.idat_bytes - in_used) +
                           " bytes after the end of the compressed image data ignored");
      return;
    }
    // Anything else (short, damaged or over-long data) goes to zlib, which says what it is.
  }
#endif
  std::vector<std::pair<const std::uint8_t*, std::size_t>> in;
  for (const auto& [off, len] : info.idat) in.emplace_back(data + off, len);
  const auto r = inflate_chunks(in, out, total, 15);
  if (r.produced < total) {
    const std::size_t at = info.idat.empty() ? 0 : info.idat[0].first;
    if (r.bad) invalid(at, "the compressed image data is damaged (" + r.message + ")");
    invalid(at, "the image data ends early: " + std::to_string(r.produced) + " of " +
                    std::to_string(total) + " bytes");
  }
  if (r.left_over)
    warnings.push_back("png: too much image data; the extra is ignored");
  else if (r.trailing)
    warnings.push_back("png: bytes after the end of the compressed image data ignored");
  else if (r.bad)
    warnings.push_back("png: the compressed data is damaged after the image (" + r.message + ")");
  else if (!r.ended)
    warnings.push_back("png: the compressed image data has no end");
}

}  // namespace hetcodec::png
