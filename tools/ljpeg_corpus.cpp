// The lossless JPEG corpus of `hetcodec bench ljpeg` (ljpeg_corpus.h): photos decoded by the
// project's JPEG decoder, upscaled with Catmull-Rom cubic interpolation, spread to the target
// precision with noise from a fixed-seed generator (the same samples on every machine), and
// encoded by tools/ljpeg_encode.h.
#include "tools/ljpeg_corpus.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "hetcodec/hetcodec.h"
#include "tools/cli.h"
#include "tools/ljpeg_encode.h"

namespace hetcodec::tools {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw Error(ErrorCode::InvalidArgument, "bench ljpeg: cannot read " + p.string());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// One channel of a photo as doubles 0..255: the luminance (BT.601 weights) or channel `c`.
struct Plane {
  int w = 0, h = 0;
  std::vector<double> v;
};

Plane photo_plane(const Image& img, int channel) {
  const int n = channels(img.format);
  Plane p{img.width, img.height, {}};
  p.v.resize(std::size_t(img.width) * std::size_t(img.height));
  for (std::size_t i = 0; i < p.v.size(); ++i) {
    const std::uint8_t* px = img.pixels.data() + i * std::size_t(n);
    p.v[i] = channel >= 0 || n < 3 ? px[channel >= 0 ? channel : 0]
                                   : 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
  }
  return p;
}

// Catmull-Rom weights for a sample at fraction t past the second of four.
void cubic_weights(double t, double w[4]) {
  const double t2 = t * t, t3 = t2 * t;
  w[0] = 0.5 * (-t3 + 2 * t2 - t);
  w[1] = 0.5 * (3 * t3 - 5 * t2 + 2);
  w[2] = 0.5 * (-3 * t3 + 4 * t2 + t);
  w[3] = 0.5 * (t3 - t2);
}

// The centred square of side min(w, h) of `p`, resampled to n x n (separable, edges clamped).
Plane upscale_square(const Plane& p, int n) {
  const int side = std::min(p.w, p.h), x0 = (p.w - side) / 2, y0 = (p.h - side) / 2;
  auto taps = [&](int i, int lo, int hi, int idx[4], double w[4]) {
    const double src = (i + 0.5) * side / n - 0.5;
    const int base = int(std::floor(src));
    cubic_weights(src - base, w);
    for (int k = 0; k < 4; ++k) idx[k] = lo + std::clamp(base - 1 + k, 0, hi - 1);
  };
  std::vector<double> rows(std::size_t(side) * std::size_t(n));
  for (int x = 0; x < n; ++x) {
    int idx[4];
    double w[4];
    taps(x, x0, side, idx, w);
    for (int y = 0; y < side; ++y) {
      const double* r = p.v.data() + std::size_t(y0 + y) * std::size_t(p.w);
      rows[std::size_t(y) * std::size_t(n) + std::size_t(x)] =
          w[0] * r[idx[0]] + w[1] * r[idx[1]] + w[2] * r[idx[2]] + w[3] * r[idx[3]];
    }
  }
  Plane out{n, n, std::vector<double>(std::size_t(n) * std::size_t(n))};
  for (int y = 0; y < n; ++y) {
    int idx[4];
    double w[4];
    taps(y, 0, side, idx, w);
    for (int x = 0; x < n; ++x) {
      double s = 0;
      for (int k = 0; k < 4; ++k)
        s += w[k] * rows[std::size_t(idx[k]) * std::size_t(n) + std::size_t(x)];
      out.v[std::size_t(y) * std::size_t(n) + std::size_t(x)] = s;
    }
  }
  return out;
}

// A fixed-seed generator (splitmix64) of roughly Gaussian noise of unit deviation (the sum of
// four uniforms): the same on every platform, unlike std::normal_distribution.
class Noise {
 public:
  explicit Noise(std::uint64_t seed) : s_(seed) {}
  double operator()() {
    double sum = 0;
    for (int k = 0; k < 4; ++k) sum += double(next() >> 11) / double(1ull << 53);
    return (sum - 2.0) * 1.7320508;  // uniform sum of 4: variance 1/3
  }

