// SPDX-License-Identifier: Apache-2.0
// ArenaBatch: a batch job that parses many records into ONE Arena, Reset() between them.
//
// Parsing N records into N fresh arenas (or N heap messages) pays malloc and free for
// every block (or every sub-message) N times. Here one Arena, with an initial block
// the batch owns, is Reset() after each record: Reset() runs registered destructors,
// frees every block beyond the initial one and keeps the initial block for the next
// record. When a record fits in the initial block and its strings are all 15 bytes or
// less, the steady state is zero mallocs per record. When it does not fit, each
// record mallocs the overflow blocks and Reset() frees them again; peak_arena_bytes
// in the result tells you how big the initial block should have been.
//
// Example:
//   ArenaBatch<v1::FeedResponse> batch(/*initial_block_bytes=*/512 * 1024);
//   absl::StatusOr<ArenaBatchStats> stats = batch.ForEach(serialized,
//       [&](const v1::FeedResponse& r, google::protobuf::Arena*) { posts += r.posts_size(); });
//   // stats->records == serialized.size(); stats->peak_arena_bytes <= 512 KiB: it fit.
//
// Lifetime: a record and everything `visit` puts on the arena die at the Reset() that
// follows visit's return. Keeping a pointer past that is a use-after-free: the next
// record is built at the very same address. AddressSanitizer reports reading it only
// when the old object was in an overflow block (Reset() freed that block); memory in
// the reused initial block stays valid for ASan -- it silently holds the next record
// (reset_lifetime_demo.cc shows both cases under ASan).
// Copy out what must survive (CopyFrom into a message you own, or plain values).
//
// Copying it: needs block_arena.h beside it.
//
// Thread-safety: one ArenaBatch per thread. `visit` may allocate on the arena from
// other threads while it runs (arena allocation is thread-safe), but Reset() is not:
// every such thread must be done before visit returns.
#ifndef ARENA_GRPC_PATTERNS_ARENA_BATCH_H_
#define ARENA_GRPC_PATTERNS_ARENA_BATCH_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "block_arena.h"
#include "google/protobuf/arena.h"

namespace reco::patterns {

struct ArenaBatchStats {
  // Records parsed and visited.
  uint64_t records = 0;
  // The largest Reset() return value: the bytes of every block the arena held for one
  // record, the initial block included. Above initial_block_bytes means overflow blocks.
  uint64_t peak_arena_bytes = 0;
};

template <typename Record>
class ArenaBatch {
 public:
  // initial_block_bytes: the reused block (allocated once, here). At least a few
  // hundred bytes; protobuf keeps its own bookkeeping in it too.
  explicit ArenaBatch(size_t initial_block_bytes) : arena_(initial_block_bytes) {}

  // Parses each element of `serialized` into a Record on the arena, calls
  // visit(const Record&, Arena*) and resets the arena. Stops at the first record that
  // does not parse: INVALID_ARGUMENT naming its index and type.
  template <typename Visit>
  absl::StatusOr<ArenaBatchStats> ForEach(absl::Span<const std::string> serialized, Visit&& visit) {
    ArenaBatchStats stats;
    for (size_t i = 0; i < serialized.size(); ++i) {
      google::protobuf::Arena* arena = arena_.get();
      auto* record = google::protobuf::Arena::CreateMessage<Record>(arena);
      if (!record->ParseFromString(serialized[i])) {
        arena->Reset();
        return absl::InvalidArgumentError(absl::StrCat("record ", i, " of ", serialized.size(), " is not a valid ",
                                                       Record::descriptor()->full_name()));
      }
      visit(static_cast<const Record&>(*record), arena);
      // `record` and everything on the arena die here.
      stats.peak_arena_bytes = std::max(stats.peak_arena_bytes, arena->Reset());
      ++stats.records;
    }
    return stats;
  }

 private:
  BlockArena arena_;  // one thread uses it (see above), so the block stays bound to it
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_ARENA_BATCH_H_
