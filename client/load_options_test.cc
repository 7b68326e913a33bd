#include "client/load_options.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <thread>

#include "absl/strings/str_cat.h"

#include "core/test_util.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

LoadOptions Valid() {
  LoadOptions o;
  o.targets = {{"heap", "127.0.0.1:5000"}};
  return o;
}

TEST(ParseTargetSpec, AcceptsNameEqualsHostPort) {
  absl::StatusOr<TargetSpec> t = ParseTargetSpec("arena_pool=127.0.0.1:50051");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name, "arena_pool");
  EXPECT_EQ(t->address, "127.0.0.1:50051");
}

TEST(ParseTargetSpec, ABareAddressIsNamedAfterItself) {
  absl::StatusOr<std::vector<TargetSpec>> t =
      ParseTargetFlags({"127.0.0.1:50051", "[::1]:7", "dns:///reco.example:80", "heap=127.0.0.1:50052"});
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 4u);
  EXPECT_EQ((*t)[0].name, "127.0.0.1_50051");
  EXPECT_EQ((*t)[0].address, "127.0.0.1:50051");
  EXPECT_EQ((*t)[1].name, "___1__7");
  EXPECT_EQ((*t)[2].name, "reco.example_80");
  EXPECT_EQ((*t)[2].address, "dns:///reco.example:80");
  EXPECT_EQ((*t)[3].name, "heap");
}

// gRPC's local sockets, as ghz takes them: unix:PATH and unix-abstract:NAME.
TEST(ParseTargetSpec, AUnixSocketIsATarget) {
  absl::StatusOr<TargetSpec> t = ParseTargetSpec("local=unix:/run/app/grpc.sock");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name, "local");
  EXPECT_EQ(t->address, "unix:/run/app/grpc.sock");
  t = ParseTargetSpec("unix-abstract:app");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name, "unix-abstract_app");
  EXPECT_EQ(ParseTargetSpec("x=unix:").status().message(), "--target 'x=unix:': unix: needs a path");
}

TEST(ParseTargetSpec, RefusesMalformedValuesNamingTheFlag) {
  for (const char* bad : {"127.0.0.1", "127.0.0.1:0", "=127.0.0.1:1", "heap=127.0.0.1", "heap=127.0.0.1:0",
                          "heap=127.0.0.1:70000", "heap=host:port", "he ap=127.0.0.1:1", "heap=:5",
                          // SimpleAtoi reads these as 80: a port is digits only
                          "heap=127.0.0.1:+80", "heap=127.0.0.1: 80", "heap=127.0.0.1:80 ", "heap=127.0.0.1:-1",
                          "heap=127.0.0.1:000080"}) {
    absl::StatusOr<TargetSpec> t = ParseTargetSpec(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(t.status().message().find("--target"), std::string::npos) << t.status();
  }
}

TEST(ParseTargetFlags, RepeatedNamesAreOneTargetWithSeveralBackends) {
  absl::StatusOr<std::vector<TargetSpec>> t = ParseTargetFlags(
      {"arena_pool=127.0.0.1:5001", "heap=127.0.0.1:6000", "arena_pool=127.0.0.1:5002", "arena_pool=127.0.0.1:5003"});
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].name, "arena_pool");
  EXPECT_EQ((*t)[0].Backends(), (std::vector<std::string>{"127.0.0.1:5001", "127.0.0.1:5002", "127.0.0.1:5003"}));
  EXPECT_EQ(GrpcTargetOf((*t)[0]), "ipv4:127.0.0.1:5001,127.0.0.1:5002,127.0.0.1:5003");
  EXPECT_EQ((*t)[1].name, "heap");
  EXPECT_EQ((*t)[1].Backends(), std::vector<std::string>{"127.0.0.1:6000"});
  EXPECT_EQ(GrpcTargetOf((*t)[1]), "127.0.0.1:6000") << "a single backend is dialled exactly as before";
}

TEST(ParseTargetFlags, IPv6ListsAndDnsTargets) {
  absl::StatusOr<std::vector<TargetSpec>> t =
      ParseTargetFlags({"a=[::1]:5001", "a=[::1]:5002", "b=dns:///reco.example:50051", "c=localhost:7"});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(GrpcTargetOf((*t)[0]), "ipv6:[::1]:5001,[::1]:5002");
  EXPECT_TRUE((*t)[1].IsDns());
  EXPECT_EQ(GrpcTargetOf((*t)[1]), "dns:///reco.example:50051");
  EXPECT_EQ((*t)[1].Backends(), std::vector<std::string>{"dns:///reco.example:50051"});
  EXPECT_FALSE((*t)[2].IsDns());
}

