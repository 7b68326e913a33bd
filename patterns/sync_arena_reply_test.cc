// SPDX-License-Identifier: Apache-2.0
// Proves sync_arena_reply.h on a real synchronous gRPC server (127.0.0.1:0): its
// replies parse equal to FillFeed's, a hostile call is refused with INVALID_ARGUMENT,
// and -- after warm-up -- the exact mallocs a handler makes per call in each option a
// synchronous handler has:
//   (a) build straight into gRPC's response (the typed sync API),
//   (b) build on a pooled arena, then response->CopyFrom(built),
//   (c) this header: a raw sync method, built on a pooled arena, serialized into one
//       slice, the arena Reset,
//   (r) a raw sync method with a reused heap message of the thread's (Clear(), build,
//       serialize): the "reuse" option.
// Starts gRPC servers, so not judged under TSan (Debian's gRPC is not TSan-built):
// the pool's threading is proven in sync_arena_reply_threads_test.cc.
#include "sync_arena_reply.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "byte_buffer_bytes.h"
#include "feed.grpc.pb.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"
#include "testing/local_server.h"
#include "testing/malloc_counter.h"
#include "testing/message_tree.h"
#include "testing/raw_call.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using testing::MallocCounter;
using testing::MallocCounts;

constexpr int kPosts = 200;

FeedRequest Request(bool long_text) {
  FeedRequest request;
  request.set_user_id("user-7");  // short: parsing it mallocs nothing
  request.set_post_count(kPosts);
  request.set_long_text(long_text);
  return request;
}

FeedResponse Expected(const FeedRequest& request) {
  FeedResponse expected;
  testing::FillFeed(request, &expected);
  return expected;
}

MallocCounts Since(const MallocCounts& before) { return MallocCounter::ThisThread() - before; }

// --- Without a server ------------------------------------------------------------------

TEST(SerializeToOneSliceTest, OneSliceOfTheMessagesBytesForTwoMallocs) {
  const FeedResponse reply = Expected(Request(false));
  grpc::ByteBuffer bytes;
  ASSERT_TRUE(SerializeToOneSlice(reply, &bytes).ok());  // warm-up
  bytes.Clear();
  const MallocCounts before = MallocCounter::ThisThread();
  ASSERT_TRUE(SerializeToOneSlice(reply, &bytes).ok());
  const MallocCounts used = Since(before);
  EXPECT_EQ(used.allocs, 2u) << "the slice and gRPC's byte buffer";
  EXPECT_EQ(used.frees, 0u);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(bytes.Dump(&slices).ok());
  EXPECT_EQ(slices.size(), 1u);
  EXPECT_EQ(ByteBufferBytes(bytes), reply.SerializeAsString());

  // A reply that fits in a slice's inline bytes needs no slice allocation.
  FeedResponse tiny;
  tiny.set_request_id("r");
  grpc::ByteBuffer tiny_bytes;
  const MallocCounts before_tiny = MallocCounter::ThisThread();
  ASSERT_TRUE(SerializeToOneSlice(tiny, &tiny_bytes).ok());
  EXPECT_EQ(Since(before_tiny).allocs, 1u) << "gRPC's byte buffer only";
  EXPECT_EQ(ByteBufferBytes(tiny_bytes), tiny.SerializeAsString());
}

TEST(SyncArenaRepliesTest, ACallBuildsOnAPooledArenaThatEndsEmptyAndIsReused) {
  SyncArenaReplies replies;
  const FeedRequest request = Request(false);
  google::protobuf::Arena* first = nullptr;
  for (int call_number = 0; call_number < 3; ++call_number) {
    SyncArenaReplies::Call call = replies.Begin();
    EXPECT_TRUE(call.pooled());
    if (first == nullptr) first = call.arena();
    EXPECT_EQ(call.arena(), first) << "call " << call_number << " got another arena";
    EXPECT_EQ(call.arena()->SpaceUsed(), 0u) << "the last call's messages are still on the arena";
    auto* reply = call.Create<FeedResponse>();
    testing::FillFeed(request, reply);
    EXPECT_EQ(reply->GetArena(), call.arena());
    std::vector<std::string> stray = testing::MessagesNotOnArena(*reply, call.arena());
    EXPECT_TRUE(stray.empty()) << stray.size() << " messages off the arena";
  }
  SyncArenaRepliesStats s = replies.stats();
  EXPECT_EQ(s.calls, 3u);
  EXPECT_EQ(s.arenas_created, 1u);
  EXPECT_EQ(s.unpooled, 0u);
  EXPECT_EQ(s.overflows, 0u);
  EXPECT_EQ(s.idle, 1u);
}

