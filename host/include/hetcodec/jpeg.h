// JPEG decoding (DESIGN.md §3 "JPEG decode"): Huffman decoding on CPU threads into a token
// stream, pinned asynchronous transfers, then token decode + dequantisation + IDCT, upsampling
// and colour conversion on the device. The output equals libjpeg-turbo's (JDCT_ISLOW, fancy
// upsampling) byte for byte on every backend.
//
//   hetcodec::JpegDecoder decoder("auto");               // or "cpu", "cuda:0", "opencl:pocl"
//   hetcodec::Image image = decoder.decode(bytes.data(), bytes.size());
//
// Baseline and extended sequential Huffman files with 8- or 12-bit samples and 1, 3 or 4
// components are decoded (12-bit ones to Images of bit_depth 16, equal to libjpeg-turbo 3's);
// so are lossless files (SOF3, precision 2..16: docs/ljpeg-decode.md), whose samples equal
// libjpeg-turbo 3's; so are progressive and arithmetic-coded files (SOF2, SOF9, SOF10). Scaled
// decoding
// (JpegDecodeOptions::scale_denom) and cropped decoding (Input::crop) are libjpeg-turbo's.
#ifndef HETCODEC_JPEG_H
#define HETCODEC_JPEG_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hetcodec/device.h"
#include "hetcodec/image.h"

