// SPDX-License-Identifier: Apache-2.0
// Proves arena_write_reactor.h on a real callback server (127.0.0.1, port 0): every
// page arrives as FillFeed builds it, building a page mallocs nothing once the pool
// is warm, and a page's arena is not reused while gRPC may still read the page. And
// it pins, by measurement, the lifetime rule the pattern follows: gRPC 1.51 does not
// always serialize a message inside StartWrite. (No "tsan" label: Debian's gRPC is
// not built with TSan. The pattern's own threading is judged in
// arena_write_reactor_threads_test.cc.)
#include "arena_write_reactor.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
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

// The pattern as a service writes it: the pages of the request, each recorded with
// what building it cost its thread (from the reaction's start: giving the last
// page's arena back, taking one, building).
class PostPages final : public ArenaWriteReactor<FeedResponse> {
 public:
  PostPages(IdlePool<BlockArena>* arenas, const FeedRequest* request, PageLog* log)
      : ArenaWriteReactor(arenas, kBlockBytes), request_(request), log_(log) {
    build_start_ = MallocCounter::ThisThread();
    NextWrite();
  }
  void OnWriteDone(bool ok) override {
    build_start_ = MallocCounter::ThisThread();
    ArenaWriteReactor::OnWriteDone(ok);
  }
  bool NextPage(FeedResponse* page) override {
    if (!testing::FillFeedPage(*request_, next_, page)) return false;
    ++next_;
    log_->Record(page, MallocCounter::ThisThread() - build_start_);
    return true;
  }

 private:
  const FeedRequest* const request_;  // gRPC keeps it until OnDone
  PageLog* const log_;
  uint32_t next_ = 0;
  MallocCounts build_start_;
};

class PagedFeed final : public feed::v1::Feed::CallbackService {
 public:
  IdlePool<BlockArena> arenas{8};  // declared before the server: outlives it
  PageLog log;
  // Plays a second stream in the handler, after the reactor's constructor has
  // started page 0 and before gRPC has read it: takes an arena from the same pool and
  // builds another message on it.
  bool play_another_stream = false;

  grpc::ServerWriteReactor<FeedResponse>* StreamFeed(grpc::CallbackServerContext* /*context*/,
                                                     const FeedRequest* request) override {
    auto* pages = new PostPages(&arenas, request, &log);
    if (play_another_stream) {
      std::unique_ptr<BlockArena> other = arenas.Take();
      if (other == nullptr) {
        other = std::make_unique<BlockArena>(kBlockBytes);
      } else {
        other->BindToThisThread();
      }
      auto* message = google::protobuf::Arena::CreateMessage<FeedResponse>(other->get());
      testing::FillFeedPage(Request(3, 3), 0, message);  // short strings: all of it in the block
      message->set_request_id("other stream");
      other->get()->Reset();
      arenas.Give(std::move(other));
    }
    return pages;
  }
};

// A served Feed and its stub; Stop() returns once every stream is done (no reactor
// touches the pool any more).
struct TestServer {
  explicit TestServer(grpc::Service* service, Parking* parking = nullptr)
      : served([&](grpc::ServerBuilder* builder) {
          builder->RegisterService(service);
          if (parking != nullptr) builder->experimental().SetInterceptorCreators(parking->InterceptorCreators());
        }) {
    EXPECT_TRUE(served.started());
  }
  void Stop() { served.Stop(); }

  // Reads every page of one StreamFeed call.
  grpc::Status Read(const FeedRequest& request, std::vector<FeedResponse>* pages) {
    return testing::ReadAllPages(served.stub(), request, pages);
  }

  testing::LocalServer served;
};

std::vector<std::string> AllBytes(const std::vector<FeedResponse>& pages) {
  std::vector<std::string> bytes;
  for (const FeedResponse& page : pages) bytes.push_back(page.SerializeAsString());
  return bytes;
}

TEST(ArenaWriteReactorServerTest, EveryPageArrivesAsFillFeedBuildsIt) {
  PagedFeed service;
  TestServer server(&service);
  for (const FeedRequest& request : {Request(45, 10), Request(20, 20), Request(0, 10), Request(7, 3, true)}) {
    std::vector<FeedResponse> pages;
    grpc::Status status = server.Read(request, &pages);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(AllBytes(pages), AllBytes(testing::ExpectedPages(request)))
        << request.post_count() << " posts in pages of " << request.page_size();
  }
  server.Stop();
  EXPECT_EQ(service.arenas.idle(), 1u) << "one stream at a time: one arena served them all";
}

// Counted on the thread that builds each page, from the reaction's start to the
// page's last post: giving the last arena back, taking one (re-bound to this thread)
// and building. Only the very first page mallocs: the pool's first arena, a BlockArena
// and its block. After that nothing mallocs or frees, whichever gRPC thread builds.
TEST(ArenaWriteReactorServerTest, AfterWarmUpBuildingAPageMallocsNothing) {
  constexpr int kStreams = 6;
  PagedFeed service;
  TestServer server(&service);
  const FeedRequest request = Request(100, 20);  // 5 pages of 20 short-text posts
  const std::vector<std::string> expected = AllBytes(testing::ExpectedPages(request));
  for (int i = 0; i < kStreams; ++i) {
    std::vector<FeedResponse> pages;
    ASSERT_TRUE(server.Read(request, &pages).ok());
    ASSERT_EQ(AllBytes(pages), expected) << "stream " << i;
  }
  server.Stop();
  std::vector<MallocCounts> builds = service.log.builds();
  ASSERT_EQ(builds.size(), kStreams * expected.size());
  EXPECT_EQ(builds[0].allocs, 2u) << "the first page: a BlockArena and its block";
  EXPECT_EQ(builds[0].frees, 0u);
  for (size_t i = 1; i < builds.size(); ++i) {
    EXPECT_EQ(builds[i].allocs, 0u) << "page " << i;
    EXPECT_EQ(builds[i].frees, 0u) << "page " << i;
  }
}

