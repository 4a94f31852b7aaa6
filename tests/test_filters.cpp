// Filters (hetcodec/filters.h) on every device: the same bytes as the CPU reference, and within
// one 8-bit level of AForge.NET's formulas evaluated here in double precision (DESIGN.md §4).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "hetcodec/hetcodec.h"
#include "backends/backend_util.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace hetcodec {
namespace {

using test::borrowed;

Image random_image(int width, int height, PixelFormat format, unsigned seed, bool smooth_field) {
  Image im;
  im.width = width, im.height = height, im.format = format, im.bit_depth = 8;
  im.pixels.resize(im.bytes());
  std::mt19937 rng(seed);
  const int ch = im.channels();
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < ch; ++c) {
        // Gradients with noise (edges and flat parts) or noise alone.
        const int base = smooth_field ? (x * 7 + y * 3 + c * 50) % 256 : 0;
        const int noise = smooth_field ? int(rng() % 21) - 10 : int(rng() % 256);
        im.pixels[(std::size_t(y) * width + x) * ch + c] =
            std::uint8_t(std::clamp(base + noise, 0, 255));
      }
  return im;
}

// AForge's AdaptiveSmoothing.ProcessFilter (ApplyInPlace: the frame of 2 pixels kept), in double
// precision as its C# computes, on the first `colours` samples of each pixel.
std::vector<std::uint8_t> aforge_smooth(const Image& im, double factor, int colours) {
  std::vector<std::uint8_t> out = im.pixels;
  const int w = im.width, h = im.height, ch = im.channels();
  const double f = -8 * factor * factor;
  auto I = [&](int x, int y, int c) -> double {
    return im.pixels[(std::size_t(y) * w + x) * ch + c];
  };
  for (int y = 2; y < h - 2; ++y)
    for (int x = 2; x < w - 2; ++x)
      for (int c = 0; c < colours; ++c) {
        double total = 0, weights = 0;
        auto term = [&](double gx, double gy, double v) {
          const double weight = std::exp((gx * gx + gy * gy) / f);
          total += weight * v;
          weights += weight;
        };
        auto S = [&](int dx, int dy) { return I(x + dx, y + dy, c); };
        term(S(0, -1) - S(-2, -1), S(-1, 0) - S(-1, -2), S(-1, -1));
        term(S(1, -1) - S(-1, -1), S(0, 0) - S(0, -2), S(0, -1));
        term(S(2, -1) - S(0, -1), S(1, 0) - S(1, -2), S(1, -1));
        term(S(0, 0) - S(-2, 0), S(-1, 1) - S(-1, -1), S(-1, 0));
        term(S(1, 0) - S(-1, 0), S(0, 1) - S(0, -1), S(0, 0));
        term(S(2, 0) - S(0, 0), S(1, 1) - S(1, -1), S(1, 0));
        term(S(0, 1) - S(-2, 1), S(-1, 2) - S(-1, 0), S(-1, 1));
        term(S(1, 1) - S(-1, 1), S(0, 2) - S(0, 0), S(0, 1));
        term(S(2, 1) - S(0, 1), S(1, 2) - S(1, 0), S(1, 1));
        out[(std::size_t(y) * w + x) * ch + c] =
            weights == 0.0 ? std::uint8_t(S(0, 0)) : std::uint8_t(std::min(total / weights, 255.0));
      }
  return out;
}

