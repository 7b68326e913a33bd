// RequestTemplate: a --data or --metadata value with per-call placeholders, as ghz
// writes them, filled in for each call:
//   {{.RequestNumber}}                   the call's number in the run, from 0
//   {{.Timestamp}}                       the time of the call, RFC 3339 with nanoseconds
//   {{.TimestampUnix}}, {{.TimestampUnixMilli}}, {{.TimestampUnixNano}}
//                                        the same, in seconds, ms or ns since 1970
//   {{.UUID}}, {{newUUID}}               a random version-4 UUID
// Spaces inside the braces are allowed ("{{ .UUID }}"). Text without "{{" is sent as
// it is. Anything else between "{{" and "}}" is an error naming the flag and listing
// the placeholders; a "{{" without its "}}" too.
//
// Example:
//   absl::StatusOr<reco::RequestTemplate> t =
//       reco::RequestTemplate::Parse(R"({"id": "{{.RequestNumber}}"})", "--data");
//   absl::BitGen rng;
//   t->Render(7, absl::Now(), rng)   // {"id": "7"}
//
// Thread-safety: immutable after Parse; Render is const (each thread its own rng).
#ifndef ARENA_GRPC_CLIENT_REQUEST_TEMPLATE_H_
#define ARENA_GRPC_CLIENT_REQUEST_TEMPLATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace reco {

class RequestTemplate {
 public:
  // `flag` names the value in errors ("--data", "--metadata x-id").
  static absl::StatusOr<RequestTemplate> Parse(absl::string_view text, absl::string_view flag);

  // False when the text has no placeholder: Render would return it unchanged.
  bool has_placeholders() const { return placeholders_ > 0; }
  std::string Render(uint64_t request_number, absl::Time now, absl::BitGenRef rng) const;

 private:
  enum class Kind { kText, kRequestNumber, kTimestamp, kUnix, kUnixMilli, kUnixNano, kUuid };
  struct Part {
    Kind kind;
    std::string text;  // kText's
  };
  std::vector<Part> parts_;
  int placeholders_ = 0;
};

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REQUEST_TEMPLATE_H_
