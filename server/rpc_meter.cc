// See rpc_meter.h.
#include "server/rpc_meter.h"

#include "server/serialize_timer.h"

namespace reco {

RecommendAllocator* RpcMeter::Wrap(RecommendAllocator* allocator) {
  if (!measuring_ || allocator == nullptr) return allocator;
  measured_allocator_ = std::make_unique<MeasuredAllocator>(allocator, &recorder_, max_idle_holders_);
  return measured_allocator_.get();
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> RpcMeter::NewSerializeTimer() {
  if (!measuring_) return nullptr;
  return std::make_unique<SerializeTimerFactory>(&recorder_);
}

void MeasuredBuild::Finish(const grpc::Status& status) {
  finished_ = true;
  PhaseRecorder* recorder = meter_->recorder();
  if (clock_ && status.ok()) {
    PhaseSample build = clock_->Elapsed();
    if (meter_->wraps_allocator()) {
      // The wrapper's holder is this call's allocator state (see measured_allocator.h).
      auto* holder = static_cast<MeasuredHolder*>(allocator_state_);
      build += holder->acquire_cost();
      holder->RecordReleasePhase();
    }
    recorder->Record(Phase::kBuild, build);
  }
  recorder->CountRpc(status.error_code());
}

}  // namespace reco
