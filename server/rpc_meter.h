// RpcMeter: everything reco_server measures about its Recommend calls, behind one
// switch, and MeasuredBuild, the one line a handler needs for it.
//
// Measuring (measure_phases = true) means, per Recommend call:
//   build      the handler's build (from MeasuredBuild's construction, after the request
//              was admitted, to its Finish()), plus what the allocator's
//              AllocateMessages() cost (MeasuredAllocator)
//   serialize  gRPC's serialization of the reply (SerializeTimer, an interceptor)
//   release    the allocator holder's Release() (MeasuredAllocator)
// each as wall time and this thread's allocations, into the PhaseRecorder.
// Off means none of that exists: no clock is read, no interceptor or wrapper is
// installed, the service gets the memory mode's allocator itself. Calls are counted
// either way, by status (OK, invalid, over budget, abandoned): every per-RPC figure
// divides by the OK count.
//
// Example (wiring; see RecoServer::Start; compiled in server/header_examples_test.cc):
//   reco::RpcMeter meter(/*measure_phases=*/true, /*max_idle_holders=*/64);
//   reco::RecommenderService service(catalogue.get(), meter.Wrap(store->allocator()), &meter,
//                                    /*reservations=*/nullptr, /*check_every_items=*/16);
//   if (auto timer = meter.NewSerializeTimer()) interceptors.push_back(std::move(timer));
// and in a handler (recommender_service.cc):
//   grpc::Status status = reco::Admit(reservations_, context, *request);  // validate, reserve
//   reco::MeasuredBuild measured(meter_, context);
//   ...build, giving `status`...
//   measured.Finish(status);                         // before reactor->Finish(status)
//
// Thread-safety: Wrap() and NewSerializeTimer() before the server starts; the rest
// from any thread. The meter must outlive the server.
#ifndef ARENA_GRPC_SERVER_RPC_METER_H_
#define ARENA_GRPC_SERVER_RPC_METER_H_

#include <cstddef>
#include <memory>
#include <optional>

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_interceptor.h>

#include "absl/status/status.h"
#include "core/message_store.h"
#include "server/measured_allocator.h"
#include "server/phase_recorder.h"

namespace reco {

class RpcMeter {
 public:
  // max_idle_holders bounds the MeasuredAllocator's idle holders.
  RpcMeter(bool measure_phases, size_t max_idle_holders)
      : measuring_(measure_phases), max_idle_holders_(max_idle_holders) {}

  bool measuring() const { return measuring_; }
  PhaseRecorder* recorder() { return &recorder_; }

  // The allocator the service should install: `allocator` itself when not measuring
  // or when it is null (heap: gRPC's default path), else a MeasuredAllocator around
  // it, owned by the meter. Call at most once.
  RecommendAllocator* Wrap(RecommendAllocator* allocator);
  // True when Wrap() installed a MeasuredAllocator: each call's allocator state is
  // then a MeasuredHolder.
  bool wraps_allocator() const { return measured_allocator_ != nullptr; }

  // The interceptor that times the reply's serialization; null when not measuring.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> NewSerializeTimer();

 private:
  const bool measuring_;
  const size_t max_idle_holders_;
  PhaseRecorder recorder_;
  std::unique_ptr<MeasuredAllocator> measured_allocator_;
};

// MeasuredBuild: lives in the handler from after admission to Finish(status), which
// counts the call by its status and, when measuring and OK, records the build phase
// and asks for the release phase to be timed. A refused or abandoned call records no
// build sample (its partial work shows in the process figures).
//
// Finish() must run before the handler returns (before reactor->Finish() is the
// simplest): with ctx->DefaultReactor(), gRPC serializes and sends the reply and may
// release the messages after the handler has returned -- after this object's last look
// at the call's allocator state. A MeasuredBuild destroyed without Finish() counts the
// call as UNKNOWN.
class MeasuredBuild {
 public:
  MeasuredBuild(RpcMeter* meter, grpc::CallbackServerContext* context)
      : MeasuredBuild(meter, context->GetRpcAllocatorState()) {}
  // An async call (async_recommender.h): its allocator state is the MessageHolder its
  // messages came from.
  MeasuredBuild(RpcMeter* meter, grpc::RpcAllocatorState* allocator_state)
      : meter_(meter), allocator_state_(allocator_state) {
    if (meter_->measuring()) clock_.emplace();
  }
  void Finish(const grpc::Status& status);
  ~MeasuredBuild() {
    if (!finished_) Finish(grpc::Status(grpc::StatusCode::UNKNOWN, "handler returned without a status"));
  }

  MeasuredBuild(const MeasuredBuild&) = delete;
  MeasuredBuild& operator=(const MeasuredBuild&) = delete;

 private:
  RpcMeter* const meter_;
  grpc::RpcAllocatorState* const allocator_state_;
  bool finished_ = false;
  std::optional<PhaseClock> clock_;  // only when measuring
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_RPC_METER_H_
