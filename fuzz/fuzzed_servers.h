// The servers server_call_fuzz runs, in the order an input's first byte picks them
// (byte % count): every request-serving mode, then the ceiling. The corpus writer
// names its seeds' servers through ServerIndex, so a mode added to the list moves no
// seed to another server.
#ifndef ARENA_GRPC_FUZZ_FUZZED_SERVERS_H_
#define ARENA_GRPC_FUZZ_FUZZED_SERVERS_H_

#include <algorithm>
#include <string>
#include <vector>

#include "server/reco_server.h"

namespace reco::fuzz {

inline std::vector<std::string> FuzzedServerModes() {
  std::vector<std::string> modes = RequestServingModes();
  modes.push_back("ceiling");
  return modes;
}

// The first byte that picks `mode`'s server; -1 when the fuzzer runs no such server.
inline int ServerIndex(const std::string& mode) {
  const std::vector<std::string> modes = FuzzedServerModes();
  auto it = std::find(modes.begin(), modes.end(), mode);
  return it == modes.end() ? -1 : static_cast<int>(it - modes.begin());
}

}  // namespace reco::fuzz

#endif  // ARENA_GRPC_FUZZ_FUZZED_SERVERS_H_