// AForge's PerlinNoise.Function2D in double precision (C#'s int arithmetic wraps).
double aforge_noise(int x, int y) {
  std::uint32_t n = std::uint32_t(x) + std::uint32_t(y) * 57u;
  n = (n << 13) ^ n;
  const std::uint32_t t = (n * (n * n * 15731u + 789221u) + 1376312589u) & 0x7fffffffu;
  return 1.0 - double(t) / 1073741824.0;
}
double aforge_cosine(double a, double b, double t) {
  const double f = (1 - std::cos(t * M_PI)) * 0.5;
  return a * (1 - f) + b * f;
}
double aforge_perlin(const PerlinOptions& o, double x, double y) {
  double frequency = o.frequency, amplitude = o.amplitude, sum = 0;
  for (int i = 0; i < o.octaves; ++i) {
    const double xs = x * frequency, ys = y * frequency;
    const int xi = int(xs), yi = int(ys);
    const double xf = xs - xi, yf = ys - yi;
    const double v1 = aforge_cosine(aforge_noise(xi, yi), aforge_noise(xi + 1, yi), xf);
    const double v2 = aforge_cosine(aforge_noise(xi, yi + 1), aforge_noise(xi + 1, yi + 1), xf);
    sum += aforge_cosine(v1, v2, yf) * amplitude;
    frequency *= 2;
    amplitude *= o.persistence;
  }
  return sum;
}
double level(double v) { return std::clamp(v * 0.5 + 0.5, 0.0, 1.0); }

int mandelbrot_count(double cr, double ci, int iterations) {
  double zr = 0, zi = 0;
  int n = 0;
  for (; n < iterations; ++n) {
    const double zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4) break;
    zi = 2 * zr * zi + ci;
    zr = zr2 - zi2 + cr;
  }
  return n;
}

// The largest difference between two sample vectors of one size.
int max_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  REQUIRE(a.size() == b.size());
  int most = 0;
  for (std::size_t i = 0; i < a.size(); ++i) most = std::max(most, std::abs(int(a[i]) - int(b[i])));
  return most;
}

struct Case {
  int width, height;
  PixelFormat format;
  bool smooth_field;
};
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {1, 1, PixelFormat::Gray, false},   {4, 4, PixelFormat::RGB, false},
      {5, 5, PixelFormat::Gray, false},   {17, 33, PixelFormat::RGB, true},
      {61, 47, PixelFormat::RGBA, false}, {64, 48, PixelFormat::GrayAlpha, true},
      {203, 131, PixelFormat::RGB, true}, {130, 70, PixelFormat::Gray, false}};
  return c;
}

}  // namespace

TEST_CASE(
    "filters: adaptive smoothing equals AForge's formulas within one level, frame and alpha kept") {
  Filters cpu("cpu");
  for (const Case& c : cases())
    for (double factor : {0.5, 3.0, 10.0}) {
      const Image in = random_image(c.width, c.height, c.format, unsigned(c.width * 7 + c.height),
                                    c.smooth_field);
      INFO(c.width << "x" << c.height << " with " << in.channels() << " channels, factor "
                   << factor);
      const Image out = cpu.smooth(in, SmoothOptions{factor});
      const int colours = (c.format == PixelFormat::RGBA)        ? 3
                          : (c.format == PixelFormat::GrayAlpha) ? 1
                                                                 : in.channels();
      const std::vector<std::uint8_t> ref = aforge_smooth(in, factor, colours);
      CHECK(max_difference(out.pixels, ref) <= 1);
      // The frame, and alpha, exactly as they were.
      const int ch = in.channels();
      std::size_t kept_differ = 0, changed = 0;
      for (int y = 0; y < c.height; ++y)
        for (int x = 0; x < c.width; ++x)
          for (int k = 0; k < ch; ++k) {
            const std::size_t i = (std::size_t(y) * c.width + x) * ch + k;
            const bool frame = x < 2 || y < 2 || x >= c.width - 2 || y >= c.height - 2;
            if (frame || k >= colours)
              kept_differ += out.pixels[i] != in.pixels[i];
            else
              changed += out.pixels[i] != in.pixels[i];
          }
      CHECK(kept_differ == 0);
      // The filter does something where there is an inside to smooth.
      if (c.width > 8 && c.height > 8) CHECK(changed > 0);
    }
}

