// SPDX-License-Identifier: Apache-2.0
// Proves what arena_batch.h claims: the steady-state mallocs per record, what
// Reset() frees and returns, and that the next record reuses the dead one's memory.
#include "patterns/arena_batch.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/allocation_counter.h"
#include "core/response_builder.h"
#include "core/test_util.h"
#include "gtest/gtest.h"

namespace reco::patterns {
namespace {

using v1::RecommendResponse;

// `copies` copies of one serialized 200-item response, so every record costs the same.
std::vector<std::string> SameResponse(v1::TextProfile profile, int copies, RecommendResponse* parsed) {
  v1::RecommendRequest request;
  request.set_user_id("u-1");
  request.set_text_profile(profile);
  BuildResponse(DefaultCatalogue(), request, parsed);
  return std::vector<std::string>(copies, parsed->SerializeAsString());
}

// Allocation counts between consecutive visits: the cost of one Reset() plus one parse.
struct PerRecord {
  std::vector<AllocationCounts> deltas;
  std::vector<uintptr_t> addresses;  // where each record was built (never dereferenced)
};

PerRecord RunBatch(ArenaBatch<RecommendResponse>* batch, const std::vector<std::string>& records,
              ArenaBatchStats* stats) {
  PerRecord out;
  out.deltas.reserve(records.size());  // no vector growth inside the measured window
  out.addresses.reserve(records.size());
  AllocationCounts last;
  absl::StatusOr<ArenaBatchStats> result =
      batch->ForEach(records, [&](const RecommendResponse& record, google::protobuf::Arena* arena) {
        AllocationCounts now = AllocationCounter::ThisThread();
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
  RecommendResponse parsed;
  std::vector<std::string> records = SameResponse(v1::TEXT_PROFILE_COMPACT, 10, &parsed);
  ASSERT_EQ(testing::StringsLongerThan(parsed, kSmallStringBytes), 0);
  constexpr size_t kBlock = 512 * 1024;
  ArenaBatch<RecommendResponse> batch(kBlock);
  ArenaBatchStats stats;
  PerRecord per_record = RunBatch(&batch, records, &stats);
  ASSERT_EQ(per_record.deltas.size(), records.size() - 1);
  for (const AllocationCounts& d : per_record.deltas) {
    EXPECT_EQ(d.allocs, 0u);
    EXPECT_EQ(d.frees, 0u);
  }
  EXPECT_EQ(stats.records, records.size());
  EXPECT_EQ(stats.peak_arena_bytes, kBlock);  // never more than the initial block
}

TEST(ArenaBatchTest, TooSmallABlockMallocsAndResetFreesTheOverflowEveryRecord) {
  RecommendResponse parsed;
  std::vector<std::string> records = SameResponse(v1::TEXT_PROFILE_COMPACT, 10, &parsed);
  constexpr size_t kBlock = 16 * 1024;  // a 200-item response needs far more
  ArenaBatch<RecommendResponse> batch(kBlock);
  ArenaBatchStats stats;
  PerRecord per_record = RunBatch(&batch, records, &stats);
  ASSERT_EQ(per_record.deltas.size(), records.size() - 1);
  const AllocationCounts first = per_record.deltas.front();
  EXPECT_GT(first.allocs, 0u);
  for (const AllocationCounts& d : per_record.deltas) {
    EXPECT_EQ(d, first);               // steady state: the same blocks every record
    EXPECT_EQ(d.frees, d.allocs);      // Reset() freed every overflow block
  }
  // Reset() returned the initial block plus exactly the bytes those mallocs asked for.
  EXPECT_EQ(stats.peak_arena_bytes, kBlock + first.bytes);
  std::printf("16 KiB block, compact 200-item response: %llu blocks (%llu bytes) per record\n",
              static_cast<unsigned long long>(first.allocs), static_cast<unsigned long long>(first.bytes));
}

TEST(ArenaBatchTest, LongStringsCostOneMallocEachEvenWithABigBlock) {
  RecommendResponse parsed;
  std::vector<std::string> records = SameResponse(v1::TEXT_PROFILE_REALISTIC, 5, &parsed);
  const uint64_t long_strings = testing::StringsLongerThan(parsed, kSmallStringBytes);
  ASSERT_GT(long_strings, 0u);
  ArenaBatch<RecommendResponse> batch(512 * 1024);
  ArenaBatchStats stats;
  PerRecord per_record = RunBatch(&batch, records, &stats);
  for (const AllocationCounts& d : per_record.deltas) {
    EXPECT_EQ(d.allocs, long_strings);
    EXPECT_EQ(d.frees, long_strings);  // Reset() ran their destructors
  }
  std::printf("realistic 200-item response: %llu long strings = mallocs per record\n",
              static_cast<unsigned long long>(long_strings));
}

// After Reset() the old record is dead: the next one is built at the same address.
// The test compares addresses only; reading through the old pointer would be a
// use-after-free (see the header for when ASan can and cannot see it).
TEST(ArenaBatchTest, ResetHandsTheDeadRecordsMemoryToTheNextRecord) {
  RecommendResponse parsed;
  std::vector<std::string> records = SameResponse(v1::TEXT_PROFILE_COMPACT, 4, &parsed);
  ArenaBatch<RecommendResponse> batch(512 * 1024);
  ArenaBatchStats stats;
  PerRecord per_record = RunBatch(&batch, records, &stats);
  ASSERT_EQ(per_record.addresses.size(), 4u);
  for (uintptr_t address : per_record.addresses) EXPECT_EQ(address, per_record.addresses.front());
}

TEST(ArenaBatchTest, AnUnparsableRecordIsAnInvalidArgumentNamingIt) {
  RecommendResponse parsed;
  std::vector<std::string> records = SameResponse(v1::TEXT_PROFILE_COMPACT, 1, &parsed);
  records.push_back("\xff\xff\xff\xff");  // field number 0 / truncated varint: not a message
  ArenaBatch<RecommendResponse> batch(64 * 1024);
  int visited = 0;
  absl::StatusOr<ArenaBatchStats> result =
      batch.ForEach(records, [&](const RecommendResponse&, google::protobuf::Arena*) { ++visited; });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "record 1 of 2 is not a valid reco.v1.RecommendResponse");
  EXPECT_EQ(visited, 1);
}

TEST(ArenaBatchTest, TotalResponsesAddsUpEveryRecord) {
  std::vector<std::string> records;
  uint64_t items = 0;
  int64_t amount = 0;
  for (int i = 0; i < 3; ++i) {
    v1::RecommendRequest request;
    request.set_item_count(10 + i);
    request.set_seed(i);
    RecommendResponse response;
    BuildResponse(DefaultCatalogue(), request, &response);
    items += response.items_size();
    for (const v1::Item& item : response.items()) amount += item.price().amount_micros();
    records.push_back(response.SerializeAsString());
  }
  absl::StatusOr<ResponseTotals> totals = TotalResponses(records, 256 * 1024);
  ASSERT_TRUE(totals.ok()) << totals.status();
  EXPECT_EQ(totals->responses, 3u);
  EXPECT_EQ(totals->items, items);
  EXPECT_EQ(totals->amount_micros, amount);
  EXPECT_NE(amount, 0);
}

}  // namespace
}  // namespace reco::patterns
