// SPDX-License-Identifier: Apache-2.0
// AliasSubMessage: a message on an Arena points at an immutable sub-message that
// something else owns -- a catalogue built at start-up -- instead of holding a copy.
//
// A reply that repeats stored data (an item's price, image, seller...) usually copies
// it: CopyFrom makes each sub-message anew and copies its strings, and on an arena a
// string over 15 bytes is still one malloc (protobuf 3.21). When the stored
// sub-message does not change while replies point at it, the reply can hold the
// stored object itself: the generated unsafe_arena_set_allocated_<field>() stores the
// pointer, with no copy and no change of owner. The reply serializes to the same
// bytes as the copy.
//
// Why only on an arena: a message owns its sub-messages. A heap message deletes them
// in its destructor, in Clear() and when another one is set, so aliasing on the heap
// would make the reply delete the stored object. A message on an arena never deletes
// a sub-message (protobuf 3.21 runs no message destructor on an arena; Clear() and a
// new set only drop the pointer). So AliasSubMessage looks at message->GetArena() and,
// when it is null, REFUSES: it returns false and changes nothing; copy instead.
//
// Example:
//   feed::v1::Post* post = reply->add_posts();                  // reply: on an arena
//   post->set_post_id(stored.post_id());                         // the post's own fields: copied
//   if (stored.has_author() &&
//       !patterns::AliasSubMessage(post, &feed::v1::Post::unsafe_arena_set_allocated_author,
//                                  stored.author())) {
//     post->mutable_author()->CopyFrom(stored.author());         // refused (not on an arena): copy
//   }
//
// What the caller keeps true (nothing can check it):
//  - `shared` outlives every use of the message: until its arena is Reset() or
//    destroyed AND the message has been serialized (gRPC serializes a callback reply
//    after the handler returns).
//  - nobody writes `shared` while a message aliases it -- including through the
//    message: its mutable_<field>(), and MergeFrom or a merging Parse into it, write
//    THROUGH the pointer into the shared object. CopyFrom, Clear() and
//    unsafe_arena_release_<field>() on an arena message only drop the pointer.
//  - pass a field that is set (stored.has_x()): an unset field reads as
//    SubMessage::default_instance(); aliasing that would set the field (an empty
//    sub-message on the wire) where copying the unset field leaves it unset.
//
// Ownership: unchanged. The message keeps a pointer it never frees; `shared` stays
// its owner's.
// Memory: aliasing allocates nothing; no byte of `shared` is on the message's arena.
// Thread-safety: AliasSubMessage writes `message` only: one thread at a time per
// message. Any number of threads may serialize messages aliasing the same `shared`
// at once: serializing reads it and stores its cached size, which protobuf 3.21 keeps
// in relaxed std::atomic<int>s, every thread storing the same value
// (arena_alias_test.cc runs that under ThreadSanitizer).
#ifndef ARENA_GRPC_PATTERNS_ARENA_ALIAS_H_
#define ARENA_GRPC_PATTERNS_ARENA_ALIAS_H_

namespace reco::patterns {

// Makes `shared` the sub-message that `unsafe_arena_set_allocated` (the generated
// setter of one field of Message) sets in *message, without copying it, when
// *message is on an arena; returns true. Returns false and leaves *message alone
// when it is not.
template <typename Message, typename SubMessage>
[[nodiscard]] bool AliasSubMessage(Message* message, void (Message::*unsafe_arena_set_allocated)(SubMessage*),
                                   const SubMessage& shared) {
  // On the heap the message would own `shared` and delete it (destructor, Clear(),
  // the next set_allocated): the caller's object, freed by the reply.
  if (message->GetArena() == nullptr) return false;
  // const_cast: the setter takes a mutable pointer; the contract above forbids
  // writing through it.
  (message->*unsafe_arena_set_allocated)(const_cast<SubMessage*>(&shared));
  return true;
}

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_ARENA_ALIAS_H_
