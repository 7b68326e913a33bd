// SPDX-License-Identifier: Apache-2.0
// The examples a reader copies -- the block at the top of each pattern header and the
// code in docs/patterns.md section 1 -- compiled and run here, so that they cannot
// drift from the code they show.
//
// Each example stands below between a line "// example from FILE" and a line
// "// end of example", in a context that declares what it uses (a service, a
// request's bytes, a Fill() of the reader's own). At run time this test reads its own
// source and FILE and requires the same lines there:
//   - a header: as its comment block ("//   " + line), the whole of that block;
//   - a doc: as one whole fenced code block.
// Every pattern header with an "// Example" or "// Install" block must have its
// example here, and a doc block that opens "// Inside X (patterns/x.h):" must be
// the header's own code (compared without indentation, blank and comment lines).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/support/byte_buffer.h>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "core/byte_buffer_bytes.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "patterns/append_best.h"
#include "patterns/arena_batch.h"
#include "patterns/arena_message_allocator.h"
#include "patterns/block_arena.h"
#include "patterns/idle_pool.h"
#include "patterns/message_pool.h"
#include "patterns/pooled_arena_allocator.h"
#include "patterns/reused_message_allocator.h"
#include "patterns/spliced_reply.h"
#include "proto/reco.grpc.pb.h"
#include "proto/reco.pb.h"

