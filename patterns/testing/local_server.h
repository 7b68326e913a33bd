// SPDX-License-Identifier: Apache-2.0
// LocalServer: a gRPC server on 127.0.0.1, on a port the kernel picks, with an
// insecure channel and a Feed stub to it, for the patterns' tests. What it serves is
// the test's: `configure` registers services, completion queues and interceptors on
// the builder before the server starts.
//
// Example:
//   FeedImpl service;
//   LocalServer served([&](grpc::ServerBuilder* builder) { builder->RegisterService(&service); });
//   ASSERT_TRUE(served.started());
//   grpc::Status status = served.stub()->GetFeed(&context, request, &reply);
//
// Stop() shuts the server down (calls in flight get kShutdownGrace) and waits for it;
// the destructor stops it if the test did not. One test thread uses it.
#ifndef ARENA_GRPC_PATTERNS_TESTING_LOCAL_SERVER_H_
#define ARENA_GRPC_PATTERNS_TESTING_LOCAL_SERVER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "feed.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace reco::patterns::testing {

class LocalServer {
 public:
  static constexpr std::chrono::seconds kShutdownGrace{30};

  explicit LocalServer(const std::function<void(grpc::ServerBuilder*)>& configure) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    configure(&builder);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || port == 0) return;
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
    stub_ = feed::v1::Feed::NewStub(channel_);
  }
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;
  ~LocalServer() { Stop(); }

  bool started() const { return stub_ != nullptr; }
  grpc::Server* server() const { return server_.get(); }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  feed::v1::Feed::Stub* stub() const { return stub_.get(); }

  // Shuts the server down and waits until every call has ended. Idempotent; a
  // server something else already shut down (ServingThreads::Stop) is only waited for.
  void Stop() {
    if (server_ == nullptr) return;
    server_->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
    server_->Wait();
    server_.reset();
  }

 private:
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<feed::v1::Feed::Stub> stub_;
};

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_LOCAL_SERVER_H_
