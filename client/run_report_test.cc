// ReadCpuIdentity: the CPU's name and its family/model/stepping from /proc/cpuinfo's
// text, so reports from two VMs that share a model name tell their CPUs apart.
#include "client/run_report.h"

#include <sstream>

#include "gtest/gtest.h"

namespace reco {
namespace {

CpuIdentity Read(const std::string& text) {
  std::istringstream in(text);
  return ReadCpuIdentity(in);
}

TEST(ReadCpuIdentity, NamesTheFirstProcessorsModelAndSignature) {
  const CpuIdentity id = Read(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
      "model name\t: AMD EPYC\nstepping\t: 1\nflags\t\t: fpu vme\n\n"
      "processor\t: 1\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: Other\nstepping\t: 0\n");
  EXPECT_EQ(id.model, "AMD EPYC");
  EXPECT_EQ(id.signature, "family 26 model 2 stepping 1");
}

TEST(ReadCpuIdentity, NoSignatureWithoutAllThreeFields) {
  // An ARM /proc/cpuinfo: no "cpu family", no "model name".
  const CpuIdentity arm = Read("processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n");
  EXPECT_EQ(arm.model, "");
  EXPECT_EQ(arm.signature, "");
  const CpuIdentity no_stepping = Read("cpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Intel Xeon\n");
  EXPECT_EQ(no_stepping.model, "Intel Xeon");
  EXPECT_EQ(no_stepping.signature, "");
}

}  // namespace
}  // namespace reco
