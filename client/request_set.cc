// See request_set.h.
#include "client/request_set.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/byte_buffer_bytes.h"
#include "core/response_builder.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/slice.h"
#include "schema/request_data.h"

namespace reco {

RequestSet::RequestSet(const Catalogue& catalogue, const v1::RecommendRequest& shape, int variants)
    : method_(kRecommendMethod), catalogue_(&catalogue) {
  expected_items_ = std::min(EffectiveItemCount(shape), catalogue.size());
  for (int i = 0; i < variants; ++i) {
    v1::RecommendRequest req = Variant(shape, i);
    std::string wire = req.SerializeAsString();
    grpc::Slice slice(wire);
    requests_.emplace_back(&slice, 1);
    streams_.push_back({requests_.back()});
    expected_.push_back(BuildResponseBytes(catalogue, req));
    messages_.push_back(std::move(req));
  }
}

RequestSet::RequestSet(std::string method, const std::vector<std::string>& serialized_requests, bool server_streaming,
                       bool client_streaming)
    : method_(std::move(method)), server_streaming_(server_streaming), client_streaming_(client_streaming) {
  for (const std::string& wire : serialized_requests) {
    grpc::Slice slice(wire);
    requests_.emplace_back(&slice, 1);
    streams_.push_back(client_streaming ? StreamMessages(wire) : std::vector<grpc::ByteBuffer>{requests_.back()});
  }
}

std::vector<grpc::ByteBuffer> RequestSet::StreamMessages(const std::string& delimited) {
  // The requests come from SerializedRequests, whose streams always split.
  absl::StatusOr<std::vector<std::string>> messages = SplitDelimited(delimited);
  std::vector<grpc::ByteBuffer> buffers;
  for (const std::string& m : messages.value_or(std::vector<std::string>{delimited})) {
    grpc::Slice slice(m);
    buffers.emplace_back(&slice, 1);
  }
  return buffers;
}

v1::RecommendRequest RequestSet::Variant(const v1::RecommendRequest& shape, int i) {
  v1::RecommendRequest req = shape;
  req.set_user_id(absl::StrCat("load-user-", i));
  req.set_seed(shape.seed() + static_cast<uint64_t>(i));
  return req;
}

int64_t RequestSet::CountItems(grpc::ByteBuffer* response) {
  using google::protobuf::internal::WireFormatLite;
  grpc::ProtoBufferReader reader(response);
  google::protobuf::io::CodedInputStream in(&reader);
  int64_t items = 0;
  while (uint32_t tag = in.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == 2 &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      ++items;
    }
    if (!WireFormatLite::SkipField(&in, tag)) return -1;
  }
  // ReadTag returns 0 both at a clean end and on a malformed varint.
  return in.ConsumedEntireMessage() && reader.status().ok() ? items : -1;
}

bool RequestSet::MatchesExpected(int i, const grpc::ByteBuffer& response) const {
  return !checks_replies() || ByteBufferHolds(response, expected_[i]);
}

ReplyCheck RequestSet::Check(int i, grpc::ByteBuffer* response, bool compare_bytes) const {
  if (!checks_replies()) return ReplyCheck::kRight;
  if (response->Length() != expected_[i].size()) {
    return CountItems(response) == static_cast<int64_t>(expected_items_) ? ReplyCheck::kWrongContent
                                                                         : ReplyCheck::kWrongItemCount;
  }
  if (compare_bytes && !MatchesExpected(i, *response)) return ReplyCheck::kWrongContent;
  return ReplyCheck::kRight;
}

}  // namespace reco