TEST(ParseTargetFlags, RefusesBadGroupsNamingTheFlag) {
  const std::vector<std::vector<std::string>> bad = {
      {"a=127.0.0.1:1", "a=127.0.0.1:1"},    // the same backend twice
      {"a=dns:///svc:80", "a=127.0.0.1:1"},  // dns:/// among others
      {"a=127.0.0.1:1", "a=dns:///svc:80"},  // ... in either order
      {"a=127.0.0.1:1", "a=localhost:2"},    // a host name in an ipv4: list
      {"a=127.0.0.1:1", "a=[::1]:2"},        // two families
      {"a=dns://8.8.8.8/svc:80"},            // a DNS authority
      {"a=dns:///svc"},                      // no port
      {"a=127.0.0.1:1", "b=127.0.0.1"},      // a bad value later on
  };
  for (const auto& values : bad) {
    absl::StatusOr<std::vector<TargetSpec>> t = ParseTargetFlags(values);
    ASSERT_FALSE(t.ok()) << values.back();
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(t.status().message().substr(0, 8), "--target") << t.status();
  }
}

TEST(LbServiceConfigJson, SelectsThePolicy) {
  EXPECT_EQ(LbServiceConfigJson("round_robin"), R"({"loadBalancingConfig":[{"round_robin":{}}]})");
  EXPECT_EQ(LbServiceConfigJson("pick_first"), R"({"loadBalancingConfig":[{"pick_first":{}}]})");
}

TEST(ValidateLoadOptions, AcceptsTheDefaults) { EXPECT_TRUE(ValidateLoadOptions(Valid()).ok()); }

TEST(ValidateLoadOptions, AcceptsBothLbPolicies) {
  LoadOptions o = Valid();
  for (const char* policy : {"round_robin", "pick_first"}) {
    o.lb_policy = policy;
    EXPECT_TRUE(ValidateLoadOptions(o).ok()) << policy;
  }
}

