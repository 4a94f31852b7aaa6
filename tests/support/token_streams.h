// Token streams of a JPEG file made by the CPU stage in its different ways (restart intervals
// as separate tasks, one scan split into speculatively decoded pieces), for tests that compare
// them byte for byte.
#ifndef HETCODEC_TESTS_SUPPORT_TOKEN_STREAMS_H
#define HETCODEC_TESTS_SUPPORT_TOKEN_STREAMS_H

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "core/jpeg/entropy.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"

namespace hetcodec::test {

// Runs fn(n-1) ... fn(0): the order must not matter, and a piece of work that wrote into the
// place of the one before it would be overwritten by it and caught.
inline void in_reverse(std::size_t n, const std::function<void(std::size_t)>& fn) {
  for (std::size_t i = n; i-- > 0;) fn(i);
}

// The stream laid out from several results is written as on several threads (in_reverse).
inline std::vector<std::uint8_t> token_stream_bytes(const jpeg::EntropyDecoder& d,
                                                    const std::vector<jpeg::EntropyResult>& r) {
  std::vector<std::uint32_t> words(d.stream_bytes(r) / 4);
  d.write_stream(
      r, reinterpret_cast<std::uint8_t*>(words.data()),
      r.size() > 1 ? jpeg::EntropyDecoder::Parallel(in_reverse) : jpeg::EntropyDecoder::Parallel());
  std::vector<std::uint8_t> out(words.size() * 4);
  if (!out.empty()) std::memcpy(out.data(), words.data(), out.size());
  return out;
}

// Restart intervals in up to `tasks` tasks, run one after the other.
inline std::vector<std::uint8_t> stream_with_tasks(const std::vector<std::uint8_t>& file,
                                                   int tasks) {
  const jpeg::Header h = jpeg::parse(file.data(), file.size());
  const jpeg::Layout l = jpeg::make_layout(h);
  const jpeg::EntropyDecoder d(file.data(), file.size(), h, l);
  const auto t = d.tasks(tasks);
  std::vector<jpeg::EntropyResult> r(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) d.run(t[i], r[i]);
  return token_stream_bytes(d, r);
}

// One task in grouped mode (tokens straight into their groups' buckets); `overflowed` tells
// whether some blocks did not fit their bucket.
inline std::vector<std::uint8_t> stream_grouped(const std::vector<std::uint8_t>& file,
                                                bool& overflowed) {
  const jpeg::Header h = jpeg::parse(file.data(), file.size());
  const jpeg::Layout l = jpeg::make_layout(h);
  const jpeg::EntropyDecoder d(file.data(), file.size(), h, l);
  const auto t = d.tasks(1);
  std::vector<jpeg::EntropyResult> r(1);
  d.use_groups(r[0]);
  for (const auto& task : t) d.run(task, r[0]);
  overflowed = !r[0].block_ids.empty();
  return token_stream_bytes(d, r);
}

// The scan split into `pieces` pieces of at least `min_bytes` (run one after the other, in
// reverse order, which the result must not depend on). `split` tells whether run_split() took
// the file; when it did not, the stream is the sequential one.
inline std::vector<std::uint8_t> stream_split(const std::vector<std::uint8_t>& file, int pieces,
                                              std::size_t min_bytes, bool& split) {
  const jpeg::Header h = jpeg::parse(file.data(), file.size());
  const jpeg::Layout l = jpeg::make_layout(h);
  const jpeg::EntropyDecoder d(file.data(), file.size(), h, l);
  std::vector<jpeg::EntropyResult> r;
  split = d.run_split(pieces, min_bytes, in_reverse, r);
  if (split) return token_stream_bytes(d, r);
  const auto t = d.tasks(1);
  r.assign(t.size(), {});
  for (std::size_t i = 0; i < t.size(); ++i) d.run(t[i], r[i]);
  return token_stream_bytes(d, r);
}

}  // namespace hetcodec::test

#endif  // HETCODEC_TESTS_SUPPORT_TOKEN_STREAMS_H
