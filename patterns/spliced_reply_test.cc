// SPDX-License-Identifier: Apache-2.0
// SplicedReply: a reply spliced from fragments parses as the message it stands for,
// byte for byte what SerializeToString gives; fragments are referenced (not copied)
// unless short; the ByteBuffer outlives the scratch; steady-state appends allocate
// nothing.
#include "spliced_reply.h"

#include <string>
#include <vector>

#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include "byte_buffer_bytes.h"
#include "feed.pb.h"
#include "gtest/gtest.h"
#include "testing/malloc_counter.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedResponse;
using feed::v1::Post;
using feed::v1::Scores;

// A few items whose static part is serialized once, as a catalogue would hold them.
struct Fragments {
  std::vector<Post> items;
  std::vector<std::string> bytes;
};

Fragments MakeFragments(int n, size_t title_bytes) {
  Fragments f;
  for (int i = 0; i < n; ++i) {
    Post item;
    item.set_post_id("post-" + std::to_string(i));
    item.set_title(std::string(title_bytes, static_cast<char>('a' + i % 26)));
    item.add_tags("tag");
    item.mutable_engagement()->set_likes(1000 * (i + 1));
    f.bytes.push_back(item.SerializeAsString());
    f.items.push_back(std::move(item));
  }
  return f;
}

Scores ScoresFor(int i) {
  Scores s;
  s.set_relevance(0.5f + i);
  s.add_features(1.0f * i);
  return s;
}

// The per-request parts, computed before splicing (a handler computes them as it goes).
struct PerRequest {
  std::vector<Scores> scores;
  feed::v1::FeedMetadata metadata;
};
PerRequest PerRequestParts(const Fragments& f) {
  PerRequest p;
  for (size_t i = 0; i < f.bytes.size(); ++i) p.scores.push_back(ScoresFor(static_cast<int>(i)));
  p.metadata.set_model_version("v1");
  return p;
}

// The reply spliced the way a handler would: request_id, items (fragment + scores), metadata.
void Splice(const Fragments& f, const PerRequest& parts, SplicedReply* reply) {
  reply->AppendStringField(FeedResponse::kRequestIdFieldNumber, "req-1");
  for (size_t i = 0; i < f.bytes.size(); ++i) {
    const Scores& scores = parts.scores[i];
    reply->AppendLengthDelimitedHeader(
        FeedResponse::kPostsFieldNumber,
        f.bytes[i].size() + SplicedReply::LengthDelimitedFieldSize(Post::kScoresFieldNumber, scores.ByteSizeLong()));
    reply->AppendFragment(f.bytes[i]);
    reply->AppendMessageField(Post::kScoresFieldNumber, scores);
  }
  reply->AppendMessageField(FeedResponse::kMetadataFieldNumber, parts.metadata);
}
void Splice(const Fragments& f, SplicedReply* reply) { Splice(f, PerRequestParts(f), reply); }

// The same reply built as a message.
FeedResponse Built(const Fragments& f) {
  FeedResponse r;
  r.set_request_id("req-1");
  for (size_t i = 0; i < f.items.size(); ++i) {
    Post* item = r.add_posts();
    *item = f.items[i];
    *item->mutable_scores() = ScoresFor(static_cast<int>(i));
  }
  r.mutable_metadata()->set_model_version("v1");
  return r;
}

TEST(SplicedReplyTest, ParsesAsTheBuiltMessageAndIsByteIdentical) {
  for (size_t title : {4u, 300u}) {  // fragments copied (short) and referenced (long)
    Fragments f = MakeFragments(5, title);
    SplicedReply reply(/*copy_fragments_below=*/128);
    Splice(f, &reply);
    grpc::ByteBuffer buffer;
    reply.Finish(&buffer);
    EXPECT_EQ(buffer.Length(), reply.size());

    FeedResponse parsed;
    grpc::ProtoBufferReader reader(&buffer);
    ASSERT_TRUE(parsed.ParseFromZeroCopyStream(&reader)) << "title " << title;
    const FeedResponse built = Built(f);
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differencer.Compare(built, parsed)) << diff;
    EXPECT_EQ(ByteBufferBytes(buffer), built.SerializeAsString()) << "field order kept: the serializer's bytes";
  }
}

