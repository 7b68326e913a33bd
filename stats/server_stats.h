// Server-side figures for any C++ gRPC server: one line at the grpc::ServerBuilder
// adds reco.v1.ServerStats/GetStats (proto/stats.proto), the service reco_load reads
// around each measured window, exactly as it reads reco_server's.
//
//   #include "server_stats.h"
//   grpc::ServerBuilder builder;
//   builder.AddListeningPort("127.0.0.1:50051", grpc::InsecureServerCredentials());
//   builder.RegisterService(&my_service);
//   reco::EnableServerStats(builder, "heap");   // the one line
//   std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
//   // reco_load --target 127.0.0.1:50051 ... now shows allocations, CPU and RSS per RPC
// and for Prometheus as well (GET http://127.0.0.1:9464/metrics):
//   reco::ServerStatsOptions options;
//   options.label = "heap";
//   options.metrics_listen = "127.0.0.1:9464";
//   grpc::Status metrics = reco::EnableServerStats(builder, options);   // check it
//
// What a snapshot holds (StatsSnapshot, source "reco_server_stats"): the label as
// `mode`; the RPCs the server answered in the window by final status (rpcs = OK,
// rpc_errors = any other, UNIMPLEMENTED for a method the server does not serve
// included; GetStats calls are not counted); every allocation of the
// process (the malloc family and operator new/delete are replaced by counting
// versions when the library is linked); CPU time, resident memory and its peak,
// glibc's heap (mallinfo2); the build phase when handlers use StatsBuildScope; the
// protobuf and gRPC versions. Totals cover a window that starts when the first
// server is enabled; GetStats(reset = true) starts a new one, but is refused
// PERMISSION_DENIED unless ServerStatsOptions::allow_reset is set (a reset restarts
// the window for every reader; reco_load subtracts two snapshots instead).
//
// Link (stats/README.md): this header plus ONE file, libreco_server_stats.so, which
// carries everything else (the stats service's generated code, the allocation
// counter, the process metrics). With CMake:
//   target_include_directories(my_server PRIVATE <repo>/stats)
//   target_link_libraries(my_server PRIVATE <build>/stats/libreco_server_stats.so gRPC::grpc++)
// or by hand:
//   g++ -std=c++17 my_server.cc -I<repo>/stats <build>/stats/libreco_server_stats.so
//       $(pkg-config --cflags --libs grpc++ protobuf) -Wl,-rpath,<build>/stats -o my_server
// (one line; the .so before the -l libraries, as everywhere here).
// The library must come before libc in the executable's symbol lookup order (it
// does when it is linked as above: libc comes last). An allocator given with
// LD_PRELOAD comes first and takes the calls, as does a malloc the program defines
// itself: then process_allocations is left unset, EnableServerStats says so on
// stderr ("allocations not counted: ...") and reco_load's report warns of it once;
// preload the stats library ahead of it to count again
// (LD_PRELOAD="<build>/stats/libreco_server_stats.so libtcmalloc_minimal.so.4").
// A server that cannot be rebuilt: libreco_server_stats_preload.so (README).
//
// Interceptors: EnableServerStats installs the RPC-counting interceptor with
// builder.experimental().SetInterceptorCreators(), which REPLACES the builder's list.
// A server with interceptors of its own calls EnableServerStats first, then
// SetInterceptorCreators with its vector holding NewServerStatsInterceptorFactory()
// once: the later call replaces EnableServerStats' list, so exactly one counting
// interceptor is active and each RPC is counted once. (Called the other way round,
// EnableServerStats would drop the server's own interceptors.)
//
// Memory: fixed-size state allocated once per process (the counters and the build
// phase's histograms); nothing is kept per call. Per RPC, the interceptor costs one
// allocation and one free (gRPC deletes interceptors when a call ends), counted in
// process_allocations like everything else; GetStats calls cost nothing there.
//
// Thread-safety: EnableServerStats and NewServerStatsInterceptorFactory before
// BuildAndStart, from the thread that owns the builder. StatsBuildScope on any thread.
// Several servers in one process share the process-wide figures and the counts.
#ifndef ARENA_GRPC_STATS_SERVER_STATS_H_
#define ARENA_GRPC_STATS_SERVER_STATS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <grpcpp/server_builder.h>
#include <grpcpp/support/server_interceptor.h>

