// See unserved_method_service.h.
#include "server/unserved_method_service.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace reco {
namespace {

// A path is the client's to choose: only this much of it goes into the message.
constexpr size_t kPathShown = 120;

class UnimplementedReactor final : public grpc::ServerGenericBidiReactor {
 public:
  explicit UnimplementedReactor(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

UnservedMethodService::UnservedMethodService(std::vector<std::string> served)
    : served_list_(absl::StrJoin(served, ", ")) {}

std::string UnservedMethodService::Message(absl::string_view path) const {
  const bool cut = path.size() > kPathShown;
  return absl::StrCat("unknown method \"", absl::CHexEscape(path.substr(0, kPathShown)), cut ? "...\"" : "\"",
                      ": this server serves ", served_list_, " (method names are case-sensitive)");
}

grpc::ServerGenericBidiReactor* UnservedMethodService::CreateReactor(grpc::GenericCallbackServerContext* context) {
  return new UnimplementedReactor(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, Message(context->method())));
}

}  // namespace reco