namespace hetcodec {

struct JpegDecodeOptions {
  // Images larger than this many pixels are refused with Error(LimitExceeded) before any
  // memory is allocated for them. 2^28 = 16384 x 16384.
  std::uint64_t max_pixels = 1ull << 28;
  // Files of more scans than this are refused with Error(LimitExceeded) before decoding: each
  // scan of a progressive file is a pass over all of the image's coefficients, so a small file
  // of many tiny scans would take time out of all proportion to its size (libjpeg-turbo's
  // djpeg -maxscans). Real files have a handful (a progressive one about 10).
  int max_scans = 1000;
  // Files whose token stream (their non-zero coefficients, four to a 12-byte token:
  // docs/token-stream.md) passes this many tokens are refused with Error(LimitExceeded) once
  // the Huffman stage has counted them, before the stream is laid out for the device. 2^27
  // tokens is 1.5 GiB of stream; a photo has about one token for every 4 to 16 pixels.
  std::uint64_t max_tokens = 1ull << 27;
  // The memory one image may take, on the host and the device together, refused with
  // Error(LimitExceeded) before it is allocated: its output (on the device and the host), its
  // planes, the coefficients of a progressive or arithmetic-coded file (128 bytes a block,
  // checked before its scans are decoded) and its token stream (on the host and the device,
  // checked once counted). Lossy files; lossless ones (decode_lossless) are not counted.
  // 4 GiB takes photos of about 100 MP whatever their coding; images near max_pixels (16384
  // x 16384 4:4:4 of high quality, progressive or 12-bit) need more.
  std::uint64_t max_memory_bytes = 4ull << 30;
  // CPU threads for the Huffman stage: images of a batch in parallel, and restart intervals of
  // one large image. 0: one per hardware thread.
  int threads = 0;
  // Token decode, dequantisation and IDCT in one kernel (true) or in two (false; the same
  // output, kept for verification).
  bool fused = true;
  // Batches go to the device this many consecutive images at a time: their token streams in
  // one copy, and (with the fused kernels) one launch of each kernel for all of them. 0:
  // automatic (up to 16, fewer for small batches).
  int images_per_copy = 0;
  // Scaled decoding, as libjpeg-turbo's scale_num = 1, scale_denom = N (djpeg -scale 1/N): 1, 2,
  // 4 or 8; anything else is Error(InvalidArgument) from the constructor. At 1/N the output is
  // ceil(width / N) x ceil(height / N), and each component's blocks are inverse-transformed
  // straight to 8/N samples a side (chroma to as many more as spares it upsampling) by
  // libjpeg-turbo's reduced IDCTs (jidctred.c), so the bytes equal its output. info() and every
  // decode path give the scaled size. Lossless files (SOF3) are refused with Unsupported at any
  // scale but 1 (libjpeg-turbo 3 ignores the scale for them).
  int scale_denom = 1;
  // Lossless files: the order of the wavefront engine for predictors 3..7 (Tickets: one launch,
  // tiles in ticket order; Diagonals: one launch per anti-diagonal of tiles). Auto: Tickets,
  // with the row and column sums for predictors 1 and 2; Tickets and Diagonals take those to the
  // engine too (for comparison).
  Wavefront lossless_order = Wavefront::Auto;
  // Where a sequential (baseline or extended Huffman) file's Huffman data is decoded: on host
  // threads into the token stream, or on the device by a self-synchronising parallel decode
  // (docs/device-entropy.md) straight into coefficients. The output is the same either way; a
  // file the device does not take (progressive, arithmetic, cropped, damaged restart markers),
  // finds corrupt or cannot settle is decoded on the host. Auto: the device for a single file of
  // 1 MiB or more on a GPU, the host otherwise.
  // Lossless files without a row table from the caller or from restart markers: where the row
  // table is found, by the host's pre-pass or by the same stages on the device (ROWS); Auto: the
  // device for a file of 256 KiB or more on a GPU.
  JpegEntropy entropy = JpegEntropy::Auto;
};

// A lossless file's parameters and how its row table (where each row's codes start) was had.
struct LosslessReport {
  int predictor = 0;         // of the first scan (Ss)
  int precision = 0;         // P, 2..16
  int point_transform = 0;   // of the first scan (Pt)
  int restart_interval = 0;  // in MCUs, of the first scan (0: none)
  int scans = 0;
  std::string row_table;  // "given", "restart markers", "pre-pass" or "device"
  // Seconds per stage (profile_lossless() waits for each; decode_lossless() only fills
  // row_table_seconds and total_seconds): the row table (parse included), the file and job to
  // the device, the residual kernel, the reconstruction, the unpacking into pixels, and the
  // pixels back to the host.
  double row_table_seconds = 0, upload_seconds = 0, residual_seconds = 0, reconstruct_seconds = 0,
         unpack_seconds = 0, download_seconds = 0, total_seconds = 0;
};

class JpegDecoder {
 public:
  // Seconds spent in each stage by the calls of a decoder so far (wall time on the calling
  // thread, except `huffman`, which is the CPU time of all Huffman threads together).
  struct StageTimes {
    double huffman = 0;   // parse + Huffman decode + token stream, summed over threads
    double transfer = 0;  // staging copies and waiting for transfers
    double device = 0;    // waiting for kernels and transfers to finish
    // profile_stages() only: the token decode + dequantise + IDCT kernels, and the upsampling +
    // colour kernel, each timed apart over all images.
    double device_decode = 0;
    double device_color = 0;
    // In a batch: how long the calling thread, its own images done, waited for the other
    // threads' last images to be decoded and fed; and how long feeding the device took (staging
    // copy, transfers, kernel launches), summed over the threads that fed.
    double wait_cpu = 0;
    double enqueue = 0;
    // In a batch: how long threads waited for a ticket (the CPU stage is at most 3 x threads + 4
    // images ahead of the device), summed over threads; and the threads' time in the batch
    // (threads x its duration), so that thread_seconds - huffman - enqueue is time not spent on
    // images: waits, locks, the start and the end of the batch.
    double wait_ticket = 0;
    double thread_seconds = 0;
    std::uint64_t images = 0;
    // Host-to-device copies of token streams: one per chunk of images copied together, plus one
    // per image whose stream did not fit its chunk's pinned arena.
    std::uint64_t job_copies = 0;
    // Images whose Huffman data the device decoded (JpegDecodeOptions::entropy).
    std::uint64_t device_entropy_images = 0;
  };

  // Opens the device a spec names (DESIGN.md §2; empty: $HETCODEC_DEVICE or auto).
  explicit JpegDecoder(const std::string& device_spec = "", JpegDecodeOptions options = {});
  explicit JpegDecoder(std::shared_ptr<Device> device, JpegDecodeOptions options = {});
  ~JpegDecoder();
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;

  Device& device();

  // The size, format and bit depth (8, or 16 for 12-bit and lossless files above 8 bits)
  // decode() will give for the whole image at the decoder's scale (a crop gives its region's
  // size), from the markers before the first scan (the entropy-coded data is not read).
  // Error(InvalidData) for headers that do not parse, LimitExceeded past max_pixels,
  // Unsupported for a file this decoder refuses.
  ImageInfo info(const std::uint8_t* data, std::size_t size) const;