namespace reco {

// A pool's counts, totals since it was made: what the patterns' pooled allocators
// keep (PooledArenaAllocator::stats(): allocated, released, arenas_created, unpooled,
// overflows). Given as ServerStatsOptions::pool, they become StatsSnapshot.store, and
// reco_load shows the leases that found the pool empty as a row of their own.
struct PoolCounts {
  uint64_t acquired = 0;   // leases handed out
  uint64_t released = 0;   // leases given back
  uint64_t created = 0;    // pooled objects made
  uint64_t unpooled = 0;   // leases given a plain, unpooled object: every pooled one was in use
  uint64_t overflows = 0;  // releases whose arena had outgrown its block (an arena pool's)
};

struct ServerStatsOptions {
  // Becomes StatsSnapshot.mode (e.g. "heap", "pooled_arena"); empty -> "service".
  std::string label;
  // Honour GetStatsRequest.reset; otherwise such a call is refused PERMISSION_DENIED.
  bool allow_reset = false;
  // HOST:PORT of an HTTP port serving GET /metrics in the Prometheus text format: the
  // same figures as GetStats, as totals since the window first started (a reset does
  // not lower them). Empty: none. One per process; it serves until the process exits.
  // Memory: two worker threads, requests of at most 16 KiB, 20 waiting connections.
  std::string metrics_listen;
  // The server's pool, read at every snapshot (from the stats service's threads: it
  // must be safe to call from any thread and outlive the server, and the process's
  // metrics endpoint when there is one). Empty: no store. The process has one: the
  // last EnableServerStats call's.
  //   options.pool = [&allocator] {
  //     const auto s = allocator.stats();   // patterns/pooled_arena_allocator.h
  //     return reco::PoolCounts{s.allocated, s.released, s.arenas_created, s.unpooled, s.overflows};
  //   };
  std::function<PoolCounts()> pool;
};

// Adds reco.v1.ServerStats (GetStats) to the builder and an interceptor that counts
// the server's RPCs (not the stats calls themselves), by final status OK / not OK.
// `label` becomes StatsSnapshot.mode (e.g. "heap" / "pooled_arena"); empty -> "service".
void EnableServerStats(grpc::ServerBuilder& builder, const std::string& label = "");
// With options: not OK only for options.metrics_listen -- INVALID_ARGUMENT for an
// address that is not HOST:PORT, UNAVAILABLE when it cannot be bound,
// FAILED_PRECONDITION when this process already serves metrics. The stats service
// and the interceptor are added either way.
grpc::Status EnableServerStats(grpc::ServerBuilder& builder, const ServerStatsOptions& options);

// For servers that set their own interceptors (SetInterceptorCreators replaces the
// list, EnableServerStats' interceptor included): put this in that vector, once,
// and call SetInterceptorCreators after EnableServerStats (see above).
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> NewServerStatsInterceptorFactory();

// Optional, one line in a handler: while alive, this thread's allocations and the
// elapsed time are attributed to the build phase (StatsSnapshot.build: allocations
// summed over the window, latency one sample per scope).
//
//   grpc::ServerUnaryReactor* GetFeed(grpc::CallbackServerContext* ctx,
//                                     const FeedRequest* req, FeedResponse* resp) override {
//     reco::StatsBuildScope build;   // from here to the end of the handler
//     ...fill resp...
//   }
//
// Only the constructing thread's allocations count: create and destroy it on the
// same thread, around work that stays on that thread.
class StatsBuildScope {
 public:
  StatsBuildScope();
  ~StatsBuildScope();
  StatsBuildScope(const StatsBuildScope&) = delete;
  StatsBuildScope& operator=(const StatsBuildScope&) = delete;

 private:
  uint64_t allocs_, frees_, bytes_;  // this thread's counts at construction
  std::chrono::steady_clock::time_point start_;
};

}  // namespace reco

#endif  // ARENA_GRPC_STATS_SERVER_STATS_H_
