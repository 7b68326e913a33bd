// LoadProtoFiles (--proto), LoadProtoset (--protoset) and FromFileDescriptorProtos: the
// schema found, and each bad input's message naming its flag and where.
#include "schema/proto_schema.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/test_util.h"
#include "feed.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kFeedProto = RECO_SOURCE_DIR "/patterns/testing/feed.proto";

// A message type's fields and options as protoc wrote them (without json_name, which
// a protoset states and a compiled-in descriptor leaves implicit).
std::string Shape(const google::protobuf::Descriptor* type) {
  google::protobuf::DescriptorProto proto;
  type->CopyTo(&proto);
  for (auto& field : *proto.mutable_field()) field.clear_json_name();
  return proto.DebugString();
}

// A service importing a file of its own folder, and one from elsewhere (--import_path).
constexpr char kShopProto[] = R"(syntax = "proto3";
package shop.v1;
import "money.proto";
import "common/paging.proto";
service Shop { rpc ListItems(ListItemsRequest) returns (ListItemsReply); }
message ListItemsRequest { common.Page page = 1; }
message ListItemsReply { repeated Money prices = 1; }
)";
constexpr char kMoneyProto[] = "syntax = \"proto3\";\npackage shop.v1;\nmessage Money { int64 cents = 1; }\n";
constexpr char kPagingProto[] = "syntax = \"proto3\";\npackage common;\nmessage Page { string token = 1; }\n";

TEST(LoadProtoFiles, FindsTheServiceAndItsTypes) {
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({kFeedProto}, {});
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_THAT(schema->Services(), ElementsAre("feed.v1.Feed"));
  const google::protobuf::Descriptor* request = schema->FindMessage("feed.v1.FeedRequest");
  ASSERT_NE(request, nullptr);
  // The same type protoc compiled into feed.pb.h, field for field.
  EXPECT_EQ(Shape(request), Shape(feed::v1::FeedRequest::descriptor()));
  EXPECT_EQ(schema->FindMessage("feed.v1.NoSuchThing"), nullptr);
}

TEST(LoadProtoFiles, FollowsImportsBesideTheFileAndOnTheImportPath) {
  const std::string dir = testing::FreshTestFolder();
  std::filesystem::create_directories(dir + "/include/common");
  testing::WriteTestFile(dir + "/shop.proto", kShopProto);
  testing::WriteTestFile(dir + "/money.proto", kMoneyProto);
  testing::WriteTestFile(dir + "/include/common/paging.proto", kPagingProto);
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({dir + "/shop.proto"}, {dir + "/include"});
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_THAT(schema->Services(), ElementsAre("shop.v1.Shop"));
  ASSERT_NE(schema->FindMessage("common.Page"), nullptr);
  ASSERT_NE(schema->FindMessage("shop.v1.Money"), nullptr);
}

TEST(LoadProtoFiles, FindsTheWellKnownTypesWithoutAnImportPath) {
  const std::string dir = testing::FreshTestFolder();
  testing::WriteTestFile(dir + "/clock.proto", R"(syntax = "proto3";
package clock.v1;
import "google/protobuf/timestamp.proto";
message Tick { google.protobuf.Timestamp at = 1; }
)");
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({dir + "/clock.proto"}, {});
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_NE(schema->FindMessage("clock.v1.Tick"), nullptr);
}

