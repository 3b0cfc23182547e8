# Warnings are errors in project code (never in third-party headers, which are SYSTEM).
set(ROUTELAB_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough -Werror)

add_library(routelab_options INTERFACE)
target_compile_options(routelab_options INTERFACE ${ROUTELAB_WARNINGS})
if(OpenMP_CXX_FOUND)
  target_link_libraries(routelab_options INTERFACE OpenMP::OpenMP_CXX)
  target_compile_definitions(routelab_options INTERFACE ROUTELAB_HAVE_OPENMP=1)
endif()
target_link_libraries(routelab_options INTERFACE Threads::Threads)
if(ROUTELAB_SANITIZE)
  target_compile_options(routelab_options INTERFACE -fsanitize=address,undefined
      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(routelab_options INTERFACE -fsanitize=address,undefined)
endif()
if(ROUTELAB_SANITIZE OR ROUTELAB_CHECK_BOUNDS)
  # An index past a vector's size that stays within its capacity is no error to ASan; the
  # library's own checks see it (operator[], front, back, pop_back on an empty container).
  target_compile_definitions(routelab_options INTERFACE _GLIBCXX_ASSERTIONS)
endif()
if(ROUTELAB_FUZZ)
  # Coverage instrumentation for libFuzzer in every library; the fuzz targets link the
  # fuzzer runtime (fuzz/CMakeLists.txt).
  target_compile_options(routelab_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(routelab_options INTERFACE -fsanitize=address,undefined)
endif()
if(ROUTELAB_SANITIZE_THREAD)
  target_compile_options(routelab_options INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(routelab_options INTERFACE -fsanitize=thread)
endif()

# routelab_module(NAME [DEPS module...] [LIBS target...]) — one static library
# routelab_NAME per folder src/NAME (its *.cpp and those of its subfolders).
#
# DEPS are the modules whose headers NAME includes (module names, linked PUBLIC); LIBS are
# third-party targets. Boundaries are enforced by the build: a module's headers are
# reachable only through its own include root ${PROJECT_BINARY_DIR}/module_include/NAME,
# which holds one symbolic link NAME -> src/NAME and is given PUBLIC to routelab_NAME — so
# a module sees "NAME/..." and the headers of its DEPS (transitively, through their PUBLIC
# roots), and an `#include "other/x.h"` of an undeclared module fails to compile.
# tests/repository/check_modules.py checks the declarations against the includes exactly
# (no stale DEPS) and against the table in docs/ARCHITECTURE.md.
function(routelab_module name)
  cmake_parse_arguments(ARG "" "" "DEPS;LIBS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp
       ${PROJECT_SOURCE_DIR}/src/${name}/*/*.cpp)
  if(NOT sources)
    set(sources ${PROJECT_SOURCE_DIR}/cmake/empty.cpp)
  endif()
  set(root ${PROJECT_BINARY_DIR}/module_include/${name})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${name} ${root}/${name} SYMBOLIC)
  add_library(routelab_${name} STATIC ${sources})
  # Position-independent, so that the Python module (python/, a shared object) links these
  # same archives; without semantic interposition the code is as fast as -fPIE's.
  set_target_properties(routelab_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(routelab_${name} PRIVATE -fno-semantic-interposition)
  target_include_directories(routelab_${name} PUBLIC ${root})
  list(TRANSFORM ARG_DEPS PREPEND routelab_ OUTPUT_VARIABLE modules)
  target_link_libraries(routelab_${name} PUBLIC routelab_options ${modules} ${ARG_LIBS})
  set_property(GLOBAL APPEND PROPERTY ROUTELAB_MODULE_ROOTS ${root})
endfunction()

# routelab_all_headers: an INTERFACE target with the include root of every module declared
# so far, for code outside the modules that may include any header (tests, apps, benchmarks,
# fuzzers, experiments). Call after the last routelab_module().
function(routelab_all_headers_target)
  get_property(roots GLOBAL PROPERTY ROUTELAB_MODULE_ROOTS)
  add_library(routelab_all_headers INTERFACE)
  target_include_directories(routelab_all_headers INTERFACE ${roots})
endfunction()

# routelab_test(MODULE DEPS lib... [LABEL label]) — one GoogleTest binary per folder
# tests/MODULE; every test of it carries the label (default: MODULE), e.g. `ctest -L soak`
# (docs/RELIABILITY.md).
function(routelab_test name)
  cmake_parse_arguments(ARG "" "LABEL" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${name}/*.cpp)
  if(NOT sources)
    return()
  endif()
  add_executable(test_${name} ${sources})
  target_link_libraries(test_${name} PRIVATE ${ARG_DEPS} routelab_testsupport GTest::gtest_main)
  set(label ${name})
  if(ARG_LABEL)
    set(label ${ARG_LABEL})
  endif()
  gtest_discover_tests(test_${name} DISCOVERY_TIMEOUT 120
      PROPERTIES ENVIRONMENT "ROUTELAB_BINARY=$<TARGET_FILE:routelab>" LABELS ${label})
endfunction()
