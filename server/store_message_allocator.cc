// See store_message_allocator.h.
#include "server/store_message_allocator.h"

namespace reco {

void StoreMessageHolder::Take(MessageStore* store) {
  answered_ = false;
  lease_ = store->Acquire();
  set_request(lease_.request);
  set_response(lease_.response);
}

void StoreMessageHolder::Release() {
  // Everything the release needs is copied out first: once the holder is back in
  // the pool another RPC may take it.
  StoreMessageAllocator* owner = owner_;
  PhaseRecorder* recorder = owner->recorder_;
  const bool record = recorder != nullptr && answered_;
  PhaseClock clock;
  owner->store_->Release(lease_);
  owner->ReturnHolder(this);
  if (record) recorder->Record(Phase::kRelease, clock.Elapsed());
}

StoreMessageAllocator::StoreMessageAllocator(MessageStore* store, PhaseRecorder* recorder, size_t max_idle)
    : store_(store), recorder_(recorder), max_idle_(max_idle) {
  idle_.reserve(max_idle);
}

StoreMessageAllocator::~StoreMessageAllocator() {
  for (StoreMessageHolder* holder : idle_) delete holder;
}

grpc::MessageHolder<v1::RecommendRequest, v1::RecommendResponse>* StoreMessageAllocator::AllocateMessages() {
  // Timed from here, so that the build phase also shows whether taking a holder
  // allocated (it should not, at steady state).
  PhaseClock clock;
  StoreMessageHolder* holder = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      holder = idle_.back();
      idle_.pop_back();
    }
  }
  if (holder == nullptr) holder = new StoreMessageHolder(this);
  holder->Take(store_);
  if (recorder_ != nullptr) holder->acquire_cost_ = clock.Elapsed();
  return holder;
}

void StoreMessageAllocator::ReturnHolder(StoreMessageHolder* holder) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < max_idle_) {
      idle_.push_back(holder);
      return;
    }
  }
  delete holder;
}

}  // namespace reco
