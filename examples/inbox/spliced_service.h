// SPDX-License-Identifier: Apache-2.0
// SplicedInboxService: inbox.v1.Inbox/ListThreads answered with a reply spliced from
// threads serialized at start-up (patterns/spliced_reply.h) -- inbox_server's
// `spliced` variant. Clients see the ordinary ThreadPage, byte for byte what the
// message variants send (spliced_service_test).
//
// Why it works here: thread i of a page depends only on i and long_text
// (inbox_handler.h), so SplicedThreads serializes FillThreadPage's threads once per
// (long_text, index), and a reply is the first N of them (field 1, in order) followed
// by the per-request fields next_page_token (2) and unread_total (3) -- field number
// order, as SerializeToString writes them.
//
// The request arrives as bytes (WithRawCallbackMethod_ListThreads) and is parsed with
// patterns/raw_request.h: bytes that are not a ListThreadsRequest, or a stream cut
// before a whole message, get INVALID_ARGUMENT. WatchInbox is not served here (gRPC
// answers UNIMPLEMENTED; the message variants stream it).
//
// Example:
//   inbox::SplicedThreads threads;             // serializes 2 x kMaxThreads threads
//   inbox::SplicedInboxService service(&threads);
//   builder.RegisterService(&service);
//
// Thread-safety: SplicedThreads is immutable once made and must outlive the server
// (replies may reference it after the handler returns). ListThreads runs on gRPC's
// threads, many at once; each thread keeps its own SplicedReply scratch.
#ifndef INBOX_EXAMPLE_SPLICED_SERVICE_H_
#define INBOX_EXAMPLE_SPLICED_SERVICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include <grpcpp/support/byte_buffer.h>

#include "inbox.grpc.pb.h"
#include "spliced_reply.h"

namespace inbox {

// Every thread a page may hold, serialized: kMaxThreads per text length.
class SplicedThreads {
 public:
  SplicedThreads();

  // Thread `index`'s bytes (a serialized MailThread) for the given text length.
  const std::string& thread(bool long_text, uint32_t index) const { return texts_[long_text].threads[index]; }
  // The sum of counters.unread over threads [0, n).
  uint32_t unread_before(bool long_text, uint32_t n) const { return texts_[long_text].unread_before[n]; }

 private:
  struct Text {
    std::vector<std::string> threads;
    std::vector<uint32_t> unread_before;  // kMaxThreads + 1 prefix sums
  };
  static Text Serialize(bool long_text);
  Text texts_[2];  // [long_text]
};

// A valid request's reply bytes, appended to a cleared `reply`. The service's build,
// and what the test compares with FillThreadPage.
void SpliceThreadPage(const SplicedThreads& threads, const v1::ListThreadsRequest& request,
                      reco::patterns::SplicedReply* reply);

class SplicedInboxService final : public v1::Inbox::WithRawCallbackMethod_ListThreads<
                                      v1::Inbox::WithCallbackMethod_WatchInbox<v1::Inbox::Service>> {
 public:
  explicit SplicedInboxService(const SplicedThreads* threads) : threads_(threads) {}

  grpc::ServerUnaryReactor* ListThreads(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;

 private:
  const SplicedThreads* const threads_;
};

}  // namespace inbox

#endif  // INBOX_EXAMPLE_SPLICED_SERVICE_H_
