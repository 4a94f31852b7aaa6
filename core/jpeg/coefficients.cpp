// The coefficient path of the JPEG decoder (coefficients.h): per scan, its geometry, the
// quantisation tables libjpeg latches, the progression checks and status of jdphuff.c /
// jdarith.c start_pass; the scans decoded in order; the buffer packed into tokens.
#include "core/jpeg/coefficients.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/jpeg/entropy_parts.h"

namespace hetcodec::jpeg {
namespace {

[[noreturn]] void invalid(std::size_t at, const std::string& what) {
  throw Error(ErrorCode::InvalidData, "jpeg: byte " + std::to_string(at) + ": " + what);
}

std::uint64_t reverse_bits(std::uint64_t x) {
  x = __builtin_bswap64(x);
  x = (x >> 4 & 0x0F0F0F0F0F0F0F0Fu) | (x & 0x0F0F0F0F0F0F0F0Fu) << 4;
  x = (x >> 2 & 0x3333333333333333u) | (x & 0x3333333333333333u) << 2;
  return (x >> 1 & 0x5555555555555555u) | (x & 0x5555555555555555u) << 1;
}

#if defined(__x86_64__)
// One block's tokens with AVX-512: the non-zero coefficients (bit k of `mask` for zigzag index k;
// at least one) and their natural positions compressed to the front of a vector each, four of
// each then make a token, positions packed by PEXT. The last token is padded by repeating its
// last coefficient and position, as pack_block() does. Returns the count. VBMI2 compresses
// 16-bit and 8-bit lanes; without it they are widened to 32 bits, 16 at a time.
alignas(64) constexpr std::uint8_t kNaturalBytes[64] = HC_JPEG_NATURAL_ORDER;

__attribute__((target("bmi2"))) inline int finish_tokens(std::int16_t* val, std::uint8_t* pos,
                                                         int m, std::uint32_t block_bits,
                                                         Token* tp) {
  val[m] = val[m + 1] = val[m + 2] = val[m - 1];
  pos[m] = pos[m + 1] = pos[m + 2] = pos[m - 1];
  const int count = (m + 3) >> 2;
  for (int t = 0; t < count; ++t) {
    std::memcpy(tp[t].coef, val + 4 * t, 8);
    std::uint32_t x;
    std::memcpy(&x, pos + 4 * t, 4);
    tp[t].word = block_bits | std::uint32_t(_pext_u32(x, 0x3F3F3F3Fu));
  }
  return count;
}

__attribute__((target("avx512f,avx512bw,avx512vbmi2,bmi2,popcnt"))) int block_tokens_vbmi2(
    const std::int16_t* blk, std::uint64_t mask, std::uint32_t block_bits, Token* tp) {
  alignas(64) std::int16_t val[64 + 32];
  alignas(64) std::uint8_t pos[64 + 64];
  const __mmask32 lo = __mmask32(mask), hi = __mmask32(mask >> 32);
  const int nlo = int(_mm_popcnt_u32(lo)), m = int(_mm_popcnt_u64(mask));
  _mm512_store_si512(val, _mm512_maskz_compress_epi16(lo, _mm512_loadu_si512(blk)));
  _mm512_storeu_si512(val + nlo, _mm512_maskz_compress_epi16(hi, _mm512_loadu_si512(blk + 32)));
  _mm512_store_si512(pos, _mm512_maskz_compress_epi8(mask, _mm512_load_si512(kNaturalBytes)));
  return finish_tokens(val, pos, m, block_bits, tp);
}

__attribute__((target("avx512f,avx512bw,bmi2,popcnt"))) int block_tokens_avx512(
    const std::int16_t* blk, std::uint64_t mask, std::uint32_t block_bits, Token* tp) {
  alignas(64) std::int16_t val[64 + 32];
  alignas(64) std::uint8_t pos[64 + 64];
  int m = 0;
  for (int j = 0; j < 4; ++j) {
    const __mmask16 k = __mmask16(mask >> (16 * j));
    const __m512i v =
        _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 16 * j)));
    const __m512i p = _mm512_cvtepu8_epi32(
        _mm_load_si128(reinterpret_cast<const __m128i*>(kNaturalBytes + 16 * j)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(val + m),
                        _mm512_cvtepi32_epi16(_mm512_maskz_compress_epi32(k, v)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pos + m),
                     _mm512_cvtepi32_epi8(_mm512_maskz_compress_epi32(k, p)));
    m += int(_mm_popcnt_u32(k));
  }
  return finish_tokens(val, pos, m, block_bits, tp);
}

