// SchemaFromReflection against a server without reflection. A binary of its own: one
// that links gRPC's reflection library serves reflection from every server it builds
// (the plugin registers itself when the library is loaded).
#include <memory>
#include <string>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include "feed.grpc.pb.h"
#include "gtest/gtest.h"
#include "rpc/reflection_schema.h"

namespace reco {
namespace {

class FeedService final : public feed::v1::Feed::CallbackService {};

TEST(SchemaFromReflection, ServerWithoutReflectionSaysGiveProtoOrProtoset) {
  FeedService feed;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&feed);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(port, 0);
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  EXPECT_EQ(SchemaFromReflection(*channel, "feed.v1.Feed", absl::Seconds(10)).status(),
            absl::InvalidArgumentError("the server does not serve gRPC reflection (grpc.reflection.v1 or v1alpha); "
                                       "give --proto or --protoset"));
}

}  // namespace
}  // namespace reco
