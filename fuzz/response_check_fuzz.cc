// response_check_fuzz: the load client's response checks on arbitrary bytes.
//
// reco_load checks every reply with RequestSet::CountItems (a tag walk that counts the
// top-level `items` fields without parsing) and a sample with MatchesExpected (byte
// comparison against core's BuildResponse output). Both read a grpc::ByteBuffer that
// may arrive in several slices. The input is cut into up to four slices (the first
// byte chooses where) and must satisfy, against protobuf's own parser as the oracle:
//   - no crash, no sanitizer report, no leak;
//   - when protobuf parses the bytes as a RecommendResponse, CountItems equals its
//     items_size() (CountItems may accept bytes that protobuf refuses -- invalid
//     UTF-8 inside a nested string, say -- since it does not look inside items);
//   - MatchesExpected(i) is true exactly when the bytes equal expected_bytes(i), and
//     then CountItems gives expected_items().
//
// Run it with scripts/fuzz.sh; seeds in fuzz/corpus/response_check_fuzz are real
// responses (and near misses) for the request set below.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "client/request_set.h"
#include "google/protobuf/stubs/logging.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "proto/reco.pb.h"

namespace {

void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "response_check_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

// The shape fuzz_corpus_writer uses for its response seeds: small, so that a seed
// is a few KB and mutations reach every field.
const reco::RequestSet& Requests() {
  static const reco::RequestSet* set = [] {
    reco::v1::RecommendRequest shape;
    shape.set_item_count(3);
    shape.set_seed(7);
    return new reco::RequestSet(reco::DefaultCatalogue(), shape);
  }();
  return *set;
}

// The bytes as gRPC may hand them over: in up to four slices.
grpc::ByteBuffer Sliced(const uint8_t* data, size_t size, uint8_t cuts) {
  std::vector<grpc::Slice> slices;
  size_t at = 0;
  for (int i = 0; i < 3 && at < size; ++i) {
    size_t len = ((cuts >> (2 * i)) & 3) * (size / 4 + 1) / 2;
    if (len == 0 || at + len > size) continue;
    slices.emplace_back(data + at, len);
    at += len;
  }
  slices.emplace_back(data + at, size - at);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

}  // namespace

// protobuf logs every string field with invalid UTF-8 it refuses; at thousands of
// inputs a second that is noise (the refusal itself is what we check).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const reco::RequestSet& set = Requests();
  uint8_t cuts = data[0];
  const uint8_t* body = data + 1;
  size_t n = size - 1;

  grpc::ByteBuffer buffer = Sliced(body, n, cuts);
  int64_t counted = reco::RequestSet::CountItems(&buffer);
  if (buffer.Length() != n) Fail("CountItems changed the buffer", std::to_string(buffer.Length()));

  reco::v1::RecommendResponse parsed;
  if (parsed.ParseFromArray(body, static_cast<int>(n)) && counted != parsed.items_size()) {
    Fail("CountItems disagrees with protobuf", std::to_string(counted) + " vs " + std::to_string(parsed.items_size()));
  }

  const std::string bytes(reinterpret_cast<const char*>(body), n);
  for (int i = 0; i < set.size(); ++i) {
    bool equal = bytes == set.expected_bytes(i);
    if (set.MatchesExpected(i, buffer) != equal) Fail("MatchesExpected is wrong for variant", std::to_string(i));
    if (equal && counted != set.expected_items()) Fail("expected bytes counted wrong", std::to_string(counted));
  }
  return 0;
}