TEST(SplicedReplyTest, LongFragmentsAreReferencedShortOnesCopied) {
  Fragments long_ones = MakeFragments(3, 300);
  SplicedReply reply(/*copy_fragments_below=*/128);
  Splice(long_ones, &reply);
  EXPECT_EQ(reply.referenced_fragments(), 3u);
  grpc::ByteBuffer buffer;
  reply.Finish(&buffer);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  int pointing_at_fragments = 0;
  for (const grpc::Slice& s : slices) {
    for (const std::string& fragment : long_ones.bytes) {
      if (reinterpret_cast<const char*>(s.begin()) == fragment.data()) ++pointing_at_fragments;
    }
  }
  EXPECT_EQ(pointing_at_fragments, 3) << "the reply's slices are the fragments themselves, not copies";

  Fragments short_ones = MakeFragments(3, 4);
  reply.Clear();
  Splice(short_ones, &reply);
  EXPECT_EQ(reply.referenced_fragments(), 0u) << "below 128 bytes";
  reply.Clear();
  reply.set_copy_fragments_below(SplicedReply::kDefaultCopyFragmentsBelow);
  Splice(long_ones, &reply);
  EXPECT_EQ(reply.referenced_fragments(), 0u) << "the default copies fragments under 4 KiB";
}

TEST(SplicedReplyTest, TheByteBufferOutlivesTheScratch) {
  Fragments f = MakeFragments(4, 300);
  const std::string expected = Built(f).SerializeAsString();
  grpc::ByteBuffer first;
  {
    SplicedReply reply(/*copy_fragments_below=*/128);  // referenced fragments and copied bytes
    Splice(f, &reply);
    reply.Finish(&first);
    reply.Clear();
    Splice(MakeFragments(2, 10), &reply);  // reuse the scratch for another reply
    grpc::ByteBuffer second;
    reply.Finish(&second);
  }  // scratch gone
  EXPECT_EQ(ByteBufferBytes(first), expected);
}

TEST(SplicedReplyTest, ASteadyStateSpliceAllocatesNothingAndFinishAFewTimes) {
  Fragments f = MakeFragments(50, 300);
  const PerRequest parts = PerRequestParts(f);
  SplicedReply reply(/*copy_fragments_below=*/128);
  grpc::ByteBuffer buffer;
  for (int warm = 0; warm < 2; ++warm) {
    reply.Clear();
    Splice(f, parts, &reply);
    reply.Finish(&buffer);
  }
  buffer.Clear();
  reply.Clear();
  testing::MallocCounts before = testing::MallocCounter::ThisThread();
  Splice(f, parts, &reply);
  testing::MallocCounts spliced = testing::MallocCounter::ThisThread() - before;
  before = testing::MallocCounter::ThisThread();
  reply.Finish(&buffer);
  testing::MallocCounts finished = testing::MallocCounter::ThisThread() - before;
  EXPECT_EQ(spliced.allocs, 0u) << "the scratch keeps its capacity";
  // Finish: the per-request slice, gRPC's byte buffer, and its slice array growing
  // to 101 slices (inline 8, then doubling) -- a handful, whatever the reply's bytes.
  EXPECT_GE(finished.allocs, 3u);
  EXPECT_LE(finished.allocs, 10u);
  std::printf("50 posts, %zu bytes: splice %llu allocs, Finish %llu allocs\n", reply.size(),
              static_cast<unsigned long long>(spliced.allocs), static_cast<unsigned long long>(finished.allocs));
}

TEST(SplicedReplyTest, AHugeReplyDoesNotStayInTheScratch) {
  Fragments small = MakeFragments(5, 300);
  Fragments huge = MakeFragments(4000, 300);  // ~1.3 MB copied with the default threshold
  SplicedReply reply;
  Splice(small, &reply);
  reply.Clear();
  const size_t after_small = reply.scratch_bytes();
  EXPECT_LT(after_small, SplicedReply::kMaxKeptScratchBytes);
  Splice(small, &reply);
  reply.Clear();
  EXPECT_EQ(reply.scratch_bytes(), after_small) << "a small reply's scratch is kept";
  Splice(huge, &reply);
  EXPECT_GT(reply.scratch_bytes(), SplicedReply::kMaxKeptScratchBytes);
  reply.Clear();
  EXPECT_EQ(reply.scratch_bytes(), SplicedReply().scratch_bytes()) << "a huge reply's scratch is given back";
}

}  // namespace
}  // namespace reco::patterns
