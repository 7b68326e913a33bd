// SPDX-License-Identifier: Apache-2.0
// The examples a reader copies -- the block at the top of each pattern header --
// compiled and run here, so that they cannot drift from the code they show.
//
// Each example stands below between a line "// example from FILE" and a line
// "// end of example", in a context that declares what it uses (a service, a
// request's bytes, a Fill() of the reader's own; the messages are the test service's,
// testing/feed.proto). At run time this test reads its own source and FILE (in this
// folder, PATTERNS_DIR) and requires the same lines there, as the file's comment
// block ("//   " + line), the whole of that block. Every pattern header (this
// folder's, not testing/'s) with an "// Example" or "// Install" block must have its
// example in this test.
// The examples are compared line for line with the text they come from, so they
// keep that text's layout:
// clang-format off
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/support/byte_buffer.h>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "google/protobuf/arena.h"
#include "append_best.h"
#include "arena_alias.h"
#include "arena_batch.h"
#include "arena_message_allocator.h"
#include "arena_write_reactor.h"
#include "async_arena_call.h"
#include "async_arena_writer.h"
#include "block_arena.h"
#include "byte_buffer_bytes.h"
#include "feed.grpc.pb.h"
#include "gtest/gtest.h"
#include "idle_pool.h"
#include "message_pool.h"
#include "pooled_arena_allocator.h"
#include "raw_request.h"
#include "reused_message_allocator.h"
#include "sized_reply.h"
#include "spliced_reply.h"
#include "sync_arena_reply.h"
#include "testing/feed_builder.h"
#include "testing/malloc_counter.h"
#include "testing/message_tree.h"
#include "testing/test_arena.h"

