// AllocationCounter: exact counts of heap allocations, per thread and per process.
//
// Linking the core library into an executable replaces the malloc family (malloc,
// calloc, realloc, reallocarray, free, memalign, posix_memalign, aligned_alloc,
// valloc, pvalloc) and every global operator new/delete with counting versions.
// Because the executable defines them, they interpose every shared library too:
// libstdc++, libprotobuf and libgrpc allocate through them.
//
// Each counting function forwards to the NEXT definition in symbol lookup order
// (dlsym(RTLD_NEXT)), so an allocator given with LD_PRELOAD (tcmalloc, jemalloc,
// mimalloc) keeps doing the real work; without one, glibc does. operator new is
// routed to the counted malloc because tcmalloc would otherwise serve it directly.
//
// Cost: one thread-local increment of three counters per call; no locks, no atomics
// with a lock prefix. It is always on.
//
// Example:
//   AllocationCounts before = AllocationCounter::ThisThread();
//   std::string s(100, 'x');   // one allocation, 101 bytes
//   AllocationCounts used = AllocationCounter::ThisThread() - before;
//   // used.allocs == 1, used.frees == 0, used.bytes == 101
//
// Why a second interposer beside patterns/testing/malloc_counter.cc: that one is the
// patterns' own, for their tests, and travels with patterns/ into other projects, so
// it counts this thread only and needs nothing else. This one serves the measured
// processes (reco_server, reco_load, the ledger): it also sums every thread, names the
// malloc behind it and knows when it is not the one interposing, which the reports
// need. An executable links one of the two, never both (each defines malloc).
//
// Thread-safety: ThisThread() reads the calling thread's counters. Process() may be
// called from any thread; it sums every thread's counters (threads that exited are
// included), so under concurrent allocation it is a consistent-enough snapshot, not
// an atomic one. bytes counts bytes requested, not what the allocator rounded up to.
#ifndef ARENA_GRPC_CORE_ALLOCATION_COUNTER_H_
#define ARENA_GRPC_CORE_ALLOCATION_COUNTER_H_

#include <cstdint>
#include <string>

namespace reco {

struct AllocationCounts {
  uint64_t allocs = 0;  // calls that returned new memory (realloc counts as one)
  uint64_t frees = 0;   // calls that released memory (realloc of a non-null pointer counts)
  uint64_t bytes = 0;   // bytes requested by the allocating calls

  AllocationCounts& operator+=(const AllocationCounts& o) {
    allocs += o.allocs;
    frees += o.frees;
    bytes += o.bytes;
    return *this;
  }
  friend AllocationCounts operator-(AllocationCounts a, const AllocationCounts& b) {
    a.allocs -= b.allocs;
    a.frees -= b.frees;
    a.bytes -= b.bytes;
    return a;
  }
  friend bool operator==(const AllocationCounts& a, const AllocationCounts& b) {
    return a.allocs == b.allocs && a.frees == b.frees && a.bytes == b.bytes;
  }
};

class AllocationCounter {
 public:
  // The calling thread's totals since it started.
  static AllocationCounts ThisThread();
  // Every thread's totals since the process started.
  static AllocationCounts Process();
  // The shared object that serves allocations ("glibc", "tcmalloc", "jemalloc",
  // "mimalloc", "valgrind", "asan"/"tsan" in sanitizer builds, or the library's file
  // name), found from where malloc resolved.
  static std::string MallocName();
  // MallocName(), and for glibc the tunables the process started with (GLIBC_TUNABLES
  // in its initial environment, which glibc read at start), e.g.
  // "glibc(glibc.malloc.mxfast=0)": what reports name, so a tuned glibc is told apart.
  static std::string MallocLabel();
  // True when the process's malloc (the definition every library's call resolves
  // to) is this counter's. False when another definition comes first in symbol
  // lookup order -- e.g. the counter lives in a shared library and an allocator was
  // given with LD_PRELOAD, or a sanitizer runtime is loaded first -- and then the
  // counts stay near zero whatever the process allocates.
  static bool Interposing();
};

}  // namespace reco

#endif  // ARENA_GRPC_CORE_ALLOCATION_COUNTER_H_
