// The JPEG decoder with its Huffman stage on the device (docs/device-entropy.md): the file parsed
// on the host and its job written without tokens, its bytes copied to the device, the stages of
// core/portable/jpeg_huffman.h into dense coefficients, then the IDCT and colour stages as
// usual.
#ifndef HETCODEC_HOST_JPEG_DEVICE_ENTROPY_H
#define HETCODEC_HOST_JPEG_DEVICE_ENTROPY_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "core/jpeg/entropy.h"
#include "core/jpeg/entropy_device.h"
#include "core/jpeg/layout.h"
#include "core/jpeg/parser.h"
#include "core/portable/jpeg_huffman.h"
#include "host/src/jpeg_prepare.h"

namespace hetcodec::detail {

// A parsed file whose Huffman data the device decodes (the decoder refers to the header and the
// layout).
struct JpegDeviceSource {
  jpeg::Header header;
  jpeg::Layout layout;
  std::unique_ptr<jpeg::EntropyDecoder> decoder;
};

// Parses the file and, when the device can decode its Huffman data (a sequential file, whole,
// within the options' limits), writes its job without tokens to out.job and describes it in
// `out`; false otherwise (the caller then takes the CPU path, which reports any error).
bool prepare_jpeg_device(const Input& input, const JpegDecodeOptions& options, JpegPrepared& out,
                         JpegDeviceSource& src);

// Whether `entropy` sends a file of `size` bytes to the device's Huffman stages: Auto does on a
// GPU (not an emulator) for `auto_bytes` or more.
bool device_entropy_chosen(JpegEntropy entropy, const DeviceInfo& info, std::size_t size,
                           std::size_t auto_bytes);

// Bytes per subsequence for a segment of `bytes` (enough subsequences to fill a device, none so
// short that decoding would seldom settle inside one).
std::uint32_t device_entropy_sub_bytes(std::size_t bytes);

// The stages' buffers, kept from call to call.
struct DeviceEntropyBuffers {
  std::unique_ptr<DeviceBuffer> plan, work;
  std::vector<std::uint32_t> status;  // the work buffer's header, read back
  int passes = 0;                     // SYNC passes of the last run
};

// Runs the stages of `plan` over the files' bytes in `data` into `coefs` (zeroed here over
// `coef_bytes`), then reads back the status words (waiting for the queue). At most `max_passes`
// SYNC passes (HC_JH_MAX_PASSES at most); segments still unsettled then are reported so.
// `last`: HC_JH_WRITE, or HC_JH_ROWS for lossless files, whose row tables go into `coefs`, the
// lossless job.
void run_device_entropy(Device& device, Queue& q, jpeg::DeviceEntropyPlan& plan,
                        const DeviceBuffer& data, DeviceBuffer& coefs, std::size_t coef_bytes,
                        DeviceEntropyBuffers& b, int max_passes = 32, int last = HC_JH_WRITE);

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_JPEG_DEVICE_ENTROPY_H
