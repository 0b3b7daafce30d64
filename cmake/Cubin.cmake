# divbench_add_cubin(OUT SRC ARCH [INCLUDES dir...] [COMMENT text]): a standalone cubin of one .cu file
# for sm_ARCH (nvcc -cubin -O3 -lineinfo -std=c++17), rebuilt when the source or its headers change.
# Used for the SASS test cubins and the bit-flip cubins: not linked into divbench.
include_guard(GLOBAL)
function(divbench_add_cubin out src arch)
  cmake_parse_arguments(PARSE_ARGV 3 A "" "COMMENT" "INCLUDES")
  get_filename_component(dir ${out} DIRECTORY)
  set(incs "")
  foreach(i IN LISTS A_INCLUDES)
    list(APPEND incs -I${i})
  endforeach()
  if(NOT A_COMMENT)
    set(A_COMMENT "nvcc -cubin sm_${arch} ${src}")
  endif()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${CMAKE_CUDA_COMPILER} -cubin -arch=sm_${arch} -O3 -std=c++17 -lineinfo ${incs} -o ${out} ${src}
    DEPENDS ${src}
    IMPLICIT_DEPENDS CXX ${src}
    COMMENT "${A_COMMENT}"
    VERBATIM)
endfunction()
