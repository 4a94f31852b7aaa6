// Unit tests: errors, hashing, the shared portable arithmetic, device specs and selection.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "core/hash.h"
#include "core/portable/jpeg_color.h"
#include "core/portable/jpeg_encode.h"
#include "hetcodec/hetcodec.h"
#include "host/src/parallel.h"
#include "host/src/pinned_copy.h"

using namespace hetcodec;

TEST_CASE("Error carries its code and message") {
  try {
    throw Error(ErrorCode::InvalidData, "jpeg: DHT at byte 1234: code lengths overflow 16 bits");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK(std::string(e.what()) == "jpeg: DHT at byte 1234: code lengths overflow 16 bits");
    CHECK(std::string(to_string(e.code())) == "invalid data");
  }
  CHECK(std::string(to_string(ErrorCode::DeviceError)) == "device error");
}

TEST_CASE("FNV-1a 64 matches the published test vectors") {
  CHECK(Fnv1a64().value() == 0xcbf29ce484222325ULL);
  CHECK(Fnv1a64().add("a", 1).value() == 0xaf63dc4c8601ec8cULL);
  CHECK(Fnv1a64().add("foobar", 6).value() == 0x85944171f73967e8ULL);
  // Field separation: ("ab","c") and ("a","bc") must not collide.
  CHECK(Fnv1a64().add(std::string_view("ab")).add(std::string_view("c")).value() !=
        Fnv1a64().add(std::string_view("a")).add(std::string_view("bc")).value());
  CHECK(Fnv1a64().hex() == "cbf29ce484222325");
}

TEST_CASE("portable YCbCr->RGB: hand-computed golden pixels") {
  struct P {
    int y, cb, cr, r, g, b;
  };
  // Worked by hand from jdcolor.c's table formulas (FIX(1.402)=91881, FIX(1.772)=116130,
  // FIX(0.71414)=46802, FIX(0.34414)=22554, ONE_HALF=32768, arithmetic >> 16).
  const P golden[] = {{128, 128, 128, 128, 128, 128},
                      {0, 128, 255, 178, 0, 0},
                      {100, 50, 200, 201, 75, 0},
                      {255, 0, 0, 76, 255, 28},
                      {30, 255, 20, 0, 63, 255}};
  for (const auto& p : golden) {
    INFO("Y=" << p.y << " Cb=" << p.cb << " Cr=" << p.cr);
    CHECK(hc_ycc_red(p.y, p.cr) == p.r);
    CHECK(hc_ycc_green(p.y, p.cb, p.cr) == p.g);
    CHECK(hc_ycc_blue(p.y, p.cb) == p.b);
  }
}

TEST_CASE("portable JPEG quantisation by reciprocal equals libjpeg's division") {
  // hc_jenc_quantize (the encoder's) against hc_quantize (jcdctmgr.c's rounding, by division)
  // for every table entry and every coefficient the FDCT can give (|x| < 2^17), and beyond.
  std::uint64_t mismatches = 0;
  for (hc_u32 q = 1; q <= 255; ++q) {
    const hc_u32 r = hc_u32((std::uint64_t(1) << 32) / (8 * q) + 1);
    for (hc_i32 x = -(1 << 18); x <= (1 << 18); ++x)
      mismatches += hc_jenc_quantize(x, q, r) != hc_quantize(x, hc_i32(q));
  }
  CHECK(mismatches == 0);
  CHECK(hc_jenc_quantize(-12, 3, hc_u32((std::uint64_t(1) << 32) / 24 + 1)) == -1);
  CHECK(hc_jenc_quantize(11, 3, hc_u32((std::uint64_t(1) << 32) / 24 + 1)) == 0);
}

