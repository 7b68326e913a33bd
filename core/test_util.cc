#include "core/test_util.h"

namespace reco::testing {

std::string ModeParamName(const ::testing::TestParamInfo<MemoryMode>& info) {
  return std::string(MemoryModeName(info.param));
}

}  // namespace reco::testing
