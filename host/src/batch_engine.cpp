// The batch engine (batch_engine.h): the pinned pool, device slots, and the scheduling of a
// batch. Every thread (the calling one included) prepares inputs, a bounded window ahead of the
// device; the thread that has just completed a chunk also feeds the device, in input order, with
// whatever chunks are complete, unless another thread is feeding (the feeder's lock is only
// tried, never waited for). So every core does host-stage work, and no thread has to be woken
// to enqueue a chunk.
#include "host/src/batch_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>

namespace hetcodec::detail {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::size_t grown(const Device& device, std::size_t n) {
  return within_alloc(device, std::max<std::size_t>(n + n / 4, 4096), n);
}

}  // namespace

std::size_t within_alloc(const Device& device, std::size_t want, std::size_t need) {
  const std::uint64_t limit = device.info().max_alloc_bytes;
  if (limit && want > limit) want = std::size_t(limit);
  return std::max(want, need);
}

std::unique_ptr<PinnedBuffer> PinnedPool::take(std::size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(m_);
    std::size_t best = buffers_.size();
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (buffers_[i]->size() >= bytes &&
          (best == buffers_.size() || buffers_[i]->size() < buffers_[best]->size()))
        best = i;
    if (best < buffers_.size()) {
      std::unique_ptr<PinnedBuffer> b = std::move(buffers_[best]);
      buffers_[best] = std::move(buffers_.back());
      buffers_.pop_back();
      return b;
    }
  }
  return device_.alloc_pinned(
      within_alloc(device_, std::max<std::size_t>(bytes + bytes / 2, std::size_t(1) << 18), bytes));
}

void PinnedPool::give(std::unique_ptr<PinnedBuffer>&& buffer) {
  if (!buffer) return;
  std::lock_guard<std::mutex> lock(m_);
  buffers_.push_back(std::move(buffer));
}

std::size_t PinnedPool::arena_hint() {
  std::lock_guard<std::mutex> lock(m_);
  return arena_hint_;
}

void PinnedPool::note_arena(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(m_);
  arena_hint_ = std::max(arena_hint_, bytes);
}

void ensure(Device& device, std::unique_ptr<DeviceBuffer>& b, std::size_t n) {
  if (!b || b->size() < n) {
    b.reset();
    b = device.alloc(grown(device, n));
  }
}

void ensure(Device& device, std::unique_ptr<PinnedBuffer>& b, std::size_t n) {
  if (!b || b->size() < n) {
    b.reset();
    b = device.alloc_pinned(grown(device, n));
  }
}

double BatchSlot::wait(PinnedPool& pool) {
  double waited = 0;
  if (done) {
    const auto t0 = Clock::now();
    done->wait();
    waited = seconds_since(t0);
    done.reset();
  }
  for (auto& b : staged) pool.give(std::move(b));
  staged.clear();
  return waited;
}

namespace {

// The state of one batch while it runs, and the steps its threads take.
class BatchRun {
 public:
  BatchRun(const BatchPlan& plan, const BatchEngine::Prepare& prepare,
           const BatchEngine::Feed& feed)
      : plan_(plan), prepare_(prepare), feed_(feed), ready_(plan.chunks(), 0) {
    // A thread takes an input only with a ticket: at most 3 x workers + 4 inputs, and a chunk,
    // are prepared and not yet fed (a chunk is fed once all its inputs are prepared).
    tickets_ = std::size_t(plan.workers) * 3 + 4 + plan.per_chunk;
    // Without a feed nothing waits for the device, and inputs need no window.
    if (!feed) tickets_ = plan.items;
  }

  // Takes inputs until none is left, feeding the chunks it completes (worker `id`).
  void work(int id);
  // Once the calling thread's own inputs are done: waits for the rest to be fed, then releases
  // the threads still waiting for a ticket.
  void finish();
  // The calling thread as the one feeder, while the workers prepare; returns once all is fed
  // or the batch stopped.
  void feed_alone();

  BatchOutcome outcome;

 private:
  bool feed_one(std::size_t c);
  bool next_ready(std::size_t& c);
  void feed_ready();

