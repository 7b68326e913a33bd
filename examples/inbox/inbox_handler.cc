// SPDX-License-Identifier: Apache-2.0
// See inbox_handler.h. Every string is appended into its field with absl::StrAppend,
// which sizes the string once: no temporary std::string, so a short string costs no
// malloc and a long one exactly one. (set_x("literal") would build a temporary.)
#include "inbox_handler.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace inbox {
namespace {

using absl::StrAppend;

// The newest thread's last message; each older thread is a minute older.
constexpr int64_t kNewestMessageUnixMs = 1'700'000'000'000;
constexpr int64_t kMinuteMs = 60'000;

// Label names, each thread taking 2 or 3 consecutive ones. Short: at most 15 bytes;
// long: more than 15.
constexpr absl::string_view kShortLabels[] = {"inbox", "work", "travel", "receipts", "family"};
constexpr absl::string_view kLongLabels[] = {"category/primary-inbox", "projects/work-items", "trips/travel-bookings",
                                             "finance/receipts-2024", "personal/family-photos"};
constexpr size_t kLabelNames = sizeof(kShortLabels) / sizeof(kShortLabels[0]);

// Numbers below stay under kMaxThreads (3 digits) and 4 (participants, attachments),
// which keeps every short string within 15 bytes.
void FillParticipant(uint32_t i, uint32_t j, bool long_text, v1::Participant* p) {
  if (long_text) {
    StrAppend(p->mutable_address(), "user", i, ".", j, "@mail.example.com");
    StrAppend(p->mutable_display_name(), "Participant ", i, ".", j, " (Example Inc.)");
  } else {
    StrAppend(p->mutable_address(), "u", i, ".", j, "@ex.io");  // "u999.3@ex.io"
    StrAppend(p->mutable_display_name(), "User ", i, ".", j);   // "User 999.3"
  }
  p->set_role(j == 0 ? v1::Participant::ROLE_FROM : j % 2 == 1 ? v1::Participant::ROLE_TO : v1::Participant::ROLE_CC);
}

void FillAttachment(uint32_t i, uint32_t j, bool long_text, v1::Attachment* a) {
  if (long_text) {
    StrAppend(a->mutable_file_name(), "scanned-document-", i, "-", j, ".pdf");
    StrAppend(a->mutable_mime_type(), "application/vnd.example-scan+pdf");
  } else {
    StrAppend(a->mutable_file_name(), "f", i, "-", j, ".pdf");  // "f999-1.pdf"
    StrAppend(a->mutable_mime_type(), "application/pdf");       // exactly 15 bytes
  }
  a->set_size_bytes(4096 * (uint64_t{i} + 1) + 1000 * j);
}

}  // namespace

void FillMailThread(uint32_t i, bool long_text, v1::MailThread* t) {
  if (long_text) {
    StrAppend(t->mutable_thread_id(), "thread-inbox-", absl::Dec(i, absl::kZeroPad8));
    StrAppend(t->mutable_subject(), "Re: planning notes for week ", i);
    StrAppend(t->mutable_snippet(), "Thanks, I have read the notes for week ", i, " and will reply soon");
  } else {
    StrAppend(t->mutable_thread_id(), "t", absl::Dec(i, absl::kZeroPad6));  // "t000042"
    StrAppend(t->mutable_subject(), "Subject ", i);                         // "Subject 999"
    StrAppend(t->mutable_snippet(), "See note ", i);                        // "See note 999"
  }
  const uint32_t participants = 2 + i % 3;  // 2 to 4
  for (uint32_t j = 0; j < participants; ++j) FillParticipant(i, j, long_text, t->add_participants());
  const uint32_t labels = 2 + i % 2;  // 2 or 3
  for (uint32_t k = 0; k < labels; ++k) {
    const size_t name = (i + k) % kLabelNames;
    StrAppend(t->add_labels(), long_text ? kLongLabels[name] : kShortLabels[name]);
  }
  v1::ThreadCounters* counters = t->mutable_counters();
  counters->set_messages(2 + i % 7);
  counters->set_unread(i % 3);  // never more than messages
  counters->set_drafts(i % 4 == 0 ? 1 : 0);
  const uint32_t attachments = i % 3;  // 0 to 2
  for (uint32_t j = 0; j < attachments; ++j) FillAttachment(i, j, long_text, t->add_attachments());
  t->set_last_message_unix_ms(kNewestMessageUnixMs - kMinuteMs * i);
  t->set_starred(i % 5 == 0);
}

uint32_t ThreadsOnPage(const v1::ListThreadsRequest& request) {
  return request.threads() == 0 ? kDefaultThreads : request.threads();
}

grpc::Status CheckListThreadsRequest(const v1::ListThreadsRequest& request) {
  if (request.threads() > kMaxThreads) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("threads=", request.threads(), " is over the most a page holds, ", kMaxThreads));
  }
  return grpc::Status::OK;
}

void AppendNextPageToken(uint32_t threads, bool long_text, std::string* out) {
  if (long_text) {
    StrAppend(out, "threads-after-", threads, "-next-page");
  } else {
    StrAppend(out, "after-", threads);  // "after-1000"
  }
}

void FillThreadPage(const v1::ListThreadsRequest& request, v1::ThreadPage* page) {
  const uint32_t threads = std::min(ThreadsOnPage(request), kMaxThreads);
  const bool long_text = request.long_text();
  uint32_t unread = 0;
  page->mutable_threads()->Reserve(static_cast<int>(threads));
  for (uint32_t i = 0; i < threads; ++i) {
    v1::MailThread* thread = page->add_threads();
    FillMailThread(i, long_text, thread);
    unread += thread->counters().unread();
  }
  AppendNextPageToken(threads, long_text, page->mutable_next_page_token());
  page->set_unread_total(unread);
}

}  // namespace inbox
