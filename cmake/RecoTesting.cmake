# Test helpers for every folder. Included once by the top-level CMakeLists.txt.
#
# reco_add_test(NAME SOURCES a.cc ... [LIBS lib ...] [LABELS label ...] [GRPC_UNHELD])
#   A GoogleTest binary NAME, linked with reco_test_util (core's test helpers, the
#   counting malloc), gtest_main and, unless GRPC_UNHELD, tests/grpc_kept_initialized.cc
#   (gRPC started at load: not for a test of what happens before gRPC starts, nor for
#   a death test that forks, whose child LeakSanitizer checks without gRPC's threads).
#   Its test cases are registered one by one (gtest_discover_tests), named
#   NAME.Suite.Case, so `ctest -N` lists cases and
#   `ctest -R NAME` still selects the whole binary.
#
# reco_add_script_test(NAME COMMAND cmd args... [LABELS label ...]
#                      [SERIAL | HEAVY | ATTACK | TIMED])
#   A script run by CTest (shell or Python), e.g. a CLI test against built binaries.
#   HEAVY, ATTACK and TIMED take two of ctest's job slots (PROCESSORS 2) and run beside
#   the light tests, which wait on sockets and timers:
#   SERIAL  runs alone (RUN_SERIAL): it disturbs the machine on purpose
#           (e2e_disturbed_run_test).
#   HEAVY   a load with every CPU busy, judged only on counts, statuses and RSS (the
#           load scripts' short forms, which print their ratios without bounding them;
#           the floods; the matrix page): never beside another HEAVY or a TIMED test
#           (RESOURCE_LOCK heavy_load).
#   ATTACK  an HTTP/2 attack, direct or through the edge, whose verdict held beside two
#           busy loops: it may run beside a load, never beside another ATTACK or a
#           TIMED test (RESOURCE_LOCK attack).
#   TIMED   a verdict that needs the machine's time, with a margin the light tests
#           beside it do not eat (the drain delay its calls must beat; ratio bounds
#           several times from the figures, e2e_require_test): never beside a load or
#           an attack (both locks).
# A test that bounds only its own process's RSS needs no such care: another process
# does not move it. The suite runs four ctest jobs per CPU (scripts/test.sh).
#
# Labels that mean something (ctest -L / -LE):
#   hostile  hostile and faulty clients against a real server (tests/hostile)
#   lifecycle  reco_server's binary stopped, starved of descriptors, sent a gzip bomb
#            (tests/lifecycle)
#   load     drives load to measure throughput, cost ratios or peak RSS (the scripts'
#            short forms, the floods, the attacks through the edge): a sanitizer's
#            figures are not the binary's, so scripts/sanitize.sh asan leaves them out
#   standalone  builds a folder as a project of its own (not with this build's flags)
#   long     takes more than 15 s even in its short form (docs/testing.md says why);
#            the inner loop, scripts/test.sh -LE long, leaves them out
#   tsan     judged under ThreadSanitizer: our own threading, no gRPC server inside
#            (Debian's libgrpc is not instrumented; see docs/reliability.md).
#            scripts/sanitize.sh tsan builds the target `tsan_tests` and runs -L tsan.
# Every test of a binary gets the binary's labels.

add_custom_target(tsan_tests)

# tests/grpc_kept_initialized.cc says why every test binary holds gRPC initialized.
add_library(reco_grpc_kept_initialized OBJECT ${PROJECT_SOURCE_DIR}/tests/grpc_kept_initialized.cc)
target_link_libraries(reco_grpc_kept_initialized PUBLIC gRPC::grpc)

function(reco_add_test name)
  cmake_parse_arguments(ARG "GRPC_UNHELD" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE reco_test_util GTest::gtest_main ${ARG_LIBS})
  if(NOT ARG_GRPC_UNHELD)
    target_link_libraries(${name} PRIVATE reco_grpc_kept_initialized)
  endif()
  # PRE_TEST: cases are listed when ctest runs, not at build time, so a sanitizer or
  # fuzz build never runs a test binary while building.
  gtest_discover_tests(${name} TEST_PREFIX "${name}." TEST_LIST ${name}_TESTS DISCOVERY_MODE PRE_TEST
                       DISCOVERY_TIMEOUT 60)
  # The labels are set on the discovered cases by a file ctest includes after them:
  # gtest_discover_tests (CMake 3.25) flattens a list given in its PROPERTIES, so a
  # case kept only the first of its labels (tests/test_labels_test.py).
  if(ARG_LABELS)
    set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
    file(WRITE "${labels_file}"
         "foreach(case IN LISTS ${name}_TESTS)\n"
         "  set_tests_properties(\"\${case}\" PROPERTIES LABELS \"${ARG_LABELS}\")\n"
         "endforeach()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
  endif()
  if("tsan" IN_LIST ARG_LABELS)
    add_dependencies(tsan_tests ${name})
  endif()
endfunction()

function(reco_add_script_test name)
  cmake_parse_arguments(ARG "SERIAL;HEAVY;ATTACK;TIMED" "" "COMMAND;LABELS" ${ARGN})
  add_test(NAME ${name} COMMAND ${ARG_COMMAND})
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
  if(ARG_SERIAL)
    set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
  if(ARG_HEAVY)
    set_tests_properties(${name} PROPERTIES PROCESSORS 2 RESOURCE_LOCK heavy_load)
  elseif(ARG_ATTACK)
    set_tests_properties(${name} PROPERTIES PROCESSORS 2 RESOURCE_LOCK attack)
  elseif(ARG_TIMED)
    set_tests_properties(${name} PROPERTIES PROCESSORS 2 RESOURCE_LOCK "heavy_load;attack")
  endif()
endfunction()
