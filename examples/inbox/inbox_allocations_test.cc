// SPDX-License-Identifier: Apache-2.0
// Mallocs per page of the handler's build (FillThreadPage), on gRPC's default (heap)
// messages and on the pooled arena the pooled_arena variant installs, counted exactly
// on this thread (patterns/testing/malloc_counter.h). Each expected count is derived
// from the page itself (by reflection), not written down:
//   heap:         one per sub-message, one per string object, one per repeated
//                 field's array (and its regrowths); long text adds each string's
//                 characters.
//   pooled arena: 0 with short text; with long text one per string (its characters:
//                 protobuf 3.21 keeps them on the heap even on an arena).
#include <iostream>

#include "gtest/gtest.h"
#include "inbox_handler.h"
#include "malloc_counter.h"
#include "message_service.h"
#include "message_tree.h"

namespace inbox {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using reco::patterns::testing::AllMessages;
using reco::patterns::testing::MallocCounter;
using reco::patterns::testing::MallocCounts;
using reco::patterns::testing::StringsLongerThan;

v1::ListThreadsRequest Request(bool long_text) {
  v1::ListThreadsRequest request;
  request.set_threads(50);
  request.set_long_text(long_text);
  return request;
}

// Arrays a heap RepeatedPtrField mallocs to hold n elements when added one by one:
// protobuf 3.21 grows capacity 0 -> 1 -> 3 -> 7 -> ... (2c + 1).
int GrowthArrays(int n) {
  int arrays = 0;
  for (int capacity = 0; capacity < n; capacity = 2 * capacity + 1) ++arrays;
  return arrays;
}

// The heap build's mallocs, from the page: see the file comment. page.threads is
// Reserve()d up front: one array.
int ExpectedHeapAllocs(const v1::ThreadPage& page) {
  const std::vector<const Message*> messages = AllMessages(page);
  int arrays = 1;
  for (const Message* m : messages) {
    if (m == &page) continue;
    std::vector<const FieldDescriptor*> fields;
    m->GetReflection()->ListFields(*m, &fields);
    for (const FieldDescriptor* f : fields) {
      if (f->is_repeated()) arrays += GrowthArrays(m->GetReflection()->FieldSize(*m, f));
    }
  }
  const int sub_messages = static_cast<int>(messages.size()) - 1;
  return sub_messages + StringsLongerThan(page, 0) + arrays + StringsLongerThan(page, 15);
}

MallocCounts HeapBuild(bool long_text, v1::ThreadPage* page) {
  const v1::ListThreadsRequest request = Request(long_text);
  const MallocCounts before = MallocCounter::ThisThread();
  FillThreadPage(request, page);
  return MallocCounter::ThisThread() - before;
}

TEST(InboxAllocations, HeapBuildMallocsEveryObject) {
  for (bool long_text : {false, true}) {
    {
      v1::ThreadPage warm_up;
      HeapBuild(long_text, &warm_up);
    }
    v1::ThreadPage page;
    const MallocCounts build = HeapBuild(long_text, &page);
    EXPECT_EQ(build.allocs, static_cast<uint64_t>(ExpectedHeapAllocs(page))) << "long_text=" << long_text;
    std::cout << "heap, " << (long_text ? "long" : "short") << " text, 50 threads: " << build.allocs
              << " mallocs per build\n";
  }
}

// One RPC's cycle on the pooled_arena variant's allocator, with the build counted
// apart from taking and releasing the messages.
struct PooledCycle {
  MallocCounts allocate, build, release;
  int strings = 0, long_strings = 0;
};

PooledCycle PooledBuild(PooledThreadPageAllocator* allocator, bool long_text) {
  const v1::ListThreadsRequest request = Request(long_text);
  PooledCycle c;
  MallocCounts t0 = MallocCounter::ThisThread();
  grpc::MessageHolder<v1::ListThreadsRequest, v1::ThreadPage>* holder = allocator->AllocateMessages();
  MallocCounts t1 = MallocCounter::ThisThread();
  FillThreadPage(request, holder->response());
  MallocCounts t2 = MallocCounter::ThisThread();
  c.strings = StringsLongerThan(*holder->response(), 0);
  c.long_strings = StringsLongerThan(*holder->response(), 15);
  MallocCounts t3 = MallocCounter::ThisThread();
  holder->Release();
  MallocCounts t4 = MallocCounter::ThisThread();
  c.allocate = t1 - t0;
  c.build = t2 - t1;
  c.release = t4 - t3;
  return c;
}

TEST(InboxAllocations, PooledArenaShortTextMallocsNothing) {
  PooledThreadPageAllocator allocator(PooledArenaOptionsForInbox());
  PooledBuild(&allocator, false);  // warm-up: makes the pooled arena and its block
  const PooledCycle c = PooledBuild(&allocator, false);
  EXPECT_EQ(c.allocate.allocs, 0u);
  EXPECT_EQ(c.build.allocs, 0u);
  EXPECT_EQ(c.release.allocs + c.release.frees, 0u);
  EXPECT_EQ(allocator.stats().overflows, 0u);
  std::cout << "pooled_arena, short text, 50 threads: " << c.build.allocs << " mallocs per build\n";
}

TEST(InboxAllocations, PooledArenaLongTextMallocsOncePerString) {
  PooledThreadPageAllocator allocator(PooledArenaOptionsForInbox());
  PooledBuild(&allocator, true);
  const PooledCycle c = PooledBuild(&allocator, true);
  EXPECT_EQ(c.long_strings, c.strings);  // every string is long
  EXPECT_EQ(c.allocate.allocs, 0u);
  EXPECT_EQ(c.build.allocs, static_cast<uint64_t>(c.strings));
  EXPECT_EQ(c.release.frees, static_cast<uint64_t>(c.strings));  // Reset() frees the characters
  // The block holds a 50-thread long-text page: nothing spilled into heap blocks.
  EXPECT_EQ(allocator.stats().overflows, 0u);
  std::cout << "pooled_arena, long text, 50 threads: " << c.build.allocs << " mallocs per build (" << c.strings
            << " strings)\n";
}

}  // namespace
}  // namespace inbox
