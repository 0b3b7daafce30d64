# Third-party dependencies: system packages first (find_package). Where one is missing and
# DIVBENCH_FETCH_DEPS is ON, a pinned, hash-checked source archive is built in-tree through
# FetchContent (needs internet at configure time). With it OFF a missing package stops configure with
# one message saying what to install.
include_guard(GLOBAL)
include(FetchContent)

option(DIVBENCH_FETCH_DEPS "Download pinned sources of dependencies not found on the system (FetchContent)" ON)

find_package(CUDAToolkit REQUIRED)

# The pinned archives. Each SHA256 is the one published for that exact tag archive by a package
# index, cross-checked against other projects pinning the same archive:
#  - benchmark 1.7.1:     conan-center-index recipes/benchmark/all/conandata.yml
#                         (commit 1f1c20079e88c9125d1af3a707d5c4ef6017972e), also spack's benchmark package
#  - nlohmann_json 3.11.2: conan-center-index recipes/nlohmann_json/all/conandata.yml
#                         (commit 9845a1775a3c0b1b9f92f7fbcc24e1410bf80de6), also Bazel http_archive pins
#  - CLI11 2.1.2:         conan-center-index recipes/cli11/all/conandata.yml
#                         (commit 1adf911f423aed5cddfc6b7dc977622c259d5e45), also Homebrew's cli11 formula
#  - googletest 1.12.1:   spack var/spack/repos/builtin/packages/googletest/package.py
#                         (fork boomanaiden154/spack, commit 3f9b0ae56138e720d4ad9a89ad24d3f0fc41fca8),
#                         also TensorFlow's workspace2.bzl
# The URLs are cache variables so a mirror or a local copy (file://...) can stand in; the hash cannot.
# divbench_pin(<fetch name> <version> <url> <sha256>) sets DIVBENCH_DEP_<name>_VERSION, _URL (a cache
# variable) and _SHA256.
macro(divbench_pin name version url sha256)
  set(DIVBENCH_DEP_${name}_VERSION ${version})
  set(DIVBENCH_DEP_${name}_URL ${url}
      CACHE STRING "Where to fetch ${name} from (a mirror or file:// path; the SHA256 is still checked)")
  set(DIVBENCH_DEP_${name}_SHA256 ${sha256})
endmacro()
divbench_pin(benchmark 1.7.1
             https://github.com/google/benchmark/archive/refs/tags/v1.7.1.tar.gz
             6430e4092653380d9dc4ccb45a1e2dc9259d581f4866dc0759713126056bc1d7)
divbench_pin(nlohmann_json 3.11.2
             https://github.com/nlohmann/json/archive/v3.11.2.tar.gz
             d69f9deb6a75e2580465c6c4c5111b89c4dc2fa94e3a85fcd2ffcd9a143d9273)
divbench_pin(CLI11 2.1.2
             https://github.com/CLIUtils/CLI11/archive/v2.1.2.tar.gz
             26291377e892ba0e5b4972cdfd4a2ab3bf53af8dac1f4ea8fe0d1376b625c8cb)
divbench_pin(GTest 1.12.1
             https://github.com/google/googletest/archive/refs/tags/release-1.12.1.tar.gz
             81964fe578e9bd7c94dfdb09c8e4d6e6759e19967e397dbea48d1c10e45d0df2)

# Options of the fetched projects: no tests, examples, docs or install rules of theirs.
set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "divbench: fetched benchmark without its tests")
set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "divbench: fetched benchmark without its tests")
set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "divbench: fetched benchmark not installed")
set(BENCHMARK_ENABLE_WERROR OFF CACHE BOOL "divbench: fetched benchmark without -Werror")
set(BENCHMARK_INSTALL_DOCS OFF CACHE BOOL "divbench: fetched benchmark without docs")
set(JSON_BuildTests OFF CACHE BOOL "divbench: fetched nlohmann_json without its tests")
set(JSON_Install OFF CACHE BOOL "divbench: fetched nlohmann_json not installed")
set(JSON_Diagnostics ON CACHE BOOL "divbench: key paths in the JSON exceptions (also set below for the system package)")
set(CLI11_BUILD_TESTS OFF CACHE BOOL "divbench: fetched CLI11 without its tests")
set(CLI11_BUILD_EXAMPLES OFF CACHE BOOL "divbench: fetched CLI11 without examples")
set(CLI11_BUILD_DOCS OFF CACHE BOOL "divbench: fetched CLI11 without docs")
set(INSTALL_GTEST OFF CACHE BOOL "divbench: fetched googletest not installed")
set(BUILD_GMOCK OFF CACHE BOOL "divbench: fetched googletest without gmock")

