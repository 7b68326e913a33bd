// Names and requests of the benchmark grid. See bench_case.h.
#include "bench/bench_case.h"

#include "absl/strings/str_cat.h"
#include "core/request.h"

namespace reco::bench {

std::string BenchCase::Name(const std::string& prefix) const {
  return absl::StrCat(prefix, "/mode:", MemoryModeName(mode), "/items:", items, "/", ProfileLabel(profile));
}

v1::RecommendRequest BenchCase::Request() const { return LedgerRequest(items, profile); }

const std::vector<uint32_t>& GridItemCounts() {
  static const std::vector<uint32_t> kCounts = {10, 50, 200, 1000};
  return kCounts;
}

const std::vector<v1::TextProfile>& GridProfiles() {
  static const std::vector<v1::TextProfile> kProfiles = {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT};
  return kProfiles;
}

std::string ProfileLabel(v1::TextProfile profile) { return absl::StrCat("profile:", TextProfileName(profile)); }

}  // namespace reco::bench
