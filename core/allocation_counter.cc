// The counting malloc family and operator new/delete. See allocation_counter.h.
//
// Everything here runs inside malloc, so it must not allocate through the paths it
// counts except where noted, and must work before main() and after thread exit.
#include "core/allocation_counter.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>

namespace reco {
namespace {

// One thread's counters. Only the owning thread writes them (plain load+store, no
// lock prefix); Process() reads them from any thread.
struct alignas(64) CounterSlot {
  std::atomic<uint64_t> allocs{0};
  std::atomic<uint64_t> frees{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<bool> owned{false};
};

// Slots are claimed by threads and handed back when a thread exits, but never
// cleared: a reused slot keeps adding to its totals, so Process() -- the sum of all
// slots -- only ever grows and nothing is lost when threads come and go.
// 1024 covers gRPC's thread pools many times over; if it is ever exhausted the
// overflow slot is shared with atomic adds (slower, still exact).
constexpr int kSlots = 1024;
CounterSlot g_slots[kSlots];
CounterSlot g_overflow;
pthread_key_t g_exit_key;
std::atomic<bool> g_exit_key_ready{false};

__thread CounterSlot* t_slot __attribute__((tls_model("initial-exec"))) = nullptr;
__thread bool t_claiming __attribute__((tls_model("initial-exec"))) = false;

void ReleaseSlot(void* slot) {
  static_cast<CounterSlot*>(slot)->owned.store(false, std::memory_order_release);
  t_slot = nullptr;
}

CounterSlot* ClaimSlot() {
  // pthread_setspecific may itself allocate; t_claiming routes those calls to the
  // overflow slot instead of recursing.
  t_claiming = true;
  CounterSlot* slot = &g_overflow;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].owned.load(std::memory_order_relaxed) &&
        g_slots[i].owned.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      slot = &g_slots[i];
      break;
    }
  }
  t_slot = slot;
  if (slot != &g_overflow && g_exit_key_ready.load(std::memory_order_acquire)) {
    pthread_setspecific(g_exit_key, slot);
  }
  t_claiming = false;
  return slot;
}

inline void Count(uint64_t allocs, uint64_t frees, uint64_t bytes) {
  CounterSlot* slot = t_slot;
  if (__builtin_expect(slot == nullptr, 0)) {
    slot = t_claiming ? &g_overflow : ClaimSlot();
  }
  if (slot == &g_overflow) {
    slot->allocs.fetch_add(allocs, std::memory_order_relaxed);
    slot->frees.fetch_add(frees, std::memory_order_relaxed);
    slot->bytes.fetch_add(bytes, std::memory_order_relaxed);
    return;
  }
  slot->allocs.store(slot->allocs.load(std::memory_order_relaxed) + allocs, std::memory_order_relaxed);
  slot->frees.store(slot->frees.load(std::memory_order_relaxed) + frees, std::memory_order_relaxed);
  slot->bytes.store(slot->bytes.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
}

// ---- The next allocator in lookup order (LD_PRELOADed one, else glibc). ----
using MallocFn = void* (*)(size_t);
using CallocFn = void* (*)(size_t, size_t);
using ReallocFn = void* (*)(void*, size_t);
using FreeFn = void (*)(void*);
using MemalignFn = void* (*)(size_t, size_t);
using PosixMemalignFn = int (*)(void**, size_t, size_t);

MallocFn g_malloc;
CallocFn g_calloc;
ReallocFn g_realloc;
FreeFn g_free;
MemalignFn g_memalign;
MemalignFn g_aligned_alloc;
PosixMemalignFn g_posix_memalign;
bool g_resolving = false;

// dlsym may call calloc/malloc before the real ones are known: those few calls are
// served from this static buffer and never freed. Each block has a size header so
// that realloc can copy it out.
alignas(64) char g_bootstrap[64 * 1024];
size_t g_bootstrap_used = 0;

bool IsBootstrap(void* p) {
  return p >= static_cast<void*>(g_bootstrap) && p < static_cast<void*>(g_bootstrap + sizeof g_bootstrap);
}

void* BootstrapAlloc(size_t n) {
  size_t need = ((n + 15) & ~size_t{15}) + 16;
  if (g_bootstrap_used + need > sizeof g_bootstrap) return nullptr;
  char* block = g_bootstrap + g_bootstrap_used;
  g_bootstrap_used += need;
  std::memcpy(block, &n, sizeof n);
  std::memset(block + 16, 0, need - 16);
  return block + 16;
}

void Resolve() {
  g_resolving = true;
  g_calloc = reinterpret_cast<CallocFn>(dlsym(RTLD_NEXT, "calloc"));
  g_malloc = reinterpret_cast<MallocFn>(dlsym(RTLD_NEXT, "malloc"));
  g_realloc = reinterpret_cast<ReallocFn>(dlsym(RTLD_NEXT, "realloc"));
  g_free = reinterpret_cast<FreeFn>(dlsym(RTLD_NEXT, "free"));
  g_memalign = reinterpret_cast<MemalignFn>(dlsym(RTLD_NEXT, "memalign"));
  g_aligned_alloc = reinterpret_cast<MemalignFn>(dlsym(RTLD_NEXT, "aligned_alloc"));
  g_posix_memalign = reinterpret_cast<PosixMemalignFn>(dlsym(RTLD_NEXT, "posix_memalign"));
  g_resolving = false;
  if (!g_malloc || !g_calloc || !g_realloc || !g_free || !g_posix_memalign) {
    static const char kMsg[] = "allocation_counter: cannot find the real malloc family\n";
    (void)!write(2, kMsg, sizeof kMsg - 1);
    abort();
  }
}

inline bool Ready() {
  if (__builtin_expect(g_free != nullptr, 1)) return true;
  if (g_resolving) return false;
  Resolve();
  return true;
}

void* AlignedAlloc(size_t align, size_t n) {
  void* p = nullptr;
  if (g_posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, n) != 0) return nullptr;
  return p;
}

