// SPDX-License-Identifier: Apache-2.0
// Proves what arena_message_allocator.h claims, with a real in-process callback server.
#include "arena_message_allocator.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "feed.grpc.pb.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"
#include "testing/local_server.h"
#include "testing/malloc_counter.h"
#include "testing/message_tree.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using testing::MallocCounter;
using testing::MallocCounts;
using Allocator = ArenaMessageAllocator<FeedRequest, FeedResponse>;

// What the handler saw, recorded while the messages were still alive.
struct Observation {
  const google::protobuf::Arena* request_arena = nullptr;
  const google::protobuf::Arena* response_arena = nullptr;
  std::vector<std::string> response_paths_off_arena;
};

class ObservingFeed final : public feed::v1::Feed::CallbackService {
 public:
  grpc::ServerUnaryReactor* GetFeed(grpc::CallbackServerContext* ctx, const FeedRequest* request,
                                    FeedResponse* response) override {
    Observation seen;
    seen.request_arena = request->GetArena();
    seen.response_arena = response->GetArena();
    testing::FillFeed(*request, response);
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
void ServeAndCall(ObservingFeed* service, int rpcs) {
  testing::LocalServer served([&](grpc::ServerBuilder* builder) { builder->RegisterService(service); });
  ASSERT_TRUE(served.started());
  for (int i = 0; i < rpcs; ++i) {
    FeedRequest request;
    request.set_user_id("user-with-a-long-identifier-" + std::to_string(i));  // > 15 bytes
    request.set_post_count(20 + i);
    FeedResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Status status = served.stub()->GetFeed(&ctx, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    FeedResponse expected;
    testing::FillFeed(request, &expected);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(response, expected)) << "rpc " << i;
  }
}

TEST(ArenaMessageAllocatorTest, HandlerSeesRequestAndResponseOnOneArena) {
  constexpr int kRpcs = 5;
  Allocator allocator;
  ObservingFeed service;
  service.SetMessageAllocatorFor_GetFeed(&allocator);
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
  ObservingFeed service;  // no SetMessageAllocatorFor_GetFeed
  ServeAndCall(&service, 2);
  std::vector<Observation> seen = service.seen();
  ASSERT_EQ(seen.size(), 2u);
  for (const Observation& o : seen) {
    EXPECT_EQ(o.request_arena, nullptr);
    EXPECT_EQ(o.response_arena, nullptr);
  }
}

// Mallocs made by AllocateMessages() and frees made by Release() for one RPC.
MallocCounts SetupCost(Allocator* allocator, MallocCounts* teardown) {
  MallocCounts before = MallocCounter::ThisThread();
  grpc::MessageHolder<FeedRequest, FeedResponse>* holder = allocator->AllocateMessages();
  MallocCounts setup = MallocCounter::ThisThread() - before;
  EXPECT_NE(holder->request()->GetArena(), nullptr);
  EXPECT_EQ(holder->response()->GetArena(), holder->request()->GetArena());
  before = MallocCounter::ThisThread();
  holder->Release();
  *teardown = MallocCounter::ThisThread() - before;
  return setup;
}

// The Arena lives inside the holder and both messages on the arena: one RPC's setup
// is exactly two mallocs -- the holder and the arena's first block (256 bytes by
// default, which holds the two empty messages) -- and Release() frees exactly those.
TEST(ArenaMessageAllocatorTest, HolderAndArenaShareOneMalloc) {
  Allocator allocator;
  MallocCounts teardown;
  MallocCounts setup = SetupCost(&allocator, &teardown);
  EXPECT_EQ(setup.allocs, 2u);
  EXPECT_EQ(setup.frees, 0u);
  EXPECT_EQ(setup.bytes, sizeof(Allocator::Holder) + 256);
  EXPECT_EQ(teardown.allocs, 0u);
  EXPECT_EQ(teardown.frees, 2u);
  EXPECT_EQ(allocator.allocated(), 1u);
  EXPECT_EQ(allocator.released(), 1u);
}

// Building a whole 200-post reply with short strings (every one <= 15 bytes) inside
// the handler: with a first block as big as the reply, the RPC's arena makes one
// block; with the defaults, blocks double from 256 bytes up to 8 KiB.
MallocCounts BuildShortTextReply(Allocator* allocator, uint64_t* arena_bytes) {
  FeedRequest request;
  request.set_post_count(200);
  MallocCounts before = MallocCounter::ThisThread();
  grpc::MessageHolder<FeedRequest, FeedResponse>* holder = allocator->AllocateMessages();
  testing::FillFeed(request, holder->response());
  MallocCounts used = MallocCounter::ThisThread() - before;
  EXPECT_EQ(holder->response()->posts_size(), 200);
  *arena_bytes = holder->response()->GetArena()->SpaceAllocated();
  before = MallocCounter::ThisThread();
  holder->Release();
  MallocCounts freed = MallocCounter::ThisThread() - before;
  EXPECT_EQ(freed.frees, used.allocs);
  return used;
}

TEST(ArenaMessageAllocatorTest, FirstBlockSizedForTheResponseMakesOneBlock) {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 256 * 1024;
  Allocator sized(options);
  uint64_t arena_bytes = 0;
  MallocCounts with_sized_block = BuildShortTextReply(&sized, &arena_bytes);
  EXPECT_EQ(with_sized_block.allocs, 2u);  // the holder and one 256 KiB block
  EXPECT_EQ(with_sized_block.bytes, sizeof(Allocator::Holder) + 256 * 1024);

  Allocator defaults;
  MallocCounts with_defaults = BuildShortTextReply(&defaults, &arena_bytes);
  EXPECT_EQ(with_defaults.allocs, 28u);  // the holder and 27 blocks
  // Every malloc but the holder is one of the arena's blocks.
  EXPECT_EQ(with_defaults.bytes, sizeof(Allocator::Holder) + arena_bytes);
  std::printf(
      "200-post short-text reply on the RPC's arena: %llu mallocs with a 256 KiB first block, "
      "%llu with default ArenaOptions\n",
      static_cast<unsigned long long>(with_sized_block.allocs), static_cast<unsigned long long>(with_defaults.allocs));
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