namespace reco::patterns {
namespace {

// What the examples leave to the reader: their own data and handlers.
void FillCandidate(int i, v1::Item* item) {
  item->set_item_id("candidate-" + std::to_string(i));
  item->mutable_scores()->set_relevance(static_cast<float>(i % 97));
}
void FillAndUse(v1::RecommendResponse* r) { r->add_items()->set_item_id("used"); }
struct Buffer {
  std::string bytes;
};
void Use(Buffer& b) { b.bytes.assign("used"); }
void Fill(v1::RecommendResponse* r) { r->set_request_id("filled"); }
int sent = 0;
void Send(const v1::RecommendResponse& r) { sent += r.request_id() == "filled"; }

TEST(HeaderExamplesTest, ArenaMessageAllocatorInstalls) {
  // example from patterns/arena_message_allocator.h
  class RecommenderImpl final : public reco::v1::Recommender::CallbackService { /* handlers */ };
  ArenaMessageAllocator<reco::v1::RecommendRequest, reco::v1::RecommendResponse> allocator;
  RecommenderImpl service;
  service.SetMessageAllocatorFor_Recommend(&allocator);   // before BuildAndStart()
  // end of example
  EXPECT_EQ(allocator.allocated(), 0u);
}

TEST(HeaderExamplesTest, DocsSectionOneInstalls) {
  v1::Recommender::CallbackService service;
  // example from docs/patterns.md
  google::protobuf::ArenaOptions options;  // start_block_size: see below
  ArenaMessageAllocator<v1::RecommendRequest, v1::RecommendResponse> allocator(options);
  service.SetMessageAllocatorFor_Recommend(&allocator);
  // end of example
  EXPECT_EQ(allocator.released(), 0u);
}

TEST(HeaderExamplesTest, PooledArenaAllocatorInstalls) {
  v1::Recommender::CallbackService service;
  // example from patterns/pooled_arena_allocator.h
  PooledArenaOptions options;                 // 512 KiB blocks, at most 64 pooled arenas
  PooledArenaAllocator<v1::RecommendRequest, v1::RecommendResponse> allocator(options);
  service.SetMessageAllocatorFor_Recommend(&allocator);   // before BuildAndStart()
  // end of example
  EXPECT_EQ(options.max_arenas, 64u);
}

TEST(HeaderExamplesTest, ReusedMessageAllocatorInstalls) {
  v1::Recommender::CallbackService service;
  // example from patterns/reused_message_allocator.h
  ReusedMessageAllocator<v1::RecommendRequest, v1::RecommendResponse> allocator(/*max_idle=*/64);
  service.SetMessageAllocatorFor_Recommend(&allocator);   // before BuildAndStart()
  // end of example
}

TEST(HeaderExamplesTest, AppendBestKeepsTheBest) {
  google::protobuf::Arena arena;
  v1::RecommendResponse* response = google::protobuf::Arena::CreateMessage<v1::RecommendResponse>(&arena);
  // example from patterns/append_best.h
  // response is on the RPC's arena (ArenaMessageAllocator) or on the heap.
  AppendBest<v1::Item>(/*candidate_count=*/1000, /*keep=*/50,
                       [&](int i, v1::Item* item) { FillCandidate(i, item); },
                       [](const v1::Item& item) { return item.scores().relevance(); },
                       response->mutable_items());
  // end of example
  ASSERT_EQ(response->items_size(), 50);
  EXPECT_EQ(response->items(0).GetArena(), &arena);
}

TEST(HeaderExamplesTest, ArenaBatchVisitsEveryRecord) {
  v1::RecommendResponse record;
  record.add_items()->set_item_id("a");
  record.add_items()->set_item_id("b");
  const std::vector<std::string> serialized(3, record.SerializeAsString());
  int items = 0;
  // example from patterns/arena_batch.h
  ArenaBatch<v1::RecommendResponse> batch(/*initial_block_bytes=*/512 * 1024);
  absl::StatusOr<ArenaBatchStats> stats = batch.ForEach(serialized,
      [&](const v1::RecommendResponse& r, google::protobuf::Arena*) { items += r.items_size(); });
  // stats->records == serialized.size(); stats->peak_arena_bytes <= 512 KiB: it fit.
  // end of example
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->records, serialized.size());
  EXPECT_EQ(items, 6);
}

TEST(HeaderExamplesTest, BlockArenaKeepsItsBlock) {
  // example from patterns/block_arena.h
  BlockArena scratch(/*block_bytes=*/64 * 1024);
  auto* r = google::protobuf::Arena::CreateMessage<v1::RecommendResponse>(scratch.get());
  FillAndUse(r);
  scratch.get()->Reset();   // r is dead; the 64 KiB block is kept for the next record
  // end of example
  EXPECT_GE(scratch.get()->SpaceAllocated(), 64u * 1024);
}

TEST(HeaderExamplesTest, IdlePoolParksWhatItIsGiven) {
  // example from patterns/idle_pool.h
  IdlePool<Buffer> pool(/*capacity=*/64);
  std::unique_ptr<Buffer> b = pool.Take();        // null when none is idle
  if (b == nullptr) b = std::make_unique<Buffer>();
  Use(*b);
  pool.Give(std::move(b));   // parked, or deleted on return when 64 are idle already
  // end of example
  EXPECT_EQ(pool.idle(), 1u);
}

TEST(HeaderExamplesTest, MessagePoolHandsOutEmptyMessages) {
  // example from patterns/message_pool.h
  MessagePool<v1::RecommendResponse> pool(/*max_idle=*/64);
  std::unique_ptr<v1::RecommendResponse> response = pool.Acquire();  // empty
  Fill(response.get()); Send(*response);
  pool.Release(std::move(response));  // Clear()ed here, kept if fewer than 64 idle
  // end of example
  EXPECT_EQ(sent, 1);
  EXPECT_EQ(pool.Acquire()->request_id(), "");
}

TEST(HeaderExamplesTest, SplicedReplyIsTheMessage) {
  v1::Item item;
  item.set_item_id("item-1");
  const std::vector<std::string> picked_items(2, item.SerializeAsString());
  const std::string request_id = "req-1";
  grpc::ByteBuffer buffer;
  grpc::ByteBuffer* response_byte_buffer = &buffer;
  // example from patterns/spliced_reply.h
  thread_local patterns::SplicedReply reply;
  reply.Clear();
  reply.AppendStringField(1, request_id);                     // per request: copied
  for (const std::string& item_bytes : picked_items) {         // kept for the process's life
    reply.AppendLengthDelimitedHeader(2, item_bytes.size());
    reply.AppendFragment(item_bytes);                          // copied, or referenced if large
  }
  reply.Finish(response_byte_buffer);
  // end of example
  v1::RecommendResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(ByteBufferBytes(buffer)));
  EXPECT_EQ(parsed.request_id(), "req-1");
  EXPECT_EQ(parsed.items_size(), 2);
}

// --- The text checks: the examples above are the files' own. ---

