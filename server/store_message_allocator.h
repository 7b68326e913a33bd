// StoreMessageAllocator: gRPC's MessageAllocator for Recommend, built on the core
// library's MessageStore, so the server runs the same memory-mode code as the ledger
// and the benchmarks.
//
// gRPC calls AllocateMessages() before it parses a request; the holder it returns
// takes a MessageLease from the store (arena_pool: a pooled arena with its reused
// initial block), and gRPC calls the holder's Release() when the RPC is done --
// answered, refused, cancelled or past its deadline -- which gives the lease back
// (store->Release: delete, Clear() or Reset()).
//
// Holders themselves are pooled (bounded like the store's pool), so at steady state
// taking and returning one allocates nothing: with arena_pool and short strings an
// RPC's messages cost zero allocations from AllocateMessages to Release.
//
// Measurement: AllocateMessages() times taking a holder and store->Acquire() (added
// to the build phase by the handler, as the ledger's build includes Acquire), and the
// holder times its Release() (the release phase). Release is recorded only for RPCs the handler marked answered, so
// that every phase divides by the same `rpcs`.
//
// Example:
//   auto store = reco::MakeMessageStore(reco::MemoryMode::kArenaPool, {});
//   reco::PhaseRecorder recorder;
//   reco::StoreMessageAllocator allocator(store.get(), &recorder, /*max_idle=*/64);
//   service.SetMessageAllocatorFor_Recommend(&allocator);   // before BuildAndStart
//
// Thread-safety: AllocateMessages() and Release() may run on any gRPC thread at once.
// The store, the recorder and the allocator must outlive the server.
#ifndef ARENA_GRPC_SERVER_STORE_MESSAGE_ALLOCATOR_H_
#define ARENA_GRPC_SERVER_STORE_MESSAGE_ALLOCATOR_H_

#include <mutex>
#include <vector>

#include <grpcpp/support/message_allocator.h>

#include "core/message_store.h"
#include "proto/reco.pb.h"
#include "server/phase_recorder.h"

namespace reco {

class StoreMessageAllocator;

class StoreMessageHolder final : public grpc::MessageHolder<v1::RecommendRequest, v1::RecommendResponse> {
 public:
  explicit StoreMessageHolder(StoreMessageAllocator* owner) : owner_(owner) {}

  // The handler calls this once it answered OK: the release phase is then recorded.
  void MarkAnswered() { answered_ = true; }
  // What AllocateMessages() cost (holder + store->Acquire()), on its thread.
  const PhaseSample& acquire_cost() const { return acquire_cost_; }

  void Release() override;

 private:
  friend class StoreMessageAllocator;
  void Take(MessageStore* store);

  StoreMessageAllocator* const owner_;
  MessageLease lease_;
  PhaseSample acquire_cost_;
  bool answered_ = false;
};

class StoreMessageAllocator final
    : public grpc::MessageAllocator<v1::RecommendRequest, v1::RecommendResponse> {
 public:
  // recorder may be null: then nothing is timed or counted.
  StoreMessageAllocator(MessageStore* store, PhaseRecorder* recorder, size_t max_idle);
  ~StoreMessageAllocator() override;

  grpc::MessageHolder<v1::RecommendRequest, v1::RecommendResponse>* AllocateMessages() override;

 private:
  friend class StoreMessageHolder;
  void ReturnHolder(StoreMessageHolder* holder);

  MessageStore* const store_;
  PhaseRecorder* const recorder_;
  const size_t max_idle_;
  std::mutex mu_;
  std::vector<StoreMessageHolder*> idle_;  // reserved up front: returning never allocates
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_STORE_MESSAGE_ALLOCATOR_H_
