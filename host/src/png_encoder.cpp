// The PNG encode pipeline (DESIGN.md §3 "PNG encode"), compatible mode: the image goes to the
// device, PngKernels::filter_rows picks libpng's filter per row and filters it, the filtered
// rows come back, and core/png makes the Z_RLE zlib stream, the checksums and the chunks.
#include <algorithm>
#include <string>
#include <thread>

#include "core/png/writer.h"
#include "hetcodec/png.h"

namespace hetcodec {

RawImage to_raw(const Image& image) {
  if (image.format == PixelFormat::CMYK)
    throw Error(ErrorCode::InvalidArgument, "png: a CMYK image has no PNG form");
  RawImage raw;
  raw.width = image.width;
  raw.height = image.height;
  raw.channels = channels(image.format);
  raw.bit_depth = 8;
  raw.samples = image.pixels;
  return raw;
}

struct PngEncoder::Impl {
  std::shared_ptr<Device> device;
  PngEncodeOptions options;
  std::unique_ptr<Queue> queue;
  std::unique_ptr<DeviceBuffer> rows, filtered;
};

PngEncoder::PngEncoder(const std::string& spec, PngEncodeOptions options)
    : PngEncoder(open_device(spec), options) {}

PngEncoder::PngEncoder(std::shared_ptr<Device> device, PngEncodeOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (!device) throw Error(ErrorCode::InvalidArgument, "PngEncoder: no device");
  impl_->device = std::move(device);
  if (options.threads <= 0) options.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  impl_->options = options;
}

PngEncoder::~PngEncoder() = default;

Device& PngEncoder::device() { return *impl_->device; }

namespace {

png::Raster shape_of(int width, int height, int channels, int bit_depth) {
  png::Raster shape;  // the size and format; the samples stay where they are
  shape.width = width;
  shape.height = height;
  shape.channels = channels;
  shape.bit_depth = bit_depth;
  return shape;
}

}  // namespace

std::vector<std::uint8_t> PngEncoder::encode(const RawImage& image) {
  png::check_shape(image.width, image.height, image.channels, image.bit_depth,
                   image.samples.size());
  Impl& im = *impl_;
  if (!im.queue) im.queue = im.device->create_queue();
  if (!im.rows || im.rows->size() < image.samples.size())
    im.rows = im.device->alloc(image.samples.size());
  im.queue->write(*im.rows, 0, image.samples.data(), image.samples.size());
  return finish(image.width, image.height, image.channels, image.bit_depth);
}

std::vector<std::uint8_t> PngEncoder::encode(const DeviceImage& image) {
  if (!image.buffer) throw Error(ErrorCode::InvalidArgument, "png: a device image without a buffer");
  if (image.format == PixelFormat::CMYK)
    throw Error(ErrorCode::InvalidArgument, "png: a CMYK image has no PNG form");
  const int ch = channels(image.format);
  png::check_shape(image.width, image.height, ch, 8, image.bytes());
  Impl& im = *impl_;
  if (!im.queue) im.queue = im.device->create_queue();
  if (!im.rows || im.rows->size() < image.bytes()) im.rows = im.device->alloc(image.bytes());
  im.queue->copy(*im.rows, 0, *image.buffer, image.offset, image.bytes());
  return finish(image.width, image.height, ch, 8);
}

std::vector<std::uint8_t> PngEncoder::finish(int width, int height, int channels, int bit_depth) {
  Impl& im = *impl_;
  const png::Raster shape = shape_of(width, height, channels, bit_depth);
  const std::size_t rb = shape.row_bytes();
  if (rb > PngFilterInfo::kMaxPngRowBytes)
    throw Error(ErrorCode::LimitExceeded, "png: rows of " + std::to_string(rb) +
                                              " bytes (the encoder takes at most 2^28)");
  Device& dev = *im.device;
  const std::size_t out_bytes = (rb + 1) * std::size_t(shape.height);
  if (!im.filtered || im.filtered->size() < out_bytes) im.filtered = dev.alloc(out_bytes);
  PngFilterInfo info;
  info.height = std::uint32_t(shape.height);
  info.row_bytes = std::uint32_t(rb);
  info.bpp = std::uint32_t(shape.channels * shape.bit_depth / 8);
  info.mask = png::libpng_filter_mask_of(shape);
  dev.png().filter_rows(*im.queue, *im.rows, *im.filtered, info);
  std::vector<std::uint8_t> filtered(out_bytes);
  im.queue->read(filtered.data(), *im.filtered, 0, out_bytes);
  im.queue->finish();
  if (im.options.mode == PngMode::Compatible)
    return png::assemble_compatible(shape, filtered, im.options.threads);
  const int segments = im.options.segments > 0
                           ? im.options.segments
                           : std::max(1, int(dev.info().compute_units));
  return png::assemble_parallel(shape, filtered, segments, im.options.threads);
}

}  // namespace hetcodec
