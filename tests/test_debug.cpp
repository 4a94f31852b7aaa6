// Kernel debugging across devices (hetcodec/debug.h, `hetcodec debug compare`): a JPEG decode's
// stages equal on every device and the last equal to the decoder's pixels; a deliberately wrong
// IDCT (the CPU reference's test-only variant) named by the tool with its stage and block; the
// dumps written with their manifest; every device stage of a dump replayed alone on every
// device equal to the dump's; a deliberately racy kernel reported by debug replay under Oclgrind
// with its kernel and source line.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/portable/jpeg_job.h"
#include "hetcodec/hetcodec.h"
#include "tests/support/cli_run.h"
#include "tests/support/libjpeg_oracle.h"
#include "tests/support/test_support.h"

namespace hetcodec {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> jpeg_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg"))
    if (e.path().extension() == ".jpg") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// CPU dumps of the tests' testorig.jpg (8-bit, 4:2:0) and monkey12.jpg (12-bit).
std::vector<StageDump> cpu_jpeg_dumps() {
  std::vector<StageDump> dumps;
  for (const char* name : {"testorig.jpg", "monkey12.jpg"}) {
    const auto bytes = test::bytes_of(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg" / name);
    dumps.push_back(dump_jpeg_decode_stages(open_device("cpu"), bytes.data(), bytes.size()));
  }
  return dumps;
}

}  // namespace

TEST_CASE("debug: a JPEG decode's stages are equal on every device, the image the decoder's") {
  auto cpu = open_device("cpu");
  const auto files = jpeg_files();
  REQUIRE(files.size() >= 4);
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    auto shared = test::borrowed(device);
    JpegDecoder decoder(shared);
    for (const fs::path& f : files) {
      INFO(device.info().spec << " " << f.filename().string());
      const auto bytes = test::bytes_of(f);
      StageDump got;
      try {
        got = dump_jpeg_decode_stages(shared, bytes.data(), bytes.size());
      } catch (const Error& e) {  // (lossless and damaged files: the decoder says the same)
        CHECK_THROWS(decoder.decode(bytes));
        continue;
      }
      REQUIRE(got.stages.size() == 4);
      CHECK(got.stages[0].name == "job");
      CHECK(got.stages[1].name == "coefficients");
      CHECK(got.stages[2].name == "planes");
      CHECK(got.stages[3].name == "image");
      const Image want = decoder.decode(bytes);
      CHECK(got.stages[3].bytes == want.pixels);
      CHECK(got.stages[3].shape ==
            std::vector<std::uint64_t>{std::uint64_t(want.height), std::uint64_t(want.width),
                                       std::uint64_t(want.channels())});
      const StageDump ref = dump_jpeg_decode_stages(cpu, bytes.data(), bytes.size());
      const auto d = first_difference(ref, got);
      CHECK_MESSAGE(!d, (d ? d->stage + ": " + d->where : ""));
    }
  });
}

TEST_CASE("debug: first_difference names the stage, the element and both values") {
  auto cpu = open_device("cpu");
  const auto bytes = test::bytes_of(fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg/testorig.jpg");
  const StageDump a = dump_jpeg_decode_stages(cpu, bytes.data(), bytes.size());
  CHECK(!first_difference(a, a));
  // Coefficient 9 (row 1, column 1) of block 2 of the job: component 0, block (2, 0).
  StageDump b = a;
  auto* coef = reinterpret_cast<std::int16_t*>(b.stages[1].bytes.data());
  coef[2 * 64 + 9] += 5;
  auto d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->stage == "coefficients");
  CHECK(d->byte_offset == (2 * 64 + 9) * 2);
  CHECK(d->differing_bytes >= 1);
  CHECK(d->where.find("component 0, block (2, 0)") != std::string::npos);
  CHECK(d->where.find("coefficient 9 (row 1, column 1)") != std::string::npos);
  CHECK(std::stoi(d->value_b) == std::stoi(d->value_a) + 5);
  // A pixel of the image only: the stages before are equal, the pixel and channel named.
  b = a;
  const std::uint64_t w = a.stages[3].shape[1], c = a.stages[3].shape[2];
  b.stages[3].bytes[(7 * w + 5) * c + 1] ^= 1;
  d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->stage == "image");
  CHECK(d->where == "pixel (5, 7), channel 1");
  // A shorter buffer is a difference of sizes; another pipeline's dump is refused.
  b = a;
  b.stages[2].bytes.pop_back();
  d = first_difference(a, b);
  REQUIRE(d);
  CHECK(d->stage == "planes");
  CHECK(d->where.find("sizes") != std::string::npos);
  b = a;
  b.pipeline = "png-decode";
  CHECK_THROWS_AS(first_difference(a, b), Error);
}

