// sanitizer_canary: proves that a sanitizer build still catches bugs although every
// allocation first passes through the project's counting malloc (core/
// allocation_counter.cc forwards to libasan/libtsan via dlsym(RTLD_NEXT)). If the
// chain ever bypassed the sanitizer's allocator, these bugs would go unreported and
// the canary tests (sanitizers/CMakeLists.txt) would fail.
//
//   sanitizer_canary use-after-free   ASan: "heap-use-after-free"
//   sanitizer_canary leak             LSan: "detected memory leaks"
//   sanitizer_canary race             TSan: "data race"
//
// Each mode is a deliberate bug; never run this outside the canary tests.
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "core/allocation_counter.h"

namespace {

// Keeps the compiler from proving the bug away.
template <typename T>
void Escape(T* p) {
  asm volatile("" : : "g"(p) : "memory");
}

int UseAfterFree() {
  auto* s = new std::string(64, 'x');  // through the counting operator new/malloc
  Escape(s);
  delete s;
  Escape(s);
  return (*s)[3] == 'x' ? 1 : 2;  // ASan aborts here
}

int Leak() {
  void* p = malloc(4242);
  Escape(p);
  p = nullptr;  // lost: LSan reports it at exit
  Escape(&p);
  return 0;
}

int Race() {
  int* shared = new int(0);
  std::thread a([shared] {
    for (int i = 0; i < 1000; ++i) ++*shared;
  });
  std::thread b([shared] {
    for (int i = 0; i < 1000; ++i) ++*shared;
  });
  a.join();
  b.join();
  int v = *shared;
  delete shared;
  return v > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // The counter must be in the chain, or the canary proves nothing.
  std::printf("malloc: %s\n", reco::AllocationCounter::MallocName().c_str());
  std::fflush(stdout);
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "use-after-free") == 0) return UseAfterFree();
  if (std::strcmp(mode, "leak") == 0) return Leak();
  if (std::strcmp(mode, "race") == 0) return Race();
  std::fprintf(stderr, "usage: sanitizer_canary use-after-free|leak|race\n");
  return 64;
}