TEST_CASE("portable JPEG magnitude category and YCbCr conversion of the encoder") {
  // hc_jenc_nbits (a count of leading zeros) against the bits of |v| counted one by one, for
  // every value a DC difference or AC coefficient of 8-bit JPEG can take, and beyond.
  std::uint64_t mismatches = 0;
  for (hc_i32 v = -(1 << 16); v <= (1 << 16); ++v) {
    hc_u32 a = hc_u32(v < 0 ? -std::int64_t(v) : v), bits = 0;
    for (; a; a >>= 1) ++bits;
    mismatches += hc_jenc_nbits(v) != bits;
  }
  CHECK(mismatches == 0);
  CHECK(hc_jenc_nbits(0) == 0);
  CHECK(hc_jenc_nbits(-1) == 1);
  CHECK(hc_jenc_nbits(-1024) == 11);
  CHECK(hc_jenc_nbits(1023) == 10);
  // hc_jenc_ycc against jccolor.c's rgb_ycc_convert written out (its tables' entries summed),
  // for every 4th value of each of R, G and B and their ends.
  auto fix = [](double x) { return std::int64_t(x * 65536.0 + 0.5); };
  const std::int64_t half = 1 << 15, offset = std::int64_t(128) << 16;
  mismatches = 0;
  for (int r = 0; r < 256; r += r == 252 ? 3 : 4)
    for (int g = 0; g < 256; g += g == 252 ? 3 : 4)
      for (int b = 0; b < 256; b += b == 252 ? 3 : 4) {
        const std::int64_t y =
            (fix(0.29900) * r + fix(0.58700) * g + fix(0.11400) * b + half) >> 16;
        const std::int64_t cb =
            (-fix(0.16874) * r - fix(0.33126) * g + fix(0.50000) * b + offset + half - 1) >> 16;
        const std::int64_t cr =
            (fix(0.50000) * r - fix(0.41869) * g - fix(0.08131) * b + offset + half - 1) >> 16;
        const hc_u32 v = hc_jenc_ycc(hc_u32(r) | hc_u32(g) << 8 | hc_u32(b) << 16);
        mismatches += (v & 0xFF) != y || ((v >> 8) & 0xFF) != cb || (v >> 16) != cr;
      }
  CHECK(mismatches == 0);
}

TEST_CASE("registry: the CPU reference is always there and first") {
  const auto& devices = list_devices();
  REQUIRE(!devices.empty());
  CHECK(devices.front().spec == "cpu");
  CHECK(devices.front().kind == DeviceKind::Cpu);
  CHECK(resolve_device("cpu").spec == "cpu");
  CHECK(resolve_device("CPU").spec == "cpu");
  for (const auto& d : devices) CHECK(resolve_device(d.spec).spec == d.spec);
}

TEST_CASE(
    "registry: auto prefers CUDA, then an OpenCL GPU, then an OpenCL CPU, never an emulator") {
  const DeviceInfo& a = resolve_device("auto");
  CHECK(!a.is_emulator);
  bool cuda = false, ocl_gpu = false, ocl_cpu = false;
  for (const auto& d : list_devices()) {
    cuda |= d.kind == DeviceKind::Cuda;
    ocl_gpu |= d.kind == DeviceKind::OpenCL && d.is_gpu && !d.is_emulator;
    ocl_cpu |= d.kind == DeviceKind::OpenCL && !d.is_gpu && !d.is_emulator;
  }
  if (cuda)
    CHECK(a.spec == "cuda:0");
  else if (ocl_gpu)
    CHECK((a.kind == DeviceKind::OpenCL && a.is_gpu));
  else if (ocl_cpu)
    CHECK((a.kind == DeviceKind::OpenCL && !a.is_gpu));
  else
    CHECK(a.spec == "cpu");
  CHECK(auto_device().spec == a.spec);
}

TEST_CASE("registry: OpenCL specs by index and by substring") {
  std::vector<DeviceInfo> ocl;
  for (const auto& d : list_devices())
    if (d.kind == DeviceKind::OpenCL) ocl.push_back(d);
  for (std::size_t i = 0; i < ocl.size(); ++i) {
    CHECK(resolve_device("opencl:" + std::to_string(i)).spec == ocl[i].spec);
    // The platform name selects the first device of that platform.
    const DeviceInfo& by_name = resolve_device("opencl:" + ocl[i].platform);
    CHECK(by_name.platform == ocl[i].platform);
  }
  for (const auto& d : ocl) {
    if (d.driver.find("PoCL") != std::string::npos)
      CHECK(resolve_device("opencl:pocl").spec.rfind("opencl:", 0) == 0);
    if (d.is_emulator) {
      CHECK(resolve_device("opencl:oclgrind").is_emulator);
      CHECK(resolve_device("opencl:oclgrind:0").is_emulator);
    }
  }
  if (!ocl.empty()) CHECK(resolve_device("opencl").kind == DeviceKind::OpenCL);
}

