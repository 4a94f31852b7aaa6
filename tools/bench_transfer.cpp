// `hetcodec bench transfer`: host->device and device->host bandwidth, pageable and pinned
// memory, on each selected device (DESIGN.md §7). Pinned means the backend's PinnedBuffer:
// cudaHostAlloc on CUDA, a mapped CL_MEM_ALLOC_HOST_PTR buffer on OpenCL. Each figure is the
// median of repeated transfers timed on the host clock around a complete (synchronised)
// transfer, so it is what a caller sees, launch overhead included. Then what enqueueing one
// copy, launch or event costs the calling thread, per device.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "tools/bench_failures.h"
#include "tools/bench_time.h"
#include "tools/cli.h"

namespace hetcodec::tools {
namespace {

struct TransferOptions {
  std::vector<std::size_t> sizes_mib{1, 16, 256};
  double min_seconds = 0.3;
  std::string json_path;
};

nlohmann::json bench_device(const DeviceInfo& info, const TransferOptions& opt) {
  auto device = open_device(info.spec);
  auto queue = device->create_queue();
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t mib : opt.sizes_mib) {
    const std::size_t n = mib << 20;
    std::fprintf(stderr, "[bench transfer] %s: %zu MiB ...\n", info.spec.c_str(), mib);
    auto dbuf = device->alloc(n);
    std::vector<std::uint8_t> pageable(n);
    auto pinned = device->alloc_pinned(n);
    for (std::size_t i = 0; i < n; ++i) pageable[i] = static_cast<std::uint8_t>(i * 131 + 7);
    std::memcpy(pinned->data(), pageable.data(), n);

    // Correctness first: a figure for a transfer that moved the wrong bytes means nothing.
    queue->write(*dbuf, 0, *pinned, 0, n);
    queue->finish();
    std::vector<std::uint8_t> back(n);
    queue->read(back.data(), *dbuf, 0, n);
    if (back != pageable) {
      throw Error(ErrorCode::DeviceError, info.spec + ": transferred bytes differ from the source");
    }

    auto gbs = [n](double s) { return double(n) / s / 1e9; };
    double h2d_pageable =
        gbs(median_seconds([&] { queue->write(*dbuf, 0, pageable.data(), n); }, opt.min_seconds));
    double h2d_pinned = gbs(median_seconds(
        [&] {
          queue->write(*dbuf, 0, *pinned, 0, n);
          queue->finish();
        },
        opt.min_seconds));
    double d2h_pageable =
        gbs(median_seconds([&] { queue->read(pageable.data(), *dbuf, 0, n); }, opt.min_seconds));
    double d2h_pinned = gbs(median_seconds(
        [&] {
          queue->read(*pinned, 0, *dbuf, 0, n);
          queue->finish();
        },
        opt.min_seconds));
    // The first copy into a buffer not used before: a driver may give a buffer its memory only
    // then (NVIDIA's OpenCL does, CUDA at allocation), which a pipeline pays once per buffer.
    std::vector<double> first;
    for (int i = 0; i < 3; ++i) {
      auto fresh = device->alloc(n);
      const auto t0 = std::chrono::steady_clock::now();
      queue->write(*fresh, 0, *pinned, 0, n);
      queue->finish();
      first.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(first.begin(), first.end());
    const double h2d_pinned_first_use = gbs(first[1]);
    rows.push_back({{"device", info.spec},
                    {"name", info.name},
                    {"platform", info.platform},
                    {"size_mib", mib},
                    {"h2d_pageable_gbs", h2d_pageable},
                    {"h2d_pinned_gbs", h2d_pinned},
                    {"d2h_pageable_gbs", d2h_pageable},
                    {"d2h_pinned_gbs", d2h_pinned},
                    {"h2d_pinned_first_use_gbs", h2d_pinned_first_use}});
  }
  return rows;
}

// What enqueueing one command costs the calling thread (the device's time is not counted): a
// pipeline that feeds the device from a CPU thread pays it per copy, launch and event. Median
// over rounds of kCalls calls, each round followed by a finish().
nlohmann::json bench_calls(const DeviceInfo& info, double min_seconds) {
  auto device = open_device(info.spec);
  auto queue = device->create_queue();
  constexpr std::uint32_t kPixels = 4096;
  constexpr int kCalls = 500;
  auto ycc = device->alloc(3 * kPixels), rgb = device->alloc(3 * kPixels);
  auto small = device->alloc(4096);
  auto pinned = device->alloc_pinned(4096);
  JpegKernels& k = device->jpeg();
  std::vector<std::unique_ptr<Event>> events;
  events.reserve(kCalls);
  auto per_call = [&](const std::function<void()>& call) {
    auto round = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i) call();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      queue->finish();
      events.clear();
      return s;
    };
    return median_of(round, min_seconds, 100) / kCalls * 1e6;
  };
  std::fprintf(stderr, "[bench transfer] %s: cost of a call ...\n", info.spec.c_str());
  const double write_us = per_call([&] { queue->write(*small, 0, *pinned, 0, 4096); });
  const double launch_us = per_call([&] { k.ycc_to_rgb(*queue, *ycc, *rgb, kPixels); });
  const double record_us = per_call([&] { events.push_back(queue->record()); });
  return {{"device", info.spec},
          {"name", info.name},
          {"enqueue_pinned_write_4kib_us", write_us},
          {"enqueue_kernel_launch_us", launch_us},
          {"record_event_us", record_us}};
}