TEST_CASE("cli: debug compare names the stage and block of a wrong IDCT, and keeps the dumps") {
  std::string other;
  for (const auto& d : test::cli_devices())
    if (d.kind != DeviceKind::Cpu && !d.is_emulator) other = d.spec;
  if (other.empty()) {
    MESSAGE("no device besides the CPU reference: debug compare left untested");
    return;
  }
  test::Scratch s("debug-compare");
  const fs::path file = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg/testorig.jpg";
  const test::Run clean = test::cli(s.dir, "debug compare '" + file.string() + "' -d cpu -d " +
                                               other + " --dump dumps");
  INFO(clean.log);
  CHECK(clean.status == 0);
  CHECK(clean.says("every stage equal"));
  for (const std::string dev : {std::string("cpu"), other}) {
    std::string name = dev;
    for (char& ch : name)
      if (ch == ':') ch = '-';
    const fs::path at = s.dir / "dumps" / name;
    const auto manifest = nlohmann::json::parse(test::bytes_of(at / "manifest.json"));
    CHECK(manifest["pipeline"] == "jpeg-decode");
    CHECK(manifest["device"] == dev);
    REQUIRE(manifest["stages"].size() == 4);
    for (const auto& st : manifest["stages"])
      CHECK(fs::file_size(at / st["file"].get<std::string>()) == st["bytes"].get<std::size_t>());
  }
  // The CPU reference's IDCT made wrong at block 70 of the job (component 0, the 71st block in
  // raster order; testorig.jpg's luma grid, 227 pixels in MCUs of 16, is 30 blocks wide: block
  // (10, 2), samples from (80, 16)). Its other stages, and the other blocks, are right.
  const test::Run wrong =
      test::cli(s.dir, "debug compare '" + file.string() + "' -d cpu -d " + other,
                "HETCODEC_TEST_WRONG_IDCT_BLOCK=70");
  INFO(wrong.log);
  CHECK(wrong.status == 1);
  CHECK(wrong.says("first difference in stage planes"));
  CHECK(wrong.says("component 0, sample (80, 16), in block (10, 2)"));
  CHECK(wrong.says("(1 byte of it differs)"));
  CHECK(wrong.says("stage coefficients: equal"));
}

