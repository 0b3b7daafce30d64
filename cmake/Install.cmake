# `cmake --install <build> --prefix P` and `cpack -G DEB` (docs/install.md). Included by the top-level
# CMakeLists.txt after every target exists. The layout, in GNUInstallDirs' names:
#   P/bin/divbench
#   P/lib/divbench/libdivbench_inject.so, libdivbench_pcsample.so    (where the toolkit has CUPTI's SASS metrics)
#   P/share/divbench/loop_cost.json, memory.json, call_path.json     (the committed H200 constants)
#   P/share/divbench/kernel_facts.json                               (this build's, where nvdisasm made it)
# The installed divbench finds them from its own folder (/proc/self/exe): ../share/divbench and
# ../lib/divbench, after the build tree's places (installed_data_dir / installed_lib_dir, core/process.hpp).
# Every rule is in the component "divbench", the one the package holds.
include(GNUInstallDirs)

set(DIVBENCH_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/divbench)
set(DIVBENCH_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR}/divbench)
# The folders as divbench sees them from its bin/ (relative, so that any --prefix or DESTDIR keeps them).
file(RELATIVE_PATH divbench_data_from_bin ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_DATADIR}/divbench)
file(RELATIVE_PATH divbench_lib_from_bin ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR}/divbench)
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/core/process.cpp TARGET_DIRECTORY divbench_core APPEND PROPERTY
             COMPILE_DEFINITIONS DIVBENCH_INSTALL_DATA_FROM_BIN="${divbench_data_from_bin}"
                                 DIVBENCH_INSTALL_LIB_FROM_BIN="${divbench_lib_from_bin}")

# Installed programs keep the link folders outside the build tree in their run path, as the build's
# copies have them (the toolkit's library folder): an installed divbench behaves as the built one.
install(TARGETS divbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT divbench)
set_target_properties(divbench PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
# The Pascal/Volta build (CUDA 11.8: no SASS metrics API) has no injection libraries.
foreach(lib divbench_inject divbench_pcsample)
  if(TARGET ${lib})
    install(TARGETS ${lib} LIBRARY DESTINATION ${DIVBENCH_INSTALL_LIBDIR} COMPONENT divbench)
    set_target_properties(${lib} PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
  endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/results/h200/loop_cost.json ${PROJECT_SOURCE_DIR}/results/h200/memory.json
              ${PROJECT_SOURCE_DIR}/results/h200/call_path.json
        DESTINATION ${DIVBENCH_INSTALL_DATADIR} COMPONENT divbench)
# Written after each build by the kernel-facts step (bench/CMakeLists.txt); absent without nvdisasm.
install(FILES ${PROJECT_BINARY_DIR}/kernel_facts.json DESTINATION ${DIVBENCH_INSTALL_DATADIR} COMPONENT divbench OPTIONAL)

# CPack: `cpack -G DEB` in the build folder writes divbench_<version>_<arch>.deb (installs under /usr).
set(DIVBENCH_DEB_MAINTAINER "divbench maintainers <dev@divbench.invalid>" CACHE STRING
    "Maintainer field of the .deb (cpack -G DEB)")
set(CPACK_PACKAGE_NAME divbench)
set(CPACK_PACKAGE_VENDOR divbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "CUDA warp-divergence measurement and attribution (divbench)")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "divbench measures what warp divergence costs on a CUDA GPU, analyses the SASS the compiler emits for it, "
    "and attributes the divergence cost of any CUDA program to its branches (divbench attribute). "
    "This package declares no dependencies: it needs the CUDA toolkit it was built with, installed by the user "
    "(nvdisasm and cuobjdump on PATH, CUPTI, the NVIDIA driver for runs on a GPU), and the shared libraries "
    "divbench was linked against on the build machine (Google Benchmark's libbenchmark when the system's was used).")
set(CPACK_GENERATOR DEB)
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};divbench;divbench;/")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_NAME divbench)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${DIVBENCH_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
include(CPack)