TEST(SyncArenaRepliesTest, AtMostMaxArenasArePooledTheRestGetAPlainArena) {
  SyncArenaRepliesOptions options;
  options.block_bytes = 64 * 1024;
  options.max_arenas = 2;
  SyncArenaReplies replies(options);
  {
    SyncArenaReplies::Call one = replies.Begin();
    SyncArenaReplies::Call two = replies.Begin();
    SyncArenaReplies::Call three = replies.Begin();
    EXPECT_TRUE(one.pooled());
    EXPECT_TRUE(two.pooled());
    EXPECT_FALSE(three.pooled());
    testing::FillFeed(Request(false), three.Create<FeedResponse>());  // usable all the same
  }
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(replies.Begin().pooled());
  SyncArenaRepliesStats s = replies.stats();
  EXPECT_EQ(s.calls, 8u);
  EXPECT_EQ(s.arenas_created, 2u);
  EXPECT_EQ(s.unpooled, 1u);
  EXPECT_EQ(s.idle, 2u);  // the plain arena was freed as its call ended
}

TEST(SyncArenaRepliesTest, AReplyLargerThanTheBlockSpillsAndTheCallsEndFreesTheSpill) {
  SyncArenaRepliesOptions options;
  options.block_bytes = 16 * 1024;  // far too small for 200 posts
  SyncArenaReplies replies(options);
  replies.Begin();  // makes the pooled arena
  const FeedRequest request = Request(false);
  MallocCounts build, before_end;
  [&] {
    const MallocCounts before = MallocCounter::ThisThread();
    SyncArenaReplies::Call call = replies.Begin();
    testing::FillFeed(request, call.Create<FeedResponse>());
    build = Since(before);
    before_end = MallocCounter::ThisThread();
  }();  // the call ends here
  const MallocCounts end = Since(before_end);
  EXPECT_GT(build.allocs, 0u);
  EXPECT_EQ(end.frees, build.allocs) << "the call's end must free every spilled block";
  EXPECT_EQ(end.allocs, 0u);
  SyncArenaRepliesStats s = replies.stats();
  EXPECT_EQ(s.overflows, 1u);
  EXPECT_EQ(s.arenas_created, 1u);
  EXPECT_EQ(s.idle, 1u);
}

// --- What a sync unary call does with the reply, as gRPC's RpcMethodHandler does it ---

// One call's reply work on the handler thread, without a server: the handler, gRPC's
// serialization of what the handler gave it, then the destruction of both (all on
// the handler's thread in a sync server). The typed API serializes with
// grpc::SerializationTraits<FeedResponse>; a raw method's bytes are handed over by
// SerializationTraits<grpc::ByteBuffer> (a new reference to the same slice).
struct ReplyWork {
  MallocCounts build;      // the handler (for the raw method: its serialization too)
  MallocCounts serialize;  // gRPC, after the handler returned
  MallocCounts destroy;    // gRPC, once the reply is sent
};

ReplyWork TypedCall(const FeedRequest& request, std::string* sent_bytes) {
  ReplyWork work;
  std::optional<FeedResponse> response;
  std::optional<grpc::ByteBuffer> sent;
  MallocCounts before = MallocCounter::ThisThread();
  response.emplace();                      // gRPC's per-call response
  testing::FillFeed(request, &*response);  // the handler
  work.build = Since(before);
  before = MallocCounter::ThisThread();
  sent.emplace();
  bool own = false;
  EXPECT_TRUE(grpc::SerializationTraits<FeedResponse>::Serialize(*response, &*sent, &own).ok());
  work.serialize = Since(before);
  *sent_bytes = ByteBufferBytes(*sent);
  before = MallocCounter::ThisThread();
  response.reset();
  sent.reset();
  work.destroy = Since(before);
  return work;
}

ReplyWork RawArenaCall(SyncArenaReplies& replies, const FeedRequest& request, std::string* sent_bytes) {
  ReplyWork work;
  std::optional<grpc::ByteBuffer> response;
  std::optional<grpc::ByteBuffer> sent;
  MallocCounts before = MallocCounter::ThisThread();
  response.emplace();  // gRPC's per-call response bytes
  {
    SyncArenaReplies::Call call = replies.Begin();  // the handler
    auto* reply = call.Create<FeedResponse>();
    testing::FillFeed(request, reply);
    EXPECT_TRUE(call.Serialize(*reply, &*response).ok());
  }
  work.build = Since(before);
  before = MallocCounter::ThisThread();
  sent.emplace();
  bool own = false;
  EXPECT_TRUE(grpc::SerializationTraits<grpc::ByteBuffer>::Serialize(*response, &*sent, &own).ok());
  work.serialize = Since(before);
  *sent_bytes = ByteBufferBytes(*sent);
  before = MallocCounter::ThisThread();
  response.reset();
  sent.reset();
  work.destroy = Since(before);
  return work;
}

