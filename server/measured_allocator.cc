// See measured_allocator.h.
#include "server/measured_allocator.h"

#include <memory>

namespace reco {

RecommendHolder* MeasuredAllocator::AllocateMessages() {
  // Timed from here, so that the build phase also shows whether taking a holder
  // allocated (it should not, at steady state).
  PhaseClock clock;
  std::unique_ptr<MeasuredHolder> holder = idle_.Take();
  if (holder == nullptr) holder = std::make_unique<MeasuredHolder>(this);
  holder->wrapped_ = wrapped_->AllocateMessages();
  holder->set_request(holder->wrapped_->request());
  holder->set_response(holder->wrapped_->response());
  holder->record_release_ = false;
  holder->acquire_cost_ = clock.Elapsed();
  return holder.release();
}

void MeasuredHolder::Release() {
  // Everything needed is copied out first: once this holder is back in the pool
  // another RPC may take it (or, with the pool full, it is deleted).
  MeasuredAllocator* owner = owner_;
  RecommendHolder* wrapped = wrapped_;
  const bool record = record_release_;
  PhaseClock clock;
  wrapped->Release();
  owner->idle_.Give(std::unique_ptr<MeasuredHolder>(this));
  if (record) owner->recorder_->Record(Phase::kRelease, clock.Elapsed());
}

}  // namespace reco
