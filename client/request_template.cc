// See request_template.h.
#include "client/request_template.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/random/distributions.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace reco {
namespace {

constexpr char kKnown[] =
    "{{.RequestNumber}}, {{.Timestamp}}, {{.TimestampUnix}}, {{.TimestampUnixMilli}}, {{.TimestampUnixNano}}, "
    "{{.UUID}}, {{newUUID}}";

// A version-4 UUID (RFC 4122: 122 random bits, the version and variant fixed).
std::string RandomUuid(absl::BitGenRef rng) {
  uint64_t high = absl::Uniform<uint64_t>(rng), low = absl::Uniform<uint64_t>(rng);
  high = (high & ~uint64_t{0xF000}) | uint64_t{0x4000};
  low = (low & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);
  return absl::StrFormat("%08x-%04x-%04x-%04x-%012x", high >> 32, (high >> 16) & 0xFFFF, high & 0xFFFF, low >> 48,
                         low & 0xFFFFFFFFFFFF);
}

}  // namespace

absl::StatusOr<RequestTemplate> RequestTemplate::Parse(absl::string_view text, absl::string_view flag) {
  static const std::pair<const char*, Kind> kNames[] = {{".RequestNumber", Kind::kRequestNumber},
                                                        {".Timestamp", Kind::kTimestamp},
                                                        {".TimestampUnix", Kind::kUnix},
                                                        {".TimestampUnixMilli", Kind::kUnixMilli},
                                                        {".TimestampUnixNano", Kind::kUnixNano},
                                                        {".UUID", Kind::kUuid},
                                                        {"newUUID", Kind::kUuid}};
  RequestTemplate t;
  std::string literal;
  while (!text.empty()) {
    const size_t open = text.find("{{");
    if (open == absl::string_view::npos) break;
    const size_t close = text.find("}}", open + 2);
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": \"{{\" without its \"}}\" at \"", text.substr(open, 20), "\""));
    }
    const absl::string_view name = absl::StripAsciiWhitespace(text.substr(open + 2, close - open - 2));
    const auto* known =
        std::find_if(std::begin(kNames), std::end(kNames), [&](const auto& n) { return name == n.first; });
    if (known == std::end(kNames)) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": unknown placeholder \"{{", name, "}}\" (known: ", kKnown, ")"));
    }
    absl::StrAppend(&literal, text.substr(0, open));
    if (!literal.empty()) t.parts_.push_back({Kind::kText, std::exchange(literal, "")});
    t.parts_.push_back({known->second, ""});
    ++t.placeholders_;
    text.remove_prefix(close + 2);
  }
  absl::StrAppend(&literal, text);
  if (!literal.empty()) t.parts_.push_back({Kind::kText, std::move(literal)});
  return t;
}

std::string RequestTemplate::Render(uint64_t request_number, absl::Time now, absl::BitGenRef rng) const {
  std::string out;
  for (const Part& p : parts_) {
    switch (p.kind) {
      case Kind::kText:
        out += p.text;
        break;
      case Kind::kRequestNumber:
        absl::StrAppend(&out, request_number);
        break;
      case Kind::kTimestamp:
        out += absl::FormatTime("%Y-%m-%dT%H:%M:%E9SZ", now, absl::UTCTimeZone());
        break;
      case Kind::kUnix:
        absl::StrAppend(&out, absl::ToUnixSeconds(now));
        break;
      case Kind::kUnixMilli:
        absl::StrAppend(&out, absl::ToUnixMillis(now));
        break;
      case Kind::kUnixNano:
        absl::StrAppend(&out, absl::ToUnixNanos(now));
        break;
      case Kind::kUuid:
        out += RandomUuid(rng);
        break;
    }
  }
  return out;
}

}  // namespace reco