namespace reco::patterns {
namespace {

namespace v1 = ::feed::v1;
using feed::v1::Feed;
using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using testing::FillFeed;
using testing::MallocCounter;
using testing::MallocCounts;
using testing::MessagesNotOnArena;
using testing::RoomyArena;
using testing::StringsLongerThan;

// What the examples leave to the reader: their own data and handlers.
void FillCandidate(int i, v1::Post* post) {
  post->set_post_id("candidate-" + std::to_string(i));
  post->mutable_scores()->set_relevance(static_cast<float>(i % 97));
}
void FillAndUse(v1::FeedResponse* r) { r->add_posts()->set_post_id("used"); }
struct Buffer {
  std::string bytes;
};
void Use(Buffer& b) { b.bytes.assign("used"); }
void Fill(v1::FeedResponse* r) { r->set_request_id("filled"); }
void Fill(const FeedRequest& request, FeedResponse* response) { FillFeed(request, response); }
int sent = 0;
void Send(const v1::FeedResponse& r) { sent += r.request_id() == "filled"; }

// The streaming patterns' examples are classes: compiled here; their own tests
// (arena_write_reactor_test.cc, async_arena_writer_test.cc) run them on real servers.
// example from arena_write_reactor.h
class FeedPages final : public ArenaWriteReactor<v1::FeedResponse> {
 public:
  FeedPages(IdlePool<BlockArena>* arenas, int pages)
      : ArenaWriteReactor(arenas, /*block_bytes=*/64 * 1024), left_(pages) {
    NextWrite();  // the first page; each OnWriteDone writes the next
  }
  bool NextPage(v1::FeedResponse* page) override {  // page: empty, on a pooled arena
    if (left_-- == 0) return false;                   // false: Finish(OK)
    Fill(page);
    return true;
  }
 private:
  int left_;
};
// In the service, with `IdlePool<BlockArena> arenas_{64};` beside it:
//   return new FeedPages(&arenas_, /*pages=*/3);
// end of example

// example from async_arena_writer.h
class FeedWriter final : public AsyncArenaWriter<v1::FeedRequest, v1::FeedResponse> {
 public:
  FeedWriter(v1::Feed::AsyncService* service, grpc::ServerCompletionQueue* cq,
             IdlePool<BlockArena>* arenas)
      : AsyncArenaWriter(arenas, /*block_bytes=*/64 * 1024), service_(service), cq_(cq) {}
  void RequestCall() override {
    service_->RequestStreamFeed(context(), request(), writer(), cq_, cq_, this);
  }
  void SpawnNext() override { (new FeedWriter(service_, cq_, arenas()))->Start(); }
  bool NextPage(v1::FeedResponse* page) override {  // page: empty, on a pooled arena
    if (sent_ == request()->post_count()) return false;  // false: Finish(OK)
    Fill(page);
    ++sent_;
    return true;
  }
 private:
  v1::Feed::AsyncService* service_;
  grpc::ServerCompletionQueue* cq_;
  uint32_t sent_ = 0;
};
// Once: (new FeedWriter(&service, cq.get(), &arenas))->Start(); then the loop:
//   while (cq->Next(&tag, &ok)) static_cast<FeedWriter*>(tag)->Proceed(ok);
// end of example

TEST(HeaderExamplesTest, ArenaMessageAllocatorInstalls) {
  // example from arena_message_allocator.h
  class FeedImpl final : public v1::Feed::CallbackService { /* handlers */ };
  ArenaMessageAllocator<v1::FeedRequest, v1::FeedResponse> allocator;
  FeedImpl service;
  service.SetMessageAllocatorFor_GetFeed(&allocator);   // before BuildAndStart()
  // end of example
  EXPECT_EQ(allocator.allocated(), 0u);
}

TEST(HeaderExamplesTest, PooledArenaAllocatorInstalls) {
  v1::Feed::CallbackService service;
  // example from pooled_arena_allocator.h
  PooledArenaOptions options;                 // 512 KiB blocks, at most 64 pooled arenas
  PooledArenaAllocator<v1::FeedRequest, v1::FeedResponse> allocator(options);
  service.SetMessageAllocatorFor_GetFeed(&allocator);   // before BuildAndStart()
  // end of example
  EXPECT_EQ(options.max_arenas, 64u);
}

TEST(HeaderExamplesTest, ReusedMessageAllocatorInstalls) {
  v1::Feed::CallbackService service;
  // example from reused_message_allocator.h
  ReusedMessageAllocator<v1::FeedRequest, v1::FeedResponse> allocator(/*max_idle=*/64);
  service.SetMessageAllocatorFor_GetFeed(&allocator);   // before BuildAndStart()
  // end of example
}

TEST(HeaderExamplesTest, AppendBestKeepsTheBest) {
  google::protobuf::Arena arena;
  v1::FeedResponse* response = google::protobuf::Arena::CreateMessage<v1::FeedResponse>(&arena);
  // example from append_best.h
  // response is on the RPC's arena (ArenaMessageAllocator) or on the heap.
  AppendBest<v1::Post>(/*candidate_count=*/1000, /*keep=*/50,
                       [&](int i, v1::Post* post) { FillCandidate(i, post); },
                       [](const v1::Post& post) { return post.scores().relevance(); },
                       response->mutable_posts());
  // end of example
  ASSERT_EQ(response->posts_size(), 50);
  EXPECT_EQ(response->posts(0).GetArena(), &arena);
}

TEST(HeaderExamplesTest, AliasSubMessageSharesTheStoredAuthor) {
  v1::Post stored;
  testing::FillPost(1, /*long_text=*/true, &stored);
  RoomyArena arena;
  auto* reply = google::protobuf::Arena::CreateMessage<v1::FeedResponse>(arena.get());
  // example from arena_alias.h
  feed::v1::Post* post = reply->add_posts();                  // reply: on an arena
  post->set_post_id(stored.post_id());                         // the post's own fields: copied
  if (stored.has_author() &&
      !patterns::AliasSubMessage(post, &feed::v1::Post::unsafe_arena_set_allocated_author,
                                 stored.author())) {
    post->mutable_author()->CopyFrom(stored.author());         // refused (not on an arena): copy
  }
  // end of example
  EXPECT_EQ(&post->author(), &stored.author());
}

TEST(HeaderExamplesTest, ArenaBatchVisitsEveryRecord) {
  v1::FeedResponse record;
  record.add_posts()->set_post_id("a");
  record.add_posts()->set_post_id("b");
  const std::vector<std::string> serialized(3, record.SerializeAsString());
  int posts = 0;
  // example from arena_batch.h
  ArenaBatch<v1::FeedResponse> batch(/*initial_block_bytes=*/512 * 1024);
  absl::StatusOr<ArenaBatchStats> stats = batch.ForEach(serialized,
      [&](const v1::FeedResponse& r, google::protobuf::Arena*) { posts += r.posts_size(); });
  // stats->records == serialized.size(); stats->peak_arena_bytes <= 512 KiB: it fit.
  // end of example
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->records, serialized.size());
  EXPECT_EQ(posts, 6);
}

TEST(HeaderExamplesTest, BlockArenaKeepsItsBlock) {
  // example from block_arena.h
  BlockArena scratch(/*block_bytes=*/64 * 1024);
  auto* r = google::protobuf::Arena::CreateMessage<v1::FeedResponse>(scratch.get());
  FillAndUse(r);
  scratch.get()->Reset();   // r is dead; the 64 KiB block is kept for the next record
  // end of example
  EXPECT_GE(scratch.get()->SpaceAllocated(), 64u * 1024);
}

TEST(HeaderExamplesTest, IdlePoolParksWhatItIsGiven) {
  // example from idle_pool.h
  IdlePool<Buffer> pool(/*capacity=*/64);
  std::unique_ptr<Buffer> b = pool.Take();        // null when none is idle
  if (b == nullptr) b = std::make_unique<Buffer>();
  Use(*b);
  pool.Give(std::move(b));   // parked, or deleted on return when 64 are idle already
  // end of example
  EXPECT_EQ(pool.idle(), 1u);
}

TEST(HeaderExamplesTest, MessagePoolHandsOutEmptyMessages) {
  // example from message_pool.h
  MessagePool<v1::FeedResponse> pool(/*max_idle=*/64);
  std::unique_ptr<v1::FeedResponse> response = pool.Acquire();  // empty
  Fill(response.get()); Send(*response);
  pool.Release(std::move(response));  // Clear()ed here, kept if fewer than 64 idle
  // end of example
  EXPECT_EQ(sent, 1);
  EXPECT_EQ(pool.Acquire()->request_id(), "");
}

TEST(HeaderExamplesTest, SplicedReplyIsTheMessage) {
  v1::Post item;
  item.set_post_id("post-1");
  const std::vector<std::string> picked_items(2, item.SerializeAsString());
  const std::string request_id = "req-1";
  grpc::ByteBuffer buffer;
  grpc::ByteBuffer* response_byte_buffer = &buffer;
  // example from spliced_reply.h
  thread_local patterns::SplicedReply reply;
  reply.Clear();
  reply.AppendStringField(1, request_id);                     // per request: copied
  for (const std::string& item_bytes : picked_items) {         // kept for the process's life
    reply.AppendLengthDelimitedHeader(2, item_bytes.size());
    reply.AppendFragment(item_bytes);                          // copied, or referenced if large
  }
  reply.Finish(response_byte_buffer);
  // end of example
  v1::FeedResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(ByteBufferBytes(buffer)));
  EXPECT_EQ(parsed.request_id(), "req-1");
  EXPECT_EQ(parsed.posts_size(), 2);
}