void Print(const char* name, const ReplyWork& w) {
  std::printf("%s: build %llu/%llu, serialize %llu/%llu, destroy %llu/%llu (mallocs/frees)\n", name,
              static_cast<unsigned long long>(w.build.allocs), static_cast<unsigned long long>(w.build.frees),
              static_cast<unsigned long long>(w.serialize.allocs), static_cast<unsigned long long>(w.serialize.frees),
              static_cast<unsigned long long>(w.destroy.allocs), static_cast<unsigned long long>(w.destroy.frees));
}

TEST(SyncCallWorkTest, ExactMallocsOfAWholeCallsReplyHeapVersusPooledArena) {
  const FeedRequest request = Request(false);
  const std::string expected = Expected(request).SerializeAsString();
  SyncArenaReplies replies;
  std::string sent;
  TypedCall(request, &sent);  // warm-up
  RawArenaCall(replies, request, &sent);
  const ReplyWork typed = TypedCall(request, &sent);
  EXPECT_EQ(sent, expected);
  const ReplyWork raw = RawArenaCall(replies, request, &sent);
  EXPECT_EQ(sent, expected);
  Print("typed", typed);
  Print("raw arena", raw);
  // Typed: the heap build (see ExactMallocsPerCallInTheHandlerForEachOption), gRPC's
  // byte buffer and one slice, and every one of them freed again.
  EXPECT_EQ(typed.build, (MallocCounts{22 * kPosts + 4, 4 * kPosts, typed.build.bytes}));
  EXPECT_EQ(typed.serialize.allocs, 2u);
  EXPECT_EQ(typed.serialize.frees, 0u);
  EXPECT_EQ(typed.destroy.allocs, 0u);
  EXPECT_EQ(typed.destroy.frees, 18u * kPosts + 4 + 2);
  // Raw on a pooled arena: the slice and a byte buffer in the handler, gRPC's own
  // byte buffer (a new reference to the slice), and those three freed.
  EXPECT_EQ(raw.build, (MallocCounts{2, 0, raw.build.bytes}));
  EXPECT_EQ(raw.serialize, (MallocCounts{1, 0, raw.serialize.bytes}));
  EXPECT_EQ(raw.destroy, (MallocCounts{0, 3, 0}));
}

// --- On a real synchronous server ------------------------------------------------------

// Each handler's own mallocs per call, counted on its thread, with whether the call
// was the first on that thread (a thread's first call may warm thread-local state).
// gRPC's sync server ends and starts handler threads, and a new thread may get an
// exited one's id: a thread is told new by its thread_local storage, not by its id.
class CallLog {
 public:
  struct Entry {
    MallocCounts counts;
    bool first_on_thread;
  };
  void Add(const MallocCounts& counts) {
    thread_local std::set<const CallLog*> logged_here;
    const bool first = logged_here.insert(this).second;
    std::lock_guard<std::mutex> lock(mu_);
    entries_.push_back({counts, first});
  }
  std::vector<Entry> entries() {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_;
  }

 private:
  std::mutex mu_;
  std::vector<Entry> entries_;
};

// (a) The typed sync API: build straight into gRPC's response.
class HeapFeed final : public feed::v1::Feed::Service {
 public:
  grpc::Status GetFeed(grpc::ServerContext*, const FeedRequest* request, FeedResponse* response) override {
    const MallocCounts before = MallocCounter::ThisThread();
    testing::FillFeed(*request, response);
    log.Add(Since(before));
    return grpc::Status::OK;
  }
  CallLog log;
};

// (b) The typed sync API: build on a pooled arena, then copy into gRPC's response.
class CopiedFeed final : public feed::v1::Feed::Service {
 public:
  grpc::Status GetFeed(grpc::ServerContext*, const FeedRequest* request, FeedResponse* response) override {
    const MallocCounts before = MallocCounter::ThisThread();
    {
      SyncArenaReplies::Call call = replies.Begin();
      auto* built = call.Create<FeedResponse>();
      testing::FillFeed(*request, built);
      response->CopyFrom(*built);
    }
    log.Add(Since(before));
    return grpc::Status::OK;
  }
  SyncArenaReplies replies;
  CallLog log;
};

