// Filters on images in device memory (DESIGN.md §3 "Filters"): AForge.NET's adaptive smoothing,
// Perlin noise (as an image, and blended into one as AForge's Texturer does) and the Mandelbrot
// set, on the CPU reference, CUDA or OpenCL, with the same bytes on each.
//
//   std::shared_ptr<hetcodec::Device> device = hetcodec::open_device("cuda");
//   hetcodec::JpegDecoder decoder(device);
//   hetcodec::Filters filters(device);
//   hetcodec::DeviceImage smooth = filters.smooth(decoder.decode_to_device(bytes.data(), bytes.size()));
//   std::vector<std::uint8_t> png = hetcodec::PngEncoder(device).encode(smooth);
//
// Images are 8-bit gray, gray + alpha, RGB or RGBA; alpha is kept as it is.
#ifndef HETCODEC_FILTERS_H
#define HETCODEC_FILTERS_H

#include <memory>
#include <string>
#include <vector>

#include "core/image.h"
#include "hetcodec/device.h"
#include "hetcodec/image.h"

namespace hetcodec {

// AForge's AdaptiveSmoothing: each sample becomes the mean of its 3x3 neighbourhood weighted by
// exp(-(Gx^2 + Gy^2) / (2 factor^2)), Gx and Gy the neighbours' central differences halved;
// the two pixels along each edge are kept, as AForge's ApplyInPlace keeps them.
struct SmoothOptions {
  double factor = 3.0;  // > 0: larger smooths across stronger edges
};

// AForge's PerlinNoise: the sum over `octaves` of smoothed integer-lattice noise, the frequency
// doubled and the amplitude times `persistence` from one octave to the next, evaluated at each
// pixel's column and row. The defaults are AForge's CloudsTexture's.
struct PerlinOptions {
  int octaves = 8;              // 1..32
  double persistence = 0.5;     // amplitude ratio between octaves
  double frequency = 1.0 / 32;  // of the first octave, per pixel (> 0)
  double amplitude = 1.0;       // of the first octave
};

// AForge's Texturer with the noise as texture level t = clamp(v / 2 + 1/2, 0, 1): each colour
// sample s becomes min(255, preserve s + filter s t).
struct TextureOptions {
  PerlinOptions noise;
  double preserve = 0.5;  // AForge's PreserveLevel
  double filter = 0.5;    // AForge's FilterLevel
};

// The Mandelbrot set: the iterations of z <- z^2 + c from 0 before |z| > 2, for c at each
// pixel's centre of a view `span` wide along its longer side, centred on (center_x, center_y)
// (the imaginary axis upwards). Written as 8-bit gray (255 n / iterations, 0 inside the set) or,
// with `fire`, as RGB through a black-red-yellow-white ramp. The defaults view [-2, 2]^2.
struct MandelbrotOptions {
  double center_x = 0, center_y = 0;
  double span = 4.0;
  int iterations = 256;  // 1..1000000
  bool fire = false;
};

namespace detail {
struct FiltersAccess;  // (the debugging tools' view, hetcodec/debug.h)
}

class Filters {
 public:
  explicit Filters(const std::string& device_spec = "");
  explicit Filters(std::shared_ptr<Device> device);
  ~Filters();
  Filters(const Filters&) = delete;
  Filters& operator=(const Filters&) = delete;

  Device& device();

  // Filtered copies of a device image (in a buffer of their own, on this filter's device) or of
  // a host image (uploaded, filtered and brought back). Error(InvalidArgument) naming what is
  // wrong: a factor <= 0 or not finite, a 16-bit or CMYK image, samples of the wrong size.
  DeviceImage smooth(const DeviceImage& image, const SmoothOptions& options = {});
  Image smooth(const Image& image, const SmoothOptions& options = {});
  DeviceImage texture(const DeviceImage& image, const TextureOptions& options = {});
  Image texture(const Image& image, const TextureOptions& options = {});

  // Generated images in device memory: Perlin noise as 8-bit gray levels (t above, times 255),
  // the Mandelbrot view. Sizes 1..32768 either way.
  DeviceImage perlin(int width, int height, const PerlinOptions& options = {});
  DeviceImage mandelbrot(int width, int height, const MandelbrotOptions& options = {});
  // The noise values themselves, float32, row after row, on the host.
  std::vector<float> perlin_values(int width, int height, const PerlinOptions& options = {});

  // A device image's samples brought back to the host.
  Image download(const DeviceImage& image);

 private:
  friend struct detail::FiltersAccess;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetcodec

#endif  // HETCODEC_FILTERS_H
