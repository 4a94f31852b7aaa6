// Test support: the devices a suite runs on, and the Oclgrind report check that makes any
// emulator-detected error a test failure (DESIGN.md §6).
#ifndef HETCODEC_TESTS_SUPPORT_TEST_SUPPORT_H
#define HETCODEC_TESTS_SUPPORT_TEST_SUPPORT_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "hetcodec/image.h"

namespace hetcodec::test {

// An 8-bit RGB image of gradients and a little noise, the same for the same arguments.
Image photo(int width, int height, unsigned seed);

// Devices a backend-parameterised test runs on: $HETCODEC_TEST_DEVICES (comma-separated specs)
// or every device found except emulators.
std::vector<DeviceInfo> test_devices();

// Runs `body` once per test device, naming the device in any failure. On an emulator device,
// anything Oclgrind reports while `body` runs fails the test, with the report.
void for_each_device(const std::function<void(Device&)>& body);

// A non-owning handle on a device the test owns, for the codecs' constructors.
std::shared_ptr<Device> borrowed(Device& device);

// The samples of a device-resident image, read back through a queue of `device`.
std::vector<std::uint8_t> read_back(Device& device, const DeviceImage& image);

// Oclgrind's report log since the last call (the test main points OCLGRIND_LOG at a file).
std::string take_emulator_log();

// Where Oclgrind writes its kernel reports (set by the test main; empty when unset).
std::string& log_path();

// Runs `program args` in a shell with stderr joined to stdout; returns the output followed by
// "\nexit N" (N: the exit status, or -1 when it did not exit normally).
std::string run_command(const std::string& program, const std::string& args);

// Deterministic bytes for test data (xorshift), never zeros.
std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed);

// A binary PNM or PAM file (P5, P6, P7): its header fields and samples.
struct Netpbm {
  char kind = 0;  // '5', '6' or '7'
  int width = 0, height = 0, depth = 0, maxval = 0;
  std::string tuple;
  std::vector<std::uint8_t> samples;
};
Netpbm read_netpbm(const std::vector<std::uint8_t>& bytes);

// A line of tests/data/ljpeg/manifest.txt: a lossless file's parameters and the digest
// (Fnv1a64) of libjpeg-turbo 3's samples, or "unsupported".
struct LjpegEntry {
  std::string name;
  int width = 0, height = 0, components = 0, precision = 0, predictor = 0, pt = 0;
  int restart = 0, scans = 0;
  std::string source, digest;
};
std::vector<LjpegEntry> ljpeg_manifest();

}  // namespace hetcodec::test

#endif  // HETCODEC_TESTS_SUPPORT_TEST_SUPPORT_H
