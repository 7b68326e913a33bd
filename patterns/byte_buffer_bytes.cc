// SPDX-License-Identifier: Apache-2.0
#include "byte_buffer_bytes.h"

#include <cstring>
#include <vector>

#include <grpcpp/support/slice.h>

namespace reco::patterns {

std::string ByteBufferBytes(const grpc::ByteBuffer& buffer) {
  std::string bytes;
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return bytes;
}

bool ByteBufferHolds(const grpc::ByteBuffer& buffer, absl::string_view bytes) {
  if (buffer.Length() != bytes.size()) return false;
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return false;
  size_t at = 0;
  for (const grpc::Slice& s : slices) {
    if (std::memcmp(bytes.data() + at, s.begin(), s.size()) != 0) return false;
    at += s.size();
  }
  return at == bytes.size();
}

}  // namespace reco::patterns
