#include "cli/mutex_checks.h"

#include <cstdlib>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(bool, mutex_deadlock_detection);

namespace reco {
namespace {

// Locks two mutexes in one order, then in the other: a lock-order cycle, which
// abseil's detector (when on) reports and aborts on at the second pair.
void LockInBothOrders() {
  absl::Mutex a;
  absl::Mutex b;
  {
    absl::MutexLock first(&a);
    absl::MutexLock second(&b);
  }
  absl::MutexLock first(&b);
  absl::MutexLock second(&a);
}

// Each case runs in a child process (a death test forks): the detection mode and
// the detector's graph are process-wide.
TEST(MutexChecksDeathTest, TheFlagOffMeansNoDetection) {
  EXPECT_EXIT(
      {
        absl::SetFlag(&FLAGS_mutex_deadlock_detection, false);
        ApplyMutexDeadlockDetectionFlag();
        LockInBothOrders();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(MutexChecksDeathTest, TheFlagOnAbortsOnALockOrderCycle) {
  EXPECT_DEATH(
      {
        absl::SetFlag(&FLAGS_mutex_deadlock_detection, true);
        ApplyMutexDeadlockDetectionFlag();
        LockInBothOrders();
      },
      "Potential Mutex deadlock");
}

// The reason the flag exists: Debian's abseil has the detector on by default. Should
// a later abseil package turn it off, this fails and the docs' reason goes stale.
TEST(MutexChecksDeathTest, DebiansAbseilDetectsByDefault) {
  EXPECT_DEATH(LockInBothOrders(), "Potential Mutex deadlock");
}

}  // namespace
}  // namespace reco
