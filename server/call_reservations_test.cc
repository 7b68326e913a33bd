// CallReservations: a call's reservation lives exactly as long as its context, and
// contexts the allocator did not make are left to their owner (gRPC's handler for
// unserved paths hands it one of its own: deleting it aborted the server).
#include "server/call_reservations.h"

#include <memory>

#include <grpcpp/generic/async_generic_service.h>

#include "gtest/gtest.h"

namespace reco {
namespace {

TEST(CallReservationsTest, ReleaseGivesTheReservationBackWithTheContext) {
  ReplyBudget budget(/*capacity_bytes=*/1000, /*max_reply_bytes=*/600);
  CallReservations reservations(&budget, ReservationLimits{});
  grpc::CallbackServerContext* call = reservations.NewCallbackServerContext();
  ASSERT_NE(call, nullptr);
  EXPECT_TRUE(reservations.Reserve(call, 400).ok());
  EXPECT_EQ(reservations.Reserve(call, 100).code(), absl::StatusCode::kFailedPrecondition);  // one per call
  EXPECT_EQ(budget.stats().in_use_bytes, 400u);
  reservations.Release(call);  // deletes it: LeakSanitizer would report it otherwise
  EXPECT_EQ(budget.stats().in_use_bytes, 0u);
}

TEST(CallReservationsTest, ContextsItDidNotMakeAreNeitherReservedNorDeleted) {
  ReplyBudget budget(/*capacity_bytes=*/1000, /*max_reply_bytes=*/600);
  CallReservations reservations(&budget, ReservationLimits{});
  // What gRPC 1.51 hands over for a path the server does not serve: a generic
  // context in gRPC's own storage (here, the stack: a delete would abort).
  grpc::GenericCallbackServerContext generic;
  EXPECT_EQ(reservations.Reserve(&generic, 100).code(), absl::StatusCode::kFailedPrecondition);
  reservations.Release(&generic);
  // Any other context not made here is left alone too.
  auto plain = std::make_unique<grpc::CallbackServerContext>();
  EXPECT_EQ(reservations.Reserve(plain.get(), 100).code(), absl::StatusCode::kFailedPrecondition);
  reservations.Release(plain.get());
  EXPECT_EQ(budget.stats().in_use_bytes, 0u);
  EXPECT_EQ(budget.stats().admitted, 0u);
}

// Contexts made here but never bound to a gRPC call all have the same peer (""): to
// the allocator they are one connection.
TEST(CallReservationsTest, OneConnectionHoldsAtMostItsShare) {
  ReplyBudget budget(/*capacity_bytes=*/1000, /*max_reply_bytes=*/500);
  ReservationLimits limits;
  limits.max_connection_share = 0.5;
  limits.max_hold = absl::ZeroDuration();
  CallReservations reservations(&budget, limits);
  EXPECT_EQ(reservations.connection_cap_bytes(), 500u);
  std::unique_ptr<grpc::CallbackServerContext> a(reservations.NewCallbackServerContext());
  std::unique_ptr<grpc::CallbackServerContext> b(reservations.NewCallbackServerContext());
  std::unique_ptr<grpc::CallbackServerContext> c(reservations.NewCallbackServerContext());
  ASSERT_TRUE(reservations.Reserve(a.get(), 400).ok());
  absl::Status refused = reservations.Reserve(b.get(), 200);  // 600 > 500, though the budget has 600 left
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("--max_connection_budget_share"), absl::string_view::npos) << refused.message();
  EXPECT_NE(refused.message().find("--inflight_budget_bytes"), absl::string_view::npos) << refused.message();
  EXPECT_TRUE(reservations.Reserve(b.get(), 100).ok());  // exactly the share
  // Over the per-reply cap: the budget's refusal and message, not the share's.
  absl::Status too_big = reservations.Reserve(c.get(), 501);
  EXPECT_NE(too_big.message().find("--max_reply_bytes"), absl::string_view::npos) << too_big.message();
  ReplyBudget::Stats s = budget.stats();
  EXPECT_EQ(s.in_use_bytes, 500u);
  EXPECT_EQ(s.refused, 2u);
  EXPECT_EQ(s.refused_connection_share, 1u);
  reservations.Release(a.release());
  reservations.Release(b.release());
  EXPECT_EQ(budget.stats().in_use_bytes, 0u);
  EXPECT_TRUE(reservations.Reserve(c.get(), 500).ok()) << "the connection's count went back to 0";
  reservations.Release(c.release());
}

// All these contexts are one client too: its share binds even where a connection's
// does not (--max_connection_budget_share 1, as behind the edge).
TEST(CallReservationsTest, OneClientHoldsAtMostItsShare) {
  ReplyBudget budget(/*capacity_bytes=*/1000, /*max_reply_bytes=*/300);
  ReservationLimits limits;
  limits.max_connection_share = 1;
  limits.max_client_share = 0.4;
  limits.max_hold = absl::ZeroDuration();
  CallReservations reservations(&budget, limits);
  EXPECT_EQ(reservations.client_cap_bytes(), 400u);
  std::unique_ptr<grpc::CallbackServerContext> a(reservations.NewCallbackServerContext());
  std::unique_ptr<grpc::CallbackServerContext> b(reservations.NewCallbackServerContext());
  ASSERT_TRUE(reservations.Reserve(a.get(), 300).ok());
  absl::Status refused = reservations.Reserve(b.get(), 200);  // 500 > 400
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("--max_client_budget_share"), absl::string_view::npos) << refused.message();
  EXPECT_EQ(budget.stats().refused_client_share, 1u);
  EXPECT_TRUE(reservations.Reserve(b.get(), 100).ok());  // exactly the share
  reservations.Release(a.release());
  reservations.Release(b.release());
  EXPECT_EQ(budget.stats().in_use_bytes, 0u);
}

}  // namespace
}  // namespace reco
