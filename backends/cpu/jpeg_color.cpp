// JPEG colour conversion on the CPU reference: the same core/portable arithmetic the CUDA and
// OpenCL kernels of the same name use (kernels_cu/jpeg_color.cu, kernels_cl/jpeg_color.cl).
#include "core/portable/jpeg_color.h"

#include "backends/backend_util.h"
#include "backends/cpu/cpu_backend.h"

namespace hetcodec::cpu {
namespace {

class CpuJpegKernels : public JpegKernels {
 public:
  void run_ycc_to_rgb(Queue&, const DeviceBuffer& ycc, DeviceBuffer& rgb,
                      std::uint32_t pixels) override {
    const std::uint8_t* y = backend_cast<const Buffer>(ycc, "cpu").data();
    const std::uint8_t* cb = y + pixels;
    const std::uint8_t* cr = cb + pixels;
    std::uint8_t* out = backend_cast<Buffer>(rgb, "cpu").data();
    for (std::uint32_t i = 0; i < pixels; ++i) {
      out[3 * i + 0] = static_cast<std::uint8_t>(hc_ycc_red(y[i], cr[i]));
      out[3 * i + 1] = static_cast<std::uint8_t>(hc_ycc_green(y[i], cb[i], cr[i]));
      out[3 * i + 2] = static_cast<std::uint8_t>(hc_ycc_blue(y[i], cb[i]));
    }
  }
};

}  // namespace

std::unique_ptr<JpegKernels> make_jpeg_kernels() { return std::make_unique<CpuJpegKernels>(); }

}  // namespace hetcodec::cpu
