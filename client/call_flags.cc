// See call_flags.h.
#include "client/call_flags.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/target_link.h"
#include "core/method_schema.h"
#include "core/proto_schema.h"
#include "rpc/reflection_schema.h"

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
  absl::StatusOr<MethodSchema> method = FindUnaryMethod(*schema, f.call);
  if (!method.ok()) return method.status();
  absl::StatusOr<std::vector<std::string>> requests = SerializedRequests(method->request, f.data);
  if (!requests.ok()) return requests.status();
  return CallSpec{method->path, method->request->full_name(), method->reply->full_name(), *std::move(requests)};
}

}  // namespace reco
