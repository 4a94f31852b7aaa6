// JPEG encoding (DESIGN.md §3 "JPEG encode"): colour conversion, downsampling, the accurate
// integer FDCT, quantisation and zigzag on the device, then Huffman coding on the device (each
// block's bits, prefix sums, parallel packing, 0xFF stuffing, restart markers) or on host
// threads. The file equals libjpeg-turbo's (jpeg_set_defaults, jpeg_set_quality(q, TRUE),
// JDCT_ISLOW, the same sampling, restart interval and optimize_coding) byte for byte on every
// backend.
//
//   hetcodec::JpegEncoder encoder("auto");              // or "cpu", "cuda:0", "opencl:pocl"
//   std::vector<std::uint8_t> jpg = encoder.encode(image);   // gray, RGB, RGBA; 8-bit
#ifndef HETCODEC_JPEG_ENCODE_H
#define HETCODEC_JPEG_ENCODE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hetcodec/device.h"
#include "hetcodec/image.h"

namespace hetcodec {

// Chroma subsampling as cjpeg -sample names it: 4:4:4 (1x1), 4:2:2 (2x1), 4:2:0 (2x2), 4:4:0
// (1x2); Gray writes one component (the luma of a colour image, as cjpeg -grayscale).
enum class JpegSampling { S444, S422, S420, S440, Gray };

// The pixel layout of raw input (encode(pixels, ...)): samples per pixel and their order; the
// alpha of RGBA, BGRA and GrayAlpha is ignored, as libjpeg-turbo's JCS_EXT_RGBA does.
enum class JpegPixels { Gray, GrayAlpha, RGB, RGBA, BGR, BGRA };

// Raw pixels of one image of a batch: `size` bytes of `layout` at `data`, rows without padding
// (size = width * height * samples), kept alive by the caller until encode_batch returns.
struct JpegRawImage {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  int width = 0, height = 0;
  JpegPixels layout = JpegPixels::RGB;
};

struct JpegEncodeOptions {
  int quality = 75;  // 1..100 (jpeg_set_quality with force_baseline)
  JpegSampling sampling = JpegSampling::S420;
  int restart_interval = 0;  // MCUs between restart markers, 0..65535 (0: none)
  int restart_rows = 0;      // or MCU rows between them (cjpeg -restart N); wins when > 0
  bool optimize = false;     // optimal Huffman tables, from symbol counts (cjpeg -optimize)
  // Base quantisation tables in natural order (the first: luma; the second: chroma), scaled by
  // `quality` as cjpeg -qtables scales its file's; a table not given is T.81 Annex K's.
  std::vector<std::array<std::uint16_t, 64>> quant_tables;
  // Write the image's ICC profile (APP2 ICC_PROFILE) and EXIF (APP1) when it has them.
  bool keep_metadata = true;
  JpegEntropy entropy = JpegEntropy::Auto;
  int threads = 0;  // host threads (host entropy coding, uploads); 0: one per hardware thread
  // encode_batch: launches of images coded at once, each on its own host thread and device
  // queue (the host stages and transfers of one overlap the kernels of another). 1..16.
  int batch_streams = 4;
  // encode_batch: images per launch, each stage one launch for all of them, 0..4096 (0: the
  // batch shared evenly among the streams, up to 4 megapixels a launch where some images come
  // from the host; where all are on the device, at least 32 images and up to 16 megapixels). A launch also stops at 16 megapixels, and
  // holds images of one device buffer only. The host threads that copy host images into pinned
  // memory are shared among the streams.
  int batch_images = 0;
  // Time each step (waiting for the device after each, which costs a little): stage_times().
  bool profile = false;
};

namespace detail {
struct JpegEncoderAccess;  // (the debugging tools' view, hetcodec/debug.h)
}

class JpegEncoder {
 public:
  // Seconds per step, summed over the images encoded with JpegEncodeOptions::profile on.
  struct StageTimes {
    double upload = 0;     // the samples to the device
    double transform = 0;  // colour conversion, downsampling, FDCT, quantisation, zigzag
    double entropy = 0;    // Huffman coding (device kernels, or host threads)
    double download = 0;   // the entropy-coded data (or the blocks, for host coding) back
    double host = 0;       // headers and the file's assembly
    std::uint64_t images = 0;
  };

  explicit JpegEncoder(const std::string& device_spec = "", JpegEncodeOptions options = {});
  JpegEncoder(std::shared_ptr<Device> device, JpegEncodeOptions options = {});
  ~JpegEncoder();
  JpegEncoder(const JpegEncoder&) = delete;
  JpegEncoder& operator=(const JpegEncoder&) = delete;

  Device& device();
  const JpegEncodeOptions& options() const;
  // Checks the options (Error(InvalidArgument) naming the one that is wrong).
  void set_options(const JpegEncodeOptions& options);

  // The JPEG file of a gray, gray + alpha, RGB or RGBA image of 8-bit samples, with its ICC
  // profile and EXIF unless keep_metadata is off. Error(InvalidArgument) for an image JPEG
  // cannot hold (no pixels, above 65535 either way, CMYK, 16-bit, samples of the wrong size).
  std::vector<std::uint8_t> encode(const Image& image);
  // Raw pixels of `layout`, rows without padding: `size` must be width * height * samples.
  // Pixels that lie in a buffer of alloc_pinned's (hetcodec/device.h) for this encoder's device
  // go to the device straight from it, the fastest way from host memory; others are first
  // copied into the encoder's own pinned memory on host threads.
  std::vector<std::uint8_t> encode(const std::uint8_t* pixels, std::size_t size, int width,
                                   int height, JpegPixels layout);
  // An image already in this encoder's device memory (from a decoder's decode_to_device): it is
  // encoded where it is (transcoding never brings the pixels back to the host).
  std::vector<std::uint8_t> encode(const DeviceImage& image);
  // Many images, in launches of options.batch_images that code all of theirs in each stage,
  // options.batch_streams launches at once, each on its own host thread and device queue.
  // With `errors` null the first failure throws Error naming the image's index; otherwise a
  // failed image gives an empty file and errors[i] holds its Error.
  std::vector<std::vector<std::uint8_t>> encode_batch(const std::vector<Image>& images,
                                                      BatchErrors* errors = nullptr);
  // The same for raw pixels (as encode(pixels, ...) takes them, pinned ones straight from their
  // buffer).
  std::vector<std::vector<std::uint8_t>> encode_batch(const std::vector<JpegRawImage>& images,
                                                      BatchErrors* errors = nullptr);
  // The same for images in this encoder's device memory (decode_batch_to_device's): images
  // of the same buffer share launches.
  std::vector<std::vector<std::uint8_t>> encode_batch(const std::vector<DeviceImage>& images,
                                                      BatchErrors* errors = nullptr);

  const StageTimes& stage_times() const;
  void reset_stage_times();

 private:
  friend struct detail::JpegEncoderAccess;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetcodec

#endif  // HETCODEC_JPEG_ENCODE_H
