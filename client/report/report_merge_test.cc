// The JSON round trip (RenderJson -> ParseReportJson) and MergeReports: a run split
// in two halves, each written to JSON, read back and merged, must equal the unsplit
// run exactly -- histograms bucket by bucket, counts, percentiles.
#include "client/report/report_merge.h"

#include "absl/strings/str_join.h"
#include "client/report/report_reader.h"
#include "client/report/report_renderers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace reco {
namespace {

constexpr int kTargets = 2;
constexpr int kRounds = 2;

// One process's share of a window: `half` 0 or 1 records different latencies, so a
// merge that averaged or dropped either half would show.
ClientFigures Half(int target, int round, int half) {
  ClientFigures c;
  c.seconds = 1.0 + 0.01 * half;  // the two processes' windows differ slightly
  c.client_cpu_seconds = 0.25 + half;
  const uint64_t n = 500 + 100 * half + 10 * round + target;
  c.sent = c.scheduled = n + 3;
  c.unsent = half;
  c.completed = n + 2;
  c.ok = n;
  c.response_bytes = n * 1000;
  c.errors_by_code[14] = 1 + half;  // UNAVAILABLE
  c.wrong_content = 1 - half;
  c.verified = n / 64;
  for (uint64_t i = 1; i <= n; ++i) {
    const uint64_t v = (half ? 7919 : 104729) * i + 1000 * target + round;  // ns, spread over many buckets
    c.latency.Record(v);
    c.latency_uncorrected.Record(v / 2 + half);
    c.schedule_lag.Record(i * (3 + half));
  }
  return c;
}

// A report of both targets and rounds holding `halves` (one half or both merged). Its
// measured windows are 1 s each, 2 s apart, starting `shift_ms` after a fixed time.
RunReport Report(const std::vector<int>& halves, const std::string& started, int64_t shift_ms = 0) {
  RunReport r;
  r.options.targets = {{"heap", "127.0.0.1:1"}, {"arena_pool", "127.0.0.1:2"}};
  r.options.rounds = kRounds;
  r.options.duration = absl::Seconds(1);
  r.options.rate = 1000;  // open loop: all three histograms are written
  r.options.threads = 2;
  r.environment = CurrentEnvironment("reco_load --target ...");
  r.environment.set_started_utc(started);
  r.warnings = {"a warning"};
  for (int t = 0; t < kTargets; ++t) {
    TargetResult tr;
    tr.spec = r.options.targets[t];
    for (int round = 1; round <= kRounds; ++round) {
      RoundResult rr;
      rr.round = round;
      rr.window_start_unix_ms = 1'764'583'200'000 + 2000 * (t * kRounds + round) + shift_ms;  // 2025-12-01 10:00 UTC
      rr.window_end_unix_ms = rr.window_start_unix_ms + 1000;
      for (size_t h = 0; h < halves.size(); ++h) {
        ClientFigures c = Half(t, round, halves[h]);
        const double seconds = std::max(rr.client.seconds, c.seconds);
        rr.client.Merge(c);
        rr.client.seconds = seconds;  // concurrent halves share the window
      }
      rr.server = UnavailableServerFigures("no stats");
      tr.client.Merge(rr.client);
      tr.rounds.push_back(rr);
    }
    tr.server = UnavailableServerFigures("no stats");
    r.targets.push_back(tr);
  }
  return r;
}

void ExpectSameHistogram(const LatencyHistogram& got, const LatencyHistogram& want, const std::string& what) {
  EXPECT_EQ(got.buckets(), want.buckets()) << what;
  EXPECT_EQ(got.count(), want.count()) << what;
  EXPECT_EQ(got.sum(), want.sum()) << what;
  EXPECT_EQ(got.min(), want.min()) << what;
  EXPECT_EQ(got.max(), want.max()) << what;
  for (double p : {50.0, 90.0, 99.0, 99.9}) EXPECT_EQ(got.Percentile(p), want.Percentile(p)) << what << " p" << p;
}

void ExpectSameClient(const ClientFigures& got, const ClientFigures& want, const std::string& what) {
  ExpectSameHistogram(got.latency, want.latency, what + " latency");
  ExpectSameHistogram(got.latency_uncorrected, want.latency_uncorrected, what + " latency_uncorrected");
  ExpectSameHistogram(got.schedule_lag, want.schedule_lag, what + " schedule_lag");
  EXPECT_EQ(got.ok, want.ok) << what;
  EXPECT_EQ(got.completed, want.completed) << what;
  EXPECT_EQ(got.sent, want.sent) << what;
  EXPECT_EQ(got.scheduled, want.scheduled) << what;
  EXPECT_EQ(got.unsent, want.unsent) << what;
  EXPECT_EQ(got.response_bytes, want.response_bytes) << what;
  EXPECT_EQ(got.errors_by_code, want.errors_by_code) << what;
  EXPECT_EQ(got.wrong_content, want.wrong_content) << what;
  EXPECT_EQ(got.verified, want.verified) << what;
  EXPECT_DOUBLE_EQ(got.seconds, want.seconds) << what;
  EXPECT_DOUBLE_EQ(got.client_cpu_seconds, want.client_cpu_seconds) << what;
}

RunReport RoundTrip(const RunReport& r) {
  absl::StatusOr<RunReport> back = ParseReportJson(RenderJson(r));
  EXPECT_TRUE(back.ok()) << back.status();
  return back.ok() ? *back : RunReport{};
}

TEST(ReportReader, ReadsBackTheClientSideExactly) {
  const RunReport r = Report({0, 1}, "2026-12-01T10:00:00Z");
  const RunReport back = RoundTrip(r);
  ASSERT_EQ(back.targets.size(), 2u);
  EXPECT_EQ(back.options.targets[1].address, "127.0.0.1:2");
  EXPECT_EQ(back.options.rounds, kRounds);
  EXPECT_DOUBLE_EQ(back.options.rate, 1000);
  EXPECT_EQ(back.environment.started_utc(), "2026-12-01T10:00:00Z");
  EXPECT_EQ(back.environment.client_poller(), r.environment.client_poller());
  EXPECT_FALSE(back.environment.client_poller().empty());
  EXPECT_EQ(back.environment.cpu_signature(), r.environment.cpu_signature());
  EXPECT_FALSE(back.environment.cpu_signature().empty()) << "the machines this runs on are x86";
  EXPECT_EQ(back.warnings, r.warnings);
  for (int t = 0; t < kTargets; ++t) {
    ExpectSameClient(back.targets[t].client, r.targets[t].client, "total");
    ASSERT_EQ(back.targets[t].rounds.size(), 2u);
    for (int k = 0; k < kRounds; ++k) {
      EXPECT_EQ(back.targets[t].rounds[k].round, k + 1);
      ExpectSameClient(back.targets[t].rounds[k].client, r.targets[t].rounds[k].client, "round");
    }
    EXPECT_FALSE(back.targets[t].server.available);
    EXPECT_EQ(back.targets[t].server.note, kServerNotReadBack);
  }
}

TEST(ReportMerge, TwoHalvesMergeIntoTheWholeRunExactly) {
  const RunReport whole = Report({0, 1}, "2026-12-01T10:00:00Z");
  const RunReport a = RoundTrip(Report({0}, "2026-12-01T10:00:00Z"));
  const RunReport b = RoundTrip(Report({1}, "2026-12-01T10:00:01Z", /*shift_ms=*/30));  // started 30 ms apart
  absl::StatusOr<RunReport> m = MergeReports({{"a.json", a}, {"b.json", b}}, "reco_load merge a.json b.json");
  ASSERT_TRUE(m.ok()) << m.status();
  for (int t = 0; t < kTargets; ++t) {
    ExpectSameClient(m->targets[t].client, whole.targets[t].client, "target total");
    for (int k = 0; k < kRounds; ++k)
      ExpectSameClient(m->targets[t].rounds[k].client, whole.targets[t].rounds[k].client, "round");
    // The window is not summed: QPS is all OK responses over the longer window.
    EXPECT_DOUBLE_EQ(m->targets[t].rounds[0].client.seconds, 1.01);
    EXPECT_DOUBLE_EQ(m->targets[t].rounds[0].client.qps(),
                     (a.targets[t].rounds[0].client.ok + b.targets[t].rounds[0].client.ok) / 1.01);
    EXPECT_FALSE(m->targets[t].server.available);
    // The merged window spans both inputs' (read back from JSON: the times survive it).
    EXPECT_EQ(m->targets[t].rounds[1].window_start_unix_ms, a.targets[t].rounds[1].window_start_unix_ms);
    EXPECT_EQ(m->targets[t].rounds[1].window_end_unix_ms, b.targets[t].rounds[1].window_end_unix_ms);
    EXPECT_EQ(b.targets[t].rounds[1].window_end_unix_ms - a.targets[t].rounds[1].window_end_unix_ms, 30);
  }
  EXPECT_THAT(m->environment.merged_from(), ::testing::ElementsAre("a.json", "b.json"));
  EXPECT_EQ(m->environment.started_utc(), "2026-12-01T10:00:00Z");
  EXPECT_EQ(m->environment.command_line(), "reco_load merge a.json b.json");
  EXPECT_DOUBLE_EQ(m->options.rate, 2000);
  EXPECT_EQ(m->options.threads, 4);
  // The merge's own warning first, then each input's, prefixed by its file.
  ASSERT_EQ(m->warnings.size(), 3u);
  EXPECT_NE(m->warnings[0].find("merged from 2 reports (a.json, b.json)"), std::string::npos) << m->warnings[0];
  EXPECT_EQ(m->warnings[1], "a.json: a warning");
  EXPECT_EQ(m->warnings[2], "b.json: a warning");

  // And the merged report survives its own JSON round trip (merges of merges).
  const RunReport again = RoundTrip(*m);
  ExpectSameClient(again.targets[1].client, whole.targets[1].client, "merged, read back");
  EXPECT_THAT(again.environment.merged_from(), ::testing::ElementsAreArray(m->environment.merged_from()));
}

TEST(ReportMerge, RefusesInputsOfDifferentRunsNamingTheFile) {
  const RunReport a = Report({0}, "t0");
  RunReport other_targets = Report({1}, "t1");
  other_targets.options.targets[1].name = "arena";
  RunReport other_rounds = Report({1}, "t1");
  other_rounds.options.rounds = 3;
  RunReport other_duration = Report({1}, "t1");
  other_duration.options.duration = absl::Seconds(2);
  RunReport other_items = Report({1}, "t1");
  other_items.options.items = 10;
  RunReport closed = Report({1}, "t1");
  closed.options.rate = 0;
  for (const auto& [bad, what] :
       {std::pair{other_targets, "targets differ (heap,arena here, heap,arena_pool there)"},
        std::pair{other_rounds, "rounds differ"}, std::pair{other_duration, "durations differ"},
        std::pair{other_items, "items differ"}, std::pair{closed, "loops differ"}}) {
    absl::StatusOr<RunReport> m = MergeReports({{"a.json", a}, {"b.json", bad}}, "merge");
    ASSERT_FALSE(m.ok()) << what;
    EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(m.status().message().find("b.json: cannot merge with a.json: "), std::string::npos) << m.status();
    EXPECT_NE(m.status().message().find(what), std::string::npos) << m.status();
  }
}

TEST(ReportMerge, RefusesWindowsThatDidNotRunAtTheSameTime) {
  const RunReport a = RoundTrip(Report({0}, "t0"));
  const RunReport later = RoundTrip(Report({1}, "t1", /*shift_ms=*/60'000));  // a minute after: one after the other
  absl::StatusOr<RunReport> m = MergeReports({{"a.json", a}, {"later.json", later}}, "merge");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(m.status().message().find("later.json: cannot merge with a.json: heap round 1 did not run at the same time "
                                      "(10:01:02.000-10:01:03.000 UTC here, 10:00:02.000-10:00:03.000 there)"),
            std::string::npos)
      << m.status();
}

TEST(ReportMerge, WarnsWhenWindowsOverlapLittle) {
  const RunReport a = RoundTrip(Report({0}, "t0"));
  const RunReport apart = RoundTrip(Report({1}, "t1", /*shift_ms=*/600));  // 40% of each window shared
  absl::StatusOr<RunReport> m = MergeReports({{"a.json", a}, {"apart.json", apart}}, "merge");
  ASSERT_TRUE(m.ok()) << m.status();
  bool warned = false;
  for (const std::string& w : m->warnings)
    warned |= w.find("overlapped only 40% of the shortest one") != std::string::npos;
  EXPECT_TRUE(warned) << absl::StrJoin(m->warnings, "\n");
  // Reports without window times (older reco_load) are merged unchecked.
  RunReport old_a = a, old_apart = RoundTrip(Report({1}, "t1", 60'000));
  for (RunReport* r : {&old_a, &old_apart}) {
    for (TargetResult& t : r->targets) {
      for (RoundResult& round : t.rounds) round.window_start_unix_ms = round.window_end_unix_ms = 0;
    }
  }
  EXPECT_TRUE(MergeReports({{"a.json", old_a}, {"b.json", old_apart}}, "merge").ok());
}

TEST(ReportMerge, RefusesTheSameRunTwice) {
  const RunReport a = RoundTrip(Report({0}, "t0"));
  absl::StatusOr<RunReport> m = MergeReports({{"a.json", a}, {"copy.json", a}}, "merge");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("copy.json: cannot merge with a.json: the same run twice"), std::string::npos)
      << m.status();
}

// A report of a newer reco_load, with keys this one does not know, still reads.
TEST(ReportReader, IgnoresKeysItDoesNotKnow) {
  const RunReport r = Report({0}, "t0");
  nlohmann::json newer = nlohmann::json::parse(RenderJson(r));
  newer["schema_notes"] = {{"added", "later"}};
  newer["targets"][0]["client"]["retried"] = 3;
  newer["targets"][0]["rounds"][1]["client"]["latency"]["p99_9_ns"] = 12345;
  absl::StatusOr<RunReport> back = ParseReportJson(newer.dump());
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameClient(back->targets[0].rounds[1].client, r.targets[0].rounds[1].client, "newer report");
}

TEST(ReportReader, RefusesWhatIsNotAMergeableReport) {
  EXPECT_NE(ParseReportJson("{not json").status().message().find("not valid JSON"), std::string::npos);
  EXPECT_NE(ParseReportJson(R"({"tool": "h2load"})").status().message().find("not a reco_load report"),
            std::string::npos);
  // A report written before the buckets existed.
  nlohmann::json old = nlohmann::json::parse(RenderJson(Report({0}, "t0")));
  old["targets"][0]["client"]["latency"].erase("buckets");
  absl::Status s = ParseReportJson(old.dump()).status();
  EXPECT_NE(s.message().find("targets[0] (heap).client.latency: no histogram buckets"), std::string::npos) << s;
  // Buckets that do not add up to the count (an edited or truncated file).
  nlohmann::json cut = nlohmann::json::parse(RenderJson(Report({0}, "t0")));
  cut["targets"][1]["rounds"][0]["client"]["schedule_lag"]["buckets"].erase(0);
  s = ParseReportJson(cut.dump()).status();
  EXPECT_NE(s.message().find("rounds[1].client.schedule_lag: buckets hold"), std::string::npos) << s;
  // A value of the wrong type.
  nlohmann::json mistyped = nlohmann::json::parse(RenderJson(Report({0}, "t0")));
  mistyped["targets"][0]["client"]["ok"] = "many";
  s = ParseReportJson(mistyped.dump()).status();
  EXPECT_NE(s.message().find("not valid JSON of a reco_load report: (targets[0].client.ok)"), std::string::npos) << s;

  absl::StatusOr<RunReport> missing = ReadReportFile("/nonexistent/r.json");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message().rfind("/nonexistent/r.json: ", 0), 0u) << missing.status();
}

}  // namespace
}  // namespace reco
