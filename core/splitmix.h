// The project's deterministic randomness: splitmix64 and FNV-1a, header-only.
//
// Every value a reply holds -- the catalogue's item text and numbers, the picks, the
// per-request scores -- comes from these, so a reply is a pure function of the
// catalogue's options and the request, on every machine and in every build.
//
// Example:
//   reco::SplitMix64 rng(reco::Fnv1a("user-42") ^ seed);
//   uint32_t n = rng.Between(2, 4);
//   float f = rng.Unit();
//
// Thread-safety: the functions are pure; a SplitMix64 is used by one thread.
#ifndef ARENA_GRPC_CORE_SPLITMIX_H_
#define ARENA_GRPC_CORE_SPLITMIX_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace reco {

// splitmix64's finalizer: a good 64-bit mix of one value.
inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// FNV-1a of a string: how user ids enter a key.
inline uint64_t Fnv1a(absl::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// splitmix64: tiny, fast, and good enough to make content look varied.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  // Uniform in [lo, hi].
  uint32_t Between(uint32_t lo, uint32_t hi) { return lo + static_cast<uint32_t>(Next() % (uint64_t{hi} - lo + 1)); }
  // Uniform in [0, 1).
  float Unit() { return static_cast<float>(Next() >> 40) / static_cast<float>(1 << 24); }

 private:
  uint64_t state_;
};

}  // namespace reco

#endif  // ARENA_GRPC_CORE_SPLITMIX_H_
