#include "client/target_warnings.h"

#include <gtest/gtest.h>

namespace reco {
namespace {

TargetResult ServedTarget() {
  TargetResult t;
  t.spec.name = "feed";
  t.server.available = true;
  t.server.malloc = "tcmalloc";
  return t;
}

int CountContaining(const std::vector<std::string>& lines, const std::string& part) {
  int n = 0;
  for (const std::string& line : lines) n += line.find(part) != std::string::npos ? 1 : 0;
  return n;
}

TEST(TargetWarnings, AllocationsTheServerCouldNotCountAreSaidOnce) {
  RunReport report;
  TargetResult t = ServedTarget();
  t.server.process_counted = false;
  std::vector<std::string> warnings;
  AddTargetWarnings(report, t, &warnings);
  EXPECT_EQ(CountContaining(warnings, "feed: allocations not counted"), 1);
  EXPECT_EQ(CountContaining(warnings, "(its malloc: tcmalloc)"), 1);
}

TEST(TargetWarnings, CountedAllocationsAndAnUnavailableServerSayNothingOfThem) {
  RunReport report;
  std::vector<std::string> warnings;
  AddTargetWarnings(report, ServedTarget(), &warnings);
  TargetResult unavailable = ServedTarget();
  unavailable.server.available = false;
  unavailable.server.process_counted = false;
  unavailable.server.note = "no stats service";
  AddTargetWarnings(report, unavailable, &warnings);
  EXPECT_EQ(CountContaining(warnings, "allocations not counted"), 0);
  EXPECT_EQ(CountContaining(warnings, "server-side figures unavailable (no stats service)"), 1);
}

}  // namespace
}  // namespace reco
