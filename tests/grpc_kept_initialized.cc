// Linked into every GoogleTest binary (cmake/RecoTesting.cmake): holds one reference
// to the gRPC library for the whole process, so that gRPC never shuts down between a
// test's servers and channels.
//
// Why: when a test destroys the last gRPC object (its server, after its channels),
// ~Server calls grpc_shutdown, which joins gRPC's executor threads; one of them may be
// in a poll with a 10 s timeout, and the test then ends 10 s late. Seen in one case
// of three of hostile_budget_test run six at a time (0.3 s otherwise). The process
// exits without grpc_shutdown, as most gRPC programs do.
#include <grpc/grpc.h>

namespace {
const bool kGrpcKeptInitialized = (grpc_init(), true);
}  // namespace
