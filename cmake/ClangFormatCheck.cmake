# cmake -DORDO_SOURCE_DIR=<checkout> -P ClangFormatCheck.cmake
# Fails when a tracked C or C++ file differs from what clang-format (the root
# .clang-format) makes of it, or when clang-format is missing.
cmake_minimum_required(VERSION 3.18)
find_program(CLANG_FORMAT NAMES clang-format clang-format-14)
if(NOT CLANG_FORMAT)
  message(FATAL_ERROR "lint.clang_format: clang-format is not installed; "
                      "run tools/install-deps.sh (Debian package clang-format)")
endif()
find_program(GIT git)
set(files "")
if(GIT AND EXISTS ${ORDO_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT} ls-files -- *.c *.cpp *.h *.cc *.hpp
                  WORKING_DIRECTORY ${ORDO_SOURCE_DIR} OUTPUT_VARIABLE listed RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    string(REPLACE "\n" ";" files "${listed}")
    list(FILTER files EXCLUDE REGEX "^$")
  endif()
endif()
if(NOT files)  # a copy without git: every C and C++ file outside build trees
  file(GLOB_RECURSE files RELATIVE ${ORDO_SOURCE_DIR} ${ORDO_SOURCE_DIR}/*.c ${ORDO_SOURCE_DIR}/*.cpp
       ${ORDO_SOURCE_DIR}/*.h ${ORDO_SOURCE_DIR}/*.cc ${ORDO_SOURCE_DIR}/*.hpp)
  list(FILTER files EXCLUDE REGEX "^(build|\\.git)/")
endif()
list(LENGTH files n)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files} WORKING_DIRECTORY ${ORDO_SOURCE_DIR}
                RESULT_VARIABLE rc ERROR_VARIABLE errors)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${errors}\nlint.clang_format: files above differ from clang-format's output "
                      "(of ${n} C/C++ files); run: clang-format -i <file>")
endif()
message(STATUS "lint.clang_format: ${n} C/C++ files formatted")
