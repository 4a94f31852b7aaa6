// GPU tests: need an NVIDIA GPU; exit 77 (CTest: skipped) on machines without one.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include "backends/cuda/cuda_backend.h"
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

TEST_CASE("the devices this machine is expected to show are there ($HETCODEC_TEST_EXPECT)") {
  const char* env = std::getenv("HETCODEC_TEST_EXPECT");
  if (!env) return;
  std::stringstream list(env);
  for (std::string spec; std::getline(list, spec, ',');) {
    INFO("spec " << spec);
    CHECK_NOTHROW(resolve_device(spec));
  }
}
