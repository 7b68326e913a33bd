// SPDX-License-Identifier: Apache-2.0
// FillThreadPage's content: the page's size, the shape of each thread, the text rule
// (every string at most 15 bytes, or every string longer), and the property the
// spliced variant stands on (a page is a prefix of every longer page).
#include "inbox_handler.h"

#include <set>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "message_tree.h"

namespace inbox {
namespace {

using reco::patterns::testing::StringsLongerThan;

v1::ThreadPage Page(uint32_t threads, bool long_text) {
  v1::ListThreadsRequest request;
  request.set_threads(threads);
  request.set_long_text(long_text);
  v1::ThreadPage page;
  FillThreadPage(request, &page);
  return page;
}

TEST(FillThreadPage, HeaderExample) {
  v1::ThreadPage page = Page(3, false);
  EXPECT_EQ(page.threads_size(), 3);
  EXPECT_EQ(page.threads(0).thread_id(), "t000000");
  EXPECT_EQ(page.next_page_token(), "after-3");
}

TEST(FillThreadPage, ZeroThreadsMeansFifty) {
  EXPECT_EQ(Page(0, false).threads_size(), 50);
  EXPECT_EQ(Page(0, true).threads_size(), 50);
  EXPECT_EQ(Page(1, false).threads_size(), 1);
  EXPECT_EQ(Page(kMaxThreads, false).threads_size(), static_cast<int>(kMaxThreads));
}

TEST(FillThreadPage, ThreadsHaveEveryShapeTheSchemaAllows) {
  std::set<int> participants, labels, attachments;
  uint32_t unread = 0;
  const v1::ThreadPage page = Page(50, false);
  for (const v1::MailThread& t : page.threads()) {
    participants.insert(t.participants_size());
    labels.insert(t.labels_size());
    attachments.insert(t.attachments_size());
    EXPECT_GE(t.counters().messages(), t.counters().unread());
    EXPECT_GT(t.last_message_unix_ms(), 0);
    unread += t.counters().unread();
  }
  EXPECT_EQ(participants, (std::set<int>{2, 3, 4}));
  EXPECT_EQ(labels, (std::set<int>{2, 3}));
  EXPECT_EQ(attachments, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(page.unread_total(), unread);
}

// The whole reason for long_text: short strings stay in libstdc++'s 15-byte buffer.
TEST(FillThreadPage, ShortTextIsAtMost15BytesLongTextIsLonger) {
  for (uint32_t threads : {50u, kMaxThreads}) {
    const v1::ThreadPage short_page = Page(threads, false), long_page = Page(threads, true);
    const int strings = StringsLongerThan(short_page, 0);  // every string is set (none empty)
    EXPECT_GT(strings, 0);
    EXPECT_EQ(StringsLongerThan(short_page, 15), 0) << threads;
    EXPECT_EQ(StringsLongerThan(long_page, 0), strings);  // the same strings, in another length
    EXPECT_EQ(StringsLongerThan(long_page, 15), strings) << threads;
  }
}

TEST(FillThreadPage, APageIsThePrefixOfALongerOne) {
  for (bool long_text : {false, true}) {
    const v1::ThreadPage page = Page(7, long_text), longer = Page(kMaxThreads, long_text);
    for (int i = 0; i < page.threads_size(); ++i) {
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(page.threads(i), longer.threads(i))) << i;
    }
  }
}

TEST(CheckListThreadsRequest, RefusesMoreThanAPageHolds) {
  v1::ListThreadsRequest request;
  request.set_threads(kMaxThreads);
  EXPECT_TRUE(CheckListThreadsRequest(request).ok());
  request.set_threads(kMaxThreads + 1);
  const grpc::Status status = CheckListThreadsRequest(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "threads=1001 is over the most a page holds, 1000");
}

}  // namespace
}  // namespace inbox
