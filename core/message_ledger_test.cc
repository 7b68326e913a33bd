// The ledger of any message: dynamic messages against generated code for the same
// sample, mode by mode and phase by phase, with exact counts.
#include "core/message_ledger.h"

#include <memory>
#include <tuple>

#include "core/response_builder.h"
#include "core/test_util.h"
#include "feed_builder.h"
#include "google/protobuf/dynamic_message.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

using google::protobuf::Message;

feed::v1::FeedResponse Feed(uint32_t posts, bool long_text) {
  feed::v1::FeedRequest request;
  request.set_post_count(posts);
  request.set_long_text(long_text);
  feed::v1::FeedResponse response;
  patterns::testing::FillFeed(request, &response);
  return response;
}

// The same content as a DynamicMessage: the factory does not delegate to the
// generated classes (its default), so every message in the tree is dynamic.
std::unique_ptr<Message> ToDynamic(google::protobuf::DynamicMessageFactory* factory, const Message& generated) {
  std::unique_ptr<Message> dynamic(factory->GetPrototype(generated.GetDescriptor())->New());
  dynamic->CopyFrom(generated);
  return dynamic;
}

TEST(MessageLedgerTest, DescribeCountsWhatDecidesTheOutcome) {
  feed::v1::FeedResponse feed = Feed(200, /*long_text=*/true);
  MessageShape shape = DescribeMessage(feed);
  // Per post: post_id, title, body, 3 tags, 2 author and 2 media strings; plus the
  // request id and the model version.
  EXPECT_EQ(shape.strings, 200u * 10 + 2);
  EXPECT_EQ(shape.long_strings, static_cast<uint64_t>(testing::StringsLongerThan(feed, SmallStringBytes())));
  EXPECT_EQ(shape.long_strings, shape.strings);
  EXPECT_EQ(shape.sub_messages, testing::AllMessages(feed).size() - 1);  // 5 per post and the metadata
  EXPECT_EQ(shape.sub_messages, 200u * 5 + 1);
  EXPECT_EQ(shape.repeated_fields, 200u * 3 + 1);  // tags, topic_ids, features; posts
  EXPECT_EQ(shape.repeated_elements, 200u * 15 + 200);
  EXPECT_EQ(DescribeMessage(Feed(200, false)).long_strings, 0u);
  EXPECT_EQ(SmallStringBytes(), kSmallStringBytes);
}

TEST(MessageLedgerTest, KnowsDynamicFromGenerated) {
  google::protobuf::DynamicMessageFactory factory;
  feed::v1::FeedResponse feed = Feed(1, false);
  EXPECT_FALSE(IsDynamicMessage(feed));
  EXPECT_TRUE(IsDynamicMessage(*ToDynamic(&factory, feed)));
}

class DynamicVsGenerated : public ::testing::TestWithParam<std::tuple<uint32_t, bool>> {
 protected:
  void SetUp() override {
    generated_sample_ = Feed(std::get<0>(GetParam()), std::get<1>(GetParam()));
    dynamic_sample_ = ToDynamic(&factory_, generated_sample_);
    generated_ = MeasureMessageLedger(generated_sample_, {});
    dynamic_ = MeasureMessageLedger(*dynamic_sample_, {});
  }
  google::protobuf::DynamicMessageFactory factory_;
  feed::v1::FeedResponse generated_sample_;
  std::unique_ptr<Message> dynamic_sample_;
  MessageLedger generated_, dynamic_;
};

// Generated code's own counts follow from the shape alone: a heap reply is one malloc
// for the top message, one per sub-message, string and repeated array, and one more
// per long string; a pooled arena pays the long strings only.
TEST_P(DynamicVsGenerated, GeneratedCountsFollowTheShape) {
  const MessageShape& s = generated_.shape;
  EXPECT_FALSE(generated_.dynamic);
  const ModeLedger& heap = generated_.ForMode(MemoryMode::kHeap);
  EXPECT_EQ(heap.build.allocs, 1 + s.sub_messages + s.strings + s.long_strings + s.repeated_fields);
  EXPECT_EQ(heap.release.frees, heap.build.allocs);
  const ModeLedger& pool = generated_.ForMode(MemoryMode::kArenaPool);
  EXPECT_EQ(pool.build.allocs, s.long_strings);
  EXPECT_EQ(pool.release.frees, s.long_strings);
  for (const ModeLedger& m : generated_.modes) {
    EXPECT_EQ(m.serialize.allocs, 0) << m.name();
    EXPECT_EQ(m.build.frees, 0) << m.name();
  }
}

