// The allocation counter's queries for the fuzz targets that run server code, which
// asks the counter for its per-RPC figures: every count is zero and the malloc is
// named "uncounted". The real counter (core/allocation_counter.cc) defines malloc in
// the executable, where it would shadow the ASan runtime clang links in (see
// fuzz/CMakeLists.txt); the fuzzers need no counts, only the code paths.
#include "core/allocation_counter.h"

namespace reco {

AllocationCounts AllocationCounter::ThisThread() { return {}; }
AllocationCounts AllocationCounter::Process() { return {}; }
std::string AllocationCounter::MallocName() { return "uncounted"; }
std::string AllocationCounter::MallocLabel() { return "uncounted"; }
// Not the process's malloc: the server then reports its counts as unavailable.
bool AllocationCounter::Interposing() { return false; }

}  // namespace reco
