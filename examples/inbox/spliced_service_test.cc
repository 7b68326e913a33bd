// SPDX-License-Identifier: Apache-2.0
// The spliced reply is what FillThreadPage builds: its bytes parse to an equal
// ThreadPage, and are even SerializeToString's bytes (field number order), for short
// and long text, the default page, one thread (unread_total 0: the field is omitted)
// and the largest page.
#include "spliced_service.h"

#include "byte_buffer_bytes.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "inbox_handler.h"

namespace inbox {
namespace {

TEST(SpliceThreadPage, BytesParseToFillThreadPagesPage) {
  const SplicedThreads threads;
  reco::patterns::SplicedReply reply;
  for (bool long_text : {false, true}) {
    for (uint32_t n : {0u, 1u, 2u, 7u, kMaxThreads}) {
      SCOPED_TRACE(testing::Message() << "threads=" << n << " long_text=" << long_text);
      v1::ListThreadsRequest request;
      request.set_threads(n);
      request.set_long_text(long_text);
      request.set_account("someone@example.com");  // ignored by both
      v1::ThreadPage expected;
      FillThreadPage(request, &expected);

      reply.Clear();
      SpliceThreadPage(threads, request, &reply);
      grpc::ByteBuffer buffer;
      reply.Finish(&buffer);
      const std::string bytes = reco::patterns::ByteBufferBytes(buffer);
      v1::ThreadPage parsed;
      ASSERT_TRUE(parsed.ParseFromString(bytes));
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(parsed, expected));
      EXPECT_EQ(bytes, expected.SerializeAsString());
    }
  }
}

}  // namespace
}  // namespace inbox
