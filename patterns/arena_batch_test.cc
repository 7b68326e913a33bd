// SPDX-License-Identifier: Apache-2.0
// Proves what arena_batch.h claims: the steady-state mallocs per record, what
// Reset() frees and returns, and that the next record reuses the dead one's memory.
#include "arena_batch.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "feed.pb.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"
#include "testing/malloc_counter.h"
#include "testing/message_tree.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedResponse;
using testing::MallocCounter;
using testing::MallocCounts;

// libstdc++ keeps a string of this many bytes or fewer inside the std::string object.
constexpr size_t kSmallStringBytes = 15;

// `copies` copies of one serialized 200-post feed, so every record costs the same.
std::vector<std::string> SameResponse(bool long_text, int copies, FeedResponse* parsed) {
  feed::v1::FeedRequest request;
  request.set_user_id("u-1");
  request.set_post_count(200);
  request.set_long_text(long_text);
  testing::FillFeed(request, parsed);
  return std::vector<std::string>(copies, parsed->SerializeAsString());
}

// Allocation counts between consecutive visits: the cost of one Reset() plus one parse.
struct PerRecord {
  std::vector<MallocCounts> deltas;
  std::vector<uintptr_t> addresses;  // where each record was built (never dereferenced)
};

PerRecord RunBatch(ArenaBatch<FeedResponse>* batch, const std::vector<std::string>& records, ArenaBatchStats* stats) {
  PerRecord out;
  out.deltas.reserve(records.size());  // no vector growth inside the measured window
  out.addresses.reserve(records.size());
  MallocCounts last;
  absl::StatusOr<ArenaBatchStats> result =
      batch->ForEach(records, [&](const FeedResponse& record, google::protobuf::Arena* arena) {
        MallocCounts now = MallocCounter::ThisThread();
        if (!out.addresses.empty()) out.deltas.push_back(now - last);
        last = now;
        out.addresses.push_back(reinterpret_cast<uintptr_t>(&record));
        EXPECT_EQ(record.GetArena(), arena);
      });
  EXPECT_TRUE(result.ok()) << result.status();
  if (result.ok()) *stats = *result;
  return out;
}

TEST(ArenaBatchTest, ShortStringsAndABigEnoughBlockMakeZeroMallocsPerRecord) {
  FeedResponse parsed;
  std::vector<std::string> records = SameResponse(/*long_text=*/false, 10, &parsed);
  ASSERT_EQ(testing::StringsLongerThan(parsed, kSmallStringBytes), 0);
  constexpr size_t kBlock = 512 * 1024;
  ArenaBatch<FeedResponse> batch(kBlock);
  ArenaBatchStats stats;
  PerRecord per_record = RunBatch(&batch, records, &stats);
  ASSERT_EQ(per_record.deltas.size(), records.size() - 1);
  for (const MallocCounts& d : per_record.deltas) {
    EXPECT_EQ(d.allocs, 0u);
    EXPECT_EQ(d.frees, 0u);
  }
  EXPECT_EQ(stats.records, records.size());
  EXPECT_EQ(stats.peak_arena_bytes, kBlock);  // never more than the initial block
}

TEST(ArenaBatchTest, TooSmallABlockMallocsAndResetFreesTheOverflowEveryRecord) {
  FeedResponse parsed;
  std::vector<std::string> records = SameResponse(/*long_text=*/false, 10, &parsed);
  constexpr size_t kBlock = 16 * 1024;  // a 200-post feed needs far more
  ArenaBatch<FeedResponse> batch(kBlock);
  ArenaBatchStats stats;
  PerRecord per_record = RunBatch(&batch, records, &stats);
  ASSERT_EQ(per_record.deltas.size(), records.size() - 1);
  const MallocCounts first = per_record.deltas.front();
  EXPECT_GT(first.allocs, 0u);
  for (const MallocCounts& d : per_record.deltas) {
    EXPECT_EQ(d, first);           // steady state: the same blocks every record
    EXPECT_EQ(d.frees, d.allocs);  // Reset() freed every overflow block
  }
  // Reset() returned the initial block plus exactly the bytes those mallocs asked for.
  EXPECT_EQ(stats.peak_arena_bytes, kBlock + first.bytes);
  std::printf("16 KiB block, short-text 200-post feed: %llu blocks (%llu bytes) per record\n",
              static_cast<unsigned long long>(first.allocs), static_cast<unsigned long long>(first.bytes));
}

