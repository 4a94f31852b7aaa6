// What a benchmark was asked to measure and could not. Each bench records a failure where it
// happens, goes on with the other devices and peers (one failing device does not lose the
// others' figures), and at the end fails with every failure named, so that a bench never
// exits 0 with a figure missing.
#ifndef HETCODEC_TOOLS_BENCH_FAILURES_H
#define HETCODEC_TOOLS_BENCH_FAILURES_H

#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"

namespace hetcodec::tools {

class BenchFailures {
 public:
  explicit BenchFailures(std::string bench) : bench_(std::move(bench)) {}
  // `what` could not be measured because of `e`; said on stderr now, and again at the end.
  void add(const std::string& what, const Error& e) {
    if (items_.empty()) code_ = e.code();
    add(what, std::string(to_string(e.code())) + ": " + e.what());
  }
  void add(const std::string& what, const std::string& why) {
    std::fprintf(stderr, "%s: %s: not measured: %s\n", bench_.c_str(), what.c_str(), why.c_str());
    items_.push_back(what + ": " + why);
  }
  bool empty() const { return items_.empty(); }
  // Takes over another list's failures (already said on stderr).
  void merge(const BenchFailures& other) {
    if (items_.empty() && !other.items_.empty()) code_ = other.code_;
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
  }
  // An Error listing every failure, when there was one, with the first one's code.
  void throw_if_any() const {
    if (items_.empty()) return;
    std::string text = bench_ + ": " + std::to_string(items_.size()) +
                       (items_.size() == 1 ? " measurement" : " measurements") + " failed";
    for (const auto& i : items_) text += "\n  " + i;
    throw Error(code_, text);
  }

 private:
  std::string bench_;
  std::vector<std::string> items_;
  ErrorCode code_ = ErrorCode::DeviceError;
};

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_BENCH_FAILURES_H