// (c) This header: a raw sync method on a pooled arena -- the header's example, counted.
class ArenaFeed final : public SyncRawService {
 public:
  ArenaFeed() {
    AddUnary("/feed.v1.Feed/GetFeed", [this](grpc::ServerContext*, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) {
      const MallocCounts before = MallocCounter::ThisThread();
      grpc::Status status = Get(*in, out);
      log.Add(Since(before));
      return status;
    });
  }
  grpc::Status Get(const grpc::ByteBuffer& request_bytes, grpc::ByteBuffer* reply_bytes) {
    SyncArenaReplies::Call call = replies.Begin();
    auto* request = call.Create<FeedRequest>();
    grpc::Status status = ParseRawRequest(request_bytes, request);
    if (!status.ok()) return status;
    auto* reply = call.Create<FeedResponse>();
    testing::FillFeed(*request, reply);
    return call.Serialize(*reply, reply_bytes);
  }
  SyncArenaReplies replies;
  CallLog log;
};

// (r) A raw sync method reusing a heap message of the thread's: Clear(), build,
// serialize -- "reuse", the one way a sync handler can reuse a reply.
class ReusedFeed final : public SyncRawService {
 public:
  ReusedFeed() {
    AddUnary("/feed.v1.Feed/GetFeed", [this](grpc::ServerContext*, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) {
      const MallocCounts before = MallocCounter::ThisThread();
      grpc::Status status = Get(*in, out);
      log.Add(Since(before));
      return status;
    });
  }
  static grpc::Status Get(const grpc::ByteBuffer& request_bytes, grpc::ByteBuffer* reply_bytes) {
    thread_local FeedResponse reused;
    FeedRequest request;
    grpc::Status status = ParseRawRequest(request_bytes, &request);
    if (!status.ok()) return status;
    reused.Clear();
    testing::FillFeed(request, &reused);
    return SerializeToOneSlice(reused, reply_bytes);
  }
  CallLog log;
};

// A server on 127.0.0.1:0 serving `service`, and calls to it, each with a deadline.
class Served {
 public:
  explicit Served(grpc::Service* service)
      : served_([&](grpc::ServerBuilder* builder) { builder->RegisterService(service); }) {
    EXPECT_TRUE(served_.started());
  }
  bool started() const { return served_.started(); }

  grpc::Status GetFeed(const FeedRequest& request, FeedResponse* reply) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return served_.stub()->GetFeed(&context, request, reply);
  }

  // One GetFeed call sending `request_bytes` (nothing at all when nullopt).
  grpc::Status CallRaw(const std::optional<std::string>& request_bytes, std::string* reply) {
    return testing::CallRawUnary(served_.channel().get(), "/feed.v1.Feed/GetFeed", request_bytes, reply);
  }

 private:
  testing::LocalServer served_;
};

constexpr int kWarmupCalls = 10, kMeasuredCalls = 20;

// Runs warm-up and measured calls, every reply compared with FillFeed's, and returns
// the handler's counts of the measured calls that were not the first on their thread.
std::vector<MallocCounts> MeasuredCalls(grpc::Service* service, CallLog* log, const FeedRequest& request) {
  const std::string expected = Expected(request).SerializeAsString();
  {
    Served served(service);
    if (!served.started()) return {};
    for (int i = 0; i < kWarmupCalls + kMeasuredCalls; ++i) {
      FeedResponse reply;
      grpc::Status status = served.GetFeed(request, &reply);
      EXPECT_TRUE(status.ok()) << status.error_message();
      EXPECT_EQ(reply.posts_size(), static_cast<int>(request.post_count()));
      EXPECT_EQ(reply.SerializeAsString(), expected) << "call " << i;
    }
  }  // the server is shut down: every handler has returned
  std::vector<CallLog::Entry> entries = log->entries();
  EXPECT_EQ(entries.size(), static_cast<size_t>(kWarmupCalls + kMeasuredCalls));
  std::vector<MallocCounts> measured;
  for (size_t i = kWarmupCalls; i < entries.size(); ++i) {
    if (!entries[i].first_on_thread) measured.push_back(entries[i].counts);
  }
  EXPECT_GE(measured.size(), static_cast<size_t>(kMeasuredCalls) / 2) << "calls kept landing on new threads";
  return measured;
}

void ExpectEveryCall(const char* option, const std::vector<MallocCounts>& calls, uint64_t allocs, uint64_t frees) {
  ASSERT_FALSE(calls.empty()) << option;
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].allocs, allocs) << option << ", measured call " << i;
    EXPECT_EQ(calls[i].frees, frees) << option << ", measured call " << i;
  }
  std::printf("%s: %llu mallocs, %llu frees per call in the handler\n", option,
              static_cast<unsigned long long>(calls[0].allocs), static_cast<unsigned long long>(calls[0].frees));
}