# divbench_dependency(<find_package name> <minimum version> <apt package> <fetch name> <target>...)
# find_package first; else fetch the pinned archive (or stop with one message); then make sure the
# namespaced targets divbench links against exist (aliases onto the fetched project's own targets).
macro(divbench_dependency pkg min_version apt_pkg fetch_name)
  find_package(${pkg} ${min_version} QUIET)
  if(${pkg}_FOUND)
    message(STATUS "divbench: ${pkg} ${${pkg}_VERSION} (system)")
  elseif(DIVBENCH_FETCH_DEPS)
    message(STATUS "divbench: ${pkg} >= ${min_version} not found on the system: fetching "
                   "${DIVBENCH_DEP_${pkg}_VERSION} from ${DIVBENCH_DEP_${pkg}_URL} "
                   "(needs internet; -DDIVBENCH_FETCH_DEPS=OFF to stop here instead)")
    FetchContent_Declare(${fetch_name}
      URL ${DIVBENCH_DEP_${pkg}_URL}
      URL_HASH SHA256=${DIVBENCH_DEP_${pkg}_SHA256}
      DOWNLOAD_EXTRACT_TIMESTAMP TRUE)
    FetchContent_MakeAvailable(${fetch_name})
    set(${pkg}_FETCHED TRUE)
  else()
    message(FATAL_ERROR "divbench: ${pkg} >= ${min_version} not found. Install the Debian package "
                        "${apt_pkg} (bash scripts/setup-deps.sh), point CMAKE_PREFIX_PATH at an install, "
                        "or configure with -DDIVBENCH_FETCH_DEPS=ON to build the pinned "
                        "${DIVBENCH_DEP_${pkg}_VERSION} from source (downloads ${DIVBENCH_DEP_${pkg}_URL}).")
  endif()
endmacro()

# <namespaced target> <plain target of the fetched project>
function(divbench_alias_target alias plain)
  if(NOT TARGET ${alias} AND TARGET ${plain})
    add_library(${alias} ALIAS ${plain})
  endif()
  if(NOT TARGET ${alias})
    message(FATAL_ERROR "divbench: dependency target ${alias} is missing after configuring its package")
  endif()
endfunction()

divbench_dependency(nlohmann_json 3.9 nlohmann-json3-dev nlohmann_json)
divbench_alias_target(nlohmann_json::nlohmann_json nlohmann_json)
# JSON_DIAGNOSTICS=1: the library's exceptions carry the JSON pointer of the offending value
# ("(/bodies/0/a) type must be number"), so a bad input is refused naming its key. It changes the layout
# of basic_json, so every translation unit that includes nlohmann/json must see the same value: it is
# set on the one target they all link (system or fetched), never per target.
get_target_property(divbench_json_target nlohmann_json::nlohmann_json ALIASED_TARGET)
if(NOT divbench_json_target)
  set(divbench_json_target nlohmann_json::nlohmann_json)
endif()
set_property(TARGET ${divbench_json_target} APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS JSON_DIAGNOSTICS=1)
divbench_dependency(CLI11 2.1 libcli11-dev cli11)
divbench_alias_target(CLI11::CLI11 CLI11)
divbench_dependency(benchmark 1.6 libbenchmark-dev benchmark)
divbench_alias_target(benchmark::benchmark benchmark)
if(DIVBENCH_BUILD_TESTS)
  divbench_dependency(GTest 1.10 libgtest-dev googletest)
  divbench_alias_target(GTest::gtest gtest)
  divbench_alias_target(GTest::gtest_main gtest_main)
endif()
