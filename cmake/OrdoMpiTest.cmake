# add_mpi_test(NAME <name> TARGET <target> RANKS <n>... [TIMEOUT <s>] [ARGS ...])
# Registers <name>.<n>ranks for every rank count, launched by ordo's runner
# through the vendor adapter's launcher. Every MPI run is bounded three
# times: the harness's per-case watchdog, `timeout` around the launcher, and
# CTest's TIMEOUT.
function(add_mpi_test)
  cmake_parse_arguments(T "" "NAME;TARGET;TIMEOUT" "RANKS;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  math(EXPR kill_after "${T_TIMEOUT} - 10")
  foreach(n IN LISTS T_RANKS)
    set(test_name ${T_NAME}.${n}ranks)
    # Through the runner: a crash or a hang in one case is recorded and the
    # executable resumed after it; the adapter's waivers apply.
    add_test(NAME ${test_name}
             COMMAND ${ORDO_PYTHON} ${PROJECT_SOURCE_DIR}/tools/ordo_cli.py job --vendor ${ORDO_VENDOR}
                     --build-dir ${CMAKE_BINARY_DIR} --ranks ${n}
                     --out ${CMAKE_BINARY_DIR}/test-results/${test_name} --timeout ${kill_after}
                     $<TARGET_FILE:${T_TARGET}>)
    set_tests_properties(${test_name} PROPERTIES TIMEOUT ${T_TIMEOUT} PROCESSORS 2 RESOURCE_LOCK mpi)
  endforeach()
endfunction()
