// ResolveCall: turns reco_load's --call and its companions into the CallSpec a run
// sends -- before any load, so that every mistake is a bad flag (exit 2).
//
//   --call package.Service/Method     the method to drive (unary or streaming)
//   --proto FILE... [--import_path D] its types from .proto files, parsed at run time
//   --protoset FILE                   or from a FileDescriptorSet
//   (neither)                         or from the first target's server reflection
//   --data JSON | --data_file FILE    the request(s); JSON (one object, or one per
//   [--data_format json|binary]       line, cycled through) or one binary message; for
//                                     a client-streaming method each may be an array:
//                                     the call's messages
//
// Errors: INVALID_ARGUMENT naming the flag -- an unknown service or method, a missing
// file or import, a protoset without the method, JSON
// that does not fit the request type (the field named), a server without reflection
// when neither file is given, companions of --call given without it. UNAVAILABLE
// when reflection was needed and the first target could not be reached.
//
// Example:
//   reco::CallFlags flags;
//   flags.call = "inbox.v1.Inbox/ListThreads";
//   flags.proto_files = {"examples/inbox/inbox.proto"};
//   flags.data.json = R"({"threads": 50})";
//   absl::StatusOr<reco::CallSpec> call = reco::ResolveCall(flags, options);
//   // call->method == "/inbox.v1.Inbox/ListThreads", one serialized request
//
// Thread-safety: one thread; blocks for at most options.probe_deadline on reflection.
#ifndef ARENA_GRPC_CLIENT_CALL_FLAGS_H_
#define ARENA_GRPC_CLIENT_CALL_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/load_options.h"
#include "schema/request_data.h"

namespace reco {

struct CallFlags {
  std::string call;                       // --call; empty: reco's Recommend
  std::vector<std::string> proto_files;   // --proto
  std::vector<std::string> import_paths;  // --import_path
  std::string protoset;                   // --protoset
  RequestData data;                       // --data, --data_file, --data_format
  // Flags that only make sense for Recommend (--items, ...), as given on the
  // command line: an error with --call.
  std::vector<std::string> recommend_flags_given;
};

// The CallSpec for `flags` (an empty one without --call); `options` gives the first
// target and how to dial it (TLS), for reflection.
absl::StatusOr<CallSpec> ResolveCall(const CallFlags& flags, const LoadOptions& options);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_CALL_FLAGS_H_