TEST_CASE("debug: a JPEG encode's stages are equal on every device, its file libjpeg-turbo's") {
  const test::Raster rgb = test::synthetic_rgb(97, 61, 3);
  Image image;
  image.width = rgb.width;
  image.height = rgb.height;
  image.format = PixelFormat::RGB;
  image.pixels = rgb.samples;
  JpegEncodeOptions o;
  o.quality = 85;
  o.restart_interval = 2;
  test::EncodeParams p;
  p.quality = 85;
  p.h[0] = p.v[0] = 2;  // (the options' default sampling, 4:2:0)
  p.restart_blocks = 2;
  const auto want = test::libjpeg_encode_ex(rgb, p);
  const StageDump cpu = dump_jpeg_encode_stages(open_device("cpu"), image, o);
  std::vector<std::string> names;
  for (const StageBuffer& st : cpu.stages) names.push_back(st.name);
  CHECK(names == std::vector<std::string>{"pixels", "plan", "blocks", "positions", "packed",
                                          "stuffing", "file"});
  CHECK(cpu.stages.back().bytes == want);
  CHECK(cpu.stages[0].bytes == image.pixels);
  // The packed bytes are the file's entropy-coded data without its stuffing and markers: as
  // many as the last position says, and the file holds them and more.
  std::uint32_t total = 0;
  std::memcpy(&total, cpu.stages[3].bytes.data() + cpu.stages[3].bytes.size() - 4, 4);
  CHECK(cpu.stages[4].bytes.size() == total / 8);
  CHECK(cpu.stages[4].bytes.size() < want.size());
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;
    const StageDump got = dump_jpeg_encode_stages(test::borrowed(device), image, o);
    const auto d = first_difference(cpu, got);
    CHECK_MESSAGE(!d, (d ? d->stage + ": " + d->where : ""));
  });
  // A coefficient of one block, and a packed byte, located in the encoder's terms.
  StageDump b = cpu;
  reinterpret_cast<std::int16_t*>(b.stages[2].bytes.data())[5 * 64 + 3] += 1;
  auto d = first_difference(cpu, b);
  REQUIRE(d);
  CHECK(d->stage == "blocks");
  CHECK(d->where == "block 5 (coding order), coefficient 3 of zigzag order");
  b = cpu;
  b.stages[4].bytes[10] ^= 0x40;
  d = first_difference(cpu, b);
  REQUIRE(d);
  CHECK(d->stage == "packed");
  CHECK(d->where == "packed byte 10 (bits 80..87)");
  // Every device stage replays from the dump's samples and plan to the dump's bytes; a changed
  // sample changes the blocks of its MCU only.
  const std::vector<std::string> replayed = {"blocks", "positions", "packed", "stuffing"};
  CHECK(replayable_stages(cpu) == replayed);
  test::for_each_device([&](Device& device) {
    // (Oclgrind: in the emulator-debug test's process, as test_debug_pipelines.cpp says)
    if (device.info().is_emulator && !std::getenv("HETCODEC_TEST_DEBUG_ALONE")) return;
    auto shared = test::borrowed(device);
    for (std::size_t i = 0; i < replayed.size(); ++i) {
      INFO(device.info().spec << " " << replayed[i]);
      CHECK(replay_stage(shared, cpu, replayed[i]).bytes == cpu.stages[2 + i].bytes);
    }
  });
  b = cpu;
  b.stages[0].bytes[(3 * 97 + 40) * 3] ^= 0x80;  // pixel (40, 3): MCU 2 of the first row
  d = stage_difference(b, replay_stage(open_device("cpu"), b, "blocks"));
  REQUIRE(d);
  // (MCU 2's blocks are coded blocks 12 to 17: its four luma blocks, then Cb and Cr; x 40 is
  // in its second luma block)
  CHECK(d->where.rfind("block 13 (coding order)", 0) == 0);
  CHECK_THROWS_AS(replay_stage(open_device("cpu"), cpu, "file"), Error);
  o.optimize = true;
  CHECK_THROWS_AS(replay_stage(open_device("cpu"),
                               dump_jpeg_encode_stages(open_device("cpu"), image, o), "blocks"),
                  Error);
}

TEST_CASE("debug: every stage of a CPU dump replays alone to the same bytes on every device") {
  auto cpu = open_device("cpu");
  const std::vector<StageDump> dumps = cpu_jpeg_dumps();
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator) return;  // (below, through the tool)
    auto shared = test::borrowed(device);
    for (const StageDump& dump : dumps) {
      const auto stages = replayable_stages(dump);
      CHECK(stages == std::vector<std::string>{"coefficients", "planes", "image"});
      for (const std::string& stage : stages) {
        INFO(device.info().spec << " " << stage);
        const StageBuffer again = replay_stage(shared, dump, stage);
        for (const StageBuffer& st : dump.stages)
          if (st.name == stage) CHECK(again.bytes == st.bytes);
      }
    }
  });
  // A stage replayed from a changed input differs where the input does; the host's stage, an
  // unknown one and parameters that are not the job's are refused.
  StageDump changed = dumps[0];
  reinterpret_cast<std::int16_t*>(changed.stages[1].bytes.data())[2 * 64] += 40;
  const StageBuffer planes = replay_stage(cpu, changed, "planes");
  CHECK(planes.bytes != changed.stages[2].bytes);
  CHECK_THROWS_AS(replay_stage(cpu, dumps[0], "job"), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dumps[0], "pixels"), Error);
  StageDump wrong = dumps[0];
  for (auto& [key, value] : wrong.parameters)
    if (key == "groups") value += 1;
  CHECK_THROWS_AS(replay_stage(cpu, wrong, "planes"), Error);
}

