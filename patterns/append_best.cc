// SPDX-License-Identifier: Apache-2.0
#include "patterns/append_best.h"

namespace reco::patterns {

void AppendMostRelevant(int candidate_count, int keep, absl::FunctionRef<void(int, v1::Item*)> fill,
                        v1::RecommendResponse* response) {
  AppendBest<v1::Item>(candidate_count, keep, fill,
                       [](const v1::Item& item) { return item.scores().relevance(); },
                       response->mutable_items());
}

}  // namespace reco::patterns
