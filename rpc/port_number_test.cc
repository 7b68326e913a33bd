#include "rpc/port_number.h"

#include <gtest/gtest.h>

namespace reco {
namespace {

TEST(PortNumber, ReadsDecimalDigits) {
  EXPECT_EQ(PortNumber("50051"), 50051);
  EXPECT_EQ(PortNumber("1"), 1);
  EXPECT_EQ(PortNumber("65535"), 65535);
  EXPECT_EQ(PortNumber("0"), 0);
  EXPECT_EQ(PortNumber("00080"), 80);
}

TEST(PortNumber, RefusesAnythingElse) {
  for (const char* bad : {"", "65536", "99999", "100000", "-1", "+80", " 80", "80 ", "10x", "abc", "0x50", "8.0"}) {
    EXPECT_EQ(PortNumber(bad), std::nullopt) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace reco