TEST_CASE("debug: a JPEG decode replays on a range of blocks and a band of rows") {
  auto cpu = open_device("cpu");
  // testorig.jpg (227x149, 4:2:0): component 0's 30x20 blocks in groups 0..9 (blocks 600..639
  // pad its last group), 1024 blocks in all; monkey12.jpg has 12-bit samples.
  const std::vector<StageDump> dumps = cpu_jpeg_dumps();
  const StageDump& dump = dumps[0];
  CHECK(crop_unit(dump, "coefficients") == "blocks");
  CHECK(crop_unit(dump, "planes") == "blocks");
  CHECK(crop_unit(dump, "image") == "rows");
  CHECK(crop_unit(dump, "job").empty());
  CHECK(crop_replayable(dump, "planes"));
  auto stage = [](const StageDump& d, const std::string& name) -> const StageBuffer& {
    for (const StageBuffer& s : d.stages)
      if (s.name == name) return s;
    throw Error(ErrorCode::InvalidArgument, "no stage " + name);
  };
  test::for_each_device([&](Device& device) {
    if (device.info().is_emulator && !std::getenv("HETCODEC_TEST_DEBUG_ALONE")) return;
    auto shared = test::borrowed(device);
    for (const StageDump& d : dumps) {
      const std::uint64_t blocks = stage(d, "coefficients").shape.at(0);
      const std::uint64_t height = stage(d, "image").shape.at(0);
      for (const ReplayCrop crop : {ReplayCrop{0, 0, 0, 1}, ReplayCrop{0, 0, 60, 8},
                                    ReplayCrop{0, 0, 595, 10}, ReplayCrop{0, 0, blocks - 1, 1}}) {
        INFO(device.info().spec << " blocks " << crop.first_block << "+" << crop.blocks);
        for (const char* name : {"coefficients", "planes"})
          CHECK(replay_stage(shared, d, name, crop).bytes == stage(d, name).bytes);
      }
      for (const ReplayCrop crop :
           {ReplayCrop{0, 1}, ReplayCrop{5, 7}, ReplayCrop{height - 1, 1}}) {
        INFO(device.info().spec << " rows " << crop.first_row << "+" << crop.rows);
        CHECK(replay_stage(shared, d, "image", crop).bytes == stage(d, "image").bytes);
      }
    }
  });
  // A stage of the dump made wrong at block 70 (component 0's block (10, 2)): a crop that holds
  // it makes the block again and differs there; one without it is equal.
  auto changed = [&](const char* name, std::size_t byte) {
    StageDump c = dump;
    for (StageBuffer& s : c.stages)
      if (s.name == name) s.bytes.at(byte) ^= 0x01;
    return c;
  };
  const StageDump coefficients = changed("coefficients", 70 * 128);
  // (the token decode runs all of group 1, block 70's group: only the blocks asked for are kept)
  for (const ReplayCrop crop :
       {ReplayCrop{0, 0, 0, 64}, ReplayCrop{0, 0, 64, 6}, ReplayCrop{0, 0, 71, 5}})
    CHECK(!stage_difference(coefficients, replay_stage(cpu, coefficients, "coefficients", crop)));
  auto d = stage_difference(
      coefficients, replay_stage(cpu, coefficients, "coefficients", ReplayCrop{0, 0, 68, 3}));
  REQUIRE(d);
  CHECK(d->where.rfind("component 0, block (10, 2) [block 70 of the job, group 1]", 0) == 0);
  CHECK(d->differing_bytes == 1);
  const std::size_t stride = 30 * 8;  // (component 0's plane: 30 blocks of 8 samples a row)
  const StageDump planes = changed("planes", 16 * stride + 80 + 3 * stride);
  CHECK(!stage_difference(planes, replay_stage(cpu, planes, "planes", ReplayCrop{0, 0, 71, 100})));
  d = stage_difference(planes, replay_stage(cpu, planes, "planes", ReplayCrop{0, 0, 70, 1}));
  REQUIRE(d);
  CHECK(d->where.rfind("component 0, sample (80, 19), in block (10, 2)", 0) == 0);
  // The last block with samples (component 2's 150th, block 981) replays too.
  CHECK(replay_stage(cpu, dump, "planes", ReplayCrop{0, 0, 981, 1}).bytes ==
        stage(dump, "planes").bytes);
  // 12-bit samples are two bytes: the second byte of sample (8, 0), in block (1, 0) of
  // component 0, is made again by a crop of block 1, not of block 0.
  StageDump twelve = dumps[1];
  for (StageBuffer& s : twelve.stages)
    if (s.name == "planes") s.bytes.at(17) ^= 0x01;
  CHECK(!stage_difference(twelve, replay_stage(cpu, twelve, "planes", ReplayCrop{0, 0, 0, 1})));
  d = stage_difference(twelve, replay_stage(cpu, twelve, "planes", ReplayCrop{0, 0, 1, 1}));
  REQUIRE(d);
  CHECK(d->where.rfind("component 0, sample (8, 0), in block (1, 0)", 0) == 0);
  const StageDump image = changed("image", 10 * 227 * 3 + 5);
  CHECK(!stage_difference(image, replay_stage(cpu, image, "image", ReplayCrop{0, 10})));
  d = stage_difference(image, replay_stage(cpu, image, "image", ReplayCrop{9, 3}));
  REQUIRE(d);
  CHECK(d->where == "pixel (1, 10), channel 2");
  // A component record edited to lie past the planes is refused before any kernel runs.
  StageDump edited = dump;
  for (StageBuffer& s : edited.stages)
    if (s.name == "job") {
      hc_jpeg_job h;
      std::memcpy(&h, s.bytes.data(), sizeof h);
      h.component[1].plane_offset += 1u << 20;
      std::memcpy(s.bytes.data(), &h, sizeof h);
    }
  CHECK_THROWS_AS(replay_stage(cpu, edited, "planes"), Error);
  CHECK_THROWS_AS(replay_stage(cpu, edited, "image", ReplayCrop{0, 4}), Error);
  // Crops of the other kind, or past the job or the image, are refused.
  CHECK_THROWS_AS(replay_stage(cpu, dump, "image", ReplayCrop{0, 0, 0, 4}), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dump, "planes", ReplayCrop{0, 4}), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dump, "planes", ReplayCrop{0, 0, 1020, 5}), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dump, "coefficients", ReplayCrop{0, 0, ~0ull, 2}), Error);
  CHECK_THROWS_AS(replay_stage(cpu, dump, "image", ReplayCrop{140, 10}), Error);
}

