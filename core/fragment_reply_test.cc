// The fragments mode's reply is BuildResponse's reply, byte for byte: every size and
// profile, a catalogue smaller than the request, and the stop check.
#include "core/fragment_reply.h"

#include <string>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "core/allocation_counter.h"
#include "core/byte_buffer_bytes.h"
#include "core/response_builder.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

v1::RecommendRequest Request(uint32_t items, v1::TextProfile profile, const std::string& user = "user-42") {
  v1::RecommendRequest r;
  r.set_user_id(user);
  r.set_item_count(items);
  r.set_text_profile(profile);
  r.set_seed(7);
  return r;
}

std::string Spliced(const Catalogue& catalogue, const v1::RecommendRequest& request,
                    size_t copy_fragments_below = patterns::SplicedReply::kDefaultCopyFragmentsBelow) {
  patterns::SplicedReply reply(copy_fragments_below);
  BuildFragmentReply(catalogue, request, &reply);
  grpc::ByteBuffer buffer;
  reply.Finish(&buffer);
  return ByteBufferBytes(buffer);
}

std::string Written(const Catalogue& catalogue, const v1::RecommendRequest& request) {
  grpc::ByteBuffer buffer;
  EXPECT_TRUE(WriteFragmentReply(catalogue, request, &buffer));
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  EXPECT_EQ(slices.size(), 1u) << "one slice per reply";
  return ByteBufferBytes(buffer);
}

class FragmentReplyTest : public ::testing::TestWithParam<std::tuple<uint32_t, v1::TextProfile>> {};

TEST_P(FragmentReplyTest, IsBuildResponsesReplyByteForByte) {
  auto [items, profile] = GetParam();
  const Catalogue& catalogue = DefaultCatalogue();
  for (const char* user : {"user-1", "user-2"}) {
    const v1::RecommendRequest request = Request(items, profile, user);
    v1::RecommendResponse built;
    BuildResponse(catalogue, request, &built);
    const std::string spliced = Spliced(catalogue, request);
    EXPECT_EQ(spliced, built.SerializeAsString()) << user;
    EXPECT_EQ(Spliced(catalogue, request, /*copy_fragments_below=*/0), spliced) << user << ", every item referenced";
    EXPECT_EQ(Written(catalogue, request), spliced) << user << ", written once";
    v1::RecommendResponse parsed;
    ASSERT_TRUE(parsed.ParseFromString(spliced));
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(parsed, built));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, FragmentReplyTest,
                         ::testing::Combine(::testing::Values(0u, 1u, 200u, 10000u),
                                            ::testing::Values(v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT)));

TEST(FragmentReplyTest, ASmallCatalogueGivesTheSameShortReply) {
  auto small = Catalogue::Build({3, 50});
  const v1::RecommendRequest request = Request(200, v1::TEXT_PROFILE_REALISTIC);
  v1::RecommendResponse built;
  BuildResponse(*small, request, &built);
  EXPECT_EQ(built.items_size(), 50);
  EXPECT_EQ(Spliced(*small, request), built.SerializeAsString());
  EXPECT_EQ(Written(*small, request), built.SerializeAsString());
}

TEST(FragmentReplyTest, WritingStopsAtTheFirstCheckThatSaysYesAndWritesNothing) {
  const v1::RecommendRequest request = Request(200, v1::TEXT_PROFILE_REALISTIC);
  grpc::ByteBuffer out;
  int asked = 0;
  EXPECT_EQ(WriteFragmentReplyUnlessStopped(
                DefaultCatalogue(), request, &out, [&] { return ++asked == 3; }, 16),
            FragmentWrite::kStopped);
  EXPECT_EQ(asked, 3) << "before items 0, 16 and 32";
  EXPECT_EQ(out.Length(), 0u);
  WriteFragmentReply(DefaultCatalogue(), request, &out);  // this thread's scratch now fits 200 items
  out.Clear();
  const AllocationCounts warm = AllocationCounter::ThisThread();
  EXPECT_EQ(WriteFragmentReplyUnlessStopped(
                DefaultCatalogue(), request, &out, [] { return true; }, 16),
            FragmentWrite::kStopped);
  EXPECT_EQ((AllocationCounter::ThisThread() - warm).allocs, 0u) << "stopped before the slice exists";
  asked = 0;
  EXPECT_EQ(WriteFragmentReplyUnlessStopped(
                DefaultCatalogue(), request, &out, [&] { return ++asked, false; }, 0),
            FragmentWrite::kWritten);
  EXPECT_EQ(asked, 200) << "0 counts as 1";
}

