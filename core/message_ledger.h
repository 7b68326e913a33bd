// MessageLedger: the allocation ledger of core/allocation_ledger.h for ANY protobuf
// message, given one sample of it -- "would an arena help my reply?" without a server.
//
// The sample's class decides what is measured: a generated message measures the
// generated code, a DynamicMessage (from a DynamicMessageFactory, e.g. for a type
// loaded from a .proto at run time) measures dynamic messages. Each memory mode makes
// its empty messages with sample.New(arena), so both run the same code here.
//
// One response, per mode, in three phases, as the reco ledger counts them:
//   build      an empty message from the mode, then MergeFrom(sample)
//   serialize  ByteSizeLong() + SerializeWithCachedSizesToArray() into a reused buffer
//   release    the mode's release
// The modes, as core/message_store.h's server modes keep a reply:
//   heap        sample.New() per build, delete at release
//   reuse       one message, Clear() at release (patterns/reused_message_allocator.h)
//   arena       a heap-allocated Arena per build, the message on it, the Arena deleted
//               at release: the holder of patterns/arena_message_allocator.h is one
//               malloc with its Arena inside, and so is this
//   arena_pool  one patterns::BlockArena with a reused initial block, bound to the
//               building thread before each build and Reset() at release, as
//               patterns/pooled_arena_allocator.h does (its thread-ownership trap)
// Only the reply is counted: the request a server would also parse into the same
// arena or holder is not, so these counts are the reply's share of the reco ledger's.
//
// Why MergeFrom(sample) is "the build": it is what a handler does when it fills an
// empty reply field by field from values it already has -- each string copied once at
// its exact length (as set_x(const std::string&) or mutable_x()->assign(p, n)), each
// sub-message made once, each repeated field's array made for its final size (as a
// handler that calls Reserve()). It leaves out what is the handler's own business:
// making the text it copies (a temporary std::string per value is the handler's
// malloc, not the message's), and arrays grown element by element without Reserve().
//
// Example:
//   feed::v1::FeedResponse sample;             // or a DynamicMessage parsed from JSON
//   FillFeed(request, &sample);
//   reco::MessageLedger ledger = reco::MeasureMessageLedger(sample, {});
//   ledger.ForMode(reco::MemoryMode::kArenaPool).build.allocs   // == ledger.shape.long_strings
//                                                               //    when the block holds it all
//
// Thread-safety: MeasureMessageLedger counts the calling thread's allocations
// (AllocationCounter::ThisThread) and uses the sample read-only; nobody may write the
// sample meanwhile. DescribeMessage only reads.
#ifndef ARENA_GRPC_CORE_MESSAGE_LEDGER_H_
#define ARENA_GRPC_CORE_MESSAGE_LEDGER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/allocation_ledger.h"
#include "core/message_store.h"
#include "google/protobuf/message.h"

namespace reco {

// What decides a message's allocations, counted over the whole tree (the top message
// itself is not a sub-message). Unset singular fields count nothing.
struct MessageShape {
  uint64_t strings = 0;            // string and bytes values: singular ones set, plus repeated elements
  uint64_t long_strings = 0;       // of those, longer than SmallStringBytes(): one malloc each, arena or not
  uint64_t sub_messages = 0;       // message values: singular ones set, plus repeated elements (map entries too)
  uint64_t repeated_fields = 0;    // non-empty repeated fields: each one array, one malloc off an arena
  uint64_t repeated_elements = 0;  // the elements of those fields, of every type

  friend bool operator==(const MessageShape& a, const MessageShape& b) {
    return a.strings == b.strings && a.long_strings == b.long_strings && a.sub_messages == b.sub_messages &&
           a.repeated_fields == b.repeated_fields && a.repeated_elements == b.repeated_elements;
  }
};

// The characters a std::string holds without a heap buffer: std::string().capacity()
// (15 in libstdc++).
size_t SmallStringBytes();

// Walks `message` by reflection (generated and dynamic messages alike).
MessageShape DescribeMessage(const google::protobuf::Message& message);

struct MessageLedger {
  std::string type_name;  // the sample's full name, e.g. "feed.v1.FeedResponse"
  bool dynamic = false;   // built as DynamicMessages (not the generated class)
  MessageShape shape;
  size_t serialized_bytes = 0;
  int cycles = 0;
  std::vector<ModeLedger> modes;  // in the order asked for; never fragments

  // The entry for `mode`; the mode must have been measured.
  const ModeLedger& ForMode(MemoryMode mode) const;
};

struct MessageLedgerOptions {
  std::vector<MemoryMode> modes = AllMemoryModes();
  int warmup_responses = 3;                 // builds before measuring: buffers grow, reuse's message fills
  int cycles = 8;                           // builds averaged
  size_t initial_block_bytes = 512 * 1024;  // arena_pool's block, as MessageStoreOptions
};

MessageLedger MeasureMessageLedger(const google::protobuf::Message& sample, const MessageLedgerOptions& options);

// What dynamic messages add to generated code's counts for the same sample, per
// response, as measured on proto3 messages (feed.v1.FeedResponse; see
// message_ledger_test.cc, which asserts it exactly). All of it is protobuf's reflection
// at work, none of it the reply's memory:
//   serialize  the reflection serializer lists each message's set fields into a vector,
//              once for ByteSizeLong and once to write: 2 allocs per message in the
//              tree, plus 1 per non-empty packed repeated field. Generated code: 0.
//   reuse      DynamicMessage::Clear() lists the fields of each message it clears (the
//              top one and repeated elements: 1 alloc each) and destroys singular
//              strings (generated Clear() empties them and keeps them), which the
//              next build makes again: 1 alloc per string, 2 when it is long.
// Not predicted, so not in here: bytes. A DynamicMessage object is bigger than the
// generated class, so every byte count of the dynamic run is an upper bound, and an
// arena built from default blocks may need a block more (the test pins feed's figures).
// heap and arena_pool allocation counts are equal to generated code's.
struct DynamicOverhead {
  uint64_t serialize_allocs = 0;
  uint64_t serialize_frees = 0;
  uint64_t reuse_build_allocs = 0;
  uint64_t reuse_release_allocs = 0;
  uint64_t reuse_release_frees = 0;
};

// The overhead above for `sample`'s shape (the sample may be dynamic or generated).
DynamicOverhead PredictDynamicOverhead(const google::protobuf::Message& sample);

// True when `message` is not an instance of its type's generated class (it came from
// a DynamicMessageFactory, or its type has no generated code in this binary).
bool IsDynamicMessage(const google::protobuf::Message& message);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_MESSAGE_LEDGER_H_
