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
  for (const char* mode : {"heap", "reuse", "arena", "arena_pool", "fragments"}) {
    for (const char* phase : {"build", "serialize", "release"}) {
      for (const char* field : {"allocs", "frees", "bytes"}) {
        EXPECT_TRUE(doc["modes"][mode][phase][field].is_number()) << mode << "." << phase << "." << field;
      }
    }
  }
  EXPECT_EQ(doc["modes"].size(), 5u);
  // The fragments row has no serialize phase: its bytes are the reply.
  EXPECT_EQ(doc["modes"]["fragments"]["serialize"]["allocs"], 0);
  EXPECT_GT(doc["modes"]["fragments"]["build"]["allocs"].get<double>(), 0);
}

TEST(LedgerFormatTest, TableHasOneRowPerModeAndPhase) {
  const std::string table = LedgerToTable(SmallLedger());
  EXPECT_NE(table.find("10 items, compact text"), std::string::npos) << table;
  for (const char* row : {"heap        build ", "reuse       serialize ", "arena_pool  release ", "fragments   build ",
                          "fragments   serialize ", "fragments   release "}) {
    EXPECT_NE(table.find(row), std::string::npos) << row << " in\n" << table;
  }
  EXPECT_GT(table.find("fragments   build "), table.find("arena_pool  release ")) << "fragments come last:\n" << table;
}

}  // namespace
}  // namespace reco
