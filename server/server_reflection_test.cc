// Server reflection and health are on: a client that knows nothing about reco.v1 can
// list the services (what grpcurl does first). gRPC installs no reflection client
// headers, so this speaks grpc.reflection.v1alpha by hand over a generic stream:
// ServerReflectionRequest { string list_services = 7; } and looks for the service
// names in the reply.
#include <gtest/gtest.h>

#include <grpcpp/generic/generic_stub.h>

#include "core/byte_buffer_bytes.h"
#include "rpc/health_check.h"
#include "server/testing/server_test_util.h"

namespace reco {
namespace {

void* Tag(intptr_t i) { return reinterpret_cast<void*>(i); }

// Waits for the next completion; true when it is `want` and succeeded.
bool Await(grpc::CompletionQueue* cq, intptr_t want) {
  void* tag;
  bool ok;
  if (!cq->Next(&tag, &ok)) return false;
  return ok && tag == Tag(want);
}

TEST(ServerReflectionTest, ListsTheServices) {
  auto server = testing::StartTestServer(MemoryMode::kArenaPool);
  ASSERT_NE(server, nullptr);
  auto channel = testing::ChannelTo(*server);
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::CompletionQueue cq;
  auto call = stub.PrepareCall(&context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
  call->StartCall(Tag(1));
  ASSERT_TRUE(Await(&cq, 1));
  const std::string list_services("\x3a\x00", 2);  // field 7, length-delimited, empty string
  grpc::Slice slice(list_services);
  grpc::ByteBuffer request(&slice, 1);
  call->Write(request, Tag(2));
  ASSERT_TRUE(Await(&cq, 2));
  grpc::ByteBuffer reply;
  call->Read(&reply, Tag(3));
  ASSERT_TRUE(Await(&cq, 3));
  call->WritesDone(Tag(4));
  ASSERT_TRUE(Await(&cq, 4));
  grpc::Status status;
  call->Finish(&status, Tag(5));
  ASSERT_TRUE(Await(&cq, 5));
  EXPECT_TRUE(status.ok()) << status.error_message();
  cq.Shutdown();
  void* tag;
  bool ok;
  while (cq.Next(&tag, &ok)) {
  }

  const std::string bytes = ByteBufferBytes(reply);
  for (const char* service : {"reco.v1.Recommender", "reco.v1.ServerStats", "grpc.health.v1.Health"}) {
    EXPECT_NE(bytes.find(service), std::string::npos) << service << " is not listed";
  }
}

TEST(ServerReflectionTest, HealthIsServingUntilShutdown) {
  auto server = testing::StartTestServer(MemoryMode::kHeap);
  ASSERT_NE(server, nullptr);
  const std::string target = "127.0.0.1:" + std::to_string(server->port());
  absl::StatusOr<HealthStatus> status = CheckHealth(target, "", absl::Seconds(5));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, HealthStatus::kServing);
  absl::StatusOr<HealthStatus> unknown = CheckHealth(target, "no.such.Service", absl::Seconds(5));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();
  // Each service by name, as probes that name what they depend on ask.
  for (const char* service : {"reco.v1.Recommender", "reco.v1.ServerStats"}) {
    absl::StatusOr<HealthStatus> named = CheckHealth(target, service, absl::Seconds(5));
    ASSERT_TRUE(named.ok()) << service << ": " << named.status();
    EXPECT_EQ(*named, HealthStatus::kServing) << service;
  }
  server->BeginDrain();  // NOT_SERVING for every name, while calls are still served
  for (const char* service : {"", "reco.v1.Recommender", "reco.v1.ServerStats"}) {
    absl::StatusOr<HealthStatus> draining = CheckHealth(target, service, absl::Seconds(5));
    ASSERT_TRUE(draining.ok()) << service << ": " << draining.status();
    EXPECT_EQ(*draining, HealthStatus::kNotServing) << "'" << service << "'";
  }
  server->Shutdown(absl::Seconds(1));
  server->Wait();
  EXPECT_FALSE(CheckHealth(target, "", absl::Milliseconds(300)).ok());
}

}  // namespace
}  // namespace reco
