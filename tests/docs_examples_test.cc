// The code docs/patterns.md shows, held to the code it stands for:
//   - a block that opens "// Inside X (patterns/x.h):" must be that header's own code
//     (compared without indentation, blank and comment lines);
//   - a block this test repeats between "// example from docs/patterns.md" and
//     "// end of example" is compiled and run here, and must be one whole ```cpp
//     block of the doc.
// (The pattern headers' own examples are checked by patterns/header_examples_test.cc,
// which travels with patterns/; this test needs the doc, which does not.)
// The examples are compared line for line with the text they come from, so they
// keep that text's layout:
// clang-format off
#include <algorithm>
#include <chrono>
#include <memory>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "grpcpp/grpcpp.h"
#include "patterns/arena_alias.h"
#include "patterns/arena_message_allocator.h"
#include "patterns/async_arena_call.h"
#include "patterns/pooled_arena_allocator.h"
#include "patterns/raw_request.h"
#include "feed.grpc.pb.h"
#include "feed_builder.h"
#include "proto/reco.grpc.pb.h"

namespace reco {
namespace {

using patterns::ArenaMessageAllocator;
using patterns::PooledArenaAllocator;
using patterns::PooledArenaOptions;

TEST(DocsExamplesTest, SectionOneInstalls) {
  v1::Recommender::CallbackService service;
  // example from docs/patterns.md
  google::protobuf::ArenaOptions options;  // start_block_size: see below
  ArenaMessageAllocator<v1::RecommendRequest, v1::RecommendResponse> allocator(options);
  service.SetMessageAllocatorFor_Recommend(&allocator);
  // end of example
  EXPECT_EQ(allocator.released(), 0u);
}

TEST(DocsExamplesTest, SectionOneBInstallsThePool) {
  v1::Recommender::CallbackService service;
  // example from docs/patterns.md
  PooledArenaOptions options;              // defaults: 512 KiB blocks, at most 64 pooled arenas
  options.initial_block_bytes = 512 * 1024;  // size it for your typical response's arena space
  PooledArenaAllocator<v1::RecommendRequest, v1::RecommendResponse> allocator(options);
  service.SetMessageAllocatorFor_Recommend(&allocator);
  // end of example
  EXPECT_EQ(allocator.options().initial_block_bytes, 512u * 1024);
}

using patterns::AsyncArenaMethod;
using patterns::ParseRawRequest;
using patterns::ServingQueue;
using patterns::ServingThreads;

// The reader's own build, which the examples call.
int built = 0;
void Build(const v1::RecommendRequest& request, v1::RecommendResponse* response) {
  response->set_request_id(request.user_id());
  ++built;
}

TEST(DocsExamplesTest, SectionSixServesAsync) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  // example from docs/patterns.md
  v1::Recommender::AsyncService service;
  builder.RegisterService(&service);
  PooledArenaAllocator<v1::RecommendRequest, v1::RecommendResponse> arenas;  // outlives the server
  AsyncArenaMethod<v1::Recommender::AsyncService, v1::RecommendRequest, v1::RecommendResponse> recommend(
      &service, &v1::Recommender::AsyncService::RequestRecommend, &arenas,
      [](grpc::ServerContext*, const v1::RecommendRequest* request, v1::RecommendResponse* response) {
        Build(*request, response);  // your handler: everything lands on the call's arena
        return grpc::Status::OK;
      });
  ServingThreads threads(&builder, /*count=*/2);  // one completion queue per thread
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  threads.Start([&](ServingQueue* queue) { recommend.Arm(queue); });
  // end of example
  ASSERT_NE(server, nullptr);
  auto stub = v1::Recommender::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::RecommendRequest request;
  request.set_user_id("u-7");
  v1::RecommendResponse reply;
  ASSERT_TRUE(stub->Recommend(&context, request, &reply).ok());
  EXPECT_EQ(reply.request_id(), "u-7");
  EXPECT_EQ(built, 1);
  // example from docs/patterns.md
  threads.Stop(server.get(), std::chrono::system_clock::now() + std::chrono::seconds(5));
  // end of example
}

using patterns::testing::FillFeed;

// Section 6's service of both APIs. StreamFeed's reactor here: one page, then OK.
class OnePage final : public grpc::ServerWriteReactor<feed::v1::FeedResponse> {
 public:
  explicit OnePage(const feed::v1::FeedRequest& request) {
    FillFeed(request, &page_);
    StartWriteAndFinish(&page_, grpc::WriteOptions(), grpc::Status::OK);
  }
  void OnDone() override { delete this; }

