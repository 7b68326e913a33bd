// fuzz_corpus_writer: writes the fuzzers' seed corpus, small and reviewable.
//   fuzz_corpus_writer --out=fuzz/corpus
// writes OUT/request_handler_fuzz/*.bin (serialized RecommendRequests: valid ones,
// each limit and just past it, an unknown enum value) and OUT/response_check_fuzz/
// *.bin (one slicing byte, then the exact response the load client expects for one
// variant of its request set, or a near miss) and OUT/server_call_fuzz/*.bin (calls
// in server_call_fuzz.cc's layout: served and unserved paths, streams, metadata).
// Rerun it when reco.proto changes. Files named found_*.bin are inputs a fuzzer found
// that failed once, kept as regression seeds; the writer leaves them alone.
#include <sys/stat.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "cli/flag_parse.h"
#include "client/request_set.h"
#include "core/request.h"
#include "fuzz/fuzzed_servers.h"
#include "proto/reco.pb.h"

ABSL_FLAG(std::string, out, "fuzz/corpus", "directory that receives one folder per fuzz target");

namespace {

// server_call_fuzz's first byte for `mode`'s server; exits when it runs none.
char ServerIndex(const std::string& mode) {
  const int index = reco::fuzz::ServerIndex(mode);
  if (index < 0) {
    std::fprintf(stderr, "fuzz_corpus_writer: server_call_fuzz runs no %s server\n", mode.c_str());
    std::exit(1);
  }
  return static_cast<char>(index);
}

bool Write(const std::string& dir, const std::string& name, const std::string& bytes) {
  mkdir(dir.c_str(), 0755);
  std::ofstream f(dir + "/" + name, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(f);
}

reco::v1::RecommendRequest Request(const std::string& user, uint32_t items, int profile, uint64_t seed) {
  reco::v1::RecommendRequest r;
  r.set_user_id(user);
  r.set_item_count(items);
  r.set_text_profile(static_cast<reco::v1::TextProfile>(profile));
  r.set_seed(seed);
  return r;
}

// request_handler_fuzz: serialized RecommendRequests, valid ones, each limit and just
// past it, an unknown enum value.
bool WriteRequestSeeds(const std::string& dir) {
  bool ok = true;
  struct Seed {
    const char* name;
    reco::v1::RecommendRequest request;
  };
  const Seed seeds[] = {
      {"empty", {}},  // item_count 0: the default 200
      {"realistic_5", Request("user-1", 5, 0, 42)},
      {"compact_5", Request("user-2", 5, 1, 43)},
      {"at_limit_10000", Request("user-3", reco::kMaxItemCount, 0, 1)},
      {"over_limit_10001", Request("user-4", reco::kMaxItemCount + 1, 0, 1)},
      {"unknown_profile_7", Request("user-5", 5, 7, 1)},
      {"long_user_id", Request(std::string(300, 'u'), 2, 1, ~0ull)},
  };
  for (const Seed& s : seeds) ok &= Write(dir, std::string(s.name) + ".bin", s.request.SerializeAsString());
  return ok;
}

// response_check_fuzz: a slicing byte, then a variant's exact expected response or a
// near miss.
bool WriteResponseSeeds(const std::string& dir) {
  bool ok = true;
  // Must match response_check_fuzz.cc's Requests().
  reco::v1::RecommendRequest shape;
  shape.set_item_count(3);
  shape.set_seed(7);
  reco::RequestSet set(reco::DefaultCatalogue(), shape);
  for (int i = 0; i < set.size(); ++i) {
    // First byte: how response_check_fuzz slices the rest (0 = one slice).
    const char cuts = static_cast<char>(i == 0 ? 0 : 0x1b * i);
    ok &= Write(dir, "variant_" + std::to_string(i) + ".bin", cuts + set.expected_bytes(i));
  }
  std::string truncated = set.expected_bytes(0);
  truncated.resize(truncated.size() / 2);
  ok &= Write(dir, "truncated.bin", std::string(1, '\0') + truncated);
  std::string flipped = set.expected_bytes(1);
  flipped[flipped.size() / 3] ^= 1;
  ok &= Write(dir, "one_bit_off.bin", std::string(1, '\x05') + flipped);
  return ok;
}

// server_call_fuzz: server byte, shape byte (0 unary, N+1 a stream of N messages),
// path, metadata lines, an empty line, the message.
bool WriteCallSeeds(const std::string& dir) {
  bool ok = true;
  const std::string recommend = Request("user-6", 5, 1, 44).SerializeAsString();
  struct CallSeed {
    const char* name;
    char server;
    char shape;
    std::string path, metadata, message;
  };
  const CallSeed calls[] = {
      {"recommend_heap", ServerIndex("heap"), 0, "/reco.v1.Recommender/Recommend", "", recommend},
      {"recommend_fragments_stream_2", ServerIndex("fragments"), 3, "/reco.v1.Recommender/Recommend", "", recommend},
      {"recommend_arena_pool_stream_0", ServerIndex("arena_pool"), 1, "/reco.v1.Recommender/Recommend", "", ""},
      {"stats_garbage", ServerIndex("reuse"), 0, "/reco.v1.ServerStats/GetStats", "", "\xff\xff"},
      {"unknown_service", ServerIndex("arena"), 0, "/no.Such/Method", "x-user:alice\n", recommend},
      {"wrong_case", ServerIndex("arena_alias"), 0, "/reco.v1.Recommender/recommend", "", recommend},
      {"reflection_v1", ServerIndex("fragments"), 2, "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", "",
       std::string("\x3a\x00", 2)},
      {"empty_path_ceiling", ServerIndex("ceiling"), 0, "//", "trace-bin:\x01\x02\n", ""},
  };
  for (const CallSeed& c : calls) {
    ok &= Write(dir, std::string(c.name) + ".bin",
                std::string{c.server, c.shape} + c.path + "\n" + c.metadata + "\n" + c.message);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest = reco::ParseFlagsOrExit2(
      argc, argv, "fuzz_corpus_writer", "Writes the fuzzers' seed corpus.\n  fuzz_corpus_writer --out=fuzz/corpus");
  if (rest.size() > 1) {
    std::fprintf(stderr, "fuzz_corpus_writer: unexpected argument '%s' (see --help)\n", rest[1]);
    return reco::kBadFlagsExit;
  }
  const std::string out = absl::GetFlag(FLAGS_out);
  mkdir(out.c_str(), 0755);
  bool ok = WriteRequestSeeds(out + "/request_handler_fuzz");
  ok &= WriteResponseSeeds(out + "/response_check_fuzz");
  ok &= WriteCallSeeds(out + "/server_call_fuzz");
  if (!ok) {
    std::fprintf(stderr, "fuzz_corpus_writer: cannot write under --out=%s\n", out.c_str());
    return 1;
  }
  std::printf("fuzz_corpus_writer: wrote seeds under %s\n", out.c_str());
  return 0;
}
