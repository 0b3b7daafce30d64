# cmake -DSOURCE=<divbench checkout> -DWORK=<scratch dir> -P check.cmake
# 1. system packages: every target present;  2. a package hidden, fetching off: one clear message;
# 3. a package hidden, fetching from a stand-in archive: FetchContent runs and rejects the wrong hash.
# Needs no network.
set(here ${CMAKE_CURRENT_LIST_DIR})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(configure name expect_ok must_match)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${here} -B ${WORK}/${name} -DDIVBENCH_SOURCE=${SOURCE} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " all "${out}${err}")
  if(expect_ok AND NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: configure failed:\n${out}${err}")
  elseif(NOT expect_ok AND rc EQUAL 0)
    message(FATAL_ERROR "${name}: configure succeeded, expected a failure")
  endif()
  if(NOT all MATCHES "${must_match}")
    message(FATAL_ERROR "${name}: output lacks '${must_match}':\n${out}${err}")
  endif()
  message(STATUS "${name}: ok")
endfunction()

configure(system TRUE "depcheck: all dependency targets present")
configure(hidden_no_fetch FALSE "CLI11 >= 2.1 not found. Install the Debian package libcli11-dev"
          -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DDIVBENCH_FETCH_DEPS=OFF)
file(MAKE_DIRECTORY ${WORK}/fake/CLI11-2.1.2)
file(WRITE ${WORK}/fake/CLI11-2.1.2/CMakeLists.txt "project(fake)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${WORK}/fake.tar.gz CLI11-2.1.2 WORKING_DIRECTORY ${WORK}/fake)
configure(hidden_fetch_bad_hash FALSE "fetching 2.1.2 from file://.*26291377e892ba0e5b4972cdfd4a2ab3bf53af8dac1f4ea8fe0d1376b625c8cb"
          -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DDIVBENCH_DEP_CLI11_URL=file://${WORK}/fake.tar.gz)
