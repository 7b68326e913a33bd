// Clients that give up: cancellation mid-RPC, deadlines that expire while the
// response is being built, hundreds of streams at once, and all of it mixed with
// correct traffic from several threads -- in every request-serving mode (the four
// memory modes and fragments). Afterwards the
// server is whole (hostile_server.h); under ASan nothing leaked, under TSan nothing
// raced.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/request.h"
#include "core/test_util.h"
#include "proto/reco.grpc.pb.h"
#include "tests/hostile/hostile_server.h"

namespace reco::hostile {
namespace {

// Counts finished async calls; Wait() returns when all have finished.
class Completion {
 public:
  void Done() {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    cv_.notify_all();
  }
  bool WaitFor(int n, std::chrono::seconds limit) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return done_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int done_ = 0;
};

// One async Recommend call and what came back.
struct Call {
  grpc::ClientContext context;
  v1::RecommendRequest request;
  v1::RecommendResponse response;
  grpc::Status status;
};

class HostileDisconnectTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    server_ = StartServer(GetParam());
    ASSERT_NE(server_, nullptr);
    channel_ = ChannelTo(*server_);
    stub_ = v1::Recommender::NewStub(channel_);
  }
  void Start(v1::Recommender::Stub* stub, Call* call, Completion* done) {
    stub->async()->Recommend(&call->context, &call->request, &call->response, [call, done](grpc::Status s) {
      call->status = std::move(s);
      done->Done();
    });
  }

  std::unique_ptr<RecoServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Recommender::Stub> stub_;
};

TEST_P(HostileDisconnectTest, CancelledMidRpc) {
  // A 10,000-item response takes milliseconds to build and to send (tens under a
  // sanitizer), so cancelling 1-20 ms in lands while it is built or in flight.
  const int delays_ms[] = {1, 1, 2, 3, 5, 8, 13, 20};
  std::vector<std::unique_ptr<Call>> calls;
  Completion done;
  int cancelled = 0;
  for (int delay : delays_ms) {
    calls.push_back(std::make_unique<Call>());
    Call* call = calls.back().get();
    call->request = Request(kMaxItemCount, v1::TEXT_PROFILE_REALISTIC, delay);
    Start(stub_.get(), call, &done);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    call->context.TryCancel();
  }
  ASSERT_TRUE(done.WaitFor(static_cast<int>(calls.size()), std::chrono::seconds(120)));
  for (auto& call : calls) {
    grpc::StatusCode code = call->status.error_code();
    EXPECT_TRUE(code == grpc::StatusCode::OK || code == grpc::StatusCode::CANCELLED) << call->status.error_message();
    cancelled += code == grpc::StatusCode::CANCELLED;
  }
  EXPECT_GE(cancelled, 1) << "no cancellation landed: the test proved nothing";
  ExpectWhole(*server_, channel_.get(), "cancelled RPCs");
}

TEST_P(HostileDisconnectTest, DeadlineExpiresWhileBuilding) {
  // Five calls on one connection: their reservations (replies of kMaxItemCount items)
  // fit the connection's share of the reply budget together, so none is refused
  // RESOURCE_EXHAUSTED however slowly the expired ones give theirs back (a sixth was,
  // under ctest -j2).
  const int deadlines_ms[] = {1, 2, 4, 8, 16};
  std::vector<std::unique_ptr<Call>> calls;
  Completion done;
  for (int ms : deadlines_ms) {
    calls.push_back(std::make_unique<Call>());
    Call* call = calls.back().get();
    call->request = Request(kMaxItemCount, v1::TEXT_PROFILE_REALISTIC, 100 + ms);
    call->context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(ms));
    Start(stub_.get(), call, &done);
  }
  ASSERT_TRUE(done.WaitFor(static_cast<int>(calls.size()), std::chrono::seconds(120)));
  int expired = 0;
  for (auto& call : calls) {
    grpc::StatusCode code = call->status.error_code();
    EXPECT_TRUE(code == grpc::StatusCode::OK || code == grpc::StatusCode::DEADLINE_EXCEEDED)
        << call->status.error_message();
    expired += code == grpc::StatusCode::DEADLINE_EXCEEDED;
  }
  // 1 ms is far less than building and sending 5 MB takes on any machine.
  EXPECT_GE(expired, 1);
  ExpectWhole(*server_, channel_.get(), "expired deadlines");
}

