// reco_load's exit statuses, named once (docs/load-client.md, "Exit status"). The
// later ones are checked only when the earlier do not apply: 4, 5 and 6 each say the
// figures themselves are suspect, which comes before what they show (7).
#ifndef ARENA_GRPC_CLIENT_EXIT_CODES_H_
#define ARENA_GRPC_CLIENT_EXIT_CODES_H_

#include "cli/flag_parse.h"

namespace reco {

// 2: a bad flag, or a merge input missing, unreadable, not a reco_load report or from
// another run (cli/flag_parse.h's, for every binary).
inline constexpr int kLoadBadFlagsExit = kBadFlagsExit;
// 3: a target unreachable or answering wrongly (the probe), or the run failed.
inline constexpr int kTargetFailedExit = 3;
// 4: errors above --max_error_rate.
inline constexpr int kErrorRateExit = 4;
// 5: a report file could not be written (its path is checked before the load).
inline constexpr int kReportNotWrittenExit = 5;
// 6: --fail_on_disturbed, and a measured round was disturbed (client/noise_guard.h).
inline constexpr int kDisturbedExit = 6;
// 7: a --require not met (client/report/requirement.h).
inline constexpr int kRequirementFailedExit = 7;

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_EXIT_CODES_H_
