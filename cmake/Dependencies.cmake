# Third-party dependencies: system packages first (find_package).
include_guard(GLOBAL)

find_package(CUDAToolkit REQUIRED)
find_package(nlohmann_json 3.9 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
find_package(benchmark 1.6 REQUIRED)
if(DIVBENCH_BUILD_TESTS)
  find_package(GTest 1.10 REQUIRED)
endif()
