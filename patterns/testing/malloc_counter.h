// SPDX-License-Identifier: Apache-2.0
// MallocCounter: exact counts of this thread's heap allocations, for tests.
//
// Linking malloc_counter.cc into a test executable replaces malloc, calloc, realloc,
// free, posix_memalign, aligned_alloc, memalign and every global operator new and
// delete with counting versions. The executable's definitions interpose every shared
// library too, so protobuf, libstdc++ and gRPC's C core (which calls malloc, not
// new) are counted. Each call forwards to the next definition in lookup order
// (dlsym RTLD_NEXT): glibc, an LD_PRELOADed allocator, or gcc's shared ASan/TSan
// runtime in a sanitizer build. Linux with glibc; link it into tests only.
//
// Example:
//   MallocCounts before = MallocCounter::ThisThread();
//   std::string s(100, 'x');   // one allocation of 101 bytes
//   MallocCounts used = MallocCounter::ThisThread() - before;
//   // used.allocs == 1, used.frees == 0, used.bytes == 101
//
// This project's servers count with core/allocation_counter.h instead (every thread,
// the malloc's name); this one stays small so that patterns/ builds alone.
//
// Thread-safety: ThisThread() reads the calling thread's counters, which only that
// thread writes. Bytes are the bytes asked for, not what the allocator rounded to.
#ifndef ARENA_GRPC_PATTERNS_TESTING_MALLOC_COUNTER_H_
#define ARENA_GRPC_PATTERNS_TESTING_MALLOC_COUNTER_H_

#include <cstdint>

namespace reco::patterns::testing {

struct MallocCounts {
  uint64_t allocs = 0;  // calls that returned memory (a realloc counts once)
  uint64_t frees = 0;   // calls that released memory (a realloc of a non-null pointer too)
  uint64_t bytes = 0;   // bytes the allocating calls asked for

  friend MallocCounts operator-(MallocCounts a, const MallocCounts& b) {
    a.allocs -= b.allocs;
    a.frees -= b.frees;
    a.bytes -= b.bytes;
    return a;
  }
  friend bool operator==(const MallocCounts& a, const MallocCounts& b) {
    return a.allocs == b.allocs && a.frees == b.frees && a.bytes == b.bytes;
  }
};

class MallocCounter {
 public:
  // The calling thread's totals since it started.
  static MallocCounts ThisThread();
};

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_MALLOC_COUNTER_H_