TEST_CASE("debug: Oclgrind's reports summed up with their kernel and source line") {
  const std::string log =
      "Write-write data race at global memory address 0x3000000000000\n"
      "\tKernel: jpeg_idct\n\t\n"
      "\tFirst entity:  Global(129,0,0) Local(1,0,0) Group(1,0,0)\n"
      "\t  store i8 %conv5, i8 addrspace(1)* %planes, align 1\n"
      "\tAt line 29 (column 50) of kernels_cl/jpeg_decode.cl:\n\t  (source not available)\n\t\n"
      "\tSecond entity: Global(128,0,0) Local(0,0,0) Group(1,0,0)\n"
      "\tAt line 29 (column 50) of kernels_cl/jpeg_decode.cl:\n\n"
      "Write-write data race at global memory address 0x3000000000001\n"
      "\tKernel: jpeg_idct\n"
      "\tFirst entity:  Global(130,0,0) Local(2,0,0) Group(1,0,0)\n"
      "\tAt line 29 (column 50) of kernels_cl/jpeg_decode.cl:\n\n"
      "Uninitialized value written to global memory address 0x70000000008f0\n"
      "\tKernel: jpeg_encode_pack\n"
      "\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
      "\tAt line 3 (column 7) of core/portable/no_such_file.h:\n";
  const auto r = summarise_emulator_log(log);
  REQUIRE(r.size() == 2);
  CHECK(r[0].message == "Write-write data race at global memory");
  CHECK(r[0].kernel == "jpeg_idct");
  CHECK(r[0].entity == "Global(129,0,0) Local(1,0,0) Group(1,0,0)");
  CHECK(r[0].location == "kernels_cl/jpeg_decode.cl:29");
  CHECK(r[0].count == 2);
  CHECK(r[1].message == "Uninitialized value written to global memory");
  CHECK(r[1].kernel == "jpeg_encode_pack");
  CHECK(r[1].count == 1);
  CHECK(r[1].source.empty());  // (no such file in the kernels)
#if defined(HETCODEC_TEST_HAVE_OPENCL)
  CHECK(r[0].source.find("__kernel void jpeg_idct") == 0);  // line 29 of jpeg_decode.cl
#endif
  CHECK(summarise_emulator_log("").empty());
}

