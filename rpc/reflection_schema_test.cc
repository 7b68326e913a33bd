// SchemaFromReflection against in-process servers: gRPC's own reflection (v1alpha
// only in 1.51, so the v1 -> v1alpha fallback), a fake v1 server that sends imports
// only when asked by file name, one that never answers and one that is gone. A server
// without reflection is reflection_absent_test.cc's: linking grpc++_reflection turns
// reflection on for every server in the process.
#include "rpc/reflection_schema.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include "core/byte_buffer_bytes.h"
#include "feed.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schema/method_schema.h"

namespace reco {
namespace {

namespace pb = google::protobuf;
using ::testing::HasSubstr;

constexpr absl::Duration kTimeout = absl::Seconds(10);

// A message type's fields and options (without json_name, which reflection states and
// a compiled-in descriptor leaves implicit).
std::string Shape(const google::protobuf::Descriptor* type) {
  google::protobuf::DescriptorProto proto;
  type->CopyTo(&proto);
  for (auto& field : *proto.mutable_field()) field.clear_json_name();
  return proto.DebugString();
}

// Registered so reflection has a service to describe; its methods are never called.
class FeedService final : public feed::v1::Feed::CallbackService {};

struct TestServer {
  std::unique_ptr<grpc::Server> server;
  std::shared_ptr<grpc::Channel> channel;
};

TestServer StartServer(grpc::Service* service, grpc::CallbackGenericService* generic = nullptr) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  if (service != nullptr) builder.RegisterService(service);
  if (generic != nullptr) builder.RegisterCallbackGenericService(generic);
  TestServer test;
  test.server = builder.BuildAndStart();
  EXPECT_NE(port, 0);
  test.channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  return test;
}

TEST(SchemaFromReflection, FindsGetFeedThroughGrpcsOwnReflection) {
  // Process-wide (and implied by linking grpc++_reflection): every server serves it.
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  FeedService feed;
  TestServer test = StartServer(&feed);
  absl::StatusOr<ProtoSchema> schema = SchemaFromReflection(*test.channel, "feed.v1.Feed", kTimeout);
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<MethodSchema> method = FindMethod(*schema, "feed.v1.Feed/GetFeed");
  ASSERT_TRUE(method.ok()) << method.status();
  EXPECT_EQ(method->path, "/feed.v1.Feed/GetFeed");
  EXPECT_EQ(Shape(method->request), Shape(feed::v1::FeedRequest::descriptor()));
  EXPECT_EQ(Shape(method->reply), Shape(feed::v1::FeedResponse::descriptor()));
  EXPECT_EQ(Shape(schema->FindMessage("feed.v1.Post")), Shape(feed::v1::Post::descriptor()));
}

TEST(SchemaFromReflection, UnknownServiceNamesCallAndListsTheServices) {
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  FeedService feed;
  TestServer test = StartServer(&feed);
  absl::StatusOr<ProtoSchema> schema = SchemaFromReflection(*test.channel, "feed.v1.Fed", kTimeout);
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(schema.status().message()),
              HasSubstr("--call: the server has no service feed.v1.Fed (by reflection; "
                        "services: "));
  EXPECT_THAT(std::string(schema.status().message()), HasSubstr("feed.v1.Feed"));
}

// gRPC 1.51's built-in health service is listed by reflection but has no descriptor
// in the server: the error says so instead of "no service".
TEST(SchemaFromReflection, AListedServiceWithoutADescriptorAsksForItsProto) {
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::EnableDefaultHealthCheckService(true);
  FeedService feed;
  TestServer test = StartServer(&feed);
  EXPECT_EQ(SchemaFromReflection(*test.channel, "grpc.health.v1.Health", kTimeout).status(),
            absl::InvalidArgumentError("--call: the server lists grpc.health.v1.Health but its reflection cannot "
                                       "describe it (no descriptor for it in the server); give the service's .proto "
                                       "with --proto or --protoset"));
}

TEST(SchemaFromReflection, ASymbolThatIsNotAServiceNamesCall) {
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  FeedService feed;
  TestServer test = StartServer(&feed);
  EXPECT_EQ(SchemaFromReflection(*test.channel, "feed.v1.FeedRequest", kTimeout).status(),
            absl::InvalidArgumentError("--call: feed.v1.FeedRequest is not a service on the server (by reflection)"));
}

TEST(SchemaFromReflection, UnreachableServerIsUnavailable) {
  FeedService feed;
  TestServer test = StartServer(&feed);
  test.server->Shutdown();
  test.server->Wait();
  test.server.reset();  // the port is closed now
  absl::StatusOr<ProtoSchema> schema = SchemaFromReflection(*test.channel, "feed.v1.Feed", kTimeout);
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kUnavailable) << schema.status();
  EXPECT_THAT(std::string(schema.status().message()), HasSubstr("reflection: cannot reach the server"));
}

// A grpc.reflection.v1 server written by hand: it answers file_containing_symbol with
// the service's own file ONLY, and each import when asked for it by file name (as a
// server may; gRPC's own sends the imports along). `silent` never answers at all.
class FakeReflection final : public grpc::CallbackGenericService {
 public:
  FakeReflection(std::map<std::string, pb::FileDescriptorProto> files, std::string service_file, bool silent)
      : files_(std::move(files)), service_file_(std::move(service_file)), silent_(silent) {}
  int by_name_requests() const { return by_name_requests_; }

