// SPDX-License-Identifier: Apache-2.0
// Proves what arena_message_allocator.h claims, with a real in-process callback server.
#include "patterns/arena_message_allocator.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/allocation_counter.h"
#include "core/response_builder.h"
#include "core/test_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/reco.grpc.pb.h"

namespace reco::patterns {
namespace {

using v1::RecommendRequest;
using v1::RecommendResponse;
using Allocator = ArenaMessageAllocator<RecommendRequest, RecommendResponse>;

// What the handler saw, recorded while the messages were still alive.
struct Observation {
  const google::protobuf::Arena* request_arena = nullptr;
  const google::protobuf::Arena* response_arena = nullptr;
  std::vector<std::string> response_paths_off_arena;
};

class ObservingRecommender final : public v1::Recommender::CallbackService {
 public:
  grpc::ServerUnaryReactor* Recommend(grpc::CallbackServerContext* ctx, const RecommendRequest* request,
                                      RecommendResponse* response) override {
    Observation seen;
    seen.request_arena = request->GetArena();
    seen.response_arena = response->GetArena();
    BuildResponse(DefaultCatalogue(), *request, response);
    seen.response_paths_off_arena = testing::MessagesNotOnArena(*response, response->GetArena());
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(std::move(seen));
    }
    auto* reactor = ctx->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  std::vector<Observation> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::vector<Observation> seen_;
};

// Starts `service` on 127.0.0.1 with an ephemeral port, sends `rpcs` requests and
// checks every response against a locally built one.
void ServeAndCall(ObservingRecommender* service, int rpcs) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_NE(port, 0);