// The instructions tokenize() may use here: 2 with VBMI2, 1 with AVX-512 BW alone, 0 without
// (PEXT as fast as PDEP: BMI2 where it is not microcoded).
int best_token_simd() {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("bmi2") || !use_pdep(true))
    return 0;
  return __builtin_cpu_supports("avx512vbmi2") ? 2 : 1;
}
#else
int block_tokens_vbmi2(const std::int16_t*, std::uint64_t, std::uint32_t, Token*) { return 0; }
int block_tokens_avx512(const std::int16_t*, std::uint64_t, std::uint32_t, Token*) { return 0; }
int best_token_simd() { return 0; }
#endif

std::atomic<int>& token_simd() {
  static std::atomic<int> level{best_token_simd()};
  return level;
}

// The buffers of the last decoder a thread ended, for its next one: an image's coefficients
// then go to memory already mapped rather than fresh pages (each faulted in and cleared by the
// kernel). Buffers past kKeepBytes are freed.
struct Spare {
  std::vector<std::int16_t> coef;
  std::vector<std::uint64_t> nonzero;
};
thread_local Spare spare;
constexpr std::size_t kKeepBytes = std::size_t(16) << 20;

}  // namespace

int use_token_simd(int level) {
  const int now = std::max(0, std::min(level, best_token_simd()));
  token_simd().store(now);
  return now;
}

ScanGeometry scan_geometry(const Header& header, const Layout& layout, const Scan& scan) {
  ScanGeometry g;
  g.layout = &layout;
  const bool interleaved = scan.components.size() > 1;
  for (std::size_t k = 0; k < scan.components.size(); ++k) {
    const int c = scan.components[k];
    const Component& comp = header.components[std::size_t(c)];
    const int h = interleaved ? comp.h : 1, v = interleaved ? comp.v : 1;
    for (int dy = 0; dy < v; ++dy)
      for (int dx = 0; dx < h; ++dx) {
        ScanGeometry::Block b;
        b.component = c;
        b.slot = int(k);
        b.h = h;
        b.v = v;
        b.dx = dx;
        b.dy = dy;
        g.mcu.push_back(b);
      }
  }
  if (interleaved) {
    g.mcus_x = layout.mcus_x;
    g.mcus_y = layout.mcus_y;
  } else {
    const ComponentLayout& cl = layout.components[std::size_t(scan.components[0])];
    g.mcus_x = (cl.width + 7) / 8;
    g.mcus_y = (cl.height + 7) / 8;
    g.rows_per_imcu = header.components[std::size_t(scan.components[0])].v;
  }
  g.restart = scan.restart_interval;
  return g;
}

void to_natural_order(std::vector<std::int16_t>& blocks) {
  static const int zz[64] = HC_JPEG_NATURAL_ORDER;
  std::int16_t tmp[64];
  for (std::size_t b = 0; b + 64 <= blocks.size(); b += 64) {
    for (int i = 0; i < 64; ++i) tmp[zz[i]] = blocks[b + std::size_t(i)];
    std::memcpy(blocks.data() + b, tmp, sizeof tmp);
  }
}

std::vector<std::int16_t> CoefficientDecoder::natural_coefficients() const {
  std::vector<std::int16_t> out = coef_;
  to_natural_order(out);
  return out;
}

CoefficientDecoder::CoefficientDecoder(const std::uint8_t* data, std::size_t size,
                                       const Header& header, const Layout& layout)
    : data_(data), size_(size), header_(header), layout_(layout) {
  coef_.swap(spare.coef);
  nonzero_.swap(spare.nonzero);
  progressive_ = header.sof_marker == 0xC2 || header.sof_marker == 0xCA;
  arithmetic_ = header.sof_marker == 0xC9 || header.sof_marker == 0xCA;
  for (const Scan& scan : header.scans) {
    geometry_.push_back(scan_geometry(header, layout, scan));
    if (geometry_.back().mcu.size() > 10)
      invalid(scan.data_offset, "an MCU of " + std::to_string(geometry_.back().mcu.size()) +
                                    " blocks (T.81 allows at most 10)");
  }
}

CoefficientDecoder::~CoefficientDecoder() {
  if (coef_.capacity() * sizeof(std::int16_t) <= kKeepBytes) spare.coef.swap(coef_);
  if (nonzero_.capacity() * sizeof(std::uint64_t) <= kKeepBytes) spare.nonzero.swap(nonzero_);
}

void CoefficientDecoder::run(std::vector<std::string>& warnings) {
  // Progressive Huffman scans run without following libjpeg-turbo's reader first; where one
  // leaves data unread (whose warning depends on how far libjpeg-turbo had read), the image is
  // decoded again with it followed, the first pass's warnings dropped.
  const std::size_t first_warning = warnings.size();
  if (!pass(false, warnings)) {
    warnings.resize(first_warning);
    pass(true, warnings);
  }
}