 private:
  class Reactor final : public grpc::ServerGenericBidiReactor {
   public:
    Reactor(FakeReflection* fake, bool served) : fake_(fake) {
      if (!served) {
        Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "no such method"));
        return;
      }
      StartRead(&in_);
    }
    void OnReadDone(bool ok) override {
      if (!ok) return FinishOnce(grpc::Status::OK);
      if (fake_->silent_) return;  // holds the stream open until the client gives up
      std::string answer = fake_->Answer(ByteBufferBytes(in_));
      grpc::Slice slice(answer);
      out_ = grpc::ByteBuffer(&slice, 1);
      StartWrite(&out_);
    }
    void OnWriteDone(bool ok) override {
      if (!ok) return FinishOnce(grpc::Status::OK);
      StartRead(&in_);
    }
    void OnCancel() override { FinishOnce(grpc::Status::CANCELLED); }
    void OnDone() override { delete this; }

   private:
    void FinishOnce(const grpc::Status& status) {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished_) return;
      finished_ = true;
      Finish(status);
    }
    FakeReflection* fake_;
    grpc::ByteBuffer in_, out_;
    std::mutex mu_;
    bool finished_ = false;
  };

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override {
    return new Reactor(this, context->method() == "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo");
  }

  // A ServerReflectionResponse for a ServerReflectionRequest (see reflection_schema.cc).
  std::string Answer(const std::string& request_bytes) {
    pb::UnknownFieldSet request, response, inner;
    request.ParseFromString(request_bytes);
    std::string file_name;
    for (int i = 0; i < request.field_count(); ++i) {
      if (request.field(i).number() == 4) file_name = service_file_;
      if (request.field(i).number() == 3) {
        file_name = request.field(i).length_delimited();
        ++by_name_requests_;
      }
    }
    auto it = files_.find(file_name);
    if (it == files_.end()) {
      inner.AddVarint(1, grpc::StatusCode::NOT_FOUND);
      inner.AddLengthDelimited(2, "not found");
      inner.SerializeToString(response.AddLengthDelimited(7));
    } else {
      it->second.SerializeToString(inner.AddLengthDelimited(1));
      inner.SerializeToString(response.AddLengthDelimited(4));
    }
    std::string bytes;
    response.SerializeToString(&bytes);
    return bytes;
  }

  std::map<std::string, pb::FileDescriptorProto> files_;
  std::string service_file_;
  bool silent_;
  std::atomic<int> by_name_requests_{0};
};

// shop.proto (service Shop, ListItems(Money) returns (Money)) imports money.proto.
std::map<std::string, pb::FileDescriptorProto> ShopFiles() {
  pb::FileDescriptorProto money, shop;
  money.set_name("money.proto");
  money.set_package("shop.v1");
  money.add_message_type()->set_name("Money");
  shop.set_name("shop.proto");
  shop.set_package("shop.v1");
  shop.add_dependency("money.proto");
  auto* service = shop.add_service();
  service->set_name("Shop");
  auto* method = service->add_method();
  method->set_name("ListItems");
  method->set_input_type(".shop.v1.Money");
  method->set_output_type(".shop.v1.Money");
  return {{"money.proto", money}, {"shop.proto", shop}};
}

TEST(SchemaFromReflection, FetchesImportsByFileNameOverV1) {
  FakeReflection fake(ShopFiles(), "shop.proto", /*silent=*/false);
  TestServer test = StartServer(nullptr, &fake);
  absl::StatusOr<ProtoSchema> schema = SchemaFromReflection(*test.channel, "shop.v1.Shop", kTimeout);
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(fake.by_name_requests(), 1);  // money.proto, asked for by name
  absl::StatusOr<MethodSchema> method = FindMethod(*schema, "shop.v1.Shop/ListItems");
  ASSERT_TRUE(method.ok()) << method.status();
  EXPECT_EQ(method->request->full_name(), "shop.v1.Money");
}

TEST(SchemaFromReflection, AnImportTheServerCannotSendIsNamed) {
  std::map<std::string, pb::FileDescriptorProto> files = ShopFiles();
  files.erase("money.proto");
  FakeReflection fake(std::move(files), "shop.proto", /*silent=*/false);
  TestServer test = StartServer(nullptr, &fake);
  EXPECT_EQ(SchemaFromReflection(*test.channel, "shop.v1.Shop", kTimeout).status(),
            absl::InvalidArgumentError(
                "reflection: the server cannot send \"money.proto\" (imported by shop.proto): not found"));
}

TEST(SchemaFromReflection, AServerThatNeverAnswersEndsAtTheDeadline) {
  FakeReflection fake(ShopFiles(), "shop.proto", /*silent=*/true);
  TestServer test = StartServer(nullptr, &fake);
  absl::StatusOr<ProtoSchema> schema = SchemaFromReflection(*test.channel, "shop.v1.Shop", absl::Milliseconds(300));
  EXPECT_EQ(schema.status(), absl::DeadlineExceededError("reflection: the server did not answer within 300ms"));
}

}  // namespace
}  // namespace reco
