// RequestSet: the few requests a load run sends, already serialized, with the exact
// bytes a correct server answers to each; and the per-response checks.
//
// A run cycles through `variants` requests (different user ids and seeds, same item
// count and profile). Their expected responses are built once, up front, with core's
// BuildResponse -- the builder the server runs -- from the server's catalogue (same
// options, so the same items), so checking a response needs no building in the hot
// path. Check() is what the load driver runs on every reply:
//   - always: the reply's length against the expected reply's (one comparison; a reply
//     with another item count cannot have the same length in practice). Walking the
//     reply's fields instead (CountItems) made the client the limit against the
//     ceiling server (issue 12; docs/load-client.md has the profile);
//   - on a sample: the bytes against the builder's serialization (touches every byte);
//   - only for a reply of the wrong length: CountItems() (walks the top-level fields,
//     no allocation) to tell a wrong item count from wrong content.
//
// A generic set (reco_load --call) holds the user's requests for any method: nothing
// is known about the replies, so Check() passes every OK reply and the driver only
// counts its bytes. For a client-streaming method each request is a call's stream of
// messages (request_stream).
//
// Example:
//   reco::RequestSet set(*catalogue, request_template, 4);  // items, profile, seed; 4 variants
//   grpc::ByteBuffer req = set.request(i);          // send this
//   ... on reply `bytes` ...
//   set.Check(i, &bytes, /*compare_bytes=*/sample) == reco::ReplyCheck::kRight
//
// Thread-safety: immutable after construction; any thread may call the const methods.
// CountItems takes a non-const buffer only because gRPC's reader requires one; it
// does not change the contents.
#ifndef ARENA_GRPC_CLIENT_REQUEST_SET_H_
#define ARENA_GRPC_CLIENT_REQUEST_SET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/catalogue.h"
#include "grpcpp/support/byte_buffer.h"
#include "proto/reco.pb.h"

namespace reco {

// The full method name of Recommend, as sent on the wire.
inline constexpr char kRecommendMethod[] = "/reco.v1.Recommender/Recommend";

enum class ReplyCheck { kRight, kWrongItemCount, kWrongContent };

class RequestSet {
 public:
  // `shape` gives item_count, text_profile and seed; user ids are made up per
  // variant, and variant i uses seed + i.
  static constexpr int kDefaultVariants = 4;
  // The catalogue must outlive the set.
  RequestSet(const Catalogue& catalogue, const v1::RecommendRequest& shape, int variants = kDefaultVariants);

  // A generic set: `method` ("/pkg.Service/Method") with these serialized requests;
  // `server_streaming` when the method answers a stream of messages,
  // `client_streaming` when each request is a stream of them (in protobuf's delimited
  // form, schema/request_data.h).
  RequestSet(std::string method, const std::vector<std::string>& serialized_requests, bool server_streaming = false,
             bool client_streaming = false);

  // The messages of a delimited stream, each a buffer of its own.
  static std::vector<grpc::ByteBuffer> StreamMessages(const std::string& delimited);

  // Request variant i of `shape`: what request_message(i) is, without building a
  // catalogue or an expected response.
  static v1::RecommendRequest Variant(const v1::RecommendRequest& shape, int i);

  // The method every request goes to, as sent on the wire.
  const std::string& method() const { return method_; }
  // The method answers each request with a stream of messages (--call of a
  // server-streaming method).
  bool server_streaming() const { return server_streaming_; }
  // Each call sends a stream of messages (--call of a client-streaming method).
  bool client_streaming() const { return client_streaming_; }
  // Any stream either way: the call goes through a stream, not a unary call.
  bool streaming() const { return server_streaming_ || client_streaming_; }
  // False for a generic set: replies are not checked beyond their status.
  bool checks_replies() const { return catalogue_ != nullptr; }
  // Only for a set made from a catalogue.
  const Catalogue& catalogue() const { return *catalogue_; }
  int size() const { return static_cast<int>(requests_.size()); }
  const v1::RecommendRequest& request_message(int i) const { return messages_[i]; }
  // A copy shares the serialized slice: no allocation of the payload per request.
  const grpc::ByteBuffer& request(int i) const { return requests_[i]; }
  // The messages call i sends: request(i) alone, or a client-streaming call's stream.
  const std::vector<grpc::ByteBuffer>& request_stream(int i) const { return streams_[i]; }
  const std::string& expected_bytes(int i) const { return expected_[i]; }
  uint32_t expected_items() const { return expected_items_; }

  // The number of `items` fields (field 2) at the top level of a serialized
  // RecommendResponse, or -1 when the bytes are not a well-formed message.
  static int64_t CountItems(grpc::ByteBuffer* response);
  // True when the response is byte for byte what BuildResponse makes for request i
  // (always for a generic set).
  bool MatchesExpected(int i, const grpc::ByteBuffer& response) const;
  // The per-reply check (see above): length always, bytes when compare_bytes; kRight
  // for every reply of a generic set.
  ReplyCheck Check(int i, grpc::ByteBuffer* response, bool compare_bytes) const;

 private:
  std::string method_;
  bool server_streaming_ = false;
  bool client_streaming_ = false;
  const Catalogue* catalogue_ = nullptr;  // null for a generic set
  std::vector<v1::RecommendRequest> messages_;
  std::vector<grpc::ByteBuffer> requests_;
  std::vector<std::vector<grpc::ByteBuffer>> streams_;
  std::vector<std::string> expected_;
  uint32_t expected_items_ = 0;
};

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REQUEST_SET_H_