TEST(HeaderExamplesTest, SizedReplyIsTheMessage) {
  v1::Post item;
  item.set_post_id("post-1");
  const std::vector<std::string> picked_items(2, item.SerializeAsString());
  const std::string request_id = "req-1";
  grpc::ByteBuffer buffer;
  grpc::ByteBuffer* response_byte_buffer = &buffer;
  // example from sized_reply.h
  size_t size = patterns::SizedReply::LengthDelimitedFieldSize(1, request_id.size());
  for (const std::string& item_bytes : picked_items) {         // first pass: sizes only
    size += patterns::SizedReply::LengthDelimitedFieldSize(2, item_bytes.size());
  }
  patterns::SizedReply reply(size);                             // the one slice
  reply.WriteStringField(1, request_id);
  for (const std::string& item_bytes : picked_items) reply.WriteStringField(2, item_bytes);
  const bool sent = reply.Finish(response_byte_buffer);          // false: the passes disagreed
  // end of example
  ASSERT_TRUE(sent);
  v1::FeedResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(ByteBufferBytes(buffer)));
  EXPECT_EQ(parsed.request_id(), "req-1");
  EXPECT_EQ(parsed.posts_size(), 2);
}

TEST(HeaderExamplesTest, AsyncArenaMethodServesAndStops) {
  Feed::AsyncService service;
  grpc::ServerBuilder builder;
  builder.RegisterService(&service);
  // example from async_arena_call.h
  PooledArenaAllocator<FeedRequest, FeedResponse> arenas;   // 512 KiB blocks, at most 64
  AsyncArenaMethod<Feed::AsyncService, FeedRequest, FeedResponse> get_feed(
      &service, &Feed::AsyncService::RequestGetFeed, &arenas,
      [](grpc::ServerContext*, const FeedRequest* request, FeedResponse* response) {
        Fill(*request, response);   // on the call's arena
        return grpc::Status::OK;
      });
  ServingThreads threads(&builder, /*count=*/2);   // before builder.BuildAndStart()
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  threads.Start([&](ServingQueue* queue) { get_feed.Arm(queue); });
  // ... serve ...
  threads.Stop(server.get(), std::chrono::system_clock::now() + std::chrono::seconds(5));
  // end of example
  const PooledArenaStats stats = arenas.stats();
  EXPECT_EQ(stats.allocated, stats.released) << "every armed call gave its arena back";
}

