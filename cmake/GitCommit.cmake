# Writes OUT, a C++ file defining reco::build_info_internal::kGitCommit: the short
# hash of SOURCE_DIR's HEAD, "-dirty" appended when tracked files differ from it (as
# `git describe --dirty`: untracked files do not count), "unknown" when SOURCE_DIR is
# not a git checkout or git is missing. The file is rewritten only when its text
# changes, so an unchanged commit rebuilds nothing.
#
#   cmake -DSOURCE_DIR=... -DOUT=.../git_commit.cc -P cmake/GitCommit.cmake
set(commit unknown)
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --short HEAD
                  OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed ERROR_QUIET)
  if(NOT failed AND hash)
    set(commit ${hash})
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE changes RESULT_VARIABLE failed ERROR_QUIET)
    if(NOT failed AND changes)
      string(APPEND commit -dirty)
    endif()
  endif()
endif()
# One quoted argument: a ';' in a CMake list would split the text.
set(text "// Written by cmake/GitCommit.cmake at build time: do not edit.
namespace reco::build_info_internal {
extern const char kGitCommit[] = \"${commit}\";
}
")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
