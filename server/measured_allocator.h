// MeasuredAllocator: wraps the memory mode's grpc::MessageAllocator so that the server
// can time what the allocator does per RPC, without the allocator (the pattern file a
// reader copies) knowing anything about measurement.
//
// gRPC calls AllocateMessages() before it parses a request; the wrapper takes one of
// its own pooled holders, asks the wrapped allocator for the messages and hands gRPC
// the same request and response pointers. What that cost (time and this thread's
// allocations) is kept in the holder: the handler adds it to the build phase, as the
// allocation ledger's build includes Acquire(). When gRPC calls the holder's Release()
// the wrapper times the wrapped holder's Release() as the release phase -- only for
// calls the handler answered OK (RecordReleasePhase()), so that every phase divides
// by the same RPCs.
//
// Installed by RpcMeter only when measuring: with measurement off the service gets the
// wrapped allocator itself and this class costs nothing. Its holders are pooled (at
// most max_idle idle), so at steady state it allocates nothing either.
//
// Thread-safety: AllocateMessages() and Release() may run on any gRPC thread at once.
// The wrapped allocator and the recorder must outlive this one; this one must outlive
// the server.
#ifndef ARENA_GRPC_SERVER_MEASURED_ALLOCATOR_H_
#define ARENA_GRPC_SERVER_MEASURED_ALLOCATOR_H_

#include <cstddef>

#include "core/message_store.h"
#include "patterns/idle_pool.h"
#include "server/phase_recorder.h"

namespace reco {

class MeasuredAllocator;

class MeasuredHolder final : public RecommendHolder {
 public:
  explicit MeasuredHolder(MeasuredAllocator* owner) : owner_(owner) {}

  // What AllocateMessages() cost, on its thread (the thread that runs the handler).
  const PhaseSample& acquire_cost() const { return acquire_cost_; }
  // The handler answered this call OK: time its Release() into the release phase.
  void RecordReleasePhase() { record_release_ = true; }

  void Release() override;

 private:
  friend class MeasuredAllocator;
  MeasuredAllocator* const owner_;
  RecommendHolder* wrapped_ = nullptr;
  PhaseSample acquire_cost_;
  bool record_release_ = false;
};

class MeasuredAllocator final : public RecommendAllocator {
 public:
  MeasuredAllocator(RecommendAllocator* wrapped, PhaseRecorder* recorder, size_t max_idle)
      : wrapped_(wrapped), recorder_(recorder), idle_(max_idle) {}

  RecommendHolder* AllocateMessages() override;

 private:
  friend class MeasuredHolder;
  RecommendAllocator* const wrapped_;
  PhaseRecorder* const recorder_;
  patterns::IdlePool<MeasuredHolder> idle_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_MEASURED_ALLOCATOR_H_
