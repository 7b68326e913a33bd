// RpcMeter: everything reco_server measures about its Recommend calls, behind one
// switch, and MeasuredBuild, the one line a handler needs for it.
//
// Measuring (measure_phases = true) means, per Recommend call:
//   build      the handler's work after validation (MeasuredBuild's lifetime), plus
//              what the allocator's AllocateMessages() cost (MeasuredAllocator)
//   serialize  gRPC's serialization of the reply (SerializeTimer, an interceptor)
//   release    the allocator holder's Release() (MeasuredAllocator)
// each as wall time and this thread's allocations, into the PhaseRecorder.
// Off means none of that exists: no clock is read, no interceptor or wrapper is
// installed, the service gets the memory mode's allocator itself. Calls are counted
// either way (answered OK / refused): every per-RPC figure divides by that count.
//
// Example (wiring; see RecoServer::Start):
//   reco::RpcMeter meter(/*measure_phases=*/true, /*max_idle_holders=*/64);
//   reco::RecommenderService service(meter.Wrap(store->allocator()), &meter);
//   if (auto timer = meter.NewSerializeTimer()) interceptors.push_back(std::move(timer));
// and in a handler:
//   absl::Status valid = ValidateRequest(*request);
//   reco::MeasuredBuild measured(meter_, context, valid);   // the one line
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

// MeasuredBuild: lives in the handler from validation to the end. It counts the call
// (OK when `verdict` is OK, refused otherwise) and, when measuring and OK, records the
// build phase and asks for the release phase to be timed.
//
// It must be destroyed before the handler returns, which a local variable is: with
// ctx->DefaultReactor(), Finish() inside the handler only records the status, and gRPC
// serializes and sends the reply (and may release the messages) after the handler has
// returned -- after this object's last look at the call's allocator state.
class MeasuredBuild {
 public:
  MeasuredBuild(RpcMeter* meter, grpc::CallbackServerContext* context, const absl::Status& verdict)
      : meter_(meter), context_(context), ok_(verdict.ok()) {
    if (meter_->measuring() && ok_) clock_.emplace();
  }
  ~MeasuredBuild();

  MeasuredBuild(const MeasuredBuild&) = delete;
  MeasuredBuild& operator=(const MeasuredBuild&) = delete;

 private:
  RpcMeter* const meter_;
  grpc::CallbackServerContext* const context_;
  const bool ok_;
  std::optional<PhaseClock> clock_;  // only when measuring an answered call
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_RPC_METER_H_
