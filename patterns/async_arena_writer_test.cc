// SPDX-License-Identifier: Apache-2.0
// Proves async_arena_writer.h on a real asynchronous server (127.0.0.1, port 0, one
// completion queue served by one thread): every page arrives as FillFeed builds it,
// building a page mallocs nothing once the pool is warm, and -- the lifetime rule,
// measured on gRPC 1.51 -- ServerAsyncWriter::Write is done with the message when it
// returns, so the pattern's arena is back in the pool at once. (No "tsan" label:
// Debian's gRPC is not built with TSan. The pattern's own threading is judged in
// async_arena_writer_threads_test.cc.)
#include "async_arena_writer.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "feed.grpc.pb.h"
#include "gtest/gtest.h"
#include "testing/feed_pages.h"
#include "testing/local_server.h"
#include "testing/malloc_counter.h"
#include "testing/parking_interceptor.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using testing::MallocCounter;
using testing::MallocCounts;
using testing::PageLog;
using testing::Parking;
using testing::Request;

constexpr size_t kBlockBytes = 64 * 1024;

// Where the count of a page's build starts, on the queue's thread: at the event (set
// by the loop), or for a call's first page once SpawnNext() is done.
thread_local MallocCounts build_start;

// The pattern as a service writes it: the pages of the request, each recorded with
// what building it cost (taking an arena, re-binding it, building).
class FeedWriter final : public AsyncArenaWriter<FeedRequest, FeedResponse> {
 public:
  FeedWriter(feed::v1::Feed::AsyncService* service, grpc::ServerCompletionQueue* cq, IdlePool<BlockArena>* arenas,
             PageLog* log)
      : AsyncArenaWriter(arenas, kBlockBytes), service_(service), cq_(cq), log_(log) {}
  void RequestCall() override { service_->RequestStreamFeed(context(), request(), writer(), cq_, cq_, this); }
  void SpawnNext() override {
    (new FeedWriter(service_, cq_, arenas(), log_))->Start();
    build_start = MallocCounter::ThisThread();
  }
  bool NextPage(FeedResponse* page) override {
    if (!testing::FillFeedPage(*request(), next_, page)) return false;
    ++next_;
    log_->Record(page, MallocCounter::ThisThread() - build_start);
    return true;
  }

 private:
  feed::v1::Feed::AsyncService* const service_;
  grpc::ServerCompletionQueue* const cq_;
  PageLog* const log_;
  uint32_t next_ = 0;
};

// An async server and its completion queue's thread. after_event, if set, runs on
// that thread after each event's Proceed() returned.
class AsyncServer {
 public:
  explicit AsyncServer(std::function<void(AsyncServer*)> after_event = nullptr, Parking* parking = nullptr)
      : after_event_(std::move(after_event)), served_([&](grpc::ServerBuilder* builder) {
          builder->RegisterService(&service_);
          if (parking != nullptr) builder->experimental().SetInterceptorCreators(parking->InterceptorCreators());
          cq_ = builder->AddCompletionQueue();
        }) {
    EXPECT_TRUE(served_.started());
    (new FeedWriter(&service_, cq_.get(), &arenas, &log))->Start();
    loop_ = std::thread([this] {
      void* tag = nullptr;
      bool ok = false;
      while (cq_->Next(&tag, &ok)) {
        build_start = MallocCounter::ThisThread();
        static_cast<FeedWriter*>(tag)->Proceed(ok);
        if (after_event_) after_event_(this);
      }
    });
  }
  ~AsyncServer() { Stop(); }

  // Shuts the server down (the waiting FeedWriter gets its tag with ok false and
  // deletes itself), then the queue; returns when its thread has drained it.
  void Stop() {
    if (!loop_.joinable()) return;
    if (served_.server() != nullptr) {
      served_.server()->Shutdown(std::chrono::system_clock::now() + testing::LocalServer::kShutdownGrace);
    }
    cq_->Shutdown();
    loop_.join();
    served_.Stop();
  }

  // Reads every page of one StreamFeed call.
  grpc::Status Read(const FeedRequest& request, std::vector<FeedResponse>* pages) {
    return testing::ReadAllPages(served_.stub(), request, pages);
  }

  IdlePool<BlockArena> arenas{8};  // declared before the server: outlives it
  PageLog log;

 private:
  std::function<void(AsyncServer*)> after_event_;
  feed::v1::Feed::AsyncService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  testing::LocalServer served_;  // after the service and queue it is built with
  std::thread loop_;
};

std::vector<std::string> AllBytes(const std::vector<FeedResponse>& pages) {
  std::vector<std::string> bytes;
  for (const FeedResponse& page : pages) bytes.push_back(page.SerializeAsString());
  return bytes;
}

TEST(AsyncArenaWriterServerTest, EveryPageArrivesAsFillFeedBuildsIt) {
  AsyncServer server;
  for (const FeedRequest& request : {Request(45, 10), Request(20, 20), Request(0, 10), Request(7, 3, true)}) {
    std::vector<FeedResponse> pages;
    grpc::Status status = server.Read(request, &pages);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(AllBytes(pages), AllBytes(testing::ExpectedPages(request)))
        << request.post_count() << " posts in pages of " << request.page_size();
  }
  server.Stop();
  EXPECT_EQ(server.arenas.idle(), 1u) << "one thread builds: one arena served every page";
}

