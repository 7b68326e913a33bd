// UnservedMethodService: answers every call to a path the server does not serve --
// an unknown service or method, a wrong-case name, reflection v1 -- with
// UNIMPLEMENTED and a message naming the path and the services that are served.
//
// gRPC would answer UNIMPLEMENTED with an empty message on its own; this says what
// was asked and what to ask instead, which is what a user with a typo or a tool
// trying reflection v1 needs. The call's request is never read: the reactor
// finishes at once, so an unserved call holds no more than gRPC's own per-call
// state, bounded like every call by streams per connection.
//
// Example:
//   reco::UnservedMethodService unserved({"reco.v1.Recommender", "grpc.health.v1.Health"});
//   builder.RegisterCallbackGenericService(&unserved);
//   // a call to /reco.v1.Recommender/recommend gets UNIMPLEMENTED:
//   //   "unknown method \"/reco.v1.Recommender/recommend\": this server serves
//   //    reco.v1.Recommender, grpc.health.v1.Health (method names are case-sensitive)"
//
// Thread-safety: CreateReactor runs on gRPC's threads, concurrently; the service is
// immutable after construction and must outlive the server.
#ifndef ARENA_GRPC_SERVER_UNSERVED_METHOD_SERVICE_H_
#define ARENA_GRPC_SERVER_UNSERVED_METHOD_SERVICE_H_

#include <string>
#include <vector>

#include <grpcpp/generic/async_generic_service.h>

#include "absl/strings/string_view.h"

namespace reco {

class UnservedMethodService final : public grpc::CallbackGenericService {
 public:
  // `served`: the full names of the services the server does serve, for the message.
  explicit UnservedMethodService(std::vector<std::string> served);

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override;

  // The status message for a call to `path`: a few hundred bytes at most, whatever
  // the path.
  std::string Message(absl::string_view path) const;

 private:
  const std::string served_list_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_UNSERVED_METHOD_SERVICE_H_