TEST_CASE("filters: Perlin noise equals AForge's PerlinNoise within one level") {
  Filters cpu("cpu");
  for (const PerlinOptions& o :
       {PerlinOptions{}, PerlinOptions{16, 0.65, 1.0 / 64, 1.0}, PerlinOptions{4, 0.65, 1.0, 1.0},
        PerlinOptions{3, 0.8, 0.1, 0.7}}) {
    INFO("octaves " << o.octaves << ", persistence " << o.persistence << ", frequency "
                    << o.frequency);
    const int w = 97, h = 61;
    const std::vector<std::uint8_t> got = cpu.download(cpu.perlin(w, h, o)).pixels;
    const std::vector<float> values = cpu.perlin_values(w, h, o);
    std::vector<std::uint8_t> ref(got.size());
    double worst = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double v = aforge_perlin(o, x, y);
        ref[std::size_t(y) * w + x] = std::uint8_t(level(v) * 255.0);
        worst = std::max(worst, std::fabs(v - double(values[std::size_t(y) * w + x])));
      }
    CHECK(max_difference(got, ref) <= 1);
    CHECK(worst < 1e-4);
    // Noise, not a constant.
    CHECK(*std::max_element(got.begin(), got.end()) > *std::min_element(got.begin(), got.end()));
  }
}

TEST_CASE("filters: the Perlin texture blends as AForge's Texturer") {
  Filters cpu("cpu");
  const Image in = random_image(83, 57, PixelFormat::RGBA, 5, true);
  TextureOptions t;
  t.noise = PerlinOptions{5, 0.5, 1.0 / 16, 1.0};
  t.preserve = 0.3, t.filter = 0.9;
  const Image out = cpu.texture(in, t);
  std::vector<std::uint8_t> ref = in.pixels;
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) {
      const double tl = level(aforge_perlin(t.noise, x, y));
      for (int c = 0; c < 3; ++c) {
        std::uint8_t& s = ref[(std::size_t(y) * in.width + x) * 4 + c];
        s = std::uint8_t(std::min(255.0, t.preserve * s + t.filter * s * tl));
      }
    }
  CHECK(max_difference(out.pixels, ref) <= 1);
  CHECK(out.pixels != in.pixels);
}

TEST_CASE("filters: Mandelbrot counts agree with a double-precision evaluation") {
  Filters cpu("cpu");
  for (bool fire : {false, true}) {
    MandelbrotOptions o;
    o.iterations = 200;
    o.fire = fire;
    const int w = 160, h = 120;
    const Image im = cpu.download(cpu.mandelbrot(w, h, o));
    REQUIRE(im.format == (fire ? PixelFormat::RGB : PixelFormat::Gray));
    const double step = o.span / std::max(w, h);
    std::size_t off = 0, far = 0, inside = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int n = mandelbrot_count(o.center_x + (x + 0.5 - w / 2.0) * step,
                                       o.center_y - (y + 0.5 - h / 2.0) * step, o.iterations);
        const int v = n >= o.iterations ? 0 : n * 255 / o.iterations;
        inside += n >= o.iterations;
        const std::size_t at = std::size_t(y) * w + x;
        // The gray level, or the level back from the fire ramp (3v as red, then green, then blue).
        int got = im.pixels[at];
        if (fire) {
          const std::uint8_t* rgb = &im.pixels[at * 3];
          got =
              rgb[0] < 255 ? rgb[0] / 3 : (rgb[1] < 255 ? (rgb[1] + 255) / 3 : (rgb[2] + 510) / 3);
        }
        off += got != v;
        far += std::abs(got - v) > 1;
      }
    // Float32 and double part ways only where the orbit is chaotic, on the set's boundary.
    CHECK(inside > std::size_t(w * h / 10));
    CHECK(far * 100 <= std::size_t(w * h));
    MESSAGE("mandelbrot " << (fire ? "fire" : "gray") << ": " << off << " of " << w * h
                          << " pixels differ from double precision");
  }
}