// Counted on the queue's thread, from the event to the page's last post: taking the
// arena (re-bound to this thread) and building. Only the very first page mallocs: the
// pool's first arena, a BlockArena and its block. (Resetting and parking the arena
// after Write is counted in async_arena_writer_threads_test.cc: 0 too.)
TEST(AsyncArenaWriterServerTest, AfterWarmUpBuildingAPageMallocsNothing) {
  constexpr int kCalls = 6;
  AsyncServer server;
  const FeedRequest request = Request(100, 20);  // 5 pages of 20 short-text posts
  const std::vector<std::string> expected = AllBytes(testing::ExpectedPages(request));
  for (int i = 0; i < kCalls; ++i) {
    std::vector<FeedResponse> pages;
    ASSERT_TRUE(server.Read(request, &pages).ok());
    ASSERT_EQ(AllBytes(pages), expected) << "call " << i;
  }
  server.Stop();
  std::vector<MallocCounts> builds = server.log.builds();
  ASSERT_EQ(builds.size(), kCalls * expected.size());
  EXPECT_EQ(builds[0].allocs, 2u) << "the first page: a BlockArena and its block";
  EXPECT_EQ(builds[0].frees, 0u);
  for (size_t i = 1; i < builds.size(); ++i) {
    EXPECT_EQ(builds[i].allocs, 0u) << "page " << i;
    EXPECT_EQ(builds[i].frees, 0u) << "page " << i;
  }
}

// --- The lifetime rule, measured on gRPC 1.51 --------------------------------------
//
// After every event the queue's thread plays another call: it takes an arena from
// the pool and builds another message on it. The pattern gave the page's arena back
// when Write returned, so that message lands at the very address of the page just
// written (checked: the test is not vacuous), before gRPC has finished that write. If
// gRPC still read the page, the client would receive the other message.
class OtherCall {
 public:
  void operator()(AsyncServer* server) {
    std::unique_ptr<BlockArena> arena = server->arenas.Take();
    if (arena == nullptr) arena = std::make_unique<BlockArena>(kBlockBytes);
    arena->BindToThisThread();
    auto* message = google::protobuf::Arena::CreateMessage<FeedResponse>(arena->get());
    testing::FillFeedPage(Request(3, 3), 0, message);  // short strings: all of it in the block
    message->set_request_id("other call");
    const std::vector<const FeedResponse*> pages = server->log.pages();
    if (pages.size() > pages_seen_ && pages.back() == message) ++over_last_page;  // this event wrote a page
    pages_seen_ = pages.size();
    arena->get()->Reset();
    server->arenas.Give(std::move(arena));
  }
  int over_last_page = 0;

 private:
  size_t pages_seen_ = 0;
};

// Write serializes before it returns (call_op_set.h:383, "Serialize immediately";
// documented: support/async_stream.h:116-117): every page arrives as written.
TEST(AsyncWriteLifetimeTest, APageRebuiltOverRightAfterWriteArrivesIntact) {
  auto other_call = std::make_shared<OtherCall>();
  AsyncServer server([other_call](AsyncServer* s) { (*other_call)(s); });
  const FeedRequest request = Request(45, 10);
  std::vector<FeedResponse> pages;
  ASSERT_TRUE(server.Read(request, &pages).ok());
  server.Stop();
  EXPECT_EQ(AllBytes(pages), AllBytes(testing::ExpectedPages(request)));
  EXPECT_EQ(other_call->over_last_page, 5) << "the other call did not build over each of the 5 pages";
}

// The same with a server interceptor that calls Proceed() only after the other call
// built over the page (as an asynchronous interceptor may): gRPC handed it bytes, not
// the message (GetSendMessage() is null), and every page still arrives intact --
// unlike ServerWriteReactor::StartWrite (arena_write_reactor_test.cc).
TEST(AsyncWriteLifetimeTest, UnderAnInterceptorThatProceedsLaterPagesStillArriveIntact) {
  Parking parking;
  auto other_call = std::make_shared<OtherCall>();
  parking.ParkNext();
  AsyncServer server(
      [other_call, &parking](AsyncServer* s) {
        (*other_call)(s);
        if (parking.has_parked()) {
          parking.ParkNext();  // hold the next write too
          parking.ProceedParked();
        }
      },
      &parking);
  const FeedRequest request = Request(45, 10);
  std::vector<FeedResponse> pages;
  ASSERT_TRUE(server.Read(request, &pages).ok());
  server.Stop();
  EXPECT_EQ(AllBytes(pages), AllBytes(testing::ExpectedPages(request)));
  EXPECT_EQ(other_call->over_last_page, 5);
  EXPECT_EQ(parking.bytes_only_seen(), 5);
  EXPECT_EQ(parking.objects_seen(), 0);
}

}  // namespace
}  // namespace reco::patterns
