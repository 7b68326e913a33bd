// A server built WITHOUT the stats library (no counting malloc, no stats service):
// the stand-in for a binary a user cannot rebuild, for stats/preload_test.cc.
// Serves feed.v1.Feed/GetFeed on 127.0.0.1 (a port the OS picks), whose handler makes
// post_count allocations of 64 bytes; prints "port N" on stdout, then serves until
// its stdin closes.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <grpcpp/grpcpp.h>

#include "feed.grpc.pb.h"

namespace {

class PlainFeedService final : public feed::v1::Feed::CallbackService {
  grpc::ServerUnaryReactor* GetFeed(grpc::CallbackServerContext* context, const feed::v1::FeedRequest* request,
                                    feed::v1::FeedResponse*) override {
    for (uint32_t i = 0; i < request->post_count(); ++i) {
      void* p = std::malloc(64);
      asm volatile("" : : "g"(p) : "memory");
      std::free(p);
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

}  // namespace

int main() {
  PlainFeedService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) return 1;
  std::cout << "port " << port << std::endl;
  std::string ignored;
  while (std::getline(std::cin, ignored)) {
  }
  server->Shutdown();
  return 0;
}
