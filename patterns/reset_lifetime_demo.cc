// SPDX-License-Identifier: Apache-2.0
// Reads a message through a pointer kept across Arena::Reset() -- a use-after-free
// ON PURPOSE -- to show when AddressSanitizer can see it. Not a test: the read is
// undefined behaviour. Build it with -fsanitize=address and run it both ways:
//
//   build-asan/patterns/patterns_reset_lifetime_demo              # no report: prints stale data
//   build-asan/patterns/patterns_reset_lifetime_demo --overflow    # heap-use-after-free
//
// Without --overflow the message lived in the arena's initial block, which Reset()
// keeps: the memory is still addressable, so ASan is silent and the read returns
// whatever is there (the old value, or the next record). With --overflow it lived in
// a block Reset() freed, and ASan reports it. Either way the program is wrong.
#include <cstdio>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "feed.pb.h"
#include "google/protobuf/arena.h"

ABSL_FLAG(bool, overflow, false, "use a 1 KiB initial block so that the stale message lives in an overflow block");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const bool overflow = absl::GetFlag(FLAGS_overflow);
  std::vector<char> block(overflow ? 1024 : 512 * 1024);
  google::protobuf::ArenaOptions options;
  options.initial_block = block.data();
  options.initial_block_size = block.size();
  google::protobuf::Arena arena(options);

  // 50 records of 50 posts overflow a 1 KiB block many times; 1 record fits 512 KiB.
  const feed::v1::Engagement* stale = nullptr;
  for (int record = 0; record < (overflow ? 50 : 1); ++record) {
    auto* response = google::protobuf::Arena::CreateMessage<feed::v1::FeedResponse>(&arena);
    for (int i = 0; i < 50; ++i) response->add_posts()->mutable_engagement()->set_likes(i);
    stale = &response->posts(49).engagement();
  }
  arena.Reset();
  std::printf("read through a pointer kept across Reset(): %lld\n",
              static_cast<long long>(stale->likes()));  // use-after-free
  return 0;
}
