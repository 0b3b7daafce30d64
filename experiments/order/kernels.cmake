# Build options of this folder's kernels, included by kernels/CMakeLists.txt (in the kernels library's
# directory scope, where source properties apply). The bssy_backward kernel: ptxas -O0 keeps its
# inline-PTX block order (the taken side above the branch); at -O3 ptxas lays the if/else out again with
# the taken side after the fall-through side. NVVM stays at -O3. The SASS check
# (tests/sass/test_probe_layout.cpp) verifies the layout on every architecture built.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/order_backward.cu PROPERTIES COMPILE_OPTIONS "--ptxas-options=-O0")
