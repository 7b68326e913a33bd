// SPDX-License-Identifier: Apache-2.0
#include "patterns/arena_batch.h"

namespace reco::patterns {

absl::StatusOr<ResponseTotals> TotalResponses(absl::Span<const std::string> serialized,
                                              size_t initial_block_bytes) {
  ResponseTotals totals;
  ArenaBatch<v1::RecommendResponse> batch(initial_block_bytes);
  absl::StatusOr<ArenaBatchStats> stats =
      batch.ForEach(serialized, [&](const v1::RecommendResponse& response, google::protobuf::Arena*) {
        totals.items += response.items_size();
        // Plain values survive the Reset(); pointers into `response` would not.
        for (const v1::Item& item : response.items()) totals.amount_micros += item.price().amount_micros();
      });
  if (!stats.ok()) return stats.status();
  totals.responses = stats->records;
  totals.peak_arena_bytes = stats->peak_arena_bytes;
  return totals;
}

}  // namespace reco::patterns
