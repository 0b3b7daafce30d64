# The libFuzzer harnesses' own project (tests/fuzz/project/, built with clang; tests/fuzz/CMakeLists.txt
# has their seeds and tests). Included by the top-level CMakeLists.txt before src/ so that Ninja, which
# starts ready jobs in the order build.ninja declares them, starts this build (~320 CPU-s, one job of
# the main build, its own Ninja inside) among the first instead of last, where it was the build's tail
# (to keep CI under 12 minutes). It needs nothing of the main build: the headers it reads from generated/ are
# written at configure time. Sets DIVBENCH_FUZZ_BUILT, and fuzz_bin and harnesses for tests/fuzz.
set(fuzz_dir ${PROJECT_BINARY_DIR}/tests/fuzz)
set(DIVBENCH_FUZZ_BUILT FALSE)
set(DIVBENCH_FUZZ AUTO CACHE STRING "Build the libFuzzer harnesses: AUTO, ON or OFF")
set(DIVBENCH_FUZZ_SECONDS 30 CACHE STRING "Seconds each fuzz harness runs under CTest")
if(DIVBENCH_FUZZ STREQUAL "OFF")
  return()
endif()

find_program(DIVBENCH_FUZZ_CXX NAMES clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14)
set(fuzz_ok FALSE)
if(DIVBENCH_FUZZ_CXX)
  set(fuzz_probe ${fuzz_dir}/probe.cpp)
  file(WRITE ${fuzz_probe} "extern \"C\" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n")
  execute_process(COMMAND ${DIVBENCH_FUZZ_CXX} -fsanitize=fuzzer,address,undefined ${fuzz_probe} -o ${fuzz_dir}/probe
                  RESULT_VARIABLE fuzz_rc OUTPUT_QUIET ERROR_QUIET)
  if(fuzz_rc EQUAL 0)
    set(fuzz_ok TRUE)
  endif()
endif()
if(NOT fuzz_ok)
  set(fuzz_why "no clang++ with libFuzzer (Debian: apt-get install clang libclang-rt-14-dev; scripts/deps/apt.txt)")
  if(DIVBENCH_FUZZ STREQUAL "ON")
    message(FATAL_ERROR "DIVBENCH_FUZZ=ON: ${fuzz_why}")
  endif()
  message(STATUS "fuzz: harnesses not built: ${fuzz_why}")
  return()
endif()
set(DIVBENCH_FUZZ_BUILT TRUE)
message(STATUS "fuzz: libFuzzer harnesses with ${DIVBENCH_FUZZ_CXX}, ${DIVBENCH_FUZZ_SECONDS} s each under CTest")

include(ExternalProject)
set(fuzz_bin ${fuzz_dir}/project)
set(fuzz_args -DCMAKE_CXX_COMPILER=${DIVBENCH_FUZZ_CXX} -DCMAKE_BUILD_TYPE=Release
              -DDIVBENCH_ROOT=${PROJECT_SOURCE_DIR} -DDIVBENCH_GENERATED=${PROJECT_BINARY_DIR}/generated)
if(CMAKE_CXX_COMPILER_LAUNCHER)
  list(APPEND fuzz_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER})
endif()
set(harnesses fuzz_elf fuzz_inspect fuzz_nvdisasm_json fuzz_nvdisasm_text fuzz_merge fuzz_kernels_json fuzz_counts)
set(harness_files)
foreach(h IN LISTS harnesses)
  list(APPEND harness_files ${fuzz_bin}/${h})
endforeach()
ExternalProject_Add(divbench_fuzzers
  SOURCE_DIR ${PROJECT_SOURCE_DIR}/tests/fuzz/project
  BINARY_DIR ${fuzz_bin}
  CMAKE_GENERATOR ${CMAKE_GENERATOR}
  CMAKE_ARGS ${fuzz_args}
  PREFIX ${fuzz_dir}/divbench_fuzzers-prefix
  BUILD_ALWAYS ON
  BUILD_BYPRODUCTS ${harness_files}
  INSTALL_COMMAND "")