// The default path's allocations, exactly: the reply's one slice and gRPC's byte
// buffer, at any item count, once the thread's score scratch fits the reply.
TEST(FragmentReplyTest, AWarmWriteAllocatesTheSliceAndTheByteBufferOnly) {
  const Catalogue& catalogue = DefaultCatalogue();
  std::vector<uint64_t> beyond_the_reply;  // the slice's refcount and the byte buffer
  for (uint32_t items : {200u, 10000u}) {
    const v1::RecommendRequest request = Request(items, v1::TEXT_PROFILE_REALISTIC);
    grpc::ByteBuffer out;
    WriteFragmentReply(catalogue, request, &out);
    out.Clear();
    const AllocationCounts before = AllocationCounter::ThisThread();
    ASSERT_TRUE(WriteFragmentReply(catalogue, request, &out));
    const AllocationCounts used = AllocationCounter::ThisThread() - before;
    EXPECT_EQ(used.allocs, 2u) << items;
    EXPECT_EQ(used.frees, 0u) << items;
    beyond_the_reply.push_back(used.bytes - out.Length());
  }
  EXPECT_EQ(beyond_the_reply[0], beyond_the_reply[1]) << "the slice is the reply's size, nothing more";
  EXPECT_LT(beyond_the_reply[0], 512u);
}

TEST(FragmentReplyTest, StopsAtTheFirstCheckThatSaysYes) {
  patterns::SplicedReply reply;
  int asked = 0;
  EXPECT_FALSE(BuildFragmentReplyUnlessStopped(
      DefaultCatalogue(), Request(200, v1::TEXT_PROFILE_REALISTIC), &reply, [&] { return ++asked == 3; }, 16));
  EXPECT_EQ(asked, 3) << "before items 0, 16 and 32";
  reply.Clear();
  asked = 0;
  EXPECT_TRUE(BuildFragmentReplyUnlessStopped(
      DefaultCatalogue(), Request(200, v1::TEXT_PROFILE_REALISTIC), &reply, [&] { return ++asked, false; }, 16));
  EXPECT_EQ(asked, 13);
}

// The point of the mode: a warm thread splices a 200-item reply without allocating;
// only Finish allocates (a few, whatever the item count).
TEST(FragmentReplyTest, AWarmSpliceAllocatesNothing) {
  const Catalogue& catalogue = DefaultCatalogue();
  const v1::RecommendRequest request = Request(200, v1::TEXT_PROFILE_REALISTIC);
  patterns::SplicedReply reply;
  for (int warm = 0; warm < 2; ++warm) {
    reply.Clear();
    BuildFragmentReply(catalogue, request, &reply);
  }
  reply.Clear();
  AllocationCounts before = AllocationCounter::ThisThread();
  BuildFragmentReply(catalogue, request, &reply);
  EXPECT_EQ((AllocationCounter::ThisThread() - before).allocs, 0u);
  EXPECT_EQ(reply.referenced_fragments(), 0u) << "the default copies items under 4 KiB";
  patterns::SplicedReply zero_copy(/*copy_fragments_below=*/0);
  BuildFragmentReply(catalogue, request, &zero_copy);
  zero_copy.Clear();
  before = AllocationCounter::ThisThread();
  BuildFragmentReply(catalogue, request, &zero_copy);
  EXPECT_EQ((AllocationCounter::ThisThread() - before).allocs, 0u);
  EXPECT_EQ(zero_copy.referenced_fragments(), 200u) << "every item referenced";
}

}  // namespace
}  // namespace reco
