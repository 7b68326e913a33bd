// SPDX-License-Identifier: Apache-2.0
// SizedReply: a reply's wire bytes written ONCE, straight into one gRPC slice of
// exactly the reply's size -- size first, then write, then hand the slice to gRPC.
//
// When a handler writes a reply's bytes itself (pre-serialized fragments spliced
// with per-request fields, spliced_reply.h), the cheapest way to hand them to gRPC
// is to write them where gRPC will read them: no scratch buffer, no copy at the
// end, no zero-fill. The price is two passes over the reply: the first computes
// every field's encoded size (a length-delimited field's header holds its content's
// length, so a nested record's size must be known before its first byte is
// written); the second writes tags, lengths and contents into the slice. The sizes
// protobuf would compute are easy to reproduce with its own helpers
// (CodedOutputStream::VarintSize32, WireFormatLite::*Size), and the bytes with its
// *ToArray writers, so the result is what SerializeToString would give.
//
// Costs per reply: one slice (one malloc of the reply's size, no zero-fill) and
// gRPC's byte buffer around it (one more malloc) -- whatever the reply holds.
// Every fragment is copied once: for replies of very large fragments, referencing
// them (SplicedReply with a copy threshold below their size) copies less.
//
// A wrong size is a bug in the caller's first pass: a write past the end writes
// nothing and poisons the reply, and Finish() refuses a reply of any size but the
// one announced -- the handler answers with an error instead of corrupt bytes.
//
// Example (a raw handler: Service::WithRawCallbackMethod_X):
//   size_t size = patterns::SizedReply::LengthDelimitedFieldSize(1, request_id.size());
//   for (const std::string& item_bytes : picked_items) {         // first pass: sizes only
//     size += patterns::SizedReply::LengthDelimitedFieldSize(2, item_bytes.size());
//   }
//   patterns::SizedReply reply(size);                             // the one slice
//   reply.WriteStringField(1, request_id);
//   for (const std::string& item_bytes : picked_items) reply.WriteStringField(2, item_bytes);
//   const bool sent = reply.Finish(response_byte_buffer);          // false: the passes disagreed
//
// Thread-safety: one thread at a time per object. Finish()'s ByteBuffer owns the
// slice; the object may then be destroyed at once.
#ifndef ARENA_GRPC_PATTERNS_SIZED_REPLY_H_
#define ARENA_GRPC_PATTERNS_SIZED_REPLY_H_

#include <cstddef>
#include <cstdint>

#include <google/protobuf/message_lite.h>
#include <grpc/slice.h>
#include <grpcpp/support/byte_buffer.h>

#include "absl/strings/string_view.h"

namespace reco::patterns {

class SizedReply {
 public:
  // Allocates the reply's one slice, `size` bytes, uninitialized.
  explicit SizedReply(size_t size);
  ~SizedReply();  // frees the slice unless Finish() handed it over
  SizedReply(const SizedReply&) = delete;
  SizedReply& operator=(const SizedReply&) = delete;

  // The encoded size of a length-delimited field with `length` bytes of content
  // (the first pass adds these up).
  static size_t LengthDelimitedFieldSize(uint32_t field_number, size_t length);

  // A length-delimited field's tag and length; exactly `length` bytes of content
  // must be written next.
  void WriteLengthDelimitedHeader(uint32_t field_number, size_t length);
  void WriteBytes(absl::string_view bytes);
  void WriteStringField(uint32_t field_number, absl::string_view value);
  // `message` as a length-delimited field, serialized in place.
  void WriteMessageField(uint32_t field_number, const google::protobuf::MessageLite& message);
  // The next `n` bytes, for the caller to fill completely (e.g. with protobuf's
  // WireFormatLite::Write*ToArray); null when fewer than `n` are left (the reply is
  // then poisoned, as by any write past the end).
  uint8_t* Take(size_t n);

  size_t size() const { return size_; }
  size_t written() const { return static_cast<size_t>(next_ - start_); }

  // Hands the slice to *out (replacing its contents) when exactly size() bytes were
  // written and nothing overflowed; otherwise returns false and leaves *out alone.
  bool Finish(grpc::ByteBuffer* out);

 private:
  grpc_slice slice_;
  uint8_t* start_;
  uint8_t* next_;
  size_t size_;
  bool overflowed_ = false;
  bool handed_over_ = false;
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_SIZED_REPLY_H_
