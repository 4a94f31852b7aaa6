// GPU tests: need an NVIDIA GPU; exit 77 (CTest: skipped) on machines without one.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include <cuda_runtime.h>

#include "backends/cuda/cuda_backend.h"
#include "hetcodec/hetcodec.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

TEST_CASE("auto picks the first CUDA device") { CHECK(resolve_device("auto").spec == "cuda:0"); }

TEST_CASE("CUDA pinned buffers are page-locked host memory") {
  auto device = open_device("cuda:0");
  auto pinned = device->alloc_pinned(1 << 20);
  CHECK(cuda::is_pinned_host(pinned->data()));
  std::vector<unsigned char> pageable(1 << 20);
  CHECK_FALSE(cuda::is_pinned_host(pageable.data()));
}

TEST_CASE("native_memory of a CUDA device image is the device pointer of its samples") {
  auto device = open_device("cuda:0");
  const Image im = test::photo(80, 48, 5);
  const std::vector<std::uint8_t> file = JpegEncoder(device).encode(im);
  JpegDecoder decoder(device);
  const Image want = decoder.decode(file);
  const DeviceImage on_device = decoder.decode_to_device(file.data(), file.size());
  const NativeMemory m = native_memory(device, on_device);
  CHECK(m.kind == DeviceKind::Cuda);
  CHECK(m.ordinal == 0);
  cudaPointerAttributes attributes{};
  REQUIRE(cudaPointerGetAttributes(&attributes, m.handle) == cudaSuccess);
  CHECK(attributes.type == cudaMemoryTypeDevice);
  std::vector<std::uint8_t> got(want.pixels.size());
  REQUIRE(cudaMemcpy(got.data(), static_cast<const std::uint8_t*>(m.handle) + m.offset, got.size(),
                     cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(got == want.pixels);
  // The second image of a batch: at its offset in the batch's buffer.
  const std::vector<std::uint8_t> file2 = JpegEncoder(device).encode(test::photo(64, 40, 9));
  const Image want2 = decoder.decode(file2);
  const auto batch = decoder.decode_batch_to_device(
      {Input{file.data(), file.size()}, Input{file2.data(), file2.size()}});
  const NativeMemory m2 = native_memory(device, batch.at(1));
  CHECK(m2.offset >= want.pixels.size());
  std::vector<std::uint8_t> got2(want2.pixels.size());
  REQUIRE(cudaMemcpy(got2.data(), static_cast<const std::uint8_t*>(m2.handle) + m2.offset,
                     got2.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(got2 == want2.pixels);
}

TEST_CASE("the devices this machine is expected to show are there ($HETCODEC_TEST_EXPECT)") {
  const char* env = std::getenv("HETCODEC_TEST_EXPECT");
  if (!env) return;
  std::stringstream list(env);
  for (std::string spec; std::getline(list, spec, ',');) {
    INFO("spec " << spec);
    CHECK_NOTHROW(resolve_device(spec));
  }
}
