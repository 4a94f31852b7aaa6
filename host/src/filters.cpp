// Filters (hetcodec/filters.h): the parameters of core/portable/filters.h worked out once on the
// host, in double precision and then rounded to float32 as every backend receives them.
#include "hetcodec/filters.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/backend.h"
#include "core/error.h"
#include "core/portable/filters.h"
#include "host/src/device_image.h"
#include "host/src/filters_access.h"

namespace hetcodec {

struct Filters::Impl {
  std::shared_ptr<Device> device;
  std::unique_ptr<Queue> queue;
  detail::FilterObserver observer;  // (the debugging tools': detail::FiltersAccess)
  // One kernel, waited for unless `wait` is false (and shown to the observer).
  void run(int kind, const hc_filter_params& p, const DeviceBuffer* src, std::size_t src_offset,
           DeviceBuffer& dst, bool wait = true) {
    device->filters().run(*queue, kind, p, src, src_offset, dst, 0);
    if (wait || observer) queue->finish();
    if (observer) observer({kind, p, *queue, src, src_offset, dst});
  }
};

void detail::FiltersAccess::observe(Filters& filters, FilterObserver observer) {
  filters.impl_->observer = std::move(observer);
}

namespace {

constexpr int kMaxSide = 32768;

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, "filters: " + what);
}

void check_size(int width, int height) {
  if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide)
    bad("size " + std::to_string(width) + "x" + std::to_string(height) +
        " is not 1..32768 either way");
}

// Samples per pixel, and how many of them are colour (alpha is kept).
void check_format(PixelFormat format, int bit_depth, hc_filter_params& p) {
  if (bit_depth != 8) bad(std::to_string(bit_depth) + "-bit samples (the filters take 8-bit ones)");
  switch (format) {
    case PixelFormat::Gray:
      p.channels = 1, p.colours = 1;
      return;
    case PixelFormat::GrayAlpha:
      p.channels = 2, p.colours = 1;
      return;
    case PixelFormat::RGB:
      p.channels = 3, p.colours = 3;
      return;
    case PixelFormat::RGBA:
      p.channels = 4, p.colours = 3;
      return;
    case PixelFormat::CMYK:
      break;
  }
  bad("CMYK images (the filters take gray, gray + alpha, RGB and RGBA)");
}

float finite_float(double v, const char* what) {
  if (!std::isfinite(v) || std::fabs(v) > 1e30)
    bad(std::string(what) + " " + std::to_string(v) + " is not a finite number");
  return float(v);
}

void set_noise(hc_filter_params& p, const PerlinOptions& o) {
  if (o.octaves < 1 || o.octaves > 32)
    bad("octaves " + std::to_string(o.octaves) + " is not 1..32");
  if (!(o.frequency > 0)) bad("frequency " + std::to_string(o.frequency) + " is not above 0");
  // No value may leave float32's normal range (OpenCL devices may flush denormals to zero): the
  // last octave's amplitude stays at least 1e-20 unless it is 0, the frequency at least 1e-20.
  if (o.frequency < 1e-20) bad("frequency " + std::to_string(o.frequency) + " is below 1e-20");
  const double last = std::fabs(o.amplitude) * std::pow(std::fabs(o.persistence), o.octaves - 1);
  if (last != 0 && last < 1e-20)
    bad("amplitude " + std::to_string(o.amplitude) + " and persistence " +
        std::to_string(o.persistence) + " make the last octave's amplitude smaller than 1e-20");
  p.octaves = hc_u32(o.octaves);
  p.k = finite_float(o.persistence, "persistence");
  p.frequency = finite_float(o.frequency, "frequency");
  p.amplitude = finite_float(o.amplitude, "amplitude");
  // The noise's lattice coordinates, pixel * frequency * 2^(octaves-1), must stay within an int.
  if (double(kMaxSide) * p.frequency * std::ldexp(1.0, o.octaves - 1) >= 2147483647.0)
    bad("frequency " + std::to_string(o.frequency) + " with " + std::to_string(o.octaves) +
        " octaves takes the noise past its lattice's 32-bit coordinates");
}

DeviceImage new_image(Device& device, int width, int height, PixelFormat format) {
  DeviceImage out;
  out.width = width, out.height = height, out.format = format, out.bit_depth = 8;
  out.buffer = std::shared_ptr<DeviceBuffer>(device.alloc(std::max<std::size_t>(out.bytes(), 1)));
  return out;
}

void check_device_image(const DeviceImage& image, hc_filter_params& p) {
  if (!image.buffer) bad("a device image without a buffer");
  check_size(image.width, image.height);
  check_format(image.format, image.bit_depth, p);
  if (image.offset > image.buffer->size() || image.bytes() > image.buffer->size() - image.offset)
    bad("a device image of " + std::to_string(image.bytes()) + " bytes at offset " +
        std::to_string(image.offset) + " of a buffer of " + std::to_string(image.buffer->size()));
  p.width = hc_u32(image.width), p.height = hc_u32(image.height);
}

void check_host_image(const Image& image) {
  if (image.pixels.size() != image.bytes())
    bad("an image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
        " with " + std::to_string(image.pixels.size()) + " bytes of samples, not " +
        std::to_string(image.bytes()));
}

}  // namespace

Filters::Filters(const std::string& device_spec) : Filters(open_device(device_spec)) {}

