// ReplyBudget: refusals at the capacity and the per-reply cap, exact totals under
// threads (labelled tsan: atomics only, no gRPC).
#include "server/reply_budget.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace reco {
namespace {

TEST(ReplyBudgetTest, RefusesPastTheCapacityAndAdmitsAgainAfterARelease) {
  ReplyBudget budget(/*capacity_bytes=*/1000, /*max_reply_bytes=*/600);
  EXPECT_TRUE(budget.Reserve(600).ok());
  absl::Status refused = budget.Reserve(500);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("--inflight_budget_bytes"), absl::string_view::npos) << refused.message();
  EXPECT_TRUE(budget.Reserve(400).ok());  // exactly full
  budget.Release(600);
  EXPECT_TRUE(budget.Reserve(500).ok());
  ReplyBudget::Stats s = budget.stats();
  EXPECT_EQ(s.in_use_bytes, 900u);
  EXPECT_EQ(s.peak_bytes, 1000u);
  EXPECT_EQ(s.admitted, 3u);
  EXPECT_EQ(s.refused, 1u);
  budget.ResetPeak();
  EXPECT_EQ(budget.stats().peak_bytes, 900u);
}

TEST(ReplyBudgetTest, OneReplyOverTheCapIsRefusedEvenWhenTheBudgetIsEmpty) {
  ReplyBudget budget(/*capacity_bytes=*/1000, /*max_reply_bytes=*/600);
  absl::Status refused = budget.Reserve(601);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("--max_reply_bytes"), absl::string_view::npos) << refused.message();
  EXPECT_EQ(budget.stats().in_use_bytes, 0u);
}

TEST(ReplyBudgetTest, ThreadsNeverTakeMoreThanTheCapacityAndGiveEverythingBack) {
  constexpr int kThreads = 4, kTries = 20000;
  constexpr uint64_t kCapacity = 10 * 1000, kReply = 1000;
  ReplyBudget budget(kCapacity, kReply);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kTries; ++i) {
        if (budget.Reserve(kReply).ok()) budget.Release(kReply);
      }
    });
  }
  for (auto& t : threads) t.join();
  ReplyBudget::Stats s = budget.stats();
  EXPECT_EQ(s.in_use_bytes, 0u);
  EXPECT_LE(s.peak_bytes, kCapacity);
  EXPECT_EQ(s.admitted + s.refused, uint64_t{kThreads} * kTries);
}

}  // namespace
}  // namespace reco
