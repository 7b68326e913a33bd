// libreco_server_stats_preload.so given with LD_PRELOAD to a server built without the
// library (stats_plain_feed_server): GetStats answers, says it could not count RPCs,
// and counts the process's allocations.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <grpcpp/grpcpp.h>

#include "feed.grpc.pb.h"
#include "gtest/gtest.h"
#include "proto/stats.grpc.pb.h"

namespace reco {
namespace {

// The plain server started under LD_PRELOAD; stops it (closes its stdin) when destroyed.
class PreloadedServer {
 public:
  explicit PreloadedServer(const std::string& label) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      setenv("LD_PRELOAD", PRELOAD_LIBRARY, 1);
      setenv("RECO_SERVER_STATS_LABEL", label.c_str(), 1);
      execl(PLAIN_SERVER, PLAIN_SERVER, static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    // The server prints its port once it serves; a dead server closes the pipe (EOF).
    FILE* from_server = fdopen(out[0], "r");
    if (from_server == nullptr || std::fscanf(from_server, "port %d", &port_) != 1) port_ = 0;
    if (from_server != nullptr) std::fclose(from_server);
  }
  ~PreloadedServer() {
    if (stdin_ >= 0) close(stdin_);
    if (pid_ > 0) {
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
};

std::chrono::system_clock::time_point Deadline() { return std::chrono::system_clock::now() + std::chrono::seconds(30); }

v1::StatsSnapshot Snapshot(v1::ServerStats::Stub* stub) {
  grpc::ClientContext context;
  context.set_deadline(Deadline());
  v1::StatsSnapshot snapshot;
  grpc::Status status = stub->GetStats(&context, v1::GetStatsRequest(), &snapshot);
  EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  return snapshot;
}

TEST(PreloadTest, ServesStatsWithoutCountingRpcs) {
  PreloadedServer server("plain");
  ASSERT_GT(server.port(), 0) << "the plain server did not start under LD_PRELOAD=" << PRELOAD_LIBRARY;
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials());
  auto stats = v1::ServerStats::NewStub(channel);
  auto feed = feed::v1::Feed::NewStub(channel);

  const v1::StatsSnapshot before = Snapshot(stats.get());
  constexpr int kCalls = 10;
  constexpr uint32_t kPosts = 100;
  for (int i = 0; i < kCalls; ++i) {
    grpc::ClientContext context;
    context.set_deadline(Deadline());
    feed::v1::FeedRequest request;
    request.set_post_count(kPosts);
    feed::v1::FeedResponse response;
    ASSERT_TRUE(feed->GetFeed(&context, request, &response).ok());
  }
  const v1::StatsSnapshot after = Snapshot(stats.get());

  EXPECT_EQ(after.source(), "reco_server_stats_preload");
  EXPECT_EQ(after.mode(), "plain");
  EXPECT_EQ(after.pid(), server.pid());
  EXPECT_TRUE(after.rpcs_not_counted());
  EXPECT_EQ(after.rpcs(), 0u);
  EXPECT_FALSE(after.has_build()) << "no StatsBuildScope can run in a server that does not know the library";
  ASSERT_TRUE(before.has_process_allocations() && after.has_process_allocations())
      << "the preloaded counter is not the server's malloc (malloc=" << after.malloc() << ")";
  const uint64_t allocs = after.process_allocations().allocs() - before.process_allocations().allocs();
  const uint64_t bytes = after.process_allocations().bytes() - before.process_allocations().bytes();
  EXPECT_GE(allocs, uint64_t{kCalls} * kPosts);
  EXPECT_GE(bytes, uint64_t{kCalls} * kPosts * 64);
  EXPECT_GT(after.rss_bytes(), 0u);
}

}  // namespace
}  // namespace reco