Filters::Filters(std::shared_ptr<Device> device) : impl_(std::make_unique<Impl>()) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "Filters: no device");
  impl_->device = std::move(device);
  impl_->queue = impl_->device->create_queue();
}

Filters::~Filters() = default;

Device& Filters::device() { return *impl_->device; }

DeviceImage Filters::smooth(const DeviceImage& image, const SmoothOptions& options) {
  if (!std::isfinite(options.factor) || !(options.factor > 0) || options.factor > 1e6)
    bad("smoothing factor " + std::to_string(options.factor) + " is not in (0, 1e6]");
  hc_filter_params p{};
  check_device_image(image, p);
  p.tiles_x = (p.width + HC_SMOOTH_TILE - 1) / HC_SMOOTH_TILE;
  // AForge divides by f = -8 factor^2; here the product with -1 / (8 factor^2), rounded once.
  // (Kept within float's range: a tiny factor gives weights of 0 but the centre's.)
  p.k = float(std::max(-1e30, -1.0 / (8.0 * options.factor * options.factor)));
  DeviceImage out = new_image(*impl_->device, image.width, image.height, image.format);
  out.metadata = image.metadata;
  impl_->run(HC_FILTER_SMOOTH, p, image.buffer.get(), image.offset, *out.buffer);
  return out;
}

DeviceImage Filters::texture(const DeviceImage& image, const TextureOptions& options) {
  hc_filter_params p{};
  check_device_image(image, p);
  set_noise(p, options.noise);
  p.preserve = finite_float(options.preserve, "preserve level");
  p.filter = finite_float(options.filter, "filter level");
  DeviceImage out = new_image(*impl_->device, image.width, image.height, image.format);
  out.metadata = image.metadata;
  impl_->run(HC_FILTER_TEXTURE, p, image.buffer.get(), image.offset, *out.buffer);
  return out;
}

Image Filters::download(const DeviceImage& image) {
  hc_filter_params p{};
  check_device_image(image, p);
  return detail::download_on(*impl_->queue, image);
}

namespace {

DeviceImage upload(Device& device, Queue& queue, const Image& image) {
  check_host_image(image);
  hc_filter_params p{};
  check_size(image.width, image.height);
  check_format(image.format, image.bit_depth, p);
  DeviceImage d = new_image(device, image.width, image.height, image.format);
  d.metadata = image.metadata;
  d.warnings = image.warnings;
  queue.write(*d.buffer, 0, image.pixels.data(), image.pixels.size());
  return d;
}

}  // namespace

Image Filters::smooth(const Image& image, const SmoothOptions& options) {
  return download(smooth(upload(*impl_->device, *impl_->queue, image), options));
}

Image Filters::texture(const Image& image, const TextureOptions& options) {
  return download(texture(upload(*impl_->device, *impl_->queue, image), options));
}

DeviceImage Filters::perlin(int width, int height, const PerlinOptions& options) {
  check_size(width, height);
  hc_filter_params p{};
  p.width = hc_u32(width), p.height = hc_u32(height), p.channels = 1, p.colours = 1;
  set_noise(p, options);
  p.mode = HC_PERLIN_U8;
  DeviceImage out = new_image(*impl_->device, width, height, PixelFormat::Gray);
  impl_->run(HC_FILTER_PERLIN, p, nullptr, 0, *out.buffer);
  return out;
}

std::vector<float> Filters::perlin_values(int width, int height, const PerlinOptions& options) {
  check_size(width, height);
  hc_filter_params p{};
  p.width = hc_u32(width), p.height = hc_u32(height), p.channels = 1, p.colours = 1;
  set_noise(p, options);
  p.mode = HC_PERLIN_F32;
  const std::size_t n = std::size_t(width) * std::size_t(height);
  auto buffer = impl_->device->alloc(n * sizeof(float));
  impl_->run(HC_FILTER_PERLIN, p, nullptr, 0, *buffer, false);  // (the read waits)
  std::vector<float> values(n);
  impl_->queue->read(values.data(), *buffer, 0, n * sizeof(float));
  impl_->queue->finish();
  return values;
}

DeviceImage Filters::mandelbrot(int width, int height, const MandelbrotOptions& options) {
  check_size(width, height);
  if (options.iterations < 1 || options.iterations > 1000000)
    bad("iterations " + std::to_string(options.iterations) + " is not 1..1000000");
  if (!std::isfinite(options.span) || !(options.span > 0))
    bad("span " + std::to_string(options.span) + " is not above 0");
  hc_filter_params p{};
  p.width = hc_u32(width), p.height = hc_u32(height);
  p.channels = options.fire ? 3 : 1;
  p.colours = p.channels;
  p.iterations = hc_u32(options.iterations);
  p.mode = options.fire ? HC_MANDEL_FIRE : HC_MANDEL_GRAY;
  p.cx = finite_float(options.center_x, "centre x");
  p.cy = finite_float(options.center_y, "centre y");
  p.step = float(options.span / double(std::max(width, height)));
  // (Products of the step stay in float's normal range.)
  if (p.step < 1e-30f || p.step > 1e30f)
    bad("span " + std::to_string(options.span) +
        " gives a step between pixels outside 1e-30..1e30");
  DeviceImage out =
      new_image(*impl_->device, width, height, options.fire ? PixelFormat::RGB : PixelFormat::Gray);
  impl_->run(HC_FILTER_MANDELBROT, p, nullptr, 0, *out.buffer);
  return out;
}

}  // namespace hetcodec
