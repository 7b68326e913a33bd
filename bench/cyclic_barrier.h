// CyclicBarrier: a reusable rendezvous for a fixed group of threads, so that one of
// them can do what no other may overlap with (Arena::Reset(), which is not
// thread-safe) while the rest wait.
//
// Every thread of a round calls Wait(parties) with the same `parties`; the last to
// arrive releases them all and the barrier is ready for the next round. Because the
// count is passed on each call, one barrier serves runs with 1, 2 or N threads, as
// long as runs do not overlap. The mutex gives the needed ordering: everything a
// thread did before Wait() happens-before everything any thread does after it.
//
// Example (thread 0 resets a shared arena between batches):
//   barrier.Wait(threads);                  // all threads stopped allocating
//   if (thread_index == 0) arena.Reset();
//   barrier.Wait(threads);                  // nobody allocates before the reset ends
#ifndef ARENA_GRPC_BENCH_CYCLIC_BARRIER_H_
#define ARENA_GRPC_BENCH_CYCLIC_BARRIER_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace reco::bench {

class CyclicBarrier {
 public:
  void Wait(int parties) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t round = round_;
    if (++arrived_ == parties) {
      arrived_ = 0;
      ++round_;
      released_.notify_all();
      return;
    }
    released_.wait(lock, [&] { return round_ != round; });
  }

 private:
  std::mutex mu_;
  std::condition_variable released_;
  int arrived_ = 0;
  uint64_t round_ = 0;
};

}  // namespace reco::bench

#endif  // ARENA_GRPC_BENCH_CYCLIC_BARRIER_H_
