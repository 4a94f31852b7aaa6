// The doctest main of every suite, compiled into each test binary so that its
// HETCODEC_TEST_REQUIRES_* definition takes effect. Before anything touches OpenCL it turns on
// Oclgrind's checks (API misuse, data races, uninitialised values) and sends Oclgrind's kernel
// reports to a log file that for_each_device() reads, so a suite run on `opencl:oclgrind` fails
// on any report. A suite that needs a CUDA GPU or the emulator exits 77 (CTest: skipped) on a
// machine without one.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

int main(int argc, char** argv) {
  using namespace hetcodec;
  std::string tmpl = (std::filesystem::temp_directory_path() / "hetcodec-oclgrind-XXXXXX").string();
  std::vector<char> path(tmpl.begin(), tmpl.end());
  path.push_back('\0');
  int fd = mkstemp(path.data());
  if (fd >= 0) {
    close(fd);
    hetcodec::test::log_path() = path.data();
    setenv("OCLGRIND_LOG", path.data(), 1);
    setenv("OCLGRIND_CHECK_API", "1", 0);
    setenv("OCLGRIND_DATA_RACES", "1", 0);
    setenv("OCLGRIND_UNINITIALIZED", "1", 0);
  }
  int rc = 0;
  try {
#if defined(HETCODEC_TEST_REQUIRES_CUDA)
    bool have = false;
    for (const auto& d : list_devices()) have = have || d.kind == DeviceKind::Cuda;
    if (!have) {
      std::printf("no CUDA device on this machine: gpu tests skipped\n");
      rc = 77;
    }
#elif defined(HETCODEC_TEST_REQUIRES_EMULATOR)
    bool have = false;
    for (const auto& d : list_devices()) have = have || d.is_emulator;
    if (!have) {
      const char* strict = std::getenv("HETCODEC_TEST_STRICT");
      std::printf("Oclgrind is not installed: emulator tests skipped\n");
      rc = strict && *strict && std::string(strict) != "0" ? 1 : 77;
    }
#endif
    // A suite pointed at devices this machine lacks ($HETCODEC_TEST_DEVICES, e.g. the emulator
    // suite without Oclgrind) is skipped, unless $HETCODEC_TEST_STRICT says they must exist.
    if (rc == 0) {
      try {
        hetcodec::test::test_devices();
      } catch (const Error& e) {
        const char* strict = std::getenv("HETCODEC_TEST_STRICT");
        std::printf("%s\n", e.what());
        rc = strict && *strict && std::string(strict) != "0" ? 1 : 77;
        if (rc == 77) std::printf("requested test devices absent: skipped\n");
      }
    }
    if (rc == 0) {
      // Unbuffered, so that a run killed on a time limit (a stalled sanitizer run) shows how
      // far it got (with --duration=true, each test case as it ends).
      std::cout.setf(std::ios::unitbuf);
      doctest::Context context(argc, argv);
      rc = context.run();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "test main: %s\n", e.what());
    rc = 1;
  }
  if (!hetcodec::test::log_path().empty()) std::remove(hetcodec::test::log_path().c_str());
  return rc;
}
