# add_mpi_test(NAME <name> TARGET <target> RANKS <n>... [TIMEOUT <s>] [ARGS ...])
# Registers <name>.<n>ranks for every rank count, launched through the
# configured library's mpiexec with the adapter's flags. Every MPI run is
# bounded twice: by `timeout` around the launcher (kills the whole job) and
# by CTest's TIMEOUT.
find_program(ORDO_TIMEOUT timeout REQUIRED)
function(add_mpi_test)
  cmake_parse_arguments(T "" "NAME;TARGET;TIMEOUT" "RANKS;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  math(EXPR kill_after "${T_TIMEOUT} - 10")
  set(waivers "")
  if(EXISTS ${CMAKE_SOURCE_DIR}/vendors/${ORDO_VENDOR}/waivers.json)
    set(waivers --ordo-waivers=${CMAKE_SOURCE_DIR}/vendors/${ORDO_VENDOR}/waivers.json)
  endif()
  if(EXISTS ${CMAKE_SOURCE_DIR}/vendors/${ORDO_VENDOR}/adapter.json)
    list(APPEND waivers --ordo-adapter=${CMAKE_SOURCE_DIR}/vendors/${ORDO_VENDOR}/adapter.json)
  endif()
  foreach(n IN LISTS T_RANKS)
    set(test_name ${T_NAME}.${n}ranks)
    set(out ${CMAKE_BINARY_DIR}/test-results/${test_name})
    add_test(NAME ${test_name}
             COMMAND ${ORDO_TIMEOUT} -k 5 ${kill_after} ${MPIEXEC_EXECUTABLE}
                     ${ORDO_MPIEXEC_PREFLAGS} ${MPIEXEC_NUMPROC_FLAG} ${n}
                     $<TARGET_FILE:${T_TARGET}> --ordo-journal=${out}/journal.jsonl
                     --ordo-fresh-journal --ordo-vendor=${ORDO_VENDOR} ${waivers}
                     --gtest_output=xml:${out}/gtest.xml ${T_ARGS})
    set_tests_properties(${test_name} PROPERTIES TIMEOUT ${T_TIMEOUT} PROCESSORS 2
                         RESOURCE_LOCK mpi)
  endforeach()
endfunction()
