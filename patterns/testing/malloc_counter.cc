// SPDX-License-Identifier: Apache-2.0
// The counting malloc family and operator new/delete. See malloc_counter.h.
//
// Everything here runs inside malloc: it must not allocate, and must work before
// main() and while dlsym looks the real functions up (dlsym may call calloc).
#include "malloc_counter.h"

#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

namespace reco::patterns::testing {
namespace {

// initial-exec: no allocation on a thread's first access.
__thread MallocCounts t_counts __attribute__((tls_model("initial-exec")));

inline void Count(uint64_t allocs, uint64_t frees, uint64_t bytes) {
  t_counts.allocs += allocs;
  t_counts.frees += frees;
  t_counts.bytes += bytes;
}

struct Next {
  void* (*malloc)(size_t) = nullptr;
  void* (*calloc)(size_t, size_t) = nullptr;
  void* (*realloc)(void*, size_t) = nullptr;
  void (*free)(void*) = nullptr;
  int (*posix_memalign)(void**, size_t, size_t) = nullptr;
};
Next g_next;
bool g_resolving = false;

// What dlsym asks for before the real functions are known: served from here, never
// freed. Each block keeps its size in front, for a realloc that copies it out.
alignas(64) char g_bootstrap[16 * 1024];
size_t g_bootstrap_used = 0;

bool IsBootstrap(const void* p) { return p >= g_bootstrap && p < g_bootstrap + sizeof g_bootstrap; }

void* BootstrapAlloc(size_t n) {
  const size_t need = ((n + 15) & ~size_t{15}) + 16;
  if (g_bootstrap_used + need > sizeof g_bootstrap) return nullptr;
  char* block = g_bootstrap + g_bootstrap_used;
  g_bootstrap_used += need;
  std::memcpy(block, &n, sizeof n);
  std::memset(block + 16, 0, need - 16);
  return block + 16;
}

template <typename Fn>
void Lookup(Fn*& fn, const char* name) {
  fn = reinterpret_cast<Fn*>(dlsym(RTLD_NEXT, name));
  if (fn == nullptr) {
    static const char kMsg[] = "malloc_counter: cannot find the next malloc family\n";
    (void)!write(2, kMsg, sizeof kMsg - 1);
    abort();
  }
}

// False only while dlsym runs: the caller then serves itself from the bootstrap.
bool Ready() {
  if (__builtin_expect(g_next.free != nullptr, 1)) return true;
  if (g_resolving) return false;
  g_resolving = true;
  Lookup(g_next.calloc, "calloc");
  Lookup(g_next.malloc, "malloc");
  Lookup(g_next.realloc, "realloc");
  Lookup(g_next.posix_memalign, "posix_memalign");
  Lookup(g_next.free, "free");
  g_resolving = false;
  return true;
}

void* Aligned(size_t align, size_t n) {
  void* p = nullptr;
  if (g_next.posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, n) != 0) return nullptr;
  Count(1, 0, n);
  return p;
}

}  // namespace

MallocCounts MallocCounter::ThisThread() { return t_counts; }

}  // namespace reco::patterns::testing

namespace counting = reco::patterns::testing;

extern "C" {

void* malloc(size_t n) {
  if (!counting::Ready()) return counting::BootstrapAlloc(n);
  void* p = counting::g_next.malloc(n);
  if (p) counting::Count(1, 0, n);
  return p;
}

void* calloc(size_t count, size_t size) {
  if (!counting::Ready()) return counting::BootstrapAlloc(count * size);
  void* p = counting::g_next.calloc(count, size);
  if (p) counting::Count(1, 0, count * size);
  return p;
}

void free(void* p) {
  if (p == nullptr || counting::IsBootstrap(p)) return;
  counting::Ready();
  counting::Count(0, 1, 0);
  counting::g_next.free(p);
}

void* realloc(void* p, size_t n) {
  if (!counting::Ready()) return counting::BootstrapAlloc(n);
  if (counting::IsBootstrap(p)) {
    size_t old;
    std::memcpy(&old, static_cast<char*>(p) - 16, sizeof old);
    void* q = malloc(n);
    if (q) std::memcpy(q, p, old < n ? old : n);
    return q;
  }
  void* q = counting::g_next.realloc(p, n);
  if (p == nullptr) {
    if (q) counting::Count(1, 0, n);
  } else if (n == 0 && q == nullptr) {
    counting::Count(0, 1, 0);  // realloc(p, 0) freed p
  } else if (q) {
    counting::Count(1, 1, n);
  }
  return q;
}

int posix_memalign(void** out, size_t align, size_t n) {
  if (!counting::Ready()) {
    *out = counting::BootstrapAlloc(n);
    return *out ? 0 : ENOMEM;
  }
  int rc = counting::g_next.posix_memalign(out, align, n);
  if (rc == 0) counting::Count(1, 0, n);
  return rc;
}

// Through posix_memalign: every allocator has it, and its memory is the next free()'s.
void* aligned_alloc(size_t align, size_t n) {
  counting::Ready();
  return counting::Aligned(align, n);
}

void* memalign(size_t align, size_t n) {
  counting::Ready();
  return counting::Aligned(align, n);
}

}  // extern "C"

// ---- operator new/delete, through the counted malloc. ----
namespace {

void* NewOrThrow(size_t n, size_t align) {
  if (n == 0) n = 1;
  for (;;) {
    void* p = align <= alignof(std::max_align_t) ? malloc(n) : aligned_alloc(align, n);
    if (p) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* NewOrNull(size_t n, size_t align) noexcept {
  try {
    return NewOrThrow(n, align);
  } catch (...) {
    return nullptr;
  }
}

constexpr size_t kPlain = alignof(std::max_align_t);

}  // namespace

void* operator new(size_t n) { return NewOrThrow(n, kPlain); }
void* operator new[](size_t n) { return NewOrThrow(n, kPlain); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return NewOrNull(n, kPlain); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return NewOrNull(n, kPlain); }
void* operator new(size_t n, std::align_val_t al) { return NewOrThrow(n, static_cast<size_t>(al)); }
void* operator new[](size_t n, std::align_val_t al) { return NewOrThrow(n, static_cast<size_t>(al)); }
void* operator new(size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return NewOrNull(n, static_cast<size_t>(al));
}
void* operator new[](size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return NewOrNull(n, static_cast<size_t>(al));
}

void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }
void operator delete[](void* p, size_t) noexcept { free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete(void* p, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { free(p); }
