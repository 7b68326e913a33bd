// SPDX-License-Identifier: Apache-2.0
// inbox_page_json: prints the page the handler builds for one request, as JSON -- a
// sample reply for alloc_ledger (tools/), which asks "would an arena help this reply?"
// before any code is copied. For your own service, log one real reply the same way
// (google::protobuf::util::MessageToJsonString).
//
//   inbox_page_json --threads 50 [--long_text] > page.json
//   alloc_ledger --proto examples/inbox/inbox.proto --message inbox.v1.ThreadPage --data_file page.json
#include <cstdint>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "google/protobuf/util/json_util.h"
#include "inbox_handler.h"

ABSL_FLAG(int64_t, threads, 50, "threads on the page, 0 (the default, 50) to 1000");
ABSL_FLAG(bool, long_text, false, "every string longer than 15 bytes (false: every string at most 15)");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Prints one ListThreads reply of the example Inbox service as JSON.\n"
      "  inbox_page_json --threads 50 [--long_text] > page.json");
  if (absl::ParseCommandLine(argc, argv).size() > 1) {
    std::cerr << "inbox_page_json: flags only (see --help)\n";
    return 2;
  }
  const int64_t threads = absl::GetFlag(FLAGS_threads);
  if (threads < 0 || threads > inbox::kMaxThreads) {
    std::cerr << "inbox_page_json: --threads must be from 0 to " << inbox::kMaxThreads << ", got " << threads << "\n";
    return 2;
  }
  inbox::v1::ListThreadsRequest request;
  request.set_threads(static_cast<uint32_t>(threads));
  request.set_long_text(absl::GetFlag(FLAGS_long_text));
  inbox::v1::ThreadPage page;
  inbox::FillThreadPage(request, &page);
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(page, &json, options).ok()) return 1;
  std::cout << json << "\n";
  return 0;
}
