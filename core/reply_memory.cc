// See reply_memory.h.
#include "core/reply_memory.h"

#include "core/request.h"

namespace reco {
namespace {

// Measured with `alloc_ledger --items N --profile P --format json` (largest build
// bytes over the four modes + serialized bytes), per item, 200 to 10,000 items, plus
// the fixed part small replies carry; each rounded up. reply_memory_test.cc checks
// that the estimate stays at or above the ledger's figure and within twice it plus 4 KiB.
constexpr uint64_t kFixedBytes = 4096;
constexpr uint64_t kRealisticBytesPerItem = 2400;
constexpr uint64_t kCompactBytesPerItem = 1700;

}  // namespace

uint64_t EstimateReplyBytes(const v1::RecommendRequest& request) {
  const uint64_t per_item =
      request.text_profile() == v1::TEXT_PROFILE_COMPACT ? kCompactBytesPerItem : kRealisticBytesPerItem;
  return kFixedBytes + per_item * EffectiveItemCount(request);
}

}  // namespace reco