TEST_CASE("cli: debug replay of a dump is clean under Oclgrind, and finds a racy kernel's race") {
  test::Scratch s("debug-replay");
  if (test::cli(s.dir, "-d opencl:oclgrind devices").status != 0) {
    MESSAGE("no Oclgrind: debug replay under the emulator left untested");
    return;
  }
  const fs::path file = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg/monkey12.jpg";
  const test::Run dumped =
      test::cli(s.dir, "debug compare '" + file.string() + "' -d cpu -d cpu --dump dumps");
  INFO(dumped.log);
  REQUIRE(dumped.status == 0);
  // (the test main's Oclgrind log is the tool's own here: OCLGRIND_LOG left empty)
  const test::Run clean =
      test::cli(s.dir, "-d opencl:oclgrind debug replay dumps/cpu --stage planes --stage image",
                "OCLGRIND_LOG=");
  INFO(clean.log);
  CHECK(clean.status == 0);
  CHECK(clean.says("stage planes: equal to the dump's (cpu)"));
  CHECK(clean.says("stage image: equal to the dump's (cpu)"));
  CHECK(clean.says("Oclgrind: no reports"));
  // The test-only race (HETCODEC_TEST_OPENCL_RACE=1: every work-item of jpeg_idct also writes
  // the first sample) is reported with its kernel, a work-item and its line.
  const test::Run racy =
      test::cli(s.dir, "-d opencl:oclgrind debug replay dumps/cpu --stage planes",
                "OCLGRIND_LOG= HETCODEC_TEST_OPENCL_RACE=1");
  INFO(racy.log);
  CHECK(racy.status == 1);
  CHECK(racy.says("Oclgrind: Write-write data race"));
  CHECK(racy.says("kernel jpeg_idct, Global("));
  CHECK(racy.says("at kernels_cl/jpeg_decode.cl:"));
  CHECK(racy.says("planes[0] = (uchar)get_global_id(0);"));
  // A folder without a dump, and a stage the dump lacks, are errors (status 2).
  CHECK(test::cli(s.dir, "debug replay nowhere").status == 2);
  CHECK(test::cli(s.dir, "-d cpu debug replay dumps/cpu --stage pixels").status == 2);
}