void print_table(const nlohmann::json& results) {
  double best_h2d = 0;
  for (const auto& r : results) {
    best_h2d = std::max(
        {best_h2d, r["h2d_pinned_gbs"].get<double>(), r["h2d_pageable_gbs"].get<double>()});
  }
  std::printf("\n%-10s %-36s %8s | %9s %9s %7s %8s | %9s %9s %7s\n", "device", "name", "size",
              "H2D page", "H2D pin", "pin/pg", "of best", "D2H page", "D2H pin", "pin/pg");
  for (const auto& r : results) {
    double hp = r["h2d_pageable_gbs"], hn = r["h2d_pinned_gbs"];
    double dp = r["d2h_pageable_gbs"], dn = r["d2h_pinned_gbs"];
    std::printf(
        "%-10s %-36s %4zu MiB | %9.2f %9.2f %6.2fx %7.1f%% | %9.2f %9.2f %6.2fx\n",
        r["device"].get<std::string>().c_str(), r["name"].get<std::string>().substr(0, 36).c_str(),
        r["size_mib"].get<std::size_t>(), hp, hn, hn / hp, 100.0 * hn / best_h2d, dp, dn, dn / dp);
  }
  std::printf(
      "GB/s = 1e9 bytes/s, median of repeated complete transfers. \"of best\": pinned H2D as a "
      "share of the best H2D rate measured in this run (%.2f GB/s).\n",
      best_h2d);
  std::printf("\npinned H2D into a buffer on its first use (GB/s):\n");
  for (const auto& r : results)
    std::printf("%-10s %4zu MiB %9.2f (%.2fx the time of a used buffer)\n",
                r["device"].get<std::string>().c_str(), r["size_mib"].get<std::size_t>(),
                r["h2d_pinned_first_use_gbs"].get<double>(),
                r["h2d_pinned_gbs"].get<double>() / r["h2d_pinned_first_use_gbs"].get<double>());
}

void print_calls(const nlohmann::json& calls) {
  std::printf("\n%-10s %-36s | %12s %12s %12s\n", "device", "name", "4 KiB write", "launch",
              "event");
  for (const auto& r : calls)
    std::printf("%-10s %-36s | %9.2f us %9.2f us %9.2f us\n",
                r["device"].get<std::string>().c_str(),
                r["name"].get<std::string>().substr(0, 36).c_str(),
                r["enqueue_pinned_write_4kib_us"].get<double>(),
                r["enqueue_kernel_launch_us"].get<double>(), r["record_event_us"].get<double>());
  std::printf(
      "Host time to enqueue one call (device time not counted): an asynchronous copy from pinned "
      "memory, a kernel launch (YCbCr->RGB of 4096 pixels), an event recorded; median of rounds "
      "of 500 calls.\n");
}

}  // namespace

void add_bench_command(CLI::App& app, GlobalOptions& options) {
  auto* bench =
      app.add_subcommand("bench", "measure pipelines and transfers on the selected devices");
  bench->require_subcommand(1);
  add_bench_jpeg_command(*bench, options);
  add_bench_jpeg_encode_command(*bench, options);
  add_bench_png_command(*bench, options);
  add_bench_png_decode_command(*bench, options);
  add_bench_ljpeg_command(*bench, options);
  add_bench_filters_command(*bench, options);
  auto opt = std::make_shared<TransferOptions>();
  auto* transfer = bench->add_subcommand(
      "transfer", "host<->device bandwidth, pageable and pinned, per selected device");
  transfer->add_option("--sizes", opt->sizes_mib, "transfer sizes in MiB")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  transfer->add_option("--min-time", opt->min_seconds, "seconds to repeat each measurement")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60.0));
  transfer
      ->add_option("--json", opt->json_path, "also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  transfer->callback([&options, opt] {
    nlohmann::json results = nlohmann::json::array(), calls = nlohmann::json::array();
    auto devices = selected_devices(options);
    BenchFailures failures("bench transfer");
    for (const auto& info : devices) {
      try {  // one device failing does not lose the others' figures
        for (auto& row : bench_device(info, *opt)) results.push_back(row);
        calls.push_back(bench_calls(info, opt->min_seconds));
      } catch (const Error& e) {
        failures.add(info.spec + " (" + info.name + ")", e);
      }
    }
    nlohmann::json doc = {{"benchmark", "transfer"},
                          {"version", version()},
                          {"devices", nlohmann::json::array()},
                          {"results", results},
                          {"calls", calls}};
    for (const auto& d : devices) doc["devices"].push_back(to_json(d));
    if (opt->json_path == "-") {
      std::cout << doc.dump(2) << "\n";
    } else {
      if (!results.empty()) print_table(results);
      if (!calls.empty()) print_calls(calls);
      if (!opt->json_path.empty()) {
        std::ofstream out(opt->json_path);
        out << doc.dump(2) << "\n";
        if (!out) throw Error(ErrorCode::InvalidArgument, "cannot write " + opt->json_path);
      }
    }
    failures.throw_if_any();
  });
}

}  // namespace hetcodec::tools