TEST(HeaderExamplesTest, SyncArenaRepliesRegisters) {
  grpc::ServerBuilder builder;
  // example from sync_arena_reply.h
  class FeedSync final : public SyncRawService {
   public:
    FeedSync() { AddUnary("/feed.v1.Feed/GetFeed", [this](auto*, auto* in, auto* out) { return Get(*in, out); }); }
    grpc::Status Get(const grpc::ByteBuffer& request_bytes, grpc::ByteBuffer* reply_bytes) {
      SyncArenaReplies::Call call = replies_.Begin();      // a pooled arena, bound to this thread
      auto* request = call.Create<feed::v1::FeedRequest>();
      grpc::Status status = ParseRawRequest(request_bytes, request);
      if (!status.ok()) return status;                     // INVALID_ARGUMENT
      auto* reply = call.Create<feed::v1::FeedResponse>();
      Fill(*request, reply);
      return call.Serialize(*reply, reply_bytes);           // one slice; Reset as `call` ends
    }
   private:
    SyncArenaReplies replies_;                            // 512 KiB blocks, at most 64 pooled
  };
  FeedSync service;                                       // outlives the server
  builder.RegisterService(&service);
  // end of example
  EXPECT_NE(builder.BuildAndStart(), nullptr);
}

// A reactor stand-in for the raw handler's example: it records the status.
struct RecordingReactor {
  grpc::Status finished;
  void Finish(const grpc::Status& status) { finished = status; }
};
RecordingReactor* RawHandler(RecordingReactor* reactor, const grpc::ByteBuffer* request_bytes) {
  // example from raw_request.h
  v1::FeedRequest request;
  grpc::Status status = ParseRawRequest(*request_bytes, &request);
  if (!status.ok()) { reactor->Finish(status); return reactor; }   // INVALID_ARGUMENT
  // end of example
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

TEST(HeaderExamplesTest, RawRequestRefusesWhatIsNoRequest) {
  RecordingReactor reactor;
  grpc::ByteBuffer never_arrived;
  EXPECT_EQ(RawHandler(&reactor, &never_arrived)->finished.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  grpc::Slice empty("");
  grpc::ByteBuffer empty_request(&empty, 1);
  EXPECT_TRUE(RawHandler(&reactor, &empty_request)->finished.ok());
}

TEST(HeaderExamplesTest, ByteBufferBytesReadsEveryByte) {
  grpc::Slice slices[] = {grpc::Slice("ab"), grpc::Slice("cd")};
  const grpc::ByteBuffer reply(slices, 2);
  const std::string expected_bytes = "abcd";
  // example from byte_buffer_bytes.h
  std::string bytes = ByteBufferBytes(reply);          // "" when the buffer is invalid
  bool same = ByteBufferHolds(reply, expected_bytes);  // no copy made
  // end of example
  EXPECT_EQ(bytes, "abcd");
  EXPECT_TRUE(same);
}

TEST(HeaderExamplesTest, MallocCounterCountsTheString) {
  // example from testing/malloc_counter.h
  MallocCounts before = MallocCounter::ThisThread();
  std::string s(100, 'x');   // one allocation of 101 bytes
  MallocCounts used = MallocCounter::ThisThread() - before;
  // used.allocs == 1, used.frees == 0, used.bytes == 101
  // end of example
  EXPECT_EQ(used.allocs, 1u);
  EXPECT_EQ(used.frees, 0u);
  EXPECT_EQ(used.bytes, 101u);
}

TEST(HeaderExamplesTest, FeedBuilderAndMessageTree) {
  google::protobuf::Arena arena;
  auto* response = google::protobuf::Arena::CreateMessage<v1::FeedResponse>(&arena);
  // example from testing/feed_builder.h
  feed::v1::FeedRequest request;
  request.set_post_count(200);                 // long_text false: strings <= 15 bytes
  FillFeed(request, response);                 // response on the RPC's arena, or not
  // response->posts_size() == 200, every post with every sub-message set
  // end of example
  EXPECT_EQ(response->posts_size(), 200);
  // example from testing/message_tree.h
  EXPECT_TRUE(MessagesNotOnArena(*response, response->GetArena()).empty());
  EXPECT_EQ(StringsLongerThan(*response, 15), 0);   // nothing left on the heap
  // end of example
}

TEST(HeaderExamplesTest, RoomyArenaHoldsAPost) {
  // example from testing/test_arena.h
  RoomyArena arena;
  auto* post = google::protobuf::Arena::CreateMessage<feed::v1::Post>(arena.get());
  // end of example
  EXPECT_EQ(post->GetArena(), arena.get());
}

// --- The text checks: the examples above are the files' own. ---

std::vector<std::string> ReadLines(const std::string& relative) {
  std::ifstream in(std::string(PATTERNS_DIR) + "/" + relative);
  EXPECT_TRUE(in.good()) << "cannot read " << relative;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Example {
  std::string file;                // the header that shows it ("x.h", in this folder)
  std::vector<std::string> lines;  // as written in this test, its indentation removed
};

std::vector<Example> ExamplesInThisTest() {
  std::vector<Example> examples;
  Example* open = nullptr;
  size_t indent = 0;
  for (const std::string& line : ReadLines("header_examples_test.cc")) {
    const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(stripped, "// example from ")) {
      examples.push_back({std::string(stripped.substr(16)), {}});
      open = &examples.back();
      indent = line.size() - stripped.size();
    } else if (stripped == "// end of example") {
      open = nullptr;
    } else if (open != nullptr) {
      open->lines.push_back(line.size() >= indent ? line.substr(indent) : std::string());
    }
  }
  return examples;
}

// Where `want` stands in `lines` as consecutive lines, or -1.
int Find(const std::vector<std::string>& lines, const std::vector<std::string>& want) {
  auto at = std::search(lines.begin(), lines.end(), want.begin(), want.end());
  return at == lines.end() || want.empty() ? -1 : static_cast<int>(at - lines.begin());
}

bool IsHeaderExampleLine(const std::string& line) { return absl::StartsWith(line, "//   "); }

TEST(HeaderExamplesTest, EachExampleIsTheWholeBlockItsFileShows) {
  const std::vector<Example> examples = ExamplesInThisTest();
  ASSERT_GE(examples.size(), 10u);
  for (const Example& example : examples) {
    const std::vector<std::string> file = ReadLines(example.file);
    std::vector<std::string> want;
    for (const std::string& line : example.lines) want.push_back("//   " + line);
    const int at = Find(file, want);
    ASSERT_GE(at, 0) << example.file << " does not show this test's example (starting \""
                     << example.lines.front() << "\"): make them the same";
    const int end = at + static_cast<int>(want.size());
    EXPECT_TRUE(at == 0 || !IsHeaderExampleLine(file[at - 1])) << example.file << ": the example begins earlier";
    EXPECT_TRUE(end == static_cast<int>(file.size()) || !IsHeaderExampleLine(file[end]))
        << example.file << ": the example goes on after \"" << file[end - 1] << "\"";
  }
}

TEST(HeaderExamplesTest, EveryPatternHeaderExampleIsHere) {
  std::vector<std::string> covered;
  for (const Example& example : ExamplesInThisTest()) covered.push_back(example.file);
  // The patterns themselves; testing/'s helpers are compiled here where shown above.
  for (const auto& entry : std::filesystem::directory_iterator(PATTERNS_DIR)) {
    const std::string name = entry.path().filename().string();
    if (!absl::EndsWith(name, ".h")) continue;
    for (const std::string& line : ReadLines(name)) {
      if (absl::StartsWith(line, "// Example") || absl::StartsWith(line, "// Install")) {
        EXPECT_NE(std::find(covered.begin(), covered.end(), name), covered.end())
            << name << " shows an example this test does not compile: add it here";
        break;
      }
    }
  }
}

}  // namespace
}  // namespace reco::patterns
// clang-format on
