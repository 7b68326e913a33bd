// See call_flags.h.
#include "client/call_flags.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/request_template.h"
#include "client/target_link.h"
#include "rpc/reflection_schema.h"
#include "schema/method_schema.h"
#include "schema/proto_schema.h"

namespace reco {
namespace {

absl::Status Bad(absl::string_view what) { return absl::InvalidArgumentError(what); }

// The flags that need --call, when it is absent.
absl::Status CompanionsWithoutCall(const CallFlags& f) {
  const std::pair<bool, const char*> companions[] = {
      {!f.proto_files.empty(), "--proto"},      {!f.import_paths.empty(), "--import_path"},
      {!f.protoset.empty(), "--protoset"},      {f.data.json.has_value(), "--data"},
      {f.data.file.has_value(), "--data_file"}, {f.data.format != RequestData::Format::kJson, "--data_format"}};
  for (const auto& [given, flag] : companions) {
    if (given) return Bad(absl::StrCat(flag, " needs --call (it describes the method --call names)"));
  }
  return absl::OkStatus();
}

// The schema the method is looked up in: the files, the protoset, or the first
// target's reflection.
absl::StatusOr<ProtoSchema> LoadSchema(const CallFlags& f, const LoadOptions& options, const std::string& service) {
  if (!f.proto_files.empty() && !f.protoset.empty()) {
    return Bad("--proto and --protoset: give one of them (or neither, for the server's reflection)");
  }
  if (!f.import_paths.empty() && f.proto_files.empty()) return Bad("--import_path needs --proto");
  if (!f.proto_files.empty()) return LoadProtoFiles(f.proto_files, f.import_paths);
  if (!f.protoset.empty()) return LoadProtoset(f.protoset);
  if (options.targets.empty()) return Bad("--target is required: give at least one NAME=HOST:PORT");
  // A link of one connection to the first target, dialled as the load will be.
  TargetLink link(options.targets.front(), 1, 0, options.max_receive_message_bytes, TlsDialOf(options),
                  options.lb_policy);
  return SchemaFromReflection(link.channel(0), service, options.probe_deadline);
}

// Each call's request from --data's template: rendered, parsed against the schema
// (kept alive by the function), serialized. The template rendered for call 0 parsed,
// so a later one fails only if a placeholder's value does not fit where it stands;
// that call then sends call 0's request, and the first such error is printed once.
std::function<std::string(uint64_t, absl::Time, absl::BitGenRef)> TemplatedRequests(
    ProtoSchema schema, const google::protobuf::Descriptor* type, bool stream, RequestTemplate data,
    std::string fallback) {
  auto kept = std::make_shared<const ProtoSchema>(std::move(schema));
  auto warned = std::make_shared<std::atomic<bool>>(false);
  return [kept, type, stream, data = std::move(data), fallback = std::move(fallback), warned](
             uint64_t number, absl::Time now, absl::BitGenRef rng) {
    absl::StatusOr<std::string> m =
        SerializedJsonRequest(kept->Prototype(type), data.Render(number, now, rng), "--data", stream);
    if (m.ok()) return *std::move(m);
    if (!warned->exchange(true))
      std::fprintf(stderr, "reco_load: call %llu: %s\n", static_cast<unsigned long long>(number),
                   std::string(m.status().message()).c_str());
    return fallback;
  };
}

}  // namespace

absl::StatusOr<CallSpec> ResolveCall(const CallFlags& f, const LoadOptions& options) {
  if (f.call.empty()) {
    if (absl::Status s = CompanionsWithoutCall(f); !s.ok()) return s;
    return CallSpec{};
  }
  if (!f.recommend_flags_given.empty()) {
    return Bad(absl::StrCat(absl::StrJoin(f.recommend_flags_given, ", "),
                            ": reco's Recommend only; with --call the request comes from --data or --data_file"));
  }
  if (f.data.json.has_value() && f.data.file.has_value()) return Bad("--data and --data_file: give one of them");
  if (f.data.format != RequestData::Format::kJson && !f.data.file.has_value()) {
    return Bad("--data_format binary needs --data_file (--data is JSON)");
  }
  absl::StatusOr<std::pair<std::string, std::string>> names = ParseCallFlag(f.call);
  if (!names.ok()) return names.status();
  absl::StatusOr<ProtoSchema> schema = LoadSchema(f, options, names->first);
  if (!schema.ok()) return schema.status();
  absl::StatusOr<MethodSchema> method = FindMethod(*schema, f.call);
  if (!method.ok()) return method.status();
  absl::StatusOr<RequestTemplate> data_template = RequestTemplate::Parse(f.data.json.value_or(""), "--data");
  if (!data_template.ok()) return data_template.status();
  RequestData data = f.data;
  absl::BitGen rng;
  if (data_template->has_placeholders()) data.json = data_template->Render(0, absl::Now(), rng);
  absl::StatusOr<std::vector<std::string>> requests =
      SerializedRequests(method->request, data, method->client_streaming);
  if (!requests.ok()) return requests.status();
  CallSpec spec{method->path, method->request->full_name(), method->reply->full_name(), *std::move(requests)};
  spec.server_streaming = method->server_streaming;
  spec.client_streaming = method->client_streaming;
  if (data_template->has_placeholders())
    spec.render_request = TemplatedRequests(*std::move(schema), method->request, method->client_streaming,
                                            *std::move(data_template), spec.requests[0]);
  return spec;
}

}  // namespace reco
