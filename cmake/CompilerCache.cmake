# Every compile goes through ccache when it is installed (scripts/setup.sh installs
# it): CI, scripts/test.sh, the sanitizer and fuzz builds and a developer's own build
# share one cache (ccache's default directory), so a rebuild of unchanged sources is
# a cache hit wherever the clone lives. CCACHE_BASEDIR makes the paths in a compile
# command relative to the source root and CCACHE_NOHASHDIR leaves the working
# directory out of the hash (a line table then names the first clone's folder).
# -DRECO_CCACHE=OFF compiles without it; a launcher given on the command line wins.
option(RECO_CCACHE "Compile through ccache when it is installed" ON)
if(RECO_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(RECO_CCACHE_PROGRAM ccache)
  if(RECO_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
                                    CCACHE_NOHASHDIR=true ${RECO_CCACHE_PROGRAM})
  endif()
endif()
