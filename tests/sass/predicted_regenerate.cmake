# CTest predicted_regenerate: `divbench kernels predict` from this build's kernel facts (and the
# NVRTC sm_61/sm_70 facts when built) with the committed constants, compared with results/predicted/
# (everything but each file's "run" object). Skips without kernel_facts.json (no nvdisasm at build
# time) unless DIVBENCH_REQUIRE_NVDISASM=1.
if(NOT EXISTS "${FACTS}")
  if("$ENV{DIVBENCH_REQUIRE_NVDISASM}" STREQUAL "1")
    message(FATAL_ERROR "${FACTS} missing (nvdisasm not found at build time)")
  endif()
  message("SKIPPED: ${FACTS} missing (nvdisasm not found at build time)")
  return()
endif()
set(facts "${FACTS}")
if(NVRTC_FACTS)
  list(APPEND facts "${NVRTC_FACTS}")
endif()
string(REPLACE ";" " " expect_text "${EXPECT}")
execute_process(COMMAND "${DIVBENCH}" kernels predict --facts ${facts} --constants "${CONSTANTS}" --out-dir "${OUT}"
                        --compare "${COMMITTED}" --expect ${EXPECT}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "predicted slopes differ from ${COMMITTED} (expected ${expect_text}); see above")
endif()