TEST(SyncArenaReplyServerTest, ExactMallocsPerCallInTheHandlerForEachOption) {
  const FeedRequest request = Request(false);
  HeapFeed heap;
  const std::vector<MallocCounts> a = MeasuredCalls(&heap, &heap.log, request);
  CopiedFeed copied;
  const std::vector<MallocCounts> b = MeasuredCalls(&copied, &copied.log, request);
  ArenaFeed arena;
  const std::vector<MallocCounts> c = MeasuredCalls(&arena, &arena.log, request);
  ReusedFeed reused;
  const std::vector<MallocCounts> r = MeasuredCalls(&reused, &reused.log, request);
  // (a) Per post, 22 mallocs: the Post, its 4 sub-messages, 7 string objects (a heap
  // message news every string it sets, however short), the 3 tags and their array
  // (grown once: 2), the topic ids' array (grown once: 2), the features' array (grown
  // twice: 3); 4 of them freed at once as arrays grow. Per reply, 4 more: request_id,
  // the posts array, metadata, model_version. gRPC frees the rest after sending.
  ExpectEveryCall("(a) heap response", a, 22 * kPosts + 4, 4 * kPosts);
  // (b) Nothing on the arena, then the copy: the same heap tree with every array
  // allocated at its final size (18 per post) -- fewer mallocs than (a), and the
  // whole build again on top.
  ExpectEveryCall("(b) arena + CopyFrom", b, 18 * kPosts + 4, 0);
  // (c) Parse, build and Reset make none; the reply's bytes make 2: the slice and
  // gRPC's byte buffer (gRPC frees both after sending).
  ExpectEveryCall("(c) raw, pooled arena", c, 2, 0);
  // (r) Clear() keeps the posts, their strings and arrays but deletes every singular
  // sub-message: 11 mallocs and 11 frees per post come back each call (author and
  // media with their 2 strings, engagement, scores with its features array grown
  // twice), plus metadata and its string, plus the slice and the byte buffer.
  ExpectEveryCall("(r) raw, reused heap message", r, 11 * kPosts + 5, 11 * kPosts + 3);
}

// A string over 15 bytes keeps its characters on the heap even on an arena
// (protobuf 3.21): one malloc each while building, freed as the call ends.
TEST(SyncArenaReplyServerTest, LongStringsCostOneMallocEachFreedAtTheCallsEnd) {
  const FeedRequest request = Request(/*long_text=*/true);
  const FeedResponse expected = Expected(request);
  const uint64_t long_strings = static_cast<uint64_t>(testing::StringsLongerThan(expected, 15));
  EXPECT_EQ(long_strings, 10u * kPosts + 2);  // every string of the reply
  ArenaFeed arena;
  const std::vector<MallocCounts> c = MeasuredCalls(&arena, &arena.log, request);
  ExpectEveryCall("(c) raw, pooled arena, long strings", c, long_strings + 2, long_strings);
  EXPECT_EQ(arena.replies.stats().overflows, 0u);
}

TEST(SyncArenaReplyServerTest, ACallThatSendsNoRequestIsRefused) {
  ArenaFeed service;
  Served served(&service);
  ASSERT_TRUE(served.started());
  std::string reply;
  grpc::Status status = served.CallRaw(std::nullopt, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "no request message arrived: the stream ended before a whole message");
  EXPECT_EQ(reply, "") << "a reply to a request that never came";
  EXPECT_EQ(service.log.entries().size(), 1u) << "the handler ran and refused";
}

TEST(SyncArenaReplyServerTest, GarbageIsRefusedAndTheServerGoesOnServing) {
  ArenaFeed service;
  Served served(&service);
  ASSERT_TRUE(served.started());
  std::string reply;
  grpc::Status status = served.CallRaw(std::string("\xff\xff\xff\xff", 4), &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "the request is not a feed.v1.FeedRequest");
  EXPECT_EQ(reply, "");

  const FeedRequest request = Request(false);
  ASSERT_TRUE(served.CallRaw(request.SerializeAsString(), &reply).ok());
  EXPECT_EQ(reply, Expected(request).SerializeAsString());
  // The refused call ended its arena call like the served one: both arenas are idle.
  SyncArenaRepliesStats s = service.replies.stats();
  EXPECT_EQ(s.calls, 2u);
  EXPECT_EQ(s.idle, s.arenas_created);
}

}  // namespace
}  // namespace reco::patterns