TEST_P(HostileDisconnectTest, HundredsOfConcurrentStreams) {
  // 600 calls at once over two connections: more than the server's 256 streams per
  // connection, so some wait for a free stream. Every reply must be exact.
  constexpr int kPerChannel = 300;
  std::shared_ptr<grpc::Channel> second = ChannelTo(*server_);
  auto stub2 = v1::Recommender::NewStub(second);
  std::vector<std::unique_ptr<Call>> calls;
  Completion done;
  for (int i = 0; i < 2 * kPerChannel; ++i) {
    calls.push_back(std::make_unique<Call>());
    Call* call = calls.back().get();
    call->request = Request(30, i % 2 ? v1::TEXT_PROFILE_COMPACT : v1::TEXT_PROFILE_REALISTIC, i);
    call->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    Start(i < kPerChannel ? stub_.get() : stub2.get(), call, &done);
  }
  ASSERT_TRUE(done.WaitFor(static_cast<int>(calls.size()), std::chrono::seconds(180)));
  int wrong = 0;
  for (auto& call : calls) {
    ASSERT_TRUE(call->status.ok()) << call->status.error_message();
    wrong += call->response.SerializeAsString() != ExpectedBytes(call->request);
  }
  EXPECT_EQ(wrong, 0);
  ExpectWhole(*server_, channel_.get(), "600 concurrent streams");
}

TEST_P(HostileDisconnectTest, HostileAndCorrectTrafficMixed) {
  // Four threads; each round one thread sends a correct request, the others a
  // malformed one, an over-limit one, or one it cancels. Correct replies must stay
  // exact while the pool is churned by the rest.
  constexpr int kRounds = 40;
  std::atomic<int> wrong{0}, failed{0};
  absl::Mutex first_failure_mu;
  std::string first_failure;  // the first failed call's status, for the message
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto channel = ChannelTo(*server_);
      auto stub = v1::Recommender::NewStub(channel);
      for (int round = 0; round < kRounds; ++round) {
        switch ((t + round) % 4) {
          case 0: {
            v1::RecommendRequest r = Request(50, v1::TEXT_PROFILE_REALISTIC, round * 4 + t);
            Reply reply = CallBytes(channel.get(), r.SerializeAsString(), absl::Seconds(60));
            if (!reply.status.ok()) {
              absl::MutexLock lock(&first_failure_mu);
              if (failed++ == 0) {
                first_failure = absl::StrCat(reply.status.error_code(), " ", reply.status.error_message());
              }
            } else if (reply.bytes != ExpectedBytes(r))
              ++wrong;
            break;
          }
          case 1:
            CallBytes(channel.get(),
                      std::string("\x0a\x64"
                                  "abc",
                                  5),
                      absl::Seconds(60));
            break;
          case 2:
            CallBytes(channel.get(), Request(kMaxItemCount + 1, v1::TEXT_PROFILE_COMPACT).SerializeAsString(),
                      absl::Seconds(60));
            break;
          case 3: {
            Call call;
            Completion done;
            call.request = Request(2000, v1::TEXT_PROFILE_REALISTIC, round);
            Start(stub.get(), &call, &done);
            std::this_thread::sleep_for(std::chrono::microseconds(200 * round));
            call.context.TryCancel();
            // `call` must outlive its callback: wait however long it takes.
            while (!done.WaitFor(1, std::chrono::seconds(60))) {
            }
            break;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0) << "the first: " << first_failure;
  EXPECT_EQ(wrong.load(), 0);
  ExpectWhole(*server_, channel_.get(), "mixed hostile and correct traffic");
}

INSTANTIATE_TEST_SUITE_P(Modes, HostileDisconnectTest, ::testing::ValuesIn(ModesAndApis()), ModeName);

}  // namespace
}  // namespace reco::hostile
