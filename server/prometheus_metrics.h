// PrometheusMetrics: a reco.v1.StatsSnapshot taken since the server started
// (StatsSnapshotter::SinceStart, ServiceStats::SinceStart) as Prometheus metric
// families -- the same figures GetStats reports, so the two cannot disagree.
//
// Every series carries one label, mode (the snapshot's mode); a few add one more
// from a fixed set: code (a gRPC status name, only those seen), phase (build,
// serialize, release), state (in_use, idle). No label comes from a request, so the
// number of series is bounded whatever the clients send.
//
//   reco_rpcs_total{code}                      calls by final status
//   reco_phase_seconds{phase}                  histogram: each call's phase time
//   reco_phase_allocations{phase}              histogram: each call's allocation calls in the phase
//   reco_phase_allocated_bytes_total{phase}    bytes those calls asked for
//   reco_process_allocations_total, reco_process_frees_total, reco_process_allocated_bytes_total
//                                              every allocation of the process (counting malloc only)
//   process_cpu_seconds_total, process_resident_memory_bytes
//   reco_malloc_free_bytes, reco_malloc_in_use_bytes, reco_malloc_system_bytes   (glibc only)
//   reco_store_leases{state}, reco_store_leases_acquired_total, _created_total, _unpooled_total,
//   reco_store_oversized_total, reco_arena_space_allocated_bytes_total,
//   reco_arena_space_used_bytes_total, reco_arena_overflows_total, reco_arena_grown_total,
//   reco_arena_block_bytes                                                    (modes with a store)
//   reco_reply_budget_capacity_bytes, reco_reply_budget_in_use_bytes, reco_reply_budget_admitted_total,
//   reco_reply_budget_refused_total, reco_reply_budget_cancelled_held_total  (with a reply budget)
//   reco_malloc_trims_total, reco_malloc_trim_seconds_total, reco_malloc_trim_returned_bytes_total
//   reco_server_info{malloc, source, grpc_version, protobuf_version}   always 1
//
// Histogram buckets are read from the snapshot's log-linear buckets: a bucket whose
// low edge is at or below a bound counts under it, so each cumulative count is exact
// to that layout's resolution (values within 1% above a bound may count under it);
// _count and _sum are exact.
//
// Example (compiled in server/header_examples_test.cc):
//   std::vector<prometheus::MetricFamily> families = reco::PrometheusMetrics(snapshotter.SinceStart());
//   prometheus::TextSerializer().Serialize(families)   // the text a scrape returns
//
// Thread-safety: a pure function.
#ifndef ARENA_GRPC_SERVER_PROMETHEUS_METRICS_H_
#define ARENA_GRPC_SERVER_PROMETHEUS_METRICS_H_

#include <vector>

#include <prometheus/metric_family.h>

#include "proto/stats.pb.h"

namespace reco {

std::vector<prometheus::MetricFamily> PrometheusMetrics(const v1::StatsSnapshot& since_start);

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_PROMETHEUS_METRICS_H_
