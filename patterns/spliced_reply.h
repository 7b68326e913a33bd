// SPDX-License-Identifier: Apache-2.0
// SplicedReply: a protobuf reply's wire bytes assembled from pre-serialized fragments
// and a few per-request bytes, handed to gRPC as a ByteBuffer -- no reply message is
// built and nothing is serialized per request but the per-request parts.
//
// When most of a reply is static data (catalogue items, fixed text), serializing it
// once at start-up and splicing the bytes per request beats building the message in
// any memory mode: no per-item objects, no string copies, no serialization. protobuf
// makes this legal: a message's encoding is the concatenation of its fields'
// encodings, a repeated message field is one length-delimited record per element,
// and a parser merges fields in any order. A reply assembled field by field, in field
// number order, is even byte-identical to what SerializeToString would give.
//
// How the bytes reach gRPC: per-request bytes (tags, lengths, small messages) are
// written into this object's buffer; fragments are remembered by address. Finish()
// copies the per-request bytes into ONE gRPC slice and hands gRPC a ByteBuffer whose
// slices are sub-slices of that one (reference counted, no copy) interleaved with
// STATIC slices over the fragments (gRPC neither copies nor frees static memory). A
// fragment shorter than `copy_fragments_below` bytes is copied instead -- by default
// anything under 4 KiB, because on gRPC 1.51 a slice costs more than copying a few
// KiB: its write path pays per slice (allocations as the slice array grows, and work
// as the transport frames and writes each one), so a reply of many small referenced
// fragments costs more server CPU and allocations than the same bytes in one copied
// slice. scripts/fragments_slices.sh measures both on reco_server
// (--fragments_copy_below_bytes) and docs/patterns.md section 5 gives its figures;
// reco_bench's BM_Fragments reply:copied / reply:zero_copy the handler's share.
// Reference fragments only when they are large.
//
// What it costs you (docs/patterns.md, "fragments"):
//  - the handler knows the schema: field numbers, wire types, and which fields are
//    static; a schema change must change the handler (the test below parses the
//    result as the message and compares it with the built one -- keep such a test);
//  - fragments must outlive every reply that references them (gRPC sends after the
//    handler returns): keep them for the process's life, or never free them while a
//    server runs;
//  - per RPC: one slice for the copied bytes, gRPC's byte buffer and its slice array;
//    the scratch here is reused (keep one SplicedReply per thread), and Clear() gives
//    it back when one reply made it larger than kMaxKeptScratchBytes.
//
// Example (a raw handler: Service::WithRawCallbackMethod_X, see server/fragments_service.h):
//   thread_local patterns::SplicedReply reply;
//   reply.Clear();
//   reply.AppendStringField(1, request_id);                     // per request: copied
//   for (const std::string& item_bytes : picked_items) {         // kept for the process's life
//     reply.AppendLengthDelimitedHeader(2, item_bytes.size());
//     reply.AppendFragment(item_bytes);                          // copied, or referenced if large
//   }
//   reply.Finish(response_byte_buffer);
//
// Thread-safety: one thread at a time per object. Finish()'s ByteBuffer is
// independent of this object (it may be cleared and reused at once).
#ifndef ARENA_GRPC_PATTERNS_SPLICED_REPLY_H_
#define ARENA_GRPC_PATTERNS_SPLICED_REPLY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <google/protobuf/message_lite.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include "absl/strings/string_view.h"

namespace reco::patterns {

class SplicedReply {
 public:
  // Fragments shorter than this are copied rather than referenced (see above).
  static constexpr size_t kDefaultCopyFragmentsBelow = 4096;
  // Clear() frees scratch larger than this rather than keeping it for the next reply.
  static constexpr size_t kMaxKeptScratchBytes = 1 << 20;
  explicit SplicedReply(size_t copy_fragments_below = kDefaultCopyFragmentsBelow) : copy_below_(copy_fragments_below) {}

  // Forgets the reply; keeps the buffers' capacity up to kMaxKeptScratchBytes.
  void Clear();
  // For the fragments appended from now on (a per-thread scratch serving several
  // configurations sets it after Clear()).
  void set_copy_fragments_below(size_t bytes) { copy_below_ = bytes; }

  // Per-request bytes, copied. Fields must come in the order the reader should see
  // them (field number order gives SerializeToString's bytes).
  void AppendBytes(absl::string_view bytes);
  // A length-delimited field's tag and length; the caller appends exactly `length`
  // bytes of content next.
  void AppendLengthDelimitedHeader(uint32_t field_number, size_t length);
  void AppendStringField(uint32_t field_number, absl::string_view value);
  // `message` serialized here, as a length-delimited field.
  void AppendMessageField(uint32_t field_number, const google::protobuf::MessageLite& message);
  // Pre-serialized bytes: copied when shorter than the threshold, else referenced --
  // so they must outlive every ByteBuffer made from this reply.
  void AppendFragment(absl::string_view fragment);

  // The encoded size of a length-delimited field with `length` bytes of content.
  static size_t LengthDelimitedFieldSize(uint32_t field_number, size_t length);

  size_t size() const { return size_; }  // wire bytes so far
  size_t referenced_fragments() const;   // slices Finish() will point at fragments
  size_t scratch_bytes() const {         // what this object holds between replies
    return copied_.capacity() + pieces_.capacity() * sizeof(Piece) + slices_.capacity() * sizeof(grpc::Slice);
  }

  // Replaces *out with the reply's bytes (see the header comment). The reply stays
  // as it is: Finish may be called again.
  void Finish(grpc::ByteBuffer* out);

 private:
  // A run of bytes: copied (offset into copied_) or a referenced fragment.
  struct Piece {
    const char* fragment;  // null: copied_[offset, offset + length)
    size_t offset;
    size_t length;
  };
  char* Grow(size_t n);  // n more copied bytes at the end, merged into the last copied piece

  size_t copy_below_;
  std::string copied_;
  std::vector<Piece> pieces_;
  std::vector<grpc::Slice> slices_;  // Finish's scratch
  size_t size_ = 0;
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_SPLICED_REPLY_H_
