// SPDX-License-Identifier: Apache-2.0
// WorkerThread: one long-lived thread that runs what it is given, one call at a time,
// and returns when the call has run -- so a test can put each step of a hand-off on
// the thread it chooses, in an order it chooses, and count that thread's mallocs.
// Long-lived on purpose: a thread that exits may leave its thread-local storage to the
// next one, and protobuf's arena would then take the two threads for one.
//
// Example:
//   WorkerThread a, b;
//   a.Run([&] { arena.get()->Reset(); });          // Reset on a
//   b.Run([&] { Build(arena.get()); });           // build on b: protobuf's trap
//
// Thread-safety: Run() from one thread at a time; it blocks until `step` has run, and
// everything `step` did happens before Run() returns.
#ifndef ARENA_GRPC_PATTERNS_TESTING_WORKER_THREAD_H_
#define ARENA_GRPC_PATTERNS_TESTING_WORKER_THREAD_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace reco::patterns::testing {

class WorkerThread {
 public:
  WorkerThread() : thread_([this] { Loop(); }) {}
  ~WorkerThread() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void Run(const std::function<void()>& step) {
    std::unique_lock<std::mutex> lock(mu_);
    step_ = &step;
    cv_.notify_all();
    cv_.wait(lock, [this] { return step_ == nullptr; });
  }

  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [this] { return stop_ || step_ != nullptr; });
      if (step_ == nullptr) return;  // stop_, and nothing left to run
      (*step_)();                    // under the lock: Run() waits for it anyway
      step_ = nullptr;
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  const std::function<void()>* step_ = nullptr;
  bool stop_ = false;
  std::thread thread_;  // last: started once the rest is built
};

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_WORKER_THREAD_H_