// The handler plays another stream right after the reactor's constructor started
// page 0, before gRPC has read it (it reads it when the handler returns: see the next
// tests). The page's arena is not in the pool then, so the other stream cannot take
// it, and page 0 arrives intact.
TEST(ArenaWriteReactorServerTest, APageInFlightKeepsItsArenaFromOtherStreams) {
  PagedFeed service;
  service.play_another_stream = true;
  TestServer server(&service);
  const FeedRequest request = Request(30, 10);
  for (int i = 0; i < 3; ++i) {  // after the first, an idle arena waits in the pool
    std::vector<FeedResponse> pages;
    ASSERT_TRUE(server.Read(request, &pages).ok());
    EXPECT_EQ(AllBytes(pages), AllBytes(testing::ExpectedPages(request))) << "stream " << i;
  }
}

// --- The lifetime rule, measured on gRPC 1.51 --------------------------------------
//
// A bare reactor (not the pattern) writes two pages and changes each one right after
// StartWrite returns -- what a reactor does that Resets the page's arena and builds
// the next page before OnWriteDone. What the client receives tells when gRPC read the
// page. The pages are the test's, not the reactor's: after the second StartWrite,
// OnWriteDone, Finish and OnDone may run on another thread at once, and the reactor
// must not be touched.
struct TwoPages {
  FeedResponse first, second;
  Parking* parking = nullptr;  // set: the second page is held at an interceptor
};

class ChangedAfterStartWrite final : public grpc::ServerWriteReactor<FeedResponse> {
 public:
  explicit ChangedAfterStartWrite(TwoPages* pages) : pages_(pages) {
    WriteThenChange(this, &pages->first, nullptr, "first");  // before gRPC binds this reactor
  }
  void OnWriteDone(bool ok) override {
    if (!ok || second_started_) {
      Finish(grpc::Status::OK);
      return;
    }
    second_started_ = true;
    if (pages_->parking != nullptr) pages_->parking->ParkNext();
    WriteThenChange(this, &pages_->second, pages_->parking, "second");
  }
  void OnDone() override { delete this; }

 private:
  static void WriteThenChange(ChangedAfterStartWrite* self, FeedResponse* page, Parking* parking,
                              const std::string& name) {
    page->set_request_id(name + " as written");
    self->StartWrite(page);  // `self` is not touched after this
    page->set_request_id(name + " changed after StartWrite returned");
    if (parking != nullptr) parking->ProceedParked();  // the interceptor goes on only now
  }

  TwoPages* const pages_;
  bool second_started_ = false;
};

class TwoPageFeed final : public feed::v1::Feed::CallbackService {
 public:
  TwoPages pages;
  grpc::ServerWriteReactor<FeedResponse>* StreamFeed(grpc::CallbackServerContext*, const FeedRequest*) override {
    return new ChangedAfterStartWrite(&pages);
  }
};

std::vector<std::string> RequestIds(const std::vector<FeedResponse>& pages) {
  std::vector<std::string> ids;
  for (const FeedResponse& page : pages) ids.push_back(page.request_id());
  return ids;
}

// Without interceptors: a StartWrite made in the constructor, before gRPC binds the
// reactor, only stores the pointer (support/server_callback.h:609); gRPC serializes
// the page when the handler has returned (server_callback_handlers.h:484), so the
// client gets the change. A StartWrite on a bound reactor serializes before it
// returns (SendMessagePtr, then PerformOps fills the batch: call_op_set.h:321), so the
// second page arrives as written -- true of gRPC 1.51's code, not of its documented
// contract.
TEST(StartWriteLifetimeTest, APageStartedBeforeTheReactorIsBoundIsReadAfterStartWriteReturns) {
  TwoPageFeed service;
  TestServer server(&service);
  std::vector<FeedResponse> pages;
  ASSERT_TRUE(server.Read(Request(0, 1), &pages).ok());
  EXPECT_EQ(RequestIds(pages),
            (std::vector<std::string>{"first changed after StartWrite returned", "second as written"}));
}

// With a server interceptor that calls Proceed() after StartWrite returned (as an
// asynchronous interceptor may), gRPC hands it the message object, not bytes
// (GetSendMessage() is set), and serializes at Proceed(): the bound reactor's second
// page arrives changed too. So nothing but OnWriteDone tells that gRPC is done with
// a page.
TEST(StartWriteLifetimeTest, UnderAnInterceptorThatProceedsLaterEveryPageIsReadAfterStartWriteReturns) {
  Parking parking;
  TwoPageFeed service;
  service.pages.parking = &parking;
  TestServer server(&service, &parking);
  std::vector<FeedResponse> pages;
  ASSERT_TRUE(server.Read(Request(0, 1), &pages).ok());
  EXPECT_EQ(RequestIds(pages), (std::vector<std::string>{"first changed after StartWrite returned",
                                                         "second changed after StartWrite returned"}));
  EXPECT_EQ(parking.objects_seen(), 2);
  EXPECT_EQ(parking.bytes_only_seen(), 0);
}

}  // namespace
}  // namespace reco::patterns
