# ORDO_SANITIZE=ON: ordo's own code (the reference, the harness, the check
# and property executables, the reference MPI of reference/mpi/ and what
# vendors/<name>/ builds) compiled and linked with AddressSanitizer and
# UndefinedBehaviorSanitizer, so that a memory error or undefined behaviour
# of ordo's is reported as ordo's and never charged to a library. The MPI
# library itself, GoogleTest and RapidCheck come from Debian, uninstrumented.
# ./ordo run --sanitize builds this in build/<vendor>-sanitize/ and sets the
# runtime options of every rank (tools/runner/build.py, sanitize_env);
# ./ordo test runs it against reference-mpich (tools/runner/selftest.py).
option(ORDO_SANITIZE "Build ordo's own code with -fsanitize=address,undefined" OFF)
if(ORDO_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ORDO_SANITIZE needs g++ or clang++ (found ${CMAKE_CXX_COMPILER_ID})")
  endif()
  # -fno-sanitize-recover=undefined: the first undefined behaviour ends the
  # process (a crash the runner records), never a line in a log alone.
  set(ORDO_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
                          -fno-sanitize-recover=undefined)
  # -O1 -g1 (after the build type's -O2 -g, so they win): the instrumented
  # build compiles in about half the time, and line tables are all a
  # sanitizer report needs.
  add_compile_options(${ORDO_SANITIZE_FLAGS} -O1 -g1)
  # The Fortran layer (conformance/harness/fortran/) hands the library an
  # insignificant buffer that ordo passes as NULL (a non-root's receive
  # buffer) as an array argument; gfortran's null check reports the pointer
  # itself though nothing is read through it. The other checks stay on.
  add_compile_options($<$<COMPILE_LANGUAGE:Fortran>:-fno-sanitize=null>)
  add_link_options(${ORDO_SANITIZE_FLAGS})
  add_compile_definitions(ORDO_SANITIZE=1)
endif()