TEST(ValidateLoadOptions, NamesTheBadFlag) {
  struct Case {
    const char* flag;
    void (*spoil)(LoadOptions*);
  };
  const Case cases[] = {
      {"--target", [](LoadOptions* o) { o->targets.clear(); }},
      {"--target", [](LoadOptions* o) { o->targets.push_back(o->targets[0]); }},
      {"--duration", [](LoadOptions* o) { o->duration = absl::ZeroDuration(); }},
      {"--duration", [](LoadOptions* o) { o->duration = absl::Seconds(-1); }},
      {"--warmup", [](LoadOptions* o) { o->warmup = absl::Seconds(-1); }},
      {"--align_start", [](LoadOptions* o) { o->align_start = absl::Seconds(-1); }},
      {"--align_start", [](LoadOptions* o) { o->align_start = absl::Hours(2); }},
      {"--rounds", [](LoadOptions* o) { o->rounds = 0; }},
      {"--concurrency", [](LoadOptions* o) { o->concurrency = 0; }},
      {"--connections", [](LoadOptions* o) { o->connections = 0; }},
      {"--lookahead_bytes", [](LoadOptions* o) { o->lookahead_bytes = -1; }},
      {"--max_receive_message_bytes", [](LoadOptions* o) { o->max_receive_message_bytes = 4095; }},
      {"--lb_policy", [](LoadOptions* o) { o->lb_policy = "grpclb"; }},
      {"--lb_policy", [](LoadOptions* o) { o->lb_policy = ""; }},
      {"--threads", [](LoadOptions* o) { o->threads = -1; }},
      {"--rate", [](LoadOptions* o) { o->rate = -5; }},
      {"--items", [](LoadOptions* o) { o->items = 10001; }},
      {"--variants", [](LoadOptions* o) { o->variants = 0; }},
      {"--verify_every", [](LoadOptions* o) { o->verify_every = 0; }},
      {"--max_error_rate", [](LoadOptions* o) { o->max_error_rate = 2; }},
  };
  for (const Case& c : cases) {
    LoadOptions o = Valid();
    c.spoil(&o);
    absl::Status s = ValidateLoadOptions(o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.flag;
    EXPECT_EQ(s.message().substr(0, std::string(c.flag).size()), c.flag) << s;
  }
}

TEST(NextAlignedStart, IsTheNextMultipleOfThePeriodOnTheWallClock) {
  const absl::Time noon = absl::FromUnixSeconds(1'764'590'400);  // 2025-12-01 12:00:00 UTC
  EXPECT_EQ(NextAlignedStart(noon + absl::Milliseconds(7200), absl::Seconds(30)), noon + absl::Seconds(30));
  EXPECT_EQ(NextAlignedStart(noon + absl::Milliseconds(29999), absl::Seconds(30)), noon + absl::Seconds(30));
  // Exactly on a boundary: the next one, never a start in the past.
  EXPECT_EQ(NextAlignedStart(noon, absl::Seconds(30)), noon + absl::Seconds(30));
  EXPECT_EQ(NextAlignedStart(noon + absl::Seconds(61), absl::Minutes(1)), noon + absl::Minutes(2));
  // Two processes a second apart inside one period meet at the same start.
  EXPECT_EQ(NextAlignedStart(noon + absl::Seconds(3), absl::Seconds(10)),
            NextAlignedStart(noon + absl::Seconds(4), absl::Seconds(10)));
  EXPECT_EQ(NextAlignedStart(noon + absl::Seconds(3), absl::ZeroDuration()), noon + absl::Seconds(3));
}

TEST(ParseDurationFlag, TakesSecondsOrUnits) {
  EXPECT_EQ(*ParseDurationFlag("--duration", "5"), absl::Seconds(5));
  EXPECT_EQ(*ParseDurationFlag("--duration", "2.5"), absl::Milliseconds(2500));
  EXPECT_EQ(*ParseDurationFlag("--duration", "500ms"), absl::Milliseconds(500));
  for (const char* bad : {"soon", "nan", "NaN", "-nan"}) {
    absl::StatusOr<absl::Duration> d = ParseDurationFlag("--warmup", bad);
    ASSERT_FALSE(d.ok()) << bad << " parsed as " << *d;
    EXPECT_EQ(d.status().message().rfind("--warmup '", 0), 0u) << d.status();
  }
  // Parsed, and left to ValidateLoadOptions's ranges (TimesAndRateHaveRanges).
  for (const char* huge : {"inf", "1e300", "99999999999999999999"}) {
    EXPECT_EQ(*ParseDurationFlag("--duration", huge), absl::InfiniteDuration()) << huge;
  }
}

TEST(ParseRateFlag, AbsentIsClosedLoopAndOutOfRangeIsRefused) {
  EXPECT_EQ(*ParseRateFlag(""), 0.0);
  EXPECT_EQ(*ParseRateFlag("1500"), 1500.0);
  EXPECT_EQ(*ParseRateFlag("0.001"), 0.001);
  for (const char* bad : {"0", "-3", "fast", "1e-11", "0.0009", "1e8", "inf", "nan"}) {
    absl::StatusOr<double> r = ParseRateFlag(bad);
    ASSERT_FALSE(r.ok()) << bad;
    // What it takes, not "0 or absent" when 0 is refused.
    EXPECT_EQ(r.status().message(),
              absl::StrCat("--rate must be from 0.001 to 10000000 requests per second (leave it out for a closed "
                           "loop), got '",
                           bad, "'"));
  }
}

// The ranges of the flags that are times: a window of 10ms to 24h (1ns reported a QPS
// of 1e9; inf and 1e300 seconds ran forever), a warm-up of up to 24h, a wait for one
// answer of up to 1h; --rate from 0.001/s (1e-11 made the interval between calls
// infinite). Each bound is taken, one step past it refused naming the flag.
TEST(ValidateLoadOptions, TimesAndRateHaveRanges) {
  const std::pair<std::function<void(LoadOptions*)>, const char*> good[] = {
      {[](LoadOptions* o) { o->duration = absl::Milliseconds(10); }, "--duration 10ms"},
      {[](LoadOptions* o) { o->duration = absl::Hours(24); }, "--duration 24h"},
      {[](LoadOptions* o) { o->warmup = absl::Hours(24); }, "--warmup 24h"},
      {[](LoadOptions* o) { o->rpc_deadline = absl::Hours(1); }, "--timeout 1h"},
      {[](LoadOptions* o) { o->probe_deadline = absl::Hours(1); }, "--probe_deadline 1h"},
      {[](LoadOptions* o) { o->rate = 0.001; }, "--rate 0.001"},
      {[](LoadOptions* o) { o->rate = 1e7; }, "--rate 1e7"},
  };
  for (const auto& [mutate, what] : good) {
    LoadOptions o = Valid();
    mutate(&o);
    EXPECT_TRUE(ValidateLoadOptions(o).ok()) << what << ": " << ValidateLoadOptions(o);
  }
  const std::pair<std::function<void(LoadOptions*)>, const char*> bad[] = {
      {[](LoadOptions* o) { o->duration = absl::Nanoseconds(1); }, "--duration must be from 10ms to 24h, got 1ns"},
      {[](LoadOptions* o) { o->duration = absl::Milliseconds(9); }, "--duration must be from 10ms to 24h, got 9ms"},
      {[](LoadOptions* o) { o->duration = absl::Hours(24) + absl::Nanoseconds(1); }, "--duration"},
      {[](LoadOptions* o) { o->duration = absl::InfiniteDuration(); }, "--duration must be from 10ms to 24h, got inf"},
      {[](LoadOptions* o) { o->warmup = absl::Hours(25); }, "--warmup must be from 0 to 24h, got 25h"},
      {[](LoadOptions* o) { o->warmup = absl::InfiniteDuration(); }, "--warmup"},
      {[](LoadOptions* o) { o->rpc_deadline = absl::Hours(1) + absl::Seconds(1); },
       "--timeout must be positive and at most 1h, got 1h1s"},
      {[](LoadOptions* o) { o->rpc_deadline = absl::InfiniteDuration(); }, "--timeout"},
      {[](LoadOptions* o) { o->probe_deadline = absl::InfiniteDuration(); },
       "--probe_deadline must be positive and at most 1h"},
      {[](LoadOptions* o) { o->probe_deadline = absl::ZeroDuration(); }, "--probe_deadline"},
      {[](LoadOptions* o) { o->rate = 1e-11; }, "--rate must be from 0.001 to 10000000 requests per second"},
      {[](LoadOptions* o) { o->rate = 0.0009; }, "--rate"},
      {[](LoadOptions* o) { o->rate = std::numeric_limits<double>::quiet_NaN(); }, "--rate"},
      {[](LoadOptions* o) { o->rate = std::numeric_limits<double>::infinity(); }, "--rate"},
  };
  for (const auto& [mutate, flag] : bad) {
    LoadOptions o = Valid();
    mutate(&o);
    absl::Status s = ValidateLoadOptions(o);
    ASSERT_FALSE(s.ok()) << flag;
    EXPECT_EQ(s.message().rfind(flag, 0), 0u) << s;
  }
}

TEST(ResolvedThreads, ZeroMeansOnePerConnectionCappedByCpusAndSlots) {
  LoadOptions o;
  o.threads = 3;
  EXPECT_EQ(ResolvedThreads(o), 3);
  o.concurrency = 2;
  EXPECT_EQ(ResolvedThreads(o), 2) << "a thread without a slot would idle";
  o = LoadOptions();
  o.threads = 0;
  o.connections = 1;
  EXPECT_EQ(ResolvedThreads(o), 1);
  o.connections = 1000;
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(ResolvedThreads(o), std::min(cpus, o.concurrency));
}

TEST(CollectTargetFlags, GathersEveryOccurrenceAndCommaLists) {
  std::vector<std::string> args = {"reco_load", "--target", "a=h:1", "--duration=2", "--target=b=h:2,c=h:3",
                                   "-target",   "d=h:4",    "--",    "--target",     "e=h:5"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  EXPECT_EQ(CollectTargetFlags(static_cast<int>(argv.size()), argv.data()),
            (std::vector<std::string>{"a=h:1", "b=h:2", "c=h:3", "d=h:4"}));
}

TEST(CollectTargetFlags, ReadsThemFromFlagfilesInPlace) {
  const std::string folder = testing::FreshTestFolder();
  testing::WriteTestFile(folder + "/nested", "--target=c=h:3\n");
  testing::WriteTestFile(folder + "/run.flags",
                         "# the targets\n--target=a=h:1\n\n  --rounds=2\n--flagfile=" + folder + "/nested\n");
  std::vector<std::string> args = {"reco_load",
                                   "--flagfile",
                                   folder + "/run.flags",
                                   "--target=d=h:4",
                                   "--flagfile=" + folder + "/missing",
                                   "-flagfile=" + folder + "/nested"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  EXPECT_EQ(CollectTargetFlags(static_cast<int>(argv.size()), argv.data()),
            (std::vector<std::string>{"a=h:1", "c=h:3", "d=h:4", "c=h:3"}));
}

TEST(CollectRepeatedFlag, KeepsCommasWhenAskedTo) {
  std::vector<std::string> args = {"reco_load", "--metadata", "a=1,2", "--metadata=b=x", "--call", "p.S/M"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  EXPECT_EQ(CollectRepeatedFlag(static_cast<int>(argv.size()), argv.data(), "metadata", false),
            (std::vector<std::string>{"a=1,2", "b=x"}));
}

TEST(ParseMetadataFlag, SplitsAtTheFirstEqualsAndLowersTheKey) {
  absl::StatusOr<std::pair<std::string, std::string>> m = ParseMetadataFlag("Authorization=Bearer a=b");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->first, "authorization");
  EXPECT_EQ(m->second, "Bearer a=b");
  m = ParseMetadataFlag("trace-bin=\x01\x02");
  EXPECT_TRUE(m.ok()) << m.status();
}

TEST(ParseMetadataFlag, RefusesWhatGrpcWouldRefuseNamingTheFlag) {
  for (const char* bad : {"novalue", "=v", "a key=v", "grpc-timeout=1S", "k=\t", "k\x01=v"}) {
    absl::StatusOr<std::pair<std::string, std::string>> m = ParseMetadataFlag(bad);
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_EQ(m.status().message().rfind("--metadata", 0), 0u) << m.status();
  }
}

TEST(ValidateLoadOptions, TotalTimeoutAndClientCertificateNameTheirFlags) {
  const std::pair<std::function<void(LoadOptions*)>, const char*> cases[] = {
      {[](LoadOptions* o) { o->total = -1; }, "--total"},
      {[](LoadOptions* o) { o->total = 2'000'000'000; }, "--total"},
      {[](LoadOptions* o) { o->total = 100'000'000, o->rate = 1; }, "--total"},
      {[](LoadOptions* o) { o->rpc_deadline = absl::ZeroDuration(); }, "--timeout"},
      {[](LoadOptions* o) { o->tls_ca_pem = "ca", o->tls_cert_pem = "c"; }, "--tls_cert needs --tls_key"},
      {[](LoadOptions* o) { o->tls_ca_pem = "ca", o->tls_key_pem = "k"; }, "--tls_key needs --tls_cert"},
      {[](LoadOptions* o) { o->tls_cert_pem = "c", o->tls_key_pem = "k"; }, "--tls_cert needs --tls_ca"},
      {[](LoadOptions* o) { o->call.method = "/p.S/M"; }, "--call"},
  };
  for (const auto& [mutate, flag] : cases) {
    LoadOptions o = Valid();
    mutate(&o);
    absl::Status s = ValidateLoadOptions(o);
    ASSERT_FALSE(s.ok()) << flag;
    EXPECT_EQ(s.message().rfind(flag, 0), 0u) << s;
  }
  LoadOptions o = Valid();
  o.total = 1000;
  o.tls_ca_pem = "ca", o.tls_cert_pem = "c", o.tls_key_pem = "k";
  EXPECT_TRUE(ValidateLoadOptions(o).ok());
  EXPECT_TRUE(o.counted());
  o.rate = 100;
  EXPECT_FALSE(o.counted());  // with --rate, --total sets the window's length
}

TEST(DescribeWorkload, SaysWhatEachCallSends) {
  LoadOptions o = Valid();
  EXPECT_EQ(DescribeWorkload(o), "200 items, realistic text");
  EXPECT_EQ(DescribeWindow(o), "5s measured");
  o.call = {"/inbox.v1.Inbox/ListThreads", "inbox.v1.ListThreadsRequest", "inbox.v1.ThreadPage", {"a", "b"}};
  o.total = 500;
  EXPECT_EQ(DescribeWorkload(o), "/inbox.v1.Inbox/ListThreads, 2 request(s)");
  EXPECT_EQ(DescribeWindow(o), "500 calls measured");
}

}  // namespace
}  // namespace reco
