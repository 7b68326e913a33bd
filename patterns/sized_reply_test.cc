// SPDX-License-Identifier: Apache-2.0
// SizedReply: a reply sized first and written once is SerializeToString's bytes, in
// one slice; it allocates exactly that slice and gRPC's byte buffer; a first pass
// that got the size wrong gives no reply rather than a corrupt one.
#include "sized_reply.h"

#include <string>
#include <vector>

#include "byte_buffer_bytes.h"
#include "feed.pb.h"
#include "gtest/gtest.h"
#include "testing/malloc_counter.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedResponse;
using feed::v1::Post;

FeedResponse Built(int posts) {
  FeedResponse r;
  r.set_request_id("req-1");
  for (int i = 0; i < posts; ++i) {
    Post* p = r.add_posts();
    p->set_post_id("post-" + std::to_string(i));
    p->set_title(std::string(300, static_cast<char>('a' + i % 26)));
  }
  r.mutable_metadata()->set_model_version("v1");
  return r;
}

// The reply written the way a handler would: every post a fragment, metadata a message.
size_t SizeOf(const FeedResponse& r, const std::vector<std::string>& posts) {
  size_t size = SizedReply::LengthDelimitedFieldSize(FeedResponse::kRequestIdFieldNumber, r.request_id().size());
  for (const std::string& p : posts)
    size += SizedReply::LengthDelimitedFieldSize(FeedResponse::kPostsFieldNumber, p.size());
  return size + SizedReply::LengthDelimitedFieldSize(FeedResponse::kMetadataFieldNumber, r.metadata().ByteSizeLong());
}
void Write(const FeedResponse& r, const std::vector<std::string>& posts, SizedReply* reply) {
  reply->WriteStringField(FeedResponse::kRequestIdFieldNumber, r.request_id());
  for (const std::string& p : posts) reply->WriteStringField(FeedResponse::kPostsFieldNumber, p);
  reply->WriteMessageField(FeedResponse::kMetadataFieldNumber, r.metadata());
}
std::vector<std::string> Posts(const FeedResponse& r) {
  std::vector<std::string> posts;
  for (const Post& p : r.posts()) posts.push_back(p.SerializeAsString());
  return posts;
}

TEST(SizedReplyTest, IsTheSerializersBytesInOneSlice) {
  for (int n : {0, 1, 50}) {
    const FeedResponse built = Built(n);
    const std::vector<std::string> posts = Posts(built);
    SizedReply reply(SizeOf(built, posts));
    Write(built, posts, &reply);
    grpc::ByteBuffer buffer;
    ASSERT_TRUE(reply.Finish(&buffer)) << n;
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(buffer.Dump(&slices).ok());
    EXPECT_EQ(slices.size(), 1u) << n;
    EXPECT_EQ(ByteBufferBytes(buffer), built.SerializeAsString()) << n;
  }
}

// The whole point: one slice of the reply's size and gRPC's byte buffer, whatever
// the reply holds; nothing else (no scratch, no slice array).
TEST(SizedReplyTest, AllocatesTheSliceAndTheByteBufferOnly) {
  const FeedResponse built = Built(50);
  const std::vector<std::string> posts = Posts(built);
  const size_t size = SizeOf(built, posts);
  grpc::ByteBuffer buffer;
  const testing::MallocCounts before = testing::MallocCounter::ThisThread();
  {
    SizedReply reply(size);
    Write(built, posts, &reply);
    ASSERT_TRUE(reply.Finish(&buffer));
  }
  const testing::MallocCounts used = testing::MallocCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 2u);
  EXPECT_EQ(used.frees, 0u) << "the ByteBuffer holds the slice";
  buffer.Clear();
  EXPECT_EQ((testing::MallocCounter::ThisThread() - before).frees, 2u) << "and frees both when gRPC drops it";
}

TEST(SizedReplyTest, AWrongSizeGivesNoReply) {
  const FeedResponse built = Built(3);
  const std::vector<std::string> posts = Posts(built);
  const size_t size = SizeOf(built, posts);
  grpc::ByteBuffer untouched;
  for (size_t wrong : {size - 1, size + 1}) {
    SizedReply reply(wrong);
    Write(built, posts, &reply);
    EXPECT_FALSE(reply.Finish(&untouched)) << wrong << " for " << size;
    EXPECT_EQ(untouched.Length(), 0u);
  }
  SizedReply short_one(4);
  EXPECT_EQ(short_one.Take(5), nullptr);
  EXPECT_EQ(short_one.Take(4), nullptr) << "nothing is written after an overflow";
  EXPECT_FALSE(short_one.Finish(&untouched)) << "an overflow poisons the reply";
}

}  // namespace
}  // namespace reco::patterns
