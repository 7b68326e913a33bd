// SPDX-License-Identifier: Apache-2.0
// The Inbox service's work, written once: one page of mail threads, built from the
// request. All three server variants (heap, pooled_arena, spliced; inbox_server.h)
// answer with exactly what FillThreadPage builds.
//
// The content is made up but deterministic: thread i of a page depends only on i and
// long_text (not on the account or the page token), so a page of N threads is the
// first N threads of every longer page. The spliced variant relies on that: it
// serializes the threads once at start-up and splices the first N per request.
//
// Strings: with long_text false every string is at most 15 bytes (libstdc++'s
// small-string buffer: no heap for the characters), with long_text true every string
// is longer (one heap payload each, on an arena too). They are appended straight into
// the message's fields (absl::StrAppend sizes the string once), so a short-text page
// built on a pooled arena makes no malloc at all.
//
// Example:
//   inbox::v1::ListThreadsRequest request;
//   request.set_threads(3);
//   grpc::Status status = inbox::CheckListThreadsRequest(request);   // OK
//   inbox::v1::ThreadPage page;
//   inbox::FillThreadPage(request, &page);
//   // page.threads_size() == 3, page.threads(0).thread_id() == "t000000",
//   // page.next_page_token() == "after-3"
//
// Thread-safety: pure functions of their arguments; call from any thread.
#ifndef INBOX_EXAMPLE_INBOX_HANDLER_H_
#define INBOX_EXAMPLE_INBOX_HANDLER_H_

#include <cstdint>
#include <string>

#include <grpcpp/support/status.h>

#include "inbox.pb.h"

namespace inbox {

// Threads on a page when the request says 0.
inline constexpr uint32_t kDefaultThreads = 50;
// The most a page holds: the spliced variant keeps this many threads per text length
// ready, and a request for more is refused rather than built.
inline constexpr uint32_t kMaxThreads = 1000;

// The threads a request's page holds: request.threads(), or kDefaultThreads for 0.
uint32_t ThreadsOnPage(const v1::ListThreadsRequest& request);

// OK, or INVALID_ARGUMENT naming the field when the request cannot be served
// (threads over kMaxThreads).
grpc::Status CheckListThreadsRequest(const v1::ListThreadsRequest& request);

// Fills an empty `page` for a request that passed CheckListThreadsRequest (a larger
// `threads` is clamped to kMaxThreads). Builds on page's arena, if it has one.
void FillThreadPage(const v1::ListThreadsRequest& request, v1::ThreadPage* page);

// Thread `i` of every page, as FillThreadPage writes it, into an empty `thread`: a
// function of i and long_text only. WatchInbox streams threads 0, 1, ... with it.
void FillMailThread(uint32_t i, bool long_text, v1::MailThread* thread);

// The page's next_page_token for a page of `threads` threads, appended to *out. Part
// of FillThreadPage; the spliced variant writes the same field with it.
void AppendNextPageToken(uint32_t threads, bool long_text, std::string* out);

}  // namespace inbox

#endif  // INBOX_EXAMPLE_INBOX_HANDLER_H_
