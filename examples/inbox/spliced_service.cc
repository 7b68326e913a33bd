// SPDX-License-Identifier: Apache-2.0
// See spliced_service.h.
#include "spliced_service.h"

#include <algorithm>

#include "google/protobuf/io/coded_stream.h"
#include "inbox_handler.h"
#include "raw_request.h"
#include "server_stats.h"

namespace inbox {
namespace {

// ThreadPage's field numbers: the reply is written by hand, so these must follow
// inbox.proto (spliced_service_test compares the bytes with SerializeToString's).
constexpr uint32_t kThreadsField = 1;
constexpr uint32_t kNextPageTokenField = 2;
constexpr uint32_t kUnreadTotalField = 3;

// A varint field's bytes: tag then value (proto3: the caller skips a 0).
void AppendVarintField(uint32_t field_number, uint32_t value, reco::patterns::SplicedReply* reply) {
  using google::protobuf::io::CodedOutputStream;
  uint8_t bytes[2 * 5];  // a tag and a value, 5 bytes at most each
  uint8_t* end = CodedOutputStream::WriteTagToArray(field_number << 3, bytes);  // wire type 0: varint
  end = CodedOutputStream::WriteVarint32ToArray(value, end);
  reply->AppendBytes(absl::string_view(reinterpret_cast<const char*>(bytes), end - bytes));
}

}  // namespace

SplicedThreads::SplicedThreads() : texts_{Serialize(false), Serialize(true)} {}

SplicedThreads::Text SplicedThreads::Serialize(bool long_text) {
  v1::ListThreadsRequest request;
  request.set_threads(kMaxThreads);
  request.set_long_text(long_text);
  v1::ThreadPage page;
  FillThreadPage(request, &page);
  Text text;
  text.unread_before.push_back(0);
  for (const v1::MailThread& thread : page.threads()) {
    text.threads.push_back(thread.SerializeAsString());
    text.unread_before.push_back(text.unread_before.back() + thread.counters().unread());
  }
  return text;
}

void SpliceThreadPage(const SplicedThreads& threads, const v1::ListThreadsRequest& request,
                      reco::patterns::SplicedReply* reply) {
  const uint32_t n = std::min(ThreadsOnPage(request), kMaxThreads);
  const bool long_text = request.long_text();
  for (uint32_t i = 0; i < n; ++i) {
    const std::string& bytes = threads.thread(long_text, i);
    reply->AppendLengthDelimitedHeader(kThreadsField, bytes.size());
    reply->AppendFragment(bytes);
  }
  thread_local std::string token;  // scratch: keeps its capacity between replies
  token.clear();
  AppendNextPageToken(n, long_text, &token);
  reply->AppendStringField(kNextPageTokenField, token);
  if (const uint32_t unread = threads.unread_before(long_text, n); unread != 0) {
    AppendVarintField(kUnreadTotalField, unread, reply);
  }
}

grpc::ServerUnaryReactor* SplicedInboxService::ListThreads(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request_bytes,
                                                           grpc::ByteBuffer* response) {
  v1::ListThreadsRequest request;
  grpc::Status status = reco::patterns::ParseRawRequest(*request_bytes, &request);
  if (status.ok()) status = CheckListThreadsRequest(request);
  if (status.ok()) {
    // The handler's build, up to the reply's bytes, reported by the stats library
    // (stats/server_stats.h) as the build phase: this thread's allocations and time.
    reco::StatsBuildScope build;
    thread_local reco::patterns::SplicedReply reply;  // scratch, reused by this thread's calls
    reply.Clear();
    SpliceThreadPage(*threads_, request, &reply);
    reply.Finish(response);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

}  // namespace inbox