// Registers the thread-exit hook once the allocator works (pthread_key_create
// may allocate).
__attribute__((constructor)) void InitExitKey() {
  if (pthread_key_create(&g_exit_key, ReleaseSlot) == 0) {
    g_exit_key_ready.store(true, std::memory_order_release);
    if (t_slot != nullptr && t_slot != &g_overflow) pthread_setspecific(g_exit_key, t_slot);
  }
}

// The library whose malloc serves the process: the one we forward to, or, when
// another definition comes before ours (Interposing() false), that one.
const char* LibraryOfMalloc(bool interposing) {
  Ready();
  void* serving = interposing ? reinterpret_cast<void*>(g_malloc) : dlsym(RTLD_DEFAULT, "malloc");
  Dl_info info;
  if (serving == nullptr || dladdr(serving, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

}  // namespace

AllocationCounts AllocationCounter::ThisThread() {
  CounterSlot* slot = t_slot;
  if (slot == nullptr) slot = ClaimSlot();
  AllocationCounts c;
  c.allocs = slot->allocs.load(std::memory_order_relaxed);
  c.frees = slot->frees.load(std::memory_order_relaxed);
  c.bytes = slot->bytes.load(std::memory_order_relaxed);
  return c;
}

AllocationCounts AllocationCounter::Process() {
  AllocationCounts sum;
  auto add = [&sum](const CounterSlot& s) {
    sum.allocs += s.allocs.load(std::memory_order_relaxed);
    sum.frees += s.frees.load(std::memory_order_relaxed);
    sum.bytes += s.bytes.load(std::memory_order_relaxed);
  };
  for (const CounterSlot& s : g_slots) add(s);
  add(g_overflow);
  return sum;
}

std::string AllocationCounter::MallocName() {
  std::string lib = LibraryOfMalloc(Interposing());
  for (const char* name : {"tcmalloc", "jemalloc", "mimalloc", "vgpreload"}) {
    if (lib.find(name) != std::string::npos) return name == std::string("vgpreload") ? "valgrind" : name;
  }
  // Sanitizer builds (RECO_SANITIZE): gcc's runtimes are shared libraries that
  // define malloc, so our counting malloc forwards to them.
  if (lib.find("libasan") != std::string::npos) return "asan";
  if (lib.find("libtsan") != std::string::npos) return "tsan";
  if (lib.find("libc.so") != std::string::npos) return "glibc";
  return lib.empty() ? "unknown" : lib;
}

std::string AllocationCounter::MallocLabel() {
  const std::string name = MallocName();
  if (name != "glibc") return name;
  std::ifstream environ_file("/proc/self/environ", std::ios::binary);
  const std::string key = "GLIBC_TUNABLES=";
  for (std::string var; std::getline(environ_file, var, '\0');) {
    if (var.rfind(key, 0) == 0 && var.size() > key.size()) return name + "(" + var.substr(key.size(), 200) + ")";
  }
  return name;
}

bool AllocationCounter::Interposing() {
  // Compared by object, not by address: inside a shared library, &malloc names
  // whichever definition won the lookup, so it cannot tell ours from another.
  void* active = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info used, ours;
  if (active == nullptr || dladdr(active, &used) == 0 || dladdr(reinterpret_cast<void*>(&Resolve), &ours) == 0) {
    return false;
  }
  return used.dli_fbase == ours.dli_fbase;
}

}  // namespace reco

// ---- The interposed C allocation functions. ----
using reco::Count;
using reco::Ready;

extern "C" {

void* malloc(size_t n) {
  if (!Ready()) return reco::BootstrapAlloc(n);
  void* p = reco::g_malloc(n);
  if (p) Count(1, 0, n);
  return p;
}

void* calloc(size_t count, size_t size) {
  if (!Ready()) return reco::BootstrapAlloc(count * size);
  void* p = reco::g_calloc(count, size);
  if (p) Count(1, 0, count * size);
  return p;
}

void free(void* p) {
  if (p == nullptr || reco::IsBootstrap(p)) return;
  Ready();
  Count(0, 1, 0);
  reco::g_free(p);
}

void* realloc(void* p, size_t n) {
  if (!Ready()) return reco::BootstrapAlloc(n);
  if (reco::IsBootstrap(p)) {
    size_t old;
    std::memcpy(&old, static_cast<char*>(p) - 16, sizeof old);
    void* q = malloc(n);
    if (q) std::memcpy(q, p, old < n ? old : n);
    return q;
  }
  void* q = reco::g_realloc(p, n);
  if (p == nullptr) {
    if (q) Count(1, 0, n);
  } else if (n == 0 && q == nullptr) {
    Count(0, 1, 0);  // realloc(p, 0) freed p
  } else if (q) {
    Count(1, 1, n);
  }
  return q;
}

void* reallocarray(void* p, size_t count, size_t size) {
  size_t n;
  if (__builtin_mul_overflow(count, size, &n)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, n);
}

int posix_memalign(void** out, size_t align, size_t n) {
  if (!Ready()) {
    *out = reco::BootstrapAlloc(n);
    return *out ? 0 : ENOMEM;
  }
  int rc = reco::g_posix_memalign(out, align, n);
  if (rc == 0) Count(1, 0, n);
  return rc;
}

void* aligned_alloc(size_t align, size_t n) {
  Ready();
  void* p = reco::g_aligned_alloc ? reco::g_aligned_alloc(align, n) : reco::AlignedAlloc(align, n);
  if (p) Count(1, 0, n);
  return p;
}

void* memalign(size_t align, size_t n) {
  Ready();
  void* p = reco::g_memalign ? reco::g_memalign(align, n) : reco::AlignedAlloc(align, n);
  if (p) Count(1, 0, n);
  return p;
}

// valloc and pvalloc go through posix_memalign: not every allocator defines them,
// and glibc's would hand out glibc memory for another allocator's free().
void* valloc(size_t n) {
  Ready();
  void* p = reco::AlignedAlloc(static_cast<size_t>(sysconf(_SC_PAGESIZE)), n);
  if (p) Count(1, 0, n);
  return p;
}

void* pvalloc(size_t n) {
  Ready();
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t rounded = (n + page - 1) / page * page;
  void* p = reco::AlignedAlloc(page, rounded ? rounded : page);
  if (p) Count(1, 0, n);
  return p;
}

}  // extern "C"

// ---- operator new/delete, all routed through the counted malloc. ----
namespace {

void* NewOrThrow(size_t n) {
  if (n == 0) n = 1;
  for (;;) {
    if (void* p = malloc(n)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* AlignedNewOrThrow(size_t n, std::align_val_t al) {
  if (n == 0) n = 1;
  for (;;) {
    void* p = nullptr;
    if (posix_memalign(&p, static_cast<size_t>(al) < sizeof(void*) ? sizeof(void*) : static_cast<size_t>(al), n) == 0)
      return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(size_t n) { return NewOrThrow(n); }
void* operator new[](size_t n) { return NewOrThrow(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return NewOrThrow(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  try {
    return NewOrThrow(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(size_t n, std::align_val_t al) { return AlignedNewOrThrow(n, al); }
void* operator new[](size_t n, std::align_val_t al) { return AlignedNewOrThrow(n, al); }
void* operator new(size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  try {
    return AlignedNewOrThrow(n, al);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  try {
    return AlignedNewOrThrow(n, al);
  } catch (...) {
    return nullptr;
  }
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
