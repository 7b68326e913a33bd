// SPDX-License-Identifier: Apache-2.0
// The patterns' tests build their replies here: a feed of posts (feed.proto), filled
// the way a handler fills a reply.
//
// Example:
//   feed::v1::FeedRequest request;
//   request.set_post_count(200);                 // long_text false: strings <= 15 bytes
//   FillFeed(request, response);                 // response on the RPC's arena, or not
//   // response->posts_size() == 200, every post with every sub-message set
//
// Thread-safety: the functions keep no state; one caller per message.
#ifndef ARENA_GRPC_PATTERNS_TESTING_FEED_BUILDER_H_
#define ARENA_GRPC_PATTERNS_TESTING_FEED_BUILDER_H_

#include "feed.pb.h"

namespace reco::patterns::testing {

// Fills `response` with request.post_count() posts, each with 3 tags, 4 topic ids,
// 8 features and every sub-message set. The same request gives the same reply. Every
// string is 15 bytes or less unless request.long_text(), then every one is longer.
void FillFeed(const feed::v1::FeedRequest& request, feed::v1::FeedResponse* response);

// Post `index` of a feed, as FillFeed writes it.
void FillPost(int index, bool long_text, feed::v1::Post* post);

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_FEED_BUILDER_H_
