// Measures the ledger. See allocation_ledger.h.
#include "core/allocation_ledger.h"

#include <cstdio>
#include <cstdlib>

#include <grpcpp/support/byte_buffer.h>

#include "core/allocation_counter.h"
#include "core/fragment_reply.h"
#include "core/response_builder.h"

namespace reco {
namespace {

// The fragments path as FragmentsService::Recommend runs it by default (every item
// copied: the reply written once) once the request is parsed (the message modes'
// rows start from a parsed request too).
ModeLedger MeasureFragments(const Catalogue& catalogue, const v1::RecommendRequest& request,
                            const LedgerOptions& options, size_t* reply_bytes) {
  ModeLedger m;
  m.fragments = true;
  grpc::ByteBuffer response;  // empty at each call, as gRPC hands it to the raw handler
  for (int cycle = 0; cycle < options.warmup_responses + options.cycles; ++cycle) {
    const bool measured = cycle >= options.warmup_responses;
    AllocationCounts t0 = AllocationCounter::ThisThread();
    if (!WriteFragmentReply(catalogue, request, &response)) {
      std::fprintf(stderr, "MeasureFragments: the reply's size and bytes disagreed\n");
      std::abort();
    }
    AllocationCounts t1 = AllocationCounter::ThisThread();
    // No serialize phase: the written bytes are the reply, so it stays 0.
    *reply_bytes = response.Length();
    response.Clear();  // gRPC destroys the reply once written: the slice is unreferenced
    AllocationCounts t2 = AllocationCounter::ThisThread();
    if (measured) {
      m.build.Add(t1 - t0);
      m.release.Add(t2 - t1);
    }
  }
  m.Average(options.cycles);
  return m;
}

// A message mode's row group: `mode`'s store, the build copying (or aliasing) the
// catalogue's items, serialized into `buffer`, released.
ModeLedger MeasureMessages(MemoryMode mode, ItemData item_data, const Catalogue& catalogue,
                           const v1::RecommendRequest& request, const LedgerOptions& options, std::string* buffer,
                           size_t* reply_bytes) {
  std::unique_ptr<MessageStore> store = MakeMessageStore(mode, options.store);
  ModeLedger m;
  m.mode = mode;
  m.aliased = item_data == ItemData::kAliased;
  for (int cycle = 0; cycle < options.warmup_responses + options.cycles; ++cycle) {
    const bool measured = cycle >= options.warmup_responses;
    AllocationCounts t0 = AllocationCounter::ThisThread();
    MessageLease lease = store->Acquire();
    BuildResponse(catalogue, request, lease.response, item_data);
    AllocationCounts t1 = AllocationCounter::ThisThread();
    *reply_bytes = SerializeToBuffer(*lease.response, buffer);
    AllocationCounts t2 = AllocationCounter::ThisThread();
    store->Release(lease);
    AllocationCounts t3 = AllocationCounter::ThisThread();
    if (measured) {
      m.build.Add(t1 - t0);
      m.serialize.Add(t2 - t1);
      m.release.Add(t3 - t2);
    }
  }
  m.Average(options.cycles);
  return m;
}

}  // namespace

absl::string_view ModeLedger::name() const {
  if (fragments) return kFragmentsLedgerName;
  return aliased ? kArenaAliasLedgerName : MemoryModeName(mode);
}

const ModeLedger& Ledger::ForMode(MemoryMode mode) const {
  for (const ModeLedger& m : modes) {
    if (!m.fragments && !m.aliased && m.mode == mode) return m;
  }
  std::fprintf(stderr, "Ledger::ForMode: %s was not measured\n", std::string(MemoryModeName(mode)).c_str());
  std::abort();
}

const ModeLedger& Ledger::ArenaAlias() const {
  for (const ModeLedger& m : modes) {
    if (m.aliased) return m;
  }
  std::fprintf(stderr, "Ledger::ArenaAlias: arena_alias was not measured\n");
  std::abort();
}

const ModeLedger& Ledger::Fragments() const {
  for (const ModeLedger& m : modes) {
    if (m.fragments) return m;
  }
  std::fprintf(stderr, "Ledger::Fragments: the fragments path was not measured\n");
  std::abort();
}

Ledger MeasureLedger(const v1::RecommendRequest& request, const LedgerOptions& options) {
  Ledger ledger;
  ledger.items = EffectiveItemCount(request);
  ledger.profile = request.text_profile();
  ledger.cycles = options.cycles;
  std::string buffer;  // reused across responses, as a server's write buffer would be
  const std::shared_ptr<const Catalogue> catalogue = Catalogue::Shared(options.catalogue);

  for (MemoryMode mode : options.modes) {
    ledger.modes.push_back(
        MeasureMessages(mode, ItemData::kCopied, *catalogue, request, options, &buffer, &ledger.serialized_bytes));
  }
  if (options.arena_alias) {
    ledger.modes.push_back(MeasureMessages(MemoryMode::kArenaPool, ItemData::kAliased, *catalogue, request, options,
                                           &buffer, &ledger.serialized_bytes));
  }
  if (options.fragments) {
    ledger.modes.push_back(MeasureFragments(*catalogue, request, options, &ledger.serialized_bytes));
  }
  return ledger;
}

v1::RecommendRequest LedgerRequest(uint32_t items, v1::TextProfile profile) {
  v1::RecommendRequest request;
  request.set_user_id("ledger-user");
  request.set_item_count(items);
  request.set_text_profile(profile);
  request.set_seed(1);
  return request;
}

size_t SerializeToBuffer(const v1::RecommendResponse& response, std::string* buffer) {
  size_t size = response.ByteSizeLong();
  if (buffer->size() < size) buffer->resize(size);
  response.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(&(*buffer)[0]));
  return size;
}

}  // namespace reco
