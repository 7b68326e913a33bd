// SPDX-License-Identifier: Apache-2.0
// Temporary messages on a scratch Arena inside a handler, and moving them out safely.
//
// A ranking stage builds many candidates and returns a few. Building the candidates
// on a scratch Arena that dies at the end of the function frees them in one go and
// keeps the rejected ones out of the response's arena (which lives until the RPC
// ends). The survivors must then be COPIED into the response: nothing may point into
// the scratch arena once it is gone. AppendBest below is that pattern.
//
// Example:
//   // response is on the RPC's arena (ArenaMessageAllocator) or on the heap.
//   AppendBest<v1::Post>(/*candidate_count=*/1000, /*keep=*/50,
//                        [&](int i, v1::Post* post) { FillCandidate(i, post); },
//                        [](const v1::Post& post) { return post.scores().relevance(); },
//                        response->mutable_posts());
//
// The rules this follows (each proven in append_best_test.cc, protobuf 3.21):
//  - Move-assignment, Swap() and AddAllocated() between messages on DIFFERENT arenas
//    (or arena -> heap) deep-copy: new objects on the target, one malloc per string
//    longer than 15 bytes, and the source stays where it was.
//  - set_allocated_x() does NOT copy across arenas: given a sub-message that lives on
//    another arena (or an arena sub-message for a heap message), Debian's libprotobuf
//    3.21.12 fails a CHECK ("(submessage_arena) == (nullptr)") and throws
//    google::protobuf::FatalException -- std::terminate if uncaught. Copy instead:
//    target->mutable_x()->CopyFrom(source).
//  - A HEAP message handed to an arena message's AddAllocated() or set_allocated_x()
//    is not copied: the arena takes ownership (Arena::Own) and deletes it at
//    reset/destruction; it stays a heap message (GetArena() == nullptr).
//  - release_x() on a message that is on an arena returns a new HEAP copy (yours to
//    delete); the original stays on the arena until the arena goes.
//  - No copy at all: build straight into the response's arena -- response->add_x() /
//    mutable_x(), or Arena::CreateMessage<T>(response->GetArena()) then AddAllocated /
//    set_allocated_x (same arena: the pointer is kept).
//  - unsafe_arena_set_allocated_x() / unsafe_arena_release_x() skip the arena check:
//    never a copy, never an Own(). Use them only when both messages are on the SAME
//    arena (or both on the heap); otherwise you get a dangling pointer (arena object
//    outliving its arena) or a leak (heap object no one deletes).
//
// Thread-safety: AppendBest's scratch arena is private to the call; `out` must not be
// touched by another thread meanwhile.
#ifndef ARENA_GRPC_PATTERNS_APPEND_BEST_H_
#define ARENA_GRPC_PATTERNS_APPEND_BEST_H_

#include <algorithm>

#include "google/protobuf/arena.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace reco::patterns {

// Calls fill(i, candidate) for i in [0, candidate_count) on candidates made on a
// scratch arena, then appends copies of the `keep` with the highest score(candidate)
// to *out, best first. Ties keep no particular order.
template <typename Message, typename Fill, typename Score>
void AppendBest(int candidate_count, int keep, const Fill& fill, const Score& score,
                google::protobuf::RepeatedPtrField<Message>* out) {
  if (candidate_count <= 0 || keep <= 0) return;
  google::protobuf::Arena scratch;
  // The candidate list itself is on the scratch arena too: no heap vector.
  auto* candidates = google::protobuf::Arena::CreateMessage<google::protobuf::RepeatedPtrField<Message>>(&scratch);
  candidates->Reserve(candidate_count);
  for (int i = 0; i < candidate_count; ++i) fill(i, candidates->Add());

  keep = std::min(keep, candidate_count);
  // Sorts the element pointers, not the messages: no copy while ranking.
  std::partial_sort(candidates->pointer_begin(), candidates->pointer_begin() + keep, candidates->pointer_end(),
                    [&](const Message* a, const Message* b) { return score(*a) > score(*b); });
  out->Reserve(out->size() + keep);
  // The deliberate copy: `scratch` and every candidate die when this function returns.
  for (int i = 0; i < keep; ++i) *out->Add() = candidates->Get(i);
}

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_APPEND_BEST_H_