TEST_CASE("filters on every device give the CPU reference's bytes") {
  Filters cpu("cpu");
  test::for_each_device([&](Device& device) {
    Filters f(borrowed(device));
    // (Under Oclgrind, which runs each work-item in turn, small images only.)
    const bool emulator = device.info().is_emulator;
    const int pw = emulator ? 37 : 301, ph = emulator ? 19 : 167;
    for (const Case& c : cases()) {
      if (emulator && c.width * c.height > 64 * 48) continue;
      const Image in = random_image(c.width, c.height, c.format, unsigned(c.width + c.height * 3),
                                    c.smooth_field);
      INFO(device.info().spec << ": " << c.width << "x" << c.height << ", " << in.channels()
                              << " channels");
      for (double factor : {0.5, 3.0, 40.0})
        CHECK(f.smooth(in, SmoothOptions{factor}).pixels ==
              cpu.smooth(in, SmoothOptions{factor}).pixels);
      TextureOptions t;
      t.noise.octaves = 6;
      CHECK(f.texture(in, t).pixels == cpu.texture(in, t).pixels);
      // Device-resident in and out, the input at an offset in a larger buffer.
      DeviceImage d;
      d.width = in.width, d.height = in.height, d.format = in.format;
      d.offset = 13;
      d.buffer = std::shared_ptr<DeviceBuffer>(device.alloc(in.bytes() + 13));
      // (Written whole, a prefix of other bytes first: Oclgrind takes the bytes of a write at an
      // offset for uninitialised.)
      std::vector<std::uint8_t> whole(13, 0xa5);
      whole.insert(whole.end(), in.pixels.begin(), in.pixels.end());
      auto q = device.create_queue();
      q->write(*d.buffer, 0, whole.data(), whole.size());
      q->finish();
      CHECK(f.download(f.smooth(d)).pixels == cpu.smooth(in).pixels);
    }
    for (const PerlinOptions& o : {PerlinOptions{}, PerlinOptions{16, 0.65, 1.0 / 64, 1.0},
                                   PerlinOptions{4, 0.65, 1.0, 1.0}}) {
      INFO(device.info().spec << ": Perlin noise, " << o.octaves << " octaves");
      CHECK(f.download(f.perlin(pw, ph, o)).pixels == cpu.download(cpu.perlin(pw, ph, o)).pixels);
      const std::vector<float> a = f.perlin_values(pw, ph, o), b = cpu.perlin_values(pw, ph, o);
      CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
    for (bool fire : {false, true}) {
      MandelbrotOptions o;
      o.fire = fire;
      o.iterations = emulator ? 40 : 300;
      INFO(device.info().spec << ": Mandelbrot" << (fire ? ", fire" : ""));
      CHECK(f.download(f.mandelbrot(pw, ph, o)).pixels ==
            cpu.download(cpu.mandelbrot(pw, ph, o)).pixels);
      o.center_x = -0.743643887, o.center_y = 0.131825904, o.span = 0.0001;
      CHECK(f.download(f.mandelbrot(96, 64, o)).pixels ==
            cpu.download(cpu.mandelbrot(96, 64, o)).pixels);
    }
  });
}

TEST_CASE("filters refuse bad arguments with an error naming them") {
  Filters cpu("cpu");
  const Image in = random_image(8, 8, PixelFormat::RGB, 1, false);
  auto refuses = [](auto&& call, const char* word) {
    try {
      call();
      FAIL("accepted: " << word);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidArgument);
      CHECK(std::string(e.what()).find(word) != std::string::npos);
    }
  };
  for (double factor : {0.0, -1.0, std::nan(""), 1e7})
    refuses([&] { cpu.smooth(in, SmoothOptions{factor}); }, "factor");
  refuses([&] { cpu.perlin(0, 10); }, "size");
  refuses([&] { cpu.mandelbrot(10, 40000); }, "size");
  refuses([&] { cpu.perlin(10, 10, PerlinOptions{0, 0.5, 0.1, 1}); }, "octaves");
  refuses([&] { cpu.perlin(10, 10, PerlinOptions{33, 0.5, 0.1, 1}); }, "octaves");
  refuses([&] { cpu.perlin(10, 10, PerlinOptions{4, 0.5, 0.0, 1}); }, "frequency");
  refuses([&] { cpu.perlin(10, 10, PerlinOptions{30, 0.5, 1.0, 1}); }, "frequency");
  refuses([&] { cpu.perlin(10, 10, PerlinOptions{32, 0.01, 0.001, 1}); }, "amplitude");
  MandelbrotOptions m;
  m.iterations = 0;
  refuses([&] { cpu.mandelbrot(10, 10, m); }, "iterations");
  m.iterations = 10, m.span = 0;
  refuses([&] { cpu.mandelbrot(10, 10, m); }, "span");
  Image sixteen = in;
  sixteen.bit_depth = 16;
  sixteen.pixels.resize(sixteen.bytes());
  refuses([&] { cpu.smooth(sixteen); }, "16-bit");
  Image cmyk = in;
  cmyk.format = PixelFormat::CMYK;
  cmyk.pixels.resize(cmyk.bytes());
  refuses([&] { cpu.smooth(cmyk); }, "CMYK");
  Image shortened = in;
  shortened.pixels.pop_back();
  refuses([&] { cpu.smooth(shortened); }, "bytes of samples");
  DeviceImage empty;
  empty.width = 4, empty.height = 4;
  refuses([&] { cpu.smooth(empty); }, "without a buffer");
}

}  // namespace hetcodec

