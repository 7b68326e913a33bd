// The ledger's two printed forms: the JSON document scripts read and the table.
#include "tools/ledger_format.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace reco {
namespace {

Ledger SmallLedger() {
  LedgerOptions options;
  options.cycles = 2;
  return MeasureLedger(LedgerRequest(10, v1::TEXT_PROFILE_COMPACT), options);
}

TEST(LedgerFormatTest, JsonHasTheDocumentedShape) {
  nlohmann::json doc = nlohmann::json::parse(LedgerToJson(SmallLedger()));
  EXPECT_EQ(doc["items"], 10);
  EXPECT_EQ(doc["profile"], "compact");
  EXPECT_GT(doc["serialized_bytes"].get<int>(), 0);
  for (const char* mode : {"heap", "reuse", "arena", "arena_pool"}) {
    for (const char* phase : {"build", "serialize", "release"}) {
      for (const char* field : {"allocs", "frees", "bytes"}) {
        EXPECT_TRUE(doc["modes"][mode][phase][field].is_number()) << mode << "." << phase << "." << field;
      }
    }
  }
}

TEST(LedgerFormatTest, TableHasOneRowPerModeAndPhase) {
  const std::string table = LedgerToTable(SmallLedger());
  EXPECT_NE(table.find("10 items, compact text"), std::string::npos) << table;
  for (const char* row : {"heap        build ", "reuse       serialize ", "arena_pool  release "}) {
    EXPECT_NE(table.find(row), std::string::npos) << row << " in\n" << table;
  }
}

}  // namespace
}  // namespace reco
