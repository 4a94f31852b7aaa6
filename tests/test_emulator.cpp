// Emulator tests: prove that running under Oclgrind detects real kernel faults, so that a clean
// run of the backend suite on `opencl:oclgrind` (same CTest label) means something.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "backends/opencl/opencl_backend.h"
#include "tests/support/test_support.h"

using namespace hetcodec;

TEST_CASE("Oclgrind reports the deliberately out-of-bounds kernel in tests/kernels") {
  std::ifstream in(HETCODEC_TEST_SOURCE_DIR "/kernels/oob_write.cl");
  REQUIRE(in.good());
  std::stringstream src;
  src << in.rdbuf();
  auto device = open_device("opencl:oclgrind");
  REQUIRE(device->info().is_emulator);
  auto& cl = dynamic_cast<opencl::ClDevice&>(*device);
  const cl_uint n = 16;
  auto buf = device->alloc(n * sizeof(cl_uint));
  auto queue = device->create_queue();
  std::vector<cl_uint> zeros(n, 0);
  queue->write(*buf, 0, zeros.data(), n * sizeof(cl_uint));
  test::take_emulator_log();
  cl::Kernel k = opencl::make_kernel(cl.build("oob_write", src.str()), "oob_write");
  HC_CL_CHECK(k.setArg(0, opencl::mem_of(*buf)));
  HC_CL_CHECK(k.setArg(1, n));
  opencl::queue_cast(*queue).launch(k, n, "oob_write");
  queue->finish();
  std::string report = test::take_emulator_log();
  CHECK(report.find("Invalid write") != std::string::npos);
  CHECK(report.find("oob_write") != std::string::npos);
}

TEST_CASE("a correct kernel leaves Oclgrind silent") {
  auto device = open_device("opencl:oclgrind");
  const std::uint32_t pixels = 100;
  auto ycc = test::random_bytes(3 * pixels, 11);
  auto d_ycc = device->alloc(ycc.size());
  auto d_rgb = device->alloc(ycc.size());
  auto queue = device->create_queue();
  queue->write(*d_ycc, 0, ycc.data(), ycc.size());
  test::take_emulator_log();
  device->jpeg().ycc_to_rgb(*queue, *d_ycc, *d_rgb, pixels);
  std::vector<unsigned char> out(ycc.size());
  queue->read(out.data(), *d_rgb, 0, out.size());
  CHECK(test::take_emulator_log().empty());
}
