// SPDX-License-Identifier: Apache-2.0
// See sized_reply.h.
#include "sized_reply.h"

#include <cstring>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/support/slice.h>

namespace reco::patterns {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

uint32_t LengthDelimitedTag(uint32_t field_number) {
  return WireFormatLite::MakeTag(static_cast<int>(field_number), WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
}

}  // namespace

// grpc_slice_malloc: one malloc holding the refcount and the bytes (or none: a
// reply of a few bytes is inlined in the slice itself), never zero-filled.
SizedReply::SizedReply(size_t size) : slice_(grpc_slice_malloc(size)), size_(size) {
  start_ = GRPC_SLICE_START_PTR(slice_);
  next_ = start_;
}

SizedReply::~SizedReply() {
  if (!handed_over_) grpc_slice_unref(slice_);
}

size_t SizedReply::LengthDelimitedFieldSize(uint32_t field_number, size_t length) {
  return CodedOutputStream::VarintSize32(LengthDelimitedTag(field_number)) + CodedOutputStream::VarintSize64(length) +
         length;
}

uint8_t* SizedReply::Take(size_t n) {
  if (overflowed_ || n > size_ - written()) {
    overflowed_ = true;
    return nullptr;
  }
  uint8_t* at = next_;
  next_ += n;
  return at;
}

void SizedReply::WriteLengthDelimitedHeader(uint32_t field_number, size_t length) {
  const uint32_t tag = LengthDelimitedTag(field_number);
  uint8_t* at = Take(CodedOutputStream::VarintSize32(tag) + CodedOutputStream::VarintSize64(length));
  if (at == nullptr) return;
  CodedOutputStream::WriteVarint64ToArray(length, CodedOutputStream::WriteVarint32ToArray(tag, at));
}

void SizedReply::WriteBytes(absl::string_view bytes) {
  uint8_t* at = Take(bytes.size());
  if (at != nullptr && !bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
}

void SizedReply::WriteStringField(uint32_t field_number, absl::string_view value) {
  WriteLengthDelimitedHeader(field_number, value.size());
  WriteBytes(value);
}

void SizedReply::WriteMessageField(uint32_t field_number, const google::protobuf::MessageLite& message) {
  const size_t length = message.ByteSizeLong();  // caches sizes for the call below
  WriteLengthDelimitedHeader(field_number, length);
  uint8_t* at = Take(length);
  if (at != nullptr) message.SerializeWithCachedSizesToArray(at);
}

bool SizedReply::Finish(grpc::ByteBuffer* out) {
  if (overflowed_ || written() != size_ || handed_over_) return false;
  grpc::Slice slice(slice_, grpc::Slice::STEAL_REF);
  handed_over_ = true;
  grpc::ByteBuffer reply(&slice, 1);  // takes its own reference
  out->Swap(&reply);
  return true;
}

}  // namespace reco::patterns
