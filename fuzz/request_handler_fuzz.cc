// request_handler_fuzz: arbitrary bytes through the Recommend handler's core logic,
// in every memory mode.
//
// For each MessageStore mode: Acquire a lease, ParseFromArray the bytes into its
// request (on the lease's arena in the arena modes), ValidateRequest, and when the
// request is valid BuildResponse, serialize, then Release. What must hold for every
// input, or the fuzzer stops with the input that broke it:
//   - no crash, no ASan/UBSan report, no leak (LeakSanitizer runs after each input);
//   - a refusal is INVALID_ARGUMENT with a message naming the field;
//   - every mode serializes the same bytes for the same request (the service's
//     promise: the response is a function of the request, wherever it lives), and
//     those bytes parse back;
//   - each pool is intact: acquired == released, and idle never exceeds max_idle.
//
// Run it with scripts/fuzz.sh; the seeds are in fuzz/corpus/request_handler_fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/message_store.h"
#include "core/response_builder.h"
#include "google/protobuf/stubs/logging.h"
#include "proto/reco.pb.h"

namespace {

// Caps the items built per input: a 10,000-item response takes ~0.5 s under ASan,
// and the item loop is the same code for item 50 as for item 5,000. Validation
// still sees the request's real item_count.
constexpr uint32_t kMaxFuzzItems = 40;
// Small pools and a small initial block, so that inputs reach the paths where the
// pool is full (extra leases freed) and where an arena outgrows its initial block.
constexpr size_t kMaxIdle = 2;
constexpr size_t kInitialBlockBytes = 16 * 1024;

void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "request_handler_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

struct Stores {
  std::vector<std::unique_ptr<reco::MessageStore>> all;
  Stores() {
    reco::MessageStoreOptions options;
    options.max_idle = kMaxIdle;
    options.initial_block_bytes = kInitialBlockBytes;
    for (reco::MemoryMode mode : reco::AllMemoryModes()) all.push_back(reco::MakeMessageStore(mode, options));
  }
};

// What one mode made of the input.
struct Outcome {
  bool parsed = false;
  bool valid = false;
  std::string bytes;  // the serialized response, when valid
};

Outcome HandleOnce(reco::MessageStore& store, const uint8_t* data, size_t size) {
  Outcome out;
  reco::MessageLease lease = store.Acquire();
  // A second lease held at once makes the pool run past max_idle when both return.
  reco::MessageLease extra = store.Acquire();
  out.parsed = lease.request->ParseFromArray(data, static_cast<int>(size));
  if (out.parsed) {
    absl::Status status = reco::ValidateRequest(*lease.request);
    out.valid = status.ok();
    if (!out.valid) {
      if (status.code() != absl::StatusCode::kInvalidArgument)
        Fail("refusal is not INVALID_ARGUMENT", status.ToString());
      std::string message(status.message());
      if (message.find("item_count") == std::string::npos && message.find("text_profile") == std::string::npos) {
        Fail("refusal does not name the field", message);
      }
    } else {
      if (reco::EffectiveItemCount(*lease.request) > kMaxFuzzItems) {
        lease.request->set_item_count(1 + lease.request->item_count() % kMaxFuzzItems);
      }
      reco::BuildResponse(reco::DefaultCatalogue(), *lease.request, lease.response);
      if (!lease.response->SerializeToString(&out.bytes))
        Fail("serialize failed", std::string(reco::MemoryModeName(store.mode())));
      if (static_cast<uint32_t>(lease.response->items_size()) != reco::EffectiveItemCount(*lease.request)) {
        Fail("wrong item count", std::string(reco::MemoryModeName(store.mode())));
      }
    }
  }
  store.Release(extra);
  store.Release(lease);
  reco::MessageStoreStats stats = store.Stats();
  if (stats.acquired != stats.released) Fail("lease not returned", std::string(reco::MemoryModeName(store.mode())));
  if (stats.idle > kMaxIdle) Fail("pool holds more than max_idle", std::string(reco::MemoryModeName(store.mode())));
  return out;
}

}  // namespace

// protobuf logs every string field with invalid UTF-8 it refuses; at thousands of
// inputs a second that is noise (the refusal itself is what we check).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The stores live for the whole run, as they do in a server: pooled leases carry
  // state from one input to the next, which is exactly what must not leak into a
  // response.
  static Stores* stores = new Stores;
  Outcome first;
  bool have_first = false;
  for (auto& store : stores->all) {
    Outcome out = HandleOnce(*store, data, size);
    if (!have_first) {
      first = out;
      have_first = true;
      continue;
    }
    std::string mode(reco::MemoryModeName(store->mode()));
    if (out.parsed != first.parsed) Fail("modes disagree on parsing", mode);
    if (out.valid != first.valid) Fail("modes disagree on validity", mode);
    if (out.bytes != first.bytes) Fail("modes serialize different bytes", mode);
  }
  if (first.valid) {
    reco::v1::RecommendResponse back;
    if (!back.ParseFromString(first.bytes)) Fail("response does not parse back", "");
  }
  return 0;
}
