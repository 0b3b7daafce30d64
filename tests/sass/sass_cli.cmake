# `divbench sass` from the command line: bad input gives one clear line and exit 2; a real cubin
# gives a divbench.sass/1 document. Invoked by CTest with -DDIVBENCH=<path> -DCUBIN=<a cubin>
# -DWORK=<scratch dir>.
foreach(v DIVBENCH CUBIN WORK)
  if(NOT ${v})
    message(FATAL_ERROR "pass -D${v}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)
function(expect code pattern)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  string(STRIP "${err}" err)
  divbench_cli_verdict(bad ${code} "${pattern}" "${rc}" "${err}")
  divbench_cli_report("${bad}" "${ARGN}" "${err}" "ok: ${ARGN} -> ${rc}")
endfunction()

expect(2 "no such file" ${DIVBENCH} sass ${WORK}/missing.cubin)
expect(2 "not an ELF file" ${DIVBENCH} sass ${CMAKE_CURRENT_LIST_FILE})
execute_process(COMMAND head -c 300 ${CUBIN} OUTPUT_FILE ${WORK}/truncated.cubin)
expect(2 "truncated ELF file" ${DIVBENCH} sass ${WORK}/truncated.cubin)
expect(2 "is a directory" ${DIVBENCH} sass ${WORK})
expect(2 "--nvdisasm: '/nonexistent/nvdisasm' is not an executable file"
       ${DIVBENCH} sass --nvdisasm /nonexistent/nvdisasm ${CUBIN})
expect(2 "--out" ${DIVBENCH} sass --out /nonexistent-dir/x.json ${CUBIN})
expect(2 "required" ${DIVBENCH} sass)
# A host executable without device code (CMake itself).
expect(2 "no CUDA device code|cuobjdump not found" ${DIVBENCH} sass ${CMAKE_COMMAND})
# No nvdisasm anywhere: only testable where the default CUDA location has none.
if(NOT EXISTS /usr/local/cuda/bin/nvdisasm)
  expect(2 "nvdisasm not found" ${CMAKE_COMMAND} -E env --unset=CUDA_HOME --unset=CUDA_PATH --unset=DIVBENCH_NVDISASM
         PATH=/nonexistent DIVBENCH_PYTHON=/nonexistent ${DIVBENCH} sass ${CUBIN})
endif()

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
