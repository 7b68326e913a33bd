// SerializeTimer: a server interceptor that times gRPC's own serialization of the
// Recommend reply.
//
// Why an interceptor: a callback handler's ctx->DefaultReactor()->Finish() only
// records the status while the handler runs (gRPC binds the reactor after the handler
// returns), and gRPC serializes the reply later on the same thread, when it binds the
// reactor and sends the finish batch. Timing around Finish() in the handler would time
// nothing. At the PRE_SEND_MESSAGE hook this interceptor asks gRPC for the serialized
// message (GetSerializedSendMessage), which runs exactly the serializer gRPC would run
// (SerializationTraits<RecommendResponse>::Serialize) once, on the handler's thread;
// gRPC then sends that buffer instead of serializing again.
//
// Cost: with any interceptor installed gRPC makes a ServerRpcInfo, its interceptor
// list and the interceptor for every RPC: a few more allocations per Recommend RPC in
// process_allocations, none in a phase (docs/server.md, "What measuring costs", has the
// count). Only Recommend gets an interceptor; other methods get none.
//
// Example:
//   std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> f;
//   f.push_back(std::make_unique<reco::SerializeTimerFactory>(&recorder));
//   builder.experimental().SetInterceptorCreators(std::move(f));
//
// Thread-safety: the factory is called concurrently by gRPC; each interceptor serves
// one RPC. The recorder must outlive the server.
#ifndef ARENA_GRPC_SERVER_SERIALIZE_TIMER_H_
#define ARENA_GRPC_SERVER_SERIALIZE_TIMER_H_

#include <grpcpp/support/server_interceptor.h>

#include "server/phase_recorder.h"

namespace reco {

class SerializeTimerFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit SerializeTimerFactory(PhaseRecorder* recorder) : recorder_(recorder) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;

 private:
  PhaseRecorder* const recorder_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_SERIALIZE_TIMER_H_
