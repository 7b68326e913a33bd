// SPDX-License-Identifier: Apache-2.0
// Proves what reused_message_allocator.h claims about what its pool keeps: a released
// holder comes back Clear()ed to the next call, at most max_idle wait, and one whose
// reply serialized to more than max_kept_bytes is freed rather than kept.
#include "reused_message_allocator.h"

#include <vector>

#include "feed.pb.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using Allocator = ReusedMessageAllocator<FeedRequest, FeedResponse>;

// Builds a reply of `posts` into the holder and serializes it, as gRPC would.
void Serve(grpc::MessageHolder<FeedRequest, FeedResponse>* holder, uint32_t posts) {
  holder->request()->set_post_count(posts);
  testing::FillFeed(*holder->request(), holder->response());
  (void)holder->response()->SerializeAsString();  // sets the cached size gRPC leaves
}

TEST(ReusedMessageAllocatorTest, KeepsASmallReplyClearedForTheNextCall) {
  Allocator allocator(/*max_idle=*/4, /*max_kept_bytes=*/1 << 20);
  auto* first = allocator.AllocateMessages();
  Serve(first, 200);  // well under 1 MiB
  first->Release();
  auto* second = allocator.AllocateMessages();
  EXPECT_EQ(second, first) << "the idle holder is reused";
  EXPECT_EQ(second->response()->posts_size(), 0) << "and cleared";
  second->Release();
  ReusedMessageStats s = allocator.stats();
  EXPECT_EQ(s.created, 1u);
  EXPECT_EQ(s.oversized, 0u);
  EXPECT_EQ(s.idle, 1u);
}

TEST(ReusedMessageAllocatorTest, FreesAReplyOverMaxKeptBytesInsteadOfKeepingIt) {
  Allocator allocator(/*max_idle=*/4, /*max_kept_bytes=*/1 << 20);
  auto* big = allocator.AllocateMessages();
  Serve(big, 10000);  // over 1 MiB serialized
  ASSERT_GT(big->response()->GetCachedSize(), 1 << 20);
  big->Release();
  ReusedMessageStats s = allocator.stats();
  EXPECT_EQ(s.oversized, 1u);
  EXPECT_EQ(s.idle, 0u) << "a 10,000-post message is not kept idle";
  EXPECT_EQ(s.released, 1u);
}

TEST(ReusedMessageAllocatorTest, KeepsNoMoreThanMaxIdle) {
  Allocator allocator(/*max_idle=*/2);
  std::vector<grpc::MessageHolder<FeedRequest, FeedResponse>*> held;
  for (int i = 0; i < 5; ++i) held.push_back(allocator.AllocateMessages());
  for (auto* h : held) h->Release();
  ReusedMessageStats s = allocator.stats();
  EXPECT_EQ(s.created, 5u);
  EXPECT_EQ(s.released, 5u);
  EXPECT_EQ(s.idle, 2u);
}

}  // namespace
}  // namespace reco::patterns