TEST_CASE("cli: debug compare finds the pipeline from the file; replay takes a band of rows") {
  test::Scratch s("debug-pipelines");
  const fs::path png = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/pngsuite/basn2c08.png";
  const fs::path ljpeg = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/ljpeg/ff-bgr24-pred3-17x5.jpg";
  test::Run r = test::cli(s.dir, "debug compare '" + png.string() + "' -d cpu -d cpu --dump png");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("every stage equal on cpu and cpu (job, inflated, defiltered, image)"));
  const auto manifest = nlohmann::json::parse(test::bytes_of(s.dir / "png/cpu/manifest.json"));
  CHECK(manifest["pipeline"] == "png-decode");
  CHECK(manifest["parameters"]["interlace"] == 0);
  r = test::cli(s.dir, "debug compare '" + ljpeg.string() + "' -d cpu -d cpu");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("(file, job, residuals, row-status, samples, image)"));
  r = test::cli(s.dir, "debug compare '" + png.string() + "' --pipeline png-encode -d cpu -d cpu");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("(samples, filtered, plan, symbols, blocks, deflate, crcs, file)"));
  r = test::cli(s.dir, "debug compare --pipeline mandelbrot --size 40x30 -d cpu -d cpu --dump m");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("mandelbrot: every stage equal on cpu and cpu (output)"));
  // Rows 5 to 9 of the de-filter and the unpack, alone; a row of the inflated rows changed in
  // the dump shows in the band that holds it.
  r = test::cli(s.dir, "-d cpu debug replay png/cpu --rows 5-9");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("stage defiltered rows 5-9: equal to the dump's (cpu) on cpu"));
  CHECK(r.says("stage image rows 5-9: equal to the dump's (cpu) on cpu"));
  {
    std::vector<std::uint8_t> rows = test::bytes_of(s.dir / "png/cpu/inflated.bin");
    rows[7 * 97 + 1 + 10] ^= 0x10;
    std::FILE* f = std::fopen((s.dir / "png/cpu/inflated.bin").string().c_str(), "wb");
    REQUIRE(f);
    std::fwrite(rows.data(), 1, rows.size(), f);
    std::fclose(f);
  }
  r = test::cli(s.dir, "-d cpu debug replay png/cpu --stage defiltered --rows 0-6");
  INFO(r.log);
  CHECK(r.status == 0);
  r = test::cli(s.dir, "-d cpu debug replay png/cpu --stage defiltered --rows 6-8");
  INFO(r.log);
  CHECK(r.status == 1);
  CHECK(r.says("stage defiltered rows 6-8: differs from the dump's"));
  CHECK(r.says("row 7, byte 10 "));
  // A JPEG decode dumped with the CPU reference's IDCT made wrong at block 70 (component 0's
  // block (10, 2)), replayed on blocks with the right one: the blocks that hold 70 differ there.
  const fs::path jpeg = fs::path(HETCODEC_TEST_SOURCE_DIR) / "data/jpeg/testorig.jpg";
  r = test::cli(s.dir, "debug compare '" + jpeg.string() + "' -d cpu -d cpu --dump j",
                "HETCODEC_TEST_WRONG_IDCT_BLOCK=70");
  INFO(r.log);
  CHECK(r.status == 0);
  r = test::cli(s.dir, "-d cpu debug replay j/cpu --blocks 64-79 --rows 0-7");
  INFO(r.log);
  CHECK(r.status == 1);
  CHECK(r.says("stage coefficients blocks 64-79: equal to the dump's (cpu) on cpu"));
  CHECK(r.says("stage planes blocks 64-79: differs from the dump's (1 byte)"));
  CHECK(r.says("component 0, sample (80, 16), in block (10, 2)"));
  CHECK(r.says("stage image rows 0-7: equal to the dump's (cpu) on cpu"));
  r = test::cli(s.dir, "-d cpu debug replay j/cpu --blocks 0-69");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("stage planes blocks 0-69: equal"));
  CHECK(test::cli(s.dir, "-d cpu debug replay j/cpu --stage image --blocks 0-3").status == 2);
  CHECK(test::cli(s.dir, "-d cpu debug replay j/cpu --blocks 1000-1030").status == 2);
  // The help says replay's own exit statuses, not the decoding commands'.
  r = test::cli(s.dir, "debug replay --help");
  CHECK(r.status == 0);
  CHECK(r.says("Exit status: 0 when every stage is equal"));
  CHECK_FALSE(r.says("as djpeg's"));
  // Crops the stage cannot take, bad bands, a generator given a file: status 2.
  CHECK(test::cli(s.dir, "-d cpu debug replay m/cpu --rows 0-3").status == 2);
  CHECK(test::cli(s.dir, "-d cpu debug replay png/cpu --rows 9-5").status == 2);
  CHECK(test::cli(s.dir, "-d cpu debug replay png/cpu --rows 30-40").status == 2);
  CHECK(test::cli(s.dir, "debug compare '" + png.string() + "' --pipeline perlin").status == 2);
  if (test::cli(s.dir, "-d opencl:oclgrind devices").status != 0) return;
  r = test::cli(s.dir, "-d opencl:oclgrind debug replay m/cpu", "OCLGRIND_LOG=");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("Oclgrind: no reports"));
  r = test::cli(s.dir, "-d opencl:oclgrind debug replay j/cpu --blocks 0-69 --rows 0-3",
                "OCLGRIND_LOG=");
  INFO(r.log);
  CHECK(r.status == 0);
  CHECK(r.says("stage planes blocks 0-69: equal to the dump's (cpu) on opencl:"));
  CHECK(r.says("Oclgrind: no reports"));
}

}  // namespace hetcodec
