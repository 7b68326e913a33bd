// BM_Fragments: the fragments path's whole reply (reco_server --mode=fragments,
// core/fragment_reply.h) into a grpc::ByteBuffer + the ByteBuffer cleared, as gRPC
// does once it has written it. Two ways of handing the bytes to gRPC:
//
//   reply:copied     the server's default (SplicedReply::kDefaultCopyFragmentsBelow,
//                    4 KiB): every catalogue item is shorter, so the reply is sized
//                    first and written once into one slice (WriteFragmentReply)
//   reply:zero_copy  copy_fragments_below = 0: SplicedReply::Clear() +
//                    BuildFragmentReply() + Finish(), every item referenced by a
//                    static slice of its own, 2n + 1 slices
//                    (--fragments_copy_below_bytes=0); what referencing saves, or
//                    costs, in the handler
//
//   BM_Fragments/items:200/profile:realistic/reply:copied
//
// over items 10, 50, 200, 1000 and both text profiles. One SplicedReply is reused
// across iterations, as the server's thread_local is; the ledger's warm-up (3
// replies) runs first, so the counters are steady-state ones and equal alloc_ledger's
// fragments row (build + serialize + release; bench_matches_ledger checks spliced).
//
// Counters, per iteration: allocs, frees, bytes_alloc (allocation_meter.h);
// slices: slices in the reply's ByteBuffer; referenced: those pointing at the
// catalogue. bytes_per_second counts the reply's bytes. Normal timer: nothing in the
// loop is setup.
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <grpcpp/support/byte_buffer.h>

#include "absl/strings/str_cat.h"
#include "bench/allocation_meter.h"
#include "bench/bench_case.h"
#include "bench/benchmark_families.h"
#include "core/catalogue.h"
#include "core/fragment_reply.h"
#include "patterns/spliced_reply.h"

namespace reco::bench {
namespace {

// The allocation ledger's warm-up (LedgerOptions::warmup_responses): buffers grow.
constexpr int kWarmupReplies = 3;

enum class ReplyKind { kCopied, kZeroCopy };

const char* ReplyKindName(ReplyKind kind) { return kind == ReplyKind::kCopied ? "copied" : "zero_copy"; }

// One reply, start to end; *response is empty before and after. `reply`: the
// zero-copy path's scratch.
void ReplyAndRelease(ReplyKind kind, const v1::RecommendRequest& request, patterns::SplicedReply* reply,
                     grpc::ByteBuffer* response) {
  if (kind == ReplyKind::kCopied) {
    WriteFragmentReply(DefaultCatalogue(), request, response);
  } else {
    reply->Clear();
    BuildFragmentReply(DefaultCatalogue(), request, reply);
    reply->Finish(response);
  }
  benchmark::DoNotOptimize(*response);
  response->Clear();
}

void Fragments(benchmark::State& state, uint32_t items, v1::TextProfile profile, ReplyKind kind) {
  const v1::RecommendRequest request = LedgerRequest(items, profile);
  patterns::SplicedReply reply(/*copy_fragments_below=*/0);
  grpc::ByteBuffer response;
  for (int i = 0; i < kWarmupReplies; ++i) ReplyAndRelease(kind, request, &reply, &response);

  // The reply's shape, read once outside the loop (Dump allocates).
  if (kind == ReplyKind::kCopied) {
    WriteFragmentReply(DefaultCatalogue(), request, &response);
  } else {
    reply.Clear();
    BuildFragmentReply(DefaultCatalogue(), request, &reply);
    reply.Finish(&response);
  }
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) {
    state.SkipWithError("the reply's ByteBuffer could not be read");
    return;
  }
  const size_t reply_bytes = response.Length();
  const size_t referenced = kind == ReplyKind::kCopied ? 0 : reply.referenced_fragments();
  response.Clear();

  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    ReplyAndRelease(kind, request, &reply, &response);
    meter.Stop();
  }
  meter.Report(state);
  state.counters["slices"] = benchmark::Counter(static_cast<double>(slices.size()));
  state.counters["referenced"] = benchmark::Counter(static_cast<double>(referenced));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * reply_bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * items));
}

}  // namespace

void RegisterFragmentBenchmarks() {
  for (uint32_t items : GridItemCounts()) {
    for (v1::TextProfile profile : GridProfiles()) {
      for (ReplyKind kind : {ReplyKind::kCopied, ReplyKind::kZeroCopy}) {
        const std::string name =
            absl::StrCat("BM_Fragments/items:", items, "/", ProfileLabel(profile), "/reply:", ReplyKindName(kind));
        benchmark::RegisterBenchmark(name.c_str(), [items, profile, kind](benchmark::State& state) {
          Fragments(state, items, profile, kind);
        })->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

}  // namespace reco::bench
