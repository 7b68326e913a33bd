// reco_load's command line, run as a child process against a real in-process server
// on 127.0.0.1:0: bad flags are refused naming the flag, with exit 2 and no
// request sent; an unreachable target fails fast; a good run exits 0 and writes its
// reports. RECO_LOAD_BINARY is set by CMake.
#include <sys/wait.h>
#include <algorithm>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/reco_server.h"

namespace reco {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// `prefix`: put before the command (e.g. "env NAME=VALUE ").
Outcome RunReco(const std::string& args, const std::string& prefix = "") {
  // `timeout` bounds a run that would hang; reco_load's own runs here last seconds.
  std::string command = absl::StrCat(prefix, "timeout 60 ", RECO_LOAD_BINARY, " ", args, " 2>&1");
  Outcome o;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return o;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) o.output.append(buffer, n);
  int status = pclose(pipe);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

std::unique_ptr<RecoServer> StartServer() {
  ServerOptions o;
  o.listen = "127.0.0.1:0";
  o.mode = ServingMode::kHeap;
  absl::StatusOr<std::unique_ptr<RecoServer>> s = RecoServer::Start(o);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

TEST(ClientCli, BadFlagsAreNamedAndSendNoLoad) {
  std::unique_ptr<RecoServer> server = StartServer();
  ASSERT_TRUE(server);
  const std::string target = absl::StrCat("--target heap=127.0.0.1:", server->port());
  struct Case {
    std::string word;  // must appear in the message
    std::string args;
  };
  const Case cases[] = {
      {"--target", "--target 127.0.0.1"},
      {"unexpected argument '127.0.0.1': not a target", "127.0.0.1"},
      {"--target", "--target heap=127.0.0.1"},
      {"--target", "--target heap=127.0.0.1:99999"},
      {"--target", "--target heap=127.0.0.1:+80"},  // SimpleAtoi's sign: dialled port 80
      {"--target", "--duration 1"},                 // no target at all
      {"--duration", target + " --duration 0"},
      {"--duration", target + " --duration -2s"},
      {"--duration", target + " --duration soon"},
      // Times without an end ran forever, printing nothing; 1ns reported QPS 1e9.
      {"--duration must be from 10ms to 24h, got inf", target + " --duration inf"},
      {"--duration 'nan' is not a number of seconds", target + " --duration nan"},
      {"--duration must be from 10ms to 24h, got inf", target + " --duration 1e300"},
      {"--duration must be from 10ms to 24h, got inf", target + " --duration 99999999999999999999"},
      {"--duration must be from 10ms to 24h, got 25h", target + " --duration 25h"},
      {"--duration must be from 10ms to 24h, got 1ns", target + " --duration 1ns"},
      {"--warmup must be from 0 to 24h, got inf", target + " --warmup inf"},
      {"--timeout must be positive and at most 1h, got inf", target + " --timeout inf"},
      {"--timeout must be positive and at most 1h, got 2h", target + " --timeout 2h"},
      {"--probe_deadline must be positive and at most 1h, got inf", target + " --probe_deadline 1e300"},
      {"--warmup", target + " --warmup -1"},
      {"--align_start", target + " --align_start -30s"},
      {"--align_start", target + " --align_start 2h"},
      {"--align_start", target + " --align_start later"},
      {"--rate", target + " --rate 0"},
      {"--rate", target + " --rate -100"},
      // An interval of inf between calls: ~20,000 calls sent at once, then a spin.
      {"--rate must be from 0.001 to 10000000 requests per second", target + " --rate 1e-11"},
      {"--concurrency", target + " --concurrency 0"},
      {"--concurrency", target + " --concurrency -4"},
      {"--connections", target + " --connections 0"},
      {"--rounds", target + " --rounds 0"},
      {"--profile", target + " --profile fancy"},
      {"--items", target + " --items 10001"},
      {"--max_error_rate", target + " --max_error_rate 1.5"},
      {"--grpc_poll_strategy", target + " --grpc_poll_strategy epollex"},
      {"--grpc_poll_strategy poll: target heap", target + " --target heap=127.0.0.1:1 --grpc_poll_strategy poll"},
      {"Unknown command line flag 'nope'", target + " --nope"},
      {"Illegal value 'abc' specified for flag 'rounds'", target + " --rounds=abc"},
      {"Illegal value 'many' specified for flag 'rounds'", target + " --rounds many"},
      {"Missing the value for the flag 'duration'", target + " --duration"},
      {"Negative form is not valid for the flag 'rounds'", target + " --norounds"},
      {"Illegal value 'maybe' specified for flag 'quiet'", target + " --quiet=maybe"},
      {"unexpected argument", target + " extra"},
      // Report files are written after the load: their directory is checked before it.
      {"--json /nonexistent/x.json", target + " --json /nonexistent/x.json"},
      {"--csv /etc/hostname/x.csv", target + " --csv /etc/hostname/x.csv"},  // a file, not a directory
      {"--html /nonexistent/r.html", target + " --html /nonexistent/r.html"},
      // A directory given as a file: was found only after the load (exit 5).
      {"--json /etc: a directory, not a file", target + " --json /etc"},
      {"--write_request /etc: a directory, not a file", target + " --write_request /etc"},
      // TLS roots that are not PEM: gRPC took them, and every handshake failed (exit 3).
      {"--tls_ca /etc/passwd: no PEM certificate in it", target + " --tls_ca /etc/passwd"},
      {"--tls_ca /etc: a directory, not a file", target + " --tls_ca /etc"},  // was "the file is empty"
      // merge checks its output paths before reading its inputs.
      {"merge: --json /nonexistent/m.json: cannot write there", "merge /nonexistent/a.json --json /nonexistent/m.json"},
  };
  for (const Case& c : cases) {
    Outcome o = RunReco(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args;  // every bad flag, absl's own included
    EXPECT_NE(o.output.find(c.word), std::string::npos) << c.args << " said: " << o.output;
  }
  // Not one request reached the server.
  v1::StatsSnapshot stats = server->Stats(false);
  EXPECT_EQ(stats.rpcs(), 0u);
  EXPECT_EQ(stats.rpc_errors(), 0u);
}

// A client started with glibc's tunables says so, as a server does: its report names
// "glibc(TUNABLES)", not plain glibc.
TEST(ClientCli, NamesGlibcTunablesItRunsUnder) {
  std::unique_ptr<RecoServer> server = StartServer();
  ASSERT_TRUE(server);
  const std::string run = absl::StrCat(" --target heap=127.0.0.1:", server->port(),
                                       " --total 2 --rounds 1 --warmup 0 --concurrency 1 --items 5");
  Outcome plain = RunReco(run);
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  // A sanitizer build's client names its runtime ("asan"), which reads no tunables.
  if (plain.output.find("malloc: client asan;") != std::string::npos ||
      plain.output.find("malloc: client tsan;") != std::string::npos) {
    GTEST_SKIP() << "glibc's tunables only";
  }
  EXPECT_NE(plain.output.find("malloc: client glibc;"), std::string::npos) << plain.output;
  Outcome tuned = RunReco(run, "env GLIBC_TUNABLES=glibc.malloc.mxfast=0 ");
  EXPECT_EQ(tuned.exit_code, 0) << tuned.output;
  EXPECT_NE(tuned.output.find("malloc: client glibc(glibc.malloc.mxfast=0);"), std::string::npos) << tuned.output;
}

// The poller gRPC says it uses (its debug log names it once, at start): poll unless
// asked otherwise or a target spreads its calls over replicas with round_robin
// (then epoll1: poll would leave the replicas still connecting unpolled);
// `default` leaves GRPC_POLL_STRATEGY to the environment. The report names the same
// poller.
TEST(ClientCli, PollsWithTheChosenPoller) {
  std::unique_ptr<RecoServer> server = StartServer();
  std::unique_ptr<RecoServer> replica = StartServer();
  ASSERT_TRUE(server && replica);
  const std::string run = absl::StrCat(" --target heap=127.0.0.1:", server->port(),
                                       " --total 4 --rounds 1 --warmup 0 --concurrency 2 --items 5");
  const std::string replicas = absl::StrCat(" --target heap=127.0.0.1:", replica->port());
  struct Case {
    std::string env, flag, engine;
  };
  const Case cases[] = {
      {"", "", "poll"},
      {"GRPC_POLL_STRATEGY=epoll1", "", "poll"},  // the flag's default wins over the environment
      {"", "--grpc_poll_strategy epoll1", "epoll1"},
      {"GRPC_POLL_STRATEGY=epoll1", "--grpc_poll_strategy default", "epoll1"},
      {"GRPC_POLL_STRATEGY=poll", "--grpc_poll_strategy default", "poll"},
      {"", replicas, "epoll1"},                            // auto, round_robin over two replicas
      {"", replicas + " --lb_policy pick_first", "poll"},  // each channel keeps to one
  };
  for (const Case& c : cases) {
    const std::string env = absl::StrCat("env GRPC_VERBOSITY=debug ", c.env, " ");
    Outcome o = RunReco(absl::StrCat(c.flag, run), env);
    EXPECT_EQ(o.exit_code, 0) << c.env << " " << c.flag << ": " << o.output;
    EXPECT_NE(o.output.find("Using polling engine: " + c.engine + "\n"), std::string::npos)
        << c.env << " " << c.flag << " said: " << o.output.substr(0, 2000);
    // and the report says which (its table; the JSON and HTML carry the same field)
    EXPECT_NE(o.output.find("client's gRPC poller: " + c.engine + "\n"), std::string::npos)
        << c.env << " " << c.flag << " said: " << o.output.substr(o.output.size() > 2000 ? o.output.size() - 2000 : 0);
  }
}

TEST(ClientCli, UnreachableTargetFailsFastWithItsName) {
  int closed_port;
  {
    std::unique_ptr<RecoServer> gone = StartServer();  // a port that was free, closed again
    ASSERT_TRUE(gone);
    closed_port = gone->port();
  }
  Outcome o = RunReco(absl::StrCat("--target lost=127.0.0.1:", closed_port, " --probe_deadline 2s --duration 30s"));
  EXPECT_EQ(o.exit_code, 3) << o.output;
  EXPECT_NE(o.output.find("target lost (127.0.0.1:"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("unreachable"), std::string::npos) << o.output;
}

TEST(ClientCli, GoodRunExitsZeroAndWritesEveryReport) {
  std::unique_ptr<RecoServer> server = StartServer();
  ASSERT_TRUE(server);
  const std::string dir = ::testing::TempDir();
  const std::string json = dir + "/cli_report.json", csv = dir + "/cli_report.csv", html = dir + "/cli_report.html";
  const std::string prom = dir + "/cli_report.prom", influx = dir + "/cli_report.influx";
  Outcome o =
      RunReco(absl::StrCat("--target heap=127.0.0.1:", server->port(),
                           " --duration 500ms --warmup 200ms --rounds 1 --concurrency 2 --items 20", " --json ", json,
                           " --csv ", csv, " --html ", html, " --prometheus ", prom, " --influx ", influx));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("QPS"), std::string::npos) << o.output;
  std::ifstream in(json);
  nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_GT(doc["targets"][0]["figures"]["qps"].get<double>(), 0);
  EXPECT_EQ(doc["parameters"]["items"], 20);
  for (const std::string& path : {csv, html, prom, influx}) {
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    EXPECT_GT(text.str().size(), 100u) << path;
  }
  // merge of a good report: a --json that cannot be written is a bad flag (exit 2),
  // found before the merge, not after it (was exit 5, not naming the flag).
  for (const std::string& out : {std::string("/nonexistent/m.json"), dir}) {
    Outcome merged = RunReco(absl::StrCat("merge ", json, " --json ", out));
    EXPECT_EQ(merged.exit_code, 2) << out << ": " << merged.output;
    EXPECT_NE(merged.output.find("merge: --json " + out), std::string::npos) << merged.output;
  }
  for (const std::string& path : {json, csv, html, prom, influx}) std::remove(path.c_str());
}

// ghz's habit: the target as a bare HOST:PORT argument, named after itself.
// --json - puts the report alone on stdout (for a pipe), the table on stderr; --name
// and --tags are kept in it.
TEST(ClientCli, JsonToStdoutAloneWithTheRunsNameAndTags) {
  std::unique_ptr<RecoServer> server = StartServer();
  ASSERT_TRUE(server);
  const std::string err = ::testing::TempDir() + "/cli_stdout.err";
  Outcome o =
      RunReco(absl::StrCat("--target heap=127.0.0.1:", server->port(),
                           " --total 20 --warmup 0s --rounds 1 --concurrency 2 --items 20 --json - --name nightly",
                           " --tags '{\"env\": \"ci\", \"commit\": \"abc\"}' 2>", err, " | cat"));
  nlohmann::json doc = nlohmann::json::parse(o.output, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(doc.is_discarded()) << "stdout is not the JSON alone: " << o.output;
  EXPECT_EQ(doc["parameters"]["name"], "nightly");
  EXPECT_EQ(doc["parameters"]["tags"]["env"], "ci");
  EXPECT_EQ(doc["parameters"]["tags"]["commit"], "abc");
  EXPECT_EQ(doc["targets"][0]["rounds"][0]["client"]["ok"], 20);
  std::ifstream in(err);
  std::stringstream table;
  table << in.rdbuf();
  EXPECT_NE(table.str().find("run \"nightly\" tags commit=abc,env=ci\n"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("QPS (OK responses/s)"), std::string::npos) << table.str();
  std::remove(err.c_str());
  for (const char* bad : {"--json - --csv -", "--html -", "--prometheus -", "--influx /nonexistent/x",
                          "--tags '{\"n\": 1}'", "--tags nope", "--compression br"}) {
    Outcome b = RunReco(absl::StrCat("--target heap=127.0.0.1:", server->port(), " ", bad));
    EXPECT_EQ(b.exit_code, 2) << bad << ": " << b.output;
  }
}

// --help by purpose: the flags a first run needs first (what to drive, how much load,
// the reports), every flag of reco_load once, the debugging ones last.
TEST(ClientCli, HelpOpensWithTheFlagsAFirstRunNeeds) {
  Outcome o = RunReco("--help");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  std::vector<size_t> at;
  for (const char* flag :
       {"\n  What to drive:\n    --target (", "\n    --call (", "\n    --data (",
        "\n  How much load:\n    --duration (", "\n    --concurrency (", "\n  Reports and verdicts:\n    --json (",
        "\n  TLS:\n", "\n    --items (", "\n  Other flags:\n    --mutex_deadlock_detection ("}) {
    at.push_back(o.output.find(flag));
    ASSERT_NE(at.back(), std::string::npos) << flag << " in:\n" << o.output;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end())) << o.output;
  for (const char* flag : {"target", "total", "json", "compression", "tags", "write_request", "grpc_poll_strategy"}) {
    const std::string line = absl::StrCat("\n    --", flag, " (");
    const size_t first = o.output.find(line);
    EXPECT_NE(first, std::string::npos) << flag;
    EXPECT_EQ(o.output.find(line, first + 1), std::string::npos) << flag << " listed twice";
  }
  EXPECT_EQ(o.output.find("--flagfile ("), std::string::npos) << "absl's own flags stay in --helpfull";
}

TEST(ClientCli, ABareHostPortArgumentIsTheTarget) {
  std::unique_ptr<RecoServer> server = StartServer();
  ASSERT_TRUE(server);
  const std::string json = ::testing::TempDir() + "/cli_bare.json";
  Outcome o = RunReco(absl::StrCat("--duration 300ms --warmup 0s --rounds 1 --concurrency 2 --items 20 --json ", json,
                                   " 127.0.0.1:", server->port()));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  std::ifstream in(json);
  nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["targets"].size(), 1u);
  EXPECT_EQ(doc["targets"][0]["name"], absl::StrCat("127.0.0.1_", server->port())) << doc["targets"][0].dump();
  EXPECT_GT(doc["targets"][0]["figures"]["qps"].get<double>(), 0);
  std::remove(json.c_str());
}

}  // namespace
}  // namespace reco