TEST(ArenaBatchTest, LongStringsCostOneMallocEachEvenWithABigBlock) {
  FeedResponse parsed;
  std::vector<std::string> records = SameResponse(/*long_text=*/true, 5, &parsed);
  const uint64_t long_strings = testing::StringsLongerThan(parsed, kSmallStringBytes);
  ASSERT_GT(long_strings, 0u);
  ArenaBatch<FeedResponse> batch(512 * 1024);
  ArenaBatchStats stats;
  PerRecord per_record = RunBatch(&batch, records, &stats);
  for (const MallocCounts& d : per_record.deltas) {
    EXPECT_EQ(d.allocs, long_strings);
    EXPECT_EQ(d.frees, long_strings);  // Reset() ran their destructors
  }
  std::printf("long-text 200-post feed: %llu long strings = mallocs per record\n",
              static_cast<unsigned long long>(long_strings));
}

// After Reset() the old record is dead: the next one is built at the same address.
// The test compares addresses only; reading through the old pointer would be a
// use-after-free (see the header for when ASan can and cannot see it).
TEST(ArenaBatchTest, ResetHandsTheDeadRecordsMemoryToTheNextRecord) {
  FeedResponse parsed;
  std::vector<std::string> records = SameResponse(/*long_text=*/false, 4, &parsed);
  ArenaBatch<FeedResponse> batch(512 * 1024);
  ArenaBatchStats stats;
  PerRecord per_record = RunBatch(&batch, records, &stats);
  ASSERT_EQ(per_record.addresses.size(), 4u);
  for (uintptr_t address : per_record.addresses) EXPECT_EQ(address, per_record.addresses.front());
}

TEST(ArenaBatchTest, AnUnparsableRecordIsAnInvalidArgumentNamingIt) {
  FeedResponse parsed;
  std::vector<std::string> records = SameResponse(/*long_text=*/false, 1, &parsed);
  records.push_back("\xff\xff\xff\xff");  // field number 0 / truncated varint: not a message
  ArenaBatch<FeedResponse> batch(64 * 1024);
  int visited = 0;
  absl::StatusOr<ArenaBatchStats> result =
      batch.ForEach(records, [&](const FeedResponse&, google::protobuf::Arena*) { ++visited; });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "record 1 of 2 is not a valid feed.v1.FeedResponse");
  EXPECT_EQ(visited, 1);
}

// A job built on ArenaBatch, as a user writes one: totals over serialized feeds.
// Plain values survive each Reset(); pointers into a record would not.
struct FeedTotals {
  uint64_t feeds = 0;
  uint64_t posts = 0;
  int64_t likes = 0;
};

absl::StatusOr<FeedTotals> TotalFeeds(const std::vector<std::string>& serialized) {
  FeedTotals totals;
  ArenaBatch<FeedResponse> batch(256 * 1024);
  absl::StatusOr<ArenaBatchStats> stats =
      batch.ForEach(serialized, [&](const FeedResponse& record, google::protobuf::Arena*) {
        totals.posts += record.posts_size();
        for (const feed::v1::Post& post : record.posts()) totals.likes += post.engagement().likes();
      });
  if (!stats.ok()) return stats.status();
  totals.feeds = stats->records;
  return totals;
}

TEST(ArenaBatchTest, AJobAddsUpEveryRecord) {
  std::vector<std::string> records;
  uint64_t posts = 0;
  int64_t likes = 0;
  for (int i = 0; i < 3; ++i) {
    feed::v1::FeedRequest request;
    request.set_post_count(10 + i);
    FeedResponse response;
    testing::FillFeed(request, &response);
    posts += response.posts_size();
    for (const feed::v1::Post& post : response.posts()) likes += post.engagement().likes();
    records.push_back(response.SerializeAsString());
  }
  absl::StatusOr<FeedTotals> totals = TotalFeeds(records);
  ASSERT_TRUE(totals.ok()) << totals.status();
  EXPECT_EQ(totals->feeds, 3u);
  EXPECT_EQ(totals->posts, posts);
  EXPECT_EQ(totals->likes, likes);
  EXPECT_NE(likes, 0);
}

}  // namespace
}  // namespace reco::patterns