// "feed.proto" with --import_path DIR, as protoc and grpcurl take it: a name under an
// import path when no such file is in the working directory; the messages list the
// schema's own messages.
TEST(LoadProtoFiles, FindsARelativeNameUnderAnImportPath) {
  absl::StatusOr<ProtoSchema> schema =
      LoadProtoFiles({"feed.proto"}, {RECO_SOURCE_DIR "/schema", RECO_SOURCE_DIR "/patterns/testing"});
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_NE(schema->FindMessage("feed.v1.FeedResponse"), nullptr);
  const std::vector<std::string> messages = schema->Messages();
  ASSERT_FALSE(messages.empty());
  EXPECT_EQ(messages.front(), "feed.v1.FeedRequest");
  absl::StatusOr<ProtoSchema> missing = LoadProtoFiles({"feed.proto"}, {RECO_SOURCE_DIR "/schema"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nor under any --import_path"), std::string::npos) << missing.status();
}

TEST(LoadProtoFiles, MissingFileNamesTheFlag) {
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({"/nonexistent/x.proto"}, {});
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(schema.status().message(), "--proto /nonexistent/x.proto: no such file");
}

TEST(LoadProtoFiles, MissingImportPathNamesTheFlag) {
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({kFeedProto}, {"/nonexistent"});
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(schema.status().message(), "--import_path /nonexistent: not a directory");
}

TEST(LoadProtoFiles, MissingImportNamesTheImportAndWhereItWasLookedFor) {
  const std::string dir = testing::FreshTestFolder();
  testing::WriteTestFile(dir + "/shop.proto", kShopProto);  // money.proto and paging.proto absent
  testing::WriteTestFile(dir + "/money.proto", kMoneyProto);
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({dir + "/shop.proto"}, {});
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(schema.status().message()),
              HasSubstr(absl::StrCat("--proto ", dir,
                                     "/shop.proto: import \"common/paging.proto\" not found in "
                                     "--import_path or beside the file (searched: ",
                                     dir, ")")));
}

TEST(LoadProtoFiles, SyntaxErrorNamesFileLineAndColumn) {
  const std::string dir = testing::FreshTestFolder();
  testing::WriteTestFile(dir + "/bad.proto", "syntax = \"proto3\";\npackage bad;\nmessage M {\n  string name = 1\n}\n");
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({dir + "/bad.proto"}, {});
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  // Line 5, column 1: the "}" where protoc wanted the ";" that line 4 lacks.
  EXPECT_THAT(std::string(schema.status().message()),
              HasSubstr(absl::StrCat("--proto ", dir, "/bad.proto: bad.proto:5:1: Expected \";\"")));
}

TEST(LoadProtoFiles, UndefinedTypeNamesFileLineAndColumn) {
  const std::string dir = testing::FreshTestFolder();
  testing::WriteTestFile(
      dir + "/svc.proto",
      "syntax = \"proto3\";\npackage s;\nmessage M {}\nservice S { rpc Get(M) returns (stream Thread); }\n");
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({dir + "/svc.proto"}, {});
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(schema.status().message()), HasSubstr("svc.proto:4:40: \"Thread\" is not defined."));
}

// Makes a FileDescriptorSet the way the flag's help says to.
std::string Protoset(const std::string& dir, const std::string& proto_dir, const std::string& file,
                     bool include_imports = true) {
  const std::string out = dir + "/set.pb";
  const std::string command = absl::StrCat(RECO_PROTOC, " -I", proto_dir, include_imports ? " --include_imports" : "",
                                           " --descriptor_set_out=", out, " ", proto_dir, "/", file);
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return out;
}

TEST(LoadProtoset, FindsTheServiceAndItsTypes) {
  const std::string dir = testing::FreshTestFolder();
  absl::StatusOr<ProtoSchema> schema = LoadProtoset(Protoset(dir, RECO_SOURCE_DIR "/patterns/testing", "feed.proto"));
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_THAT(schema->Services(), ElementsAre("feed.v1.Feed"));
  ASSERT_NE(schema->FindMessage("feed.v1.FeedResponse"), nullptr);
  EXPECT_EQ(Shape(schema->FindMessage("feed.v1.FeedResponse")), Shape(feed::v1::FeedResponse::descriptor()));
}

TEST(LoadProtoset, WithoutIncludeImportsSaysSo) {
  const std::string dir = testing::FreshTestFolder();
  testing::WriteTestFile(dir + "/shop.proto", kShopProto);
  testing::WriteTestFile(dir + "/money.proto", kMoneyProto);
  std::filesystem::create_directories(dir + "/common");
  testing::WriteTestFile(dir + "/common/paging.proto", kPagingProto);
  const std::string set = Protoset(dir, dir, "shop.proto", /*include_imports=*/false);
  absl::StatusOr<ProtoSchema> schema = LoadProtoset(set);
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(schema.status().message(),
            absl::StrCat("--protoset ", set,
                         ": shop.proto imports \"money.proto\", which is not among the files "
                         "given (was it made with protoc --include_imports?)"));
}

TEST(LoadProtoset, MissingFileNamesTheFlag) {
  absl::StatusOr<ProtoSchema> schema = LoadProtoset("/nonexistent/set.pb");
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(schema.status().message(), "--protoset /nonexistent/set.pb: cannot read it (No such file or directory)");
}

TEST(LoadProtoset, GarbageIsNotADescriptorSet) {
  const std::string dir = testing::FreshTestFolder();
  // A .proto file given by mistake, an empty file and binary noise.
  for (const std::string& contents : {std::string(kMoneyProto), std::string(), std::string("\x0a\x03\xff\xfe", 4)}) {
    testing::WriteTestFile(dir + "/set.pb", contents);
    absl::StatusOr<ProtoSchema> schema = LoadProtoset(dir + "/set.pb");
    EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument) << contents;
    EXPECT_EQ(schema.status().message(), absl::StrCat("--protoset ", dir,
                                                      "/set.pb: not a FileDescriptorSet (make one with protoc "
                                                      "--include_imports --descriptor_set_out=FILE)"));
  }
}

