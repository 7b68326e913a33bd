// See reply_memory.h.
#include "core/reply_memory.h"

#include "core/request.h"

namespace reco {
namespace {

// Measured with `alloc_ledger --items N --profile P --format json` (largest build
// bytes over the four modes + serialized bytes), per item, 200 to 10,000 items:
// realistic 2,285-2,313 bytes, compact 1,547-1,572; small replies carry a fixed part
// of up to ~2.2 KiB. Rounded up.
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
