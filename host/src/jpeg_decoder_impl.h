// JpegDecoder's state, shared by its files: jpeg_decoder.cpp (decode, the batch path on the
// batch engine) and jpeg_profile.cpp (the stages timed one after another for `hetcodec bench`).
// Four device slots, each with its own queue, pinned buffers and device buffers, take chunks of
// images in turn, so the copy of chunk N+1 overlaps the kernels of chunk N while CPU threads are
// already decoding the Huffman data of the images after it; a slot is reused only when its
// previous work is complete.
#ifndef HETCODEC_HOST_JPEG_DECODER_IMPL_H
#define HETCODEC_HOST_JPEG_DECODER_IMPL_H

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/jpeg/entropy.h"
#include "hetcodec/jpeg.h"
#include "host/src/batch_engine.h"
#include "host/src/jpeg_chunks.h"
#include "host/src/jpeg_device_entropy.h"
#include "host/src/jpeg_prepare.h"

namespace hetcodec {

struct JpegDecoder::Impl {
  std::shared_ptr<Device> device;
  JpegDecodeOptions options;
  StageTimes times;

  struct Slot : detail::BatchSlot {
    std::unique_ptr<PinnedBuffer> in, out;
    std::unique_ptr<DeviceBuffer> job, planes, coefficients, output;
    // Images whose results wait in `out` (host path): index, offset in `out`, bytes.
    struct Pending {
      std::size_t index, offset, bytes;
    };
    std::vector<Pending> pending;
  };
  static constexpr int kSlots = 4;
  Slot slots[kSlots];
  // The batch engine's threads also run the split decoding of one large image.
  detail::BatchEngine engine;
  // Threads that copy finished images out of a slot's pinned buffer into their Images.
  detail::WorkerPool copy_pool;
  // Memory the CPU stage reuses across images and batches, so that a batch allocates (and
  // page-faults, and returns to the kernel) almost nothing: entropy scratch per worker, and
  // pinned job buffers (workers write jobs into them, the feeding thread enqueues the copy, and
  // they come back once the slot that copied them has drained).
  std::vector<std::vector<jpeg::EntropyResult>> scratch;
  detail::PinnedPool pinned;

  Impl(std::shared_ptr<Device> d, JpegDecodeOptions o);

  // Images per chunk for a batch of these inputs: jpeg_chunk_images, made smaller where a
  // chunk's images would not fit the device's largest single allocation.
  std::size_t chunk_images(const std::vector<Input>& inputs) const;
  // Waits until the slot's previous work is complete; hands back its results if it had any.
  void drain(Slot& s, std::vector<Image>* images);
  // Enqueues prepared[first, first + count) (those prepared without error) on slot `s`, whose
  // previous work has drained; their jobs are in `arena` (its first `arena_bytes` bytes) or
  // their own buffers. With `target` null the outputs go back to the host through the slot's
  // pinned buffer (collected by drain()); otherwise each stays in `target` at its offset.
  void enqueue(Slot& s, std::vector<detail::JpegPrepared>& prepared, std::size_t first,
               std::size_t count, PinnedBuffer* arena, std::size_t arena_bytes,
               DeviceBuffer* target, const std::vector<std::size_t>* offsets);
  // Decodes a batch on the batch engine (jpeg_decoder.cpp).
  struct Batch;
  void run_batch(const std::vector<Input>& inputs, BatchErrors* errors, std::vector<Image>* images,
                 DeviceBuffer* target, const std::vector<std::size_t>* offsets,
                 std::size_t base = 0);
  void feed_chunk(Batch& b, std::size_t c);
  // The CPU stage of one image on all threads; throws its failure.
  detail::JpegPrepared prepare_one(const Input& input);

  // A single image with its Huffman data decoded on the device (jpeg_device_entropy.h), when the
  // options ask for it and the device takes the file: into `out` (the host image) or
  // `device_out`. False when the file goes the CPU way instead (nothing written).
  bool decode_entropy_on_device(const Input& input, Image* out, DeviceImage* device_out);
  // Whether the options send this single image's Huffman data to the device.
  bool wants_device_entropy(const Input& input) const;
  detail::DeviceEntropyBuffers device_entropy;
  std::unique_ptr<DeviceBuffer> device_entropy_file;

  // Lossless files (ljpeg_decoder.cpp): one queue and buffers reused from file to file.
  struct Lossless {
    std::unique_ptr<Queue> queue;
    std::unique_ptr<PinnedBuffer> staging;
    std::unique_ptr<DeviceBuffer> file, job, planes, scratch, status, output;
  } lossless;
  // Error(Unsupported) when the options ask for a scale other than 1: lossless files are not
  // decoded scaled.
  void check_lossless_scale() const;
  // Whether a lossless file's row table is found on the device (JpegDecodeOptions::entropy)
  // when neither the caller nor restart markers give it.
  bool wants_device_rows(std::size_t size) const;
  // Decodes a lossless file into `out` (the host image, or `device_out` when given), stage by
  // stage timed when `profile`.
  void decode_lossless(const std::uint8_t* data, std::size_t size,
                       const std::vector<std::uint64_t>* row_table, Image* out,
                       DeviceImage* device_out, LosslessReport* report, bool profile);
};

}  // namespace hetcodec

#endif  // HETCODEC_HOST_JPEG_DECODER_IMPL_H
