// SPDX-License-Identifier: Apache-2.0
// See spliced_reply.h.
#include "spliced_reply.h"

#include <cstring>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpc/slice.h>

namespace reco::patterns {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

uint32_t LengthDelimitedTag(uint32_t field_number) {
  return WireFormatLite::MakeTag(static_cast<int>(field_number), WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
}

}  // namespace

void SplicedReply::Clear() {
  copied_.clear();
  pieces_.clear();
  size_ = 0;
  // One 10,000-item reply must not leave megabytes behind in every thread.
  if (scratch_bytes() > kMaxKeptScratchBytes) {
    std::string().swap(copied_);
    std::vector<Piece>().swap(pieces_);
    std::vector<grpc::Slice>().swap(slices_);
  }
}

char* SplicedReply::Grow(size_t n) {
  const size_t at = copied_.size();
  copied_.resize(at + n);
  if (pieces_.empty() || pieces_.back().fragment != nullptr) {
    pieces_.push_back({nullptr, at, n});
  } else {
    pieces_.back().length += n;  // still contiguous in copied_
  }
  size_ += n;
  return copied_.data() + at;
}

void SplicedReply::AppendBytes(absl::string_view bytes) {
  if (!bytes.empty()) std::memcpy(Grow(bytes.size()), bytes.data(), bytes.size());
}

size_t SplicedReply::LengthDelimitedFieldSize(uint32_t field_number, size_t length) {
  return CodedOutputStream::VarintSize32(LengthDelimitedTag(field_number)) + CodedOutputStream::VarintSize64(length) +
         length;
}

void SplicedReply::AppendLengthDelimitedHeader(uint32_t field_number, size_t length) {
  const uint32_t tag = LengthDelimitedTag(field_number);
  uint8_t header[5 + 10];  // the longest varint32 tag and varint64 length
  uint8_t* end = CodedOutputStream::WriteVarint32ToArray(tag, header);
  end = CodedOutputStream::WriteVarint64ToArray(length, end);
  AppendBytes(absl::string_view(reinterpret_cast<const char*>(header), end - header));
}

void SplicedReply::AppendStringField(uint32_t field_number, absl::string_view value) {
  AppendLengthDelimitedHeader(field_number, value.size());
  AppendBytes(value);
}

void SplicedReply::AppendMessageField(uint32_t field_number, const google::protobuf::MessageLite& message) {
  const size_t length = message.ByteSizeLong();  // caches sizes for the call below
  AppendLengthDelimitedHeader(field_number, length);
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(Grow(length)));
}

void SplicedReply::AppendFragment(absl::string_view fragment) {
  if (fragment.size() < copy_below_) {
    AppendBytes(fragment);
    return;
  }
  pieces_.push_back({fragment.data(), 0, fragment.size()});
  size_ += fragment.size();
}

size_t SplicedReply::referenced_fragments() const {
  size_t n = 0;
  for (const Piece& p : pieces_) n += p.fragment != nullptr;
  return n;
}

void SplicedReply::Finish(grpc::ByteBuffer* out) {
  // One slice owns this reply's copy of the per-request bytes; gRPC frees it when
  // the last sub-slice is sent. _large: a refcounted slice even when small (an
  // inlined one could not be shared by sub-slices).
  grpc::Slice copied;
  if (!copied_.empty()) {
    grpc_slice raw = grpc_slice_malloc_large(copied_.size());
    std::memcpy(GRPC_SLICE_START_PTR(raw), copied_.data(), copied_.size());
    copied = grpc::Slice(raw, grpc::Slice::STEAL_REF);
  }
  slices_.clear();
  slices_.reserve(pieces_.size());
  for (const Piece& p : pieces_) {
    if (p.fragment != nullptr) {
      slices_.emplace_back(p.fragment, p.length, grpc::Slice::STATIC_SLICE);
    } else {
      slices_.push_back(copied.sub(p.offset, p.offset + p.length));
    }
  }
  grpc::ByteBuffer reply(slices_.data(), slices_.size());
  out->Swap(&reply);  // not operator=, which would copy the slice array
  slices_.clear();    // drops this object's references; the ByteBuffer holds its own
}

}  // namespace reco::patterns