namespace hetcodec {

// transcode --filter's chain (tools/cmd_transcode.cpp): JPEG decoded into device memory,
// filtered there, encoded as PNG there. What comes back to the host is the PNG's data, not
// the pixels (backends/backend_util.h counts every device-to-host copy).
TEST_CASE("filters: decode, filter and encode without the pixels coming back to the host") {
  Image src = random_image(640, 480, PixelFormat::RGB, 9, true);
  for (std::size_t i = 0; i < src.pixels.size(); ++i) src.pixels[i] = std::uint8_t(i / 3 % 640 / 3);
  const std::vector<std::uint8_t> jpeg = JpegEncoder("cpu").encode(src);
  test::for_each_device([&](Device& device) {
    // (The CPU reference's memory is the host's; emulators deflate on the host by design.)
    if (device.info().kind == DeviceKind::Cpu || device.info().is_emulator) return;
    auto shared = borrowed(device);
    JpegDecoder decoder(shared);
    Filters filters(shared);
    PngEncoder encoder(shared);
    const DeviceImage decoded = decoder.decode_to_device(jpeg.data(), jpeg.size());
    const std::uint64_t before = device_to_host_bytes();
    const DeviceImage smoothed = filters.smooth(decoded, SmoothOptions{3.0});
    const std::vector<std::uint8_t> png = encoder.encode(smoothed);
    const std::uint64_t back = device_to_host_bytes() - before;
    INFO(device.info().spec << ": " << back << " bytes back for a PNG of " << png.size()
                            << " bytes of an image of " << smoothed.bytes());
    CHECK(back <= png.size() + 65536);
    CHECK(back * 4 < smoothed.bytes());
    // And the file holds the filtered pixels.
    const Image host = filters.download(smoothed);
    CHECK(PngDecoder("cpu").decode(png.data(), png.size()).pixels == host.pixels);
  });
}

}  // namespace hetcodec

