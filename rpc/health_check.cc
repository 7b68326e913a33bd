// See health_check.h.
#include "rpc/health_check.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "rpc/unary_call.h"

namespace reco {
namespace {

std::string EncodeRequest(const std::string& service) {
  std::string out;
  if (service.empty()) return out;  // proto3: an empty string is not on the wire
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.WriteTag(1 << 3 | 2);  // field 1, length-delimited
  coded.WriteVarint32(static_cast<uint32_t>(service.size()));
  coded.WriteString(service);
  return out;
}

// HealthCheckResponse.status, skipping any field a newer server adds.
absl::StatusOr<HealthStatus> DecodeResponse(const std::string& bytes) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  uint32_t status = 0;  // absent means UNKNOWN
  while (uint32_t tag = in.ReadTag()) {
    if (tag == (1 << 3 | 0)) {
      if (!in.ReadVarint32(&status)) return absl::DataLossError("truncated HealthCheckResponse");
    } else if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) {
      return absl::DataLossError("malformed HealthCheckResponse");
    }
  }
  if (status > 3) return absl::DataLossError(absl::StrCat("unknown serving status ", status));
  return static_cast<HealthStatus>(status);
}

}  // namespace

absl::string_view HealthStatusName(HealthStatus status) {
  switch (status) {
    case HealthStatus::kUnknown:
      return "UNKNOWN";
    case HealthStatus::kServing:
      return "SERVING";
    case HealthStatus::kNotServing:
      return "NOT_SERVING";
    case HealthStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
  }
  return "UNKNOWN";
}

absl::StatusOr<HealthStatus> CheckHealth(const std::string& target, const std::string& service, absl::Duration deadline,
                                         const std::string& tls_ca_pem) {
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = tls_ca_pem;
  auto channel =
      grpc::CreateChannel(target, tls_ca_pem.empty() ? grpc::InsecureChannelCredentials() : grpc::SslCredentials(ssl));
  grpc::GenericStub stub(channel);
  UnaryReply reply =
      BlockingUnaryCall(stub, "/grpc.health.v1.Health/Check", EncodeRequest(service), absl::Now() + deadline);
  if (!reply.status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(reply.status.error_code()),
                        absl::StrCat("health check of ", target, tls_ca_pem.empty() ? "" : " (TLS)",
                                     " failed: ", reply.status.error_message()));
  }
  return DecodeResponse(reply.Bytes());
}

}  // namespace reco
