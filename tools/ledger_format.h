// LedgerFormat: the two ways alloc_ledger prints a measured Ledger
// (core/allocation_ledger.h): a JSON document for scripts and a fixed-width table
// for terminals. Formatting only: nothing here measures, so core stays free of a
// JSON library.
//
// Example:
//   reco::LedgerOptions options;
//   options.modes = {reco::MemoryMode::kHeap};
//   reco::Ledger ledger =
//       reco::MeasureLedger(reco::LedgerRequest(10, reco::v1::TEXT_PROFILE_COMPACT), options);
//   std::fputs(reco::LedgerToTable(ledger).c_str(), stdout);
//   // One steady-state response: 10 items, compact text, N bytes serialized; ...
//   //
//   // mode        phase          allocs      frees        bytes
//   // heap        build               A          0            B
//   // heap        serialize           0          0            0
//   // heap        release             0          A            0
//   // (the counts: docs/benchmarks.md, "The allocation ledger")
//
// Thread-safety: pure functions of their argument.
#ifndef ARENA_GRPC_TOOLS_LEDGER_FORMAT_H_
#define ARENA_GRPC_TOOLS_LEDGER_FORMAT_H_

#include <string>

#include "core/allocation_ledger.h"
#include "core/message_ledger.h"

namespace reco {

// The JSON document `alloc_ledger --format=json` prints:
// {"items":200,"profile":"compact","serialized_bytes":N,"cycles":8,"malloc":"glibc",
//  "modes":{"heap":{"build":{"allocs":A,"frees":F,"bytes":B},"serialize":{...},
//  "release":{...}},...,"fragments":{...}}}
// Each row group is keyed by ModeLedger::name(): the modes' names and "fragments".
std::string LedgerToJson(const Ledger& ledger);

// A fixed-width table for terminals (`alloc_ledger`, the default --format=text): a
// heading line, then one row per mode and phase, the fragments path's rows last.
std::string LedgerToTable(const Ledger& ledger);

// `alloc_ledger --proto ... --message T --data_file F --format=json`:
// {"message":"feed.v1.FeedResponse","dynamic":true,"serialized_bytes":N,"cycles":8,
//  "malloc":"glibc","shape":{"strings":S,"long_strings":L,"small_string_bytes":15,
//  "sub_messages":M,"repeated_fields":R,"repeated_elements":E},
//  "modes":{"heap":{"build":{...},"serialize":{...},"release":{...}},...},
//  "dynamic_overhead":{"serialize":{"allocs":A,"frees":F},"reuse_build":{"allocs":A},
//  "reuse_release":{"allocs":A,"frees":F}}}   (dynamic_overhead only when dynamic)
std::string MessageLedgerToJson(const MessageLedger& ledger, const DynamicOverhead& overhead);

// The table: a heading with the shape, the rows, and for dynamic messages the lines
// saying what generated code would not count (DynamicOverhead).
std::string MessageLedgerToTable(const MessageLedger& ledger, const DynamicOverhead& overhead);

}  // namespace reco

#endif  // ARENA_GRPC_TOOLS_LEDGER_FORMAT_H_
