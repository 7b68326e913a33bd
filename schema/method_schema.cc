// See method_schema.h.
#include "schema/method_schema.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace reco {
namespace {

absl::Status CallError(absl::string_view call, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("--call ", call, ": ", what));
}

}  // namespace

absl::string_view MethodKind(bool client_streaming, bool server_streaming) {
  if (client_streaming) return server_streaming ? "bidirectional-streaming" : "client-streaming";
  return server_streaming ? "server-streaming" : "unary";
}

absl::StatusOr<std::pair<std::string, std::string>> ParseCallFlag(absl::string_view call) {
  constexpr absl::string_view kWant = "want package.Service/Method, e.g. inbox.v1.Inbox/ListThreads";
  absl::string_view text = call;
  if (!text.empty() && text.front() == '/') text.remove_prefix(1);
  for (char c : text) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)))
      return CallError(call, absl::StrCat("has a space; ", kWant));
  }
  // The method is what follows the last '/' (or, without one, the last '.').
  size_t split = text.find('/');
  if (split != absl::string_view::npos && text.find('/', split + 1) != absl::string_view::npos) {
    return CallError(call, absl::StrCat("more than one '/'; ", kWant));
  }
  if (split == absl::string_view::npos) split = text.rfind('.');
  if (split == absl::string_view::npos || split == 0 || split + 1 == text.size()) {
    return CallError(call.empty() ? "\"\"" : call, kWant);
  }
  return std::make_pair(std::string(text.substr(0, split)), std::string(text.substr(split + 1)));
}

absl::StatusOr<MethodSchema> FindMethod(const ProtoSchema& schema, absl::string_view call) {
  absl::StatusOr<std::pair<std::string, std::string>> names = ParseCallFlag(call);
  if (!names.ok()) return names.status();
  const auto& [service_name, method_name] = *names;

  const google::protobuf::ServiceDescriptor* service = schema.FindService(service_name);
  if (service == nullptr) {
    std::vector<std::string> services = schema.Services();
    return CallError(call, absl::StrCat("no service ", service_name, " in the schema (",
                                        services.empty() ? "it has no services"
                                                         : absl::StrCat("services: ", absl::StrJoin(services, ", ")),
                                        ")"));
  }
  const google::protobuf::MethodDescriptor* method = service->FindMethodByName(method_name);
  if (method == nullptr) {
    std::vector<std::string> methods;
    for (int i = 0; i < service->method_count(); ++i) methods.push_back(service->method(i)->name());
    return CallError(call, absl::StrCat(service_name, " has no method ", method_name,
                                        " (methods: ", absl::StrJoin(methods, ", "), ")"));
  }
  MethodSchema found;
  found.service = service_name;
  found.method = method_name;
  found.path = absl::StrCat("/", service_name, "/", method_name);
  found.request = method->input_type();
  found.reply = method->output_type();
  found.client_streaming = method->client_streaming();
  found.server_streaming = method->server_streaming();
  return found;
}

}  // namespace reco
