# `divbench sass` from the command line: a real cubin gives a divbench.sass/1 document. Every
# refusal (one line, exit 2) is a row of the bad-input suite (tests/badinput/cases.tsv).
# Invoked by CTest with -DDIVBENCH=<path> -DCUBIN=<a cubin> -DWORK=<scratch dir>.
foreach(v DIVBENCH CUBIN WORK)
  if(NOT ${v})
    message(FATAL_ERROR "pass -D${v}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)

# The real thing, where nvdisasm is found.
execute_process(COMMAND ${DIVBENCH} sass --quiet --out ${WORK}/out.json ${CUBIN} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 2 AND err MATCHES "nvdisasm not found")
  message(STATUS "nvdisasm not found: skipping the success case")
elseif(NOT rc EQUAL 0)
  divbench_cli_fail("divbench sass ${CUBIN}: exit ${rc}: ${err}")
else()
  file(READ ${WORK}/out.json doc)
  string(JSON schema GET "${doc}" schema)
  string(JSON nblocks LENGTH "${doc}" cubins 0 functions 0 blocks)
  if(NOT schema STREQUAL "divbench.sass/1" OR nblocks LESS 1)
    divbench_cli_fail("bad document: schema '${schema}', ${nblocks} blocks")
  endif()
endif()

divbench_cli_finish("divbench sass CLI")