bool CoefficientDecoder::pass(bool exact, std::vector<std::string>& warnings) {
  const std::size_t nc = header_.components.size();
  coef_.assign(std::size_t(layout_.groups) * 64 * 64, 0);
  if (arithmetic_)
    nonzero_.clear();  // (empty: tokenize() finds the non-zero coefficients itself)
  else
    nonzero_.assign(std::size_t(layout_.groups) * 64, 0);
  quant_.assign(nc, {});
  raw_quant_.assign(nc, {});
  latched_.assign(nc, false);
  bits_.assign(nc, {});
  prev_bits_.assign(nc, {});
  for (auto& b : bits_) b.fill(-1);
  for (auto& b : prev_bits_) b.fill(0);
  static const int zz[64] = HC_JPEG_NATURAL_ORDER;
  for (std::size_t si = 0; si < header_.scans.size(); ++si) {
    const Scan& scan = header_.scans[si];
    // jdinput.c latch_quant_tables: a component keeps the table in its slot when its first
    // scan starts.
    for (int c : scan.components) {
      if (latched_[std::size_t(c)]) continue;
      const int slot = header_.components[std::size_t(c)].quant_table;
      const QuantTable& q = scan.quant_tables[std::size_t(slot)];
      if (!q.defined)
        invalid(scan.data_offset, "quantisation table " + std::to_string(slot) +
                                      " is not defined before the scan that uses it");
      for (int i = 0; i < 64; ++i) {
        quant_[std::size_t(c)][std::size_t(zz[i])] = std::int16_t(q.values[std::size_t(i)]);
        raw_quant_[std::size_t(c)][std::size_t(zz[i])] = q.values[std::size_t(i)];
      }
      latched_[std::size_t(c)] = true;
    }
    if (progressive_) {
      // jdphuff.c / jdarith.c start_pass: parameters libjpeg-turbo refuses, then the
      // progression status, where inconsistencies are only warnings.
      const bool dc = scan.ss == 0;
      bool bad =
          dc ? scan.se != 0 : (scan.ss > scan.se || scan.se > 63 || scan.components.size() != 1);
      if (scan.ah != 0 && scan.al != scan.ah - 1) bad = true;
      if (scan.al > 13) bad = true;
      if (bad)
        invalid(scan.data_offset, "invalid progressive parameters Ss=" + std::to_string(scan.ss) +
                                      " Se=" + std::to_string(scan.se) + " Ah=" +
                                      std::to_string(scan.ah) + " Al=" + std::to_string(scan.al));
      for (int c : scan.components) {
        auto& bits = bits_[std::size_t(c)];
        auto& prev = prev_bits_[std::size_t(c)];
        bool inconsistent = !dc && bits[0] < 0;  // AC before any DC scan
        for (int k = std::min(scan.ss, 1); k <= std::max(scan.se, 9); ++k)
          prev[std::size_t(k)] = si > 0 ? bits[std::size_t(k)] : 0;
        for (int k = scan.ss; k <= scan.se; ++k) {
          const int expected = std::max(bits[std::size_t(k)], 0);
          if (scan.ah != expected) inconsistent = true;
          bits[std::size_t(k)] = scan.al;
        }
        if (inconsistent)
          warnings.push_back("inconsistent progression sequence for component " +
                             std::to_string(c) + " (scan at byte " +
                             std::to_string(scan.data_offset) + ")");
      }
    } else if (scan.ss != 0 || scan.se != 63 || scan.ah != 0 || scan.al != 0) {
      warnings.push_back("invalid SOS parameters for sequential JPEG (scan at byte " +
                         std::to_string(scan.data_offset) + ")");
    }
    ScanOutcome outcome;
    outcome.exact = exact;
    if (arithmetic_) {
      decode_arithmetic_scan(data_, size_, header_, scan, geometry_[si], progressive_, coef_.data(),
                             outcome, warnings);
    } else {
      decode_progressive_scan(data_, size_, header_, scan, geometry_[si], coef_.data(),
                              nonzero_.data(), outcome, warnings);
      if (outcome.needs_exact) return false;
    }
    last_good_imcu_row_ = outcome.last_good_imcu_row;
  }
  smoothed_ = false;
  if (progressive_ && smoothing_ok()) {
    smooth();
    smoothed_ = true;
  }
  return true;
}

