// SPDX-License-Identifier: Apache-2.0
// Each variant of inbox_server, started in-process on 127.0.0.1 (port 0), answers
// ListThreads with FillThreadPage's page, refuses what it must refuse with the right
// status, and keeps serving afterwards.
#include "inbox_server.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "inbox_handler.h"
#include "raw_call.h"

namespace inbox {
namespace {

using reco::patterns::testing::CallRawUnary;

}  // namespace

// gtest prints a test's parameter by its name, not its bytes.
void PrintTo(Variant variant, std::ostream* out) { *out << VariantName(variant); }

namespace {

class InboxServerTest : public testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    auto server = InboxServer::Start(GetParam(), "127.0.0.1:0");
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials());
    stub_ = v1::Inbox::NewStub(channel_);
  }

  grpc::Status ListThreads(const v1::ListThreadsRequest& request, v1::ThreadPage* page) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));  // a bound on hangs
    return stub_->ListThreads(&context, request, page);
  }

  // A default request still answers with 50 threads: the server keeps serving.
  void ExpectStillServing() {
    v1::ThreadPage page;
    ASSERT_TRUE(ListThreads(v1::ListThreadsRequest(), &page).ok());
    EXPECT_EQ(page.threads_size(), 50);
  }

  std::unique_ptr<InboxServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Inbox::Stub> stub_;
};

TEST_P(InboxServerTest, ListThreadsAnswersFillThreadPagesPage) {
  for (bool long_text : {false, true}) {
    for (uint32_t threads : {0u, 7u}) {
      v1::ListThreadsRequest request;
      request.set_threads(threads);
      request.set_long_text(long_text);
      v1::ThreadPage page, expected;
      ASSERT_TRUE(ListThreads(request, &page).ok());
      FillThreadPage(request, &expected);
      EXPECT_EQ(page.threads_size(), threads == 0 ? 50 : static_cast<int>(threads));
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(page, expected));
    }
  }
}

TEST_P(InboxServerTest, TooManyThreadsIsInvalidArgument) {
  v1::ListThreadsRequest request;
  request.set_threads(kMaxThreads + 1);
  v1::ThreadPage page;
  const grpc::Status status = ListThreads(request, &page);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "threads=1001 is over the most a page holds, 1000");
  ExpectStillServing();
}

TEST_P(InboxServerTest, OversizedRequestIsRefused) {
  v1::ListThreadsRequest request;
  request.set_account(std::string(kMaxRequestBytes, 'a'));
  v1::ThreadPage page;
  EXPECT_EQ(ListThreads(request, &page).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  ExpectStillServing();
}

TEST_P(InboxServerTest, UnknownMethodsAreUnimplemented) {
  std::string reply;
  const std::string request = v1::ListThreadsRequest().SerializeAsString();
  EXPECT_EQ(CallRawUnary(channel_.get(), "/inbox.v1.Inbox/NoSuchMethod", request, &reply).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(CallRawUnary(channel_.get(), "/inbox.v1.NoSuchService/ListThreads", request, &reply).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  ExpectStillServing();
}

// WatchInbox: the message variants stream the page's threads, one message each, as
// FillThreadPage builds them (twice, so that the second stream takes arenas the first
// gave back), and refuse what ListThreads refuses; the spliced variant serves no
// WatchInbox (UNIMPLEMENTED).
TEST_P(InboxServerTest, WatchInboxStreamsThePagesThreads) {
  auto watch = [&](const v1::ListThreadsRequest& request, std::vector<v1::MailThread>* threads) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    std::unique_ptr<grpc::ClientReader<v1::MailThread>> reader = stub_->WatchInbox(&context, request);
    for (v1::MailThread thread; reader->Read(&thread);) threads->push_back(thread);
    return reader->Finish();
  };
  v1::ListThreadsRequest request;
  request.set_threads(12);
  request.set_long_text(true);
  v1::ThreadPage expected;
  FillThreadPage(request, &expected);
  for (int stream = 0; stream < 2; ++stream) {
    std::vector<v1::MailThread> threads;
    const grpc::Status status = watch(request, &threads);
    if (GetParam() == Variant::kSpliced) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
      EXPECT_TRUE(threads.empty());
      continue;
    }
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(threads.size(), 12u) << "stream " << stream;
    for (size_t i = 0; i < threads.size(); ++i) {
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(threads[i], expected.threads(static_cast<int>(i))))
          << "stream " << stream << ", thread " << i;
    }
  }
  request.set_threads(kMaxThreads + 1);
  std::vector<v1::MailThread> none;
  EXPECT_EQ(watch(request, &none).error_code(),
            GetParam() == Variant::kSpliced ? grpc::StatusCode::UNIMPLEMENTED : grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(none.empty());
  ExpectStillServing();
}

// gRPC server reflection lists the service: a list_services request (field 7, an
// empty string) on the v1alpha stream, read as bytes.
TEST_P(InboxServerTest, ReflectionListsTheService) {
  std::string reply;
  const grpc::Status status =
      CallRawUnary(channel_.get(), "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                   std::string("\x3a\x00", 2), &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_NE(reply.find("inbox.v1.Inbox"), std::string::npos);
}

// Bytes that are no ListThreadsRequest, or a stream without a message: the spliced
// variant parses the request itself (patterns/raw_request.h) and refuses both; the
// message variants get gRPC's own refusal. Either way the server keeps serving.
TEST_P(InboxServerTest, GarbageRequestIsRefused) {
  std::string reply;
  const std::string garbage("\xff\xff\xff\xff", 4);
  const grpc::Status bad = CallRawUnary(channel_.get(), "/inbox.v1.Inbox/ListThreads", garbage, &reply);
  const grpc::Status none = CallRawUnary(channel_.get(), "/inbox.v1.Inbox/ListThreads", std::nullopt, &reply);
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(none.ok());
  if (GetParam() == Variant::kSpliced) {
    EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(none.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  ExpectStillServing();
}

INSTANTIATE_TEST_SUITE_P(Variants, InboxServerTest,
                         testing::Values(Variant::kHeap, Variant::kPooledArena, Variant::kSpliced),
                         [](const testing::TestParamInfo<Variant>& info) {
                           return std::string(VariantName(info.param));
                         });

TEST(ParseVariant, NamesRoundTrip) {
  for (Variant v : {Variant::kHeap, Variant::kPooledArena, Variant::kSpliced})
    EXPECT_EQ(ParseVariant(VariantName(v)), v);
  EXPECT_EQ(ParseVariant("arena"), std::nullopt);
}

}  // namespace
}  // namespace inbox