  auto stub = v1::Recommender::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  for (int i = 0; i < rpcs; ++i) {
    RecommendRequest request;
    request.set_user_id("user-with-a-long-identifier-" + std::to_string(i));  // > 15 bytes
    request.set_item_count(20 + i);
    request.set_seed(i);
    RecommendResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Status status = stub->Recommend(&ctx, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    RecommendResponse expected;
    BuildResponse(DefaultCatalogue(), request, &expected);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(response, expected)) << "rpc " << i;
  }
  server->Shutdown();
  server->Wait();
}

TEST(ArenaMessageAllocatorTest, HandlerSeesRequestAndResponseOnOneArena) {
  constexpr int kRpcs = 5;
  Allocator allocator;
  ObservingRecommender service;
  service.SetMessageAllocatorFor_Recommend(&allocator);
  ServeAndCall(&service, kRpcs);

  std::vector<Observation> seen = service.seen();
  ASSERT_EQ(seen.size(), static_cast<size_t>(kRpcs));
  for (const Observation& o : seen) {
    EXPECT_NE(o.request_arena, nullptr);
    EXPECT_EQ(o.response_arena, o.request_arena);
    EXPECT_TRUE(o.response_paths_off_arena.empty()) << o.response_paths_off_arena.front();
  }
  // A fresh arena per RPC: one AllocateMessages() each. (Comparing arena addresses
  // would be wrong: malloc may hand a freed arena's memory to the next one.)
  // Shutdown() + Wait() returned, so every RPC is complete and released exactly once.
  EXPECT_EQ(allocator.allocated(), static_cast<uint64_t>(kRpcs));
  EXPECT_EQ(allocator.released(), static_cast<uint64_t>(kRpcs));
}

TEST(ArenaMessageAllocatorTest, WithoutTheAllocatorMessagesHaveNoArena) {
  ObservingRecommender service;  // no SetMessageAllocatorFor_Recommend
  ServeAndCall(&service, 2);
  std::vector<Observation> seen = service.seen();
  ASSERT_EQ(seen.size(), 2u);
  for (const Observation& o : seen) {
    EXPECT_EQ(o.request_arena, nullptr);
    EXPECT_EQ(o.response_arena, nullptr);
  }
}

// Mallocs made by AllocateMessages() and frees made by Release() for one RPC.
AllocationCounts SetupCost(Allocator* allocator, AllocationCounts* teardown) {
  AllocationCounts before = AllocationCounter::ThisThread();
  grpc::MessageHolder<RecommendRequest, RecommendResponse>* holder = allocator->AllocateMessages();
  AllocationCounts setup = AllocationCounter::ThisThread() - before;
  EXPECT_NE(holder->request()->GetArena(), nullptr);
  EXPECT_EQ(holder->response()->GetArena(), holder->request()->GetArena());
  before = AllocationCounter::ThisThread();
  holder->Release();
  *teardown = AllocationCounter::ThisThread() - before;
  return setup;
}

// The Arena lives inside the holder and both messages on the arena: one RPC's setup
// is exactly two mallocs -- the holder and the arena's first block (256 bytes by
// default, which holds the two empty messages) -- and Release() frees exactly those.
TEST(ArenaMessageAllocatorTest, HolderAndArenaShareOneMalloc) {
  Allocator allocator;
  AllocationCounts teardown;
  AllocationCounts setup = SetupCost(&allocator, &teardown);
  EXPECT_EQ(setup.allocs, 2u);
  EXPECT_EQ(setup.frees, 0u);
  EXPECT_EQ(setup.bytes, sizeof(Allocator::Holder) + 256);
  EXPECT_EQ(teardown.allocs, 0u);
  EXPECT_EQ(teardown.frees, 2u);
  EXPECT_EQ(allocator.allocated(), 1u);
  EXPECT_EQ(allocator.released(), 1u);
}

// Building a whole compact 200-item response (every string <= 15 bytes) inside the
// handler: with a first block as big as the response, the RPC's arena makes one
// block; with the defaults, blocks double from 256 bytes up to 8 KiB.
AllocationCounts BuildCompactResponse(Allocator* allocator) {
  RecommendRequest request;
  request.set_text_profile(v1::TEXT_PROFILE_COMPACT);
  const Catalogue& catalogue = DefaultCatalogue();  // built (once) before counting
  AllocationCounts before = AllocationCounter::ThisThread();
  grpc::MessageHolder<RecommendRequest, RecommendResponse>* holder = allocator->AllocateMessages();
  BuildResponse(catalogue, request, holder->response());
  AllocationCounts used = AllocationCounter::ThisThread() - before;
  EXPECT_EQ(holder->response()->items_size(), 200);
  before = AllocationCounter::ThisThread();
  holder->Release();
  AllocationCounts freed = AllocationCounter::ThisThread() - before;
  EXPECT_EQ(freed.frees, used.allocs);
  return used;
}

TEST(ArenaMessageAllocatorTest, FirstBlockSizedForTheResponseMakesOneBlock) {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 256 * 1024;
  Allocator sized(options);
  AllocationCounts with_sized_block = BuildCompactResponse(&sized);
  EXPECT_EQ(with_sized_block.allocs, 2u);  // the holder and one 256 KiB block
  EXPECT_EQ(with_sized_block.bytes, sizeof(Allocator::Holder) + 256 * 1024);

  Allocator defaults;
  AllocationCounts with_defaults = BuildCompactResponse(&defaults);
  EXPECT_EQ(with_defaults.allocs, 36u);  // the holder and 35 blocks
  std::printf("compact 200-item response on the RPC's arena: %llu mallocs with a 256 KiB first block, "
              "%llu with default ArenaOptions\n",
              static_cast<unsigned long long>(with_sized_block.allocs),
              static_cast<unsigned long long>(with_defaults.allocs));
}

// A shared initial block would be handed to concurrent RPCs: refused loudly, even in
// release builds.
TEST(ArenaMessageAllocatorDeathTest, RefusesAnInitialBlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  static char block[1024];
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = sizeof(block);
  EXPECT_DEATH(Allocator{options}, "initial_block must be null");
}

}  // namespace
}  // namespace reco::patterns