void CoefficientDecoder::tokenize(int pieces, const EntropyDecoder::Parallel& parallel,
                                  std::vector<EntropyResult>& out) const {
  const std::uint32_t groups = layout_.groups;
  const std::size_t n = std::size_t(std::max(1, std::min<int>(pieces, int(groups))));
  if (out.size() < n) out.resize(n);
  for (auto& r : out) r.clear();
  out.resize(n);
  // The last block of each group that belongs to a component (a component's last group may
  // be partly empty).
  std::vector<std::uint32_t> group_end(groups);
  for (const auto& cl : layout_.components)
    for (std::uint32_t g = 0; g < cl.groups; ++g)
      group_end[cl.first_group + g] = std::min(64u, cl.blocks - 64 * g);
  static const int zz[64] = HC_JPEG_NATURAL_ORDER;
  const int simd = token_simd().load(std::memory_order_relaxed);
  auto piece = [&](std::size_t k) {
    const std::uint32_t g0 = std::uint32_t(groups * k / n),
                        g1 = std::uint32_t(groups * (k + 1) / n);
    EntropyResult& r = out[k];
    std::size_t blocks = 0;
    for (std::uint32_t g = g0; g < g1; ++g) blocks += group_end[g];
    r.block_ids.resize(blocks);
    r.block_tokens.resize(blocks);
    r.tokens.resize(blocks * 4 + 17);
    std::size_t nb = 0, nt = 0;
    std::int16_t val[68] = {};
    std::uint8_t pos[68] = {};
    for (std::uint32_t g = g0; g < g1; ++g) {
      for (std::uint32_t i = 0; i < group_end[g]; ++i) {
        const std::uint32_t id = g * 64 + i;
        const std::int16_t* blk = coef_.data() + std::size_t(id) * 64;
        if (!nonzero_.empty()) {
          // The progressive decoder's bitmap of non-zero AC coefficients (bit 63 - k for
          // zigzag index k), reversed (bit k) so that the loop below clears the lowest bit (one
          // cycle) rather than finding the highest; each coefficient is shifted into the token
          // being filled as decode_block_tokens() does. Or AVX-512's compress.
          std::uint64_t x = reverse_bits(nonzero_[id]) | std::uint64_t(blk[0] != 0);
          if (!x) continue;
          if (r.tokens.size() < nt + 17) r.tokens.resize(2 * (nt + 17));
          if (simd) {
            const int count = simd == 2
                                  ? block_tokens_vbmi2(blk, x, i << 24, r.tokens.data() + nt)
                                  : block_tokens_avx512(blk, x, i << 24, r.tokens.data() + nt);
            r.block_ids[nb] = id;
            r.block_tokens[nb] = std::uint8_t(count);
            ++nb;
            nt += std::size_t(count);
            continue;
          }
          Token* const first = r.tokens.data() + nt;
          Token* tp = first;
          const std::uint32_t block_bits = i << 24;
          std::uint64_t cv = 0;
          std::uint32_t pw = 0;
          int n = 0;
          while (x) {
            const int k = __builtin_ctzll(x);
            x &= x - 1;
            cv = cv >> 16 | std::uint64_t(std::uint16_t(blk[k])) << 48;
            pw = pw >> 6 | kNatural.shifted[k + 1];
            if (++n == 4) {
              std::memcpy(tp->coef, &cv, 8);
              tp->word = pw | block_bits;
              ++tp;
              n = 0;
            }
          }
          if (n) {
            for (; n < 4; ++n) {
              cv = cv >> 16 | (cv & 0xFFFF000000000000u);
              pw = pw >> 6 | (pw & 0xFC0000u);
            }
            std::memcpy(tp->coef, &cv, 8);
            tp->word = pw | block_bits;
            ++tp;
          }
          r.block_ids[nb] = id;
          r.block_tokens[nb] = std::uint8_t(tp - first);
          ++nb;
          nt += std::size_t(tp - first);
          continue;
        }
        // Elsewhere the non-zero coefficients in zigzag order with their natural positions,
        // found four at a time (most words of a block are zero).
        int m = 0;
        for (int w = 0; w < 16; ++w) {
          std::uint64_t x;
          std::memcpy(&x, blk + 4 * w, 8);
          while (x) {
            const int lane = __builtin_ctzll(x) >> 4;
            x &= ~(std::uint64_t(0xFFFF) << (16 * lane));
            ++m;
            val[m] = blk[4 * w + lane];
            pos[m] = std::uint8_t(zz[4 * w + lane]);
          }
        }
        if (!m) continue;
        if (r.tokens.size() < nt + 17) r.tokens.resize(2 * (nt + 17));
        const int count = pack_block(0, m, val, pos, i, r.tokens.data() + nt);
        if (!count) continue;
        r.block_ids[nb] = id;
        r.block_tokens[nb] = std::uint8_t(count);
        ++nb;
        nt += std::size_t(count);
      }
    }
    r.block_ids.resize(nb);
    r.block_tokens.resize(nb);
    r.tokens.resize(nt);
  };
  if (parallel && n > 1) {
    parallel(n, piece);
  } else {
    for (std::size_t k = 0; k < n; ++k) piece(k);
  }
}

}  // namespace hetcodec::jpeg
