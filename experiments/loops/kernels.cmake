# The loop-cost model's validation loops (loops.cu, `--sweep loops`): 9 bodies x 8 placements, compiled
# only for DIVBENCH_VALIDATION_ARCHS (default: sm_90 where the build has it, the GPU the constants are
# fitted on; else the build's first architecture), not for every architecture of the build. So they are
# a library of their own, which divbench_kernels links, and not sources of divbench_kernels (whose glob
# over experiments/*/*.cu found loops.cu). Included by kernels/CMakeLists.txt after divbench_kernels exists.
set(_loops_cu ${CMAKE_CURRENT_LIST_DIR}/loops.cu)
get_target_property(_kernel_sources divbench_kernels SOURCES)
list(REMOVE_ITEM _kernel_sources ${_loops_cu})
set_property(TARGET divbench_kernels PROPERTY SOURCES ${_kernel_sources})

set(_val_default "")
foreach(a IN LISTS CMAKE_CUDA_ARCHITECTURES)
  if(a MATCHES "^90")
    set(_val_default ${a})
  endif()
endforeach()
if(NOT _val_default)
  list(GET CMAKE_CUDA_ARCHITECTURES 0 _val_default)
endif()
set(DIVBENCH_VALIDATION_ARCHS ${_val_default} CACHE STRING "CUDA architectures of the loop-cost validation kernels")
set(_val_numbers "")
foreach(a IN LISTS DIVBENCH_VALIDATION_ARCHS)
  string(REGEX MATCH "^[0-9]+" n "${a}")
  list(APPEND _val_numbers ${n})
endforeach()
add_library(divbench_validation_kernels STATIC ${_loops_cu})
set_target_properties(divbench_validation_kernels PROPERTIES CUDA_ARCHITECTURES "${DIVBENCH_VALIDATION_ARCHS}")
target_include_directories(divbench_validation_kernels PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}
                                                       PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
target_link_libraries(divbench_validation_kernels PUBLIC divbench_cuda)
target_compile_options(divbench_validation_kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
string(REPLACE ";" "," _val_define "${_val_numbers}")
target_compile_definitions(divbench_validation_kernels PRIVATE "DIVBENCH_VALIDATION_ARCH_LIST=\"${_val_define}\"")
target_link_libraries(divbench_kernels PUBLIC divbench_validation_kernels)