 private:
  feed::v1::FeedResponse page_;
};

// example from docs/patterns.md
// GetFeed on completion queues; StreamFeed, and any other method of Feed, on callbacks.
class MixedFeed final
    : public feed::v1::Feed::WithCallbackMethod_StreamFeed<feed::v1::Feed::WithAsyncMethod_GetFeed<feed::v1::Feed::Service>> {
  grpc::ServerWriteReactor<feed::v1::FeedResponse>* StreamFeed(grpc::CallbackServerContext*,
                                                             const feed::v1::FeedRequest* request) override {
    return new OnePage(*request);  // your reactor (section 7)
  }
};
// end of example

// Both methods served by one service: GetFeed through the async pattern, StreamFeed by
// gRPC's callback threads, each reply FillFeed's. Without the async method armed,
// GetFeed would wait for its deadline.
TEST(DocsExamplesTest, SectionSixMixesAnAsyncMethodWithCallbackOnes) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  PooledArenaAllocator<feed::v1::FeedRequest, feed::v1::FeedResponse> arenas;
  // example from docs/patterns.md
  MixedFeed service;
  builder.RegisterService(&service);
  AsyncArenaMethod<MixedFeed, feed::v1::FeedRequest, feed::v1::FeedResponse> get_feed(
      &service, &MixedFeed::RequestGetFeed, &arenas,
      [](grpc::ServerContext*, const feed::v1::FeedRequest* request, feed::v1::FeedResponse* response) {
        FillFeed(*request, response);  // your handler
        return grpc::Status::OK;
      });
  ServingThreads threads(&builder, /*count=*/1);  // GetFeed's queue; StreamFeed needs none
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  threads.Start([&](ServingQueue* queue) { get_feed.Arm(queue); });
  // end of example
  ASSERT_NE(server, nullptr);
  auto stub =
      feed::v1::Feed::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  feed::v1::FeedRequest request;
  request.set_user_id("u-9");
  request.set_post_count(20);
  feed::v1::FeedResponse want;
  FillFeed(request, &want);

  grpc::ClientContext unary;
  unary.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  feed::v1::FeedResponse reply;
  const grpc::Status status = stub->GetFeed(&unary, request, &reply);
  ASSERT_TRUE(status.ok()) << "GetFeed (async): " << status.error_message();
  EXPECT_EQ(reply.SerializeAsString(), want.SerializeAsString());

  grpc::ClientContext streaming;
  streaming.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto reader = stub->StreamFeed(&streaming, request);
  std::vector<std::string> pages;
  for (feed::v1::FeedResponse page; reader->Read(&page);) pages.push_back(page.SerializeAsString());
  ASSERT_TRUE(reader->Finish().ok()) << "StreamFeed (callback)";
  EXPECT_EQ(pages, std::vector<std::string>{want.SerializeAsString()});
  threads.Stop(server.get(), std::chrono::system_clock::now() + std::chrono::seconds(5));
  EXPECT_EQ(arenas.stats().released, arenas.stats().allocated);
}

