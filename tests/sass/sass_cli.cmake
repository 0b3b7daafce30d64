# `divbench sass` and `divbench kernels` from the command line: a real cubin gives a divbench.sass/2
# and a divbench.kernels/1 document. Every refusal (one line, exit 2) is a row of the bad-input suite
# (tests/badinput/cases.tsv). Invoked by CTest with -DDIVBENCH=<path> -DCUBIN=<a cubin> -DWORK=<scratch dir>.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)
divbench_cli_require(DIVBENCH CUBIN WORK)
file(MAKE_DIRECTORY ${WORK})

# The real thing, where nvdisasm is found: sets `doc` to the written file's text ("" when skipped or failed).
function(real_run what out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err)
  set(doc "" PARENT_SCOPE)
  if(rc EQUAL 2 AND err MATCHES "nvdisasm not found")
    message(STATUS "nvdisasm not found: skipping ${what}")
  elseif(NOT rc EQUAL 0)
    divbench_cli_fail("${what}: exit ${rc}: ${err}")
  else()
    file(READ ${out} text)
    set(doc "${text}" PARENT_SCOPE)
  endif()
endfunction()
real_run("divbench sass ${CUBIN}" ${WORK}/out.json ${DIVBENCH} sass --quiet --out ${WORK}/out.json ${CUBIN})
if(doc)
  string(JSON schema GET "${doc}" schema)
  string(JSON nblocks LENGTH "${doc}" cubins 0 functions 0 blocks)
  if(NOT schema STREQUAL "divbench.sass/2" OR nblocks LESS 1)
    divbench_cli_fail("bad document: schema '${schema}', ${nblocks} blocks")
  endif()
endif()

# `divbench kernels facts` on the same cubin; a fit of the committed H200 (sm_90) k sweep on those
# facts finds no k-way work loop: one line, exit 2, no constants written.
set(KWAY ${CMAKE_CURRENT_LIST_DIR}/../../results/h200/kway_fma_chain.json)
file(REMOVE ${WORK}/c.json)
real_run("divbench kernels facts ${CUBIN}" ${WORK}/facts.json ${DIVBENCH} kernels facts --quiet ${CUBIN}
         --out ${WORK}/facts.json)
if(doc)
  string(JSON schema GET "${doc}" schema)
  if(NOT schema STREQUAL "divbench.kernels/1")
    divbench_cli_fail("kernels facts: schema '${schema}'")
  endif()
  execute_process(COMMAND ${DIVBENCH} kernels fit --kway ${KWAY} --facts ${WORK}/facts.json --out ${WORK}/c.json
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  string(STRIP "${err}" err)
  divbench_cli_verdict(bad 2 "no kway_kernel<" "${rc}" "${err}")
  divbench_cli_report("${bad}" "kernels fit on facts without a k-way kernel" "${err}" "ok: kernels fit -> ${rc}")
  if(EXISTS ${WORK}/c.json)
    divbench_cli_fail("${WORK}/c.json was written")
  endif()
endif()

divbench_cli_finish("divbench sass CLI")