 private:
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t s_;
};

// A microscope-like 16-bit plane: a dark background offset, the photo's tones over most of the
// range, and noise of a few levels (deviation 6) that makes the low bits vary.
std::vector<std::uint16_t> spread16(const Plane& p, std::uint64_t seed) {
  Noise noise(seed);
  std::vector<std::uint16_t> out(p.v.size());
  for (std::size_t i = 0; i < p.v.size(); ++i)
    out[i] =
        std::uint16_t(std::clamp(std::lround(1800.0 + p.v[i] * 220.0 + 6.0 * noise()), 0L, 65535L));
  return out;
}

Image decode_photo(JpegDecoder& decoder, const fs::path& path) {
  const std::vector<std::uint8_t> bytes = read_file(path);
  return decoder.decode(bytes);
}

void add_variants(std::vector<LjpegFile>& out, const std::string& stem, int n, int comps,
                  int precision, const std::vector<std::uint16_t>& samples,
                  const std::string& origin, bool with_restarts) {
  for (const int predictor : {1, 6})
    for (const int restart : with_restarts ? std::vector<int>{0, 1} : std::vector<int>{0}) {
      LjpegFile f;
      f.name = stem + "-p" + std::to_string(predictor) + (restart ? "-rst" : "");
      f.width = f.height = n;
      f.components = comps;
      f.precision = precision;
      f.predictor = predictor;
      f.restart_rows = restart;
      LjpegEncodeOptions o;
      o.predictor = predictor;
      o.precision = precision;
      o.restart_rows = restart;
      f.bytes = ljpeg_encode(samples.data(), n, n, comps, o);
      f.source = samples;
      f.origin = origin;
      out.push_back(std::move(f));
    }
}

// The marker of the first frame header (0xC0..0xCF but DHT, JPG, DAC), or 0.
int sof_marker(const std::vector<std::uint8_t>& b) {
  if (b.size() < 4 || b[0] != 0xFF || b[1] != 0xD8) return 0;
  std::size_t i = 2;
  while (i + 4 <= b.size()) {
    if (b[i] != 0xFF) return 0;
    const int m = b[i + 1];
    if (m == 0xFF) {
      ++i;
      continue;
    }
    if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) return m;
    if (m == 0xDA || m == 0xD9) return 0;
    i += 2 + (std::size_t(b[i + 2]) << 8 | b[i + 3]);
  }
  return 0;
}

}  // namespace

std::string demo_photos_dir(const std::string& given) {
  return demo_images_dir(given, "bench ljpeg", "--photos").string();
}

std::vector<LjpegFile> builtin_ljpeg_corpus(const std::string& photos, int large, int small) {
  const fs::path dir = photos;
  JpegDecoder decoder("cpu");
  std::vector<LjpegFile> out;
  const Image camera = decode_photo(decoder, dir / "camera-gray.jpg");
  const Image coffee = decode_photo(decoder, dir / "coffee-422.jpg");
  const Image astronaut = decode_photo(decoder, dir / "astronaut-420.jpg");
  const std::string s_large = std::to_string(large), s_small = std::to_string(small);
  add_variants(out, "gray16-" + s_large + "-camera", large, 1, 16,
               spread16(upscale_square(photo_plane(camera, -1), large), 1),
               "camera-gray.jpg luminance, cubic upscale, 16-bit with noise", true);
  add_variants(out, "gray16-" + s_small + "-coffee", small, 1, 16,
               spread16(upscale_square(photo_plane(coffee, -1), small), 2),
               "coffee-422.jpg luminance, cubic upscale, 16-bit with noise", true);
  // RGB: each channel upscaled, with noise of deviation 1 on the 8-bit levels.
  std::vector<std::uint16_t> rgb(std::size_t(small) * std::size_t(small) * 3);
  Noise noise(3);
  for (int c = 0; c < 3; ++c) {
    const Plane p = upscale_square(photo_plane(astronaut, c), small);
    for (std::size_t i = 0; i < p.v.size(); ++i)
      rgb[i * 3 + std::size_t(c)] =
          std::uint16_t(std::clamp(std::lround(p.v[i] + noise()), 0L, 255L));
  }
  add_variants(out, "rgb8-" + s_small + "-astronaut", small, 3, 8, rgb,
               "astronaut-420.jpg RGB, cubic upscale, 8-bit with noise", false);
  return out;
}

std::vector<LjpegFile> ljpeg_files_in(const std::string& dir, std::vector<std::string>& skipped) {
  if (!fs::is_directory(dir))
    throw Error(ErrorCode::InvalidArgument, "bench ljpeg: " + dir + " is not a directory");
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string ext = e.path().extension().string();
    for (auto& ch : ext) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg")) paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<LjpegFile> out;
  for (const auto& p : paths) {
    LjpegFile f;
    f.bytes = read_file(p);
    const int sof = sof_marker(f.bytes);
    if (sof != 0xC3) {
      skipped.push_back(p.filename().string() + ": not a lossless JPEG (SOF3) file");
      continue;
    }
    f.name = p.stem().string();
    f.origin = p.string();
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace hetcodec::tools