// A reactor stand-in for section 9's raw handler: it records the status.
struct RecordingReactor {
  grpc::Status finished;
  void Finish(const grpc::Status& status) { finished = status; }
};
RecordingReactor* RawHandler(RecordingReactor* reactor, const grpc::ByteBuffer* request_bytes) {
  // example from docs/patterns.md
  v1::RecommendRequest request;
  grpc::Status status = ParseRawRequest(*request_bytes, &request);
  if (!status.ok()) { reactor->Finish(status); return reactor; }  // INVALID_ARGUMENT
  // end of example
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

TEST(DocsExamplesTest, SectionNineRefusesWhatIsNoRequest) {
  RecordingReactor reactor;
  grpc::ByteBuffer never_arrived;
  EXPECT_EQ(RawHandler(&reactor, &never_arrived)->finished.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

// Section 10's example, as a function: the same lines on an arena item and a heap one.
void TakeStoredPrice(const v1::Item& stored, v1::Item* item) {
  // example from docs/patterns.md
  // item: a reply item on the RPC's arena; stored: the catalogue's, built at start-up.
  item->set_item_id(stored.item_id());                     // the item's own text: copied
  if (stored.has_price() &&
      !patterns::AliasSubMessage(item, &v1::Item::unsafe_arena_set_allocated_price, stored.price())) {
    item->mutable_price()->CopyFrom(stored.price());       // refused (not on an arena): copy
  }
  // end of example
}

TEST(DocsExamplesTest, SectionTenAliasesOnAnArenaAndCopiesElsewhere) {
  v1::Item stored;
  stored.set_item_id("item-1");
  stored.mutable_price()->set_currency_code("a currency code longer than 15 bytes");
  google::protobuf::Arena arena;
  auto* on_arena = google::protobuf::Arena::CreateMessage<v1::Item>(&arena);
  TakeStoredPrice(stored, on_arena);
  EXPECT_EQ(&on_arena->price(), &stored.price());
  v1::Item on_heap;
  TakeStoredPrice(stored, &on_heap);
  EXPECT_NE(&on_heap.price(), &stored.price());
  EXPECT_EQ(on_heap.SerializeAsString(), on_arena->SerializeAsString());
}

std::vector<std::string> ReadLines(const std::string& relative) {
  std::ifstream in(std::string(RECO_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in.good()) << "cannot read " << relative;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines between "// example from docs/patterns.md" and "// end of example" in
// this file, their indentation removed; one list per example.
std::vector<std::vector<std::string>> ExamplesInThisTest() {
  std::vector<std::vector<std::string>> examples;
  std::vector<std::string>* open = nullptr;
  size_t indent = 0;
  for (const std::string& line : ReadLines("tests/docs_examples_test.cc")) {
    const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (stripped == "// example from docs/patterns.md") {
      examples.emplace_back();
      open = &examples.back();
      indent = line.size() - stripped.size();
    } else if (stripped == "// end of example") {
      open = nullptr;
    } else if (open != nullptr) {
      open->push_back(line.size() >= indent ? line.substr(indent) : std::string());
    }
  }
  return examples;
}

// Where `want` stands in `lines` as consecutive lines, or -1.
int Find(const std::vector<std::string>& lines, const std::vector<std::string>& want) {
  auto at = std::search(lines.begin(), lines.end(), want.begin(), want.end());
  return at == lines.end() || want.empty() ? -1 : static_cast<int>(at - lines.begin());
}

TEST(DocsExamplesTest, EachExampleIsAWholeBlockOfTheDoc) {
  const std::vector<std::string> doc = ReadLines("docs/patterns.md");
  const std::vector<std::vector<std::string>> examples = ExamplesInThisTest();
  ASSERT_GE(examples.size(), 1u);
  for (const std::vector<std::string>& example : examples) {
    const int at = Find(doc, example);
    ASSERT_GE(at, 0) << "docs/patterns.md does not show this test's example (starting \"" << example.front()
                     << "\"): make them the same";
    const int end = at + static_cast<int>(example.size());
    EXPECT_TRUE(at > 0 && doc[at - 1] == "```cpp" && end < static_cast<int>(doc.size()) && doc[end] == "```")
        << "the example is not a whole ```cpp block of docs/patterns.md";
  }
}

// Code lines only: no indentation, no blank or comment-only lines.
std::vector<std::string> CodeLines(const std::vector<std::string>& lines) {
  std::vector<std::string> code;
  for (const std::string& line : lines) {
    const absl::string_view s = absl::StripAsciiWhitespace(line);
    if (!s.empty() && !absl::StartsWith(s, "//")) code.emplace_back(s);
  }
  return code;
}

TEST(DocsExamplesTest, BlocksFromAHeaderAreItsCode) {
  const std::vector<std::string> doc = ReadLines("docs/patterns.md");
  int checked = 0;
  for (size_t i = 0; i + 1 < doc.size(); ++i) {
    if (doc[i] != "```cpp" || !absl::StartsWith(doc[i + 1], "// Inside ")) continue;
    const size_t open = doc[i + 1].rfind('('), close = doc[i + 1].rfind(')');
    ASSERT_TRUE(open != std::string::npos && close > open) << doc[i + 1] << ": name the header in (...)";
    const std::string header = doc[i + 1].substr(open + 1, close - open - 1);
    std::vector<std::string> block;
    for (size_t j = i + 2; j < doc.size() && doc[j] != "```"; ++j) block.push_back(doc[j]);
    EXPECT_GE(Find(CodeLines(ReadLines(header)), CodeLines(block)), 0)
        << "docs/patterns.md's block from " << header << " is not the header's code: make them the same";
    ++checked;
  }
  EXPECT_GE(checked, 4) << "docs/patterns.md shows the code of ArenaMessageAllocator, PooledArenaAllocator and ArenaWriteReactor";
}

}  // namespace
}  // namespace reco
// clang-format on
