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
  CallReservations reservations(&budget);
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
  CallReservations reservations(&budget);
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

}  // namespace
}  // namespace reco