  Image decode(const std::uint8_t* data, std::size_t size) { return decode(Input{data, size}); }
  Image decode(const std::vector<std::uint8_t>& bytes) {
    return decode(bytes.data(), bytes.size());
  }
  DeviceImage decode_to_device(const std::uint8_t* data, std::size_t size) {
    return decode_to_device(Input{data, size});
  }
  // The same for input.crop, a region of the output (of the scaled output with scale_denom):
  // only those width x height pixels come back. They equal what libjpeg-turbo gives for them
  // with jpeg_crop_scanline and jpeg_skip_scanlines, which is the whole image's pixels except
  // where fancy upsampling or block smoothing reaches across a vertical window edge that is
  // not the image's: libjpeg-turbo widens the region leftwards to an iMCU column (8 or 16
  // pixels at scale 1) and upsamples as if that column and the region's right edge were the
  // image's edges; the pixels here are the requested ones out of that decode. A region outside
  // the output is Error(InvalidArgument); lossless files are decoded whole only
  // (Error(Unsupported) with a crop). The Huffman decoding still reads every scan.
  Image decode(const Input& input);
  DeviceImage decode_to_device(const Input& input);

  // A lossless file with the caller's row table (`row_table`: an entry per row of each scan, the
  // bit where its codes start counted from the scan's first data byte, as
  // read_lossless_row_table reads a sidecar file; null: from restart markers where every row
  // starts an interval, else by a pre-pass over the codes on `threads` threads). Checks the
  // table (Error(InvalidArgument) for an entry out of order or past the data). `report`, when
  // given, receives the file's parameters and the stages' times.
  Image decode_lossless(const std::uint8_t* data, std::size_t size,
                        const std::vector<std::uint64_t>* row_table = nullptr,
                        LosslessReport* report = nullptr);
  DeviceImage decode_lossless_to_device(const std::uint8_t* data, std::size_t size,
                                        const std::vector<std::uint64_t>* row_table = nullptr,
                                        LosslessReport* report = nullptr);
  // decode_lossless with each stage waited for and timed (for `hetcodec bench ljpeg`); the
  // image stays on the device unless `download`.
  LosslessReport profile_lossless(const std::uint8_t* data, std::size_t size,
                                  const std::vector<std::uint64_t>* row_table, bool download);
  // The row table of a lossless file (restart markers or the pre-pass), as a sidecar file's
  // bytes: little-endian 32-bit entries (27 + 5 packing), 64-bit where an entry needs it.
  std::vector<std::uint8_t> lossless_row_table(const std::uint8_t* data, std::size_t size);
  // A sidecar file's entries for `data` (its rows counted from its headers).
  std::vector<std::uint64_t> read_lossless_row_table(const std::uint8_t* data, std::size_t size,
                                                     const std::uint8_t* sidecar,
                                                     std::size_t sidecar_size) const;

  // Decodes many images, overlapping the Huffman stage of later images (on CPU threads) with
  // the transfers and kernels of earlier ones. With `errors` null the first failure throws
  // Error naming the image's index; otherwise a failed image comes back empty (width 0) and
  // errors[i] holds its Error (nothing for the others). Each input's crop applies to it, as in
  // decode(const Input&).
  std::vector<Image> decode_batch(const std::vector<Input>& inputs, BatchErrors* errors = nullptr);
  // The same, leaving every image on the device: one buffer holds them all, each image at an
  // offset aligned to 4096 bytes; where they would not fit the device's largest single
  // allocation (DeviceInfo::max_alloc_bytes), the batch is split into consecutive parts that do,
  // each in a buffer of its own (DeviceImage::buffer says which). Batches also go to the device
  // in chunks small enough for that limit, so only a single image larger than it fails.
  // `output`, when given, is reused for the first part if it is large enough and receives the
  // buffer used for it.
  std::vector<DeviceImage> decode_batch_to_device(const std::vector<Input>& inputs,
                                                  BatchErrors* errors = nullptr,
                                                  std::shared_ptr<DeviceBuffer>* output = nullptr);

  // Measures the stages one after another on `inputs` (for `hetcodec bench`): the CPU stage of
  // all images on all threads, writing each job into pinned memory as the batch engine does
  // (timed on a second pass, the first having allocated); then the host-to-device copies of all
  // jobs from there, one per chunk as the batch engine makes them, each device buffer used once
  // before; then the kernels of all images. Each is timed to completion, the copies and kernels
  // as the median of five passes. Results stay on the device. All inputs must decode.
  StageTimes profile_stages(const std::vector<Input>& inputs);

  const StageTimes& stage_times() const;
  void reset_stage_times();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetcodec

#endif  // HETCODEC_JPEG_H
