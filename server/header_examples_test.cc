// The examples in the server's headers, compiled (and run where they can be) so that
// an example cannot drift from the API it shows. Each block below is the header's
// example line for line, inside what it needs around it; a header whose example
// changes changes here too.
#include <memory>
#include <utility>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include "absl/status/status.h"
#include "core/catalogue.h"
#include "core/message_store.h"
#include "server/handler_steps.h"
#include "server/memory_trimmer.h"
#include "server/phase_recorder.h"
#include "server/prometheus_metrics.h"
#include "server/reco_server.h"
#include "server/recommender_service.h"
#include "server/reply_budget.h"
#include "server/rpc_meter.h"
#include "server/stats_snapshotter.h"

namespace {

using Interceptors = std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>;

std::shared_ptr<const reco::Catalogue> SmallCatalogue() {
  reco::CatalogueOptions options;
  options.items_per_profile = 100;  // what the examples do with it does not depend on its size
  return reco::Catalogue::Shared(options);
}

// reco_server.h, as a function returning a status.
absl::Status RecoServerExample() {
  reco::ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.mode = reco::ServingMode::kArena;
  auto server = reco::RecoServer::Start(options);
  if (!server.ok()) return server.status();
  int port = (*server)->port();
  EXPECT_GT(port, 0);  // ...send RPCs to 127.0.0.1:port...
  reco::v1::StatsSnapshot stats = (*server)->Stats(/*reset=*/false);
  EXPECT_EQ(stats.mode(), "arena");
  (*server)->Shutdown(absl::Seconds(5));
  return absl::OkStatus();
}

TEST(HeaderExamplesTest, RecoServer) {
  absl::Status status = RecoServerExample();
  EXPECT_TRUE(status.ok()) << status;
}

TEST(HeaderExamplesTest, RpcMeterWiring) {
  std::shared_ptr<const reco::Catalogue> catalogue = SmallCatalogue();
  std::unique_ptr<reco::MessageStore> store = reco::MakeMessageStore(reco::MemoryMode::kArenaPool, {});
  Interceptors interceptors;
  // rpc_meter.h:
  reco::RpcMeter meter(/*measure_phases=*/true, /*max_idle_holders=*/64);
  reco::RecommenderService service(catalogue.get(), meter.Wrap(store->allocator()), &meter,
                                   /*reservations=*/nullptr, /*check_every_items=*/16);
  if (auto timer = meter.NewSerializeTimer()) interceptors.push_back(std::move(timer));

  EXPECT_TRUE(meter.wraps_allocator());
  EXPECT_EQ(interceptors.size(), 1u);
}

// rpc_meter.h's handler lines, with what they need around them: compiled, not run
// (a CallbackServerContext exists only inside a call; RecommenderService runs them).
[[maybe_unused]] grpc::Status MeasuredHandlerExample(reco::RpcMeter* meter_, reco::CallReservations* reservations_,
                                                     grpc::CallbackServerContext* context,
                                                     const reco::v1::RecommendRequest* request) {
  grpc::Status status = reco::Admit(reservations_, context, *request);  // validate, reserve
  reco::MeasuredBuild measured(meter_, context);
  // ...build, giving `status`...
  measured.Finish(status);  // before reactor->Finish(status)
  return status;
}

TEST(HeaderExamplesTest, RecommenderService) {
  std::shared_ptr<const reco::Catalogue> catalogue = SmallCatalogue();
  std::unique_ptr<reco::MessageStore> store = reco::MakeMessageStore(reco::MemoryMode::kReuse, {});
  reco::CallReservations* reservations = nullptr;
  grpc::ServerBuilder builder;
  // recommender_service.h:
  reco::RpcMeter meter(/*measure_phases=*/true, 64);
  reco::RecommenderService service(catalogue.get(), meter.Wrap(store->allocator()), &meter,
                                   reservations /*null: no budget*/, /*check_every_items=*/16);
  builder.RegisterService(&service);

  EXPECT_TRUE(meter.wraps_allocator());
}

TEST(HeaderExamplesTest, StatsSnapshotter) {
  std::shared_ptr<const reco::Catalogue> catalogue = SmallCatalogue();
  std::unique_ptr<reco::MessageStore> store = reco::MakeMessageStore(reco::MemoryMode::kArenaPool, {});
  reco::PhaseRecorder recorder;
  reco::ReplyBudget budget(/*capacity_bytes=*/1 << 20, /*max_reply_bytes=*/1 << 20);
  reco::MemoryTrimmer trimmer(reco::TrimOptions{}, reco::AllocationCounter::MallocName());
  // stats_snapshotter.h:
  reco::StatsSnapshotter snapshotter(
      "arena_pool", {&recorder, store.get(), &budget, /*reservations=*/nullptr, &trimmer, catalogue.get()});
  reco::v1::StatsSnapshot s = snapshotter.Snapshot(/*reset=*/true);

  EXPECT_EQ(s.rpcs(), 0u);  // Recommend RPCs answered OK since the window started
  EXPECT_EQ(s.mode(), "arena_pool");
  EXPECT_TRUE(s.has_store());
  EXPECT_EQ(s.catalogue().items_per_profile(), 100u);

  // prometheus_metrics.h:
  std::vector<prometheus::MetricFamily> families = reco::PrometheusMetrics(snapshotter.SinceStart());
  std::string text = prometheus::TextSerializer().Serialize(families);  // the text a scrape returns
  EXPECT_NE(text.find("reco_rpcs_total{mode=\"arena_pool\",code=\"OK\"} 0"), std::string::npos) << text;
}

}  // namespace