// Dynamic messages count what generated code counts, plus exactly the predicted
// overhead of protobuf's reflection; heap and arena_pool match outright.
TEST_P(DynamicVsGenerated, DynamicCountsAreGeneratedPlusThePredictedOverhead) {
  EXPECT_TRUE(dynamic_.dynamic);
  EXPECT_EQ(dynamic_.shape, generated_.shape);
  EXPECT_EQ(dynamic_.serialized_bytes, generated_.serialized_bytes);
  const DynamicOverhead o = PredictDynamicOverhead(*dynamic_sample_);
  EXPECT_GT(o.serialize_allocs, 0u);
  // Not predicted, measured and pinned: a DynamicMessage is bigger than the generated
  // class, so with 200 posts default arena blocks fill up one block sooner.
  const double arena_blocks = std::get<0>(GetParam()) == 200 ? 1 : 0;
  for (MemoryMode mode : AllMemoryModes()) {
    SCOPED_TRACE(std::string(MemoryModeName(mode)));
    const ModeLedger& g = generated_.ForMode(mode);
    const ModeLedger& d = dynamic_.ForMode(mode);
    const bool reuse = mode == MemoryMode::kReuse;
    EXPECT_EQ(d.build.allocs,
              g.build.allocs + (reuse ? o.reuse_build_allocs : 0) + (mode == MemoryMode::kArena ? arena_blocks : 0));
    EXPECT_EQ(d.build.frees, g.build.frees);
    EXPECT_EQ(d.serialize.allocs, g.serialize.allocs + o.serialize_allocs);
    EXPECT_EQ(d.serialize.frees, g.serialize.frees + o.serialize_frees);
    EXPECT_EQ(d.release.allocs, g.release.allocs + (reuse ? o.reuse_release_allocs : 0));
    EXPECT_EQ(d.release.frees,
              g.release.frees + (reuse ? o.reuse_release_frees : 0) + (mode == MemoryMode::kArena ? arena_blocks : 0));
  }
  // heap and arena_pool: the same allocations; pooled bytes too (only string payloads).
  EXPECT_EQ(dynamic_.ForMode(MemoryMode::kHeap).build.allocs, generated_.ForMode(MemoryMode::kHeap).build.allocs);
  EXPECT_EQ(dynamic_.ForMode(MemoryMode::kArenaPool).build.bytes,
            generated_.ForMode(MemoryMode::kArenaPool).build.bytes);
  EXPECT_GT(dynamic_.ForMode(MemoryMode::kHeap).build.bytes, generated_.ForMode(MemoryMode::kHeap).build.bytes);
}

// The overhead's terms for a one-post feed, counted by hand.
TEST(MessageLedgerTest, PredictedOverheadForOnePost) {
  google::protobuf::DynamicMessageFactory factory;
  for (bool long_text : {false, true}) {
    DynamicOverhead o = PredictDynamicOverhead(*ToDynamic(&factory, Feed(1, long_text)));
    // 7 messages (response, metadata, post, author, media, engagement, scores) x 2,
    // and the packed topic_ids and features.
    EXPECT_EQ(o.serialize_allocs, 7u * 2 + 2);
    EXPECT_EQ(o.serialize_frees, o.serialize_allocs);
    // Clear() keeps the response and its post; their singular strings are request_id,
    // post_id, title, body.
    EXPECT_EQ(o.reuse_release_allocs, 2u);
    EXPECT_EQ(o.reuse_build_allocs, long_text ? 8u : 4u);
    EXPECT_EQ(o.reuse_release_frees, 2u + (long_text ? 8u : 4u));
  }
}

INSTANTIATE_TEST_SUITE_P(Feed, DynamicVsGenerated, ::testing::Combine(::testing::Values(1u, 200u), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<uint32_t, bool>>& info) {
                           return std::to_string(std::get<0>(info.param)) + "posts_" +
                                  (std::get<1>(info.param) ? "long" : "short");
                         });

}  // namespace
}  // namespace reco