  const BatchPlan& plan_;
  const BatchEngine::Prepare& prepare_;
  const BatchEngine::Feed& feed_;
  std::vector<std::size_t> ready_;  // inputs of each chunk prepared
  std::mutex m_;                    // guards ready_, tickets_, fed_, stop_, outcome
  std::condition_variable cv_space_, cv_done_, cv_ready_;
  std::atomic<std::size_t> next_{0};
  std::size_t tickets_ = 0;
  bool stop_ = false;
  std::size_t fed_ = 0;    // chunks fed to the device, in order
  std::mutex feed_mutex_;  // held by the thread that feeds
};

// Feeds chunk c and records the outcome: the next chunk in order and tickets back, or the
// failure that stops the batch. False on failure. Called with feed_mutex_ held (or by the one
// feeder).
bool BatchRun::feed_one(std::size_t c) {
  try {
    if (feed_) feed_(c);
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (!outcome.failure) outcome.failure = std::current_exception();
      stop_ = true;
    }
    cv_space_.notify_all();
    cv_done_.notify_all();
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(m_);
    ++fed_;
    tickets_ += plan_.chunk_size(c);
    if (fed_ == plan_.chunks()) cv_done_.notify_all();
  }
  cv_space_.notify_all();
  return true;
}

// The next chunk in order when it is complete and the batch goes on; false otherwise.
bool BatchRun::next_ready(std::size_t& c) {
  std::lock_guard<std::mutex> lock(m_);
  if (stop_ || fed_ >= plan_.chunks() || ready_[fed_] < plan_.chunk_size(fed_)) return false;
  c = fed_;
  return true;
}

// Feeds every chunk that is complete in order, while this thread can take the feeder's lock.
void BatchRun::feed_ready() {
  std::size_t c;
  for (;;) {
    std::unique_lock<std::mutex> feeder(feed_mutex_, std::try_to_lock);
    if (!feeder.owns_lock()) return;  // the feeding thread will see what is ready
    while (next_ready(c))
      if (!feed_one(c)) return;
    feeder.unlock();
    // A chunk completed while this thread held the lock, whose last preparer found it taken,
    // is this thread's to feed.
    if (!next_ready(c)) return;
  }
}

void BatchRun::work(int id) {
  const std::size_t n = plan_.items;
  for (;;) {
    if (next_.load() >= n) return;  // no input left to take: no ticket to wait for
    {
      std::unique_lock<std::mutex> lock(m_);
      if (!stop_ && tickets_ == 0) {
        const auto w0 = Clock::now();
        cv_space_.wait(lock, [&] { return stop_ || tickets_ > 0; });
        outcome.wait_ticket += seconds_since(w0);
      }
      if (stop_) return;
      --tickets_;
    }
    const std::size_t i = next_.fetch_add(1);
    if (i >= n) return;
    prepare_(i, id);
    const std::size_t c = i / plan_.per_chunk;
    bool complete;
    {
      std::lock_guard<std::mutex> lock(m_);
      complete = ++ready_[c] == plan_.chunk_size(c);
    }
    if (!complete) continue;
    if (!feed_) {
      feed_one(c);  // nothing to feed: a chunk is done once prepared, in any order
    } else if (plan_.one_feeder) {
      cv_ready_.notify_one();
    } else {
      feed_ready();
    }
  }
}

void BatchRun::finish() {
  {
    const auto w0 = Clock::now();
    std::unique_lock<std::mutex> lock(m_);
    cv_done_.wait(lock, [&] { return stop_ || fed_ == plan_.chunks(); });
    outcome.wait_cpu += seconds_since(w0);
    stop_ = true;
  }
  cv_space_.notify_all();
}

void BatchRun::feed_alone() {
  const std::size_t chunks = plan_.chunks();
  for (;;) {
    std::size_t c;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_ready_.wait(
          lock, [&] { return stop_ || fed_ >= chunks || ready_[fed_] == plan_.chunk_size(fed_); });
      if (stop_ || fed_ >= chunks) return;
      c = fed_;
    }
    if (!feed_one(c)) return;
  }
}

}  // namespace

BatchOutcome BatchEngine::run(const BatchPlan& plan, const Prepare& prepare, const Feed& feed) {
  BatchRun run(plan, prepare, feed);
  if (plan.items == 0) return run.outcome;
  const int workers = std::max(1, plan.workers);
  const auto b0 = Clock::now();
  if (!plan.one_feeder) {
    // The engine's own threads (kept from batch to batch), this one as worker 0.
    pool_.run(workers, [&](int id) {
      run.work(id);
      if (id == 0) run.finish();
    });
    run.outcome.thread_seconds += double(workers) * seconds_since(b0);
  } else {
    std::vector<std::thread> extra;
    for (int t = 1; t < workers; ++t) extra.emplace_back([&run, t] { run.work(t); });
    if (workers == 1) extra.emplace_back([&run] { run.work(0); });
    run.feed_alone();
    run.finish();
    for (auto& t : extra) t.join();
  }
  return run.outcome;
}

}  // namespace hetcodec::detail