TEST(FromFileDescriptorProtos, BuildsInAnyOrderAndSurvivesAMove) {
  google::protobuf::FileDescriptorProto money, shop;
  money.set_name("money.proto");
  money.set_package("shop.v1");
  money.add_message_type()->set_name("Money");
  shop.set_name("shop.proto");
  shop.set_package("shop.v1");
  shop.add_dependency("money.proto");
  auto* reply = shop.add_message_type();
  reply->set_name("Reply");
  auto* field = reply->add_field();
  field->set_name("price");
  field->set_number(1);
  field->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
  field->set_type(google::protobuf::FieldDescriptorProto::TYPE_MESSAGE);
  field->set_type_name(".shop.v1.Money");
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos({shop, money});  // importer first
  ASSERT_TRUE(schema.ok()) << schema.status();
  const google::protobuf::Descriptor* before = schema->FindMessage("shop.v1.Reply");
  ProtoSchema moved = *std::move(schema);
  EXPECT_EQ(moved.FindMessage("shop.v1.Reply"), before);  // descriptors keep their address
  EXPECT_EQ(moved.FindMessage("shop.v1.Reply")->field(0)->message_type()->full_name(), "shop.v1.Money");
  // Assigned over: the old schema's prototypes go before its pool (ASan judges it).
  absl::StatusOr<ProtoSchema> other = FromFileDescriptorProtos({money});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->Prototype(other->FindMessage("shop.v1.Money")).GetDescriptor()->full_name(), "shop.v1.Money");
  *other = std::move(moved);
  EXPECT_EQ(other->FindMessage("shop.v1.Reply"), before);
}

TEST(FromFileDescriptorProtos, AFileThatDoesNotBuildIsNamed) {
  google::protobuf::FileDescriptorProto file;
  file.set_name("broken.proto");
  auto* message = file.add_message_type();
  message->set_name("M");
  auto* field = message->add_field();
  field->set_name("x");
  field->set_number(1);
  field->set_type_name(".nowhere.Thing");
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos({file});
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(schema.status().message()),
              HasSubstr("broken.proto: M.x: \".nowhere.Thing\" is not defined."));
}

// An import chain as long as the files given (a server's reflection answer or a
// protoset can send one): 100,000 files, each importing the one before, the last one
// with a message. The recursive walk overflowed the thread's stack on it (SIGSEGV).
TEST(FromFileDescriptorProtos, AChainOfAHundredThousandImportsBuilds) {
  constexpr int kFiles = 100000;
  std::vector<google::protobuf::FileDescriptorProto> files(kFiles);
  for (int i = 0; i < kFiles; ++i) {
    files[i].set_name(absl::StrCat("f", i, ".proto"));
    if (i > 0) files[i].add_dependency(absl::StrCat("f", i - 1, ".proto"));
  }
  files.back().set_package("chain");
  files.back().add_message_type()->set_name("End");
  std::reverse(files.begin(), files.end());  // the last file first: the walk goes the whole chain down
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos(std::move(files));
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_NE(schema->FindMessage("chain.End"), nullptr);
}

// --proto: a chain of imports deeper than protobuf's importer can recurse is refused,
// naming the flag and the file; one of the greatest depth allowed loads.
TEST(LoadProtoFiles, ImportsNestedTooDeepAreRefused) {
  const std::string dir = testing::FreshTestFolder();
  constexpr int kDepth = 1001;
  for (int i = 0; i < kDepth; ++i) {
    testing::WriteTestFile(
        absl::StrCat(dir, "/f", i, ".proto"),
        absl::StrCat("syntax = \"proto3\";\n", i > 0 ? absl::StrCat("import \"f", i - 1, ".proto\";\n") : "",
                     "message M", i, " {}\n"));
  }
  const std::string deepest = absl::StrCat(dir, "/f", kDepth - 1, ".proto");
  absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({deepest}, {});
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(schema.status().message(),
            absl::StrCat("--proto ", deepest, ": its imports nest more than 1000 files deep"));
  absl::StatusOr<ProtoSchema> allowed = LoadProtoFiles({absl::StrCat(dir, "/f", kDepth - 2, ".proto")}, {});
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  EXPECT_NE(allowed->FindMessage("M0"), nullptr);
}

}  // namespace
}  // namespace reco