TEST_CASE("registry: an unknown spec is an error that lists the devices") {
  for (const char* bad :
       {"vulkan", "cuda:99", "opencl:99", "opencl:no-such-vendor", "cuda:x", ""}) {
    if (!*bad) continue;
    INFO("spec " << bad);
    try {
      resolve_device(bad);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidArgument);
      std::string msg = e.what();
      CHECK(msg.find(bad) != std::string::npos);
      CHECK(msg.find("devices here:") != std::string::npos);
      CHECK(msg.find("cpu") != std::string::npos);
    }
  }
}

TEST_CASE("registry: HETCODEC_DEVICE sets the default") {
  setenv("HETCODEC_DEVICE", "cpu", 1);
  CHECK(resolve_device("").spec == "cpu");
  setenv("HETCODEC_DEVICE", "no-such-backend", 1);
  CHECK_THROWS_AS(resolve_device(""), Error);
  unsetenv("HETCODEC_DEVICE");
  CHECK(resolve_device("").spec == auto_device().spec);
}

TEST_CASE("open_device shares one object per device") {
  auto a = open_device("cpu");
  auto b = open_device("cpu");
  CHECK(a.get() == b.get());
  CHECK(a->info().spec == "cpu");
  CHECK(std::string(version()) == HETCODEC_TEST_VERSION);
}

TEST_CASE("copy_to_pinned copies every byte, whatever the sizes and alignments") {
  std::vector<std::uint8_t> src(70000), dst(70100);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint8_t(i * 131 + (i >> 8));
  for (std::size_t n : {0, 1, 15, 4095, 4096, 4097, 5000, 65536, 69990})
    for (std::size_t d_off : {0, 1, 7, 16, 33})
      for (std::size_t s_off : {0, 3, 8}) {
        if (s_off + n > src.size()) continue;
        std::fill(dst.begin(), dst.end(), std::uint8_t(0xEE));
        detail::copy_to_pinned(dst.data() + d_off, src.data() + s_off, n);
        INFO(n << " bytes, to +" << d_off << ", from +" << s_off);
        REQUIRE(std::equal(src.begin() + std::ptrdiff_t(s_off),
                           src.begin() + std::ptrdiff_t(s_off + n),
                           dst.begin() + std::ptrdiff_t(d_off)));
        // nothing written around the copy
        REQUIRE(std::count(dst.begin(), dst.begin() + std::ptrdiff_t(d_off), 0xEE) ==
                std::ptrdiff_t(d_off));
        REQUIRE(std::count(dst.begin() + std::ptrdiff_t(d_off + n), dst.end(), 0xEE) ==
                std::ptrdiff_t(dst.size() - d_off - n));
      }
}

TEST_CASE("WorkerPool runs every index once per run, reuses its threads, and nests") {
  detail::WorkerPool pool;
  for (int n : {1, 4, 2, 7, 3}) {
    const std::size_t count = std::size_t(n);
    std::vector<std::atomic<int>> hits(count);
    std::vector<std::thread::id> ids(count);
    pool.run(n, [&](int i) {
      hits[std::size_t(i)].fetch_add(1);
      ids[std::size_t(i)] = std::this_thread::get_id();
    });
    for (int i = 0; i < n; ++i) CHECK(hits[std::size_t(i)].load() == 1);
    CHECK(bool(ids[0] == std::this_thread::get_id()));
    for (int i = 1; i < n; ++i) CHECK(bool(ids[std::size_t(i)] != std::this_thread::get_id()));
  }
  // A run from inside a run (the pool is busy) still runs every index.
  std::atomic<int> inner{0};
  pool.run(3, [&](int) { pool.run(4, [&](int) { inner.fetch_add(1); }); });
  CHECK(inner.load() == 12);
  // parallel_for on the pool: every item once, exceptions come back.
  std::vector<std::atomic<int>> items(1000);
  detail::parallel_for(
      items.size(), 5, [&](std::size_t i) { items[i].fetch_add(1); }, &pool);
  int total = 0;
  for (auto& v : items) total += v.load() == 1;
  CHECK(total == 1000);
  CHECK_THROWS_AS(detail::parallel_for(
                      10, 3,
                      [](std::size_t i) {
                        if (i == 7) throw Error(ErrorCode::InvalidData, "item 7");
                      },
                      &pool),
                  Error);
}
