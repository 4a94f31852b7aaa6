// OpenCL backend tests: program binaries cached on disk and reused, a corrupt cache entry
// rebuilt, and a build failure reported with the compiler's log. Run on every OpenCL test device.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "backends/opencl/opencl_backend.h"
#include "hetcodec/hetcodec.h"
#include "tests/support/test_support.h"

using namespace hetcodec;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> cache_files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "opencl", ec)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  }
  return out;
}

void run_add_one(opencl::ClDevice& device, const cl::Program& program) {
  const cl_uint init[4] = {1, 2, 3, 40};
  auto buf = device.alloc(sizeof init);
  auto queue = device.create_queue();
  queue->write(*buf, 0, init, sizeof init);
  cl::Kernel k = opencl::make_kernel(program, "add_one");
  HC_CL_CHECK(k.setArg(0, opencl::mem_of(*buf)));
  HC_CL_CHECK(k.setArg(1, cl_uint(4)));
  opencl::queue_cast(*queue).launch(k, 4, "add_one");
  cl_uint out[4] = {};
  queue->read(out, *buf, 0, sizeof out);
  CHECK(out[0] == 2);
  CHECK(out[3] == 41);
}

}  // namespace

TEST_CASE("OpenCL programs are cached on disk, reused, and rebuilt when the cache is corrupt") {
  fs::path dir = fs::temp_directory_path() / ("hetcodec-cache-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  setenv("HETCODEC_CACHE_DIR", dir.c_str(), 1);
  test::for_each_device([&](Device& device) {
    if (device.info().kind != DeviceKind::OpenCL) return;
    auto& cl = dynamic_cast<opencl::ClDevice&>(device);
    const std::string src =
        "__kernel void add_one(__global uint* a, uint n) {\n"
        "  uint i = get_global_id(0);\n  if (i < n) a[i] += 1u;\n}\n/* " +
        device.info().spec + " */\n";
    const std::string name =
        "probe" + std::to_string(std::hash<std::string>()(device.info().spec) % 100000);
    run_add_one(cl, cl.build(name, src));
    auto files = cache_files(dir, name + "-");
    REQUIRE(files.size() == 1);
    CHECK(fs::file_size(files[0]) > 0);

    run_add_one(cl, cl.build(name, src));  // from the cached binary
    CHECK(cache_files(dir, name + "-").size() == 1);

    // A corrupt entry is ignored and replaced. (Not on Oclgrind, where loading the corrupt
    // binary is an API-error report that the emulator suite counts as a failure.)
    if (!device.info().is_emulator) {
      std::ofstream(files[0], std::ios::binary | std::ios::trunc) << "not a program binary";
      run_add_one(cl, cl.build(name, src));
      CHECK(fs::file_size(files[0]) != std::string("not a program binary").size());
    }

    // Another source (or options, device, driver) is another key.
    run_add_one(cl, cl.build(name, src + "\n"));
    CHECK(cache_files(dir, name + "-").size() == 2);
  });
  unsetenv("HETCODEC_CACHE_DIR");
  fs::remove_all(dir);
}

TEST_CASE("an OpenCL build failure is a DeviceError carrying the compiler log") {
  test::for_each_device([&](Device& device) {
    // On Oclgrind a failed build is itself an API-error report, which the emulator suite counts
    // as a failure: this behaviour is checked on the other OpenCL devices.
    if (device.info().kind != DeviceKind::OpenCL || device.info().is_emulator) return;
    auto& cl = dynamic_cast<opencl::ClDevice&>(device);
    try {
      cl.build("broken_probe", "__kernel void k(__global int* a) { a[0] = undeclared_name; }\n");
      FAIL("the build succeeded");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::DeviceError);
      std::string msg = e.what();
      CHECK(msg.find("broken_probe") != std::string::npos);
      CHECK(msg.find("undeclared_name") != std::string::npos);  // from the compiler log
    }
  });
}

TEST_CASE("native_memory of an OpenCL device image is the cl_mem of its samples") {
  const Image im = test::photo(80, 48, 6);
  test::for_each_device([&](Device& device) {
    if (device.info().kind != DeviceKind::OpenCL || device.info().is_emulator) return;
    INFO(device.info().spec);
    auto shared = test::borrowed(device);
    const std::vector<std::uint8_t> file = JpegEncoder(shared).encode(im);
    JpegDecoder decoder(shared);
    const Image want = decoder.decode(file);
    const DeviceImage on_device = decoder.decode_to_device(file.data(), file.size());
    const NativeMemory m = native_memory(shared, on_device);
    CHECK(m.kind == DeviceKind::OpenCL);
    auto& cl = dynamic_cast<opencl::ClDevice&>(device);
    cl::CommandQueue queue(cl.context(), cl.device());
    std::vector<std::uint8_t> got(want.pixels.size());
    REQUIRE(clEnqueueReadBuffer(queue(), static_cast<cl_mem>(m.handle), CL_TRUE, m.offset,
                                got.size(), got.data(), 0, nullptr, nullptr) == CL_SUCCESS);
    CHECK(got == want.pixels);
    // The second image of a batch: at its offset in the batch's buffer.
    const std::vector<std::uint8_t> file2 = JpegEncoder(shared).encode(test::photo(64, 40, 8));
    const Image want2 = decoder.decode(file2);
    const auto batch = decoder.decode_batch_to_device(
        {Input{file.data(), file.size()}, Input{file2.data(), file2.size()}});
    const NativeMemory m2 = native_memory(shared, batch.at(1));
    CHECK(m2.offset >= want.pixels.size());
    std::vector<std::uint8_t> got2(want2.pixels.size());
    REQUIRE(clEnqueueReadBuffer(queue(), static_cast<cl_mem>(m2.handle), CL_TRUE, m2.offset,
                                got2.size(), got2.data(), 0, nullptr, nullptr) == CL_SUCCESS);
    CHECK(got2 == want2.pixels);
  });
}

TEST_CASE("every embedded kernel program builds") {
  test::for_each_device([&](Device& device) {
    if (device.info().kind != DeviceKind::OpenCL) return;
    auto& cl = dynamic_cast<opencl::ClDevice&>(device);
    CHECK_NOTHROW(cl.program("jpeg_color"));
    CHECK_THROWS_AS(cl.program("no_such_program"), Error);
  });
}