std::vector<std::string> ReadLines(const std::string& relative) {
  std::ifstream in(std::string(RECO_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in.good()) << "cannot read " << relative;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Example {
  std::string file;                // where it is shown ("patterns/x.h", "docs/x.md")
  std::vector<std::string> lines;  // as written in this test, its indentation removed
};

std::vector<Example> ExamplesInThisTest() {
  std::vector<Example> examples;
  Example* open = nullptr;
  size_t indent = 0;
  for (const std::string& line : ReadLines("patterns/header_examples_test.cc")) {
    const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(stripped, "// example from ")) {
      examples.push_back({std::string(stripped.substr(16)), {}});
      open = &examples.back();
      indent = line.size() - stripped.size();
    } else if (stripped == "// end of example") {
      open = nullptr;
    } else if (open != nullptr) {
      open->lines.push_back(line.size() >= indent ? line.substr(indent) : std::string());
    }
  }
  return examples;
}

// Where `want` stands in `lines` as consecutive lines, or -1.
int Find(const std::vector<std::string>& lines, const std::vector<std::string>& want) {
  auto at = std::search(lines.begin(), lines.end(), want.begin(), want.end());
  return at == lines.end() || want.empty() ? -1 : static_cast<int>(at - lines.begin());
}

bool IsHeaderExampleLine(const std::string& line) { return absl::StartsWith(line, "//   "); }

TEST(HeaderExamplesTest, EachExampleIsTheWholeBlockItsFileShows) {
  const std::vector<Example> examples = ExamplesInThisTest();
  ASSERT_GE(examples.size(), 10u);
  for (const Example& example : examples) {
    const std::vector<std::string> file = ReadLines(example.file);
    const bool header = absl::EndsWith(example.file, ".h");
    std::vector<std::string> want;
    for (const std::string& line : example.lines) want.push_back(header ? "//   " + line : line);
    const int at = Find(file, want);
    ASSERT_GE(at, 0) << example.file << " does not show this test's example (starting \""
                     << example.lines.front() << "\"): make them the same";
    const int end = at + static_cast<int>(want.size());
    if (header) {
      EXPECT_TRUE(at == 0 || !IsHeaderExampleLine(file[at - 1])) << example.file << ": the example begins earlier";
      EXPECT_TRUE(end == static_cast<int>(file.size()) || !IsHeaderExampleLine(file[end]))
          << example.file << ": the example goes on after \"" << file[end - 1] << "\"";
    } else {
      EXPECT_TRUE(at > 0 && file[at - 1] == "```cpp" && end < static_cast<int>(file.size()) && file[end] == "```")
          << example.file << ": the example is not a whole ```cpp block";
    }
  }
}

TEST(HeaderExamplesTest, EveryPatternHeaderExampleIsHere) {
  std::vector<std::string> covered;
  for (const Example& example : ExamplesInThisTest()) covered.push_back(example.file);
  for (const auto& entry : std::filesystem::directory_iterator(std::string(RECO_SOURCE_DIR) + "/patterns")) {
    const std::string name = "patterns/" + entry.path().filename().string();
    if (!absl::EndsWith(name, ".h")) continue;
    for (const std::string& line : ReadLines(name)) {
      if (absl::StartsWith(line, "// Example") || absl::StartsWith(line, "// Install")) {
        EXPECT_NE(std::find(covered.begin(), covered.end(), name), covered.end())
            << name << " shows an example this test does not compile: add it here";
        break;
      }
    }
  }
}

// Code lines only: no indentation, no blank or comment-only lines.
std::vector<std::string> CodeLines(const std::vector<std::string>& lines) {
  std::vector<std::string> code;
  for (const std::string& line : lines) {
    const absl::string_view s = absl::StripAsciiWhitespace(line);
    if (!s.empty() && !absl::StartsWith(s, "//")) code.emplace_back(s);
  }
  return code;
}

TEST(HeaderExamplesTest, DocBlocksFromAHeaderAreItsCode) {
  const std::vector<std::string> doc = ReadLines("docs/patterns.md");
  int checked = 0;
  for (size_t i = 0; i + 1 < doc.size(); ++i) {
    if (doc[i] != "```cpp" || !absl::StartsWith(doc[i + 1], "// Inside ")) continue;
    const size_t open = doc[i + 1].rfind('('), close = doc[i + 1].rfind(')');
    ASSERT_TRUE(open != std::string::npos && close > open) << doc[i + 1] << ": name the header in (...)";
    const std::string header = doc[i + 1].substr(open + 1, close - open - 1);
    std::vector<std::string> block;
    for (size_t j = i + 2; j < doc.size() && doc[j] != "```"; ++j) block.push_back(doc[j]);
    EXPECT_GE(Find(CodeLines(ReadLines(header)), CodeLines(block)), 0)
        << "docs/patterns.md's block from " << header << " is not the header's code: make them the same";
    ++checked;
  }
  EXPECT_GE(checked, 1) << "docs/patterns.md section 1 shows ArenaMessageAllocator's holder";
}

}  // namespace
}  // namespace reco::patterns