#ifdef HETCODEC_TEST_CLI
namespace hetcodec {

// `filter`, `generate` and `transcode --filter`: the files hold what the library gives, on every
// device the command is pointed at; bad arguments are refused, named.
TEST_CASE("cli filters: filter, generate and transcode --filter write the library's images") {
  test::Scratch s("filters");
  const std::string jpeg = std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/testorig.jpg";
  const std::vector<std::uint8_t> jpeg_bytes = test::bytes_of(jpeg);
  Filters cpu("cpu");
  const Image decoded = JpegDecoder("cpu").decode(jpeg_bytes.data(), jpeg_bytes.size());
  auto png_pixels = [&](const std::string& name) {
    const std::vector<std::uint8_t> b = test::bytes_of(s.dir / name);
    return PngDecoder("cpu").decode(b.data(), b.size()).pixels;
  };
  for (const DeviceInfo& d : test::cli_devices()) {
    if (d.is_emulator) continue;
    const std::string dev = "-q -d " + d.spec + " ";
    INFO(d.spec);
    test::Run r = test::cli(s.dir, dev + "filter smooth --factor 2.5 '" + jpeg + "' s.png");
    REQUIRE_MESSAGE(r.status == 0, r.log);
    CHECK(png_pixels("s.png") == cpu.smooth(decoded, SmoothOptions{2.5}).pixels);
    r = test::cli(s.dir, dev + "transcode '" + jpeg + "' t.png --filter smooth:2.5");
    REQUIRE_MESSAGE(r.status == 0, r.log);
    CHECK(png_pixels("t.png") == png_pixels("s.png"));
    r = test::cli(s.dir, dev + "filter texture --octaves 5 '" + jpeg + "' x.pam");
    REQUIRE_MESSAGE(r.status == 0, r.log);
    TextureOptions t;
    t.noise.octaves = 5;
    const std::vector<std::uint8_t> pam = test::bytes_of(s.dir / "x.pam");
    const std::vector<std::uint8_t> expect = cpu.texture(decoded, t).pixels;
    REQUIRE(pam.size() >= expect.size());
    CHECK(std::vector<std::uint8_t>(pam.end() - std::ptrdiff_t(expect.size()), pam.end()) ==
          expect);
    r = test::cli(s.dir, dev + "generate perlin --size 120x80 --octaves 16 p.png");
    REQUIRE_MESSAGE(r.status == 0, r.log);
    PerlinOptions po;
    po.octaves = 16;
    CHECK(png_pixels("p.png") == cpu.download(cpu.perlin(120, 80, po)).pixels);
    r = test::cli(s.dir, dev +
                             "generate mandelbrot --size 96x64 --fire --iterations 90 "
                             "--center -0.5,0.25 --span 1.5 m.png");
    REQUIRE_MESSAGE(r.status == 0, r.log);
    MandelbrotOptions mo;
    mo.fire = true, mo.iterations = 90, mo.center_x = -0.5, mo.center_y = 0.25, mo.span = 1.5;
    CHECK(png_pixels("m.png") == cpu.download(cpu.mandelbrot(96, 64, mo)).pixels);
  }
  // Refusals, each naming what is wrong, with no file written.
  const std::pair<std::string, std::string> bad[] = {
      {"filter smooth --factor 0 '" + jpeg + "' a.png", "factor"},
      {"filter smooth '" + jpeg + "' a.gif", ".gif"},
      {"generate perlin --size 0x10 a.png", "--size"},
      {"generate perlin --size 10 a.png", "--size"},
      {"generate mandelbrot --size 10x10 --span -1 a.png", "span"},
      {"generate perlin --size 10x10 --frequency 0 a.png", "frequency"},
      {"transcode '" + jpeg + "' a.png --filter blur", "unknown filter"},
      {"transcode '" + jpeg + "' a.png --filter smooth:x", "not a number"},
      {"filter smooth '" + std::string(HETCODEC_TEST_SOURCE_DIR) + "/data/jpeg/monkey12.jpg' a.png",
       "16-bit"}};
  for (const auto& [args, word] : bad) {
    const test::Run r = test::cli(s.dir, "-d cpu " + args);
    INFO(args << "\n" << r.log);
    CHECK(r.status != 0);
    CHECK(r.says(word));
    CHECK(!std::filesystem::exists(s.dir / "a.png"));
  }
}

}  // namespace hetcodec
#endif
